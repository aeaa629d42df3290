"""What every server shares: command-line flags, logging, serving, zeroconf."""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Callable
import contextlib
import ipaddress
import logging
import signal
import socket
from typing import TYPE_CHECKING, Final

from wyoming.server import AsyncServer, AsyncTcpServer, HandlerFactory

from . import __version__

if TYPE_CHECKING:
    from zeroconf.asyncio import AsyncZeroconf

_LOGGER = logging.getLogger(__name__)

_WILDCARD_HOSTS: Final = frozenset({"", "0.0.0.0", "::", "*"})
_MDNS_GROUP: Final = ("224.0.0.251", 5353)


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
    parser.add_argument("--debug", action="store_true", help="Log DEBUG messages")
    parser.add_argument(
        "--log-format", default=logging.BASIC_FORMAT, help="Format for log messages"
    )
    parser.add_argument("--version", action="version", version=__version__)
    return parser


def setup_logging(args: argparse.Namespace) -> None:
    """Configure logging from --debug/--log-format."""
    logging.basicConfig(
        level=logging.DEBUG if args.debug else logging.INFO, format=args.log_format
    )
    _LOGGER.debug(args)


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


async def serve(args: argparse.Namespace, handler_factory: HandlerFactory) -> None:
    """Serve until SIGINT/SIGTERM, advertising over zeroconf if asked."""
    server = AsyncServer.from_uri(args.uri)
    aiozc = None
    if args.zeroconf:
        if not isinstance(server, AsyncTcpServer):
            raise ValueError("Zeroconf requires a tcp:// uri")
        host = args.zeroconf_host or advertised_host(server.host)
        aiozc = await _register_zeroconf(args.zeroconf, host, server.port)
    task = asyncio.create_task(server.run(handler_factory))
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, task.cancel)
    _LOGGER.info("Ready on %s", args.uri)
    try:
        with contextlib.suppress(asyncio.CancelledError):
            await task
    finally:
        await server.stop()
        if aiozc is not None:
            await aiozc.async_close()
