"""HA's fuzzy reading of a command its sentences do not match, kept where
the request's own words confirm it.

HA's default agent, used alone, falls back to a fuzzy match where no
sentence matches ("start the vacuum in the garden"); the strict matching
that Jarvis's fast path and HA's "prefer local" pipeline use does not, so
such commands went to the model. The fuzzy reading is a guess, wrong more
often than right on loose phrasings (HassLightSet for "I want the blinds
at 50 percent", HassTurnOn for "kill the kettle", the time for "what is on
the shopping list?"), so it is kept only where the words confirm it: one
command that acts, every number said in its slots, the way said the way
it turns, and its targets those the words name.
"""

from __future__ import annotations

from collections import Counter

from homeassistant.components.conversation import (
    DOMAIN as CONVERSATION_DOMAIN,
    ConversationInput,
)
from homeassistant.components.conversation.agent_manager import get_agent_manager
from homeassistant.components.conversation.default_agent import METADATA_FUZZY_MATCH
from homeassistant.core import HomeAssistant, State
from homeassistant.helpers import intent

from ..engine.arguments import numbers_said, said_numbers
from ..engine.lang import says_a_step, verb_domains
from ..engine.pointed import kinds_named
from ..engine.text import all_said, folded_words, most_specific, telling_words
from .assist_guard import (
    LEFT_TO_THE_MODEL,
    MatchedCommand,
    command_on,
    matched_command,
    matcher_slots,
)
from .intent_reach import ON_OFF_INTENTS, Reach, service_intent_handler
from .matching import Slots
from .meant import in_place_said
from .services import entity_places, exposed_states
from .steps import colour_as_said, coloured_lights, stepped
from .turns import one_command, turned_as_said, turns_as_said


async def loose_command(
    hass: HomeAssistant, user_input: ConversationInput
) -> MatchedCommand | None:
    """The command HA's fuzzy matcher reads a request as, where its words
    confirm it; None where HA's sentences match it (strictly), or the
    reading is not confirmed.

    Call it before `async_handle_intents`: HA's matcher caches one stage of
    its matching per request, and after a strict miss it would not try the
    fuzzy one."""
    if (agent := get_agent_manager(hass).default_agent) is None:
        return None
    result = await agent.async_recognize_intent(user_input)
    if result is None or not (result.intent_metadata or {}).get(METADATA_FUZZY_MATCH):
        return None
    text, language = user_input.text, user_input.language
    if (
        result.intent.name in LEFT_TO_THE_MODEL
        or service_intent_handler(hass, result.intent.name) is None
        or not one_command(text, language)
        # A step is no turning on or off: "louder on the downstairs
        # speakers" was read as HassTurnOn.
        or (result.intent.name in ON_OFF_INTENTS and says_a_step(text, language))
    ):
        return None
    slots = matcher_slots(result)
    given = {
        number
        for slot in slots.values()
        for part in (slot["value"], slot["text"])
        for number in said_numbers(str(part))
    }
    if not given.issuperset(numbers_said(text, language)):
        return None  # "set the LED strip to 40%" read as turning it on
    command = matched_command(hass, result, text, language)
    intent_type = result.intent.name
    states = [target.state for target in command.targets]
    if states and not turns_as_said(hass, intent_type, states, text, language):
        if not (
            turned := _as_turned(hass, command, intent_type, slots, text, language)
        ):
            return None
        command, states = turned, [target.state for target in turned.targets]
    if (
        not states
        or not _named(hass, states, text, language)
        or not _set_as_said(command, slots, text, language)
    ):
        return None
    return command


def _set_as_said(
    command: MatchedCommand, slots: Slots, request: str, language: str
) -> bool:
    """Whether the reading sets what the words say: Jarvis's own repairs of
    a model's call (a colour, a white, a step) would leave it as it is. HA
    read "set the desk lamp to cool white" as HassLightSet with the colour
    white."""
    reach = Reach(command.targets)
    return (
        colour_as_said(slots, request, language) == slots
        and stepped(reach, slots, request, language) is reach
        and ("color" in slots or coloured_lights(reach, request, language) is None)
    )


def _as_turned(  # noqa: PLR0917 - the reading and the request
    hass: HomeAssistant,
    command: MatchedCommand,
    intent_type: str,
    slots: Slots,
    request: str,
    language: str,
) -> MatchedCommand | None:
    """The command turned the way the words say, where the reading turns its
    devices the other way ("kill the kettle" read as HassTurnOn), as a
    model's call is (`turned_as_said`); None where the words say neither."""
    reach = Reach(command.targets)
    turned = turned_as_said(
        hass,
        intent_type,
        reach,
        slots,
        assistant=CONVERSATION_DOMAIN,
        language=language,
        request=request,
    )
    if turned is reach or not turned.targets:
        return None
    meant = (
        intent.INTENT_TURN_ON
        if intent_type == intent.INTENT_TURN_OFF
        else intent.INTENT_TURN_OFF
    )
    states = [target.state for target in turned.targets]
    if not turns_as_said(hass, meant, states, request, language):
        return None
    return command_on(hass, turned.targets, (meant, slots))


def _named(
    hass: HomeAssistant, states: list[State], request: str, language: str
) -> bool:
    """Whether the request's words name these devices: each by its name in
    full, the most specific of the names it says ("TV Light", not "TV");
    or, where it says no device's name, each by its kind in a place it says
    or as the one of its kind ("start the vacuum in the garden")."""
    said = folded_words(request)
    named = _names_said(hass, said)
    if named:
        return all(state.name in named for state in states)
    kinds = kinds_named(request) | verb_domains(request, language)
    of_kind = Counter(state.domain for state in exposed_states(hass).values())
    return all(
        state.domain in kinds
        and (of_kind[state.domain] == 1 or in_place_said(hass, state, said))
        for state in states
    )


def _names_said(hass: HomeAssistant, said: set[str]) -> set[str]:
    """The most specific of the exposed devices' names said in full, but for
    a name that is only a place said ("Kitchen", the kitchen's light)."""
    named: dict[str, frozenset[str]] = {}
    for state in exposed_states(hass).values():
        place_words = {
            word
            for place in entity_places(hass, state.entity_id)
            if all_said(telling := telling_words(place), said)
            for word in telling
        }
        if (telling := telling_words(state.name) - place_words) and all_said(
            telling, said
        ):
            named[state.name] = frozenset(telling)
    return set(most_specific(named))
