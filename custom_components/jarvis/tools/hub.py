"""What Jarvis's tools share: the answering entry's options, the safety state,
the scheduler, the MCP servers, and the one place where tools act."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from homeassistant.config_entries import ConfigEntry
from homeassistant.core import HomeAssistant
from homeassistant.helpers import llm
from homeassistant.util.hass_dict import HassKey
from homeassistant.util.json import JsonObjectType

from ..const import (
    CONF_SEARCH_URL,
    CONF_SENSITIVE,
    CONF_UNRESOLVED,
    CONF_WEB_SEARCH,
    DEFAULT_UNRESOLVED,
    DOMAIN,
    SENSITIVE_KINDS,
)
from ..engine.phrases import Deed
from ..engine.untrusted import untrusted
from ..safety.effects import Call
from ..safety.holds import Runner, Safety, run_calls
from ..safety.policy import UNRESOLVED_RUN, assess
from .asked import unasked
from .mcp import McpServer
from .schedule import Scheduler

DATA_TOOLS: HassKey[JarvisTools] = HassKey(f"{DOMAIN}_tools")


@dataclass(frozen=True, slots=True)
class ToolSettings:
    """The tool options of a Jarvis server entry."""

    web_search: bool = False
    search_url: str = ""
    sensitive: frozenset[str] = field(
        default_factory=lambda: frozenset(SENSITIVE_KINDS)
    )
    unresolved: str = DEFAULT_UNRESOLVED

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> ToolSettings:
        """An entry's options; web search needs its provider's URL."""
        url = str(options.get(CONF_SEARCH_URL) or "")
        return cls(
            web_search=bool(options.get(CONF_WEB_SEARCH)) and bool(url),
            search_url=url,
            sensitive=frozenset(options.get(CONF_SENSITIVE, SENSITIVE_KINDS)),
            unresolved=str(options.get(CONF_UNRESOLVED, DEFAULT_UNRESOLVED)),
        )


# The entry whose agent is answering, set by Jarvis's conversation entity for
# its turn: `LLMContext` carries no entry, and each entry's tools follow its
# own options and MCP servers. Tool calls run in tasks that inherit it.
CURRENT_ENTRY: ContextVar[ConfigEntry | None] = ContextVar(
    f"{DOMAIN}_current_entry", default=None
)


class JarvisTools:
    """What Jarvis's tools share: safety state, the scheduler, the MCP servers."""

    def __init__(self, hass: HomeAssistant) -> None:
        """Nothing scheduled or held yet."""
        self.hass = hass
        self.safety = Safety(hass)
        self.scheduler = Scheduler(hass)

    def settings(self) -> ToolSettings:
        """The answering Jarvis agent's entry's options. Another agent that
        chose the `jarvis` API gets them all combined the safe way: every kind
        any entry guards, unknown effects asked unless every entry runs them,
        web search only where every entry has it."""
        if (entry := CURRENT_ENTRY.get()) is not None:
            return ToolSettings.from_options(entry.options)
        every = [
            ToolSettings.from_options(entry.options)
            for entry in self.hass.config_entries.async_loaded_entries(DOMAIN)
        ]
        if not every:
            return ToolSettings()
        searching = all(settings.web_search for settings in every)
        return ToolSettings(
            web_search=searching,
            search_url=every[0].search_url if searching else "",
            sensitive=frozenset().union(*(settings.sensitive for settings in every)),
            unresolved=UNRESOLVED_RUN
            if all(settings.unresolved == UNRESOLVED_RUN for settings in every)
            else DEFAULT_UNRESOLVED,
        )

    def mcp_servers(self) -> list[McpServer]:
        """The MCP servers of the answering agent's entry (of every loaded
        entry for another agent)."""
        current = CURRENT_ENTRY.get()
        return [
            server
            for entry in self.hass.config_entries.async_loaded_entries(DOMAIN)
            if current is None or entry.entry_id == current.entry_id
            for server in entry.runtime_data.mcp.values()
        ]

    async def async_act(
        self,
        llm_context: llm.LLMContext,
        description: str,
        calls: Sequence[Call],
        *,
        run: Runner,
        after_yes: Runner | None = None,
        unresolved: Sequence[str] = (),
        grounded: bool = True,
        deeds: Sequence[Deed] = (),
    ) -> JsonObjectType:
        """Run an action now, or hold it for its owner's yes.

        The one place Jarvis's tools act. `calls` are the service calls the
        action makes, resolved here to the entities they touch. It waits when
        it unlocks, disarms or opens a guarded kind, when some of its effect
        (or `unresolved`, what the tool itself cannot tell) is unknown and the
        options say ask, when the conversation saw outside content and the
        user's words did not ask for it (`grounded`), or when the user's words
        neither say an action nor point to its targets (`unasked`). A held
        action runs exactly `calls` after the yes (`after_yes` for one that is
        not a service call); `deeds` let the question be asked in the user's
        language.
        """
        settings = self.settings()
        assessment = assess(self.hass, calls, settings.sensitive)
        assessment.unresolved += unresolved
        targets = [entity_id for call in calls for entity_id in call.entity_ids]
        if (
            not assessment.needs_yes(settings.unresolved)
            and (grounded or not self.safety.is_tainted(llm_context))
            and not unasked(self.hass, targets)
        ):
            return await run()
        if after_yes is None:

            async def after_yes() -> JsonObjectType:
                return await run_calls(self.hass, calls, llm_context.context)

        return self.safety.hold(
            llm_context,
            description,
            after_yes,
            calls=calls,
            touched=[
                *targets,
                *(effect.entity_id for effect in assessment.sensitive),
            ],
            deeds=deeds,
        )

    def untrusted_result(
        self, llm_context: llm.LLMContext, source: str, text: str
    ) -> JsonObjectType:
        """Fence outside content and remember the conversation saw some."""
        self.safety.mark_untrusted(llm_context)
        return untrusted(source, text)
