"""The bridge between Home Assistant's chat log and Jarvis's reply engine."""

from __future__ import annotations

from collections import Counter
from collections.abc import AsyncIterator, Mapping, Sequence
import json
from operator import attrgetter
from typing import Any

from homeassistant.components import conversation
from homeassistant.config_entries import ConfigSubentry
from homeassistant.const import CONF_LLM_HASS_API
from homeassistant.core import Context, HomeAssistant
from homeassistant.helpers import device_registry as dr, llm
from homeassistant.helpers.entity import Entity
from homeassistant.util import dt as dt_util
from voluptuous_openapi import convert

from . import JarvisConfigEntry
from .const import (
    ASSISTANT,
    CONF_BACKEND,
    CONF_KEEP_ALIVE,
    CONF_MAX_TOKENS,
    CONF_MAX_TURNS,
    CONF_MEMORY,
    CONF_MODEL,
    CONF_NUM_CTX,
    CONF_PLANNER,
    CONF_PREFER_LOCAL,
    CONF_TARGET_REPAIR,
    CONF_TEMPERATURE,
    CONF_THINK,
    CONF_TOOL_ROUTER,
    CONF_TOP_P,
    CONF_TURN_DEADLINE,
    DEFAULT_MAX_TOKENS,
    DEFAULT_MAX_TURNS,
    DEFAULT_NUM_CTX,
    DEFAULT_TURN_DEADLINE,
    DOMAIN,
    ENGINE_FEATURE_DEFAULTS,
    LOGGER,
)
from .engine.cache import ConversationCache, ConversationCaches
from .engine.grounding import HouseView
from .engine.llm.base import LLMError, Sampling
from .engine.loop import (
    Delta,
    LookUp,
    LoopSettings,
    ReplyLoop,
    StepStart,
    TextDelta,
    ToolCallDelta,
    TurnResult,
)
from .engine.types import JsonObject, Message, ToolCall, ToolSpec
from .memory import HOUSEHOLD, async_get_memory
from .tools.assist_guard import guard_assist_tools, intent_kinds
from .tools.builtin import innermost, intent_type_of, model_names
from .tools.home import device_context, home_api
from .tools.service_features import load_service_features


class ToolNames:
    """Short names for the tools of merged APIs, which HA names `<api>__<tool>`.

    Small models copy a short name far more reliably; where two APIs offer the
    same short name, the full one is kept.
    """

    def __init__(self, api: llm.APIInstance | None) -> None:
        tools = api.tools if api else []
        full_names = [tool.name for tool in tools]
        shorts = model_names(tools)
        counts = Counter(shorts)
        self._to_full = {
            short if counts[short] == 1 else full: full
            for short, full in zip(shorts, full_names, strict=True)
        }
        self._to_short = {full: short for short, full in self._to_full.items()}

    def short(self, name: str) -> str:
        """The name the model sees."""
        return self._to_short.get(name, name)

    def full(self, name: str) -> str:
        """The name Home Assistant knows."""
        return self._to_full.get(name, name)


def tool_specs(
    hass: HomeAssistant, api: llm.APIInstance | None, names: ToolNames
) -> list[ToolSpec]:
    """Home Assistant's LLM tools as engine tool specs, by name and with each
    list of allowed values sorted. HA's order of both changed from one start
    to the next (the order its integrations loaded in, and sets), and with
    it the prompt the server had cached and the tool a tie gave 0.5B."""
    if api is None:
        return []
    kinds = intent_kinds(hass)
    return [
        ToolSpec(
            name=names.short(tool.name),
            description=tool.description or "",
            parameters=_sorted_choices(
                convert(tool.parameters, custom_serializer=api.custom_serializer)
            ),
            kinds=kinds.get(intent_type_of(innermost(tool)) or "", frozenset()),
        )
        for tool in sorted(api.tools, key=attrgetter("name"))
    ]


def _sorted_choices(schema: Any) -> Any:
    """A JSON schema with the values of each `enum` in sorted order."""
    if isinstance(schema, dict):
        return {
            key: sorted(value, key=str)
            if key == "enum" and isinstance(value, list)
            else _sorted_choices(value)
            for key, value in schema.items()
        }
    if isinstance(schema, list):
        return [_sorted_choices(item) for item in schema]
    return schema


def split_prompt(
    hass: HomeAssistant, chat_log: conversation.ChatLog, system_prompt: str
) -> tuple[str, list[str]]:
    """The system prompt's part that stays the same from turn to turn, and
    what this turn adds: the satellite's area and timers, the time (for
    agents without a date and time tool), and an automation's extra prompt.
    As little as it can: small models read it out as their reply.

    Home Assistant appends its date and time line and the extra prompt after
    the API's prompt, which Jarvis composes itself (`tools.home`).
    """
    api = chat_log.llm_api
    context = device_context(hass, api.llm_context) if api is not None else []
    if api is None or not any(tool.name.endswith("GetDateTime") for tool in api.tools):
        # As Home Assistant does: only for agents without a date and time tool.
        now = dt_util.now()
        context.append(f"It is {now:%H:%M} on {now:%A, %d %B %Y}.")
    if extra := chat_log.extra_system_prompt:
        context.append(extra)
    stable = system_prompt
    if (
        api is not None
        and api.api_prompt
        and ((cut := system_prompt.find(api.api_prompt)) >= 0)
    ):
        stable = system_prompt[: cut + len(api.api_prompt)]
    elif extra:
        stable = system_prompt.removesuffix(extra).rstrip("\n")
    return stable, context


def history_from_chat_log(
    chat_log: conversation.ChatLog, names: ToolNames
) -> tuple[str, list[Message]]:
    """The system prompt and the turns of a chat log, as engine messages.

    All of them: the engine's context budget folds what does not fit into a
    summary, which a cut here would lose.
    """
    system_prompt = ""
    messages: list[Message] = []
    answered = {
        content.tool_call_id
        for content in chat_log.content
        if isinstance(content, conversation.ToolResultContent)
    }
    for content in chat_log.content:
        if isinstance(content, conversation.SystemContent):
            system_prompt = content.content
        elif isinstance(content, conversation.UserContent):
            messages.append(Message("user", content.content))
        elif isinstance(content, conversation.AssistantContent):
            # HA's own intent handling logs calls without results: leave those
            # out, a server would reject a call with no answer.
            calls = [
                ToolCall(call.id, names.short(call.tool_name), call.tool_args)
                for call in content.tool_calls or ()
                if call.id in answered
            ]
            if content.content or calls:
                messages.append(Message("assistant", content.content or "", calls))
        elif isinstance(content, conversation.ToolResultContent):
            messages.append(
                Message(
                    "tool",
                    json.dumps(content.tool_result, ensure_ascii=False, default=str),
                    tool_call_id=content.tool_call_id,
                    name=names.short(content.tool_name),
                )
            )
    return system_prompt, messages


class ChatLogHost:
    """Streams engine steps into the chat log, which runs tools via the LLM API.

    Tool calls the engine answered itself (guard errors) go in as external calls
    with their results, so the chat log and trace stay complete and consistent.
    """

    def __init__(
        self, chat_log: conversation.ChatLog, agent_id: str, names: ToolNames
    ) -> None:
        self._chat_log = chat_log
        self._agent_id = agent_id
        self._names = names

    async def run_step(self, deltas: AsyncIterator[Delta]) -> Mapping[str, JsonObject]:
        """Stream one step; return results of the calls Home Assistant ran."""
        answered: dict[str, ToolCallDelta] = {}
        results: dict[str, JsonObject] = {}
        async for content in self._chat_log.async_add_delta_content_stream(
            self._agent_id, self._ha_deltas(deltas, answered)
        ):
            if (
                isinstance(content, conversation.ToolResultContent)
                and content.tool_call_id not in answered
            ):
                results[content.tool_call_id] = dict(content.tool_result)
        return results

    async def _ha_deltas(
        self, deltas: AsyncIterator[Delta], answered: dict[str, ToolCallDelta]
    ) -> AsyncIterator[
        conversation.AssistantContentDeltaDict | conversation.ToolResultContentDeltaDict
    ]:
        async for delta in deltas:
            if isinstance(delta, StepStart):
                yield {"role": "assistant"}
            elif isinstance(delta, TextDelta):
                yield {"content": delta.text}
            elif isinstance(delta, ToolCallDelta):
                if delta.answer is not None:
                    answered[delta.call.id] = delta
                yield {
                    "tool_calls": [
                        llm.ToolInput(
                            tool_name=self._names.full(delta.call.name),
                            tool_args=delta.call.arguments,
                            id=delta.call.id,
                            external=delta.answer is not None,
                        )
                    ]
                }
        for delta in answered.values():
            assert delta.answer is not None
            yield {
                "role": "tool_result",
                "tool_call_id": delta.call.id,
                "tool_name": delta.call.name,
                "tool_result": delta.answer,
            }


class JarvisLLMEntity(Entity):
    """Base of Jarvis's agent entities: one per agent subentry."""

    _attr_has_entity_name = True
    _attr_name = None

    def __init__(self, entry: JarvisConfigEntry, subentry: ConfigSubentry) -> None:
        """Describe the agent as a service device."""
        self.entry = entry
        self.subentry = subentry
        self._attr_unique_id = subentry.subentry_id
        self._attr_device_info = dr.DeviceInfo(
            identifiers={(DOMAIN, subentry.subentry_id)},
            name=subentry.title,
            manufacturer="Jarvis",
            model=subentry.data[CONF_MODEL],
            entry_type=dr.DeviceEntryType.SERVICE,
        )
        # Planner, router and memory results of this agent's conversations.
        self._caches = ConversationCaches()
        # The last warm-up request the server answered.
        self._warmed: str | None = None

    @property
    def llm_apis(self) -> list[str]:
        """The Home Assistant LLM APIs this agent may use."""
        apis: Any = self.subentry.data.get(CONF_LLM_HASS_API) or []
        return [apis] if isinstance(apis, str) else list(apis)

    def feature(self, key: str) -> bool:
        """Whether a reply-engine feature is on for this agent."""
        return bool(self.subentry.data.get(key, ENGINE_FEATURE_DEFAULTS[key]))

    @property
    def prefers_local(self) -> bool:
        """Fast path: plain commands HA's intent matcher knows skip the LLM."""
        return bool(self.llm_apis) and self.feature(CONF_PREFER_LOCAL)

    def loop_settings(self) -> LoopSettings:
        """The engine settings for this agent."""
        data = self.subentry.data
        is_ollama = self.entry.data[CONF_BACKEND] == "ollama"
        return LoopSettings(
            model=data[CONF_MODEL],
            max_turns=int(data.get(CONF_MAX_TURNS, DEFAULT_MAX_TURNS)),
            sampling=Sampling(
                temperature=data.get(CONF_TEMPERATURE),
                top_p=data.get(CONF_TOP_P),
                max_tokens=int(data.get(CONF_MAX_TOKENS, DEFAULT_MAX_TOKENS)),
            ),
            num_ctx=int(data[CONF_NUM_CTX])
            if is_ollama and CONF_NUM_CTX in data
            else None,
            keep_alive=int(data[CONF_KEEP_ALIVE])
            if is_ollama and CONF_KEEP_ALIVE in data
            else None,
            think=bool(data.get(CONF_THINK)) if is_ollama else None,
            tool_router=self.feature(CONF_TOOL_ROUTER),
            planner=self.feature(CONF_PLANNER),
            context_size=int(data.get(CONF_NUM_CTX, DEFAULT_NUM_CTX)),
            turn_deadline=float(data.get(CONF_TURN_DEADLINE, DEFAULT_TURN_DEADLINE)),
        )

    def _reply_loop(self, cache: ConversationCache | None = None) -> ReplyLoop:
        """The reply loop of this agent, on its entry's client."""
        runtime = self.entry.runtime_data
        return ReplyLoop(
            runtime.client,
            self.loop_settings(),
            runtime.protocols,
            async_get_memory(self.hass) if self.feature(CONF_MEMORY) else None,
            runtime.tokens,
            cache=cache,
        )

    async def async_warm_up(self, prompt: str | None) -> None:
        """Have the LLM server read this agent's prompt prefix now, as a
        conversation without a satellite starts it (see `ReplyLoop.warm_up`).

        A chat log of its own, never stored, gives Home Assistant's system
        prompt exactly as a conversation gets it.
        """
        chat_log = conversation.ChatLog(self.hass, f"{DOMAIN}-warm-up")
        llm_context = llm.LLMContext(
            platform=DOMAIN,
            context=Context(),
            language=self.hass.config.language,
            assistant=ASSISTANT,
            device_id=None,
        )
        try:
            await chat_log.async_provide_llm_data(
                llm_context, home_api(self.hass, self.llm_apis), prompt, None
            )
        except conversation.ConverseError:
            return  # a turn reports it to the user
        # As a turn's tools are: a guard may show the model its own schema.
        await load_service_features(self.hass)
        guard_assist_tools(
            self.hass,
            chat_log.llm_api,
            repair=self.feature(CONF_TARGET_REPAIR),
            request="",
        )
        names = ToolNames(chat_log.llm_api)
        system_prompt, _ = history_from_chat_log(chat_log, names)
        system_prompt, _ = split_prompt(self.hass, chat_log, system_prompt)
        loop = self._reply_loop()
        request = loop.warm_up_request(
            system_prompt=system_prompt,
            tools=tool_specs(self.hass, chat_log.llm_api, names),
            # What a turn's context starts with; the time comes after it.
            context=device_context(self.hass, llm_context),
        )
        # Registry updates that change nothing in the prompt send nothing.
        if (key := repr(request)) == self._warmed:
            return
        try:
            usage = await loop.warm_up(request)
        except LLMError as err:
            LOGGER.debug("Warm-up of %s failed: %s", self.entity_id, err)
            return
        self._warmed = key
        LOGGER.debug("Warm-up of %s: %s", self.entity_id, usage)

    async def _async_handle_chat_log(
        self,
        chat_log: conversation.ChatLog,
        language: str | None,
        user: str | None,
        look_first: Sequence[LookUp] | None = None,
        house: HouseView | None = None,
    ) -> TurnResult:
        """Answer the chat log's last user message through the reply loop."""
        runtime = self.entry.runtime_data
        names = ToolNames(chat_log.llm_api)
        system_prompt, history = history_from_chat_log(chat_log, names)
        system_prompt, context = split_prompt(self.hass, chat_log, system_prompt)
        loop = self._reply_loop(self._caches.get(chat_log.conversation_id))
        result = await loop.run(
            system_prompt=system_prompt,
            history=history,
            tools=tool_specs(self.hass, chat_log.llm_api, names),
            host=ChatLogHost(chat_log, self.entity_id, names),
            language=language,
            user=user or HOUSEHOLD,
            look_first=look_first,
            context=context,
            house=house,
        )
        runtime.telemetry.async_record_loop(self.subentry, chat_log, result)
        return result
