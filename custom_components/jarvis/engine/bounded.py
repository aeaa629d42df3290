"""Byte caps on what servers send, checked while it is read: a reply over its
cap ends the call at the cap instead of being buffered whole first."""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable
from typing import cast

import httpx


class TooLargeError(Exception):
    """A reply, or one line of it, went over its cap; the message is safe to show."""


def _kib(size: int) -> str:
    return f"{size // 1024} KiB"


async def capped(
    chunks: AsyncIterable[bytes],
    *,
    max_bytes: int | None = None,
    max_line: int | None = None,
) -> AsyncIterator[bytes]:
    """The chunks as they come, until the whole or one line goes over its cap."""
    total = line = 0
    async for chunk in chunks:
        total += len(chunk)
        if max_bytes is not None and total > max_bytes:
            raise TooLargeError(f"The reply was over {_kib(max_bytes)}.")
        if max_line is not None:
            lengths = [len(part) for part in chunk.split(b"\n")]
            lengths[0] += line
            if max(lengths) > max_line:
                raise TooLargeError(f"A line of the reply was over {_kib(max_line)}.")
            line = lengths[-1]
        yield chunk


async def lines(chunks: AsyncIterable[bytes], max_line: int) -> AsyncIterator[bytes]:
    """The lines of a byte stream, newline kept, none longer than `max_line`."""
    buffer = bytearray()
    async for chunk in capped(chunks, max_line=max_line):
        buffer += chunk
        start = 0
        while (end := buffer.find(b"\n", start)) >= 0:
            yield bytes(buffer[start : end + 1])
            start = end + 1
        del buffer[:start]
    if buffer:
        yield bytes(buffer)


class _CappedStream(httpx.AsyncByteStream):
    def __init__(
        self,
        stream: httpx.AsyncByteStream,
        max_bytes: int | None,
        max_line: int | None,
        on_exceeded: Callable[[TooLargeError], None] | None,
    ) -> None:
        self._stream = stream
        self._max_bytes = max_bytes
        self._max_line = max_line
        self._on_exceeded = on_exceeded

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in capped(
                self._stream, max_bytes=self._max_bytes, max_line=self._max_line
            ):
                yield chunk
        except TooLargeError as err:
            if self._on_exceeded is not None:
                self._on_exceeded(err)
            raise

    async def aclose(self) -> None:
        await self._stream.aclose()


# httpx2 (mcp 2's fork of httpx) reads only its own stream type: it is mixed in.
_capped_types: dict[type[httpx.AsyncByteStream], type[_CappedStream]] = {}


def _capped_type(base: type[httpx.AsyncByteStream]) -> type[_CappedStream]:
    if base not in _capped_types:
        mixed = type("CappedStream", (_CappedStream, base), {})
        _capped_types[base] = cast(type[_CappedStream], mixed)
    return _capped_types[base]


def response_cap(
    *,
    max_bytes: int | None = None,
    max_line: int | None = None,
    on_exceeded: Callable[[TooLargeError], None] | None = None,
    stream_type: type[httpx.AsyncByteStream] = httpx.AsyncByteStream,
) -> Callable[[httpx.Response], Awaitable[None]]:
    """An httpx response hook that caps each response's body as it is read.

    Reading past a cap raises `TooLargeError` to the reader, and first tells
    `on_exceeded`: for readers (the MCP SDK's) that swallow errors.
    `stream_type`: the client library's `AsyncByteStream` (httpx's or httpx2's).
    """
    capped_type = _capped_type(stream_type)

    async def cap(response: httpx.Response) -> None:
        stream = response.stream
        assert isinstance(stream, stream_type)  # an async client's
        response.stream = capped_type(stream, max_bytes, max_line, on_exceeded)

    return cap
