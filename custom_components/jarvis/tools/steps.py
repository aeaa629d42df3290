"""Levels stepped from where they are, where the request says a way and no
number: HA has no intent for a brighter light or a blind opened a bit, and
0.5B sent such requests as on/off calls, or with a level it made up
(dropped, as numbers nobody said are)."""

from __future__ import annotations

from dataclasses import replace
import math

from homeassistant.components.cover import (
    ATTR_CURRENT_POSITION,
    ATTR_POSITION,
    CoverEntityFeature,
)
from homeassistant.components.fan import (
    ATTR_PERCENTAGE,
    ATTR_PERCENTAGE_STEP,
    FanEntityFeature,
)
from homeassistant.components.light import (
    ATTR_BRIGHTNESS_STEP_PCT,
    ATTR_COLOR_TEMP_KELVIN,
    ATTR_MAX_COLOR_TEMP_KELVIN,
    ATTR_MIN_COLOR_TEMP_KELVIN,
    ATTR_RGB_COLOR,
    ATTR_SUPPORTED_COLOR_MODES,
    brightness_supported,
    color_supported,
    color_temp_supported,
)
from homeassistant.components.light.intent import INTENT_SET as INTENT_LIGHT_SET
from homeassistant.const import ATTR_ENTITY_ID, ATTR_SUPPORTED_FEATURES
from homeassistant.core import HomeAssistant, State
from homeassistant.helpers import intent, llm
from homeassistant.util.color import COLORS, color_name_to_rgb
from homeassistant.util.json import JsonObjectType
from homeassistant.util.percentage import (
    percentage_to_ranged_value,
    ranged_value_to_percentage,
)
import voluptuous as vol

from ..engine.arguments import numbers_said, said_numbers, said_percent
from ..engine.lang import colour_said, language_pack, step_sign, way_said
from ..engine.results import INVALID_ARGUMENTS
from ..engine.text import mentions
from ..safety.effects import Call
from .intent_reach import Reach, Target
from .matching import Slots
from .turns import one_command, turned

# How far "brighter" or "dim", said with no number, moves a light's
# brightness, and "a bit" a cover's position, in percent.
LIGHT_STEP = 25
COVER_STEP = 25
# How far "warmer" or "cooler", said of a light, moves its colour
# temperature, in kelvin: a warmer light is a lower one.
KELVIN_STEP = 500
# The whites a light in a colour turns to, warmer or cooler, in kelvin.
WARM_WHITE = 2700
COOL_WHITE = 5000


def unrequired(parameters: vol.Schema, key: str) -> vol.Schema:
    """An intent's schema with one of its required slots left optional."""
    return vol.Schema(
        {
            vol.Optional(str(name)) if str(name) == key else name: value
            for name, value in parameters.schema.items()
        }
    )


def level_unsaid(key: str) -> JsonObjectType:
    """A call refused for a level that neither it nor the request says."""
    return {
        "error": INVALID_ARGUMENTS,
        "error_text": f"Nothing was done: the request says no {key} or step; "
        f"ask which {key} to set.",
    }


_WHITES = ("cool_white", "warm_white")
_COLOUR_SLOTS = frozenset({"color", "temperature"})


def colour_as_said(slots: Slots, request: str | None, language: str) -> Slots:
    """The call's colour by a name HA's colours know: the one the request
    says, in its language too, over the model's ("rojo", which HA refuses,
    or a colour never said); else the one the model's words name ("warm
    orange"), unless the request says a level and no colour
    (`_made_up_colours_dropped`); else none, where HA would refuse the call
    for it. Where the request says a white ("cool white"), no colour or
    colour temperature: `warmed_lights` sets it. 0.5B sent "set the ceiling
    lights to cool white" with the colour "cool white", which HA's colour
    names lack, and a temperature of 25."""
    if request and way_said(request, language, _WHITES) is not None:
        return {key: slot for key, slot in slots.items() if key not in _COLOUR_SLOTS}
    if request:
        slots = _made_up_colours_dropped(slots, request, language)
    given = slots.get("color", {}).get("value")
    if not isinstance(given, str):
        return slots
    colour = (request and colour_said(request, language)) or (
        given if _known_colour(given) else colour_said(given, language)
    )
    rest = {key: slot for key, slot in slots.items() if key != "color"}
    return rest | {"color": {"value": colour}} if colour else rest


def _made_up_colours_dropped(slots: Slots, request: str, language: str) -> Slots:
    """The slots without a colour the model made up beside the level a
    request says: for "stelle die Stehlampe auf 70 Prozent", 0.5B sent the
    colour blue too, and the lamp turned blue. A request that says a number
    and no colour asks for none. A number of a name ("Lamp 2") is no level;
    one said in percent is, whatever slot the model put it in ("floor":
    "50"). (`backed_by_request` drops a colour temperature made up of the
    level.)"""
    named = {
        number
        for key in ("name", "area", "floor")
        for number in said_numbers(str(slots.get(key, {}).get("value", "")))
    }
    levels = set(numbers_said(request, language)) - named
    if not (levels or said_percent(request) is not None) or colour_said(
        request, language
    ):
        return slots
    return {key: slot for key, slot in slots.items() if key != "color"}


def _known_colour(name: str) -> bool:
    """Whether HA's colour names have it, as its light intent reads them."""
    return name.replace(" ", "").lower() in COLORS


def stepped(reach: Reach, slots: Slots, request: str | None, language: str) -> Reach:
    """The reach with its lights, covers or fans stepped the way the request
    says (`stepped_lights`, `stepped_covers`, `stepped_fans`), where it is
    one command that says no number; else as it was."""
    if (
        not request
        or not reach.targets
        or numbers_said(request, language)
        # "turn the lights off and the music down" turns the lights off.
        or not one_command(request, language)
    ):
        return reach
    return (
        stepped_lights(reach, slots, request, language)
        or warmed_lights(reach, slots, request, language)
        or stepped_covers(reach, request, language)
        or stepped_fans(reach, request, language)
        or reach
    )


def stepped_as_said(  # noqa: PLR0917 - the call, and the request
    hass: HomeAssistant,
    intent_type: str,
    reach: Reach,
    slots: Slots,
    llm_context: llm.LLMContext,
    request: str | None,
) -> Reach:
    """The reach with its levels stepped the way the request says
    (`stepped`); or, for a position call that gives no position where the
    request says a way and no small step ("den Rollladen hochfahren", sent
    as HassSetPosition with no position), its covers opened or closed as
    the on/off intents do; else as it was."""
    language = llm_context.language or hass.config.language
    reach = stepped(reach, slots, request, language)
    if (
        intent_type in (intent.INTENT_TURN_ON, INTENT_LIGHT_SET)
        and request
        and "color" not in slots
        and one_command(request, language)
    ):
        reach = coloured_lights(reach, request, language) or reach
    if (
        intent_type != intent.INTENT_SET_POSITION
        or ATTR_POSITION in slots
        or not request
        or not all(target.by_ha for target in reach.targets)
        or (sign := step_sign(request, language, ("open", "close"))) is None
    ):
        return reach
    return turned(
        hass,
        intent.INTENT_TURN_ON if sign > 0 else intent.INTENT_TURN_OFF,
        slots,
        assistant=llm_context.assistant,
        language=language,
        request=request,
    )


def stepped_lights(
    reach: Reach, slots: Slots, request: str, language: str
) -> Reach | None:
    """Each light's brightness stepped the way said ("dim the living room
    lights a bit", "make the kitchen brighter", "turn the lights down"),
    where the call sets no brightness. A dimmed light must be on: refused
    where none is. None where the reach is not all lights."""
    lights = [
        target.state
        for target in reach.targets
        if target.state.domain == "light"
        and brightness_supported(
            target.state.attributes.get(ATTR_SUPPORTED_COLOR_MODES)
        )
    ]
    if len(lights) != len(reach.targets) or "brightness" in slots:
        return None
    if (sign := step_sign(request, language, ("brighter", "dimmer"))) is None:
        return None
    step = sign * LIGHT_STEP
    if step < 0 and not (lights := [state for state in lights if state.state == "on"]):
        return _all_off(reach)
    return _made(
        reach,
        [
            (state, Call("light", "turn_on", {ATTR_BRIGHTNESS_STEP_PCT: step}))
            for state in lights
        ],
    )


def warmed_lights(
    reach: Reach, slots: Slots, request: str, language: str
) -> Reach | None:
    """Each light's colour temperature stepped the way said ("make the
    kitchen lights warmer") or set to the white said ("cool white"), where
    the call sets no temperature: HA has no intent for a step, and 0.5B
    leaves a white out. A light in a colour steps to a warm or a cool
    white. Stepped lights must be on; None where the reach is not all
    lights that take a colour temperature."""
    lights = [state for target in reach.targets if _takes_kelvin(state := target.state)]
    if len(lights) != len(reach.targets) or "temperature" in slots:
        return None
    white = way_said(request, language, _WHITES)
    # Not up or down, which step the brightness (`stepped_lights`).
    way = white or way_said(request, language, ("cooler", "warmer"))
    if way is None:
        return None
    sign = 1 if way in {"cooler", "cool_white"} else -1
    if not white and not (lights := [s for s in lights if s.state == "on"]):
        return _all_off(reach)

    def kelvin(state: State) -> int:
        attributes = state.attributes
        now = attributes.get(ATTR_COLOR_TEMP_KELVIN)
        if not white and isinstance(now, int | float):
            moved = now + sign * KELVIN_STEP
        else:  # a white said, or a light in a colour
            moved = COOL_WHITE if sign > 0 else WARM_WHITE
        low = attributes.get(ATTR_MIN_COLOR_TEMP_KELVIN) or moved
        high = attributes.get(ATTR_MAX_COLOR_TEMP_KELVIN) or moved
        return int(min(max(moved, low), high))

    return _made(
        reach,
        [
            (state, Call("light", "turn_on", {ATTR_COLOR_TEMP_KELVIN: kelvin(state)}))
            for state in lights
        ],
    )


def coloured_lights(reach: Reach, request: str, language: str) -> Reach | None:
    """Each light set to the one colour the request says ("mach das
    Flurlicht blau", which 0.5B sent as HassTurnOn and the light came on in
    the colour it had); a colour word of a light's name is no colour said
    ("Red Lamp"). None where the reach is not all lights that take a colour."""
    lights = [
        target.state
        for target in reach.targets
        if target.state.domain == "light"
        and color_supported(target.state.attributes.get(ATTR_SUPPORTED_COLOR_MODES))
    ]
    colour = colour_said(request, language)
    if (
        not lights
        or len(lights) != len(reach.targets)
        or colour is None
        or way_said(request, language, _WHITES) is not None
        or any(colour_said(state.name, language) == colour for state in lights)
    ):
        return None
    rgb = color_name_to_rgb(colour)
    return _made(
        reach,
        [
            (state, Call("light", "turn_on", {ATTR_RGB_COLOR: list(rgb)}))
            for state in lights
        ],
    )


def stepped_covers(reach: Reach, request: str, language: str) -> Reach | None:
    """Each cover's position moved a step the way said, where the request
    says a small step ("open the blinds a bit", "mach den Rollladen ein
    bisschen runter"): an open or close call would move it all the way.
    None where the reach is not all covers that take a position."""
    covers = [target.state for target in reach.targets if _positioned(target.state)]
    if (
        len(covers) != len(reach.targets)
        or not mentions(request, language_pack(language).a_bit)
        or (sign := step_sign(request, language, ("open", "close"))) is None
    ):
        return None
    step = sign * COVER_STEP
    return _made(
        reach,
        [
            (
                state,
                Call(
                    "cover",
                    "set_cover_position",
                    {
                        ATTR_POSITION: min(
                            max(state.attributes[ATTR_CURRENT_POSITION] + step, 0), 100
                        )
                    },
                ),
            )
            for state in covers
        ],
    )


def stepped_fans(reach: Reach, request: str, language: str) -> Reach | None:
    """Each fan's speed moved one of its own steps the way said ("turn the
    fan down", "mach den Ventilator runter"): the off call 0.5B makes for it
    would stop the fan. A fan turned down must be on: refused where none
    is. None where the reach is not all fans that take a speed."""
    fans = [target.state for target in reach.targets if _speeds(target.state)]
    sign = step_sign(request, language, ("up", "down"))
    if len(fans) != len(reach.targets) or sign is None:
        return None
    if sign < 0 and not (fans := [fan for fan in fans if fan.state == "on"]):
        return _all_off(reach)

    def speed(fan: State) -> int:
        """The next speed the way said from the one nearest the fan's
        percentage: HA's decrease_speed takes 67% for the top of three
        speeds, and moves it to 66%."""
        speeds = (
            1,
            round(100 / float(fan.attributes.get(ATTR_PERCENTAGE_STEP) or 100)),
        )
        now = float(fan.attributes.get(ATTR_PERCENTAGE) or 0)
        index = math.floor(percentage_to_ranged_value(speeds, now) + 0.5)
        moved = ranged_value_to_percentage(speeds, index + sign)
        return min(max(moved, 0), 100)

    return _made(
        reach,
        [
            (fan, Call("fan", "set_percentage", {ATTR_PERCENTAGE: speed(fan)}))
            for fan in fans
        ],
    )


def _all_off(reach: Reach) -> Reach:
    """The reach refused for being off: dimmed or turned down, HA's light or
    fan call would have turned it on."""
    return Reach(refused=[target.state for target in reach.targets], acts_when=("on",))


def _takes_kelvin(state: State) -> bool:
    """Whether a light takes a colour temperature."""
    return state.domain == "light" and color_temp_supported(
        state.attributes.get(ATTR_SUPPORTED_COLOR_MODES)
    )


def _speeds(state: State) -> bool:
    """Whether a fan takes a speed."""
    features = state.attributes.get(ATTR_SUPPORTED_FEATURES, 0)
    return state.domain == "fan" and bool(features & FanEntityFeature.SET_SPEED)


def _positioned(state: State) -> bool:
    """Whether a cover takes a position and tells its own."""
    features = state.attributes.get(ATTR_SUPPORTED_FEATURES, 0)
    return (
        state.domain == "cover"
        and bool(features & CoverEntityFeature.SET_POSITION)
        and isinstance(state.attributes.get(ATTR_CURRENT_POSITION), int | float)
    )


def _made(reach: Reach, calls: list[tuple[State, Call]]) -> Reach:
    """The reach with these calls of Jarvis's own, each on its entity."""
    return replace(
        reach,
        targets=[
            Target(
                state,
                replace(call, data={ATTR_ENTITY_ID: state.entity_id, **call.data}),
                by_ha=False,
            )
            for state, call in calls
        ],
    )
