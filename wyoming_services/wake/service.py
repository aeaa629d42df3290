"""Wake word detection: the models, pooled detectors and what `info` says."""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
import json
import logging
import os
from pathlib import Path
from typing import Final, Literal

import pymicro_wakeword
from pymicro_wakeword import MicroWakeWord, MicroWakeWordFeatures
import pyopen_wakeword
from wyoming.info import Attribution, Info, WakeModel, WakeProgram

from .. import __version__
from ..protocol import RequestError
from ..workers import ObjectPool, WorkerPool
from .primed import PrimedDetector, PrimedFeatures

_LOGGER = logging.getLogger(__name__)

PROGRAM: Final = "jarvis-wakeword"
OPEN: Final = "openwakeword"
MICRO: Final = "microwakeword"
Engine = Literal["openwakeword", "microwakeword"]
_OPEN_DIR: Final = Path(pyopen_wakeword.__file__).parent / "models"
_MICRO_DIR: Final = Path(pymicro_wakeword.__file__).parent / "models"
# openWakeWord's shared feature models, not wake words.
_OPEN_FEATURE_MODELS: Final = frozenset({"melspectrogram", "embedding_model"})
_OPEN_THRESHOLD: Final = 0.5


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Flags in the spirit of wyoming-openwakeword."""
    group = parser.add_argument_group("wake word")
    group.add_argument(
        "--wake-word",
        "--preload-model",
        dest="wake_word",
        action="append",
        help="Wake word listened for when a client names none (repeatable; "
        "default: hey_jarvis)",
    )
    group.add_argument(
        "--custom-model-dir",
        action="append",
        default=[],
        help="Directory with openWakeWord .tflite or microWakeWord .json models",
    )
    group.add_argument(
        "--wake-engine",
        choices=(OPEN, MICRO),
        default=OPEN,
        help="Engine for the built-in wake words (default: openwakeword)",
    )
    group.add_argument(
        "--threshold",
        type=float,
        help="Detection probability (default: 0.5, or a microWakeWord model's own)",
    )
    group.add_argument(
        "--trigger-level",
        type=int,
        default=1,
        help="Activations in a row needed for a detection (default: 1)",
    )
    group.add_argument(
        "--refractory-seconds",
        type=float,
        default=2.0,
        help="Seconds a wake word stays quiet after a detection (default: 2)",
    )
    group.add_argument(
        "--max-lead-seconds",
        type=float,
        default=30.0,
        help="Seconds of audio a stream may run ahead of real time; past that, "
        "reading it waits (default: 30)",
    )


@dataclass(eq=False)
class WakeWordModel:
    """One wake word model and its pool of loaded, stateful detectors."""

    name: str
    phrase: str
    engine: Engine
    path: Path
    threshold: float
    languages: list[str] = field(default_factory=lambda: ["en"])
    detectors: ObjectPool[PrimedDetector | MicroWakeWord] = field(init=False)

    def __post_init__(self) -> None:
        self.detectors = ObjectPool(self._load, type(self)._reset)

    def _load(self) -> PrimedDetector | MicroWakeWord:
        if self.engine == OPEN:
            return PrimedDetector(self.path)
        return MicroWakeWord.from_config(self.path)

    @staticmethod
    def _reset(detector: PrimedDetector | MicroWakeWord) -> None:
        detector.reset()


def _phrase(name: str) -> str:
    return " ".join(part.capitalize() for part in name.split("_"))


def _micro_model(config_path: Path, threshold: float | None) -> WakeWordModel:
    with config_path.open(encoding="utf-8") as config_file:
        config = json.load(config_file)
    return WakeWordModel(
        name=config_path.stem,
        phrase=config.get("wake_word") or _phrase(config_path.stem),
        engine=MICRO,
        path=config_path,
        threshold=threshold or float(config["micro"]["probability_cutoff"]),
        languages=config.get("trained_languages") or ["en"],
    )


def _open_model(path: Path, threshold: float | None) -> WakeWordModel:
    return WakeWordModel(
        name=path.stem,
        phrase=_phrase(path.stem),
        engine=OPEN,
        path=path,
        threshold=threshold or _OPEN_THRESHOLD,
    )


def find_models(
    engine: Engine, custom_dirs: list[str], threshold: float | None
) -> dict[str, WakeWordModel]:
    """Built-in models of the chosen engine, then custom ones (which win)."""
    found: list[WakeWordModel] = []
    if engine == OPEN:
        found += [
            _open_model(_OPEN_DIR / f"{m.value}.tflite", threshold)
            for m in pyopen_wakeword.Model
        ]
    else:
        found += [
            _micro_model(_MICRO_DIR / f"{m.value}.json", threshold)
            for m in pymicro_wakeword.Model
        ]
    for directory in map(Path, custom_dirs):
        for path in sorted(directory.glob("*.tflite")):
            if (
                path.stem not in _OPEN_FEATURE_MODELS
                and not path.with_suffix(".json").exists()
            ):
                found.append(_open_model(path, threshold))
        for path in sorted(directory.glob("*.json")):
            try:
                found.append(_micro_model(path, threshold))
            except (OSError, ValueError, KeyError) as err:
                _LOGGER.warning("Skipping %s: %s", path, err)
    return {model.name: model for model in found}


def _key(name: str) -> str:
    return "".join(ch for ch in name.lower() if ch.isalnum())


class WakeService:
    """Wake word models shared by all connections."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.models = find_models(
            args.wake_engine, args.custom_model_dir, args.threshold
        )
        self.trigger_level = max(1, args.trigger_level)
        self.refractory_seconds: float = args.refractory_seconds
        self.max_lead_seconds: float = args.max_lead_seconds
        self.open_features = ObjectPool(PrimedFeatures, PrimedFeatures.reset)
        self.micro_features = ObjectPool(
            MicroWakeWordFeatures, MicroWakeWordFeatures.reset
        )
        self.workers = WorkerPool(
            "wake", os.cpu_count() or 1, idle_seconds=args.worker_idle_seconds
        )
        self.default_models = self.resolve(args.wake_word or ["hey_jarvis"])
        # Load one of each now: a broken model fails at startup.
        for model in self.default_models:
            model.detectors.release(model.detectors.acquire())
        self.info = Info(wake=[self._program()])

    def resolve(self, names: list[str] | None) -> list[WakeWordModel]:
        """Models for the names (or phrases) a client asked for."""
        if not names:
            return self.default_models
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise RequestError("names must be a list of strings", "bad-event")
        by_key = {_key(m.name): m for m in self.models.values()}
        by_key.update((_key(m.phrase), m) for m in self.models.values())
        models = []
        for name in names:
            if (model := by_key.get(_key(name))) is None:
                raise RequestError(f"unknown wake word: {name}", "model-not-found")
            models.append(model)
        return list(dict.fromkeys(models))

    def _program(self) -> WakeProgram:
        return WakeProgram(
            name=PROGRAM,
            description="openWakeWord and microWakeWord detection",
            attribution=Attribution(
                name="dscripka, kahrendt", url="https://github.com/OHF-Voice"
            ),
            installed=True,
            version=__version__,
            models=[
                WakeModel(
                    name=model.name,
                    description=model.phrase,
                    phrase=model.phrase,
                    attribution=Attribution(
                        name=model.engine, url="https://github.com/OHF-Voice"
                    ),
                    installed=True,
                    version=None,
                    languages=model.languages,
                )
                for model in self.models.values()
            ],
        )

    def close(self) -> None:
        """Stop the worker threads."""
        self.workers.close()
