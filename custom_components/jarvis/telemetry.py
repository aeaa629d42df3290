"""Per-turn telemetry and the health of the LLM server.

Every turn becomes a `TurnRecord`: it goes to Home Assistant's conversation
trace (the Assist debug view), to the log, to the agent's diagnostic sensors
and, for the last few turns, to diagnostics. What the user said, the reply and
tool arguments are redacted before a record is kept.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
import re
from typing import TYPE_CHECKING, Any, Literal

from homeassistant.components import conversation
from homeassistant.config_entries import ConfigSubentry
from homeassistant.const import EVENT_HOMEASSISTANT_STOP
from homeassistant.core import CALLBACK_TYPE, Event, HomeAssistant, callback
from homeassistant.exceptions import ConfigEntryAuthFailed
from homeassistant.helpers import intent, issue_registry as ir, llm
from homeassistant.helpers.update_coordinator import DataUpdateCoordinator
from homeassistant.util import dt as dt_util
from yarl import URL

from .const import CONF_URL, CONNECT_TIMEOUT, DOMAIN, LOGGER
from .engine.llm.base import LLMAuthError, LLMClient, LLMError
from .engine.loop import TurnResult
from .engine.redact import redact
from .engine.types import JsonObject

if TYPE_CHECKING:
    from . import JarvisConfigEntry

MAX_TURNS_KEPT = 20  # per agent, for diagnostics
SERVER_CHECK_INTERVAL = timedelta(seconds=60)
ISSUE_SERVER_UNREACHABLE = "server_unreachable"
# Placeholder for the repair issue when a reply, not the periodic check, failed.
TURN_FAILED = "a reply could not get an answer from the model"

type TurnPath = Literal["fast_path", "loop", "memory"]
type TurnListener = Callable[[TurnRecord], None]

# Argument names whose values are secrets whatever they look like (alarm codes).
_SECRET_ARGUMENT = re.compile(
    r"(?:^|_)(?:password|passwd|passcode|pin|code|token|secret|api_?key)(?:$|_)",
    re.IGNORECASE,
)


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
    # failed or switched protocol, what the context budget did.
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


def redact_arguments(value: Any, key: str = "") -> Any:
    """Tool arguments with secrets and personal data replaced, structure kept."""
    if isinstance(value, Mapping):
        return {k: redact_arguments(v, str(k)) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact_arguments(v, key) for v in value]
    if _SECRET_ARGUMENT.search(key) and value is not None:
        return "[secret]"
    if isinstance(value, str):
        return redact(value)
    return value


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
        "arguments": redact_arguments(arguments),
        "success": success,
        "answered_by_engine": answered_by_engine,
    }
    if not success and result and "error" in result:
        call["error"] = redact(str(result["error"]))
    return call


def _failed(result: Mapping[str, Any]) -> bool:
    """As the loop judges a tool result."""
    return "error" in result or result.get("success") is False


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
    path: TurnPath = "memory" if result.ended == "memory" else "loop"
    return TurnRecord(
        agent=agent,
        path=path,
        user_text=redact(_user_text(chat_log)),
        reply=redact(result.text),
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
                success=not _failed(record.result),
                answered_by_engine=record.answered_by_engine,
            )
            for record in result.tool_calls
        ],
        ended=result.ended,
        duration=result.duration,
        engine={
            "plan": [redact(step) for step in result.plan],
            "llm_call_details": [asdict(call) for call in result.calls],
            "error": result.error,
            "protocol_switch": result.protocol_switch,
            "context": {
                "shortened_tool_results": result.shortened_results,
                "summarised_turns": result.summarised_turns,
            },
        },
    )


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
        user_text=redact(_user_text(chat_log)),
        reply=redact(response.speech.get("plain", {}).get("speech", "")),
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
    """The recent turns of a server entry's agents, and who listens for new ones."""

    def __init__(self) -> None:
        """Start with no turns and no server monitor."""
        self.turns: dict[str, deque[TurnRecord]] = {}
        # Set by the binary_sensor platform; told how every turn ended.
        self.server: ServerMonitor | None = None
        self._listeners: dict[str, list[TurnListener]] = {}

    @callback
    def async_subscribe(
        self, subentry_id: str, listener: TurnListener
    ) -> CALLBACK_TYPE:
        """Call `listener` after each turn of one agent; returns the unsubscriber."""
        listeners = self._listeners.setdefault(subentry_id, [])
        listeners.append(listener)
        return lambda: listeners.remove(listener)

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
        for listener in list(self._listeners.get(subentry_id, ())):
            listener(record)
        if self.server is not None:
            self.server.async_turn_ended(record)


@dataclass(frozen=True, slots=True)
class ServerStatus:
    """Whether the LLM server answers, and if not, why."""

    reachable: bool
    error: str | None = None


class ServerMonitor(DataUpdateCoordinator[ServerStatus]):
    """Checks the LLM server by listing its models; keeps a repair issue in step.

    A turn that failed on the server marks it unreachable at once; one the
    model answered marks it reachable again without waiting for the next check.
    """

    config_entry: JarvisConfigEntry

    def __init__(
        self, hass: HomeAssistant, entry: JarvisConfigEntry, client: LLMClient
    ) -> None:
        """Start as reachable: setting up the entry just listed the models."""
        super().__init__(
            hass,
            LOGGER,
            config_entry=entry,
            name=f"{DOMAIN} server",
            update_interval=SERVER_CHECK_INTERVAL,
            always_update=False,
        )
        self._client = client
        self.data = ServerStatus(reachable=True)
        # User and password never belong in a repair message.
        self._url = str(URL(entry.data[CONF_URL]).with_user(None))
        self._issue_id = f"{ISSUE_SERVER_UNREACHABLE}_{entry.entry_id}"
        # Home Assistant stops an entry's coordinator only when the entry
        # unloads, which stopping does not do: left alone, the check would run
        # on after the shared HTTP session closed.
        self._unsub_stop: CALLBACK_TYPE | None = hass.bus.async_listen_once(
            EVENT_HOMEASSISTANT_STOP, self._async_hass_stopping
        )

    async def _async_update_data(self) -> ServerStatus:
        try:
            async with asyncio.timeout(CONNECT_TIMEOUT):
                models = await self._client.list_models()
        except LLMAuthError as err:
            # Reachable, but the key is wrong: that is re-authentication's job.
            raise ConfigEntryAuthFailed(
                translation_domain=DOMAIN, translation_key="invalid_auth"
            ) from err
        except (LLMError, TimeoutError) as err:
            status = ServerStatus(False, str(err) or type(err).__name__)
        else:
            status = (
                ServerStatus(True)
                if models
                else ServerStatus(False, "the server lists no models")
            )
        self._async_track(status)
        return status

    @callback
    def async_turn_ended(self, record: TurnRecord) -> None:
        """Take a turn's outcome as a check of the server."""
        if record.ended == "llm_error":
            status = ServerStatus(False, TURN_FAILED)
        elif record.llm_calls and not self.data.reachable:
            status = ServerStatus(True)
        else:
            return
        self._async_track(status)
        self.async_set_updated_data(status)

    async def async_shutdown(self) -> None:
        """An unloaded entry leaves no repair issue behind."""
        if self._unsub_stop is not None:
            self._unsub_stop()
            self._unsub_stop = None
        await super().async_shutdown()
        ir.async_delete_issue(self.hass, DOMAIN, self._issue_id)

    async def _async_hass_stopping(self, _event: Event) -> None:
        """Stop checking; the repair issue stays as the last check left it."""
        self._unsub_stop = None  # a listener fired once is gone already
        await super().async_shutdown()

    @callback
    def _async_track(self, status: ServerStatus) -> None:
        """Log changes once and keep the repair issue in step with `status`."""
        was_reachable = self.data.reachable
        if status.reachable:
            if not was_reachable:
                LOGGER.info("The LLM server at %s answers again", self._url)
                ir.async_delete_issue(self.hass, DOMAIN, self._issue_id)
            return
        if was_reachable:
            LOGGER.warning(
                "The LLM server at %s is unreachable: %s", self._url, status.error
            )
        ir.async_create_issue(
            self.hass,
            DOMAIN,
            self._issue_id,
            is_fixable=False,
            severity=ir.IssueSeverity.ERROR,
            translation_key=ISSUE_SERVER_UNREACHABLE,
            translation_placeholders={
                "title": self.config_entry.title,
                "url": self._url,
                "error": status.error or "",
            },
        )
