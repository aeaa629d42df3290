"""Whether an entity has what a service call needs of it, by the features
HA's own service descriptions name: HA's intent handlers run their service
calls in the background and lose the failure, so "open the kitchen window
halfway" on a window with no position was answered "Done" while nothing
moved."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from homeassistant.const import ATTR_SUPPORTED_FEATURES
from homeassistant.core import HomeAssistant, State
from homeassistant.helpers import service as ha_service

from ..safety.effects import Call


async def load_service_features(hass: HomeAssistant) -> None:
    """Load the services' descriptions `supports` reads (cached by HA; the
    first load reads every integration's services.yaml)."""
    await ha_service.async_get_all_descriptions(hass)


def supports(hass: HomeAssistant, call: Call, state: State) -> bool:
    """Whether the entity has the features the call's service needs of its
    targets, and those of each field the call sets. True where HA has no
    description loaded for it (`load_service_features`)."""
    description = ha_service.async_get_cached_service_description(
        hass, call.domain, call.service
    )
    if description is None:
        return True
    features = int(state.attributes.get(ATTR_SUPPORTED_FEATURES) or 0)
    target = description.get("target") or {}
    needed = [
        entity.get("supported_features")
        for entity in target.get("entity") or ()
        if state.domain in (entity.get("domain") or (state.domain,))
    ]
    fields = dict(_fields(description.get("fields") or {}))
    needed += [
        (fields[key].get("filter") or {}).get("supported_features")
        for key in call.data
        if key in fields
    ]
    # As HA's entity services check: one of the listed feature sets, whole.
    return all(
        not sets or any(features & wanted == wanted for wanted in sets)
        for sets in needed
    )


def _fields(
    fields: Mapping[str, Any],
) -> Iterable[tuple[str, Mapping[str, Any]]]:
    """A description's fields, those in its sections too."""
    for key, field in fields.items():
        if not isinstance(field, Mapping):
            continue
        if isinstance(inner := field.get("fields"), Mapping):
            yield from _fields(inner)
        else:
            yield key, field
