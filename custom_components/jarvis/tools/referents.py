"""Commands that name no device ("turn them off", "Ahora apágala", "set it
to 50"), run on what the conversation's last turn was about, and those that
name only a device or area ("and the kitchen too"), run as the last turn's
action: with no LLM call, where small models repeated their last reply, or
acted on a guess.

What the last turn was about, in this order: the devices Jarvis's reply
named (unless it asked which), the entities its calls acted on or looked
at, the devices the user's request named. With none of these, or none the
command can act on, the user is asked which device they mean.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from homeassistant.components.conversation import (
    AssistantContent,
    ChatLog,
    Content,
    ToolResultContent,
    UserContent,
)
from homeassistant.core import HomeAssistant, State, callback
from homeassistant.helpers import intent, llm

from ..engine.grounding import named
from ..engine.phrases import WHICH_DEVICE, phrase
from ..engine.referring import Referring, elided_target, referring_command
from ..engine.results import failed
from ..engine.text import folded_words, telling_words
from .assist_guard import MatchedCommand, command_on
from .deeds import acted_on
from .home import house_view
from .intent_reach import (
    Target,
    intent_targets,
    level_targets,
    service_intent_handler,
    targets_of,
)
from .matching import Slots
from .places import area_said

_INTENTS = {"turnon": intent.INTENT_TURN_ON, "turnoff": intent.INTENT_TURN_OFF}


@callback
def referred_command(
    hass: HomeAssistant,
    chat_log: ChatLog,
    request: str,
    *,
    language: str,
    assistant: str,
) -> MatchedCommand | str | None:
    """The command on what the request refers to, or the question which
    device it means, or the last action on what it names in its stead
    (`elided_command`); None where it is none of these, or where what it
    refers to cannot do what it asks (the model may find a way)."""
    if (referring := referring_command(request, language)) is None:
        return elided_command(
            hass, chat_log, request, language=language, assistant=assistant
        )
    if not (states := referents(hass, chat_log, language, assistant)):
        return phrase(WHICH_DEVICE, language)
    if targets := _targets(hass, referring, states, language, assistant):
        # A level has no one intent: each kind of device takes it its own way.
        if referring.level is not None:
            return command_on(hass, targets)
        return command_on(hass, targets, (_INTENTS[referring.action], {}))
    return None


def _targets(
    hass: HomeAssistant,
    referring: Referring,
    states: Sequence[State],
    language: str,
    assistant: str,
) -> list[Target]:
    if referring.level is not None:
        return level_targets(hass, states, referring.level, percent=referring.percent)
    return targets_of(
        hass,
        _INTENTS[referring.action],
        states,
        assistant=assistant,
        language=language,
    )


@callback
def elided_command(
    hass: HomeAssistant,
    chat_log: ChatLog,
    request: str,
    *,
    language: str,
    assistant: str,
) -> MatchedCommand | None:
    """The last turn's action on what the request names in its stead ("and
    the kitchen too" after "turn on the living room lights"): the area it
    names, of the kind the action was for, or the device; None where its
    words name neither in full, or the last turn did nothing."""
    if (said := elided_target(request, language)) is None or (
        last := _last_action(hass, chat_log)
    ) is None:
        return None
    intent_type, slots = last
    unplaced = {k: v for k, v in slots.items() if k not in ("name", "area", "floor")}
    words = folded_words(said)
    devices = house_view(hass, assistant)(())
    if (area := area_said(hass, said)) and words <= telling_words(
        str(area["area"]["value"])
    ):
        slots = unplaced | area
    elif len(names := {d.names[0] for d in named(said, devices, language)}) == 1 and (
        words <= telling_words(name := names.pop())
    ):
        slots = {
            k: v for k, v in unplaced.items() if k not in ("domain", "device_class")
        }
        slots |= {"name": {"value": name}}
    else:
        return None
    reach = intent_targets(
        hass, intent_type, slots, assistant=assistant, language=language
    )
    if not reach.targets:
        return None
    return command_on(hass, reach.targets, (intent_type, slots))


def _last_action(hass: HomeAssistant, chat_log: ChatLog) -> tuple[str, Slots] | None:
    """The last service intent the last turn ran, and its slots."""
    _, turn = _last_turn(chat_log)
    worked = {
        c.tool_call_id
        for c in turn
        if isinstance(c, ToolResultContent) and not failed(dict(c.tool_result))
    }
    for content in reversed(turn):
        if not isinstance(content, AssistantContent):
            continue
        for call in reversed(content.tool_calls or []):
            name = call.tool_name.rpartition("__")[2]
            if call.id in worked and service_intent_handler(hass, name) is not None:
                return name, {k: {"value": v} for k, v in call.tool_args.items()}
    return None


@callback
def referents(
    hass: HomeAssistant, chat_log: ChatLog, language: str, assistant: str
) -> list[State]:
    """The exposed entities the conversation's last turn was about."""
    request, turn = _last_turn(chat_log)
    if not request:
        return []
    devices = house_view(hass, assistant)(())
    replies = [c.content for c in turn if isinstance(c, AssistantContent) and c.content]
    ids: Iterable[str] = ()
    if replies and not replies[-1].rstrip().endswith("?"):
        ids = [device.entity_id for device in named(replies[-1], devices, language)]
    if not ids:
        ids = [
            entity_id
            for c in turn
            if isinstance(c, ToolResultContent)
            for entity_id in _looked_at(c)
        ]
    if not ids:
        ids = [device.entity_id for device in named(request, devices, language)]
    exposed = {device.entity_id for device in devices}
    return [
        state
        for entity_id in dict.fromkeys(ids)
        if entity_id in exposed and (state := hass.states.get(entity_id))
    ]


def _last_turn(chat_log: ChatLog) -> tuple[str, Sequence[Content]]:
    """The conversation's previous request and what came after it, up to the
    request being answered; nothing in a conversation's first turn."""
    content = chat_log.content
    requests = [
        (index, said)
        for index, said in enumerate(content)
        if isinstance(said, UserContent)
    ]
    if len(requests) < 2:
        return "", []
    (start, request), (end, _) = requests[-2:]
    return request.content, content[start + 1 : end]


def _looked_at(result: ToolResultContent) -> list[str]:
    """What a call acted on, or the entities HA's intent matched (a question
    answered "Yes")."""
    ids = acted_on(result.tool_result)
    if isinstance(result.tool_result, llm.IntentResponseDict) and (
        response := getattr(result.tool_result, "original", None)
    ):
        ids += [
            s.entity_id for s in (*response.matched_states, *response.unmatched_states)
        ]
    return ids
