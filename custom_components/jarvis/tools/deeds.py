"""What actions do, said the way people say it (`phrases.Deed`), and whether
the user's words name their targets."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from homeassistant.components.light import (
    ATTR_BRIGHTNESS_STEP_PCT,
    ATTR_COLOR_TEMP_KELVIN,
)
from homeassistant.const import ATTR_ENTITY_ID
from homeassistant.core import HomeAssistant
from homeassistant.helpers import intent
from homeassistant.util.json import JsonObjectType

from ..engine.phrases import (
    CANNOT,
    DID,
    DID_FIELD,
    FINAL_REPLY,
    TO_DO,
    Deed,
    DidPhrase,
    FinalReply,
    actions,
    phrase,
)
from ..engine.results import WRONG_TOOL
from ..safety.effects import Call
from ..safety.policy import SENSITIVE_SERVICES
from .services import ServiceAction

# What HA's intents do where "turned on/off" would be wrong, or where the
# service is not on/off, to say what ran: verbs of `phrases.DID`.
_PLAIN_VERBS = {
    ("lock", "turn_on"): "lock",
    ("lock", "lock"): "lock",
    ("cover", "turn_off"): "close",
    ("cover", "close_cover"): "close",
    ("valve", "turn_on"): "open",
    ("valve", "turn_off"): "close",
    ("valve", "open_valve"): "open",
    ("valve", "close_valve"): "close",
    ("valve", "set_valve_position"): "move",
    ("vacuum", "start"): "start",
    ("vacuum", "pause"): "pause",
    ("vacuum", "return_to_base"): "dock",
    ("media_player", "media_pause"): "pause",
    ("media_player", "media_play"): "resume",
    ("media_player", "media_next_track"): "next",
    ("media_player", "media_previous_track"): "previous",
    ("media_player", "mute"): "mute",
    ("media_player", "unmute"): "unmute",
    ("media_player", "volume_up"): "volume_up",
    ("media_player", "volume_down"): "volume_down",
    # A light's brightness stepped (`said_service`).
    ("light", "brighten"): "brighten",
    ("light", "dim"): "dim",
    ("todo", "add_item"): "add",
    ("todo", "update_item"): "complete",
}
# A thermostat set to a temperature, said with its unit (`meant_temperature`).
TEMPERATURE_SET = "set_temperature"
# Verbs said of a to-do item, which need its words.
_ITEM_VERBS = frozenset({"add", "complete"})
# "Turned on" the doorbell would be wrong: HA presses buttons.
_NOT_ON_OFF = frozenset({"button", "input_button"})
# Service data that sets a level in percent, with its verb of `phrases.DID`:
# "set Floor Lamp to 70%" is what a brightness call did, not "turned on".
_LEVELS = {
    "brightness_pct": "set",
    "percentage": "set",
    "volume_level": "set_volume",
}


def _verb(domain: str, service: str) -> str | None:
    if verb := SENSITIVE_SERVICES.get((domain, service)) or _PLAIN_VERBS.get(
        (domain, service)
    ):
        return verb
    if service in (*_LEVELS.values(), TEMPERATURE_SET):
        return service
    if domain in _NOT_ON_OFF or service not in ("turn_on", "turn_off"):
        return None
    return service


def said_service(call: Call) -> str:
    """A call's service as `deeds` tells them apart, by its data too: muting
    and unmuting are one service; a level set is a verb of its own (with
    `said_level`); a light's colour has none ("")."""
    if (call.domain, call.service) == ("media_player", "volume_mute"):
        return "mute" if call.data.get("is_volume_muted") else "unmute"
    if (call.domain, call.service) == ("todo", "update_item") and (
        call.data.get("status") != "completed" or "rename" in call.data
    ):
        return ""  # not checked off: renamed, or put back
    settings = set(call.data) - {ATTR_ENTITY_ID}
    if settings == {ATTR_BRIGHTNESS_STEP_PCT}:
        return "brighten" if call.data[ATTR_BRIGHTNESS_STEP_PCT] > 0 else "dim"
    if settings == {ATTR_COLOR_TEMP_KELVIN}:
        return TEMPERATURE_SET  # a light's colour temperature, in kelvin
    if len(settings) == 1 and (verb := _LEVELS.get(settings.pop())):
        return verb
    if call.service in ("turn_on", "turn_off") and set(call.data) - {ATTR_ENTITY_ID}:
        return ""
    return call.service


def said_level(calls: Iterable[Call]) -> str | None:
    """The level in percent that the calls set, as said ("70"), or a light's
    colour temperature with its unit ("2700 K"), if one."""
    for call in calls:
        if isinstance(kelvin := call.data.get(ATTR_COLOR_TEMP_KELVIN), int | float):
            return f"{kelvin:g} K"
        for key in ("position", *_LEVELS):
            value = call.data.get(key)
            if isinstance(value, str) and value.strip().isdigit():
                value = int(value)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                # A player's volume is 0 to 1 in its service's data.
                return f"{value * 100 if key == 'volume_level' else value:g}"
    return None


def deeds(
    hass: HomeAssistant,
    calls: Iterable[tuple[str, str]],
    position: Any = None,
    item: str = "",
) -> list[Deed]:
    """What service calls on entities (id, service) do, a deed per verb; none
    when one has no verb Jarvis can say."""
    targets: dict[str, list[str]] = {}
    for entity_id, service in calls:
        verb = _verb(entity_id.partition(".")[0], service)
        if verb is None or (verb in _ITEM_VERBS and not item):
            return []
        state = hass.states.get(entity_id)
        targets.setdefault(verb, []).append(state.name if state else entity_id)
    where = "" if position is None else str(position)
    return [Deed(verb, tuple(names), where, item) for verb, names in targets.items()]


def service_deeds(hass: HomeAssistant, action: ServiceAction) -> list[Deed]:
    """What a service call does, as `deeds`."""
    call = Call(action.domain, action.service, action.data)
    service = said_service(call)
    calls = [(entity_id, service) for entity_id in action.entity_ids]
    item = action.data.get("item")
    return deeds(hass, calls, said_level([call]), item if isinstance(item, str) else "")


def describe(deeds: Sequence[Deed], calls: Iterable[Call]) -> str:
    """An action in English for the model: its deeds, else its service calls."""
    if deeds and all(deed.verb in TO_DO for deed in deeds):
        return actions(deeds, TO_DO, "en")
    return " and ".join(
        f"{call.domain}.{call.service} {', '.join(call.entity_ids)}".strip()
        for call in calls
    )


def acted_on(result: Mapping[str, Any]) -> list[str]:
    """The entities an action's result says it acted on: HA's intents list
    them under `data.success` (those whose handler acts through entities,
    as the relative volume's does, only as matched), Jarvis's own service
    calls under `states`."""
    data = result.get("data")
    succeeded = data.get("success") if isinstance(data, dict) else None
    states = result.get("states")
    named = [
        entity_id
        for target in (succeeded if isinstance(succeeded, list) else [])
        if isinstance(target, dict)
        and target.get("type") == "entity"
        and isinstance(entity_id := target.get("id"), str)
    ]
    original = getattr(result, "original", None)
    if not named and isinstance(original, intent.IntentResponse):
        named = [state.entity_id for state in original.matched_states]
    return named + (list(states) if isinstance(states, dict) else [])


def with_did_phrase(
    hass: HomeAssistant,
    result: JsonObjectType,
    language: str,
    services: Mapping[str, str],
    *,
    level: str | None = None,
    service: str = "",
) -> JsonObjectType:
    """The result, with what it did in words if Jarvis can say that of every
    entity it acted on (the reply loop may then say it instead of the model):
    by the service said of each (`said_service`), or else `service`."""
    if result.get("response_type") != "action_done":
        return result
    calls = [
        (entity_id, services.get(entity_id, service)) for entity_id in acted_on(result)
    ]
    if calls and (acts := deeds(hass, calls, level)):
        return result | {DID_FIELD: DidPhrase(actions(acts, DID, language))}
    return result


def cannot_result(deeds: Sequence[Deed], why: str, language: str) -> JsonObjectType:
    """A call refused for what its targets cannot do: why, for the model,
    and the reply, "Sorry, I can't <the deeds>.", where Jarvis can say them."""
    result: JsonObjectType = {
        "error": WRONG_TOOL,
        "error_text": f"Nothing was done: {why}",
    }
    if deeds and all(deed.verb in TO_DO for deed in deeds):
        cannot = actions(deeds, TO_DO, language)
        result[FINAL_REPLY] = FinalReply(phrase(CANNOT, language).format(action=cannot))
    return result
