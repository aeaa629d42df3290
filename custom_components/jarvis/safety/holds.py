"""Actions held for the user's yes, and conversations that saw outside content.

A hold stores exactly what will run (service calls with resolved entity ids,
never a name to resolve again) and a snapshot of the entities it touches. It
belongs to one conversation, user and satellite, and the owner's next message
answers it: yes runs it with no LLM call (unless an entity vanished or
changed meanwhile: then Jarvis says so and asks again), no drops it, an
unclear answer gets the question again, and anything else drops it and is
handled as a new request. It ends after a short window.

A tool result cannot create a user turn, so an injected "say yes" or an
injected call to `confirm_action` in the same turn runs nothing.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, replace
import time
from typing import Literal

from homeassistant.components.conversation import chat_log as ha_chat_log
from homeassistant.components.homeassistant.exposed_entities import (
    async_should_expose,
)
from homeassistant.core import Context, HomeAssistant
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import chat_session, llm
from homeassistant.util.json import JsonObjectType
import voluptuous as vol

from ..const import ASSISTANT, DEFAULT_CONFIRM_WINDOW
from ..engine.answers import classify_answer
from ..engine.phrases import (
    FAILED_PLAIN,
    FINAL_REPLY,
    HOLD_CHANGED,
    HOLD_GONE,
    NOT_DONE,
    Deed,
    FinalReply,
    ask_first,
    done,
    listed,
    phrase,
)
from ..engine.results import failed
from ..engine.which_answer import ASKED_REQUEST
from .effects import Call

TAINT_TTL = 3600.0  # seconds a conversation counts as having seen outside content

type Runner = Callable[[], Awaitable[JsonObjectType]]
type Kind = Literal["yes", "no", "unclear", "other"]


@dataclass(frozen=True, slots=True)
class Owner:
    """Who may answer a hold: one conversation, user and satellite."""

    conversation_id: str
    user_id: str | None
    device_id: str | None


def owner_of(llm_context: llm.LLMContext) -> Owner:
    """The owner of a tool call's turn."""
    return Owner(
        conversation_key(llm_context),
        llm_context.context.user_id if llm_context.context else None,
        llm_context.device_id,
    )


def conversation_key(llm_context: llm.LLMContext) -> str:
    """The conversation a tool call belongs to (its turn's context otherwise)."""
    if session := chat_session.current_session.get():
        return session.conversation_id
    return llm_context.context.id if llm_context.context else ""


def _turn_id(llm_context: llm.LLMContext) -> str:
    """Each user turn runs in its own context."""
    return llm_context.context.id if llm_context.context else ""


def user_text() -> str | None:
    """The user's latest message in the conversation being answered, if
    known; while calls run for another request (`ASKED_REQUEST`), that one."""
    if (answered := ASKED_REQUEST.get()) is not None:
        return answered
    if (log := ha_chat_log.current_chat_log.get()) is None:
        return None
    for content in reversed(log.content):
        if isinstance(content, ha_chat_log.UserContent):
            return content.content
    return None


def first_request() -> bool:
    """Whether the user's latest message is the first of its conversation
    (nothing said before can tell what "it" or "the light" is)."""
    if (log := ha_chat_log.current_chat_log.get()) is None:
        return False
    said = [c for c in log.content if isinstance(c, ha_chat_log.UserContent)]
    return len(said) == 1


def question_answered() -> str | None:
    """Jarvis's reply just before the user's latest message, if it was a
    question ("Shall I turn on the lights?" before a "yes")."""
    if (log := ha_chat_log.current_chat_log.get()) is None:
        return None
    reply = asked = None
    for content in log.content:
        if isinstance(content, ha_chat_log.AssistantContent) and content.content:
            reply = content.content
        elif isinstance(content, ha_chat_log.UserContent):
            asked, reply = reply, None
    return asked if asked and asked.rstrip().endswith("?") else None


type Snapshot = dict[str, tuple[str, str] | None]


def snapshot(hass: HomeAssistant, entity_ids: Iterable[str]) -> Snapshot:
    """Each entity's name and state now (None: it does not exist)."""
    return {
        entity_id: (state.name, state.state)
        if (state := hass.states.get(entity_id))
        else None
        for entity_id in entity_ids
    }


@dataclass(frozen=True, slots=True)
class Hold:
    """An action waiting for its owner's yes."""

    owner: Owner
    turn: str
    calls: tuple[Call, ...]
    run: Runner
    before: Snapshot
    deeds: tuple[Deed, ...]
    question: str
    description: str
    created: float


@dataclass(frozen=True, slots=True)
class Answer:
    """Jarvis's reply to the owner's answer, and what the action gave (None:
    nothing ran)."""

    reply: str
    result: JsonObjectType | None


class Safety:
    """Held actions and conversations that saw outside content."""

    def __init__(
        self, hass: HomeAssistant, window: float = DEFAULT_CONFIRM_WINDOW
    ) -> None:
        """Nothing held, nothing tainted."""
        self.hass = hass
        self.window = window
        self._holds: dict[str, Hold] = {}
        self._tainted: dict[str, float] = {}
        # URLs web searches returned, per conversation: fetching them is expected.
        self._urls: dict[str, set[str]] = {}

    def mark_untrusted(self, llm_context: llm.LLMContext) -> None:
        """The conversation has now seen content from outside the house."""
        self._tainted[conversation_key(llm_context)] = time.monotonic()

    def is_tainted(self, llm_context: llm.LLMContext) -> bool:
        """Whether outside content entered this conversation recently."""
        now = time.monotonic()
        for key, when in list(self._tainted.items()):
            if now - when > TAINT_TTL:
                del self._tainted[key]
                self._urls.pop(key, None)
        return conversation_key(llm_context) in self._tainted

    def remember_urls(self, llm_context: llm.LLMContext, urls: Iterable[str]) -> None:
        """URLs a search found for this conversation."""
        self._urls.setdefault(conversation_key(llm_context), set()).update(urls)

    def known_url(self, llm_context: llm.LLMContext, url: str) -> bool:
        """Whether a search in this conversation found the URL."""
        return url in self._urls.get(conversation_key(llm_context), ())

    def hold(
        self,
        llm_context: llm.LLMContext,
        description: str,
        run: Runner,
        *,
        calls: Sequence[Call] = (),
        touched: Iterable[str] = (),
        deeds: Sequence[Deed] = (),
    ) -> JsonObjectType:
        """Keep an action until its owner's next message; the turn ends with
        Jarvis's own question about it."""
        question = ask_first(deeds, description, self._language(llm_context))
        owner = owner_of(llm_context)
        self._holds[owner.conversation_id] = Hold(
            owner,
            _turn_id(llm_context),
            tuple(calls),
            run,
            snapshot(self.hass, touched),
            tuple(deeds),
            question,
            description,
            time.monotonic(),
        )
        return {
            "confirmation_required": True,
            "action": description,
            "instruction": (
                f"Not done yet: the user was asked whether to {description}. Only "
                "if they answer yes in their next message, call confirm_action."
            ),
            FINAL_REPLY: FinalReply(question),
        }

    def _language(self, llm_context: llm.LLMContext) -> str:
        return llm_context.language or self.hass.config.language

    def _held(self, owner: Owner) -> Hold | None:
        """The owner's live hold; an expired one is dropped."""
        hold = self._holds.get(owner.conversation_id)
        if hold is None:
            return None
        if time.monotonic() - hold.created > self.window:
            del self._holds[owner.conversation_id]
            return None
        return hold if hold.owner == owner else None

    def has_pending(self, llm_context: llm.LLMContext) -> bool:
        """Whether an action of this turn's owner waits for a yes."""
        return self._held(owner_of(llm_context)) is not None

    async def confirm(self, llm_context: llm.LLMContext) -> JsonObjectType:
        """`confirm_action`: run the held action if the owner's own latest
        words, in a later turn, are a yes."""
        owner = owner_of(llm_context)
        if (hold := self._held(owner)) is None:
            return _error("nothing_to_confirm", "No action is waiting for a yes.")
        if hold.turn == _turn_id(llm_context):
            return _error(
                "not_confirmed",
                f"Ask the user first whether to {hold.description}; "
                "only their own answer in the next message can confirm it.",
            )
        said = user_text() or ""
        if classify_answer(said, self._language(llm_context)) != "yes":
            del self._holds[owner.conversation_id]
            return _error(
                "not_confirmed",
                f"The user did not say yes, so this was not done: {hold.description}.",
            )
        answer = await self._run(hold, self._language(llm_context))
        return answer.result or _error("not_confirmed", answer.reply)

    async def async_answer(
        self, llm_context: llm.LLMContext, text: str
    ) -> Answer | None:
        """Answer the owner's reply to Jarvis's question without the model.
        None when nothing is held for the owner, or the reply is a new request
        (the hold is dropped then)."""
        owner = owner_of(llm_context)
        if (hold := self._held(owner)) is None:
            return None
        language = self._language(llm_context)
        kind: Kind = classify_answer(text, language)
        if kind == "unclear":
            return Answer(hold.question, None)
        del self._holds[owner.conversation_id]
        if kind == "other":
            return None
        if kind == "no":
            return Answer(phrase(NOT_DONE, language), None)
        return await self._run(hold, language)

    async def _run(self, hold: Hold, language: str) -> Answer:
        """Run exactly what was held, if its entities are as they were."""
        self._holds.pop(hold.owner.conversation_id, None)
        now = snapshot(self.hass, hold.before)
        # What the calls name must still be there, and still exposed.
        named = {entity_id for call in hold.calls for entity_id in call.entity_ids}
        hidden = {e for e in named if not async_should_expose(self.hass, ASSISTANT, e)}
        if gone := [
            hold.before[e] for e in hold.before if now[e] is None or e in hidden
        ]:
            names = [entry[0] for entry in gone if entry is not None]
            return Answer(
                phrase(HOLD_GONE, language).format(names=listed(names, language)), None
            )
        if changed := [now[e] for e in hold.before if now[e] != hold.before[e]]:
            names = [entry[0] for entry in changed if entry is not None]
            again = replace(hold, before=now, created=time.monotonic())
            self._holds[hold.owner.conversation_id] = again
            reply = phrase(HOLD_CHANGED, language).format(names=listed(names, language))
            return Answer(f"{reply} {hold.question}", None)
        try:
            result = await hold.run()
        except (HomeAssistantError, vol.Invalid) as err:
            # As Home Assistant's chat log reports a tool that raised; the
            # user hears a sentence, never the exception's text.
            result = _error(type(err).__name__, str(err))
        if failed(result):
            return Answer(phrase(FAILED_PLAIN, language), result)
        return Answer(done(hold.deeds, language), result)


async def run_calls(
    hass: HomeAssistant, calls: Sequence[Call], context: Context | None
) -> JsonObjectType:
    """Make exactly these service calls, in order."""
    for call in calls:
        await hass.services.async_call(
            call.domain, call.service, dict(call.data), blocking=True, context=context
        )
    touched = [entity_id for call in calls for entity_id in call.entity_ids]
    return {
        "success": True,
        "states": {
            entity_id: state.state
            for entity_id in touched
            if (state := hass.states.get(entity_id))
        },
    }


def _error(code: str, text: str) -> JsonObjectType:
    return {"error": code, "error_text": text}
