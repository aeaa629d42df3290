"""Home Assistant's intents under the same confirmation rule as Jarvis's tools.

Two paths reach HA's intents without going through `call_service`: the fast
path, where HA's own matcher runs a plain command, and the Assist API's
intent tools the model calls. Both resolve an intent's targets the way HA's
service intent handlers do (`intent_reach`), into the exact service calls the handler would
make, and put those to the safety policy: an intent that would unlock,
disarm or open a guarded kind is held for the user's yes, and after the yes
exactly those calls run.
An intent tool's result also says what it did, in the user's language, for
the reply loop to speak (`phrases.DidPhrase`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from hassil.recognize import RecognizeResult
from homeassistant.components.conversation import (
    DOMAIN as CONVERSATION_DOMAIN,
    HOME_ASSISTANT_AGENT,
    ChatLog,
    ConversationInput,
    async_handle_intents,
)
from homeassistant.components.conversation.agent_manager import get_agent_manager
from homeassistant.core import Context, HomeAssistant, callback
from homeassistant.helpers import intent, llm
from homeassistant.util.json import JsonObjectType

from ..const import SENSITIVE_KINDS
from ..engine.digest import in_own_words
from ..engine.phrases import (
    DID,
    DID_FIELD,
    Deed,
    DidPhrase,
    actions,
)
from ..engine.results import WRONG_STATE, WRONG_TOOL
from ..engine.text import folded_words, mentions
from ..safety.holds import first_request, run_calls, user_text
from ..safety.policy import assess
from .builtin import (
    FailSafeTool,
    WrappingTool,
    innermost,
    intent_type_of,
    model_names,
    replace_tools,
)
from .deeds import (
    cannot_result,
    describe,
    said_level,
    said_service,
    with_did_phrase,
)
from .hub import DATA_TOOLS, JarvisTools
from .intent_reach import (
    STEPPED_LEVELS,
    Reach,
    Target,
    intent_targets,
    service_intent_handler,
    target_deeds,
)
from .match_words import MatchInWordsTool, called_in_words, serving_words
from .matching import ENTITIES, Slots
from .meant import Answer, here_if_one, vague_target, which_open
from .outside import outside_content_tool
from .services import satellite_area
from .steps import colour_as_said, level_unsaid, stepped_as_said, unrequired
from .targets import named_instead, repair_targets
from .todo_lists import LIST_SERVICES, ListItemTool
from .turns import started_as_said, turned_as_said


def _guarded_kinds(hass: HomeAssistant) -> frozenset[str]:
    """The kinds the loaded entries' safety options guard."""
    if (hub := hass.data.get(DATA_TOOLS)) is None:
        return frozenset(SENSITIVE_KINDS)
    return hub.settings().sensitive


def matcher_slots(result: RecognizeResult) -> Slots:
    """The slots HA's default agent passes to the intent handler."""
    return {
        entity.name: {"value": entity.value, "text": entity.text or entity.value}
        for entity in result.entities_list
    }


@dataclass(frozen=True, slots=True)
class MatchedCommand:
    """What HA's matcher understood a command to do: the targets with their
    calls, whether any needs a yes, whether HA would refuse it for a name
    several entities share (so only Jarvis's calls can run it), and whether
    HA would act on more than the request names."""

    targets: list[Target]
    sensitive: bool
    shared: bool
    narrowed: bool
    # The intent and slots the command was said as, where one was: kept in
    # the chat log, so that "and the kitchen too" can repeat it.
    intent: tuple[str, Slots] | None = None


@callback
def matched_command(
    hass: HomeAssistant, result: RecognizeResult, request: str, language: str
) -> MatchedCommand:
    """What HA's matcher would run for a recognized command, of what the
    request names (`intent_targets`: HA's German sentences take "öffne den
    Vorhang im Esszimmer" as every cover there).

    A name several entities share is narrowed to the domain the matched
    sentence requires ("open <name>" is said of covers: the Garage Door
    Opener's cover, not its light); whether to ask is judged on them all.
    """
    slots = matcher_slots(result)
    reach = intent_targets(
        hass,
        result.intent.name,
        slots,
        assistant=CONVERSATION_DOMAIN,
        language=language,
        request=request,
    )
    sensitive = command_on(hass, reach.targets).sensitive
    targets = reach.targets
    if required := result.intent_data.requires_context.get("domain"):
        domains = {required} if isinstance(required, str) else set(required)
        targets = [t for t in targets if t.state.domain in domains] or targets
    return MatchedCommand(
        targets,
        sensitive,
        reach.shared,
        reach.narrowed,
        (result.intent.name, slots),
    )


@callback
def command_on(
    hass: HomeAssistant,
    targets: list[Target],
    intent_said: tuple[str, Slots] | None = None,
) -> MatchedCommand:
    """A command Jarvis resolved itself, asked about where a call needs a yes."""
    calls = [target.call for target in targets]
    sensitive = bool(assess(hass, calls, _guarded_kinds(hass)).sensitive)
    return MatchedCommand(
        targets, sensitive, shared=False, narrowed=False, intent=intent_said
    )


class GuardedIntentTool(WrappingTool):
    """An Assist intent tool whose unlocking, disarming or opening waits for a
    yes, and whose targets are put right first if `repair` (see `targets`)."""

    def __init__(
        self,
        hub: JarvisTools,
        tool: llm.Tool,
        intent_type: str,
        *,
        repair: bool,
        serving: Mapping[str, Sequence[str]],
    ) -> None:
        """Wrap the intent tool; `serving` names the offered tools that act on
        each domain, for a call that reaches only what this one cannot."""
        super().__init__(hub, tool)
        self.intent_type = intent_type
        self.repair = repair
        self.serving = serving
        if level := STEPPED_LEVELS.get(intent_type):
            self.parameters = unrequired(tool.parameters, level)

    async def async_call(
        self,
        hass: HomeAssistant,
        tool_input: llm.ToolInput,
        llm_context: llm.LLMContext,
    ) -> JsonObjectType:
        """Run the intent now, or hold it when it would act sensitively."""
        # As the intent tool builds them; HA 2026.11 drops blank values, and
        # so must the check, or a blank name would hide the targets. Jarvis's
        # own slot is Jarvis's to fill, never the model's.
        slots = {
            key: {"value": value}
            for key, value in tool_input.tool_args.items()
            if not _blank(value) and key != ENTITIES
        }
        language = llm_context.language or hass.config.language
        handler = service_intent_handler(hass, self.intent_type)
        request = user_text()
        if self.repair:
            slots = colour_as_said(slots, request, language)

        def reach_of(slots: Slots) -> Reach:
            return intent_targets(
                hass,
                self.intent_type,
                slots,
                assistant=llm_context.assistant,
                language=language,
                request=request,
            )

        if self.repair and handler is not None:
            repaired = repair_targets(
                hass,
                handler,
                slots,
                assistant=llm_context.assistant,
                language=language,
                request=request,
            )
            if isinstance(repaired, Answer):
                return repaired.result
            slots = repaired
        reach = reach_of(slots)
        if (
            self.repair
            and handler is not None
            and reach.refused
            and not reach.targets
            and (
                named := named_instead(
                    hass,
                    handler,
                    slots,
                    reach.refused,
                    assistant=llm_context.assistant,
                    request=request,
                    language=language,
                )
            )
        ):
            slots, reach = named, reach_of(named)
        if self.repair and handler is not None:
            for as_said in (turned_as_said, started_as_said):
                reach = as_said(
                    hass,
                    self.intent_type,
                    reach,
                    slots,
                    assistant=llm_context.assistant,
                    language=language,
                    request=request,
                )
            reach = stepped_as_said(
                hass, self.intent_type, reach, slots, llm_context, request
            )
        if reach.unable and not reach.targets:
            unable = ", ".join(sorted({t.state.name for t in reach.unable}))
            return cannot_result(
                target_deeds(hass, reach.unable), f"{unable} cannot do that.", language
            )
        if reach.refused and not reach.targets:
            return self._refused(reach, language)
        if (level := STEPPED_LEVELS.get(self.intent_type)) and any(
            target.by_ha and level not in target.call.data for target in reach.targets
        ):
            return level_unsaid(level)
        if self.repair and handler is not None:
            tool_input = llm.ToolInput(
                tool_input.tool_name,
                {key: slot["value"] for key, slot in slots.items()},
                tool_input.id,
                tool_input.external,
            )
        here = satellite_area(hass, llm_context)
        reached = reach.targets
        if self.repair and request:
            one = here_if_one(hass, [t.state for t in reached], request, language, here)
            reached = [target for target in reached if target.state in one]
        if (
            self.repair
            and request
            and (first_request() or which_open(language))
            # All a name fits, said of all of them: nothing to ask.
            and ENTITIES not in slots
            and (
                vague := vague_target(
                    hass,
                    [target.state for target in reached],
                    request,
                    language=language,
                    assistant=llm_context.assistant,
                    satellite_area=here,
                )
            )
        ):
            return vague.result
        calls = [target.call for target in reached]

        async def run() -> JsonObjectType:
            if reach.own:
                result = await run_calls(hass, calls, llm_context.context)
                if acts := target_deeds(hass, reached):
                    return result | {DID_FIELD: DidPhrase(actions(acts, DID, language))}
                return result
            result = await called_in_words(
                self, hass, tool_input, llm_context, repair=self.repair
            )
            return _with_did_phrase(hass, result, reached, language)

        # After a yes, exactly the calls HA's handler would have made run:
        # matching the name again could find several entities, or others.
        acts = target_deeds(hass, reached)
        return await self.hub.async_act(
            llm_context, describe(acts, calls), calls, run=run, deeds=acts
        )

    def _refused(self, reach: Reach, language: str) -> JsonObjectType:
        """Why nothing ran, and which tools act on what the call reached:
        HA's own error ("Failed to call turn_on for todo.tasks") left 0.5B
        repeating the call."""
        refused = sorted({state.name for state in reach.refused})
        names = ", ".join(refused)
        if reach.way_elsewhere:
            kinds = " and ".join(sorted({state.domain for state in reach.refused}))
            return cannot_result(
                [Deed(reach.way_elsewhere, tuple(refused))],
                f"{names} is a {kinds} entity, which cannot {reach.way_elsewhere}.",
                language,
            )
        if reach.acts_when:
            states = ", ".join(sorted({state.state for state in reach.refused}))
            return {
                "error": WRONG_STATE,
                "error_text": f"Nothing was done: {names} is {states}, and "
                f"{self.name} acts only on one that is "
                f"{' or '.join(reach.acts_when)}.",
            }
        domains = sorted({state.domain for state in reach.refused})
        instead = (
            serving_words(self.serving, domains, self.name)
            or "No tool changes it; it can only be read."
        )
        return {
            "error": WRONG_TOOL,
            "error_text": f"Nothing was done: {names} is a {' and '.join(domains)} "
            f"entity, which {self.name} cannot act on. {instead}",
        }


class TimerGuardTool(WrappingTool):
    """`HassStartTimer`, whose delayed command is the user's own and is judged
    now as it will run.

    When the timer ends, HA gives its command to its own agent (the intent
    tool names no other), which acts at once, in a conversation that never saw
    this turn's tool results: a command must be in the user's own words, and
    one that unlocks, or that a sentence trigger answers, waits for the user's
    yes like the action itself. A command that is the request itself is
    refused: 1.5B answered "start my car" with a timer running "start my car",
    which would start the next timer, and so on without end.
    """

    def __init__(self, hub: JarvisTools, tool: llm.Tool, request: str) -> None:
        """Wrap the timer tool for this request."""
        super().__init__(hub, tool)
        self.request = request

    async def async_call(
        self,
        hass: HomeAssistant,
        tool_input: llm.ToolInput,
        llm_context: llm.LLMContext,
    ) -> JsonObjectType:
        """Start the timer, unless its command would come back as this request
        or must wait for a yes."""
        command = tool_input.tool_args.get("conversation_command")

        async def run() -> JsonObjectType:
            return await self.wrapped.async_call(hass, tool_input, llm_context)

        if not isinstance(command, str) or not command.strip():
            return await run()
        if folded_words(command) == folded_words(self.request):
            return {
                "error": "repeats_request",
                "error_text": "conversation_command runs later as a new request; "
                "this one is the request itself and would start the same timer "
                "again. Nothing was started. Use it only for a command the user "
                "asked to have done later.",
            }
        if not in_own_words(command, self.request):
            return {
                "error": "not_said_by_user",
                "error_text": "Nothing was started: conversation_command must be "
                "a command in the user's own words of this request.",
            }
        targets, unresolved = await _command_effects(hass, command, llm_context)
        calls = [target.call for target in targets]
        return await self.hub.async_act(
            llm_context,
            f"start a timer that runs '{command}' when it ends",
            calls,
            run=run,
            after_yes=run,
            unresolved=unresolved,
        )


async def _command_effects(
    hass: HomeAssistant, command: str, llm_context: llm.LLMContext
) -> tuple[list[Target], list[str]]:
    """What HA's own agent will do with a command: the targets of the intent
    its matcher finds, and a sentence trigger as an effect it cannot see."""
    agent = get_agent_manager(hass).default_agent
    if agent is None:
        return [], [f"'{command}' (no default agent)"]
    language = llm_context.language or hass.config.language
    user_input = ConversationInput(
        text=command,
        context=llm_context.context or Context(),
        conversation_id=None,
        device_id=llm_context.device_id,
        satellite_id=None,
        language=language,
        agent_id=HOME_ASSISTANT_AGENT,
    )
    if await agent.async_recognize_sentence_trigger(user_input):
        return [], [f"'{command}' (sentence trigger)"]
    if (result := await agent.async_recognize_intent(user_input)) is None:
        return [], []  # HA's agent will not understand it either: nothing runs
    reach = intent_targets(
        hass,
        result.intent.name,
        matcher_slots(result),
        assistant=CONVERSATION_DOMAIN,
        language=language,
    )
    return reach.targets, []


@callback
def guard_assist_tools(
    hass: HomeAssistant,
    llm_api: llm.APIInstance | None,
    *,
    repair: bool,
    request: str,
) -> None:
    """Wrap the API instance's service intent tools (in place) in the guard,
    its timer tool in `TimerGuardTool` for this request, its other intent
    tools in `MatchInWordsTool` if `repair`, the tools that read
    calendars and to-do lists in the outside-content fence, and every tool in
    `FailSafeTool`."""
    if llm_api is None or (hub := hass.data.get(DATA_TOOLS)) is None:
        return
    handlers = list(intent.async_get(hass))
    service_intents = {
        handler.intent_type
        for handler in handlers
        if isinstance(handler, intent.DynamicServiceIntentHandler)
    }
    serving = _serving(handlers, llm_api.tools)
    kinds = intent_kinds(hass)

    def guard(tool: llm.Tool) -> llm.Tool | None:
        if (fenced := outside_content_tool(hub, tool)) is not None:
            return fenced
        if (intent_type := intent_type_of(tool)) is None:
            return None
        if service := LIST_SERVICES.get(intent_type):
            return ListItemTool(hub, tool, service, repair=repair)
        if intent_type == intent.INTENT_START_TIMER:
            return TimerGuardTool(hub, tool, request)
        if intent_type in service_intents:
            return GuardedIntentTool(
                hub, tool, intent_type, repair=repair, serving=serving
            )
        if not repair:
            return None
        return MatchInWordsTool(hub, tool, kinds.get(intent_type, frozenset()), serving)

    replace_tools(llm_api, guard)
    replace_tools(llm_api, lambda tool: FailSafeTool(hub, tool))


def _serving(
    handlers: Iterable[intent.IntentHandler], tools: Sequence[llm.Tool]
) -> dict[str, list[str]]:
    """The offered tools, by their names the model sees, that act on each
    domain: the intents made for it (HassListAddItem for `todo`)."""
    inner = (innermost(tool).name for tool in tools)
    seen = dict(zip(inner, model_names(tools), strict=True))
    serving: dict[str, list[str]] = {}
    for handler in handlers:
        if (name := seen.get(handler.intent_type)) is None:
            continue
        for domain in sorted(_kinds(handler)):
            serving.setdefault(domain, []).append(name)
    return serving


def _kinds(handler: intent.IntentHandler) -> frozenset[str]:
    """The domains an intent acts on."""
    required = getattr(handler, "required_domains", None) or ()
    return frozenset(required) | frozenset(handler.platforms or ())


@callback
def intent_kinds(hass: HomeAssistant) -> dict[str, frozenset[str]]:
    """The domains each intent acts on, by intent type."""
    return {handler.intent_type: _kinds(handler) for handler in intent.async_get(hass)}


def _with_did_phrase(
    hass: HomeAssistant,
    result: JsonObjectType,
    reached: Iterable[Target],
    language: str,
) -> JsonObjectType:
    """The result, with what it did in words (`with_did_phrase`), by the
    calls of the targets reached."""
    reached = list(reached)
    services = {t.state.entity_id: said_service(t.call) for t in reached}
    level = said_level(t.call for t in reached)
    return with_did_phrase(hass, result, language, services, level=level)


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


# Open-ended media search, and canned chit-chat ("Hello from Home Assistant.")
# that the persona should answer itself.
LEFT_TO_THE_MODEL = frozenset({"HassMediaSearchAndPlay", "HassRespond"})


async def understood(
    hass: HomeAssistant,
    user_input: ConversationInput,
    chat_log: ChatLog,
) -> MatchedCommand | Literal[False] | None:
    """How a command runs with no LLM call (nothing runs: the filter sees
    the match and declines it): False where HA's matcher runs it by itself,
    the command Jarvis runs where HA would act on more than it names or
    that waits for a yes, None where it needs the model."""
    matches: list[RecognizeResult] = []

    def look(result: RecognizeResult) -> bool:
        matches.append(result)
        return True

    await async_handle_intents(hass, user_input, chat_log, intent_filter=look)
    kept: list[tuple[RecognizeResult, MatchedCommand]] = []
    if not matches or not needs_llm(
        hass, kept, user_input.text, user_input.language, matches[0]
    ):
        return False if matches else None
    return kept[0][1] if kept else None


@callback
def needs_llm(
    hass: HomeAssistant,
    kept: list[tuple[RecognizeResult, MatchedCommand]],
    text: str,
    language: str,
    result: RecognizeResult,
) -> bool:
    """Matches better left to the model, and those Jarvis runs itself (kept
    in `kept`): actions that must wait for the user's yes (HA would run them
    at once), commands on a name a device's entities share (HA would refuse
    them) and those HA would run on more than the request names."""
    if result.intent.name in LEFT_TO_THE_MODEL:
        return True
    # A free-text slot that ends inside a word of the request: HA's Spanish
    # sentences took "regar las plantas a l" as the item of "añade regar las
    # plantas a la lista de la compra".
    if any(
        entity.is_wildcard and not mentions(text, [str(entity.text)])
        for entity in result.entities_list
    ):
        return True
    command = matched_command(hass, result, text, language)
    if not command.targets and service_intent_handler(hass, result.intent.name):
        # Names and areas HA's matcher knows, that together reach nothing
        # ("prende el árbol de Navidad en el garaje" matched as a scene).
        return True
    one_kind = len({target.state.domain for target in command.targets}) == 1
    if command.sensitive or command.narrowed or (command.shared and one_kind):
        kept.append((result, command))
        return True
    return False
