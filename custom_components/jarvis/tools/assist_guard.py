"""Home Assistant's intents under the same confirmation rule as Jarvis's tools.

Two paths reach HA's intents without going through `call_service`: the fast
path, where HA's own matcher runs a plain command, and the Assist API's
intent tools the model calls. Both resolve an intent's targets the way HA's
service intent handlers do and check every service the intent would call
with `sensitive_kind`: an intent that would unlock, disarm or open a guarded
kind goes to the model (fast path) or waits for the user's yes (tools).
An intent tool's result also says what it did, in the user's language, for
the reply loop to speak (`phrases.DidPhrase`).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Any

from hassil.recognize import RecognizeResult
from homeassistant.components.conversation import DOMAIN as CONVERSATION_DOMAIN
from homeassistant.core import Context, HomeAssistant, State, callback
from homeassistant.helpers import entity_registry as er, intent, llm
from homeassistant.util.json import JsonObjectType
import voluptuous as vol

from ..const import DOMAIN, SENSITIVE_KINDS
from ..engine.phrases import DID, DID_FIELD, TO_DO, DidPhrase, actions
from ..engine.planner import folded_words
from .api import DATA_TOOLS, JarvisTools
from .builtin import ConfirmActionTool, WrappingTool, replace_tools
from .safety import deeds, sensitive_kind
from .targets import Answer, intent_constraints, repair_targets

type Slots = dict[str, Any]


def service_intent_handler(
    hass: HomeAssistant, intent_type: str
) -> intent.DynamicServiceIntentHandler | None:
    """The handler of an intent that acts on entities by name, area or floor."""
    handler = next(
        (h for h in intent.async_get(hass) if h.intent_type == intent_type), None
    )
    return handler if isinstance(handler, intent.DynamicServiceIntentHandler) else None


def sensitive_targets(
    hass: HomeAssistant,
    intent_type: str,
    slots: Slots,
    *,
    assistant: str | None,
    language: str,
    kinds: Collection[str],
) -> list[tuple[State, str]]:
    """The entities the intent would unlock, disarm or open, with the service."""
    reached = intent_targets(
        hass, intent_type, slots, assistant=assistant, language=language
    )
    return _sensitive(hass, reached, kinds)


def _sensitive(
    hass: HomeAssistant, reached: Iterable[tuple[State, str]], kinds: Collection[str]
) -> list[tuple[State, str]]:
    return [
        (state, service)
        for state, service in reached
        if sensitive_kind(hass, service, state.entity_id) in kinds
    ]


def intent_targets(
    hass: HomeAssistant,
    intent_type: str,
    slots: Slots,
    *,
    assistant: str | None,
    language: str,
) -> list[tuple[State, str]]:
    """The entities a service intent would act on, with the service for each."""
    if (handler := service_intent_handler(hass, intent_type)) is None:
        return []
    try:
        slots = handler.async_validate_slots(slots)
    except vol.Invalid:
        return []  # the handler refuses these slots too: nothing would run
    constraints = intent_constraints(handler, slots, assistant)
    if not constraints.has_constraints:
        return []  # HA refuses to target the whole house
    intent_obj = intent.Intent(
        hass,
        platform=DOMAIN,
        intent_type=intent_type,
        slots=slots,
        text_input=None,
        context=Context(),
        language=language,
        assistant=assistant,
    )
    found: list[tuple[State, str]] = []
    for state in intent.async_match_targets(hass, constraints).states:
        try:
            _, service = handler.get_domain_and_service(intent_obj, state)
        except intent.IntentError:
            continue  # the handler would refuse this entity
        found.append((state, service))
    return found


def _guarded_kinds(hass: HomeAssistant) -> frozenset[str]:
    """The kinds the loaded entries' safety options guard."""
    if (hub := hass.data.get(DATA_TOOLS)) is None:
        return frozenset(SENSITIVE_KINDS)
    return hub.settings().sensitive


@callback
def is_sensitive_intent(hass: HomeAssistant, result: RecognizeResult) -> bool:
    """Whether HA's matcher would run an action that needs the user's yes first."""
    # The slots HA's default agent passes to the intent handler.
    slots = {
        entity.name: {"value": entity.value, "text": entity.text or entity.value}
        for entity in result.entities_list
    }
    return bool(
        sensitive_targets(
            hass,
            result.intent.name,
            slots,
            assistant=CONVERSATION_DOMAIN,
            language=hass.config.language,
            kinds=_guarded_kinds(hass),
        )
    )


# Intents whose every service call Jarvis can say, whatever slots came along.
_ON_OFF_INTENTS = frozenset({intent.INTENT_TURN_ON, intent.INTENT_TURN_OFF})


class GuardedIntentTool(WrappingTool):
    """An Assist intent tool whose unlocking, disarming or opening waits for a
    yes, and whose targets are put right first if `repair` (see `targets`)."""

    def __init__(
        self, hub: JarvisTools, tool: llm.Tool, intent_type: str, *, repair: bool
    ) -> None:
        """Wrap the intent tool."""
        super().__init__(hub, tool)
        self.intent_type = intent_type
        self.repair = repair

    async def async_call(
        self,
        hass: HomeAssistant,
        tool_input: llm.ToolInput,
        llm_context: llm.LLMContext,
    ) -> JsonObjectType:
        """Run the intent now, or hold it when it would act sensitively."""
        # As the intent tool builds them; HA 2026.11 drops blank values, and
        # so must the check, or a blank name would hide the targets.
        slots = {
            key: {"value": value}
            for key, value in tool_input.tool_args.items()
            if not _blank(value)
        }
        language = llm_context.language or hass.config.language
        handler = service_intent_handler(hass, self.intent_type)
        if self.repair and handler is not None:
            repaired = repair_targets(
                hass,
                handler,
                slots,
                assistant=llm_context.assistant,
                language=language,
            )
            if isinstance(repaired, Answer):
                return repaired.result
            slots = repaired
            tool_input = llm.ToolInput(
                tool_input.tool_name,
                {key: slot["value"] for key, slot in slots.items()},
                tool_input.id,
                tool_input.external,
            )
        reached = intent_targets(
            hass,
            self.intent_type,
            slots,
            assistant=llm_context.assistant,
            language=language,
        )
        targets = _sensitive(hass, reached, self.hub.settings().sensitive)

        async def run() -> JsonObjectType:
            return await self.wrapped.async_call(hass, tool_input, llm_context)

        if not targets:
            result = await run()
            if self.intent_type not in _ON_OFF_INTENTS:
                return result  # "turned on" is not what setting a brightness did
            return _with_did_phrase(hass, result, reached, language)
        # What HA's generic intents do to the targets, said the way people say it.
        acts = deeds(
            hass,
            [(state.entity_id, service) for state, service in targets],
            slots.get("position", {}).get("value"),
        )
        return self.hub.safety.hold(
            llm_context,
            actions(acts, TO_DO, "en"),
            _names(hass, targets, slots),
            run,
            acts,
        )


class TimerGuardTool(WrappingTool):
    """`HassStartTimer`, refusing a delayed command that is the request itself.

    When the timer ends, HA sends its command to the agent as a new request:
    1.5B answered "start my car" with a timer running "start my car", which
    would start the next timer, and so on without end.
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
        """Start the timer, unless its command would come back as this request."""
        command = tool_input.tool_args.get("conversation_command")
        if isinstance(command, str) and folded_words(command) == folded_words(
            self.request
        ):
            return {
                "error": "repeats_request",
                "error_text": "conversation_command runs later as a new request; "
                "this one is the request itself and would start the same timer "
                "again. Nothing was started. Use it only for a command the user "
                "asked to have done later.",
            }
        return await self.wrapped.async_call(hass, tool_input, llm_context)


@callback
def guard_assist_tools(
    hass: HomeAssistant,
    llm_api: llm.APIInstance | None,
    *,
    repair: bool,
    request: str,
) -> None:
    """Wrap the API instance's service intent tools (in place) in the guard,
    and its timer tool in `TimerGuardTool` for this request."""
    if llm_api is None or (hub := hass.data.get(DATA_TOOLS)) is None:
        return
    service_intents = {
        handler.intent_type
        for handler in intent.async_get(hass)
        if isinstance(handler, intent.DynamicServiceIntentHandler)
    }
    guarded = confirmable = False

    def guard(tool: llm.Tool) -> llm.Tool | None:
        nonlocal guarded, confirmable
        confirmable = confirmable or isinstance(tool, ConfirmActionTool)
        if not isinstance(tool, llm.IntentTool):
            return None
        # HA 2026.11 names intent tools apart from their intent type.
        intent_type = str(getattr(tool, "intent_type", tool.name))
        if intent_type == intent.INTENT_START_TIMER:
            return TimerGuardTool(hub, tool, request)
        if intent_type not in service_intents:
            return None
        guarded = True
        return GuardedIntentTool(hub, tool, intent_type, repair=repair)

    replace_tools(llm_api, guard)
    # Without the `jarvis` API there is no confirm_action: offer it while an
    # action waits, so the user's yes can run it.
    if guarded and not confirmable and hub.safety.has_pending(llm_api.llm_context):
        llm_api.tools.append(ConfirmActionTool(hub))


def _with_did_phrase(
    hass: HomeAssistant,
    result: JsonObjectType,
    reached: Iterable[tuple[State, str]],
    language: str,
) -> JsonObjectType:
    """The result, with what it did in words if Jarvis can say that of every
    entity it acted on (the reply loop may then say it instead of the model)."""
    data = result.get("data")
    succeeded = data.get("success") if isinstance(data, dict) else None
    if result.get("response_type") != "action_done" or not isinstance(succeeded, list):
        return result
    services = {state.entity_id: service for state, service in reached}
    calls = [
        (entity_id, services.get(entity_id, ""))
        for target in succeeded
        if isinstance(target, dict)
        and target.get("type") == "entity"
        and isinstance(entity_id := target.get("id"), str)
    ]
    if calls and (acts := deeds(hass, calls)):
        return result | {DID_FIELD: DidPhrase(actions(acts, DID, language))}
    return result


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def _names(
    hass: HomeAssistant, targets: Iterable[tuple[State, str]], slots: Slots
) -> list[str]:
    """What the user would call the targets: the question must name one."""
    registry = er.async_get(hass)
    names = [
        str(slots[key]["value"]) for key in ("name", "area", "floor") if key in slots
    ]
    for state, _ in targets:
        names += [state.name, state.object_id.replace("_", " ")]
        if entry := registry.async_get(state.entity_id):
            names.extend(alias for alias in entry.aliases if alias)
    return names
