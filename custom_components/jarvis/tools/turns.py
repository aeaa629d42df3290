"""The on/off intents' reach turned the way the request's words say: a
lock, cover or valve, or any device turned on or off, by the command of the
request that names it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from homeassistant.components.media_player.const import (
    INTENT_MEDIA_PAUSE,
    INTENT_MEDIA_UNPAUSE,
)
from homeassistant.components.vacuum.intent import (
    INTENT_VACUUM_RETURN_TO_BASE,
    INTENT_VACUUM_START,
)
from homeassistant.const import SERVICE_TURN_ON
from homeassistant.core import HomeAssistant, State
from homeassistant.helpers import intent

from ..engine.lang import way_said
from ..engine.router import command_parts, own_verb_fit
from ..engine.text import lower_words
from ..engine.types import ToolSpec
from .intent_reach import ON_OFF_INTENTS, Reach, intent_targets, service_intent_handler
from .matching import Slots
from .meant import part_naming

# The two ways the on/off intents turn a device of these domains, HassTurnOn's
# first; any other is turned on or off, but for those only ever turned on.
_TURNS = {
    "lock": ("lock", "unlock"),
    "cover": ("open", "close"),
    "valve": ("open", "close"),
}
_ON_OFF = ("on", "off")
# The intents that start a device and those that stop it, each with the
# other: a vacuum stopped goes back to its base (HA has no intent to stop it
# where it is), a player is paused.
_STARTS = {
    INTENT_VACUUM_START: INTENT_VACUUM_RETURN_TO_BASE,
    INTENT_MEDIA_UNPAUSE: INTENT_MEDIA_PAUSE,
}
_OTHER = _STARTS | {stop: start for start, stop in _STARTS.items()}
_ONLY_ON = frozenset({"scene", "script", "button", "input_button"})


def turned_as_said(
    hass: HomeAssistant,
    intent_type: str,
    reach: Reach,
    slots: Slots,
    *,
    assistant: str | None,
    language: str,
    request: str | None,
) -> Reach:
    """The reach of the on/off intent that turns the call's devices the way
    the request's words say, where the call turns them the other way, run by
    Jarvis as HA's tool is the other one (0.5B locked the back door for "abre
    con llave la puerta trasera", opened the garage door for "baja la puerta
    del garaje del todo", and turned on the lamp of "apágame la lámpara de
    pie"); refused where the words only turn another kind
    (`_turned_elsewhere`); else the reach as it is."""
    domains = {target.state.domain for target in reach.targets}
    if _sets_as_it_turns_on(hass, intent_type):
        intent_type = intent.INTENT_TURN_ON
    if intent_type not in ON_OFF_INTENTS or not request or not domains:
        return reach
    turns = {_TURNS.get(domain, _ON_OFF) for domain in domains}
    if len(turns) != 1 or domains & _ONLY_ON:
        return _turned_elsewhere(reach, domains, request, language)
    ways = turns.pop()
    own_part = part_naming(hass, [t.state for t in reach.targets], request, language)
    if (way := way_said(own_part, language, ways)) is None:
        return _turned_elsewhere(reach, domains, request, language)
    meant = intent.INTENT_TURN_ON if way == ways[0] else intent.INTENT_TURN_OFF
    if meant == intent_type:
        return reach
    return turned(
        hass, meant, slots, assistant=assistant, language=language, request=request
    )


def started_as_said(
    hass: HomeAssistant,
    intent_type: str,
    reach: Reach,
    slots: Slots,
    *,
    assistant: str | None,
    language: str,
    request: str | None,
) -> Reach:
    """The reach of the intent that starts or stops the call's devices the
    way the request's words say, where the call does the other, run by
    Jarvis: 0.5B sent "stopp den Saugroboter" as HassVacuumStart, and the
    vacuum started. Else the reach as it is."""
    if (other := _OTHER.get(intent_type)) is None or not request or not reach.targets:
        return reach
    own_part = part_naming(hass, [t.state for t in reach.targets], request, language)
    way = way_said(own_part, language, ("start", "stop")) or _way_by_words(
        intent_type, other, own_part, [t.state for t in reach.targets]
    )
    if way is None or (way == "start") == (intent_type in _STARTS):
        return reach
    return turned(
        hass, other, slots, assistant=assistant, language=language, request=request
    )


def _way_by_words(
    intent_type: str, other: str, text: str, states: Sequence[State]
) -> str | None:
    """The way ("start" or "stop") of the other intent, where the text says
    words of its tool and none of the called one's, the devices' names left
    out ("Robot Vacuum"): "manda el robot aspirador del jardín a la base"
    (HassVacuumReturnToBase's "base") came as HassVacuumStart."""
    names = {word for state in states for word in lower_words(state.name)}
    text = " ".join(word for word in lower_words(text) if word not in names)
    called, meant = ToolSpec(intent_type, "", {}), ToolSpec(other, "", {})
    if own_verb_fit(meant, text, [called]) and not own_verb_fit(called, text, [meant]):
        return "start" if other in _STARTS else "stop"
    return None


def turns_as_said(
    hass: HomeAssistant,
    intent_type: str,
    states: Sequence[State],
    request: str,
    language: str,
) -> bool:
    """Whether the request's words say the way an intent turns these
    devices: an on/off intent, the way it turns them ("kill the kettle" is
    no HassTurnOn); one that turns on what it sets, anything but off."""
    domains = {state.domain for state in states}
    sets = _sets_as_it_turns_on(hass, intent_type)
    if intent_type not in ON_OFF_INTENTS and not sets:
        return True
    if domains <= _ONLY_ON:
        return intent_type == intent.INTENT_TURN_ON
    if len(turns := {_TURNS.get(domain, _ON_OFF) for domain in domains}) != 1:
        return False
    ways = turns.pop()
    way = way_said(part_naming(hass, states, request, language), language, ways)
    if sets:
        return way != ways[1]
    return way == ways[intent_type == intent.INTENT_TURN_OFF]


def _sets_as_it_turns_on(hass: HomeAssistant, intent_type: str) -> bool:
    """Whether an intent sets what it turns on (HassLightSet: a light's
    brightness, colour or temperature), so turns on whatever it sets: 0.5B
    sent "kill the ceiling light in the bathroom" as HassLightSet with a
    colour never said, and with nothing to set."""
    handler = service_intent_handler(hass, intent_type)
    return (
        isinstance(handler, intent.ServiceIntentHandler)
        and handler.service == SERVICE_TURN_ON
        and bool(handler.optional_slots)
    )


def turned(
    hass: HomeAssistant,
    intent_type: str,
    slots: Slots,
    *,
    assistant: str | None,
    language: str,
    request: str | None,
) -> Reach:
    """The reach of an intent for the call's slots (an on/off one, or one
    that starts or stops), run by Jarvis: HA's tool is another one."""
    reach = intent_targets(
        hass,
        intent_type,
        slots,
        assistant=assistant,
        language=language,
        request=request,
    )
    return replace(reach, targets=[replace(t, by_ha=False) for t in reach.targets])


def _turned_elsewhere(
    reach: Reach, domains: set[str], request: str, language: str
) -> Reach:
    """The reach refused, where a request of one command says only how a
    lock is turned and the call turns something else, or how a door is
    opened and the call turns a lock: 0.5B wrote "lock all the doors" (no
    lock exposed) as HassTurnOn for "door", which would open the garage door.
    Opening and closing are said of lights too ("auf", "baja la luz"), so
    those count against locks only."""
    if domains == {"lock"}:
        elsewhere = _TURNS["cover"]
    elif "lock" not in domains:
        elsewhere = _TURNS["lock"]
    else:
        return reach
    said = [way for way in elsewhere if way_said(request, language, (way, way))]
    if not said or not one_command(request, language):
        return reach
    return Reach(refused=[t.state for t in reach.targets], way_elsewhere=said[0])


def one_command(request: str, language: str) -> bool:
    """Whether a request holds one command: no joining word of its language
    or English, and no comma between commands."""
    return all(len(command_parts(request, code)) == 1 for code in {language, "en"})
