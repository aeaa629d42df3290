"""Jarvis's conversation agents."""

from __future__ import annotations

from dataclasses import replace
from functools import partial
import time
from typing import Any, Literal

from hassil.recognize import RecognizeResult
from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import (
    async_listen_entity_updates,
)
from homeassistant.components.todo.intent import INTENT_LIST_ADD_ITEM
from homeassistant.config_entries import ConfigSubentry
from homeassistant.const import ATTR_ENTITY_ID, MATCH_ALL
from homeassistant.core import Event, HomeAssistant, callback
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import (
    area_registry as ar,
    entity_registry as er,
    floor_registry as fr,
    intent,
    llm,
)
from homeassistant.helpers.debounce import Debouncer
from homeassistant.helpers.entity_platform import AddConfigEntryEntitiesCallback
from homeassistant.helpers.start import async_at_started
from homeassistant.util.json import JsonObjectType

from . import JarvisConfigEntry
from .const import (
    ASSISTANT,
    CONF_GROUNDED_REPLIES,
    CONF_LOOK_FIRST,
    CONF_PROMPT,
    CONF_TARGET_REPAIR,
    DOMAIN,
    LOGGER,
    SUBENTRY_CONVERSATION,
    TOOL_CONFIRM_ACTION,
)
from .engine.loop import ToolCallRecord, TurnResult
from .engine.persona import persona_name, with_name
from .engine.phrases import DID, FINAL_REPLY, Deed, actions, did_reply, done
from .engine.redact import user_said
from .engine.results import failed
from .engine.router import command_parts
from .entity import JarvisLLMEntity
from .safety.effects import Call
from .safety.holds import run_calls
from .tools.assist_guard import (
    MatchedCommand,
    guard_assist_tools,
    needs_llm,
    understood,
)
from .tools.deeds import describe
from .tools.ha_replies import ha_reply
from .tools.home import home_api, house_view, live_lookup
from .tools.hub import CURRENT_ENTRY, DATA_TOOLS, JarvisTools
from .tools.intent_reach import Target, target_deeds
from .tools.loose_match import loose_command
from .tools.referents import referred_command
from .tools.service_features import load_service_features
from .tools.todo_lists import list_add
from .wake_word import async_wake_phrase

# Agents answer concurrently; the LLM server queues what it cannot run at once.
PARALLEL_UPDATES = 0
# Seconds the home must stay unchanged before the prompt cache is warmed again.
WARM_UP_COOLDOWN = 30.0


async def async_setup_entry(
    hass: HomeAssistant,
    entry: JarvisConfigEntry,
    async_add_entities: AddConfigEntryEntitiesCallback,
) -> None:
    """One conversation entity per agent subentry."""
    for subentry in entry.subentries.values():
        if subentry.subentry_type == SUBENTRY_CONVERSATION:
            async_add_entities(
                [JarvisConversationEntity(entry, subentry)],
                config_subentry_id=subentry.subentry_id,
            )


class JarvisConversationEntity(
    conversation.ConversationEntity,
    JarvisLLMEntity,
):
    """A Jarvis agent in Home Assistant's Assist pipeline."""

    _attr_supports_streaming = True

    def __init__(self, entry: JarvisConfigEntry, subentry: ConfigSubentry) -> None:
        """Agents with Home Assistant APIs can control the home."""
        super().__init__(entry, subentry)
        if self.llm_apis:
            self._attr_supported_features = (
                conversation.ConversationEntityFeature.CONTROL
            )

    async def async_added_to_hass(self) -> None:
        """Warm the LLM server's prompt cache once Home Assistant has started,
        and again after the home changes (its devices, areas, floors, what is
        exposed), so that the first command is fast too."""
        await super().async_added_to_hass()
        if not self.llm_apis:
            return
        debouncer = Debouncer(
            self.hass,
            LOGGER,
            cooldown=WARM_UP_COOLDOWN,
            immediate=False,
            function=self._schedule_warm_up,
        )
        self.async_on_remove(debouncer.async_shutdown)

        @callback
        def home_changed(_event: Event[Any] | None = None) -> None:
            debouncer.async_schedule_call()

        for event in (
            er.EVENT_ENTITY_REGISTRY_UPDATED,
            ar.EVENT_AREA_REGISTRY_UPDATED,
            fr.EVENT_FLOOR_REGISTRY_UPDATED,
        ):
            self.async_on_remove(self.hass.bus.async_listen(event, home_changed))
        self.async_on_remove(
            async_listen_entity_updates(self.hass, ASSISTANT, home_changed)
        )
        self.async_on_remove(async_at_started(self.hass, self._async_started))

    @callback
    def _async_started(self, _hass: HomeAssistant) -> None:
        self._schedule_warm_up()

    @callback
    def _schedule_warm_up(self) -> None:
        """Warm up in a task of the entry's, which its unloading cancels: a
        warm-up that outlived a reload read the unloaded entry's data."""
        self.entry.async_create_background_task(
            self.hass,
            self.async_warm_up(self._prompt(None)),
            f"{self.entity_id} warm-up",
        )

    def _prompt(self, wake_phrase: str | None) -> str | None:
        """The agent's instructions, answering to the name it was woken with."""
        prompt: str | None = self.subentry.data.get(CONF_PROMPT)
        if prompt is None:
            return None
        return with_name(prompt, persona_name(wake_phrase))

    @property
    def supported_languages(self) -> list[str] | Literal["*"]:
        """The model decides which languages it speaks."""
        return MATCH_ALL

    async def async_process(
        self, user_input: conversation.ConversationInput
    ) -> conversation.ConversationResult:
        """Answer with the numbers the user said that would be secrets in a
        remembered fact kept out of the turn's logs and records: Home
        Assistant's chat log logs the request before `_async_handle_message`."""
        with user_said(user_input.text):
            return await super().async_process(user_input)

    async def _async_handle_message(
        self,
        user_input: conversation.ConversationInput,
        chat_log: conversation.ChatLog,
    ) -> conversation.ConversationResult:
        """Answer with this agent's entry's tool options and MCP servers."""
        # The prompt, logged each turn, holds the conversation's earlier requests.
        said = "\n".join(
            content.content
            for content in chat_log.content
            if isinstance(content, conversation.UserContent)
        )
        token = CURRENT_ENTRY.set(self.entry)
        try:
            with user_said(said):
                return await self._async_answer(user_input, chat_log)
        finally:
            CURRENT_ENTRY.reset(token)

    async def _async_answer(
        self,
        user_input: conversation.ConversationInput,
        chat_log: conversation.ChatLog,
    ) -> conversation.ConversationResult:
        """Answer a yes or no to a held action, or locally when HA's own
        intents match, else run the reply loop."""
        started = time.monotonic()
        # Once a turn, before any path resolves targets (`supports`).
        await load_service_features(self.hass)
        if confirmed := await self._async_answer_confirmation(
            user_input, chat_log, started
        ):
            return confirmed
        kept: list[tuple[RecognizeResult, MatchedCommand]] = []
        # Before the strict match: HA's matcher would not try the fuzzy one
        # after it.
        loose = (
            await loose_command(self.hass, user_input) if self.prefers_local else None
        )
        if self.prefers_local and (
            local := await conversation.async_handle_intents(
                self.hass,
                user_input,
                chat_log,
                intent_filter=partial(
                    needs_llm, self.hass, kept, user_input.text, user_input.language
                ),
            )
        ):
            return self._async_local_result(chat_log, local, started)
        for command in (kept[0][1] if kept else None, loose):
            if command and (
                mine := await self._async_run_match(
                    user_input, chat_log, command, started
                )
            ):
                return mine
        if self.prefers_local and (
            joined := await self._async_run_parts(user_input, chat_log)
        ):
            return self._async_local_result(chat_log, joined, started)
        if self.prefers_local and (
            added := await self._async_run_list_add(user_input, chat_log, started)
        ):
            return added
        if self.feature(CONF_TARGET_REPAIR) and (
            referred := await self._async_run_referred(user_input, chat_log, started)
        ):
            return referred
        try:
            await chat_log.async_provide_llm_data(
                user_input.as_llm_context(DOMAIN),
                home_api(self.hass, self.llm_apis),
                self._prompt(async_wake_phrase(self.hass, user_input)),
                user_input.extra_system_prompt,
            )
        except conversation.ConverseError as err:
            return err.as_conversation_result()
        guard_assist_tools(
            self.hass,
            chat_log.llm_api,
            repair=self.feature(CONF_TARGET_REPAIR),
            request=user_input.text,
        )

        look_first = house = None
        if chat_log.llm_api is not None:
            if self.feature(CONF_LOOK_FIRST):
                look_first = live_lookup(
                    self.hass, user_input.text, ASSISTANT, user_input.language
                )
            if self.feature(CONF_GROUNDED_REPLIES):
                house = house_view(self.hass, ASSISTANT)
        result = await self._async_handle_chat_log(
            chat_log,
            user_input.language,
            user_input.context.user_id,
            look_first,
            house,
        )
        if result.without_tools and result.llm_calls:
            # The server now caches a prompt without tools; the next command's
            # would read its tool lines again (441 tokens, 6 s on 2 cores).
            self._warmed = None
            self._schedule_warm_up()
        return conversation.async_get_result_from_chat_log(user_input, chat_log)

    @callback
    def _async_local_result(
        self,
        chat_log: conversation.ChatLog,
        local: intent.IntentResponse,
        started: float,
    ) -> conversation.ConversationResult:
        """A reply of HA's intents, kept in the chat log so that a follow-up
        that needs the LLM sees it."""
        speech = ha_reply(self.hass, local)
        local.async_set_speech(speech)
        chat_log.async_add_assistant_content_without_tools(
            conversation.AssistantContent(agent_id=self.entity_id, content=speech)
        )
        self.entry.runtime_data.telemetry.async_record_fast_path(
            self.subentry, chat_log, local, time.monotonic() - started
        )
        return conversation.ConversationResult(
            response=local,
            conversation_id=chat_log.conversation_id,
            continue_conversation=chat_log.continue_conversation,
        )

    async def _async_run_parts(
        self,
        user_input: conversation.ConversationInput,
        chat_log: conversation.ChatLog,
    ) -> intent.IntentResponse | None:
        """A request that joins commands HA's matcher each understands
        ("close the blinds and then turn on the spotlights"): run in order,
        with no LLM call, each by HA or, where HA would act on more than the
        part names, on what it names; the pieces that must wait for a yes
        are held together and asked about last. All or none: when one piece
        is not such a command, nothing runs here and the model gets it."""
        parts = command_parts(user_input.text, user_input.language)
        if len(parts) < 2:
            return None
        plans: list[
            tuple[conversation.ConversationInput, MatchedCommand | Literal[False]]
        ] = []
        for part in [replace(user_input, text=part) for part in parts]:
            if (plan := await understood(self.hass, part, chat_log)) is None:
                return None
            plans.append((part, plan))
        question = ""
        if held := [
            t for _, kept in plans if kept and kept.sensitive for t in kept.targets
        ]:
            if (hub := self.hass.data.get(DATA_TOOLS)) is None:
                return None
            question = self._hold(hub, user_input, held)
        speeches = []
        for part, kept in plans:
            speech = ""
            if kept and kept.sensitive:
                continue
            if kept:
                speech = await self._async_run_targets(part, chat_log, kept) or ""
            elif local := await conversation.async_handle_intents(
                self.hass,
                part,
                chat_log,
                intent_filter=partial(
                    needs_llm, self.hass, [], part.text, part.language
                ),
            ):
                speech = ha_reply(self.hass, local).strip()
            if speech:
                # HA's replies have no full stop ("Turned on the light"), and
                # some no capital ("geschlossen").
                speech = speech[0].upper() + speech[1:]
                speeches.append(speech if speech[-1] in ".!?" else f"{speech}.")
        if question:
            speeches.append(question)
        response = intent.IntentResponse(language=user_input.language)
        response.async_set_speech(" ".join(speeches))
        return response

    async def _async_run_targets(
        self,
        user_input: conversation.ConversationInput,
        chat_log: conversation.ChatLog,
        command: MatchedCommand,
    ) -> str | None:
        """Run a matched command's calls on its targets; what Jarvis says it
        did, or None where HA refused them."""
        try:
            result = await run_calls(
                self.hass, [t.call for t in command.targets], user_input.context
            )
        except HomeAssistantError:
            return None
        if command.intent is not None:
            intent_type, slots = command.intent
            args = {name: slot["value"] for name, slot in slots.items()}
            self._async_record_call(chat_log, intent_type, args, result)
        return done(target_deeds(self.hass, command.targets), user_input.language)

    async def _async_run_list_add(
        self,
        user_input: conversation.ConversationInput,
        chat_log: conversation.ChatLog,
        started: float,
    ) -> conversation.ConversationResult | None:
        """An item put on a to-do list the request names in full, inflected
        too (`todo_lists.list_add`), with no LLM call."""
        language = user_input.language
        if (found := list_add(self.hass, user_input.text, language, ASSISTANT)) is None:
            return None
        todo, item = found
        call = Call("todo", "add_item", {ATTR_ENTITY_ID: todo.entity_id, "item": item})
        try:
            result = await run_calls(self.hass, [call], user_input.context)
        except HomeAssistantError:
            return None  # the model may still find a way
        self._async_record_call(
            chat_log, INTENT_LIST_ADD_ITEM, {"name": todo.name, "item": item}, result
        )
        added = Deed("add", (todo.name,), item=item)
        text = did_reply([actions([added], DID, language)], language)
        return self._async_reply(user_input, chat_log, TurnResult(text=text), started)

    async def _async_run_referred(
        self,
        user_input: conversation.ConversationInput,
        chat_log: conversation.ChatLog,
        started: float,
    ) -> conversation.ConversationResult | None:
        """A command that names no device, run on what the last turn was
        about, or the question which device it means (`referents`)."""
        referred = referred_command(
            self.hass,
            chat_log,
            user_input.text,
            language=user_input.language,
            assistant=ASSISTANT,
        )
        if isinstance(referred, str):
            return self._async_reply(
                user_input,
                chat_log,
                TurnResult(text=referred, ended="final_reply"),
                started,
            )
        if referred is None:
            return None
        return await self._async_run_match(user_input, chat_log, referred, started)

    async def _async_run_match(
        self,
        user_input: conversation.ConversationInput,
        chat_log: conversation.ChatLog,
        command: MatchedCommand,
        started: float,
    ) -> conversation.ConversationResult | None:
        """What HA's matcher resolved but must not or cannot run itself, with
        no LLM call: a sensitive command is held and asked about (after the
        yes exactly those calls run); one HA would refuse for a shared name
        runs on the targets its sentence names, and Jarvis says what it did."""
        if (hub := self.hass.data.get(DATA_TOOLS)) is None or not command.targets:
            return None
        if not command.sensitive:
            if (
                reply := await self._async_run_targets(user_input, chat_log, command)
            ) is None:
                return None  # the model may still find a way
            return self._async_reply(
                user_input, chat_log, TurnResult(text=reply), started
            )
        return self._async_reply(
            user_input,
            chat_log,
            TurnResult(
                text=self._hold(hub, user_input, command.targets),
                ended="confirmation",
            ),
            started,
        )

    @callback
    def _hold(
        self,
        hub: JarvisTools,
        user_input: conversation.ConversationInput,
        targets: list[Target],
    ) -> str:
        """Hold the targets' calls for the user's yes: the question to ask."""
        calls = [target.call for target in targets]
        acts = target_deeds(self.hass, targets)

        async def run() -> JsonObjectType:
            return await run_calls(self.hass, calls, user_input.context)

        held = hub.safety.hold(
            user_input.as_llm_context(DOMAIN),
            describe(acts, calls),
            run,
            calls=calls,
            touched=[target.state.entity_id for target in targets],
            deeds=acts,
        )
        return str(held[FINAL_REPLY])

    @callback
    def _async_reply(
        self,
        user_input: conversation.ConversationInput,
        chat_log: conversation.ChatLog,
        turn: TurnResult,
        started: float,
        *,
        failed_result: bool = False,
    ) -> conversation.ConversationResult:
        """Jarvis's own reply, with no LLM call: kept in the chat log and the
        trace; a question keeps the satellite listening."""
        chat_log.async_add_assistant_content_without_tools(
            conversation.AssistantContent(self.entity_id, turn.text)
        )
        turn.duration = time.monotonic() - started
        self.entry.runtime_data.telemetry.async_record_loop(
            self.subentry, chat_log, turn
        )
        response = intent.IntentResponse(language=user_input.language)
        response.async_set_speech(turn.text)
        if failed_result:
            response.async_set_error(
                intent.IntentResponseErrorCode.FAILED_TO_HANDLE, turn.text
            )
        return conversation.ConversationResult(
            response=response,
            conversation_id=chat_log.conversation_id,
            continue_conversation=chat_log.continue_conversation,
        )

    @callback
    def _async_record_call(
        self,
        chat_log: conversation.ChatLog,
        tool_name: str,
        args: dict[str, Any],
        result: JsonObjectType,
    ) -> None:
        """A call Jarvis made itself, kept in the chat log and the trace the
        way HA's own matcher keeps the intents it runs: a follow-up ("and the
        kitchen too") reads the last turn's action there."""
        call = llm.ToolInput(tool_name, args, external=True)
        conversation.async_conversation_trace_append(
            conversation.ConversationTraceEventType.TOOL_CALL,
            {"tool_name": call.tool_name, "tool_args": call.tool_args},
        )
        chat_log.async_add_assistant_content_without_tools(
            conversation.AssistantContent(self.entity_id, tool_calls=[call])
        )
        chat_log.async_add_assistant_content_without_tools(
            conversation.ToolResultContent(self.entity_id, call.id, tool_name, result)
        )

    async def _async_answer_confirmation(
        self,
        user_input: conversation.ConversationInput,
        chat_log: conversation.ChatLog,
        started: float,
    ) -> conversation.ConversationResult | None:
        """A plain yes or no to Jarvis's question about a held action, answered
        without the LLM (see `Safety.async_answer`); kept in the chat log and
        the trace like a confirm_action call."""
        if (hub := self.hass.data.get(DATA_TOOLS)) is None or (
            answer := await hub.safety.async_answer(
                user_input.as_llm_context(DOMAIN), user_input.text
            )
        ) is None:
            return None
        turn = TurnResult(text=answer.reply, ended="confirmation")
        if answer.result is not None:
            self._async_record_call(chat_log, TOOL_CONFIRM_ACTION, {}, answer.result)
            turn.tool_calls.append(
                ToolCallRecord(
                    TOOL_CONFIRM_ACTION, {}, answer.result, answered_by_engine=False
                )
            )
        return self._async_reply(
            user_input,
            chat_log,
            turn,
            started,
            failed_result=answer.result is not None and failed(answer.result),
        )
