"""Wyoming event I/O that survives bad clients.

wyoming's own reader trusts its peer: a payload length of 10 GB is read, a header that
is valid JSON but not an object raises out of the handler task, and a client that
sends half a line holds its connection forever. Every server here reads through
`read_event` instead, with bounded sizes and a deadline per event, answers bad input
with an `error` event and closes that one connection; the server keeps serving
everyone else.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
import contextlib
from dataclasses import dataclass
import json
import logging
from typing import Any, Final, cast

from wyoming.error import Error
from wyoming.event import Event, Eventable, async_write_event
from wyoming.server import AsyncEventHandler

_LOGGER = logging.getLogger(__name__)

# The header line is bounded by the StreamReader's limit: the servers pass this one
# (asyncio's default); wyoming sends `data` after the line, so real lines are short.
MAX_LINE_BYTES: Final = 64 << 10
# 20,000 characters of text, JSON-escaped, fit with room to spare.
MAX_DATA_BYTES: Final = 1 << 20
# 1 MiB is 32 s of 16 kHz audio in one chunk; real chunks are a few KiB.
MAX_PAYLOAD_BYTES: Final = 1 << 20
# Asked for by a client (only when the server runs with --stats): loop lag, RSS, CPU.
STATS_EVENT: Final = "jarvis-stats"


@dataclass(frozen=True, slots=True)
class Policy:
    """How long a connection may take, and what it may ask for besides its service."""

    idle_timeout: float = 300.0
    """Seconds a connection may wait between events."""
    read_timeout: float = 10.0
    """Seconds to send the rest of an event once its first byte has come."""
    stats: Callable[[], dict[str, Any]] | None = None
    """Answers `jarvis-stats` events; None: they are ignored like any unknown one."""


class RequestError(Exception):
    """A request the server refuses: reported to the client as an `error` event."""

    def __init__(self, text: str, code: str) -> None:
        super().__init__(text)
        self.text = text
        self.code = code


class ProtocolError(RequestError):
    """The byte stream itself is broken: the connection cannot continue."""


class _StoppedReading(ConnectionError):
    """The client took nothing we sent for a whole read timeout."""


def _length(header: dict[str, Any], key: str, limit: int) -> int:
    value = header.get(key)
    if value is None:
        return 0
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ProtocolError(f"invalid {key}: {value!r}", "bad-header")
    if value > limit:
        raise ProtocolError(f"{key} {value} exceeds {limit} bytes", "too-large")
    return value


async def read_event(reader: asyncio.StreamReader, prefix: bytes = b"") -> Event | None:
    """Read one event (after `prefix`, its bytes already read); None at EOF."""
    try:
        line = prefix + await reader.readline()
    except ValueError as err:  # longer than the reader's limit
        raise ProtocolError("header line too long", "too-large") from err
    if not line.endswith(b"\n"):
        return None
    try:
        header = json.loads(line)
    except ValueError as err:
        raise ProtocolError("malformed JSON header", "bad-header") from err
    if not isinstance(header, dict) or not isinstance(header.get("type"), str):
        raise ProtocolError("header must be an object with a string type", "bad-header")
    data = header.get("data") or {}
    if not isinstance(data, dict):
        raise ProtocolError("event data must be an object", "bad-header")
    data_length = _length(header, "data_length", MAX_DATA_BYTES)
    payload_length = _length(header, "payload_length", MAX_PAYLOAD_BYTES)
    try:
        if data_length:
            extra = json.loads(await reader.readexactly(data_length))
            if not isinstance(extra, dict):
                raise ProtocolError("event data must be an object", "bad-header")
            data.update(extra)
        payload = await reader.readexactly(payload_length) if payload_length else None
    except asyncio.IncompleteReadError:
        return None
    except (ValueError, UnicodeDecodeError) as err:
        raise ProtocolError("malformed JSON data", "bad-header") from err
    return Event(type=header["type"], data=data, payload=payload)


def parse[E: Eventable](kind: type[E], event: Event) -> E:
    """`kind.from_event(event)`, with a malformed event refused as a bad request."""
    try:
        return cast(E, kind.from_event(event))
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        _LOGGER.debug("Invalid %s event: %r", event.type, err)
        raise RequestError(f"invalid {event.type} event", "bad-event") from err


def optional_str(value: object, what: str) -> str | None:
    """A string field of an event, or None; anything else is a bad request."""
    if value is None or isinstance(value, str):
        return value
    raise RequestError(f"{what} must be a string", "bad-event")


class ServiceHandler(AsyncEventHandler):
    """One client connection: bounded reading, error replies, always-closed socket."""

    idle_since: float | None = None
    """When it began waiting for its next event (loop time); None while handling."""

    policy: Policy = Policy()

    async def run(self, policy: Policy | None = None) -> None:
        self.policy = policy = policy or self.policy
        self._is_running = True
        loop = asyncio.get_running_loop()
        try:
            while self._is_running:
                self.idle_since = loop.time()
                try:
                    async with asyncio.timeout(policy.idle_timeout):
                        first = await self.reader.read(1)
                except TimeoutError:
                    _LOGGER.debug("Closing an idle connection")
                    break
                if not first:
                    break
                try:
                    async with asyncio.timeout(policy.read_timeout):
                        event = await read_event(self.reader, first)
                except TimeoutError as err:
                    raise ProtocolError(
                        "event not received in time", "timeout"
                    ) from err
                # Only now busy: one trickling a header is as good as idle.
                self.idle_since = None
                if event is None:
                    break
                # A client that sends faster than we handle would otherwise keep
                # the loop to itself: reads from a full buffer never wait.
                await asyncio.sleep(0)
                if event.type == STATS_EVENT and policy.stats is not None:
                    await self.write_event(Event(STATS_EVENT, policy.stats()))
                elif not await self.handle_event(event):
                    break
        except RequestError as err:
            _LOGGER.warning("Rejected request: %s", err.text)
            await self._send_error(err.text, err.code)
        except (ConnectionError, asyncio.IncompleteReadError):
            _LOGGER.debug("Client went away")
        except Exception:
            _LOGGER.exception("Unexpected error")
            # The details stay in the log: they can name files and settings.
            await self._send_error("internal error", "internal-error")
        finally:
            self.idle_since = None
            await self.disconnect()
            self.writer.close()
            with contextlib.suppress(ConnectionError, OSError):
                await self.writer.wait_closed()

    async def write_event(self, event: Event) -> None:
        # A client that stops reading would hold the connection (and its buffers).
        try:
            async with asyncio.timeout(self.policy.read_timeout):
                await async_write_event(event, self.writer)
        except TimeoutError as err:
            raise _StoppedReading from err

    async def _send_error(self, text: str, code: str) -> None:
        if self.writer.is_closing():
            return
        with contextlib.suppress(ConnectionError, OSError, TimeoutError):
            await self.write_event(Error(text=text, code=code).event())
