"""A small client for one MCP server: list its tools and call them.

Plain Python on the `mcp` package, no Home Assistant imports. Each operation
opens its own short session (like Home Assistant's own MCP integration), so a
server that restarts needs no reconnect logic. Streamable HTTP is tried first
and SSE is the fallback, as the MCP transport spec's backwards-compatibility
section describes; the transport that worked is remembered.

Responses are capped while they are read (`engine.bounded`): the SDK reads a
JSON reply whole and an SSE event line by line, so the cap sits in the httpx
client under it (under mcp 2, httpx's fork httpx2), and ends the operation at
once (the SDK swallows a reading error and would wait for its timeout). The
configured headers, a bearer token among them, go to the server's own origin
only: a redirect elsewhere loses them (httpx itself keeps custom headers across
origins; mcp 2 follows no redirect to another origin).

Both mcp 1 and 2 work: what differs is chosen once, below the imports, and the
SDK's objects are read as the protocol's JSON (`_wire`).

Calls that hang are bounded twice: by a timeout, and by a liveness probe that
ends the call as soon as the server's port stops accepting connections (the
streamable HTTP transport otherwise waits forever for a server that died in
the middle of a reply).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
import importlib
from importlib.metadata import version
import ssl
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit

import mcp
from mcp import ClientSession, types
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from pydantic import BaseModel

from .bounded import TooLargeError, response_cap
from .redact import public_url, redact, redacting_logger
from .types import JsonObject

MCP_MAJOR = int(version("mcp").split(".")[0])
# mcp 2 (Home Assistant 2026.11's) renamed McpError and moved to httpx2, a fork
# of httpx with its API; mypy checks against mcp 1 (the test venv's).
if TYPE_CHECKING:
    import httpx as http
    from mcp import McpError as _RpcError
else:
    http = importlib.import_module("httpx2" if MCP_MAJOR >= 2 else "httpx")
    _RpcError = getattr(mcp, "MCPError" if MCP_MAJOR >= 2 else "McpError")

_LOGGER = redacting_logger(__name__)

type Transport = Literal["auto", "streamable_http", "sse"]
TRANSPORTS: tuple[Transport, ...] = ("auto", "streamable_http", "sse")


class McpError(Exception):
    """Base of this client's errors; the message is safe to show (no secrets)."""


class McpConnectionError(McpError):
    """The server could not be reached, went away, or did not answer in time."""


class McpAuthError(McpConnectionError):
    """The server refused the credentials (HTTP 401/403)."""


class McpResponseTooLargeError(McpError):
    """The server sent a response over the size cap."""


class McpProtocolError(McpError):
    """The server answered with a protocol error (an unknown tool, bad arguments)."""


@dataclass(frozen=True, slots=True)
class McpServerConfig:
    """Where a server is and how to talk to it."""

    url: str
    headers: Mapping[str, str] = field(default_factory=dict)
    transport: Transport = "auto"
    timeout: float = 30.0  # seconds for one operation
    probe_interval: float = 3.0  # seconds between liveness checks during a call
    # Any one HTTP response (on SSE, the one stream of a whole short session);
    # the model sees a few KiB of a result at most.
    max_response_bytes: int = 4 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class McpTool:
    """A tool as the server lists it; `input_schema` is a JSON schema object."""

    name: str
    description: str
    input_schema: JsonObject
    # The server says the tool changes nothing (MCP's readOnlyHint).
    read_only: bool = False


@dataclass(frozen=True, slots=True)
class McpToolResult:
    """What a tool call returned."""

    content: list[JsonObject]
    structured: JsonObject | None = None
    is_error: bool = False

    @property
    def text(self) -> str:
        """The text blocks joined; other blocks summarised by type."""
        parts = [
            str(block["text"]) if block.get("type") == "text" else f"[{block['type']}]"
            for block in self.content
        ]
        return "\n".join(parts)


@dataclass(slots=True, eq=False)
class _Operation:
    """An operation in flight that `close()` or the probe can end early."""

    scope: asyncio.Timeout
    reason: str | None = None
    error: type[McpError] = McpConnectionError

    def abort(self, reason: str, error: type[McpError] = McpConnectionError) -> None:
        self.reason, self.error = reason, error
        self.scope.reschedule(asyncio.get_running_loop().time())


class McpClient:
    """Lists and calls the tools of one MCP server."""

    def __init__(
        self, config: McpServerConfig, *, ssl_context: ssl.SSLContext | bool = True
    ) -> None:
        """`ssl_context`: pass a prebuilt context to keep certificate loading out of the loop."""
        self.config = config
        self._verify = ssl_context
        self._transport: Transport = config.transport
        self._operations: set[_Operation] = set()
        self.server_name: str | None = None
        # In error texts: never the URL's credentials.
        self._where = public_url(config.url)

    @property
    def transport(self) -> Transport:
        """The transport in use: the configured one, or the one that worked."""
        return self._transport

    async def list_tools(self) -> list[McpTool]:
        """All tools of the server, following pagination."""

        async def op(session: ClientSession) -> list[McpTool]:
            tools: list[McpTool] = []
            cursor: str | None = None
            while True:
                params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
                page = _wire(await session.list_tools(params=params))
                tools.extend(
                    McpTool(
                        tool["name"],
                        tool.get("description") or "",
                        tool["inputSchema"],
                        read_only=bool(tool.get("annotations", {}).get("readOnlyHint")),
                    )
                    for tool in page["tools"]
                )
                if not (cursor := page.get("nextCursor")):
                    return tools

        return await self._operate(op, "listing tools")

    async def call_tool(self, name: str, arguments: JsonObject) -> McpToolResult:
        """Call a tool; a result with `is_error` is the tool's own failure."""

        async def op(session: ClientSession) -> McpToolResult:
            result = _wire(await session.call_tool(name, arguments))
            return McpToolResult(
                content=result["content"],
                structured=result.get("structuredContent"),
                is_error=bool(result.get("isError")),
            )

        return await self._operate(op, f"calling {name}", watch=True)

    def close(self, reason: str = "The MCP server was disconnected.") -> None:
        """End every operation in flight with a connection error."""
        for operation in list(self._operations):
            operation.abort(reason)

    # --- Sessions and error mapping -------------------------------------------

    async def _operate[T](
        self,
        op: Callable[[ClientSession], Awaitable[T]],
        what: str,
        *,
        watch: bool = False,
    ) -> T:
        url = self._where
        try:
            async with asyncio.timeout(self.config.timeout) as scope:
                operation = _Operation(scope)
                self._operations.add(operation)
                probe = asyncio.create_task(self._probe(operation)) if watch else None
                try:
                    return await self._run(op, operation)
                finally:
                    self._operations.discard(operation)
                    if probe is not None:
                        probe.cancel()
                        await asyncio.wait([probe])
        except TimeoutError as err:
            if operation.reason:
                raise operation.error(operation.reason) from err
            raise McpConnectionError(
                f"The MCP server at {url} did not answer within "
                f"{self.config.timeout:g} s while {what}."
            ) from err

    async def _run[T](
        self, op: Callable[[ClientSession], Awaitable[T]], operation: _Operation
    ) -> T:
        if self._transport != "sse":
            try:
                return await self._run_streamable(op, operation)
            except _NotStreamable as err:
                if self._transport == "streamable_http":
                    raise _mapped(err.cause, self._where) from err.cause
                _LOGGER.debug("Streamable HTTP refused (%s); trying SSE", err.cause)
            result = await self._run_sse(op, operation)
            self._transport = "sse"
            return result
        return await self._run_sse(op, operation)

    async def _run_streamable[T](
        self, op: Callable[[ClientSession], Awaitable[T]], operation: _Operation
    ) -> T:
        initialized = False
        try:
            async with (
                self._http_client(operation) as client,
                streamable_http_client(self.config.url, http_client=client) as streams,
                # mcp 1 adds a third stream: a session-id getter.
                ClientSession(streams[0], streams[1]) as session,
            ):
                await self._initialize(session)
                initialized = True
                result = await op(session)
        except Exception as err:  # unwrapped and mapped below
            cause = _leaf(err)
            # A server without streamable HTTP answers 404/405 or a protocol
            # error (proxies vary); only then, and never once a call was sent,
            # is SSE worth a try.
            if not initialized and _maybe_sse_only(cause):
                raise _NotStreamable(cause) from err
            raise _mapped(cause, self._where) from err
        if self._transport == "auto":
            self._transport = "streamable_http"
        return result

    async def _run_sse[T](
        self, op: Callable[[ClientSession], Awaitable[T]], operation: _Operation
    ) -> T:
        def factory(
            headers: dict[str, str] | None = None,
            timeout: http.Timeout | None = None,
            auth: http.Auth | None = None,
        ) -> http.AsyncClient:
            return self._http_client(operation, headers, timeout, auth)

        try:
            async with (
                sse_client(
                    self.config.url,
                    headers=dict(self.config.headers),
                    timeout=self.config.timeout,
                    sse_read_timeout=self.config.timeout,
                    httpx_client_factory=factory,
                ) as (read, write),
                ClientSession(read, write) as session,
            ):
                await self._initialize(session)
                return await op(session)
        except Exception as err:  # unwrapped and mapped below
            raise _mapped(_leaf(err), self._where) from err

    async def _initialize(self, session: ClientSession) -> None:
        info = _wire(await session.initialize())
        self.server_name = info["serverInfo"]["name"]

    def _http_client(
        self,
        operation: _Operation,
        headers: dict[str, str] | None = None,
        timeout: http.Timeout | None = None,
        auth: http.Auth | None = None,
    ) -> http.AsyncClient:
        """An httpx client for one operation, with the server's headers."""

        def too_large(err: TooLargeError) -> None:
            operation.abort(
                f"The MCP server at {self._where} answered too much. {err}",
                McpResponseTooLargeError,
            )

        return http.AsyncClient(
            headers={**self.config.headers, **(headers or {})},
            timeout=timeout or http.Timeout(self.config.timeout),
            auth=auth,
            verify=self._verify,
            follow_redirects=True,
            event_hooks={
                "request": [self._keep_headers_home],
                "response": [
                    response_cap(
                        max_bytes=self.config.max_response_bytes,
                        on_exceeded=too_large,
                        stream_type=http.AsyncByteStream,
                    )
                ],
            },
        )

    async def _keep_headers_home(self, request: http.Request) -> None:
        """Drop the configured headers from a request to another origin (a
        redirect): hooks see every hop."""
        if _origin(request.url) == _origin(http.URL(self.config.url)):
            return
        for name in (*self.config.headers, "Authorization"):
            request.headers.pop(name, None)

    async def _probe(self, operation: _Operation) -> None:
        """End the operation when the server's port stops accepting connections."""
        parts = urlsplit(self.config.url)
        host = parts.hostname or "localhost"
        port = parts.port or (443 if parts.scheme == "https" else 80)
        interval = self.config.probe_interval
        while True:
            await asyncio.sleep(interval)
            try:
                async with asyncio.timeout(interval):
                    _, writer = await asyncio.open_connection(host, port)
            except (OSError, TimeoutError):
                operation.abort(
                    f"The MCP server at {self._where} went away during the call."
                )
                return
            writer.close()
            await writer.wait_closed()


class _NotStreamable(Exception):
    def __init__(self, cause: BaseException) -> None:
        super().__init__(str(cause))
        self.cause = cause


def _wire(model: BaseModel) -> dict[str, Any]:
    """A protocol object as JSON: the spec's names (mcp 2's fields are snake_case)."""
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


def _origin(url: http.URL) -> tuple[str, str, int | None]:
    default = {"http": 80, "https": 443}.get(url.scheme)
    return url.scheme, url.host, url.port or default


def _leaf(err: BaseException) -> BaseException:
    """The first meaningful exception inside (possibly nested) exception groups."""
    while isinstance(err, BaseExceptionGroup):
        err = next(
            (e for e in err.exceptions if not isinstance(e, asyncio.CancelledError)),
            err.exceptions[0],
        )
    return err


def _maybe_sse_only(err: BaseException) -> bool:
    if isinstance(err, http.HTTPStatusError):
        return err.response.status_code in (400, 404, 405)
    return isinstance(err, _RpcError)


def _mapped(err: BaseException, url: str) -> Exception:
    """One of this module's errors for a transport or protocol failure."""
    if isinstance(err, McpError):
        return err
    if isinstance(err, http.HTTPStatusError):
        status = err.response.status_code
        if status in (401, 403):
            return McpAuthError(f"The MCP server at {url} refused the credentials.")
        return McpConnectionError(f"The MCP server at {url} answered HTTP {status}.")
    if isinstance(err, (http.HTTPError, OSError)):
        return McpConnectionError(
            f"Could not reach the MCP server at {url} ({type(err).__name__})."
        )
    if isinstance(err, _RpcError):
        if err.error.code == types.CONNECTION_CLOSED:
            return McpConnectionError(f"The MCP server at {url} closed the connection.")
        return McpProtocolError(redact(err.error.message))
    return McpConnectionError(
        f"Unexpected failure talking to the MCP server at {url}: "
        + redact(_describe(err))
    )


def _describe(err: BaseException) -> str:
    return str(err) or type(err).__name__
