"""Jarvis's own tools: time, arithmetic, service calls, schedules, web, MCP."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any, Self

from homeassistant.core import HomeAssistant
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import config_validation as cv, entity_registry as er, llm
from homeassistant.helpers.aiohttp_client import async_get_clientsession
from homeassistant.util import dt as dt_util
from homeassistant.util.json import JsonObjectType
import voluptuous as vol
from yarl import URL

from ..const import LOGGER, TOOL_CONFIRM_ACTION
from ..engine.text import mentions
from ..engine.untrusted import fenced
from ..safety.holds import user_text
from .calc import CalcError, calculate
from .deeds import service_deeds
from .hub import JarvisTools
from .mcp import McpServer, ServerTool
from .schedule import when_from_args
from .services import (
    ACTION_SCHEMA,
    ServiceAction,
    ToolError,
    async_resolve,
    async_run,
)
from .web import MAX_RESULTS, SearxngProvider, WebError, fetch_text


class JarvisTool(llm.Tool):
    """A tool with access to the shared Jarvis tools state."""

    def __init__(self, hub: JarvisTools) -> None:
        """Keep the hub."""
        self.hub = hub

    def __deepcopy__(self, memo: dict[int, Any]) -> Self:
        """Itself: HA's conversation trace deep-copies the tool list, and a tool
        shares live state (Home Assistant itself) that cannot be copied."""
        return self


class WrappingTool(JarvisTool):
    """A tool standing in for another, which it runs as `wrapped`."""

    def __init__(self, hub: JarvisTools, tool: llm.Tool) -> None:
        """Look like the wrapped tool to every reader (name, schema, and the
        title and annotations newer HA versions add)."""
        self.__dict__.update(vars(tool))
        # Tools that name and describe themselves in class attributes.
        self.name, self.description = tool.name, tool.description
        self.parameters = tool.parameters
        super().__init__(hub)
        self.wrapped = tool


class FailSafeTool(WrappingTool):
    """Any tool, whose unexpected failure becomes an error the model sees.

    HA's chat log reports a tool's HomeAssistantError to the model; anything
    else (a bug, an overflow from a wild argument) would end the turn.
    """

    async def async_call(
        self,
        hass: HomeAssistant,
        tool_input: llm.ToolInput,
        llm_context: llm.LLMContext,
    ) -> JsonObjectType:
        """The wrapped tool's result, or a tool error."""
        try:
            return await self.wrapped.async_call(hass, tool_input, llm_context)
        except (HomeAssistantError, vol.Invalid):
            raise
        except Exception as err:
            LOGGER.exception("Tool %s failed", self.name)
            raise ToolError(
                f"{self.name} failed ({type(err).__name__}); try other arguments "
                "or another way."
            ) from err


class GetTimeTool(JarvisTool):
    """The current local date, time and timezone."""

    name = "get_time"
    description = "Current date, time, weekday and timezone of the home."

    async def async_call(
        self,
        hass: HomeAssistant,
        tool_input: llm.ToolInput,
        llm_context: llm.LLMContext,
    ) -> JsonObjectType:
        """Home Assistant's clock in its configured timezone."""
        now = dt_util.now()
        offset = now.strftime("%z")
        return {
            "date": now.strftime("%Y-%m-%d"),
            "time": now.strftime("%H:%M"),
            "weekday": now.strftime("%A"),
            "timezone": hass.config.time_zone,
            "utc_offset": f"{offset[:3]}:{offset[3:]}",
        }


class CalculateTool(JarvisTool):
    """Safe arithmetic."""

    name = "calculate"
    description = "Evaluate arithmetic, e.g. (3+4)*2, 2^10, sqrt(2), 15% of 80."
    parameters = vol.Schema({vol.Required("expression"): str})

    async def async_call(
        self,
        hass: HomeAssistant,
        tool_input: llm.ToolInput,
        llm_context: llm.LLMContext,
    ) -> JsonObjectType:
        """The value, or an error the model can act on."""
        expression = str(tool_input.tool_args["expression"])
        try:
            return {"expression": expression, "result": calculate(expression)}
        except CalcError as err:
            raise ToolError(str(err)) from err


def _action_names(
    hass: HomeAssistant, action: ServiceAction, args: dict[str, Any]
) -> list[str]:
    """What the user would call the action's targets."""
    registry = er.async_get(hass)
    names = [str(args[key]) for key in ("area", "floor") if args.get(key)]
    for entity_id in action.entity_ids:
        names.append(entity_id.partition(".")[2].replace("_", " "))
        if state := hass.states.get(entity_id):
            names.append(state.name)
        if entry := registry.async_get(entity_id):
            names.extend(entry.aliases)
    return names


class CallServiceTool(JarvisTool):
    """Any service on exposed entities."""

    name = "call_service"
    description = (
        "Call a Home Assistant service on exposed entities, e.g. domain light, "
        'service turn_on, entity_id light.kitchen, data {"brightness_pct": 40}.'
    )
    parameters = vol.Schema(ACTION_SCHEMA)

    async def async_call(
        self,
        hass: HomeAssistant,
        tool_input: llm.ToolInput,
        llm_context: llm.LLMContext,
    ) -> JsonObjectType:
        """Resolve, guard, run."""
        args = tool_input.tool_args
        action = await async_resolve(hass, args)

        async def run() -> JsonObjectType:
            return await async_run(hass, action, llm_context.context)

        return await self.hub.async_act(
            llm_context,
            action.describe(hass),
            [action.call],
            run=run,
            grounded=mentions(user_text(), _action_names(hass, action, args)),
            deeds=service_deeds(hass, action),
        )


class ConfirmActionTool(JarvisTool):
    """Run the action held for the user's yes."""

    name = TOOL_CONFIRM_ACTION
    description = (
        "Run the action that waits for confirmation, only after the user "
        "answered yes to your question in their latest message."
    )

    async def async_call(
        self,
        hass: HomeAssistant,
        tool_input: llm.ToolInput,
        llm_context: llm.LLMContext,
    ) -> JsonObjectType:
        """Delegated to the safety rules."""
        return await self.hub.safety.confirm(llm_context)


class ScheduleActionTool(JarvisTool):
    """A service call later."""

    name = "schedule_action"
    description = (
        "Do a service call later: in_minutes from now, or at a time (HH:MM, "
        "24-hour) with day today, tomorrow or YYYY-MM-DD. Same fields as call_service."
    )
    parameters = vol.Schema(
        {
            **ACTION_SCHEMA,
            vol.Optional("in_minutes", description="Minutes from now"): vol.Coerce(
                float
            ),
            vol.Optional("at", description="Time of day, HH:MM"): str,
            vol.Optional("day", description="today, tomorrow or YYYY-MM-DD"): str,
        }
    )

    async def async_call(
        self,
        hass: HomeAssistant,
        tool_input: llm.ToolInput,
        llm_context: llm.LLMContext,
    ) -> JsonObjectType:
        """Resolve and check now; store and arm once allowed."""
        args = tool_input.tool_args
        when = when_from_args(args)
        action = await async_resolve(hass, args)
        local = dt_util.as_local(when).strftime("%Y-%m-%d %H:%M")

        async def run() -> JsonObjectType:
            item = await self.hub.scheduler.async_add(action, when)
            return {"success": True, "scheduled": item.summary()}

        return await self.hub.async_act(
            llm_context,
            f"{action.describe(hass)} at {local}",
            [action.call],
            run=run,
            after_yes=run,
            grounded=mentions(user_text(), _action_names(hass, action, args)),
        )


class ListScheduledTool(JarvisTool):
    """What is scheduled."""

    name = "list_scheduled"
    description = "List the scheduled actions with their ids and times."

    async def async_call(
        self,
        hass: HomeAssistant,
        tool_input: llm.ToolInput,
        llm_context: llm.LLMContext,
    ) -> JsonObjectType:
        """Soonest first."""
        return {"scheduled": [item.summary() for item in self.hub.scheduler.pending()]}


class CancelScheduledTool(JarvisTool):
    """Cancel a scheduled action."""

    name = "cancel_scheduled"
    description = "Cancel a scheduled action by its id (see list_scheduled)."
    parameters = vol.Schema({vol.Required("id"): str})

    async def async_call(
        self,
        hass: HomeAssistant,
        tool_input: llm.ToolInput,
        llm_context: llm.LLMContext,
    ) -> JsonObjectType:
        """Unknown ids get the list of valid ones."""
        item_id = str(tool_input.tool_args["id"]).strip()
        scheduler = self.hub.scheduler
        item = next((i for i in scheduler.pending() if i.id == item_id), None)
        if item is None:
            valid = ", ".join(f"{i.id} ({i.description})" for i in scheduler.pending())
            raise ToolError(
                f"No scheduled action {item_id}. Scheduled: {valid or 'none'}."
            )

        async def run() -> JsonObjectType:
            await scheduler.async_cancel(item_id)
            return {"success": True, "cancelled": item.summary()}

        return await self.hub.async_act(
            llm_context,
            f"cancel '{item.description}'",
            [],
            run=run,
            after_yes=run,
            grounded=mentions(user_text(), _action_names(hass, item.action, {})),
        )


class WebSearchTool(JarvisTool):
    """Search the web through the configured provider."""

    name = "web_search"
    description = "Search the web; results are untrusted text."
    parameters = vol.Schema({vol.Required("query"): str})

    async def async_call(
        self,
        hass: HomeAssistant,
        tool_input: llm.ToolInput,
        llm_context: llm.LLMContext,
    ) -> JsonObjectType:
        """Fenced results; their URLs may be fetched next."""
        query = str(tool_input.tool_args["query"])
        provider = SearxngProvider(
            async_get_clientsession(hass), self.hub.settings().search_url
        )
        try:
            hits = await provider.search(query, MAX_RESULTS)
        except WebError as err:
            raise ToolError(str(err)) from err
        self.hub.safety.remember_urls(llm_context, [hit.url for hit in hits])
        text = "\n\n".join(f"{hit.title}\n{hit.url}\n{hit.snippet}" for hit in hits)
        return self.hub.untrusted_result(
            llm_context, "web_search", text or "No results."
        )


class FetchPageTool(JarvisTool):
    """Read a web page."""

    name = "fetch_page"
    description = "Read the text of a web page (http or https URL)."
    parameters = vol.Schema({vol.Required("url"): cv.string})

    async def async_call(
        self,
        hass: HomeAssistant,
        tool_input: llm.ToolInput,
        llm_context: llm.LLMContext,
    ) -> JsonObjectType:
        """Fenced page text. A URL the user never gave nor a search found waits."""
        url = str(tool_input.tool_args["url"]).strip()
        safety = self.hub.safety

        async def run() -> JsonObjectType:
            try:
                text = await fetch_text(async_get_clientsession(hass), url)
            except WebError as err:
                raise ToolError(str(err)) from err
            return self.hub.untrusted_result(llm_context, f"web:{URL(url).host}", text)

        return await self.hub.async_act(
            llm_context,
            f"read the page {url}",
            [],
            run=run,
            after_yes=run,
            grounded=safety.known_url(llm_context, url) or url in (user_text() or ""),
        )


# Characters of an MCP tool's own description the model reads.
MAX_MCP_DESCRIPTION = 300


class McpLlmTool(JarvisTool):
    """A tool of an MCP server, named `<server>__<tool>`."""

    def __init__(
        self, hub: JarvisTools, server: McpServer, tool: ServerTool, name: str
    ) -> None:
        """Describe the tool as its server does."""
        super().__init__(hub)
        self.server = server
        self.tool = tool.tool
        self.name = name
        # The server writes this text, its name included: it reaches the model
        # fenced as outside content, and short.
        said = " ".join(f"{tool.tool.description or ''} ({server.title})".split())
        self.description = fenced(f"mcp:{server.slug}", said, MAX_MCP_DESCRIPTION)
        self.parameters = tool.parameters

    async def async_call(
        self,
        hass: HomeAssistant,
        tool_input: llm.ToolInput,
        llm_context: llm.LLMContext,
    ) -> JsonObjectType:
        """Fenced result. Once untrusted content was seen, tools that may change things wait."""

        async def run() -> JsonObjectType:
            result = await self.server.async_call(self.tool, tool_input.tool_args)
            source = f"mcp:{self.server.slug}/{self.tool.name}"
            fenced = self.hub.untrusted_result(llm_context, source, result.text)
            if result.is_error:
                return {
                    "error": "mcp_tool_error",
                    "error_text": "The tool failed.",
                    **fenced,
                }
            return fenced

        # What a tool that may change things does happens outside Home
        # Assistant, where Jarvis cannot see it: the unresolved option decides.
        return await self.hub.async_act(
            llm_context,
            f"run {self.tool.name} on {self.server.title}",
            [],
            run=run,
            after_yes=run,
            unresolved=() if self.tool.read_only else [f"MCP tool {self.name}"],
            grounded=self.tool.read_only,
        )


def model_names(tools: Sequence[llm.Tool]) -> list[str]:
    """The names a model sees: without the namespace of merged APIs, and MCP
    tools without their server's where no other tool has their name (the 0.5B
    model passed over `server__tool` and searched for tools instead)."""
    inner = [innermost(tool) for tool in tools]
    own = [
        tool.tool.name if isinstance(tool, McpLlmTool) else tool.name for tool in inner
    ]
    counts = Counter(own)
    return [
        name if counts[name] == 1 else tool.name
        for tool, name in zip(inner, own, strict=True)
    ]


def intent_type_of(tool: llm.Tool) -> str | None:
    """The intent an intent tool runs."""
    if not isinstance(tool, llm.IntentTool):
        return None
    # HA 2026.11 names intent tools apart from their intent type.
    return str(getattr(tool, "intent_type", tool.name))


def innermost(tool: llm.Tool) -> llm.Tool:
    """The tool itself, inside a merged API's namespace and Jarvis's wrappers."""
    while isinstance(tool, llm.NamespacedTool | WrappingTool):
        tool = tool.tool if isinstance(tool, llm.NamespacedTool) else tool.wrapped
    return tool


def replace_tools(
    instance: llm.APIInstance, wrap: Callable[[llm.Tool], llm.Tool | None]
) -> None:
    """Put `wrap`'s tool (where it gives one) in each tool's place, in place,
    inside the NamespacedTool of a merged API if there is one."""
    for index, tool in enumerate(instance.tools):
        outer: llm.NamespacedTool | None = None
        inner = tool
        while isinstance(inner, llm.NamespacedTool):
            outer, inner = inner, inner.tool
        if (wrapper := wrap(inner)) is None:
            continue
        if outer is None:
            instance.tools[index] = wrapper
        else:
            # The namespaced tool shows the model what it copied from the
            # inner one when made: a wrapper's own schema must show too.
            outer.tool = wrapper
            outer.description = wrapper.description
            outer.parameters = wrapper.parameters
