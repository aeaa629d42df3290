"""Whether the user's words point to the home at all: a household action
said ("on", "dim"), or a device pointed to by a word of its name, alias,
area or floor, its kind ("light", "thermostat") or a verb said of its kind
("unlock"). "Tell my wife I love her" and "call my mother" point to nothing:
a call the model makes for them is its own idea.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from .grounding import Device
from .lang import LANGUAGES, every
from .router import asks_an_action, is_question
from .text import all_said, folded_words, telling_words
from .types import Message

# Shorter name words ("tv", "ac") are whole-word matches only.
_PREFIX_MIN = 3
# The arguments a call picks devices of the home by: HA's intent slots and
# a service call's.
TARGET_ARGUMENTS = frozenset(
    {"name", "area", "floor", "domain", "device_class", "entity_id"}
)


def points_to(device: Device, words: set[str]) -> bool:
    """Whether any of these folded words points to the device."""
    domain = device.domain
    names = [
        domain,
        device.entity_id.partition(".")[2].replace("_", " "),
        *device.names,
        *device.places,
    ]
    names += every(lambda pack: pack.verb_domains.get(domain, ()))
    told = {word for name in names for word in telling_words(name)}
    # A kind's words tell it, short ones too ("tv"): lower case, they would
    # not pass for a name's "TV".
    kinds = every(lambda pack: pack.kind_words.get(domain, ()))
    told |= {word for kind in kinds for word in folded_words(kind)}
    return any(
        word == name_word
        or (len(name_word) >= _PREFIX_MIN and word.startswith(name_word))
        for word in words
        for name_word in told
    )


def kinds_named(text: str) -> set[str]:
    """The domains whose kind words of any language the text says
    ("thermostat", "Lampe"); not their names, which are verbs too ("switch
    the living room to 22")."""
    said = folded_words(text)
    return {
        domain
        for pack in LANGUAGES
        for domain, kinds in pack.kind_words.items()
        if any(
            (parts := folded_words(kind)) and all_said(parts, said) for kind in kinds
        )
    }


def asks_of_the_home(said: str, devices: Iterable[Device]) -> bool:
    """Whether these words say a household action or point to any of the
    devices."""
    if asks_an_action(said):
        return True
    words = folded_words(said)
    return any(points_to(device, words) for device in devices)


def points_nowhere(messages: Sequence[Message], devices: Iterable[Device]) -> bool:
    """Whether the last request, with the question of Jarvis's it answers
    (a "yes" to "Shall I dim the lights?"), says no household action and
    points to none of the devices."""
    asked = [index for index, message in enumerate(messages) if message.role == "user"]
    if not asked:
        return False
    said = [messages[asked[-1]].content]
    before = [m.content for m in messages[: asked[-1]] if m.role == "assistant"]
    if before and before[-1] and is_question(before[-1]):
        said.append(before[-1])
    return not asks_of_the_home(" ".join(said), devices)


def targets_the_home(arguments: Mapping[str, object]) -> bool:
    """Whether a call picks devices of the home: a clock or a web search
    does not, and its failure is one the model must see."""
    return not TARGET_ARGUMENTS.isdisjoint(arguments)
