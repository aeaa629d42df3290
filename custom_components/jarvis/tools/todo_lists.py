"""The to-do list a list intent's call means."""

from __future__ import annotations

from homeassistant.core import HomeAssistant, State
from homeassistant.helpers import intent

from ..engine.lang import item_without_list, item_without_verb, names_no_item
from ..engine.text import all_said, folded_words, most_specific, telling_words


def todo_list_meant(
    hass: HomeAssistant, name: str, request: str, assistant: str | None
) -> str | None:
    """The to-do list a list intent's call means where HA knows no list by
    its `name`: the one the name, else the request, says in full, inflected
    too ("persönlichen Aufgaben": Persönliche Aufgaben); else the home's only
    list. None where HA knows the name or no one list is meant."""
    if (
        name.strip()
        and intent.async_match_targets(
            hass,
            intent.MatchTargetsConstraints(
                name=name, domains={"todo"}, assistant=assistant
            ),
        ).is_match
    ):
        return None
    lists = intent.async_match_targets(
        hass, intent.MatchTargetsConstraints(domains={"todo"}, assistant=assistant)
    ).states
    for said in (folded_words(name), folded_words(request)):
        named = {
            state.name: frozenset(telling)
            for state in lists
            if (telling := telling_words(state.name)) and all_said(telling, said)
        }
        if len(meant := most_specific(named)) == 1:
            return meant[0]
    return lists[0].name if len(lists) == 1 else None


def list_add(
    hass: HomeAssistant, request: str, language: str, assistant: str | None
) -> tuple[State, str] | None:
    """The list and item of a request that starts with a verb that puts an
    item on a list and ends with a list's name, inflected too ("apunta
    llamar a la abuela en mis tareas personales", which HA's sentences miss
    and 0.5B looped on); None for any other request."""
    without_verb = item_without_verb(request, request, language)
    if without_verb == request or not (
        name := todo_list_meant(hass, "", request, assistant)
    ):
        return None
    item = item_without_list(without_verb, name, language)
    if item == without_verb or not item or names_no_item(item, language):
        return None
    lists = intent.async_match_targets(
        hass,
        intent.MatchTargetsConstraints(
            name=name, domains={"todo"}, assistant=assistant
        ),
    ).states
    return (lists[0], item) if len(lists) == 1 else None
