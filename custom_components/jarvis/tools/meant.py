"""Which of the devices a call reaches the request means: those its words
name (by area or floor, then in full), or a question where the call picked
one device that other devices fit as well as the request's words.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from homeassistant.core import HomeAssistant, State
from homeassistant.helpers import entity_registry as er, intent
from homeassistant.util.json import JsonObjectType

from ..engine.lang import leaves_out, says_all, says_everything
from ..engine.phrases import FINAL_REPLY, OR, WHICH, FinalReply, listed, phrase
from ..engine.router import command_parts
from ..engine.text import (
    all_said,
    folded_words,
    most_specific,
    said_in_plural,
    telling_words,
)
from ..engine.which_answer import CHOICES, Choice
from ..safety.holds import question_answered
from .services import entity_area, entity_places


@dataclass(frozen=True, slots=True)
class Answer:
    """The tool result to give instead of calling HA."""

    result: JsonObjectType


# Listed in the question; more would be too long to hear.
MAX_CHOICES = 6


def said_targets(
    hass: HomeAssistant, states: Sequence[State], request: str, language: str
) -> list[State]:
    """Of what a call reaches, what the request names: the devices in the
    areas or floors it says ("die Stehlampe in der Garage", where 0.5B's call
    on the shared name reached every Stehlampe), then of those the devices
    it names in full ("la tira LED en el despacho", where 0.5B's call on the
    whole office reached its floor lamp too). All of them where it names
    none, or leaves some out ("all lights except the lamp")."""
    if len(states) < 2 or leaves_out(request, language):
        return list(states)
    said = folded_words(request)
    place_words: set[str] = set()
    in_said_place: list[State] = []
    for state in states:
        if said_places := [
            telling
            for place in entity_places(hass, state.entity_id)
            if all_said(telling := telling_words(place), said)
        ]:
            in_said_place.append(state)
            place_words.update(*said_places)
    if in_said_place:
        states = in_said_place
    entities = er.async_get(hass)
    names = {
        state.entity_id: [
            state.name,
            *(entry.aliases if (entry := entities.async_get(state.entity_id)) else ()),
        ]
        for state in states
    }
    named = {
        name: frozenset(telling)
        for state in states
        for name in names[state.entity_id]
        # A name that is only the place said ("Kitchen", the kitchen's light)
        # names the place, not the device.
        if (telling := telling_words(name) - place_words)
        and all_said(telling, said)
        and not said_in_plural(name, request)
    }
    if not named:
        return list(states)
    meant = set(most_specific(named))
    return [state for state in states if meant.intersection(names[state.entity_id])]


# The shortest word taken as the end of a compound name ("Lampe" of
# "Stehlampe").
_COMPOUND_END = 5


def vague_target(
    hass: HomeAssistant,
    states: Sequence[State],
    request: str,
    *,
    language: str,
    assistant: str | None,
    satellite_area: str | None,
) -> Answer | None:
    """Which device is meant, asked where a call picks one device the
    request does not name (in full, by area or floor, or by being where the
    satellite is) of several its words fit as well: 0.5B took "turn on the
    light" as Kitchen Lights. The devices that share the most of its words
    are asked about, with the one picked: "the office lights" are Office
    RGBW Lights, not any light, where no area holds them. None where its
    words fit only the one picked, or none (a name in another language), or
    the call acts on several ("all the lights")."""
    if len(states) != 1:
        asks = _said_as_one(hass, states, request, language)
        return which(hass, states, language) if asks else None
    (state,) = states
    said = folded_words(request)
    entry = er.async_get(hass).async_get(state.entity_id)
    names = [state.name, *(entry.aliases if entry else ())]
    places = entity_places(hass, state.entity_id)
    if any(all_said(telling_words(name), said) for name in [*names, *places]) or (
        satellite_area and entity_area(hass, state.entity_id) == satellite_area
    ):
        return None
    fits = {
        other.entity_id: (other, words_fitting(other.name, said))
        for other in intent.async_match_targets(
            hass,
            intent.MatchTargetsConstraints(domains={state.domain}, assistant=assistant),
        ).states
    }
    best = max((score for _, score in fits.values()), default=0)
    meant = [other for other, score in fits.values() if best and score == best]
    if state.entity_id not in {other.entity_id for other in meant}:
        meant.append(state)
    return which(hass, meant, language) if len(meant) > 1 else None


def _said_as_one(
    hass: HomeAssistant, states: Sequence[State], request: str, language: str
) -> bool:
    """Whether devices that share a name, each in its own area, are said as
    one: the name in the singular, and not "all", nor said with the places
    of several. "turn on the lamp", of a Lamp in the kitchen and one in the
    bedroom, had turned on both; "enciende la lámpara en el jardín y luego
    prende la lámpara en el salón" asks for both."""
    areas = {entity_area(hass, state.entity_id) for state in states}
    names = {state.name for state in states}
    said = folded_words(request)
    placed = [state for state in states if in_place_said(hass, state, said)]
    return not (
        len(states) < 2
        or len(names) != 1
        or None in areas
        or len(areas) < len(states)
        or len(placed) > 1
        or said_in_plural(next(iter(names)), request)
        or says_all(request, language)
        or says_everything(request, language)
    )


def in_place_said(hass: HomeAssistant, state: State, said: set[str]) -> bool:
    """Whether a device's area or floor is among the said words, in full."""
    return any(
        all_said(telling_words(place), said)
        for place in entity_places(hass, state.entity_id)
    )


def here_if_one(
    hass: HomeAssistant,
    states: Sequence[State],
    request: str,
    language: str,
    satellite_area: str | None,
) -> list[State]:
    """Of devices that share a name, said as one, the one in the area the
    request came from, as HA's matcher prefers; else all of them."""
    if satellite_area is None or not _said_as_one(hass, states, request, language):
        return list(states)
    here = [s for s in states if entity_area(hass, s.entity_id) == satellite_area]
    return here or list(states)


def which_open(language: str) -> bool:
    """Whether Jarvis's reply before the user's latest message asked which
    device: an answer that names none of its choices ("sí") leaves it open.
    After one, 0.5B made the call asked about again, and four heaters of
    one name were turned off."""
    asked = question_answered()
    opening = phrase(WHICH, language).partition("{choices}")[0]
    return asked is not None and asked.startswith(opening)


def words_fitting(name: str, said: set[str]) -> int:
    """How many of the words said fit a word of the name, or end it
    ("Lampe" of "Stehlampe")."""
    return sum(
        1
        for word in said
        if len(word) > 2
        and any(
            name_word == word
            or (len(word) >= _COMPOUND_END and name_word.endswith(word))
            for name_word in folded_words(name)
        )
    )


def which(hass: HomeAssistant, fitting: Sequence[State], language: str) -> Answer:
    """Which of the devices is meant, asked; nothing is done until the
    user says. A name several of them share is asked with each one's area:
    "Which one do you mean: Saugroboter?" named five robots once."""
    named = [Choice(state.name) for state in fitting]
    shared = {name for name in named if named.count(name) > 1}
    choices = sorted(
        {
            choice._replace(area=_area_name(hass, state))
            if choice in shared
            else choice
            for choice, state in zip(named, fitting, strict=True)
        },
        key=lambda choice: choice.label,
    )[:MAX_CHOICES]
    labels = [choice.label for choice in choices]
    question = phrase(WHICH, language).format(choices=listed(labels, language, OR))
    return Answer(
        {
            "error": "ambiguous_target",
            "error_text": f"Several devices fit: {', '.join(labels)}. Nothing was done.",
            FINAL_REPLY: FinalReply(question),
            CHOICES: [choice.as_json() for choice in choices],
        }
    )


def _area_name(hass: HomeAssistant, state: State) -> str | None:
    places = entity_places(hass, state.entity_id)
    return places[0] if places else None


def part_naming(
    hass: HomeAssistant, states: Sequence[State], request: str, language: str
) -> str:
    """The one command of those the request joins that names these devices
    best, by their names' and places' words; else the whole request. Each
    call is judged by its own command: "apaga la luz del techo en el jardín
    y luego prende el ventilador en el despacho" turns the fan on."""
    parts = command_parts(request, language)
    if len(parts) < 2:
        return request
    named: set[str] = set()
    for state in states:
        named |= telling_words(state.name)
        for place in entity_places(hass, state.entity_id):
            named |= telling_words(place)
    overlaps = [len(telling_words(part) & named) for part in parts]
    best = max(overlaps)
    return (
        parts[overlaps.index(best)] if best and overlaps.count(best) == 1 else request
    )
