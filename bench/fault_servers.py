"""The faulty servers of `bench.faults`, in a process of their own.

    python -m bench.fault_servers FAULT --backend openai|ollama [--mcp-port N] ...

Serves the fault with the tests' scripted LLM server (`tests/scripted_llm.py`),
then the next turn's reply, behind a proxy that counts the bytes sent to the
client; with `--mcp-port`, a second proxy in front of that MCP server. Prints
the proxies' ports as a JSON line, answers each line on stdin with the figures
so far, and stops at the end of stdin. Imports nothing of Home Assistant: it
starts once per fault.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Callable
from dataclasses import dataclass
import json
import sys

from tests.scripted_llm import Reply, ScriptedLLMServer

HOST = "127.0.0.1"
BACKENDS = ("openai", "ollama")
MODEL = "bench-model"  # no size in the name: native tool calls
NEXT_REPLY = "It is noon."
MIB = 1024 * 1024
BIG_PIECE = 256 * 1024


@dataclass(frozen=True, slots=True)
class Sizes:
    """How hard the faults push."""

    trickle: float  # seconds between trickled tokens
    mib: int  # of the long line and of the MCP reply
    repeats: int  # identical calls in one step


@dataclass(frozen=True, slots=True)
class Fault:
    """A faulty server: the replies it is scripted with, by backend."""

    name: str
    label: str
    replies: Callable[[str, Sizes], list[Reply]]
    mcp: bool = False


def _invalid_json(backend: str, sizes: Sizes) -> list[Reply]:
    if backend == "openai":
        return [Reply(raw='data: {"choices": [{"delta": {"content": "The kit\n\n')]
    return [Reply(raw='{"message": {"role": "assistant", "content": "The kit\n')]


def _big_pieces(backend: str, sizes: Sizes) -> list[Reply]:
    # Within max_tokens by count, each piece 256 KiB of one endless sentence.
    text = ("and on " * (BIG_PIECE // 7 + 1))[:BIG_PIECE]
    if backend == "openai":
        event = json.dumps({"choices": [{"index": 0, "delta": {"content": text}}]})
        line = f"data: {event}\n\n"
    else:
        chunk = {"message": {"role": "assistant", "content": text}, "done": False}
        line = json.dumps(chunk) + "\n"
    # Twice: a reply with nothing in it is asked for again (the repair call).
    return [Reply(raw=line * (sizes.mib * MIB // BIG_PIECE * 4))] * 2


FAULTS = [
    Fault(
        "trickle",
        "a token every {trickle:g} s, forever",
        lambda b, s: [
            Reply(content="Let me check that. ", repeat=True, piece_delay=s.trickle)
        ],
    ),
    Fault(
        "runaway",
        "max_tokens ignored: sentences as fast as it can, forever",
        lambda b, s: [Reply(content="The kitchen light is on. ", repeat=True)],
    ),
    Fault(
        "runaway-no-stop",
        "max_tokens ignored: one sentence that never ends",
        lambda b, s: [Reply(content="and on ", repeat=True)],
    ),
    Fault(
        "big-pieces",
        "pieces of 256 KiB with no sentence end, {big} MiB",
        _big_pieces,
    ),
    Fault(
        "long-line",
        "a stream line of {mib} MiB",
        lambda b, s: [Reply(content="Let me see. ", long_line=s.mib * MIB, hang=True)],
    ),
    Fault("invalid-json", "invalid JSON in the stream", _invalid_json),
    Fault(
        "truncated",
        "stream ends without the reply's end",
        lambda b, s: [Reply(content="The kitchen light", cut="eof")],
    ),
    Fault(
        "closed",
        "connection closed mid-stream",
        lambda b, s: [Reply(content="The kitchen light", cut="abort")],
    ),
    Fault(
        "http-500",
        "HTTP 500",
        lambda b, s: [Reply(status=500, error="model runner crashed")],
    ),
    Fault(
        "http-429",
        "HTTP 429",
        lambda b, s: [Reply(status=429, error="rate limit reached")],
    ),
    Fault(
        "no-answer",
        "never answers (no headers)",
        lambda b, s: [Reply(delay=3600)],
    ),
    Fault("silent", "headers, then silence", lambda b, s: [Reply(hang=True)]),
    Fault(
        "tool-raises",
        "the called tool raises KeyError",
        lambda b, s: [
            Reply(tool_calls=[("get_forecast", {"city": "Atlantis"})]),
            Reply(content="I could not get the forecast."),
        ],
    ),
    Fault(
        "repeated-calls",
        "{repeats} identical native calls in one step",
        lambda b, s: [
            Reply(tool_calls=[("HassTurnOn", {"name": "kitchen light"})] * s.repeats),
            Reply(content="The kitchen light is on."),
        ],
    ),
    Fault(
        "mcp-huge",
        "an MCP tool's reply of {mib} MiB",
        lambda b, s: [
            Reply(tool_calls=[("huge", {"size": s.mib * MIB})]),
            Reply(content="That was too long to read."),
        ],
        mcp=True,
    ),
]


class CountingProxy:
    """Forwards loopback connections to a server; counts the bytes it sends back."""

    def __init__(self, upstream: int) -> None:
        self.upstream = upstream
        self.port = 0
        self.sent = 0
        self._server: asyncio.Server | None = None

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._forward, HOST, 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server.close_clients()
            await self._server.wait_closed()

    async def _forward(
        self, client: asyncio.StreamReader, to_client: asyncio.StreamWriter
    ) -> None:
        try:
            server, to_server = await asyncio.open_connection(HOST, self.upstream)
        except OSError:
            to_client.close()
            return
        await asyncio.gather(
            self._pipe(client, to_server), self._pipe(server, to_client, count=True)
        )

    async def _pipe(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        *,
        count: bool = False,
    ) -> None:
        try:
            while data := await reader.read(64 * 1024):
                writer.write(data)
                await writer.drain()
                if count:
                    self.sent += len(data)
        except OSError:
            pass
        finally:
            # One side's end ends the other: Jarvis leaving reaches the server
            # (which stops generating), a dropped connection reaches Jarvis.
            writer.close()


async def serve(fault: Fault, backend: str, sizes: Sizes, mcp_port: int | None) -> None:
    """Serve one fault, then the next turn's reply, until stdin ends.

    Prints the proxies' ports as a JSON line; answers each line on stdin with
    the figures so far: bytes sent, and replies the client abandoned.
    """
    server = ScriptedLLMServer(models=[MODEL])
    server.script(*fault.replies(backend, sizes), Reply(content=NEXT_REPLY))
    await server.start()
    proxies = {"llm": CountingProxy(int(server.url.rsplit(":", 1)[1]))}
    if mcp_port is not None:
        proxies["mcp"] = CountingProxy(mcp_port)
    for proxy in proxies.values():
        await proxy.start()
    print(json.dumps({name: p.port for name, p in proxies.items()}), flush=True)
    stdin = asyncio.StreamReader()
    await asyncio.get_running_loop().connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(stdin), sys.stdin
    )
    while await stdin.readline():
        figures = {f"{name}_sent": p.sent for name, p in proxies.items()}
        print(json.dumps(figures | {"left": server.disconnects}), flush=True)
    for proxy in proxies.values():
        await proxy.stop()
    await server.stop()


def add_size_arguments(parser: argparse.ArgumentParser) -> None:
    """The sizes' flags, shared with `bench.faults`."""
    parser.add_argument(
        "--trickle", type=float, default=2.0, help="seconds between trickled tokens"
    )
    parser.add_argument(
        "--mib", type=int, default=8, help="MiB of the long line and the MCP reply"
    )
    parser.add_argument(
        "--repeats", type=int, default=50, help="identical calls in one step"
    )


def sizes_of(args: argparse.Namespace) -> Sizes:
    return Sizes(args.trickle, args.mib, args.repeats)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("fault", choices=[fault.name for fault in FAULTS])
    parser.add_argument("--backend", choices=BACKENDS, required=True)
    parser.add_argument("--mcp-port", type=int)
    add_size_arguments(parser)
    args = parser.parse_args()
    fault = next(f for f in FAULTS if f.name == args.fault)
    asyncio.run(serve(fault, args.backend, sizes_of(args), args.mcp_port))


if __name__ == "__main__":
    main()
