"""Piper voices: found in data directories, downloaded by name, loaded once."""

from __future__ import annotations

from dataclasses import dataclass
import json
import logging
from pathlib import Path
import re
import threading
from typing import Any

import onnxruntime  # type: ignore[import-untyped]
from piper import PiperConfig, PiperVoice
from piper.download_voices import download_voice

from ..protocol import RequestError

_LOGGER = logging.getLogger(__name__)

# Piper's naming scheme, e.g. en_US-lessac-medium: what can be downloaded by name.
_VOICE_NAME = re.compile(r"^[a-z]{2,3}_[A-Za-z0-9]+-[^-/\\]+-[a-z_]+$")


@dataclass(frozen=True, slots=True)
class VoiceFiles:
    """A voice on disk."""

    name: str
    model: Path
    config: Path


@dataclass(frozen=True, slots=True)
class Voice:
    """A loaded voice."""

    name: str
    piper: PiperVoice
    speakers: dict[str, int]

    @property
    def rate(self) -> int:
        """Sample rate of everything this voice says."""
        return int(self.piper.config.sample_rate)

    def speaker_id(self, speaker: str | None) -> int | None:
        """Id of a speaker by name or number; None for the voice's default."""
        if speaker is None or not self.speakers:
            return None
        if speaker in self.speakers:
            return self.speakers[speaker]
        if speaker.isdigit() and int(speaker) in self.speakers.values():
            return int(speaker)
        raise RequestError(
            f"voice {self.name} has no speaker {speaker}", "speaker-not-found"
        )


def read_config(path: Path) -> dict[str, Any]:
    """A voice's .onnx.json."""
    with path.open(encoding="utf-8") as config_file:
        config: dict[str, Any] = json.load(config_file)
    return config


class VoiceLibrary:
    """Voices in the data directories, plus the default one given by path."""

    def __init__(
        self,
        default_voice: str,
        data_dirs: list[str],
        download_dir: str | None,
        local_files_only: bool,
        threads: int,
    ) -> None:
        self._data_dirs = [Path(d) for d in data_dirs]
        self._download_dir = Path(download_dir) if download_dir else None
        self._local_files_only = local_files_only
        self._threads = threads
        self._loaded: dict[str, Voice] = {}
        self._lock = threading.Lock()
        default_path = Path(default_voice)
        self._extra: dict[str, VoiceFiles] = {}
        if default_path.suffix == ".onnx":
            files = VoiceFiles(
                default_path.stem, default_path, Path(f"{default_path}.json")
            )
            self._extra[files.name] = files
            self.default = files.name
        else:
            self.default = default_voice

    def available(self) -> dict[str, VoiceFiles]:
        """Every voice on disk (rescanned, so new downloads show up)."""
        found = dict(self._extra)
        for data_dir in self._data_dirs:
            for model in sorted(data_dir.glob("*.onnx")):
                config = Path(f"{model}.json")
                if config.is_file():
                    found.setdefault(model.stem, VoiceFiles(model.stem, model, config))
        return found

    def loaded(self, name: str | None) -> Voice | None:
        """The voice if it is already loaded (does not block)."""
        return self._loaded.get(name or self.default)

    def get(self, name: str | None) -> Voice:
        """A loaded voice (blocking: may load or download)."""
        name = name or self.default
        with self._lock:
            if (voice := self._loaded.get(name)) is not None:
                return voice
            files = self.available().get(name) or self._download(name)
            voice = self._load(files)
            self._loaded[name] = voice
            return voice

    def _download(self, name: str) -> VoiceFiles:
        target = self._download_dir or (self._data_dirs[0] if self._data_dirs else None)
        if self._local_files_only or target is None or not _VOICE_NAME.match(name):
            raise RequestError(f"unknown voice: {name}", "voice-not-found")
        _LOGGER.info("Downloading voice %s", name)
        target.mkdir(parents=True, exist_ok=True)
        try:
            download_voice(name, target)
        except OSError as err:
            raise RequestError(
                f"cannot download voice {name}: {err}", "voice-not-found"
            ) from err
        return VoiceFiles(name, target / f"{name}.onnx", target / f"{name}.onnx.json")

    def _load(self, files: VoiceFiles) -> Voice:
        _LOGGER.debug("Loading voice %s", files.name)
        options = onnxruntime.SessionOptions()
        # Each synthesis runs on one core; concurrency comes from several workers,
        # which shares the CPU between clients better than intra-op threads do.
        options.intra_op_num_threads = self._threads
        options.inter_op_num_threads = 1
        config = read_config(files.config)
        piper = PiperVoice(
            config=PiperConfig.from_dict(config),
            session=onnxruntime.InferenceSession(
                str(files.model),
                sess_options=options,
                providers=["CPUExecutionProvider"],
            ),
        )
        return Voice(files.name, piper, dict(config.get("speaker_id_map") or {}))
