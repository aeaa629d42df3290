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

from ..engine.grounding import Device
from ..engine.pointed import asks_of_the_home
from ..safety.holds import question_answered, user_text
from .services import entity_places


def unasked(hass: HomeAssistant, entity_ids: Iterable[str]) -> bool:
    """Whether the user's words neither say an action nor point to any of
    these entities (`pointed`)."""
    entity_ids = list(entity_ids)
    if not entity_ids or (request := user_text()) is None:
        return False
    said = f"{request} {question_answered() or ''}"
    return not asks_of_the_home(said, (device_of(hass, e) for e in entity_ids))


def device_of(hass: HomeAssistant, entity_id: str) -> Device:
    """The entity as its words may point to it, exposed or not (an exposed
    script may act on a lock that is not)."""
    state = hass.states.get(entity_id)
    entry = er.async_get(hass).async_get(entity_id)
    return Device(
        names=(*([state.name] if state else []), *(entry.aliases if entry else ())),
        domain=entity_id.partition(".")[0],
        state=state.state if state else "",
        entity_id=entity_id,
        places=tuple(entity_places(hass, entity_id)),
    )
