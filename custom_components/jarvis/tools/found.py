"""What a look-up found, in Jarvis's words, where it says in full what the
question asks: a lone sensor's value, what a lone player plays, which of the
devices are in the state asked. Jarvis says it without the model: with the
states in front of it, 0.5B answered "wie warm ist es?" with "Es ist warm",
"¿qué suena en la televisión?" with "La televisión está en la noche.", and
"is anything unlocked?" with the question itself.
"""

from __future__ import annotations

from collections.abc import Sequence

from homeassistant.core import State

from ..engine.grounding import CLAIMED_ATTRIBUTES, Device, state_of, states_asked
from ..engine.lang import language_pack
from ..engine.phrases import NONE_IN_STATE, FoundPhrase, listed, phrase
from ..engine.text import mentions
from ..safety.holds import user_text


def found_phrase(states: Sequence[State], language: str | None) -> FoundPhrase | None:
    """What the looked-up states answer, if Jarvis can say it in full."""
    return (
        _one_value(states, language)
        or _players(states, language)
        or _in_state(states, language)
    )


def _one_value(states: Sequence[State], language: str | None) -> FoundPhrase | None:
    """A lone sensor's number and unit, said in full ("Thermometer
    Temperatur: 24,1 °C."), or what a lone player plays, to a question that
    asks it (`_playing`)."""
    if len(states) != 1:
        return None
    state = states[0]
    if state.domain == "media_player":
        return _playing(state, language)
    if state.domain != "sensor":
        return None
    if not (unit := state.attributes.get("unit_of_measurement")):
        return None
    try:
        float(state.state)
    except ValueError:
        return None
    value = state.state.replace(".", language_pack(language).decimal_sign)
    return FoundPhrase(f"{state.name}: {value} {unit}.")


def _playing(state: State, language: str | None) -> FoundPhrase | None:
    """A player's title and artist, and whether it plays or is paused, where
    the user's question asks what it plays (or whether it plays)."""
    title = _title(state)
    pack = language_pack(language)
    if not title or not mentions(user_text(), pack.media_asks):
        return None
    name = state.name
    if said := pack.state_words.get(state.state):
        name = f"{name} ({said[0]})"
    return FoundPhrase(f"{name}: {title}.")


def _players(states: Sequence[State], language: str | None) -> FoundPhrase | None:
    """What each of several players that play is playing, where the question
    asks what plays ("Kitchen: Morning Jazz, Trio. TV: Evening News."), or
    "Nothing is playing.": shown twelve players, 0.5B said "The user asked
    for the current state of the Living Room, Bedroom, …"."""
    pack = language_pack(language)
    if (
        len(states) < 2
        or any(state.domain != "media_player" for state in states)
        or not mentions(user_text(), pack.media_asks)
    ):
        return None
    playing = sorted(
        (state for state in states if state.state == "playing"),
        key=lambda state: state.name,
    )
    if not playing:
        return FoundPhrase(
            phrase(NONE_IN_STATE, language).format(state=_said("playing", language))
        )
    return FoundPhrase(
        " ".join(
            f"{state.name}: {_title(state) or _said('playing', language)}."
            for state in playing
        )
    )


def _title(state: State) -> str:
    """A player's title and artist ("Morning Jazz, Trio"), or ""."""
    title = str(state.attributes.get("media_title") or "")
    if title and (artist := state.attributes.get("media_artist")):
        return f"{title}, {artist}"
    return title


def _in_state(states: Sequence[State], language: str | None) -> FoundPhrase | None:
    """Which of the devices are in the one state the question says, where
    each can be told: "Front Door: locked.", "Kitchen Door and Back Door:
    unlocked.", "Nothing is unlocked.". A question of what players play is
    about their titles (`_playing`)."""
    request = user_text() or ""
    pack = language_pack(language)
    if len(asked := states_asked(request, language)) != 1 or not states:
        return None
    if any(s.domain == "media_player" for s in states) and mentions(
        request, pack.media_asks
    ):
        return None
    # Of the devices that can be in that state: "is anything open in the
    # garden?" is not about its speaker or its blinds' batteries.
    told = [
        (device, found)
        for device in (
            Device(
                (state.name,),
                state.domain,
                state.state,
                {key: state.attributes.get(key) for key in CLAIMED_ATTRIBUTES},
            )
            for state in states
        )
        if (found := state_of(device, asked[0])) is not None
    ]
    if not told:
        return None
    if len(told) == 1:
        device, found = told[0]
        return FoundPhrase(f"{device.names[0]}: {_said(found, language)}.")
    names = sorted({device.names[0] for device, found in told if found == asked[0]})
    said = _said(asked[0], language)
    if not names:
        return FoundPhrase(phrase(NONE_IN_STATE, language).format(state=said))
    return FoundPhrase(f"{listed(names, language)}: {said}.")


def _said(state: str | None, language: str | None) -> str:
    """A state in the user's language: "geschlossen"."""
    return language_pack(language).state_words[state or ""][0]
