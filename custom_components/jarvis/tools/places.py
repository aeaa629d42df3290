"""The places a request says, against the areas and floors of the home:
the one area it names, the places a call gives that the home lacks or the
user never said, and a device called as the area said."""

from __future__ import annotations

from homeassistant.core import HomeAssistant
from homeassistant.helpers import area_registry as ar, floor_registry as fr, intent

from ..engine.pointed import points_to
from ..engine.text import all_said, folded_words, most_specific, telling_words
from .asked import device_of
from .matching import Matching, Slots, intent_constraints


def area_pointed(
    hass: HomeAssistant,
    handler: Matching,
    slots: Slots,
    assistant: str | None,
    request: str | None,
) -> Slots | None:
    """The devices of the area said that the request's other words point
    to, for a name that is both that area's and a device's, where those
    words do not point to the device: 0.5B sent "turn off the lights in the
    living room" as HassTurnOff "living room", and HA turned the Living
    Room player off."""
    name = str(slots["name"]["value"])
    place = area_said(hass, request or "")
    area = place.get("area", {}).get("value")
    if not area or folded_words(area) != folded_words(name) or "area" in slots:
        return None
    other_words = folded_words(request or "") - folded_words(name)
    rest = {k: v for k, v in slots.items() if k != "name"}
    named = intent.async_match_targets(
        hass, intent_constraints(handler, slots, assistant)
    ).states
    in_area = intent.async_match_targets(
        hass, intent_constraints(handler, rest | place, assistant)
    ).states
    pointed = [
        s for s in in_area if points_to(device_of(hass, s.entity_id), other_words)
    ]
    if (
        not named
        or not pointed
        or any(
            points_to(device_of(hass, state.entity_id), other_words) for state in named
        )
    ):
        return None
    return rest | place | {"domain": {"value": sorted({s.domain for s in pointed})}}


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
