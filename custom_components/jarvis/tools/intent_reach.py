"""What a service intent would act on, resolved as HA's handlers resolve it:
each target entity with the exact service call HA's handler makes for it
(or, where the request says a level or HA's handler has no call, the one
Jarvis makes), and what the name reached that the intent cannot act on.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

from homeassistant.components.cover import ATTR_POSITION
from homeassistant.components.fan import ATTR_PERCENTAGE, FanEntityFeature
from homeassistant.components.fan.intent import INTENT_FAN_SET_SPEED
from homeassistant.components.light import (
    ATTR_SUPPORTED_COLOR_MODES,
    brightness_supported,
)
from homeassistant.components.media_player.const import MediaPlayerEntityFeature
from homeassistant.const import ATTR_ENTITY_ID, ATTR_SUPPORTED_FEATURES
from homeassistant.core import DOMAIN as HA_DOMAIN, Context, HomeAssistant, State
from homeassistant.helpers import intent
import voluptuous as vol

from ..const import DOMAIN
from ..engine.arguments import said_percent
from ..engine.lang import verb_domains
from ..engine.phrases import Deed
from ..engine.router import joins_commands
from ..engine.spoken_numbers import in_digits
from ..safety.effects import Call
from .deeds import deeds, said_level, said_service
from .matching import ENTITIES, Slots, intent_constraints
from .meant import part_naming, said_targets
from .service_features import supports

# The level a service intent sets that a step may stand for ("turn the fan
# down" as HassFanSetSpeed with no speed): Jarvis's to fill (`steps`) where
# the call gives none, as the thermostat's temperature is.
STEPPED_LEVELS = {
    INTENT_FAN_SET_SPEED: ATTR_PERCENTAGE,
    intent.INTENT_SET_POSITION: ATTR_POSITION,
}


def service_intent_handler(
    hass: HomeAssistant, intent_type: str
) -> intent.DynamicServiceIntentHandler | None:
    """The handler of an intent that acts on entities by name, area or floor."""
    handler = next(
        (h for h in intent.async_get(hass) if h.intent_type == intent_type), None
    )
    return handler if isinstance(handler, intent.DynamicServiceIntentHandler) else None


# What HA's on/off intents call for the domains they treat apart
# (`intent.OnOffIntentHandler`); other domains get homeassistant.turn_on/off.
_ON_OFF_CALLS = {
    ("button", "turn_on"): "press",
    ("input_button", "turn_on"): "press",
    ("cover", "turn_on"): "open_cover",
    ("cover", "turn_off"): "close_cover",
    ("lock", "turn_on"): "lock",
    ("lock", "turn_off"): "unlock",
    ("valve", "turn_on"): "open_valve",
    ("valve", "turn_off"): "close_valve",
}
ON_OFF_INTENTS = frozenset({intent.INTENT_TURN_ON, intent.INTENT_TURN_OFF})
# What the on/off intents mean for a domain HA's handler refuses (it has no
# turn_on/turn_off): "deactivate the alarm" disarms it. Jarvis makes these
# calls itself.
_BEYOND_HA_CALLS = {("alarm_control_panel", "turn_off"): "alarm_disarm"}


@dataclass(frozen=True, slots=True)
class Target:
    """An entity an intent acts on, and the service call it makes for it
    (`by_ha`: the call HA's own handler makes; else one only Jarvis makes)."""

    state: State
    call: Call
    by_ha: bool = True


@dataclass(frozen=True, slots=True)
class Reach:
    """What an intent would act on; `shared` when HA's matcher would refuse
    it for a name several entities share."""

    targets: list[Target] = field(default_factory=list)
    shared: bool = False
    # What the name reached that the intent cannot act on: a to-do list for
    # HassTurnOn, a sensor for HassTurnOff, a paused TV for HassMediaNext.
    refused: list[State] = field(default_factory=list)
    # The states the intent acts on, where `refused` are in others.
    acts_when: tuple[str, ...] = ()
    # Fewer than the call's slots reach: only those the request names.
    narrowed: bool = False
    # The way the request turns another kind of device, which `refused`
    # cannot be turned: "lock" of "lock all the doors" for a garage door.
    way_elsewhere: str = ""
    # The targets whose entity lacks what their call needs (`supports`):
    # HA's handler would call it anyway, and lose the failure.
    unable: list[Target] = field(default_factory=list)

    @property
    def own(self) -> bool:
        """Only Jarvis's calls can run it: HA would refuse the shared name or
        act on more than the request names, or its handler has no call for a
        target."""
        return (
            self.shared
            or self.narrowed
            or not all(target.by_ha for target in self.targets)
        )


def intent_targets(
    hass: HomeAssistant,
    intent_type: str,
    slots: Slots,
    *,
    assistant: str | None,
    language: str,
    request: str | None = None,
) -> Reach:
    """The entities a service intent would act on, each with the exact call
    HA's handler makes. A name several entities share is narrowed to those
    the intent can act on ("unlock Smart Lock": the lock, not its sensor), and
    then to the domain the request's verb names ("open the Garage Door
    Opener": its cover, not its light). Those whose entity cannot take the
    call are `unable`."""
    reach = _reach(
        hass,
        intent_type,
        slots,
        assistant=assistant,
        language=language,
        request=request,
    )
    unable = [t for t in reach.targets if not supports(hass, t.call, t.state)]
    if not unable:
        return reach
    able = [t for t in reach.targets if t not in unable]
    return replace(reach, targets=able, unable=unable)


def _reach(
    hass: HomeAssistant,
    intent_type: str,
    slots: Slots,
    *,
    assistant: str | None,
    language: str,
    request: str | None,
) -> Reach:
    """`intent_targets`, whether or not each entity can take its call."""
    if (handler := service_intent_handler(hass, intent_type)) is None:
        return Reach()
    of_another_kind = partial(
        _of_another_kind,
        hass,
        handler,
        assistant=assistant,
        language=language,
        request=request,
    )
    try:
        slots = _validated(handler, slots)
    except vol.Invalid:
        return of_another_kind(slots)
    constraints = intent_constraints(handler, slots, assistant)
    if not constraints.has_constraints:
        return Reach()  # HA refuses to target the whole house
    intent_obj = intent.Intent(
        hass,
        platform=DOMAIN,
        intent_type=intent_type,
        slots=slots,
        text_input=None,
        context=Context(),
        language=language,
        assistant=assistant,
    )
    # As HA's handler matches (it refuses a shared name), then with every
    # entity the name reaches (`intent_constraints` allows them all).
    match = intent.async_match_targets(
        hass, replace(constraints, allow_duplicate_names=False)
    )
    shared = (
        not match.is_match
        and match.no_match_reason == intent.MatchFailedReason.DUPLICATE_NAME
    )
    if shared:
        match = intent.async_match_targets(
            hass, replace(constraints, allow_duplicate_names=True)
        )
    wanted = constraints.states or ()
    if not match.is_match and (wanted or constraints.features):
        # HA's error is its match's repr, which told 1.5B nothing: the
        # devices the name reaches, and the states the intent wants.
        loose = intent.async_match_targets(
            hass,
            replace(
                constraints, states=None, features=None, allow_duplicate_names=True
            ),
        )
        if loose.is_match:
            by_state = wanted and not any(s.state in wanted for s in loose.states)
            return Reach(
                refused=loose.states,
                acts_when=tuple(sorted(wanted)) if by_state else (),
            )
    if not match.is_match:
        return of_another_kind(slots)
    found = [
        target
        for state in match.states
        if (target := _target(hass, handler, intent_obj, state)) is not None
    ]
    if (slot_level := _level_slot(slots)) is not None and all(
        t.call.domain != t.state.domain for t in found
    ):
        # A level tool called for a device of another kind ("Deckenlampe"
        # with HassSetPosition, which HA refuses; a window with HassLightSet,
        # which calls light.turn_on on it).
        return _leveled_instead(
            hass,
            slots,
            slot_level,
            [t.state for t in found],
            assistant=assistant,
            language=language,
            request=request,
        )
    # HA's handler calls its own domain's service on whatever the name
    # reaches, which does nothing to another kind, and calls that a success:
    # light.turn_on on a temperature sensor for HassLightSet, by 0.5B.
    working = [t for t in found if t.call.domain in (t.state.domain, HA_DOMAIN)]
    if found and not working:
        return Reach(shared=shared, refused=[t.state for t in found])
    found = working
    if not found:
        return Reach(shared=shared, refused=match.states)
    if (every := slots.get(ENTITIES)) is not None and (
        kept := [t for t in found if t.state.entity_id in every["value"]]
    ):
        # Jarvis's calls for the devices of all those its slots reach.
        return Reach(kept, narrowed=True)
    reached = len(found)
    found = _said_only(hass, found, request, language)
    if shared and request and len({t.state.domain for t in found}) > 1:
        named = verb_domains(request, language)
        found = [t for t in found if t.state.domain in named] or found
    if (
        intent_type in ON_OFF_INTENTS
        and request
        and not joins_commands(request, language)
        and (level := said_percent(in_digits(request, language))) is not None
    ):
        found = [_at_level(t, intent_type, round(level)) for t in found]
    return Reach(found, shared, narrowed=len(found) < reached)


def targets_of(
    hass: HomeAssistant,
    intent_type: str,
    states: Iterable[State],
    *,
    assistant: str | None,
    language: str,
) -> list[Target]:
    """The calls a service intent with no slots but its targets makes for
    these entities, of those it can act on ("turn them off", said of what
    the last turn named)."""
    if (handler := service_intent_handler(hass, intent_type)) is None:
        return []
    intent_obj = intent.Intent(
        hass,
        platform=DOMAIN,
        intent_type=intent_type,
        slots={},
        text_input=None,
        context=Context(),
        language=language,
        assistant=assistant,
    )
    found = [
        target
        for state in states
        if (target := _target(hass, handler, intent_obj, state)) is not None
    ]
    return [
        t
        for t in found
        if t.call.domain in (t.state.domain, HA_DOMAIN)
        and supports(hass, t.call, t.state)
    ]


def level_targets(
    hass: HomeAssistant, states: Iterable[State], level: float, *, percent: bool
) -> list[Target]:
    """Each entity set to a level said with no device ("set it to 50"): a
    thermostat to that temperature (unless said in percent, or outside its
    range), a player to that volume, a light, cover, valve or fan to that
    percentage; of those that take such a level."""
    targets = []
    for state in states:
        data: dict[str, Any] = {ATTR_ENTITY_ID: state.entity_id}
        features = int(state.attributes.get(ATTR_SUPPORTED_FEATURES) or 0)
        if state.domain == "climate":
            low, high = (state.attributes.get(k) for k in ("min_temp", "max_temp"))
            if (
                not percent
                and isinstance(low, (int, float))
                and isinstance(high, (int, float))
                and low <= level <= high
            ):
                call = Call("climate", "set_temperature", data | {"temperature": level})
                targets.append(Target(state, call, by_ha=False))
            continue
        if not 0 <= level <= 100:
            continue
        if state.domain == "media_player":
            if features & MediaPlayerEntityFeature.VOLUME_SET:
                call = Call(
                    "media_player", "volume_set", data | {"volume_level": level / 100}
                )
                targets.append(Target(state, call, by_ha=False))
            continue
        on = Target(state, Call(state.domain, "turn_on", data))
        leveled = _at_level(on, intent.INTENT_TURN_ON, round(level))
        if leveled is not on and supports(hass, leveled.call, state):
            targets.append(leveled)
    return targets


def _validated(handler: intent.DynamicServiceIntentHandler, slots: Slots) -> Slots:
    """The slots as the handler validates them, but for its level where the
    call leaves that out (`STEPPED_LEVELS`): its calls then set none."""
    level = STEPPED_LEVELS.get(handler.intent_type)
    if level is None or level in slots:
        return handler.async_validate_slots(slots)
    validated = handler.async_validate_slots(slots | {level: {"value": 0}})
    return {key: slot for key, slot in validated.items() if key != level}


def _leveled_instead(
    hass: HomeAssistant,
    slots: Slots,
    level: int,
    reached: list[State],
    *,
    assistant: str | None,
    language: str,
    request: str | None,
) -> Reach:
    """The level a call's tool sets, for what its name reaches of another
    kind, each set its own way (`_at_level`); refused where nothing there
    takes a level: HA would call light.turn_on on a sensor and call that a
    success (HassLightSet for "Bedroom Temperature", by 0.5B)."""
    by_name: Slots = {k: slots[k] for k in ("name", "area", "floor") if k in slots}
    reach = intent_targets(
        hass, intent.INTENT_TURN_ON, by_name, assistant=assistant, language=language
    )
    leveled = [_at_level(t, intent.INTENT_TURN_ON, level) for t in reach.targets]
    leveled = _said_only(hass, leveled, request, language)
    if all(t.by_ha for t in leveled):
        return Reach(refused=reached)
    return Reach() if any(t.by_ha for t in leveled) else Reach(leveled, reach.shared)


def _of_another_kind(
    hass: HomeAssistant,
    handler: intent.DynamicServiceIntentHandler,
    slots: Slots,
    *,
    assistant: str | None,
    language: str,
    request: str | None,
) -> Reach:
    """Where a call's name or place reaches only kinds the handler cannot
    act on (or the handler refuses the kind the call gives): for a level
    tool, the level set on what it reaches (HassFanSetSpeed for "set the LED
    strip to 50%", which 0.5B repeated after being told to use HassLightSet;
    the LED strip's room as the name); else what it reaches, as refused
    (0.5B raised a thermostat with HassSetVolume and "domain": "climate",
    HA's error named only the slot, and 0.5B read it out)."""
    refused = _of_a_kind_refused(hass, handler, slots, assistant)
    if refused.refused and (slot_level := _level_slot(slots)) is not None:
        return _leveled_instead(
            hass,
            slots,
            slot_level,
            refused.refused,
            assistant=assistant,
            language=language,
            request=request,
        )
    return refused


def _of_a_kind_refused(
    hass: HomeAssistant,
    handler: intent.DynamicServiceIntentHandler,
    slots: Slots,
    assistant: str | None,
) -> Reach:
    """What a call's name or place reaches, as refused, where it is only of
    kinds the handler cannot act on."""
    unkinded = {k: v for k, v in slots.items() if k not in ("domain", "device_class")}
    if (kinds := handler.required_domains) is None or not unkinded.keys() & {
        "name",
        "area",
        "floor",
    }:
        return Reach()
    try:
        unkinded = handler.async_validate_slots(unkinded)
    except vol.Invalid:
        return Reach()
    named = intent.async_match_targets(
        hass,
        replace(
            intent_constraints(handler, unkinded, assistant),
            domains=None,
            features=None,
            states=None,
        ),
    ).states
    if any(state.domain in kinds for state in named):
        return Reach()
    return Reach(refused=named)


def _said_only(
    hass: HomeAssistant, found: list[Target], request: str | None, language: str
) -> list[Target]:
    """The targets the request names, of all a call reached (`said_targets`),
    by the command naming them: "apaga el calefactor en el salón y luego
    apaga la luz del techo en el despacho" is not the office's Calefactor."""
    if not request:
        return found
    states = [t.state for t in found]
    own_part = part_naming(hass, states, request, language)
    said = {state.entity_id for state in said_targets(hass, states, own_part, language)}
    return [target for target in found if target.state.entity_id in said]


def _level_slot(slots: Slots) -> int | None:
    """The level in percent of a position, brightness or speed slot, if any."""
    for key in ("position", "brightness", ATTR_PERCENTAGE):
        value = slots.get(key, {}).get("value")
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 100:
            return value
    return None


def _at_level(target: Target, intent_type: str, level: int) -> Target:
    """The target set to the level the user said, where the model called
    on/off but the request says a level in percent ("stelle den Vorhang auf
    20 Prozent" as HassTurnOn); else as it was. Lights and fans are set
    only when turned on: a level is not what "off" means for them."""
    state = target.state
    features = int(state.attributes.get(ATTR_SUPPORTED_FEATURES) or 0)
    level_call: tuple[str, str] | None = None
    match state.domain:
        # Whether it takes a position is `supports`'s to say: opened all
        # the way, a door said "halfway" would be left wide open.
        case "cover":
            level_call = ("set_cover_position", "position")
        case "valve":
            level_call = ("set_valve_position", "position")
        case "fan" if features & FanEntityFeature.SET_SPEED:
            level_call = ("set_percentage", "percentage")
        case "light" if brightness_supported(
            state.attributes.get(ATTR_SUPPORTED_COLOR_MODES)
        ):
            level_call = ("turn_on", "brightness_pct")
    if level_call is None or (
        state.domain in ("light", "fan") and intent_type != intent.INTENT_TURN_ON
    ):
        return target
    service, key = level_call
    data = {ATTR_ENTITY_ID: state.entity_id, key: level}
    return Target(state, Call(state.domain, service, data), by_ha=False)


def _target(
    hass: HomeAssistant,
    handler: intent.DynamicServiceIntentHandler,
    intent_obj: intent.Intent,
    state: State,
) -> Target | None:
    """The call HA's handler would make for the entity (None: it would refuse)."""
    try:
        domain, service = handler.get_domain_and_service(intent_obj, state)
    except intent.IntentError:
        return None
    data: dict[str, Any] = {ATTR_ENTITY_ID: state.entity_id}
    if intent_obj.intent_type in ON_OFF_INTENTS:
        if own := _ON_OFF_CALLS.get((state.domain, service)):
            return Target(state, Call(state.domain, own, data))
        if beyond := _BEYOND_HA_CALLS.get((state.domain, service)):
            return Target(state, Call(state.domain, beyond, data), by_ha=False)
        if not hass.services.has_service(state.domain, service):
            return None
        return Target(state, Call(domain, service, data))
    for key, info in (handler.required_slots or {}).items():
        if key in intent_obj.slots:
            data[info.service_data_name or key] = intent_obj.slots[key]["value"]
    for key, info in (handler.optional_slots or {}).items():
        if value := intent_obj.slots.get(key):
            data[info.service_data_name or key] = value["value"]
    # HA's mute and unmute handlers set this slot themselves, over the model's.
    if isinstance(muted := getattr(handler, "is_volume_muted", None), bool):
        data["is_volume_muted"] = muted
    return Target(state, Call(domain, service, data))


def handled_targets(
    hass: HomeAssistant, intent_obj: intent.Intent, states: Iterable[State]
) -> list[Target]:
    """The calls HA's handler made for the states its matcher found."""
    if (handler := service_intent_handler(hass, intent_obj.intent_type)) is None:
        return []
    return [
        target
        for state in states
        if (target := _target(hass, handler, intent_obj, state)) is not None
    ]


def target_deeds(hass: HomeAssistant, targets: Iterable[Target]) -> list[Deed]:
    """What the calls do to the targets, said the way people say it."""
    targets = list(targets)
    return deeds(
        hass,
        [(t.state.entity_id, said_service(t.call)) for t in targets],
        said_level(t.call for t in targets),
    )
