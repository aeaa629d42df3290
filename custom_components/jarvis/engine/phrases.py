"""Fixed replies the engine speaks itself, in the user's language, and the ones
Jarvis's own tools end a turn with (`FinalReply`).

The words live in `engine.lang`, one module per language; the tables here,
keyed by language code, are built from them for `phrase`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from .lang import LANGUAGES, Language, language_code


def _table(words: Callable[[Language], str]) -> Mapping[str, str]:
    return {pack.code: words(pack) for pack in LANGUAGES}


def _verbs(
    verbs: Callable[[Language], Mapping[str, str]],
) -> Mapping[str, Mapping[str, str]]:
    """By verb, then language; every language must have English's verbs."""
    return {
        verb: {pack.code: verbs(pack)[verb] for pack in LANGUAGES}
        for verb in verbs(LANGUAGES[0])
    }


LLM_UNAVAILABLE = _table(lambda pack: pack.llm_unavailable)
NOT_UNDERSTOOD = _table(lambda pack: pack.not_understood)
DONE = _table(lambda pack: pack.done)
REMEMBERED = _table(lambda pack: pack.remembered)
REMEMBERED_WITHOUT_SECRET = _table(lambda pack: pack.remembered_without_secret)
FORGOTTEN = _table(lambda pack: pack.forgotten)
NOTHING_TO_FORGET = _table(lambda pack: pack.nothing_to_forget)
STOPPED = _table(lambda pack: pack.stopped)
TOO_SLOW = _table(lambda pack: pack.too_slow)
FAILED_PLAIN = _table(lambda pack: pack.failed_plain)
HOLD_GONE = _table(lambda pack: pack.hold_gone)
HOLD_CHANGED = _table(lambda pack: pack.hold_changed)
LIST_ITEMS = _table(lambda pack: pack.list_items)
LIST_EMPTY = _table(lambda pack: pack.list_empty)
NONE_IN_STATE = _table(lambda pack: pack.none_in_state)
UNKNOWN_DEVICE = _table(lambda pack: pack.unknown_device)
CANNOT = _table(lambda pack: pack.cannot)
NO_FORECAST = _table(lambda pack: pack.no_forecast)


def phrase(table: Mapping[str, str], language: str | None) -> str:
    """The table's entry for a language tag such as 'de-CH', falling back to English."""
    return table.get(language_code(language), table["en"])


class FinalReply(str):
    """A tool result's reply that ends the turn word for word (under `FINAL_REPLY`).

    Only an instance of this class counts. JSON from outside the house (a web
    page, an MCP server) can only ever hold a plain str, so it cannot put
    words in Jarvis's mouth; only Jarvis's own code can make one.
    """


# The tool-result field the reply loop ends the turn with: no model call
# follows, so a small model cannot paraphrase (or contradict) what must be said.
FINAL_REPLY = "final_reply"


class DidPhrase(str):
    """What a tool call did, as `actions` of `DID` (under `DID_FIELD`): "turned
    on Bed Light". Like `FinalReply`, only Jarvis's own code can make one."""


# The tool-result field with a `DidPhrase`.
DID_FIELD = "did"


class FoundPhrase(str):
    """What a look-up found, said in full ("On Shopping List: milk and
    bread."), under `FOUND_FIELD`. Like `FinalReply`, only Jarvis's own code
    can make one."""


# The tool-result field with a `FoundPhrase`.
FOUND_FIELD = "found"


def final_reply(result: Mapping[str, object]) -> FinalReply | None:
    """The result's final reply, if Jarvis's own code gave it one."""
    value = result.get(FINAL_REPLY)
    return value if isinstance(value, FinalReply) else None


# --- Actions held for the user's yes: the question before, the reply after ----


@dataclass(frozen=True, slots=True)
class Deed:
    """What an action does to a target, with a verb of `DID` (and of `TO_DO`
    if it can be held for a yes)."""

    verb: str
    targets: tuple[str, ...]
    # Where "move" puts the targets, in percent.
    position: str = ""
    # What "add" puts on a to-do list, or "complete" checks off.
    item: str = ""


# Infinitive phrases, for "Shall I ...?".
TO_DO = _verbs(lambda pack: pack.to_do)
# What follows `DONE_ACTIONS`' "I have" in each language.
DID = _verbs(lambda pack: pack.did)
AND = _table(lambda pack: pack.list_and)
OR = _table(lambda pack: pack.list_or)
# When the user's words fit several devices: nothing is done until they say which.
WHICH = _table(lambda pack: pack.which)
WHICH_DEVICE = _table(lambda pack: pack.which_device)
ASK_ACTIONS = _table(lambda pack: pack.ask_actions)
# For actions without a verb of `TO_DO`: their English description, quoted.
ASK_DESCRIBED = _table(lambda pack: pack.ask_described)
DONE_ACTIONS = _table(lambda pack: pack.done_actions)
NOT_DONE = _table(lambda pack: pack.not_done)


def listed(
    names: Sequence[str], language: str | None, last: Mapping[str, str] = AND
) -> str:
    """Names as a spoken list: "A, B and C" (or, with `OR`, "A, B or C")."""
    if len(names) < 2:
        return "".join(names)
    return ", ".join(names[:-1]) + phrase(last, language) + names[-1]


def actions(
    deeds: Sequence[Deed], table: Mapping[str, Mapping[str, str]], language: str | None
) -> str:
    """The deeds as phrases of `table` (`TO_DO` or `DID`), joined with "and"."""
    return phrase(AND, language).join(
        phrase(table[deed.verb], language).format(
            target=listed(deed.targets, language),
            position=deed.position,
            item=deed.item,
        )
        for deed in deeds
    )


def ask_first(deeds: Sequence[Deed], description: str, language: str | None) -> str:
    """The question before a held action: its deeds said in the user's language
    where each has a verb of `TO_DO`, else its English description."""
    if deeds and all(deed.verb in TO_DO for deed in deeds):
        return phrase(ASK_ACTIONS, language).format(
            actions=actions(deeds, TO_DO, language)
        )
    return phrase(ASK_DESCRIBED, language).format(action=description)


def did_reply(phrases: Sequence[str], language: str | None) -> str:
    """The reply for actions that ran, from their `DidPhrase`s."""
    return phrase(DONE_ACTIONS, language).format(
        actions=phrase(AND, language).join(phrases)
    )


def done(deeds: Sequence[Deed], language: str | None) -> str:
    """The reply once a held action ran: what it did, else "Done."."""
    if deeds and all(deed.verb in DID for deed in deeds):
        return did_reply([actions(deeds, DID, language)], language)
    return phrase(DONE, language)
