"""MCP servers of a Jarvis entry: their tools, kept fresh, as Home Assistant LLM tools.

A server's tools are listed on setup, every `MCP_REFRESH_INTERVAL`, on the
`jarvis.refresh_mcp` action, and after any failed call. While a server is
down its tools leave the catalogue and it is retried with a doubling backoff.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass
import hashlib
import re
from typing import Any

from homeassistant.config_entries import ConfigEntry, ConfigSubentry
from homeassistant.core import CALLBACK_TYPE, HomeAssistant, callback
from homeassistant.helpers.event import async_call_later
from homeassistant.util import slugify
from homeassistant.util.ssl import get_default_context
import voluptuous as vol

from ..const import (
    CONF_HEADERS,
    CONF_TOKEN,
    CONF_TRANSPORT,
    CONF_URL,
    MAX_TOOL_NAME,
    MCP_CALL_TIMEOUT,
    MCP_PROBE_INTERVAL,
    MCP_REFRESH_INTERVAL,
    MCP_RETRY_MAX,
    MCP_RETRY_MIN,
)
from ..engine.mcp_client import (
    McpClient,
    McpConnectionError,
    McpError,
    McpServerConfig,
    McpTool,
    McpToolResult,
    Transport,
)
from ..engine.redact import redact, redacting_logger
from .services import ToolError

_LOGGER = redacting_logger(__name__)
MAX_SLUG = 16
MAX_SCHEMA_DEPTH = 8


def server_config(data: Mapping[str, Any]) -> McpServerConfig:
    """The client settings of an MCP-server subentry's data."""
    headers = parse_headers(data.get(CONF_HEADERS) or "")
    if token := data.get(CONF_TOKEN):
        headers["Authorization"] = f"Bearer {token}"
    transport: Transport = data.get(CONF_TRANSPORT) or "auto"
    return McpServerConfig(
        url=data[CONF_URL],
        headers=headers,
        transport=transport,
        timeout=MCP_CALL_TIMEOUT,
        probe_interval=MCP_PROBE_INTERVAL,
    )


def parse_headers(text: str) -> dict[str, str]:
    """`Name: value` lines as a dict; raises ValueError on a malformed line."""
    headers: dict[str, str] = {}
    for line in text.splitlines():
        if not line.strip():
            continue
        name, sep, value = line.partition(":")
        if not sep or not re.fullmatch(r"[A-Za-z0-9-]+", name.strip()):
            raise ValueError(line)
        headers[name.strip()] = value.strip()
    return headers


def new_client(data: Mapping[str, Any]) -> McpClient:
    """A client with a prebuilt SSL context (no certificate loading in the loop)."""
    return McpClient(server_config(data), ssl_context=get_default_context())


def tool_name(slug: str, name: str) -> str:
    """`<server>__<tool>` in safe characters, within MAX_TOOL_NAME."""
    full = f"{slug}__{re.sub(r'[^A-Za-z0-9_-]', '_', name)}"
    if len(full) <= MAX_TOOL_NAME:
        return full
    digest = hashlib.sha1(full.encode()).hexdigest()[:8]
    return f"{full[: MAX_TOOL_NAME - 9]}_{digest}"


# --- JSON schema to voluptuous ------------------------------------------------


def schema_to_vol(schema: Mapping[str, Any]) -> vol.Schema:
    """A tool's input JSON schema as the voluptuous schema `llm.Tool` needs.

    Like Home Assistant's MCP integration (voluptuous_openapi), plus what MCP
    servers commonly send and it drops or rejects: enums and consts, `$ref` into
    `$defs`, and nullable `anyOf` unions.
    """
    defs = {**schema.get("definitions", {}), **schema.get("$defs", {})}
    converted = _convert(schema, defs, 0)
    return converted if isinstance(converted, vol.Schema) else vol.Schema(converted)


def _convert(schema: Mapping[str, Any], defs: Mapping[str, Any], depth: int) -> Any:
    if depth > MAX_SCHEMA_DEPTH:
        return dict
    schema = _resolved(schema, defs)
    if "enum" in schema or "const" in schema:
        values = list(schema.get("enum", [schema.get("const")]))
        choices = [value for value in values if value is not None]
        validator: Any = vol.In(choices)
        return vol.Any(validator, None) if len(choices) < len(values) else validator
    if variants := schema.get("anyOf") or schema.get("oneOf"):
        options = [v for v in variants if _resolved(v, defs).get("type") != "null"]
        converted = [_convert(v, defs, depth + 1) for v in options]
        validator = converted[0] if len(converted) == 1 else vol.Any(*converted)
        return vol.Any(validator, None) if len(options) < len(variants) else validator
    kind = schema.get("type")
    if isinstance(kind, list):
        types = [t for t in kind if t != "null"]
        converted = [_convert({**schema, "type": t}, defs, depth) for t in types]
        validator = converted[0] if len(converted) == 1 else vol.Any(*converted)
        return vol.Any(validator, None) if len(types) < len(kind) else validator
    if kind == "object" or (kind is None and "properties" in schema):
        return _object(schema, defs, depth)
    if kind == "array":
        items = schema.get("items")
        return vol.Schema([_convert(items, defs, depth + 1)]) if items else list
    return _scalar(kind, schema)


def _resolved(schema: Mapping[str, Any], defs: Mapping[str, Any]) -> Mapping[str, Any]:
    """Follow a local `$ref` (and a lone `allOf` wrapper) to the schema it names."""
    if (all_of := schema.get("allOf")) and len(all_of) == 1:
        schema = {**all_of[0], **{k: v for k, v in schema.items() if k != "allOf"}}
    if isinstance(ref := schema.get("$ref"), str):
        target = defs.get(ref.rpartition("/")[2], {})
        schema = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
    return schema


def _object(schema: Mapping[str, Any], defs: Mapping[str, Any], depth: int) -> Any:
    properties = schema.get("properties") or {}
    if not properties:
        return dict
    required = set(schema.get("required", []))
    fields: dict[vol.Marker, Any] = {}
    for key, value in properties.items():
        marker = vol.Required if key in required else vol.Optional
        description = _resolved(value, defs).get("description")
        fields[marker(key, description=description)] = _convert(value, defs, depth + 1)
    extra = vol.ALLOW_EXTRA if schema.get("additionalProperties") else vol.PREVENT_EXTRA
    return vol.Schema(fields, extra=extra)


def _scalar(kind: str | None, schema: Mapping[str, Any]) -> Any:
    if kind in ("integer", "number"):
        # Coerced: JSON numbers include integers, which `float` alone refuses.
        base: Any = int if kind == "integer" else vol.Coerce(float)
        low, high = schema.get("minimum"), schema.get("maximum")
        if low is None and high is None:
            return base
        return vol.All(base, vol.Range(min=low, max=high))
    if kind == "boolean":
        return bool
    low, high = schema.get("minLength"), schema.get("maxLength")
    if low is not None or high is not None:
        return vol.All(str, vol.Length(min=low, max=high))
    return str


# --- A server and its tools ---------------------------------------------------


@dataclass(frozen=True, slots=True)
class ServerTool:
    """A tool of a server, with its parameters converted."""

    tool: McpTool
    parameters: vol.Schema


class McpServer:
    """One MCP-server subentry: the tools it offers now, and calls to them."""

    def __init__(
        self, hass: HomeAssistant, entry: ConfigEntry, subentry: ConfigSubentry
    ) -> None:
        """Not connected until `async_start`."""
        self.hass = hass
        self.entry = entry
        self.subentry = subentry
        # Titles of older versions could hold a URL with its credentials.
        self.title = redact(subentry.title)
        self.slug = slugify(subentry.title)[:MAX_SLUG].strip("_") or "mcp"
        self.client = new_client(subentry.data)
        self.tools: list[ServerTool] = []
        self.available = False
        self.last_error: str | None = None
        self._retry_delay = MCP_RETRY_MIN
        self._cancel_timer: CALLBACK_TYPE | None = None
        self._refresh_lock = asyncio.Lock()

    async def async_start(self) -> None:
        """List the tools once; a server that is down is retried in the background."""
        await self.async_refresh()

    @callback
    def async_stop(self) -> None:
        """Stop refreshing; end calls in flight with a clear error."""
        self._cancel()
        self.client.close(f"The MCP server '{self.title}' was removed from Jarvis.")

    async def async_refresh(self) -> bool:
        """List the tools now; return whether the server answered."""
        async with self._refresh_lock:
            self._cancel()
            try:
                listed = await self.client.list_tools()
                tools = [ServerTool(t, schema_to_vol(t.input_schema)) for t in listed]
            except (McpError, ValueError, TypeError, KeyError) as err:
                self._went_down(str(err))
                return False
            if not self.available:
                _LOGGER.info("MCP server '%s': %d tools", self.title, len(tools))
            self.tools, self.available, self.last_error = tools, True, None
            self._retry_delay = MCP_RETRY_MIN
            self._schedule(MCP_REFRESH_INTERVAL)
            return True

    @callback
    def request_refresh(self) -> None:
        """Refresh in the background (ends with the entry)."""
        self.entry.async_create_background_task(
            self.hass, self.async_refresh(), f"jarvis refresh MCP {self.slug}"
        )

    async def async_call(
        self, tool: McpTool, arguments: dict[str, Any]
    ) -> McpToolResult:
        """Call a tool; a failure to reach the server takes its tools out and retries."""
        try:
            return await self.client.call_tool(tool.name, arguments)
        except McpConnectionError as err:
            self._went_down(str(err))
            self.request_refresh()
            raise ToolError(
                f"The MCP server '{self.title}' is unavailable, so {tool.name} "
                f"did not run: {err}"
            ) from err
        except McpError as err:
            raise ToolError(f"{tool.name} failed on '{self.title}': {err}") from err

    def _went_down(self, error: str) -> None:
        if self.available or self.last_error is None:
            _LOGGER.warning("MCP server '%s' unavailable: %s", self.title, error)
        self.tools, self.available, self.last_error = [], False, error
        self._schedule(self._retry_delay)
        self._retry_delay = min(self._retry_delay * 2, MCP_RETRY_MAX)

    def _schedule(self, delay: float) -> None:
        self._cancel()

        @callback
        def fire(_: Any) -> None:
            self._cancel_timer = None
            self.request_refresh()

        self._cancel_timer = async_call_later(self.hass, delay, fire)

    def _cancel(self) -> None:
        if self._cancel_timer is not None:
            self._cancel_timer()
            self._cancel_timer = None
