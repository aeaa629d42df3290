"""The MCP client against real loopback servers: responses capped while they
are read, and headers that never follow a redirect to another origin."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
import time

from aiohttp import web
import pytest

from custom_components.jarvis.engine.mcp_client import (
    MCP_MAJOR,
    McpClient,
    McpError,
    McpResponseTooLargeError,
    McpServerConfig,
)
from tests.tools.conftest import StartMcp

CAP = 64 * 1024


@pytest.mark.parametrize("transport", ["streamable_http", "sse"])
async def test_a_response_over_the_cap_ends_the_call_not_the_server(
    start_mcp: StartMcp, transport: str
) -> None:
    server = await start_mcp(transport)
    client = McpClient(
        McpServerConfig(
            server.url, transport=transport, timeout=20, max_response_bytes=CAP
        )
    )
    started = time.monotonic()
    with pytest.raises(McpResponseTooLargeError) as caught:
        await client.call_tool("huge", {"size": 4 * 1024 * 1024})
    assert str(caught.value) == (
        f"The MCP server at {server.url} answered too much. The reply was over 64 KiB."
    )
    # Cut at the cap, not at the operation's timeout.
    assert time.monotonic() - started < 5
    result = await client.call_tool("huge", {"size": 1000})
    assert result.text == "x" * 1000


@dataclass
class Loopback:
    """Two loopback servers, two ports: two origins. The first redirects
    /same to its own /mcp and /away to the second's /mcp; every request is
    recorded as (port, path, headers)."""

    first: str = ""
    second: str = ""
    seen: list[tuple[str, str, dict[str, str]]] = field(default_factory=list)


@pytest.fixture
async def loopback(socket_enabled: None) -> AsyncIterator[Loopback]:
    servers = Loopback()
    runners: list[web.AppRunner] = []

    async def start(routes: dict[str, str | None]) -> str:
        async def handle(request: web.Request) -> web.Response:
            servers.seen.append((base, request.path, dict(request.headers)))
            if (target := routes[request.path]) is None:
                return web.Response(status=404)
            raise web.HTTPTemporaryRedirect(target)

        app = web.Application()
        for path in routes:
            app.router.add_route("*", path, handle)
        runner = web.AppRunner(app)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", 0).start()
        runners.append(runner)
        base = f"http://127.0.0.1:{runner.addresses[0][1]}"
        return base

    servers.second = await start({"/mcp": None})
    servers.first = await start(
        {"/away": f"{servers.second}/mcp", "/same": "/mcp", "/mcp": None}
    )
    yield servers
    for runner in runners:
        await runner.cleanup()


SECRET_HEADERS = {"X-Api-Key": "k-123", "Authorization": "Bearer t-456"}


@pytest.mark.parametrize("transport", ["streamable_http", "sse"])
async def test_headers_stay_with_their_origin(
    loopback: Loopback, transport: str
) -> None:
    for path in ("/away", "/same"):
        client = McpClient(
            McpServerConfig(
                f"{loopback.first}{path}",
                headers=SECRET_HEADERS,
                transport=transport,
                timeout=5,
            )
        )
        with pytest.raises(McpError):
            await client.list_tools()

    def got(base: str, path: str) -> list[dict[str, str]]:
        return [h for b, p, h in loopback.seen if (b, p) == (base, path)]

    # The first origin had them on every request, the redirect's target included.
    for headers in got(loopback.first, "/away") + got(loopback.first, "/mcp"):
        assert headers["X-Api-Key"] == "k-123"
        assert headers["Authorization"] == "Bearer t-456"
    assert got(loopback.first, "/mcp")
    # The other origin: never with them. mcp 1 follows the redirect there (the
    # client strips them); mcp 2 follows none to another origin.
    reached = got(loopback.second, "/mcp")
    assert reached or MCP_MAJOR >= 2
    for headers in reached:
        assert "X-Api-Key" not in headers
        assert "Authorization" not in headers


async def test_url_credentials_stay_with_their_origin(loopback: Loopback) -> None:
    url = loopback.first.replace("http://", "http://admin:hunter2@") + "/away"
    client = McpClient(McpServerConfig(url, transport="streamable_http", timeout=5))
    with pytest.raises(McpError):
        await client.list_tools()
    (first, *_), reached = (
        [h for b, _, h in loopback.seen if b == loopback.first],
        [h for b, _, h in loopback.seen if b == loopback.second],
    )
    assert first["Authorization"].startswith("Basic ")
    assert reached or MCP_MAJOR >= 2  # as above
    assert all("Authorization" not in headers for headers in reached)


async def test_errors_never_show_url_credentials(socket_enabled: None) -> None:
    client = McpClient(
        McpServerConfig("http://admin:hunter2@127.0.0.1:1/mcp", timeout=5)
    )
    with pytest.raises(McpError) as caught:
        await client.list_tools()
    assert str(caught.value) == (
        "Could not reach the MCP server at http://127.0.0.1:1/mcp (ConnectError)."
    )
