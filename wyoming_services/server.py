"""What every server shares: command-line flags, logging, serving, zeroconf."""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Callable
import contextlib
import gc
import ipaddress
import logging
import os
from pathlib import Path
import signal
import socket
import sys
import time
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import urlparse

from wyoming.error import Error
from wyoming.event import async_write_event
from wyoming.server import AsyncStdioServer

from . import __version__
from .memory import limit_arenas
from .protocol import MAX_LINE_BYTES, Policy, ServiceHandler
from .workers import IDLE_SECONDS

if TYPE_CHECKING:
    from zeroconf.asyncio import AsyncZeroconf

_LOGGER = logging.getLogger(__name__)

_WILDCARD_HOSTS: Final = frozenset({"", "0.0.0.0", "::", "*"})
_MDNS_GROUP: Final = ("224.0.0.251", 5353)
# How often the loop lag monitor (--stats) looks: 10 ms sleeps, overshoot recorded.
_LAG_INTERVAL: Final = 0.01
_SWITCH_INTERVAL: Final = 0.001

ServiceFactory = Callable[[asyncio.StreamReader, asyncio.StreamWriter], ServiceHandler]


def base_parser(
    description: str, default_uri: str, zeroconf_name: str
) -> argparse.ArgumentParser:
    """Flags shared with the upstream Wyoming servers."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument(
        "--uri",
        default=default_uri,
        help=f"tcp://, unix:// or stdio:// (default: {default_uri})",
    )
    parser.add_argument(
        "--zeroconf",
        nargs="?",
        const=zeroconf_name,
        help=f"Advertise over zeroconf with an optional name (default: {zeroconf_name})",
    )
    parser.add_argument(
        "--zeroconf-host",
        help="Address to advertise (default: the bound or primary one)",
    )
    parser.add_argument(
        "--data-dir",
        action="append",
        default=[],
        help="Directory with downloaded models or voices (repeatable)",
    )
    parser.add_argument(
        "--download-dir", help="Directory to download into (default: first data dir)"
    )
    parser.add_argument(
        "--local-files-only",
        action="store_true",
        help="Never download a model or voice",
    )
    parser.add_argument(
        "--max-connections",
        type=int,
        default=64,
        help="Connections served at once; when full, the one idle longest is closed "
        "for a new one (default: 64)",
    )
    parser.add_argument(
        "--idle-timeout",
        type=float,
        default=300.0,
        help="Seconds a connection may wait between events (default: 300)",
    )
    parser.add_argument(
        "--read-timeout",
        type=float,
        default=10.0,
        help="Seconds a client has to finish sending an event it has begun, or to "
        "take one sent to it (default: 10)",
    )
    parser.add_argument(
        "--worker-idle-seconds",
        type=float,
        default=IDLE_SECONDS,
        help="Seconds a worker thread may wait for a job before it ends; "
        f"busy moments start them again (default: {IDLE_SECONDS:g})",
    )
    parser.add_argument(
        "--stats",
        action="store_true",
        help="Measure the event loop's lag and answer `jarvis-stats` events with it, "
        "RSS and CPU time (for tests and benchmarks)",
    )
    parser.add_argument("--debug", action="store_true", help="Log DEBUG messages")
    parser.add_argument(
        "--log-format", default=logging.BASIC_FORMAT, help="Format for log messages"
    )
    parser.add_argument("--version", action="version", version=__version__)
    return parser


def setup(args: argparse.Namespace) -> None:
    """Configure logging (--debug/--log-format) and malloc, before models load."""
    logging.basicConfig(
        level=logging.DEBUG if args.debug else logging.INFO, format=args.log_format
    )
    _LOGGER.debug(args)
    # Before the inference libraries start their threads, each of which would
    # otherwise get an arena of its own.
    limit_arenas()


def advertised_host(bind_host: str, primary: Callable[[], str] | None = None) -> str:
    """The address clients should use: the bound one, or the primary one for a wildcard.

    Advertising 0.0.0.0 (what binding to every interface looks like) would send Home
    Assistant nowhere.
    """
    if bind_host in _WILDCARD_HOSTS:
        return (primary or _primary_ipv4)()
    try:
        return str(ipaddress.ip_address(bind_host))
    except ValueError:
        return socket.gethostbyname(bind_host)


def _primary_ipv4() -> str:
    # Connecting a UDP socket sends nothing; it only picks the outgoing interface.
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        try:
            sock.connect(_MDNS_GROUP)
            return str(sock.getsockname()[0])
        except OSError:
            return "127.0.0.1"


async def _register_zeroconf(name: str, host: str, port: int) -> AsyncZeroconf:
    # Imported here: only servers started with --zeroconf need it.
    from zeroconf.asyncio import AsyncServiceInfo, AsyncZeroconf  # noqa: PLC0415

    info = AsyncServiceInfo(
        "_wyoming._tcp.local.",
        f"{name}._wyoming._tcp.local.",
        addresses=[ipaddress.ip_address(host).packed],
        port=port,
    )
    aiozc = AsyncZeroconf()
    await aiozc.async_register_service(info)
    _LOGGER.info("Advertising %s at %s:%s over zeroconf", name, host, port)
    return aiozc


class LagMonitor:
    """How late the event loop runs a 10 ms sleep: the worst since last asked."""

    def __init__(self) -> None:
        self._worst = 0.0

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            due = loop.time() + _LAG_INTERVAL
            await asyncio.sleep(_LAG_INTERVAL)
            self._worst = max(self._worst, loop.time() - due)

    def take_worst(self) -> float:
        worst, self._worst = self._worst, 0.0
        return worst


def _rss_bytes() -> int:
    # statm's second field: resident pages (Linux; 0 elsewhere).
    try:
        resident = int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return 0
    return resident * os.sysconf("SC_PAGE_SIZE")


class Connections:
    """Serves each connection, at most `limit` at once.

    When full, a new connection closes the one that has waited longest for its next
    event (an idle one, or one trickling a header); if every one is busy with a
    request, the newcomer gets a `busy` error instead.
    """

    def __init__(self, factory: ServiceFactory, limit: int, policy: Policy) -> None:
        self._factory = factory
        self._limit = max(1, limit)
        self._policy = policy
        self._open: dict[asyncio.Task[Any], ServiceHandler] = {}

    def __len__(self) -> int:
        return len(self._open)

    async def serve(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        """Handle one connection (the asyncio server's callback)."""
        task = asyncio.current_task()
        assert task is not None
        if len(self._open) >= self._limit and not self._close_idlest():
            _LOGGER.warning("Refusing a connection: all %s are busy", self._limit)
            with contextlib.suppress(ConnectionError, OSError):
                await async_write_event(
                    Error(text="server busy", code="busy").event(), writer
                )
            writer.close()
            return
        handler = self._factory(reader, writer)
        self._open[task] = handler
        try:
            await handler.run(self._policy)
        finally:
            del self._open[task]

    def _close_idlest(self) -> bool:
        idle = [
            (handler.idle_since, task)
            for task, handler in self._open.items()
            if handler.idle_since is not None and not task.cancelling()
        ]
        if not idle:
            return False
        _, task = min(idle, key=lambda pair: pair[0])
        _LOGGER.debug("Connection limit reached: closing the one idle longest")
        task.cancel()
        return True

    async def close(self) -> None:
        """Cancel every connection's handler and wait for it."""
        for task in self._open:
            task.cancel()
        await asyncio.gather(*self._open, return_exceptions=True)


async def serve(args: argparse.Namespace, handler_factory: ServiceFactory) -> None:
    """Serve until SIGINT/SIGTERM, advertising over zeroconf if asked."""
    # Worker threads run Python between their native calls; the event loop waits
    # for the GIL behind each of them, up to this interval (5 ms by default) apiece.
    sys.setswitchinterval(_SWITCH_INTERVAL)
    # The loaded models' objects live as long as the process: every full garbage
    # collection walked all of them (40 ms on an idle core) with the GIL held.
    gc.collect()
    gc.freeze()
    uri = urlparse(args.uri)
    if uri.scheme == "stdio":  # one trusted parent process: nothing to bound
        await AsyncStdioServer().run(handler_factory)
        return
    monitor = LagMonitor()
    connections: Connections

    def stats() -> dict[str, Any]:
        return {
            "loop_lag_max_ms": round(monitor.take_worst() * 1000, 3),
            "rss_bytes": _rss_bytes(),
            "cpu_seconds": time.process_time(),
            "connections": len(connections),
        }

    policy = Policy(
        idle_timeout=args.idle_timeout,
        read_timeout=args.read_timeout,
        stats=stats if args.stats else None,
    )
    connections = Connections(handler_factory, args.max_connections, policy)
    if uri.scheme == "tcp":
        if uri.hostname is None or uri.port is None:
            raise ValueError("A tcp:// uri needs a host and a port")
        server = await asyncio.start_server(
            connections.serve, uri.hostname, uri.port, limit=MAX_LINE_BYTES
        )
    elif uri.scheme == "unix":
        with contextlib.suppress(FileNotFoundError):
            os.unlink(uri.path)  # left by a server that did not stop cleanly
        server = await asyncio.start_unix_server(
            connections.serve, uri.path, limit=MAX_LINE_BYTES
        )
    else:
        raise ValueError("Only tcp://, unix:// and stdio:// are supported")
    aiozc = None
    if args.zeroconf:
        if uri.scheme != "tcp":
            raise ValueError("Zeroconf requires a tcp:// uri")
        port: int = server.sockets[0].getsockname()[1]
        host = args.zeroconf_host or advertised_host(str(uri.hostname))
        aiozc = await _register_zeroconf(args.zeroconf, host, port)
    lag_task = asyncio.create_task(monitor.run()) if args.stats else None
    # Not serve_forever(): cancelled, it waits for every open connection to end by
    # itself (a paced wake word stream kept a stopping server up for 70 s).
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stopping.set)
    _LOGGER.info("Ready on %s", args.uri)
    try:
        await stopping.wait()
    finally:
        if lag_task is not None:
            lag_task.cancel()
        server.close()
        await connections.close()
        if aiozc is not None:
            await aiozc.async_close()
