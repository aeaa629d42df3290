"""To-do lists: the list a list intent's call means, an item said with its
list in full, and HA's list intents wrapped to say what they did."""

from __future__ import annotations

import re

from homeassistant.core import HomeAssistant, State
from homeassistant.helpers import intent, llm
from homeassistant.util.json import JsonObjectType
import voluptuous as vol

from ..engine.lang import (
    every,
    item_said_before,
    item_without_list,
    item_without_verb,
    names_no_item,
    verb_domains,
)
from ..engine.phrases import DID, DID_FIELD, DidPhrase, actions
from ..engine.results import INVALID_ARGUMENTS, WRONG_TOOL
from ..engine.text import (
    all_said,
    folded_words,
    mentions,
    most_specific,
    telling_words,
)
from ..safety.holds import user_text
from .builtin import WrappingTool
from .deeds import acted_on, deeds
from .hub import JarvisTools
from .match_words import called_in_words


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
    and 0.5B looped on), or whose last clause does so and names no item, of
    the item the clause before says ("remind me: water the plants, put it
    on the shopping list", which 0.5B wrote as turning on "Water Plants");
    None for any other request."""
    if not (name := todo_list_meant(hass, "", request, assistant)):
        return None
    item = _item_put_on(request, name, language)
    *before, last = re.split(r"[,:;]", request)
    if item is None and before and _item_put_on(last.strip(), name, language) == "":
        item = item_said_before(request, name, language)
    if not item:
        return None
    lists = intent.async_match_targets(
        hass,
        intent.MatchTargetsConstraints(
            name=name, domains={"todo"}, assistant=assistant
        ),
    ).states
    return (lists[0], item) if len(lists) == 1 else None


def _item_put_on(text: str, list_name: str, language: str) -> str | None:
    """The item a text that starts with a verb that puts an item on a list,
    and ends with the list's name, puts there; "" where it names none ("put
    it", "ponlo"); None for any other text."""
    without_verb = item_without_verb(text, text, language)
    item = item_without_list(without_verb, list_name, language)
    if item == without_verb:
        return None
    if not item or names_no_item(item, language):
        return ""
    return item if without_verb != text else None


# The to-do service HA's list intents call, for `deeds`.
LIST_SERVICES = {"HassListAddItem": "add_item", "HassListCompleteItem": "update_item"}


# The words that say a request is about a list, in every language.
_LIST_WORDS = every(lambda pack: pack.tool_topics["list"])


def _about_other_kinds(request: str, language: str) -> set[str]:
    """The kinds of device a request's verbs name where it says nothing of a
    list: 0.5B added "Puerta del garaje" to a list for "baja la puerta del
    garaje del todo" ("del todo": fully)."""
    if mentions(request, _LIST_WORDS):
        return set()
    kinds = verb_domains(request, language)
    return set() if "todo" in kinds else kinds


class ListItemTool(WrappingTool):
    """HA's intent that adds an item to a to-do list or checks one off, whose
    result says what it did in the user's language ("added milk to Shopping
    List"), so the reply loop need not ask the model to say it. An item added
    loses the request's verb and list if the model copied them in ("Add milk
    to my shopping list"); if `repair`, a list name HA does not know is the
    list the user meant (`todo_lists.todo_list_meant`)."""

    def __init__(
        self, hub: JarvisTools, tool: llm.Tool, service: str, *, repair: bool
    ) -> None:
        """Wrap the list intent tool, which calls the to-do `service`."""
        super().__init__(hub, tool)
        self.service = service
        self.repair = repair
        if repair:
            # The list may be left out: it is the one the request names, or
            # the only one (0.5B left it out and repeated the call).
            self.parameters = vol.Schema(
                {
                    vol.Optional(key.schema, description=key.description)
                    if key == "name"
                    else key: value
                    for key, value in tool.parameters.schema.items()
                }
            )

    async def async_call(
        self,
        hass: HomeAssistant,
        tool_input: llm.ToolInput,
        llm_context: llm.LLMContext,
    ) -> JsonObjectType:
        """HA's result, with what it did in words when it did it."""
        language = llm_context.language or hass.config.language
        request = user_text() or ""
        if self.repair and (kinds := _about_other_kinds(request, language)):
            return {
                "error": WRONG_TOOL,
                "error_text": "Nothing was done: the user's request is about a "
                f"{' or '.join(sorted(kinds))}, not a to-do list.",
            }
        args = dict(tool_input.tool_args)
        name = args.get("name")
        if self.repair and (
            meant := todo_list_meant(
                hass,
                name if isinstance(name, str) else "",
                request,
                llm_context.assistant,
            )
        ):
            args["name"] = name = meant
        item = args.get("item")
        if self.service == "add_item" and isinstance(item, str):
            item = item_without_verb(item, request, language)
            if isinstance(name, str):
                item = _item_meant(
                    item_without_list(item, name, language), name, request, language
                )
            if names_no_item(item, language):
                # "Put it": the item is the clause said before it, if one is.
                item = item_said_before(request, str(name or ""), language)
            if not item:
                return {
                    "error": INVALID_ARGUMENTS,
                    "error_text": f"Nothing was added: '{args['item']}' asks to "
                    "add something; give the item in the user's words.",
                }
            args["item"] = item
        tool_input = llm.ToolInput(
            tool_input.tool_name, args, tool_input.id, tool_input.external
        )
        result = await called_in_words(
            self, hass, tool_input, llm_context, repair=self.repair
        )
        if result.get("response_type") != "action_done" or not isinstance(item, str):
            return result
        calls = [(entity_id, self.service) for entity_id in acted_on(result)]
        if not calls or not (acts := deeds(hass, calls, item=item.strip())):
            return result
        return result | {DID_FIELD: DidPhrase(actions(acts, DID, language))}


def _item_meant(item: str, list_name: str, request: str, language: str) -> str:
    """The item the user said, where the model's is none of their words (the
    list's name, as 0.5B sent for "añade llamar a la abuela a mis tareas
    personales") or only some of them ("Plantas" for "añade regar las
    plantas a mis tareas personales"): the request less its list verb and
    its list, when it has both."""
    without_verb = item_without_verb(request, request, language)
    said = item_without_list(without_verb, list_name, language)
    if without_verb in (request, said):
        return item
    own = telling_words(item) - telling_words(list_name)
    theirs = own <= folded_words(request) and not own < telling_words(said)
    return item if own and theirs else said
