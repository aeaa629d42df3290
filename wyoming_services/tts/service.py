"""Text-to-speech: voices, the synthesis workers and what `info` says."""

from __future__ import annotations

import argparse
import dataclasses
import logging
import os

import numpy as np
from piper import SynthesisConfig
from wyoming.info import Attribution, Info, TtsProgram, TtsVoice, TtsVoiceSpeaker

from .. import __version__
from ..workers import WorkerPool
from .voices import Voice, VoiceLibrary, read_config

_LOGGER = logging.getLogger(__name__)

PROGRAM = "jarvis-piper"
_ATTRIBUTION = Attribution(
    name="rhasspy", url="https://github.com/OHF-Voice/piper1-gpl"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Flags compatible with wyoming-piper."""
    group = parser.add_argument_group("text-to-speech")
    group.add_argument(
        "--voice",
        default="en_US-lessac-medium",
        help="Default voice: a name (downloaded if needed) or a path to an .onnx file",
    )
    group.add_argument(
        "--max-loaded-voices",
        type=int,
        default=3,
        help="Voices kept loaded, the default one included; the least recently used "
        "other one is unloaded for a new one (default: 3)",
    )
    group.add_argument(
        "--speaker", help="Default speaker (name or id) of the default voice"
    )
    group.add_argument("--length-scale", type=float, help="Phoneme length (slower > 1)")
    group.add_argument("--noise-scale", type=float, help="Generator noise")
    group.add_argument(
        "--noise-w-scale", "--noise-w", type=float, help="Phoneme width noise"
    )
    group.add_argument(
        "--samples-per-chunk",
        type=int,
        default=1024,
        help="Samples per audio-chunk event",
    )
    group.add_argument(
        "--no-streaming", action="store_true", help="Do not offer text streaming"
    )
    group.add_argument(
        "--synthesis-workers",
        type=int,
        default=os.cpu_count() or 1,
        help="Sentences synthesized at once (default: one per core)",
    )
    group.add_argument(
        "--synthesis-threads",
        type=int,
        default=1,
        help="Threads per synthesis (default: 1; parallelism comes from the workers)",
    )


class TtsService:
    """Voices and synthesis workers shared by all connections."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.library = VoiceLibrary(
            args.voice,
            args.data_dir,
            args.download_dir,
            args.local_files_only,
            threads=args.synthesis_threads,
            max_loaded=args.max_loaded_voices,
        )
        self.default_speaker: str | None = args.speaker
        self.base_config = SynthesisConfig(
            length_scale=args.length_scale,
            noise_scale=args.noise_scale,
            noise_w_scale=args.noise_w_scale,
        )
        self.samples_per_chunk: int = args.samples_per_chunk
        self.streaming = not args.no_streaming
        # One worker waits for first pieces only: a new reply never queues behind
        # a long sentence of someone else's.
        self.workers = WorkerPool(
            "piper",
            args.synthesis_workers,
            reserved=1,
            idle_seconds=args.worker_idle_seconds,
        )
        # Fail at startup, not on the first request, if the default voice is missing.
        self.default_voice = self.library.get(None)
        self.synthesize(self.default_voice, "Ready.", self.base_config)

    def synthesis_config(self, voice: Voice, speaker: str | None) -> SynthesisConfig:
        """Settings for one request (raises for an unknown speaker)."""
        if speaker is None and voice.name == self.library.default:
            speaker = self.default_speaker
        return dataclasses.replace(
            self.base_config, speaker_id=voice.speaker_id(speaker)
        )

    @staticmethod
    def synthesize(voice: Voice, text: str, config: SynthesisConfig) -> bytes:
        """16-bit mono PCM at the voice's rate (blocking: run it on `workers`)."""
        chunks = [
            chunk.audio_int16_array for chunk in voice.piper.synthesize(text, config)
        ]
        return np.concatenate(chunks).tobytes() if chunks else b""

    def info(self) -> Info:
        """Info listing every voice on disk."""
        voices = []
        for files in self.library.available().values():
            try:
                config = read_config(files.config)
            except (OSError, ValueError) as err:
                _LOGGER.warning("Skipping voice %s: %s", files.name, err)
                continue
            language = (
                config.get("language", {}).get("code") or files.name.split("-")[0]
            )
            speakers = config.get("speaker_id_map") or {}
            voices.append(
                TtsVoice(
                    name=files.name,
                    description=files.name,
                    attribution=_ATTRIBUTION,
                    installed=True,
                    version=None,
                    languages=[language],
                    speakers=[TtsVoiceSpeaker(name=s) for s in speakers] or None,
                )
            )
        return Info(
            tts=[
                TtsProgram(
                    name=PROGRAM,
                    description="Piper that speaks the first words first",
                    attribution=_ATTRIBUTION,
                    installed=True,
                    version=__version__,
                    voices=voices,
                    supports_synthesize_streaming=self.streaming,
                )
            ]
        )

    def close(self) -> None:
        """Stop the worker threads."""
        self.workers.close()
