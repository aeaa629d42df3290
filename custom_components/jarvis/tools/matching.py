"""What an intent matches its targets by, as HA's `async_match_targets`
takes it: a service intent's handler, or the kinds of device an intent that
matches its own way acts on."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from homeassistant.core import HomeAssistant, State
from homeassistant.helpers import intent

type Slots = dict[str, Any]

# A slot of Jarvis's own, which HA's handlers let through: the entities a
# call is for, of all its other slots reach (`targets._of_all`).
ENTITIES = "jarvis_entities"


class Matching(Protocol):
    """What an intent matches its targets by: a service intent's handler, or
    `KindMatching` for an intent that matches its own way."""

    @property
    def intent_type(self) -> str: ...

    @property
    def required_domains(self) -> set[str] | None: ...

    @property
    def required_features(self) -> int | None: ...

    @property
    def required_states(self) -> set[str] | None: ...


@dataclass(frozen=True, slots=True)
class KindMatching:
    """An intent that matches its targets its own way (the thermostat's,
    the relative volume's), taken to match any device of its kinds."""

    intent_type: str
    required_domains: set[str] | None
    required_features: int | None = None
    required_states: set[str] | None = None


def intent_constraints(
    handler: Matching,
    slots: Mapping[str, Any],
    assistant: str | None,
) -> intent.MatchTargetsConstraints:
    """What HA's service intent handler would match for these (valid) slots."""
    name = slots.get("name", {}).get("value")
    return intent.MatchTargetsConstraints(
        name=None if name == "all" else name,
        area_name=slots.get("area", {}).get("value"),
        floor_name=slots.get("floor", {}).get("value"),
        domains=set(slots["domain"]["value"])
        if "domain" in slots
        else handler.required_domains,
        device_classes=set(slots["device_class"]["value"])
        if "device_class" in slots
        else None,
        features=handler.required_features,
        states=handler.required_states,
        assistant=assistant,
        # Every entity the call could reach counts, whichever one HA would pick.
        allow_duplicate_names=True,
    )


def reach(
    hass: HomeAssistant,
    handler: Matching,
    slots: Mapping[str, Any],
    assistant: str | None,
) -> list[State]:
    """Every entity HA's handler could reach with these slots."""
    constraints = intent_constraints(handler, slots, assistant)
    return intent.async_match_targets(hass, constraints).states
