"""Wake word detection over one audio stream."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from pymicro_wakeword import MicroWakeWord

from .primed import PrimedDetector
from .service import OPEN, WakeService, WakeWordModel

# pyopen-wakeword mishandles larger slices.
_SLICE_BYTES: Final = 2048
_RATE: Final = 16000


@dataclass(slots=True)
class _Listener:
    model: WakeWordModel
    detector: PrimedDetector | MicroWakeWord
    activations: int = 0
    quiet_until: float = 0.0


@dataclass(frozen=True, slots=True)
class Detected:
    """A wake word heard `milliseconds` into the stream."""

    name: str
    milliseconds: int


class WakeStream:
    """Detectors for the wake words one client listens for.

    Blocking and stateful: create, feed and close it on the service's workers.
    """

    def __init__(self, service: WakeService, models: list[WakeWordModel]) -> None:
        self._service = service
        self._listeners = [_Listener(m, m.detectors.acquire()) for m in models]
        self._open = (
            service.open_features.acquire()
            if any(m.engine == OPEN for m in models)
            else None
        )
        self._micro = (
            service.micro_features.acquire()
            if any(m.engine != OPEN for m in models)
            else None
        )
        self._samples = 0

    def process(self, pcm: bytes) -> list[Detected]:
        """Feed 16 kHz PCM; return the detections it completed."""
        detected: list[Detected] = []
        for offset in range(0, len(pcm), _SLICE_BYTES):
            audio = pcm[offset : offset + _SLICE_BYTES]
            self._samples += len(audio) // 2
            if self._open is not None:
                for embedding in self._open.extractor.process_streaming(audio):
                    for listener, primed in self._of_type(PrimedDetector):
                        for probability in primed.detector.process_streaming(embedding):
                            self._judge(listener, probability, detected)
            if self._micro is not None:
                for features in self._micro.process_streaming(audio):
                    for listener, micro in self._of_type(MicroWakeWord):
                        probability = micro.process_streaming_prob(features) or 0.0
                        self._judge(listener, probability, detected)
        return detected

    def _of_type[D: (PrimedDetector, MicroWakeWord)](
        self, kind: type[D]
    ) -> list[tuple[_Listener, D]]:
        return [
            (x, x.detector) for x in self._listeners if isinstance(x.detector, kind)
        ]

    def _judge(
        self, listener: _Listener, probability: float, detected: list[Detected]
    ) -> None:
        if probability <= listener.model.threshold:
            listener.activations = 0
            return
        listener.activations += 1
        seconds = self._samples / _RATE
        if (
            listener.activations >= self._service.trigger_level
            and seconds >= listener.quiet_until
        ):
            listener.activations = 0
            listener.quiet_until = seconds + self._service.refractory_seconds
            detected.append(Detected(listener.model.name, int(seconds * 1000)))

    def close(self) -> None:
        """Return the detectors to their pools."""
        for listener in self._listeners:
            listener.model.detectors.release(listener.detector)
        if self._open is not None:
            self._service.open_features.release(self._open)
        if self._micro is not None:
            self._service.micro_features.release(self._micro)
