"""Piper voices: found in data directories, downloaded by name, a few loaded."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
import functools
import json
import logging
from pathlib import Path
import threading
from typing import Any

import onnxruntime  # type: ignore[import-untyped]
from piper import PiperConfig, PiperVoice
from piper.download_voices import download_voice

from ..protocol import RequestError

_LOGGER = logging.getLogger(__name__)

# Piper's published voices (the keys of its voices.json, as wyoming-piper 2.5.2
# ships it): the only names a client can have downloaded.
_PUBLISHED = Path(__file__).with_name("piper_voices.txt")


@functools.cache
def published_voices() -> frozenset[str]:
    """Names of the voices Piper publishes."""
    return frozenset(_PUBLISHED.read_text(encoding="utf-8").split())


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
        *,
        threads: int,
        max_loaded: int,
    ) -> None:
        self._data_dirs = [Path(d) for d in data_dirs]
        self._download_dir = Path(download_dir) if download_dir else None
        self._local_files_only = local_files_only
        self._threads = threads
        self._max_loaded = max(1, max_loaded)
        # Least recently used first. `_lock` guards it (briefly, also from the
        # event loop); `_loading` is held while one voice downloads or loads.
        self._loaded: OrderedDict[str, Voice] = OrderedDict()
        self._lock = threading.Lock()
        self._loading = threading.Lock()
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
        name = name or self.default
        with self._lock:
            voice = self._loaded.get(name)
            if voice is not None:
                self._loaded.move_to_end(name)
            return voice

    def get(self, name: str | None) -> Voice:
        """A loaded voice (blocking: may load or download)."""
        name = name or self.default
        with self._loading:
            if (voice := self.loaded(name)) is not None:
                return voice
            files = self._find(name)
            voice = self._load(files)
            with self._lock:
                self._loaded[name] = voice
                self._unload_extra()
            return voice

    def _unload_extra(self) -> None:
        # The default voice stays; speech already under way keeps its voice alive.
        unloadable = [n for n in self._loaded if n != self.default]
        for name in unloadable[: max(0, len(self._loaded) - self._max_loaded)]:
            _LOGGER.debug("Unloading voice %s", name)
            del self._loaded[name]

    def _find(self, name: str) -> VoiceFiles:
        if (files := self.available().get(name)) is not None:
            return files
        if name not in published_voices():
            raise RequestError("unknown voice", "voice-not-found")
        return self._download(name)

    def _download(self, name: str) -> VoiceFiles:
        target = self._download_dir or (self._data_dirs[0] if self._data_dirs else None)
        if self._local_files_only or target is None:
            raise RequestError("voice not installed", "voice-not-found")
        _LOGGER.info("Downloading voice %s", name)
        target.mkdir(parents=True, exist_ok=True)
        try:
            download_voice(name, target)
        except OSError as err:
            _LOGGER.warning("Cannot download voice %s: %s", name, err)
            raise RequestError(
                "voice could not be downloaded", "voice-not-found"
            ) from err
        return VoiceFiles(name, target / f"{name}.onnx", target / f"{name}.onnx.json")

    def _load(self, files: VoiceFiles) -> Voice:
        _LOGGER.debug("Loading voice %s", files.name)
        options = onnxruntime.SessionOptions()
        # Each synthesis runs on one core; concurrency comes from several workers,
        # which shares the CPU between clients better than intra-op threads do.
        options.intra_op_num_threads = self._threads
        options.inter_op_num_threads = 1
        # ONNX Runtime's arena keeps the peak of the longest sentence ever spoken
        # (160 MiB for 30 words) for good; without it, that memory is freed.
        options.enable_cpu_mem_arena = False
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
