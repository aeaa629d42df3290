"""The places a request says, against the areas and floors of the home:
the one area it names, the places a call gives that the home lacks or the
user never said, and a device called as the area said."""

from __future__ import annotations

from collections.abc import Iterable

from homeassistant.core import HomeAssistant, State
from homeassistant.helpers import area_registry as ar, floor_registry as fr, intent

from ..engine.pointed import points_to
from ..engine.text import all_said, folded_words, most_specific, telling_words
from .asked import device_of
from .matching import Matching, Slots, reach
from .meant import Answer, which


def pointed_instead(
    hass: HomeAssistant,
    handler: Matching,
    slots: Slots,
    assistant: str | None,
    request: str | None,
    *,
    language: str,
) -> Slots | Answer | None:
    """For a name that is a device's own, where the request's other words
    point elsewhere: the devices they point to in the area the name also
    is, else the devices holding the name in theirs that they point to (one,
    or which). 0.5B sent "turn off the lights in the living room" as
    HassTurnOff "living room", and HA turned the Living Room player off;
    the lights were in that area, or called "Living Room RGBWW Lights"."""
    name = str(slots["name"]["value"])
    other_words = folded_words(request or "") - folded_words(name)
    named = reach(hass, handler, slots, assistant)
    if not named or _pointed(hass, named, other_words):
        return None
    rest = {k: v for k, v in slots.items() if k != "name"}
    place = area_said(hass, request or "")
    area = place.get("area", {}).get("value")
    if area and folded_words(area) == folded_words(name) and "area" not in slots:
        there = reach(hass, handler, rest | place, assistant)
        if pointed := _pointed(hass, there, other_words):
            kinds = sorted({state.domain for state in pointed})
            return rest | place | {"domain": {"value": kinds}}
    held = folded_words(name)
    holding = [
        state
        for state in reach(hass, handler, rest, assistant)
        if held < folded_words(state.name)
    ]
    holders = _pointed(hass, holding, other_words)
    if len(holders) == 1:
        return rest | {"name": {"value": holders[0].name}}
    return which(hass, holders, language) if holders else None


def _pointed(
    hass: HomeAssistant, states: Iterable[State], words: set[str]
) -> list[State]:
    """Those of the states these words point to."""
    return [
        state for state in states if points_to(device_of(hass, state.entity_id), words)
    ]


def area_said(hass: HomeAssistant, request: str) -> Slots:
    """An area slot for the one area the request names in full (the most
    specific, "Guest Room" and not "Guest" if both are), else none."""
    said = folded_words(request)
    named = {
        area.name: frozenset(telling)
        for area in ar.async_get(hass).async_list_areas()
        for label in (area.name, *area.aliases)
        if (telling := telling_words(label)) and all_said(telling, said)
    }
    most = most_specific(named)
    return {"area": {"value": most[0]}} if len(most) == 1 else {}


def unknown_places(hass: HomeAssistant, slots: Slots) -> set[str]:
    """The area and floor slots that name no area or floor of the home."""
    unknown = set()
    area, floor = (
        slots.get("area", {}).get("value"),
        slots.get("floor", {}).get("value"),
    )
    if area is not None and not any(intent.find_areas(str(area), ar.async_get(hass))):
        unknown.add("area")
    if floor is not None and not any(
        intent.find_floors(str(floor), fr.async_get(hass))
    ):
        unknown.add("floor")
    return unknown


def said_places(slots: Slots, request: str | None) -> Slots:
    """The slots without an area or floor the request does not name."""
    said = folded_words(request or "")
    return {
        key: value
        for key, value in slots.items()
        if key not in ("area", "floor")
        or telling_words(str(value.get("value", ""))) <= said
    }


def place_holds(
    hass: HomeAssistant, place: Slots, domains: set[str], assistant: str | None
) -> bool:
    """Whether the place has a device of these kinds: the hallway's speaker,
    which HassMediaNext could not act on, is still there."""
    return intent.async_match_targets(
        hass,
        intent.MatchTargetsConstraints(
            area_name=place.get("area", {}).get("value"),
            floor_name=place.get("floor", {}).get("value"),
            domains=domains,
            assistant=assistant,
        ),
    ).is_match
