"""Which effects need the user's yes.

An effect is sensitive when it unlocks, disarms or opens an entity of a
guarded kind (locks, alarm panels, garage doors, gates); locking, arming and
closing run at once, as in Home Assistant. What a call does that cannot be
known before it runs follows one option (`unresolved`), asked by default.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass, field

from homeassistant.core import HomeAssistant

from ..const import (
    SENSITIVE_ALARMS,
    SENSITIVE_GARAGE_DOORS,
    SENSITIVE_GATES,
    SENSITIVE_LOCKS,
)
from .effects import Call, Effect, resolve

# What the services that unlock, disarm or open do, per entity domain: a verb
# of `phrases.TO_DO`. Generic services (turn_off on a lock, toggle) count as
# the worst they can do.
SENSITIVE_SERVICES = {
    ("lock", "unlock"): "unlock",
    ("lock", "turn_off"): "unlock",
    ("lock", "open"): "open",
    ("lock", "toggle"): "toggle",
    ("alarm_control_panel", "alarm_disarm"): "disarm",
    ("alarm_control_panel", "turn_off"): "disarm",
    ("alarm_control_panel", "toggle"): "toggle",
    ("cover", "open_cover"): "open",
    ("cover", "turn_on"): "open",
    ("cover", "set_cover_position"): "move",
    ("cover", "open_cover_tilt"): "open",
    ("cover", "set_cover_tilt_position"): "move",
    ("cover", "toggle"): "toggle",
    ("cover", "toggle_cover_tilt"): "toggle",
}
# States a scene may set that are safe for a guarded kind.
SAFE_STATES = {
    "lock": frozenset({"locked", "locking"}),
    "alarm_control_panel": frozenset(
        {
            "armed_away",
            "armed_home",
            "armed_night",
            "armed_vacation",
            "armed_custom_bypass",
            "arming",
        }
    ),
    "cover": frozenset({"closed", "closing"}),
}
# Unresolved effects: ask (the default) or run.
UNRESOLVED_ASK = "ask"
UNRESOLVED_RUN = "run"


def guarded_kind(hass: HomeAssistant, entity_id: str) -> str | None:
    """The guarded kind an entity belongs to, if any."""
    domain = entity_id.partition(".")[0]
    if domain == "lock":
        return SENSITIVE_LOCKS
    if domain == "alarm_control_panel":
        return SENSITIVE_ALARMS
    if domain != "cover":
        return None
    state = hass.states.get(entity_id)
    device_class = state.attributes.get("device_class") if state else None
    return {"garage": SENSITIVE_GARAGE_DOORS, "gate": SENSITIVE_GATES}.get(
        str(device_class)
    )


def sensitive_verb(effect: Effect) -> str | None:
    """What an effect does that needs a yes on a guarded kind, if anything."""
    domain = effect.entity_id.partition(".")[0]
    if effect.service == "scene":
        if effect.state is None and domain == "cover":
            position = effect.data.get("current_position")
            return None if position in (None, 0, "0") else "move"
        # Only guarded domains have safe states; the others never need a yes.
        if domain not in SAFE_STATES or effect.state in (None, *SAFE_STATES[domain]):
            return None
        return {"lock": "unlock", "alarm_control_panel": "disarm"}.get(domain, "open")
    verb = SENSITIVE_SERVICES.get((domain, effect.service))
    target = effect.data.get("position", effect.data.get("tilt_position"))
    if verb == "move" and target in (0, "0"):
        return None  # moving to 0 closes
    return verb


@dataclass(slots=True)
class Assessment:
    """What a set of calls does and whether it needs the user's yes."""

    effects: list[Effect] = field(default_factory=list)
    sensitive: list[Effect] = field(default_factory=list)
    unresolved: list[str] = field(default_factory=list)

    def needs_yes(self, unresolved_option: str) -> bool:
        """Sensitive effects always; unknown ones unless the option runs them."""
        return bool(self.sensitive) or (
            bool(self.unresolved) and unresolved_option != UNRESOLVED_RUN
        )

    @property
    def touched(self) -> list[str]:
        """Every entity the calls act on, once each, in order."""
        return list(dict.fromkeys(effect.entity_id for effect in self.effects))


def assess(
    hass: HomeAssistant, calls: Iterable[Call], kinds: Collection[str]
) -> Assessment:
    """Resolve the calls and find their effects on the guarded kinds."""
    assessment = Assessment()
    for call in calls:
        resolution = resolve(hass, call)
        assessment.effects += resolution.effects
        assessment.unresolved += resolution.unresolved
    assessment.sensitive = [
        effect
        for effect in assessment.effects
        if sensitive_verb(effect) and guarded_kind(hass, effect.entity_id) in kinds
    ]
    return assessment
