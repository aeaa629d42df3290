"""LLM turns under faults: how each turn ends, how soon, and what Jarvis says.

Drives the real reply engine (`ReplyLoop` with the real OpenAI-compatible and
Ollama clients) against faulty servers on loopback, one fault at a time:

- the tests' scripted LLM server (`tests/scripted_llm.py`) scripted with the
  fault, in a process of its own (`bench.fault_servers`) behind a proxy that
  counts the bytes sent to Jarvis: this process holds Jarvis alone, so its RSS
  and CPU time are Jarvis's;
- for a reply over the MCP cap, the tests' MCP server (`tests/tools/mcp_server.py`)
  called through Jarvis's own `McpServer`.

Tools run as Home Assistant runs them for Jarvis: each wrapped in Jarvis's
`FailSafeTool`, a HomeAssistantError handed to the model as HA's chat log hands
it. After each fault a plain turn on the same client checks that the next works.

    .venv/bin/python -m bench.faults --deadline 10

prints a Markdown table, one row per fault and backend.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Awaitable, Callable
import contextlib
from dataclasses import dataclass
from datetime import UTC, datetime
import gc
import json
import logging
import os
from pathlib import Path
import shlex
import sys
import time
from types import MappingProxyType
from typing import Any, cast

from homeassistant.config_entries import ConfigEntry, ConfigSubentry
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import llm
from homeassistant.util.json import JsonObjectType
import voluptuous as vol

from custom_components.jarvis.const import (
    CONF_TRANSPORT,
    CONF_URL,
    DEFAULT_MAX_TURNS,
    DEFAULT_NUM_CTX,
    DEFAULT_TURN_DEADLINE,
    SUBENTRY_MCP_SERVER,
)
from custom_components.jarvis.engine.llm import create_client
from custom_components.jarvis.engine.llm.base import LLMClient
from custom_components.jarvis.engine.loop import (
    LocalStepHost,
    LoopSettings,
    ReplyLoop,
    ToolHandler,
    TurnResult,
)
from custom_components.jarvis.engine.mcp_client import McpTool
from custom_components.jarvis.engine.types import JsonObject, Message, ToolSpec
from custom_components.jarvis.tools.builtin import FailSafeTool
from custom_components.jarvis.tools.hub import JarvisTools
from custom_components.jarvis.tools.mcp import McpServer
from wyoming_services.server import LagMonitor

from .fault_servers import (
    BACKENDS,
    FAULTS,
    HOST,
    MIB,
    MODEL,
    NEXT_REPLY,
    Fault,
    Sizes,
    add_size_arguments,
    sizes_of,
)

ROOT = Path(__file__).resolve().parents[1]
SYSTEM = "You are Jarvis, a voice assistant."
REQUEST = [Message("user", "Turn on the kitchen light.")]
NEXT_REQUEST = [Message("user", "What time is it?")]


# -- the servers' processes -------------------------------------------------------


async def _spawn(
    *args: str, quiet: bool = False
) -> tuple[asyncio.subprocess.Process, bytes]:
    """A module of this repository in a process of its own, and its first line."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        *args,
        cwd=ROOT,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL if quiet else None,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert process.stdout is not None
    return process, await asyncio.wait_for(process.stdout.readline(), 30)


async def _end(process: asyncio.subprocess.Process) -> None:
    """Close its stdin (the fault server stops); kill what does not stop."""
    if process.stdin is not None:
        process.stdin.close()
    try:
        await asyncio.wait_for(process.wait(), 5)
    except TimeoutError:
        process.kill()
        await process.wait()


class FaultServer:
    """The scripted server of one fault in its own process, and its figures."""

    def __init__(self, process: asyncio.subprocess.Process, ports: JsonObject) -> None:
        self.process = process
        self.llm_url = f"http://{HOST}:{ports['llm']}"
        self.mcp_url = f"http://{HOST}:{ports['mcp']}/mcp" if "mcp" in ports else ""

    @classmethod
    async def start(
        cls, fault: Fault, backend: str, sizes: Sizes, mcp_port: int | None
    ) -> FaultServer:
        args = ["bench.fault_servers", fault.name, "--backend", backend]
        args += ["--trickle", str(sizes.trickle), "--mib", str(sizes.mib)]
        args += ["--repeats", str(sizes.repeats)]
        if mcp_port is not None:
            args += ["--mcp-port", str(mcp_port)]
        process, line = await _spawn(*args)
        return cls(process, json.loads(line))

    async def figures(self) -> dict[str, int]:
        assert self.process.stdin is not None
        assert self.process.stdout is not None
        self.process.stdin.write(b"\n")
        await self.process.stdin.drain()
        figures: dict[str, int] = json.loads(await self.process.stdout.readline())
        return figures

    async def figures_once_left(self, wait: float = 1.0) -> dict[str, int]:
        """The figures, once the server saw Jarvis leave a reply (or `wait` passed)."""
        # Polled: the server is another process.
        for _ in range(round(wait / 0.05)):
            if (figures := await self.figures())["left"]:
                return figures
            await asyncio.sleep(0.05)
        return await self.figures()


# -- tools, as Home Assistant's LLM API holds them ---------------------------------


type Run = Callable[[dict[str, Any]], Awaitable[JsonObjectType]]


class BenchTool(llm.Tool):
    """A tool of one argument, as Home Assistant's LLM API holds it, and as
    the engine is offered it."""

    def __init__(
        self, name: str, description: str, argument: str, kind: type, run: Run
    ) -> None:
        self.name, self.description = name, description
        self.parameters = vol.Schema({vol.Required(argument): kind})
        schema = {"type": "integer" if kind is int else "string"}
        self.spec = ToolSpec(
            name,
            description,
            {
                "type": "object",
                "properties": {argument: schema},
                "required": [argument],
            },
        )
        self._run = run

    async def async_call(
        self,
        hass: HomeAssistant,
        tool_input: llm.ToolInput,
        llm_context: llm.LLMContext,
    ) -> JsonObjectType:
        return await self._run(tool_input.tool_args)


class Tools:
    """One tool that counts its runs (identical calls in one step must run
    once), one with a bug, and the MCP test server's `huge`."""

    def __init__(self, mcp_url: str) -> None:
        self.runs = 0
        self.mcp: McpServer | None = None
        if mcp_url:
            subentry = ConfigSubentry(
                data=MappingProxyType(
                    {CONF_URL: mcp_url, CONF_TRANSPORT: "streamable_http"}
                ),
                subentry_type=SUBENTRY_MCP_SERVER,
                title="Test tools",
                unique_id=None,
            )
            # Jarvis's own McpServer: a call uses neither Home Assistant nor
            # the entry (only a server that goes down does, to retry).
            self.mcp = McpServer(
                cast(HomeAssistant, None), cast(ConfigEntry, None), subentry
            )
        self.all = [
            BenchTool("HassTurnOn", "Turns on a device.", "name", str, self._turn_on),
            BenchTool(
                "get_forecast", "The forecast for a city.", "city", str, self._forecast
            ),
            BenchTool("huge", "A text of any size.", "size", int, self._huge),
        ]

    async def _turn_on(self, args: dict[str, Any]) -> JsonObjectType:
        self.runs += 1
        return {"success": True, "name": str(args["name"])}

    async def _forecast(self, args: dict[str, Any]) -> JsonObjectType:
        # The bug: an unknown city raises KeyError, none of HA's errors.
        return {"forecast": {"Paris": "sunny"}[str(args["city"])]}

    async def _huge(self, args: dict[str, Any]) -> JsonObjectType:
        assert self.mcp is not None
        result = await self.mcp.async_call(McpTool("huge", "", {}), args)
        return {"text": result.text[:200]}


def chat_log_handler(tool: llm.Tool) -> ToolHandler:
    """Run a tool as HA runs it for Jarvis: wrapped in FailSafeTool, and a
    HomeAssistantError or vol.Invalid handed to the model as HA's chat log
    hands it (homeassistant/components/conversation/chat_log.py)."""
    # FailSafeTool uses neither its hub nor hass, nor do these tools.
    safe = FailSafeTool(cast(JarvisTools, None), tool)
    context = llm.LLMContext(
        platform="jarvis",
        context=None,
        language="en",
        assistant="conversation",
        device_id=None,
    )

    async def run(args: JsonObject) -> JsonObject:
        try:
            hass = cast(HomeAssistant, None)
            return dict(
                await safe.async_call(hass, llm.ToolInput(tool.name, args), context)
            )
        except (HomeAssistantError, vol.Invalid) as err:
            result: JsonObject = {"error": type(err).__name__}
            if str(err):
                result["error_text"] = str(err)
            return result

    return run


# -- figures ------------------------------------------------------------------------


def _status(field: str) -> int:
    """A figure of this process's /proc status, in bytes."""
    for line in Path("/proc/self/status").read_text(encoding="utf-8").splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) * 1024
    raise LookupError(field)


def _reset_peak_rss() -> bool:
    """Set the peak RSS (VmHWM) to the RSS now; False where Linux refuses."""
    try:
        Path("/proc/self/clear_refs").write_text("5", encoding="utf-8")
    except OSError:
        return False
    return True


@dataclass(slots=True)
class Figures:
    """How one fault's turn went."""

    fault: str
    backend: str
    ended: str = ""
    error: str = ""
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    loop_lag: float = 0.0
    spoken: str = ""
    rss_growth: int | None = None
    sent: int = 0
    left: int = 0
    note: str = ""
    next_turn: str = ""


def _size(count: int) -> str:
    return f"{count:,} B" if count < 10 * 1024 else f"{count / 1024:,.0f} KiB"


def _short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split()).replace("|", "\\|")
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text):,} chars)"


def _note(result: TurnResult, tools: Tools) -> str:
    """What the tools did and what the model was told."""
    parts = [
        f"{record.name}: " + str(record.result.get("error_text") or "ok")
        for record in result.tool_calls
    ]
    if tools.runs:
        parts.append(f"HassTurnOn ran {tools.runs}×")
    return _short("; ".join(parts), 200)


async def _turn(
    client: LLMClient, settings: LoopSettings, tools: Tools, history: list[Message]
) -> tuple[TurnResult, LocalStepHost]:
    host = LocalStepHost({tool.name: chat_log_handler(tool) for tool in tools.all})
    result = await ReplyLoop(client, settings).run(
        system_prompt=SYSTEM,
        history=history,
        tools=[tool.spec for tool in tools.all],
        host=host,
        language="en",
    )
    return result, host


async def run_fault(
    fault: Fault, backend: str, sizes: Sizes, deadline: float
) -> Figures:
    """One fault's turn, measured, then the next turn on the same client."""
    mcp: asyncio.subprocess.Process | None = None
    mcp_port: int | None = None
    if fault.mcp:
        # Quiet: its libraries warn of their own definitions on stderr.
        mcp, line = await _spawn(
            "tests.tools.mcp_server", "--transport", "streamable_http", quiet=True
        )
        mcp_port = int(line.split()[1])  # "PORT <n>"
    server = await FaultServer.start(fault, backend, sizes, mcp_port)
    client = create_client(backend, server.llm_url)
    tools = Tools(server.mcp_url)
    settings = LoopSettings(
        model=MODEL,
        max_turns=DEFAULT_MAX_TURNS,
        context_size=DEFAULT_NUM_CTX,
        turn_deadline=deadline,
    )
    figures = Figures(fault.name, backend)
    try:
        gc.collect()
        peak_known = _reset_peak_rss()
        rss = _status("VmRSS")
        # Jarvis shares Home Assistant's event loop: how late it ran a 10 ms sleep.
        monitor = LagMonitor()
        lag = asyncio.create_task(monitor.run())
        cpu, started = time.process_time(), time.monotonic()
        result, host = await _turn(client, settings, tools, REQUEST)
        figures.seconds = time.monotonic() - started
        figures.cpu_seconds = time.process_time() - cpu
        lag.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await lag
        figures.loop_lag = monitor.take_worst()
        if peak_known:
            figures.rss_growth = _status("VmHWM") - rss
        sent = await server.figures_once_left()
        figures.ended, figures.error = result.ended, result.error or ""
        figures.spoken = host.text
        figures.sent = sent["mcp_sent" if fault.mcp else "llm_sent"]
        figures.left = sent["left"]
        figures.note = _note(result, tools)
        later, host = await _turn(client, settings, tools, NEXT_REQUEST)
        figures.next_turn = (
            "ok"
            if (later.ended, host.text) == ("done", NEXT_REPLY)
            else f"{later.ended}: {_short(host.text, 40)}"
        )
    finally:
        await client.close()
        await _end(server.process)
        if mcp is not None:
            mcp.kill()
            await mcp.wait()
    return figures


HEADER = (
    "| fault | backend | ended (error) | time to end | spoken | Jarvis CPU | "
    "worst loop lag | peak RSS growth | bytes sent to Jarvis | "
    "server saw Jarvis leave | next turn | tools |\n"
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
)


def row(fault: Fault, sizes: Sizes, f: Figures) -> str:
    """The figures as a Markdown table row."""
    label = fault.label.format(
        trickle=sizes.trickle, mib=sizes.mib, repeats=sizes.repeats, big=sizes.mib * 4
    )
    ended = f.ended + (f" ({_short(f.error, 50)})" if f.error else "")
    rss = "n/a" if f.rss_growth is None else f"{f.rss_growth / MIB:+.1f} MiB"
    # For an MCP fault the LLM server has nothing to leave.
    left = "n/a" if fault.mcp else ("yes" if f.left else "no")
    return (
        f"| {label} | {f.backend} | {ended} | {f.seconds:.2f} s | "
        f"{_short(f.spoken, 80) or '(nothing)'} | {f.cpu_seconds:.2f} s | "
        f"{f.loop_lag * 1000:.0f} ms | {rss} | "
        f"{_size(f.sent)} | {left} | {f.next_turn} | "
        f"{f.note} |"
    )


def _loadavg() -> str:
    return Path("/proc/loadavg").read_text(encoding="utf-8").strip()


async def run_all(args: argparse.Namespace, sizes: Sizes) -> None:
    backends = args.backend or list(BACKENDS)
    print(f"`{shlex.join(['python', '-m', 'bench.faults', *sys.argv[1:]])}`")
    print(f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, turn deadline {args.deadline:g} s")
    print(f"/proc/loadavg before: {_loadavg()}\n")
    print(HEADER, flush=True)
    for fault in FAULTS:
        if args.only and args.only not in fault.name:
            continue
        for backend in backends:
            figures = await run_fault(fault, backend, sizes, args.deadline)
            print(row(fault, sizes, figures), flush=True)
    print(f"\n/proc/loadavg after: {_loadavg()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--deadline",
        type=float,
        default=float(DEFAULT_TURN_DEADLINE),
        help="the agent's turn deadline, seconds (default %(default)g)",
    )
    add_size_arguments(parser)
    parser.add_argument("--only", default="", help="faults whose name has this")
    parser.add_argument("--backend", choices=BACKENDS, action="append")
    args = parser.parse_args()
    # Tracebacks of the faults themselves (FailSafeTool logs them) are not news.
    logging.basicConfig(level=logging.CRITICAL)
    asyncio.run(run_all(args, sizes_of(args)))


if __name__ == "__main__":
    main()
