"""Grounded replies: what a reply's sentence claims of a device, checked
against the home before the sentence is spoken.

Small models state what they never looked up or did ("the entry lock is
already unlocked" while it is locked; "Done, I turned off Garden Light."
when a valve was asked). A claim is a device named in the live home with a
state the sentence gives it ("Front Door is locked", "X has been muted"), or
an action done on it in the words Jarvis itself says what it did with
(`did`: "I turned off X"). A state claim must match the live state; an action
claim, a successful call of this turn on the device, or the state it shows
now. A sentence with a false claim is replaced with the truth in Jarvis's
words; a question, a negation, a supposition, or a sentence that names
nothing in the home or no state Jarvis can judge stays as it is.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
import re

from .lang import LANGUAGES, Language, language_code
from .phrases import FAILED_PLAIN, phrase
from .text import singular
from .types import JsonObject

# The attributes a claim may be about, beside the state: a contact sensor's
# kind, a speaker's mute.
CLAIMED_ATTRIBUTES = ("device_class", "is_volume_muted")


@dataclass(frozen=True, slots=True)
class Device:
    """A device of the live home, as a reply may name it."""

    # Its name first, then its aliases.
    names: tuple[str, ...]
    domain: str
    state: str
    # Those of `CLAIMED_ATTRIBUTES`.
    attributes: Mapping[str, object] = field(default_factory=dict)
    # A successful call of this turn acted on it.
    acted: bool = False
    # How the host knows it.
    entity_id: str = ""
    # The names and aliases of its area and of that area's floor.
    places: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Grounded:
    """A sentence, or text of several, as it may be said."""

    text: str
    # A false claim was of an action no call of the turn has done: a call the
    # same model step makes after it may still do it.
    undone: bool = False


# The home as it is now, given the results of the turn's successful calls
# (the host knows which devices they acted on).
type HouseView = Callable[[Sequence[JsonObject]], Sequence[Device]]

# Verbs of `Language.did` and the state each leaves a device in.
_DID_STATES = {
    "turn_on": "on",
    "turn_off": "off",
    "open": "open",
    "close": "closed",
    "lock": "locked",
    "unlock": "unlocked",
}
# Each claimable state and the one that denies it.
_OPPOSITE = {
    "on": "off",
    "open": "closed",
    "locked": "unlocked",
    "playing": "paused",
    "muted": "unmuted",
}
_OPPOSITE |= {second: first for first, second in _OPPOSITE.items()}
_ON_OFF = {"on": {"on"}, "off": {"off"}}
_OPEN_CLOSED = {"open": {"open", "opening"}, "closed": {"closed", "closing"}}
_MEDIA = {
    "on": {"on", "playing", "paused", "idle", "buffering"},
    "off": {"off", "standby"},
    "playing": {"playing"},
    "paused": {"paused", "idle", "off", "standby"},
}
# By domain, the HA states that make each claim true; a state in none of a
# claim's pair (unavailable, jammed) leaves it unjudged.
_TRUE_IN: Mapping[str, Mapping[str, set[str]]] = {
    **dict.fromkeys(
        ("light", "switch", "fan", "input_boolean", "siren", "humidifier"), _ON_OFF
    ),
    "cover": _OPEN_CLOSED,
    "valve": _OPEN_CLOSED,
    "lock": {
        "locked": {"locked", "locking"},
        "unlocked": {"unlocked", "unlocking", "open", "opening"},
    },
    "media_player": _MEDIA,
    "climate": {
        "on": {"heat", "cool", "heat_cool", "auto", "dry", "fan_only"},
        "off": {"off"},
    },
}
# Binary sensors by device class: contact sensors are open when on, a
# lock's sensor unlocked.
_OPENINGS = frozenset({"door", "window", "garage_door", "opening"})
_CONTACT = {"open": {"on"}, "closed": {"off"}}
_LOCK_SENSOR = {"locked": {"off"}, "unlocked": {"on"}}


def holds(device: Device, claim: str) -> bool | None:
    """Whether the device is in the claimed state; None when it cannot tell."""
    if claim in ("muted", "unmuted"):
        muted = device.attributes.get("is_volume_muted")
        return None if not isinstance(muted, bool) else muted == (claim == "muted")
    table = _TRUE_IN.get(device.domain)
    if device.domain == "binary_sensor":
        kind = device.attributes.get("device_class")
        table = (
            _CONTACT if kind in _OPENINGS else _LOCK_SENSOR if kind == "lock" else None
        )
    if table is None or claim not in table:
        return None
    if device.state in table[claim]:
        return True
    return False if device.state in table.get(_OPPOSITE[claim], ()) else None


def state_of(device: Device, claim: str) -> str | None:
    """The claim or its opposite, whichever the device is in ("locked" of
    "unlocked"); None when it cannot tell."""
    true = holds(device, claim)
    return None if true is None else claim if true else _OPPOSITE[claim]


# A sentence's words, case-folded and plurals folded ("lights": "light"),
# and the signs that break a list of names.
_TOKEN_RE = re.compile(r"\w+|[,;:]")
_BREAKS = frozenset(",;:")


def _tokens(text: str) -> list[str]:
    """The text's words and list breaks, folded as names and phrases are."""
    return [singular(token) for token in _TOKEN_RE.findall(text.casefold())]


def _phrases(items: Iterable[str]) -> set[tuple[str, ...]]:
    """Phrases as token tuples, to compare with a sentence's runs of tokens."""
    return {tuple(_tokens(item)) for item in items}


@dataclass(frozen=True, slots=True)
class _Words:
    """One language's words for claims, tokenised once."""

    pack: Language
    # Longest first: "fermé à clé" is locked, not closed.
    states: tuple[tuple[tuple[str, ...], str], ...]
    # The domain each kind word names: "lock".
    kinds: dict[tuple[str, ...], str]
    links: frozenset[str]
    changed: frozenset[str]
    articles: frozenset[str]
    joiners: frozenset[str]
    # Negations, hedges and suppositions: a sentence with one claims nothing.
    doubts: set[tuple[str, ...]]
    # Per verb of `_DID_STATES`: the words before and after its target.
    did: dict[str, tuple[tuple[str, ...], tuple[str, ...]]]
    # Words without which a sentence claims nothing: its states and actions.
    claiming: set[tuple[str, ...]]


def _words(pack: Language) -> _Words:
    def flat(items: Iterable[str]) -> frozenset[str]:
        return frozenset(token for item in items for token in _tokens(item))

    states = [
        (tokens, state)
        for state, said in pack.state_words.items()
        for tokens in _phrases(said)
    ]
    did = {}
    for verb in _DID_STATES:
        before, after = pack.did[verb].split("{target}")
        did[verb] = (tuple(_tokens(before)), tuple(_tokens(after)))
    return _Words(
        pack,
        tuple(sorted(states, key=lambda item: -len(item[0]))),
        {
            tokens: domain
            for domain, said in pack.kind_words.items()
            for tokens in _phrases(said)
        },
        flat(pack.state_links),
        flat(pack.changed_links),
        flat(pack.articles),
        flat([pack.list_and, *pack.joiners]),
        _phrases([*pack.negations, *pack.hedges, *pack.unsure]),
        did,
        {tokens for tokens, _ in states}
        | {part for pair in did.values() for part in pair if part},
    )


_BY_CODE = {pack.code: _words(pack) for pack in LANGUAGES}
# The longest phrase `_grams` must find ("en cours de lecture").
_LONGEST_PHRASE = max(
    len(phrase)
    for words in _BY_CODE.values()
    for phrase in words.doubts | words.claiming
)


@dataclass(frozen=True, slots=True)
class _Claim:
    """What a sentence says of the devices of one name."""

    # The devices of the name it is about.
    devices: tuple[Device, ...]
    state: str
    # An action: "I turned off X", "X has been muted".
    action: bool


def _at(tokens: Sequence[str], index: int, phrase: tuple[str, ...]) -> bool:
    """Whether the phrase stands in the tokens at this index."""
    return (
        bool(phrase)
        and index >= 0
        and tuple(tokens[index : index + len(phrase)]) == phrase
    )


def _grams(tokens: Sequence[str]) -> set[tuple[str, ...]]:
    """Every run of up to `_LONGEST_PHRASE` tokens: a phrase is in a sentence
    when it is one of them (one set lookup, not a scan per phrase)."""
    return {
        tuple(tokens[index : index + size])
        for index in range(len(tokens))
        for size in range(1, min(_LONGEST_PHRASE, len(tokens) - index) + 1)
    }


@lru_cache(maxsize=4096)
def _name(name: str) -> tuple[str, ...]:
    """A device's name as tokens; the same names come for every sentence."""
    return tuple(_tokens(name))


# Where a sentence names devices: start index to the name's end and the
# devices of that name (a lock and its sensors share the device's name).
type Mentions = Mapping[int, tuple[int, tuple[Device, ...]]]


def _mentions(
    tokens: Sequence[str],
    devices: Sequence[Device],
    kinds: Mapping[tuple[str, ...], str],
) -> Mentions:
    """The devices the sentence names, the longest name first. A kind ("the
    lock") names the home's one device of its domain, unless a name is the
    same words."""
    by_name: dict[tuple[str, ...], list[Device]] = {}
    by_domain: dict[str, list[Device]] = {}
    for device in devices:
        by_domain.setdefault(device.domain, []).append(device)
        for name in device.names:
            by_name.setdefault(_name(name), []).append(device)
    for kind, domain in kinds.items():
        if len(only := by_domain.get(domain, [])) == 1:
            by_name.setdefault(kind, only)
    longest = max(map(len, by_name), default=0)
    found: dict[int, tuple[int, tuple[Device, ...]]] = {}
    index = 0
    while index < len(tokens):
        for size in range(min(longest, len(tokens) - index), 0, -1):
            if named := by_name.get(tuple(tokens[index : index + size])):
                found[index] = (index + size, tuple(named))
                index += size
                break
        else:
            index += 1
    return found


def _state_at(words: _Words, tokens: Sequence[str], index: int) -> str | None:
    """The state a phrase at this index claims, the longest phrase first."""
    for state_words, state in words.states:
        if _at(tokens, index, state_words):
            return state
    return None


def _claims(words: _Words, tokens: Sequence[str], mentions: Mentions) -> list[_Claim]:
    """The claims on each named device. A state after a link ("Back Door is
    locked") beats an action before ("I unlocked Front Door, Back Door is
    locked"). A state right after the name is no claim without a `did`
    phrase ("Ich habe X ausgeschaltet"): "Ich schalte X aus" is what the
    model is about to do."""
    claims = []
    for start, (end, devices) in mentions.items():
        if (said := _said_state(words, tokens, end, mentions)) is not None:
            claims.append(_Claim(devices, *said))
        elif (state := _did(words, tokens, start, end, mentions)) is not None:
            claims.append(_Claim(devices, state, action=True))
    return claims


def _said_state(
    words: _Words, tokens: Sequence[str], index: int, mentions: Mentions
) -> tuple[str, bool] | None:
    """The state a link gives the name ending at `index` ("X [and Y] is
    [already] locked"), and whether a link made it a change ("has been")."""
    linked = changed = False
    while index < len(tokens):
        if (state := _state_at(words, tokens, index)) is not None:
            return (state, changed) if linked else None
        if index in mentions:
            index = mentions[index][0]
            continue
        if tokens[index] in words.links:
            linked = True
            changed = changed or tokens[index] in words.changed
        elif not _joins(words, tokens[index]):
            return None
        index += 1
    return None


def _joins(words: _Words, token: str) -> bool:
    """Whether a word may stand between two names of a list: "X, the Y and Z"."""
    return token in words.joiners or token in words.articles or token in _BREAKS


def _did(
    words: _Words,
    tokens: Sequence[str],
    start: int,
    end: int,
    mentions: Mentions,
) -> str | None:
    """The state an action in Jarvis's `did` words leaves the named device
    in: "turned off [the] X", also within a list ("turned off X and the Y");
    "X und Y ausgeschaltet" where the verb follows."""
    starts = {stop: begin for begin, (stop, _) in mentions.items()}
    before = _list_start(words, tokens, start, starts)
    after = _list_end(words, tokens, end, mentions)
    for verb, (prefix, suffix) in words.did.items():
        if (not prefix or _at(tokens, before - len(prefix), prefix)) and (
            not suffix or _at(tokens, after, suffix)
        ):
            return _DID_STATES[verb]
    return None


def _list_start(
    words: _Words, tokens: Sequence[str], start: int, starts: Mapping[int, int]
) -> int:
    """Where the list a name ends begins, before its articles: "[turned off]
    the X and Y" (`starts` maps where a name ends to where it starts)."""
    while True:
        index = start
        while index > 0 and _joins(words, tokens[index - 1]):
            index -= 1
        if index == start or index not in starts:
            break
        start = starts[index]
    while start > 0 and tokens[start - 1] in words.articles:
        start -= 1
    return start


def _list_end(
    words: _Words,
    tokens: Sequence[str],
    end: int,
    mentions: Mentions,
) -> int:
    """Where the list a name starts ends: "X and the Y [ausgeschaltet]"."""
    while True:
        index = end
        while index < len(tokens) and _joins(words, tokens[index]):
            index += 1
        if index == end or index not in mentions:
            return end
        end = mentions[index][0]


def _truth(say: Language, claim: _Claim) -> Grounded | None:
    """What to say instead of a claim, in `say`'s words, or None when the home
    bears it out: a device of the name is in the state, or, for an action,
    this turn acted on one. A device that cannot be in the state (a lock's
    battery sensor) has no say; a claim none can be in stays unjudged."""
    found = [(device, holds(device, claim.state)) for device in claim.devices]
    if any(held for _, held in found):
        return None
    if claim.action and not any(device.acted for device in claim.devices):
        name = claim.devices[0].names[0]
        return Grounded(say.not_changed.format(name=name), undone=True)
    for device in (device for device, held in found if held is False):
        # Its own state where Jarvis has a word for it (a TV that is off is
        # off, not paused), else the claim's opposite.
        for state in (device.state, _OPPOSITE[claim.state]):
            if state in say.state_words and holds(device, state):
                said = say.state_words[state][0]
                return Grounded(say.is_state.format(name=device.names[0], state=said))
    return None


# The shortest sentence taken as read out of a failed call's error text:
# shorter ones ("Sorry.") are the model's own.
_MIN_COPIED = 12


def _packs(language: str | None) -> list[_Words]:
    """The words of the language and of English."""
    return [
        _BY_CODE[code]
        for code in dict.fromkeys([language_code(language), "en"])
        if code in _BY_CODE
    ]


# A question about a state of this many kinds at most is one about all of
# them: "is anything unlocked?" asks of the locks; "is anything on?" of half
# the home.
_MAX_ASKED_KINDS = 2


def states_asked(text: str, language: str | None) -> list[str]:
    """The states a text says ("is anything unlocked?": "unlocked"), each
    once, in its language or in English."""
    tokens = _tokens(text)
    said = [
        state
        for words in _packs(language)
        for index in range(len(tokens))
        if (state := _state_at(words, tokens, index)) is not None
    ]
    return list(dict.fromkeys(said))


def kinds_asked(text: str, language: str | None) -> list[str]:
    """The domains whose states a text says, where they are few: "is
    anything unlocked?" is about the locks, "¿hay algo abierto?" about the
    covers and valves."""
    said = set(states_asked(text, language))
    domains = sorted(
        domain for domain, claims in _TRUE_IN.items() if not said.isdisjoint(claims)
    )
    return domains if len(domains) <= _MAX_ASKED_KINDS else []


def _kinds(packs: Sequence[_Words]) -> dict[tuple[str, ...], str]:
    return {kind: domain for words in packs for kind, domain in words.kinds.items()}


def named(text: str, devices: Sequence[Device], language: str | None) -> list[Device]:
    """The devices a text names, by name or by the kind of a home's one
    device of that kind, in its language's words and in English."""
    found: list[Device] = []
    for _, named in _mentions(
        _tokens(text), devices, _kinds(_packs(language))
    ).values():
        found.extend(d for d in named if not any(d is f for f in found))
    return found


def apologized(
    sentence: str, codes: Collection[str], texts: Collection[str], language: str | None
) -> Grounded | None:
    """A plain apology in place of a sentence that reads a failed call's
    error code or error text out: the texts are English notes for the model
    ("The error "InvalidSlotInfo" indicates…"; '"Nothing was done.' to a
    Spanish request). None for any other sentence."""
    text = sentence.strip()
    bare = text.strip("\"'“”„«»")
    if not text or not (
        any(code in text for code in codes)
        or (len(bare) >= _MIN_COPIED and any(bare in said for said in texts))
    ):
        return None
    start, end = sentence.index(text), len(sentence.rstrip())
    return Grounded(sentence[:start] + phrase(FAILED_PLAIN, language) + sentence[end:])


def ground(
    sentence: str, language: str | None, house: Callable[[], Sequence[Device]]
) -> Grounded:
    """The sentence, or the truth in its place when it claims what the home
    contradicts. Claims are read in the language's words and in English
    (small models often answer in English), and put right in the user's
    language; the home is read only for a sentence that says a state or
    an action."""
    if sentence.rstrip().endswith("?"):
        return Grounded(sentence)
    tokens = _tokens(sentence)
    packs = _packs(language)
    grams = _grams(tokens)
    if any(not grams.isdisjoint(words.doubts) for words in packs) or all(
        grams.isdisjoint(words.claiming) for words in packs
    ):
        return Grounded(sentence)
    mentions = _mentions(tokens, house(), _kinds(packs))
    for words in packs:
        claims = _claims(words, tokens, mentions)
        if truths := [
            truth for claim in claims if (truth := _truth(packs[0].pack, claim))
        ]:
            said = " ".join(dict.fromkeys(truth.text for truth in truths))
            text = sentence.strip()
            return Grounded(
                sentence[: sentence.index(text)]
                + said
                + sentence[len(sentence.rstrip()) :],
                undone=any(truth.undone for truth in truths),
            )
    return Grounded(sentence)
