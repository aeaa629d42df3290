"""Per-turn telemetry.

Every turn becomes a `TurnRecord`: it goes to Home Assistant's conversation
trace (the Assist debug view), to the log, to the agent's diagnostic sensors
and, for the last few turns, to diagnostics. What the user said, the reply and
tool arguments are redacted before a record is kept, the numbers the user said
that would be secrets in a remembered fact included (`redact_turn`). Each turn also tells the
server check (coordinator.py) whether the model answered.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any, Literal

from homeassistant.components import conversation
from homeassistant.config_entries import ConfigSubentry
from homeassistant.core import HomeAssistant, callback
from homeassistant.helpers import intent, llm
from homeassistant.helpers.dispatcher import async_dispatcher_send
from homeassistant.util import dt as dt_util

from .const import DOMAIN, LOGGER
from .engine.loop import TurnResult
from .engine.redact import redact_data, redact_turn, redacting_logger
from .engine.results import failed
from .engine.types import JsonObject

MAX_TURNS_KEPT = 20  # per agent, for diagnostics

# Home Assistant's chat log logs Jarvis's turns at DEBUG: what was said, the
# model's tool calls with their arguments, and the tools' results.
redacting_logger("homeassistant.components.conversation.chat_log")

type TurnPath = Literal["fast_path", "loop", "memory", "confirmation"]


def turn_signal(entry_id: str) -> str:
    """The dispatcher signal a server entry's turns are sent on, with the
    agent's subentry id and the `TurnRecord`."""
    return f"{DOMAIN}_turn_{entry_id}"


@dataclass(frozen=True, slots=True)
class TurnRecord:
    """What one turn of an agent did, with personal data redacted."""

    agent: str
    path: TurnPath
    user_text: str
    reply: str
    protocol: str | None
    llm_calls: int
    prompt_tokens: int
    completion_tokens: int
    # Offered tool -> why it was offered (router keyword, previous turn, ...).
    tools_offered: Mapping[str, str]
    tool_calls: list[dict[str, Any]]
    # As TurnResult.ended; the fast path ends "done" or "intent_error".
    ended: str
    duration: float
    # Engine details (loop turns only): plan steps, each LLM call, why the turn
    # failed or switched protocol, what the context budget did, what came from
    # the conversation's cache, tool calls run straight from the plan.
    engine: dict[str, Any] = field(default_factory=dict)
    time: datetime = field(default_factory=dt_util.utcnow)

    @property
    def tokens(self) -> int:
        """Prompt and completion tokens together."""
        return self.prompt_tokens + self.completion_tokens

    def details(self) -> dict[str, Any]:
        """How the turn was answered, without what was said (the trace has that)."""
        return {
            "path": self.path,
            "protocol": self.protocol,
            "llm_calls": self.llm_calls,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "tools_offered": dict(self.tools_offered),
            "tool_calls": self.tool_calls,
            "ended": self.ended,
            "duration": round(self.duration, 3),
            **self.engine,
        }

    def as_dict(self) -> dict[str, Any]:
        """The whole record, for diagnostics and debug logs."""
        return {
            "time": self.time.isoformat(),
            "agent": self.agent,
            "user_text": self.user_text,
            "reply": self.reply,
            **self.details(),
        }


def _tool_call(
    name: str,
    arguments: JsonObject,
    result: Mapping[str, Any] | None,
    *,
    success: bool,
    answered_by_engine: bool = False,
) -> dict[str, Any]:
    call: dict[str, Any] = {
        "name": name,
        "arguments": redact_data(arguments),
        "success": success,
        "answered_by_engine": answered_by_engine,
    }
    if not success and result and "error" in result:
        call["error"] = redact_turn(str(result["error"]))
    return call


def _user_text(chat_log: conversation.ChatLog) -> str:
    return next(
        (
            content.content
            for content in reversed(chat_log.content)
            if isinstance(content, conversation.UserContent)
        ),
        "",
    )


def _turn_tool_inputs(chat_log: conversation.ChatLog) -> list[llm.ToolInput]:
    """The tool calls logged since the last user message."""
    calls: list[llm.ToolInput] = []
    for content in reversed(chat_log.content):
        if isinstance(content, conversation.UserContent):
            break
        if isinstance(content, conversation.AssistantContent):
            calls[:0] = content.tool_calls or ()
    return calls


def loop_record(
    agent: str, chat_log: conversation.ChatLog, result: TurnResult
) -> TurnRecord:
    """The record of a turn the reply engine answered."""
    path: TurnPath = (
        "memory"
        if result.ended == "memory"
        else "confirmation"
        if result.ended == "confirmation"
        else "loop"
    )
    return TurnRecord(
        agent=agent,
        path=path,
        user_text=redact_turn(_user_text(chat_log)),
        reply=redact_turn(result.text),
        # A memory command never reaches the model, so no protocol applies.
        protocol=result.protocol if path == "loop" else None,
        llm_calls=result.llm_calls,
        prompt_tokens=result.prompt_tokens,
        completion_tokens=result.completion_tokens,
        tools_offered=dict(result.tool_reasons),
        tool_calls=[
            _tool_call(
                record.name,
                record.arguments,
                record.result,
                success=not failed(record.result),
                answered_by_engine=record.answered_by_engine,
            )
            for record in result.tool_calls
        ],
        ended=result.ended,
        duration=result.duration,
        engine={
            "plan": [redact_turn(step) for step in result.plan],
            "llm_call_details": [_in_ms(asdict(call)) for call in result.calls],
            "error": redact_turn(result.error) if result.error else None,
            "protocol_switch": result.protocol_switch,
            "context": {
                "shortened_tool_results": result.shortened_results,
                "summarised_turns": result.summarised_turns,
            },
            "cache_hits": list(result.cache_hits),
            "planned_calls": result.planned_calls,
        },
    )


def _in_ms(details: dict[str, Any]) -> dict[str, Any]:
    """Times to the millisecond, as the turn's: their float noise had put a
    user's redacted PIN ("9876") in a debug log line (0.00145196599987...)."""
    return {
        key: round(value, 3) if isinstance(value, float) else value
        for key, value in details.items()
    }


def fast_path_record(
    agent: str,
    chat_log: conversation.ChatLog,
    response: intent.IntentResponse,
    duration: float,
) -> TurnRecord:
    """The record of a turn Home Assistant's own intents answered."""
    success = response.response_type != intent.IntentResponseType.ERROR
    return TurnRecord(
        agent=agent,
        path="fast_path",
        user_text=redact_turn(_user_text(chat_log)),
        reply=redact_turn(response.speech.get("plain", {}).get("speech", "")),
        protocol=None,
        llm_calls=0,
        prompt_tokens=0,
        completion_tokens=0,
        tools_offered={},
        tool_calls=[
            _tool_call(
                call.tool_name,
                call.tool_args,
                {"error": response.error_code} if not success else None,
                success=success,
            )
            for call in _turn_tool_inputs(chat_log)
        ],
        ended="done" if success else "intent_error",
        duration=duration,
    )


class Telemetry:
    """The recent turns of a server entry's agents; each new one goes out on
    the entry's `turn_signal` (sensors and the server monitor listen)."""

    def __init__(self, hass: HomeAssistant, entry_id: str) -> None:
        """Start with no turns."""
        self.hass = hass
        self.signal = turn_signal(entry_id)
        self.turns: dict[str, deque[TurnRecord]] = {}

    @callback
    def async_record_loop(
        self,
        subentry: ConfigSubentry,
        chat_log: conversation.ChatLog,
        result: TurnResult,
    ) -> None:
        """Record a turn the reply engine answered."""
        self._async_record(
            subentry, chat_log, loop_record(subentry.title, chat_log, result)
        )

    @callback
    def async_record_fast_path(
        self,
        subentry: ConfigSubentry,
        chat_log: conversation.ChatLog,
        response: intent.IntentResponse,
        duration: float,
    ) -> None:
        """Record a turn Home Assistant's intents answered without the LLM."""
        self._async_record(
            subentry,
            chat_log,
            fast_path_record(subentry.title, chat_log, response, duration),
        )

    @callback
    def _async_record(
        self,
        subentry: ConfigSubentry,
        chat_log: conversation.ChatLog,
        record: TurnRecord,
    ) -> None:
        chat_log.async_trace(record.details())
        LOGGER.info(
            "%s answered by %s in %.1f s (%s): %d LLM calls, %d tokens, tools: %s",
            record.agent,
            record.path,
            record.duration,
            record.ended,
            record.llm_calls,
            record.tokens,
            ", ".join(call["name"] for call in record.tool_calls) or "none",
        )
        LOGGER.debug("Turn: %s", record.as_dict())
        subentry_id = subentry.subentry_id
        self.turns.setdefault(subentry_id, deque(maxlen=MAX_TURNS_KEPT)).append(record)
        async_dispatcher_send(self.hass, self.signal, subentry_id, record)
