"""openWakeWord objects whose start-up work is done once, not per stream.

A fresh openWakeWord stream first computes features for 8 s of silence (about 0.6 s
of CPU on a small box, before the first real chunk is judged). Pooled objects here
do it once and go back to that primed state between streams.
"""

from __future__ import annotations

from dataclasses import dataclass
import functools
from pathlib import Path
from typing import Final

import numpy as np
from numpy.typing import NDArray
from pyopen_wakeword import OpenWakeWord, OpenWakeWordFeatures

# One 80 ms step of silence: enough to trigger openWakeWord's silence prefill.
_PRIMING_BYTES: Final = 2560


@dataclass(frozen=True, slots=True)
class _FeatureState:
    audio: NDArray[np.float32]
    new_audio_samples: int
    mels: NDArray[np.float32]
    new_mels: int
    embeddings: tuple[NDArray[np.float32], ...]


@functools.cache
def _primed_state() -> _FeatureState:
    extractor = OpenWakeWordFeatures.from_builtin()
    embeddings = tuple(extractor.process_streaming(bytes(_PRIMING_BYTES)))
    return _FeatureState(
        extractor.audio.copy(),
        extractor.new_audio_samples,
        extractor.mels.copy(),
        extractor.new_mels,
        embeddings,
    )


class PrimedFeatures:
    """An openWakeWord feature extractor that resets to the primed state."""

    def __init__(self) -> None:
        self.extractor = OpenWakeWordFeatures.from_builtin()
        self.reset()

    def reset(self) -> None:
        state = _primed_state()
        self.extractor.audio = state.audio.copy()
        self.extractor.new_audio_samples = state.new_audio_samples
        self.extractor.mels = state.mels.copy()
        self.extractor.new_mels = state.new_mels


class PrimedDetector:
    """An openWakeWord model that has seen the silence prefill's embeddings."""

    def __init__(self, path: Path) -> None:
        self.detector = OpenWakeWord.from_model(path)
        for embedding in _primed_state().embeddings:
            for _ in self.detector.process_streaming(embedding):
                pass
        self._embeddings = self.detector.embeddings.copy()
        self._new_embeddings = self.detector.new_embeddings

    def reset(self) -> None:
        self.detector.embeddings = self._embeddings.copy()
        self.detector.new_embeddings = self._new_embeddings
