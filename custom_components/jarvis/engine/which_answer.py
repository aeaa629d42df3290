"""The user's answer to Jarvis's "which one do you mean?": the call it was
asked for, on the device the answer names, made with no model call. 0.5B
took "the Ecobee", after "Which one do you mean: Ecobee, HeatPump or Hvac?"
for "set the thermostat to 21", for a question of its own, and answered
"The Ecobee is a climate device.".
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
import json
from typing import NamedTuple

from .lang import en, language_pack
from .phrases import FINAL_REPLY
from .text import folded_words, most_specific, telling_words
from .types import JsonObject, Message

# A tool result's field: the names a "which one?" offered.
CHOICES = "choices"
# What a call's choice replaces: where it was looked for, and of what kind.
_NARROWING = ("name", "area", "floor", "domain", "device_class")

# While calls run for a request that is not the user's latest message, that
# request: the one a which-question asked about, with the answer ("turn up
# the heat the Hvac"), or one command of joined ones asked alone. Tools read
# the user's words from it, the step said as well as the device chosen.
ASKED_REQUEST: ContextVar[str | None] = ContextVar("asked_request", default=None)


@contextmanager
def calls_for(request: str | None) -> Iterator[None]:
    """Calls made inside are for this request (`ASKED_REQUEST`); for the
    user's latest message where None."""
    if request is None:
        yield
        return
    token = ASKED_REQUEST.set(request)
    try:
        yield
    finally:
        ASKED_REQUEST.reset(token)


class Choice(NamedTuple):
    """A device a which-question offers: its name, and its area where another
    choice shares the name."""

    name: str
    area: str | None = None

    @property
    def label(self) -> str:
        """As the question says it: "Saugroboter (Büro)"."""
        return f"{self.name} ({self.area})" if self.area else self.name

    def as_json(self) -> JsonObject:
        """As a tool result holds it, for `answered_call` to read back."""
        return {"name": self.name} | ({"area": self.area} if self.area else {})


class Answered(NamedTuple):
    """A call a which-question asked about, on the device the answer chose,
    and the request it completes."""

    name: str
    arguments: JsonObject
    request: str


def answered_call(messages: Sequence[Message], language: str | None) -> Answered | None:
    """The call whose result asked which device, in the turn before the
    user's last message, with the one device that message names; None where
    it names none, several, or says more than the name (a new request:
    "turn off the kitchen light" after a question about the players)."""
    if len(messages) < 2 or messages[-1].role != "user":
        return None
    request = messages[-1].content
    turn: list[Message] = []
    asked = ""
    for message in reversed(messages[:-1]):
        if message.role == "user":
            asked = message.content
            break
        turn.append(message)
    calls = {call.id: call for message in turn for call in message.tool_calls}
    # The question must have been the turn's reply, as it was asked.
    replied = turn[0].content if turn and turn[0].role == "assistant" else ""
    for message in turn:
        if message.role != "tool" or (choices := _choices(message, replied)) is None:
            continue
        call = calls.get(message.tool_call_id or "")
        if call is None or (chosen := _chosen(choices, request, language)) is None:
            return None
        kept = {k: v for k, v in call.arguments.items() if k not in _NARROWING}
        chosen_args = kept | chosen.as_json()
        return Answered(call.name, chosen_args, f"{asked} {request}")
    return None


def _choices(message: Message, replied: str) -> list[Choice] | None:
    """The choices a tool result asked about, where its question was the
    reply."""
    try:
        result = json.loads(message.content)
    except ValueError:
        return None
    if not isinstance(result, dict) or result.get(FINAL_REPLY) != replied:
        return None
    choices = result.get(CHOICES)
    if not isinstance(choices, list):
        return None
    return [
        Choice(
            choice["name"],
            area if isinstance(area := choice.get("area"), str) else None,
        )
        for choice in choices
        if isinstance(choice, dict) and isinstance(choice.get("name"), str)
    ]


def _chosen(choices: list[Choice], request: str, language: str | None) -> Choice | None:
    """The one choice the request names, in full or by the words that set
    it apart ("the one in the office", of robots that share a name), saying
    nothing else but words that tell nothing ("the", "please", "yes")."""
    said = folded_words(request)
    telling = {choice: telling_words(choice.label) for choice in choices}
    shared = set.intersection(*telling.values()) if telling else set()
    named = {
        choice: frozenset(words & said)
        for choice, words in telling.items()
        if words and (words <= said or ((apart := words - shared) and apart <= said))
    }
    meant = most_specific(named)
    if len(meant) != 1:
        return None
    (choice,) = meant
    return choice if said - telling[choice] <= _telling_nothing(language) else None


def _telling_nothing(language: str | None) -> set[str]:
    packs = (language_pack(language), en.LANGUAGE)
    return {
        word
        for pack in packs
        for phrase in (
            *pack.articles,
            *pack.stopwords,
            *pack.polite,
            *pack.fillers,
            *pack.yes,
            *pack.choice_links,
        )
        for word in folded_words(phrase)
    }
