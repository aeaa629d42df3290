"""Wyoming event I/O that survives bad clients.

wyoming's own reader trusts its peer: a payload length of 10 GB is read, a header that
is valid JSON but not an object raises out of the handler task. Every server here
reads through `read_event` instead, answers bad input with an `error` event and
closes that one connection; the server keeps serving everyone else.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from typing import Any, Final, cast

from wyoming.error import Error
from wyoming.event import Event, Eventable, async_write_event
from wyoming.server import AsyncEventHandler

_LOGGER = logging.getLogger(__name__)

# Header lines are bounded by the StreamReader limit (64 KiB by default).
MAX_DATA_BYTES: Final = 1 << 20
# 4 MiB is two minutes of 16 kHz audio in one chunk; real chunks are a few KiB.
MAX_PAYLOAD_BYTES: Final = 4 << 20


class RequestError(Exception):
    """A request the server refuses: reported to the client as an `error` event."""

    def __init__(self, text: str, code: str) -> None:
        super().__init__(text)
        self.text = text
        self.code = code


class ProtocolError(RequestError):
    """The byte stream itself is broken: the connection cannot continue."""


def _length(header: dict[str, Any], key: str, limit: int) -> int:
    value = header.get(key)
    if value is None:
        return 0
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ProtocolError(f"invalid {key}: {value!r}", "bad-header")
    if value > limit:
        raise ProtocolError(f"{key} {value} exceeds {limit} bytes", "too-large")
    return value


async def read_event(reader: asyncio.StreamReader) -> Event | None:
    """Read one event; None when the client has gone (EOF, even mid-event)."""
    try:
        line = await reader.readline()
    except ValueError as err:  # longer than the reader's limit
        raise ProtocolError("header line too long", "too-large") from err
    if not line.endswith(b"\n"):
        return None
    try:
        header = json.loads(line)
    except ValueError as err:
        raise ProtocolError(f"malformed JSON header: {err}", "bad-header") from err
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
        raise ProtocolError(f"malformed JSON data: {err}", "bad-header") from err
    return Event(type=header["type"], data=data, payload=payload)


def parse[E: Eventable](kind: type[E], event: Event) -> E:
    """`kind.from_event(event)`, with a malformed event refused as a bad request."""
    try:
        return cast(E, kind.from_event(event))
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        raise RequestError(f"invalid {event.type} event: {err!r}", "bad-event") from err


def optional_str(value: object, what: str) -> str | None:
    """A string field of an event, or None; anything else is a bad request."""
    if value is None or isinstance(value, str):
        return value
    raise RequestError(f"{what} must be a string", "bad-event")


class ServiceHandler(AsyncEventHandler):
    """One client connection: robust reading, error replies, always-closed socket."""

    async def run(self) -> None:
        self._is_running = True
        try:
            while self._is_running:
                event = await read_event(self.reader)
                if event is None or not await self.handle_event(event):
                    break
        except RequestError as err:
            _LOGGER.warning("Rejected request: %s", err.text)
            await self._send_error(err.text, err.code)
        except (ConnectionError, asyncio.IncompleteReadError):
            _LOGGER.debug("Client went away")
        except Exception as err:
            _LOGGER.exception("Unexpected error")
            await self._send_error(str(err) or type(err).__name__, "internal-error")
        finally:
            await self.disconnect()
            self.writer.close()
            with contextlib.suppress(ConnectionError, OSError):
                await self.writer.wait_closed()

    async def write_event(self, event: Event) -> None:
        await async_write_event(event, self.writer)

    async def _send_error(self, text: str, code: str) -> None:
        if self.writer.is_closing():
            return
        with contextlib.suppress(ConnectionError, OSError):
            await self.write_event(Error(text=text, code=code).event())
