"""Actions nobody asked for: a call on devices the user's words never point
to, in a request that says no household action ("Tell my wife I love her":
1.5B turned on the Bed Light). Such a call waits for the user's yes, as an
unlock does. The words judged are the request's and, where Jarvis had just
asked a question, that question's (a "yes" to "Shall I dim the lights?").
"""

from __future__ import annotations

from collections.abc import Iterable

from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er

from ..engine.lang import every
from ..engine.router import asks_an_action
from ..engine.text import folded_words, telling_words
from ..safety.holds import question_answered, user_text
from .services import entity_places

# Shorter name words ("tv", "ac") are whole-word matches only.
_PREFIX_MIN = 3


def unasked(hass: HomeAssistant, entity_ids: Iterable[str]) -> bool:
    """Whether the user's words neither say an action nor point to any of
    these entities: by a word of its name, alias, area or floor, its kind
    ("light", "thermostat"), or a verb said of its kind ("unlock")."""
    entity_ids = list(entity_ids)
    if not entity_ids or (request := user_text()) is None:
        return False
    said = f"{request} {question_answered() or ''}"
    if asks_an_action(said):
        return False
    words = folded_words(said)
    return not any(_points_to(hass, entity_id, words) for entity_id in entity_ids)


def _points_to(hass: HomeAssistant, entity_id: str, words: set[str]) -> bool:
    domain, _, object_id = entity_id.partition(".")
    names = [domain, object_id.replace("_", " "), *entity_places(hass, entity_id)]
    names += every(lambda pack: pack.kind_words.get(domain, ()))
    names += every(lambda pack: pack.verb_domains.get(domain, ()))
    if state := hass.states.get(entity_id):
        names.append(state.name)
    if entry := er.async_get(hass).async_get(entity_id):
        names.extend(entry.aliases)
    told = {word for name in names for word in telling_words(name)}
    return any(
        word == name_word
        or (len(name_word) >= _PREFIX_MIN and word.startswith(name_word))
        for word in words
        for name_word in told
    )
