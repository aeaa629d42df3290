"""Commands that name no device ("turn them off", "Ahora apágala", "set it
to 50"), run on what the conversation's last turn was about, with no LLM
call: small models repeated their last reply, or acted on a guess.

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
    ToolResultContent,
    UserContent,
)
from homeassistant.core import HomeAssistant, State, callback
from homeassistant.helpers import intent, llm

from ..engine.grounding import named
from ..engine.phrases import WHICH_DEVICE, phrase
from ..engine.referring import Referring, referring_command
from .assist_guard import MatchedCommand, command_on
from .deeds import acted_on
from .home import house_view
from .intent_reach import Target, level_targets, targets_of

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
    device it means; None where it names something, or where what it
    refers to cannot do what it asks (the model may find a way)."""
    if (referring := referring_command(request, language)) is None:
        return None
    if not (states := referents(hass, chat_log, language, assistant)):
        return phrase(WHICH_DEVICE, language)
    if targets := _targets(hass, referring, states, language, assistant):
        return command_on(hass, targets)
    return None


def _targets(
    hass: HomeAssistant,
    referring: Referring,
    states: Sequence[State],
    language: str,
    assistant: str,
) -> list[Target]:
    if referring.level is not None:
        return level_targets(states, referring.level, percent=referring.percent)
    return targets_of(
        hass,
        _INTENTS[referring.action],
        states,
        assistant=assistant,
        language=language,
    )


@callback
def referents(
    hass: HomeAssistant, chat_log: ChatLog, language: str, assistant: str
) -> list[State]:
    """The exposed entities the conversation's last turn was about."""
    content = chat_log.content
    requests = [
        (index, said)
        for index, said in enumerate(content)
        if isinstance(said, UserContent)
    ]
    if len(requests) < 2:
        return []
    (start, request), (end, _) = requests[-2:]
    turn = content[start + 1 : end]
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
        ids = [device.entity_id for device in named(request.content, devices, language)]
    exposed = {device.entity_id for device in devices}
    return [
        state
        for entity_id in dict.fromkeys(ids)
        if entity_id in exposed and (state := hass.states.get(entity_id))
    ]


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
