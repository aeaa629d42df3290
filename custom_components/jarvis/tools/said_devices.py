"""The devices a request's own words name, where a model's call named them
wrongly: a placeholder ("..."), a made-up name, a guessed place or kind.
Used by `targets.repair_targets`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from homeassistant.core import HomeAssistant, State
from homeassistant.helpers import area_registry as ar

from ..engine.grounding import Device
from ..engine.lang import leaves_out, says_everything
from ..engine.pointed import points_to
from ..engine.router import command_parts
from ..engine.text import folded_words, most_specific, telling_words
from .matching import ENTITIES, Matching, Slots, reach
from .meant import MAX_CHOICES, Answer, said_targets, which, words_fitting
from .places import area_said
from .services import entity_area

# What "everything in the office" means when the model named the room as a
# device: not its doors, blinds or locks.
ROOM_DOMAINS = ["fan", "light", "media_player", "switch"]


def named_by_user(
    hass: HomeAssistant,
    handler: Matching,
    rest: Slots,
    assistant: str | None,
    request: str | None,
    *,
    language: str | None = None,
) -> str | None:
    """The one device the call can reach that the user's own words name in
    full, for a name the model left a placeholder ("...") or made up; the
    most specific if one name holds another ("TV", "TV Speaker"). Where the
    words name several, the one the joined commands name, of those not said
    of another area ("prende la luz del techo en el salón y luego prende la
    lámpara de pie en la cocina", for the Salón, which has both)."""
    reachable = reach(hass, handler, rest, assistant)
    if (one := _one_named(reachable, request or "")) or not request:
        return one
    area = rest.get("area", {}).get("value")
    found = {
        name
        for part in command_parts(request, language)
        if not _said_elsewhere(hass, part, area)
        and (name := _one_named(reachable, part))
    }
    return found.pop() if len(found) == 1 else None


def said_or_meant(
    hass: HomeAssistant,
    handler: Matching,
    where: Slots,
    assistant: str | None,
    request: str | None,
    *,
    language: str,
) -> Slots | Answer | None:
    """In place of a name that names nothing, the device the user's own
    words name (`named_by_user`), else those they point to
    (`meant_by_words`); None where they do neither."""
    if (
        said := named_by_user(
            hass, handler, where, assistant, request, language=language
        )
    ) is None:
        return meant_by_words(
            hass, handler, where, assistant, request, language=language
        )
    named = [s for s in reach(hass, handler, where, assistant) if s.name == said]
    # A name several devices have: the one in the place the words say.
    if request and len(meant := said_targets(hass, named, request, language)) == 1:
        return where | named_apart(hass, meant[0], named)
    return where | {"name": {"value": said}}


def meant_by_words(
    hass: HomeAssistant,
    handler: Matching,
    rest: Slots,
    assistant: str | None,
    request: str | None,
    *,
    language: str,
) -> Slots | Answer | None:
    """For a placeholder name ("..."), the devices the call can reach that
    the user's words point to: those sharing the most words of their names,
    else those of a kind the words say ("start the vacuum", which 0.5B sent
    with the example call's "..."). The one such device, or which of them,
    or all of them where the words say everything ("mute everything"; of
    the kinds a room's "everything" is, never its doors or locks); None
    where the words point to none."""
    if not request:
        return None
    reachable = reach(hass, handler, rest, assistant)
    said = folded_words(request)
    by_name = {state: words_fitting(state.name, said) for state in reachable}
    best = max(by_name.values(), default=0)
    meant = [state for state, fit in by_name.items() if best and fit == best] or [
        state
        for state in reachable
        if points_to(Device((), state.domain, state.state), said)
    ]
    # "starte den Staubsauger im Büro", of five robots of one name.
    meant = said_targets(hass, meant, request, language)
    if len(meant) == 1:
        return rest | named_apart(hass, meant[0], reachable)
    if says_everything(request, language) and not leaves_out(request, language):
        every = [state for state in meant if state.domain in ROOM_DOMAINS]
        return of_all(every) if every else None
    return which(hass, meant, language) if meant else None


def in_place_said(  # noqa: PLR0917 - the call, and the request
    hass: HomeAssistant,
    handler: Matching,
    slots: Slots,
    assistant: str | None,
    request: str | None,
    language: str,
) -> Slots:
    """The slots for the one device of a shared name in the place the
    request says, where the model's place was made up: 0.5B sent "mach den
    Fernseher in der Küche leiser" with the area "Kochzimmer", and HA's
    volume intent, given the name alone, refused it as a name of several."""
    reached = reach(hass, handler, slots, assistant)
    if (
        request
        and len(reached) > 1
        and len(meant := said_targets(hass, reached, request, language)) == 1
    ):
        return slots | named_apart(hass, meant[0], reached)
    return slots


def named_apart(hass: HomeAssistant, state: State, others: Sequence[State]) -> Slots:
    """The slots that name this device alone: its name, and its area where
    another device has that name."""
    slots: Slots = {"name": {"value": state.name}}
    shared = any(
        o.name == state.name and o.entity_id != state.entity_id for o in others
    )
    area_id = entity_area(hass, state.entity_id) if shared else None
    if area_id and (area := ar.async_get(hass).async_get_area(area_id)):
        slots["area"] = {"value": area.name}
    return slots


def guessed_name_meant(  # noqa: PLR0917 - the call, its name and places
    hass: HomeAssistant,
    handler: Matching,
    name: str,
    places: Slots,
    assistant: str | None,
    request: str,
    *,
    language: str,
) -> Slots | Answer | None:
    """For a name with none of the user's words, the model's guess as a
    placeholder is, given to an intent for one kind of device: the device
    their words name, else those they point to (`meant_by_words`), in the
    places they said. 0.5B sent "set the thermostat to 21" with "Living
    Room" for its name and area. The on/off intents' guesses are left to
    the rest of the repair: of every kind, the words point too widely. Where
    the words point to none ("set the temperature to 19"), the intent's kind
    is what they meant: its one device there, or which of a few."""
    said_words = folded_words(request)
    if len(kinds := handler.required_domains or ()) != 1:
        return None
    # Only words for the kind ("Staubsauger", the user's word, for one of
    # two called Saugroboter) is a guess as well.
    of_kind = Device((), next(iter(kinds)), "")
    if not all(points_to(of_kind, {word}) for word in telling_words(name)) and (
        telling_words(name) & said_words
        # "heat pump" said of "HeatPump".
        or any(len(word) > 3 and word in name.casefold() for word in said_words)
    ):
        return None
    if (
        meant := said_or_meant(
            hass, handler, places, assistant, request, language=language
        )
    ) is not None:
        return meant
    kind = reach(hass, handler, places, assistant)
    if len(kind) == 1:
        return places | {"name": {"value": kind[0].name}}
    return which(hass, kind, language) if 1 < len(kind) <= MAX_CHOICES else None


def _one_named(states: Sequence[State], text: str) -> str | None:
    """The one of these devices the text names in full, the most specific."""
    said = folded_words(text)
    named = {
        state.name: frozenset(telling)
        for state in states
        if (telling := telling_words(state.name)) and telling <= said
    }
    most = most_specific(named)
    return most[0] if len(most) == 1 else None


def _said_elsewhere(hass: HomeAssistant, text: str, area: Any) -> bool:
    """Whether the text names an area other than this one."""
    said = area_said(hass, text).get("area", {}).get("value")
    return bool(area and said and folded_words(str(said)) != folded_words(str(area)))


def of_all(states: Sequence[State]) -> Slots:
    """Slots for each of these devices, which Jarvis's own calls act on
    (`ENTITIES`)."""
    return {
        ENTITIES: {"value": [state.entity_id for state in states]},
        "domain": {"value": sorted({state.domain for state in states})},
    }
