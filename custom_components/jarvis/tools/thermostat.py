"""The temperature a thermostat call is for, from the user's words: HA has
no relative temperature intent, and 0.5B sent "turn up the heat" with a
temperature of its own (colder than before), or with none."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from homeassistant.components.climate.const import ATTR_MAX_TEMP, ATTR_MIN_TEMP
from homeassistant.const import ATTR_TEMPERATURE
from homeassistant.core import HomeAssistant

from ..engine.arguments import numbers_said
from ..engine.lang import step_sign
from .matching import KindMatching, reach
from .meant import MAX_CHOICES, Answer, which

# A degree: the step of "make it warmer", which says no number.
TEMPERATURE_STEP = 1.0


def meant_temperature(  # noqa: PLR0917 - the call, and the request
    hass: HomeAssistant,
    matching: KindMatching,
    args: Mapping[str, Any],
    assistant: str | None,
    request: str | None,
    language: str,
) -> float | Answer | None:
    """The temperature the request means for the call's thermostat, where it
    says a step ("make it warmer", "turn the heat down by two degrees"): a
    degree, or the number said where that is too small to be a temperature,
    from where the one thermostat reached is, within its range; or which
    thermostat, asked, where the call reaches a few and gives no
    temperature. For a call with no temperature and no step said, the one
    number said. None where the call's own temperature stands."""
    said = numbers_said(request or "", language)
    sign = step_sign(request or "", language, ("warmer", "cooler"))
    if sign is None:
        unset = ATTR_TEMPERATURE not in args and len(said) == 1
        return said[0] if unset else None
    slots = {key: {"value": value} for key, value in args.items()}
    found = reach(hass, matching, slots, assistant)
    if len(found) != 1:
        asks = ATTR_TEMPERATURE not in args and 1 < len(found) <= MAX_CHOICES
        return which(hass, found, language) if asks else None
    attributes = found[0].attributes
    degrees = [
        float(value)
        for key in (ATTR_TEMPERATURE, ATTR_MIN_TEMP, ATTR_MAX_TEMP)
        if isinstance(value := attributes.get(key), (int, float))
    ]
    if len(degrees) != 3:  # a range, or no target: nothing to step
        return None
    current, low, high = degrees
    if len(said) > 1 or (said and said[0] >= low):
        return None
    step = said[0] if said else TEMPERATURE_STEP
    return min(max(current + sign * step, low), high)
