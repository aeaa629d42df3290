"""Intent targets as small models get them wrong, put right before HA matches them.

A 0.5B model asks HassTurnOff for a device called "office" (an area), HassTurnOn
for "light" (a kind of device), or sends a placeholder name. HA answers all of
them with a `MatchFailedError` whose text the model cannot use, and the turn
fails. Here a name that is an area or floor becomes that slot (with the kind
of device the request's verb is for: "unlock the side door lock" means the
locks of the Side Door area, whatever kind the model named), a word that fits
one device becomes that device's name, and a word that fits several becomes a
question to the user (inside an area: all of them, as HA does for "the lights
in the kitchen").
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from homeassistant.core import DOMAIN as HA_DOMAIN, HomeAssistant, State
from homeassistant.helpers import (
    area_registry as ar,
    floor_registry as fr,
    intent,
)

from ..engine.lang import (
    leaves_out,
    says_a_step,
    says_all,
    says_everything,
    verb_domains,
)
from ..engine.pointed import kinds_named
from ..engine.results import NO_MATCH
from ..engine.text import (
    folded_words,
    said_in_plural,
    telling_words,
    within,
)
from .matching import Matching, Slots, intent_constraints, reach
from .meant import Answer, which
from .places import (
    area_said,
    place_holds,
    pointed_instead,
    said_places,
    unknown_places,
)
from .said_devices import (
    ROOM_DOMAINS,
    guessed_name_meant,
    in_place_said,
    named_by_user,
    of_all,
    said_or_meant,
)
from .services import closest_names

# Slots that narrow down where a name is looked for; those of them by kind.
_NARROWING = ("area", "floor", "domain", "device_class")


_KINDS = ("domain", "device_class")
_PLACES = ("area", "floor")


def repair_targets(
    hass: HomeAssistant,
    handler: Matching,
    slots: Slots,
    *,
    assistant: str | None,
    language: str,
    request: str | None = None,
) -> Slots | Answer:
    """Slots HA can match, or what to answer without calling HA. The user's
    `request` says, by its verbs, what kind of device an area's name is for
    ("unlock the side door lock": the locks of the Side Door area)."""
    name = slots.get("name", {}).get("value")
    if name is None:
        return _of_kinds_named(
            hass, handler, slots, assistant, request=request, language=language
        )
    if not isinstance(name, str) or name == "all":
        return slots
    if (
        everywhere := _everything_in(hass, handler, name, request, language)
    ) is not None:
        return everywhere
    # A name several kinds of entity share: the user's verb says which one
    # ("open" the opener's cover), whatever other kind the model picked.
    if _kind_unsaid(slots, request, language) and (
        kinds := _kinds_in(
            hass, handler, slots, assistant, request=request, language=language
        )
    ):
        return kinds
    if (
        pointed := pointed_instead(
            hass, handler, slots, assistant, request, language=language
        )
    ) is not None:
        return pointed
    if _matches(hass, handler, slots, assistant):
        return slots
    # A device's own name wins over an area, floor or kind the model added
    # wrongly (1.5B sent the garage door with domain "homeassistant").
    named = {k: v for k, v in slots.items() if k not in _NARROWING}
    # Not where the name is none of the user's words and the place is theirs:
    # "pon los focos en el cuarto de los niños al 20%" came as HassTurnOn
    # "Calefactor" there (and the floor "20%"), and the heater of another
    # room was turned on.
    made_up = unknown_places(hass, slots)
    spoken = {
        key: value
        for key, value in said_places(slots, request).items()
        if key in _PLACES and key not in made_up
    }
    if (
        request
        and spoken
        and not telling_words(name) & folded_words(request)
        and (said := named_by_user(hass, handler, spoken, assistant, request))
    ):
        return spoken | {"name": {"value": said}}
    if named != slots and _matches(hass, handler, named, assistant):
        # Unless the user's other words point past it ("kitchen lights at
        # fifty percent" as HassLightSet "kitchen" in a made-up area: the
        # Kitchen player, which HA's light intent would also reach).
        pointed = pointed_instead(
            hass, handler, named, assistant, request, language=language
        )
        if pointed is not None:
            return pointed
        return in_place_said(hass, handler, named, assistant, request, language)
    # A kind no entity has is a guess ("door", "smart_lock"): the name decides.
    if "domain" in slots and not hass.states.async_entity_ids(slots["domain"]["value"]):
        slots = {key: value for key, value in slots.items() if key != "domain"}
    # So is an area or floor the home does not have (0.5B fills every slot:
    # floor "...", area "Vorhang").
    guessed = unknown_places(hass, slots)
    if guessed:
        slots = {key: value for key, value in slots.items() if key not in guessed}
        if _matches(hass, handler, slots, assistant):
            return slots
    rest = {key: value for key, value in slots.items() if key != "name"}
    words = folded_words(name)
    if not words:
        if (
            meant := said_or_meant(
                hass, handler, rest, assistant, request, language=language
            )
        ) is not None:
            return meant
        return _no_match(f"'{name}' is not a name: say which device or area.")
    # A place the user did not say yields to a name that is a place ("start
    # the vacuum in the garage": name "Garage", area "Living Room" by 0.5B).
    places = said_places(rest, request) if request else rest
    # A room's devices an intent can act on: its own kind's only, which
    # HA's handler refuses any other domain for ("inicia el robot aspirador
    # en el pasillo" as HassVacuumStart named "Pasillo": "invalid slot info").
    acted_on = sorted(_own_kinds(handler) or ROOM_DOMAINS)
    place: Slots | None = None
    if "area" not in places and any(intent.find_areas(name, ar.async_get(hass))):
        place = places | {"area": {"value": name}}
    elif "floor" not in places and any(intent.find_floors(name, fr.async_get(hass))):
        place = places | {"floor": {"value": name}}
    elif any(
        folded_words(name) == folded_words(str(places[key]["value"]))
        for key in ("area", "floor")
        if key in places
    ):
        place = places  # the name is the place the call gives ("Office" twice)
    if (
        place is not None
        and request
        and not telling_words(name) <= folded_words(request)
    ):
        # A room the user did not say is a guess too ("Guest Bathroom" for
        # "mute the speaker in the guest room", by 0.5B): the device their
        # words name, in the room they say.
        spoken = places | area_said(hass, request)
        # The kind the model gave may be a guess as well ("tv" for a speaker).
        unkinded = {k: v for k, v in spoken.items() if k not in _KINDS}
        for where in (spoken, unkinded):
            if (
                said := named_by_user(
                    hass, handler, where, assistant, request, language=language
                )
            ) is not None:
                return where | {"name": {"value": said}}
        if (
            meant := guessed_name_meant(
                hass, handler, name, unkinded, assistant, request, language=language
            )
        ) is not None:
            return meant
    if place is not None:
        # The request's verbs say the kind; the model's may be a guess
        # ("Robot Vacuum" as a device class).
        unkinded = {k: v for k, v in place.items() if k not in _KINDS}
        if kinds := _kinds_in(
            hass, handler, unkinded, assistant, request=request, language=language
        ):
            return kinds
        if (verbs := verb_domains(request or "", language)) and not place_holds(
            hass, unkinded, verbs, assistant
        ):
            # Not the whole room for a request about something it lacks:
            # 0.5B turned the kitchen's lights on for "añade llamar a la
            # abuela a mis tareas" (HassTurnOn, name "Cocina").
            return _no_match(
                f"Nothing was done: {name} has no {' or '.join(sorted(verbs))} "
                "entity, which the user's request is about."
            )
        # The kinds the request names, where the place has them: "dim the
        # lights on the first floor" came as HassLightSet named "First
        # Floor", and its speaker and heater were turned on too.
        if (
            kinded := _of_kinds_named(
                hass, handler, unkinded, assistant, request=request, language=language
            )
        ) != unkinded:
            return kinded
        room = {"domain": {"value": acted_on}} | place
        # The model's kind where the room has it; else the kinds Jarvis
        # knows: 0.5B sent "prende el árbol de Navidad en el garaje" as
        # "garaje" with the device class "garage", which no plug has.
        if reach(hass, handler, room, assistant):
            return room
        return unkinded | {"domain": {"value": acted_on}}
    # Everything the call could reach without the name, then the ones it
    # fits; where none does, in the places the user said, of any kind ("open
    # the door", area "Living Room" and device class "door" by 0.5B: which
    # of the home's doors).
    fitting = _fitting(hass, handler, rest, assistant, words)
    told = {k: v for k, v in said_places(rest, request).items() if k not in _KINDS}
    if (
        not fitting
        and request
        and told != rest
        and (elsewhere := _fitting(hass, handler, told, assistant, words))
    ):
        rest, fitting = told, elsewhere
    if len(fitting) == 1:
        return rest | {"name": {"value": fitting[0].name}}
    if fitting and ("area" in rest or "floor" in rest):
        return rest | {"domain": {"value": sorted({s.domain for s in fitting})}}
    if every := _all_said(fitting, name, request, language):
        return of_all(every)
    if fitting:
        return which(hass, fitting, language)
    if ("area" in rest or "floor" in rest) and (
        kinds := _kinds_in(
            hass, handler, rest, assistant, request=request, language=language
        )
    ):
        return kinds
    if (area := _area_within(hass, words)) is not None:
        # "Bedroom Light": the light in the Bedroom, which 0.5B named as one.
        leftover = " ".join(sorted(words - _area_words(area)))
        inside = repair_targets(
            hass,
            handler,
            rest | {"area": {"value": area.name}, "name": {"value": leftover}},
            assistant=assistant,
            language=language,
            request=request,
        )
        if not (isinstance(inside, Answer) and inside.result["error"] == NO_MATCH):
            return inside
    exposed = intent.async_match_targets(
        hass, intent.MatchTargetsConstraints(assistant=assistant)
    ).states
    if request and (
        meant := guessed_name_meant(
            hass,
            handler,
            name,
            said_places(rest, request),
            assistant,
            request,
            language=language,
        )
    ):
        return meant
    if any(_fits(words, state) for state in exposed):
        return slots  # it exists but cannot do this: HA's own error says so
    # The user's own words, within the places they said: 0.5B fills in real
    # ones they did not ("silencia la televisión", area "Jardín"), and kinds
    # ("baja la cortina del todo" as "Cortina del todo" with the device
    # class "curtain", which the blind named Cortina does not have).
    for where in (rest, said_places(rest, request), told):
        if (
            said := named_by_user(
                hass, handler, where, assistant, request, language=language
            )
        ) is not None:
            return where | {"name": {"value": said}}
    return _no_match(
        f"Nothing in the home is called '{name}'. "
        + closest_names("device", name, [state.name for state in exposed])
    )


def named_instead(
    hass: HomeAssistant,
    handler: Matching,
    slots: Slots,
    refused: Sequence[State],
    *,
    assistant: str | None,
    request: str | None,
    language: str,
) -> Slots | None:
    """The one device the rest of the user's words name in full, where the
    call's name reached only what it cannot act on: 0.5B dimmed "Bedroom
    Temperature", its look-up's name, for "dim the bed light to 30% and
    tell me the bedroom temperature" (the words that named the sensor are
    not the Bedroom's speaker either)."""
    spent = {word for state in refused for word in telling_words(state.name)}
    rest_said = " ".join(sorted(folded_words(request or "") - spent))
    rest = {key: value for key, value in slots.items() if key not in ("name", *_KINDS)}
    for where in (rest, {}):
        if said := named_by_user(hass, handler, where, assistant, rest_said):
            return where | {"name": {"value": said}}
    # A tool of one kind, for a device named by its kind where the user said
    # ("starte den Staubsauger im Wohnzimmer", whose robot is the
    # Saugroboter): the one device of that kind there.
    # Or all of them, for a step or level ("mach es im Büro heller", as
    # HassLightSet named "Bewegungsmelder"): as HA has "the lights in the
    # office".
    kinds = _own_kinds(handler) or set()
    if len(kinds) == 1 and (place := area_said(hass, request or "")):
        there = reach(hass, handler, place, assistant)
        unplaced = {k: v for k, v in rest.items() if k not in ("area", "floor")}
        if len(there) == 1:
            return unplaced | place | {"name": {"value": there[0].name}}
        if there and says_a_step(request or "", language):
            return unplaced | place | {"domain": {"value": sorted(kinds)}}
    return None


def _own_kinds(handler: Matching) -> set[str] | None:
    """The domains an intent acts on: those it requires, or its service's
    (HassLightSet calls light.turn_on, and requires none)."""
    if handler.required_domains:
        return handler.required_domains
    domain = getattr(handler, "domain", None)
    return {domain} if isinstance(domain, str) and domain != HA_DOMAIN else None


def _everything_in(
    hass: HomeAssistant,
    handler: Matching,
    name: str,
    request: str | None,
    language: str,
) -> Slots | None:
    """What "turn everything off in the office" is for, where the call named
    one device the user did not ("Büroventilator", by 0.5B): the room's
    lights, switches, fans and players, never its locks or doors."""
    if (
        handler.intent_type not in (intent.INTENT_TURN_ON, intent.INTENT_TURN_OFF)
        or not request
        or not says_everything(request, language)
        or leaves_out(request, language)
        or telling_words(name) <= folded_words(request)
        or not (place := area_said(hass, request))
    ):
        return None
    return {"domain": {"value": ROOM_DOMAINS}} | place


def _kinds_in(
    hass: HomeAssistant,
    handler: Matching,
    place: Slots,
    assistant: str | None,
    *,
    request: str | None,
    language: str,
) -> Slots | None:
    """The devices of the place or name that the request's verbs are for, in
    place of a kind the model named wrongly or left in the name (None: the
    verbs name no kind there)."""
    if not (domains := verb_domains(request or "", language)):
        return None
    kinds = place | {"domain": {"value": sorted(domains)}}
    return kinds if _matches(hass, handler, kinds, assistant) else None


def _of_kinds_named(
    hass: HomeAssistant,
    handler: Matching,
    slots: Slots,
    assistant: str | None,
    *,
    request: str | None,
    language: str,
) -> Slots:
    """A room's or floor's call that names no device or kind, kept to the
    kinds the request names where the place has them: "switch off the office
    lights" as HassTurnOff for the Office would switch off its AC too. Not
    the request's verbs: "shut off" is a cover's verb as well. Not where it
    says everything, or leaves a kind out ("everything but the lights")."""
    if (
        not request
        or says_everything(request, language)
        or leaves_out(request, language)
        or not any(key in slots for key in _PLACES)
        or any(key in slots for key in _KINDS)
        or not (domains := kinds_named(request))
    ):
        return slots
    kinds = slots | {"domain": {"value": sorted(domains)}}
    return kinds if _matches(hass, handler, kinds, assistant) else slots


def _kind_unsaid(slots: Slots, request: str | None, language: str) -> bool:
    """Whether the model named a kind the request's verbs do not."""
    said = slots.get("domain", {}).get("value")
    if not said:
        return False
    kinds = {said} if isinstance(said, str) else set(said)
    return not kinds & verb_domains(request or "", language)


def _matches(
    hass: HomeAssistant,
    handler: Matching,
    slots: Slots,
    assistant: str | None,
) -> bool:
    constraints = intent_constraints(handler, slots, assistant)
    return intent.async_match_targets(hass, constraints).is_match


def _area_words(area: ar.AreaEntry) -> set[str]:
    return folded_words(area.name)


def _area_within(hass: HomeAssistant, words: set[str]) -> ar.AreaEntry | None:
    """The area whose name is part of a longer name (the longest if several)."""
    inside = [
        area
        for area in ar.async_get(hass).async_list_areas()
        if _area_words(area) < words
    ]
    return max(inside, key=lambda area: len(_area_words(area)), default=None)


def _fitting(
    hass: HomeAssistant,
    handler: Matching,
    slots: Slots,
    assistant: str | None,
    words: Collection[str],
) -> list[State]:
    """What the call could reach without its name, that the name's words fit."""
    reachable = reach(hass, handler, slots, assistant)
    return [state for state in reachable if _fits(words, state)]


def _fits(words: Collection[str], state: State) -> bool:
    """Whether every word the model used is part of the entity's name."""
    return within(words, state.name)


def _all_said(
    fitting: Sequence[State], name: str, request: str | None, language: str
) -> list[State]:
    """The devices a call's name fits, where the request says all of them
    in plural ("close all the windows": 0.5B named "Window", and Jarvis asked
    which), of the kinds its verbs are said of (not the front door's lock
    for "open all the doors")."""
    if (
        len(fitting) < 2
        or not request
        or not says_all(request, language)
        or leaves_out(request, language)
        or not said_in_plural(name, request)
    ):
        return []
    kinds = verb_domains(request, language)
    return [state for state in fitting if not kinds or state.domain in kinds]


def _no_match(text: str) -> Answer:
    return Answer({"error": NO_MATCH, "error_text": text})
