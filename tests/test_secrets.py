"""Secrets in every outlet: logs at DEBUG, diagnostics, the conversation trace
Jarvis records, and memory. Each form of secret is said to a real agent whose
(scripted) model passes it to a tool, and looked for wherever it could leave."""

from __future__ import annotations

import logging
import re

from homeassistant.components.conversation import trace
from homeassistant.core import HomeAssistant
import pytest

from custom_components.jarvis.diagnostics import async_get_config_entry_diagnostics
from custom_components.jarvis.engine.phrases import (
    REMEMBERED,
    REMEMBERED_WITHOUT_SECRET,
)
from custom_components.jarvis.engine.redact import RedactingFilter
from custom_components.jarvis.memory import HOUSEHOLD, async_get_memory
from tests.scripted_llm import Reply, ScriptedLLMServer
from tests.test_conversation import process, setup_jarvis, speech

pytestmark = pytest.mark.usefixtures("ha_core")

CHAT_LOG = "homeassistant.components.conversation.chat_log"

# (what is said, the secret in it)
SECRETS = [
    ("the alarm code is 4321", "4321"),
    ("the alarm code is four three two one", "four three two one"),
    ("der Code ist vier drei zwei eins", "vier drei zwei eins"),
    ("mi PIN es 9876", "9876"),
    ("le mot de passe est soleil42", "soleil42"),
    ("my IBAN is DE89 3704 0044 0532 0130 00", "3704 0044"),
    ("my card is 4111 1111 1111 1111", "4111 1111"),
    ("the NAS is https://admin:hunter2@nas.local", "hunter2"),
]


def jarvis_logs(caplog: pytest.LogCaptureFixture) -> list[str]:
    """Records of Jarvis, and of Home Assistant's chat log of Jarvis's turns
    (not of what logs the request before Jarvis has it)."""
    return [
        record.getMessage() + (record.exc_text or "")
        for record in caplog.records
        if record.name.startswith("custom_components.jarvis") or record.name == CHAT_LOG
    ]


@pytest.mark.parametrize(("said", "secret"), SECRETS)
async def test_a_secret_leaves_jarvis_only_redacted(
    hass: HomeAssistant,
    scripted_llm: ScriptedLLMServer,
    caplog: pytest.LogCaptureFixture,
    said: str,
    secret: str,
) -> None:
    caplog.set_level(logging.DEBUG)
    entry, agent = await setup_jarvis(hass, scripted_llm)
    scripted_llm.script(
        Reply(tool_calls=[("HassTurnOn", {"name": said})]),
        Reply(content=f"I could not find {said}."),
    )
    # A question: its failed call on no device is dropped and the model asked
    # for words, which carry the secret too (a statement would get Jarvis's
    # apology at once).
    await process(hass, agent, f"{said}, right?")
    assert len(scripted_llm.chat_requests) == 2

    # Logs: Jarvis's own, and Home Assistant's chat log of Jarvis's turn (the
    # tool call with its arguments, the tool's result, the streamed reply).
    logged = jarvis_logs(caplog)
    assert any("Tool call: HassTurnOn" in line for line in logged)
    assert any(line.startswith("Turn: ") for line in logged)
    assert not [line for line in logged if secret in line]

    # Diagnostics: the entry and the recent turns.
    diagnostics = await async_get_config_entry_diagnostics(hass, entry)
    (subentry_id,) = entry.subentries
    (turn,) = diagnostics["recent_turns"][subentry_id]
    assert turn["tool_calls"][0]["name"] == "HassTurnOn"
    assert secret not in str(diagnostics)

    # The trace details Jarvis records for the Assist debug view.
    (last,) = trace.async_get_traces()[-1:]
    details = [
        event["data"]
        for event in last.as_dict()["events"]
        if event["event_type"] == trace.ConversationTraceEventType.AGENT_DETAIL
        and "path" in (event["data"] or {})
    ]
    assert details
    assert details[0]["tool_calls"][0]["arguments"]["name"] != said
    assert secret not in str(details)

    # Memory: kept without the secret, and the user is told.
    caplog.clear()
    response = await process(hass, agent, f"remember {said}")
    assert speech(response) == REMEMBERED_WITHOUT_SECRET["en"]
    facts = await async_get_memory(hass).recall(HOUSEHOLD, said)
    assert len(facts) == 1
    assert secret not in facts[0].text
    assert not [line for line in jarvis_logs(caplog) if secret in line]


# (a fact said with no word naming its secret, the secret, what is kept)
UNNAMED = [
    ("4321 for the garage", "4321", "[secret] for the garage"),
    ("the garage is 4 3 2 1", "4 3 2 1", "the garage is [secret]"),
    ("the shed is nine eight seven six", "nine eight", "the shed is [secret]"),
]


def leaked(secret: str, *places: object) -> list[str]:
    """The places that show the secret, its digits run together too. Not inside
    a longer number: a logged timestamp's microseconds may hold the digits."""
    forms = {re.escape(secret), re.escape(secret.replace(" ", ""))}
    shown = re.compile(rf"(?<!\d)(?:{'|'.join(forms)})(?!\d)")
    return [str(p) for p in places if shown.search(str(p))]


@pytest.mark.parametrize(("fact", "secret", "kept"), UNNAMED)
async def test_a_secret_no_word_names_is_neither_remembered_nor_logged(
    hass: HomeAssistant,
    scripted_llm: ScriptedLLMServer,
    caplog: pytest.LogCaptureFixture,
    *,
    fact: str,
    secret: str,
    kept: str,
) -> None:
    """Said to be remembered, plainly (no LLM) or to the model, whose tool call
    with the fact shows in logs and turn records."""
    caplog.set_level(logging.DEBUG)
    entry, agent = await setup_jarvis(hass, scripted_llm)
    response = await process(hass, agent, f"remember {fact}")
    assert speech(response) == REMEMBERED_WITHOUT_SECRET["en"]

    scripted_llm.script(
        Reply(tool_calls=[("memory_remember", {"fact": fact})]),
        Reply(content="Noted, without the number."),
        Reply(content="You told me about the garage."),
    )
    response = await process(hass, agent, f"{fact}, keep that in mind")
    # A later turn of the conversation: its prompt, logged, holds the fact.
    await process(hass, agent, "what did I just say?", response["conversation_id"])
    assert len(scripted_llm.chat_requests) == 3
    assert fact in str(scripted_llm.chat_requests[2]["json"]["messages"])

    facts = await async_get_memory(hass).recall(HOUSEHOLD, fact)
    assert [f.text for f in facts] == [kept, kept]
    logged = jarvis_logs(caplog)
    assert any("Adding user content" in line for line in logged)
    assert any("memory_remember" in line for line in logged)
    assert not leaked(secret, *logged)
    diagnostics = await async_get_config_entry_diagnostics(hass, entry)
    # Of the traces, Jarvis's turn records (the request and the prompt are Home
    # Assistant's records of what was said).
    details = [
        event["data"]
        for turn in trace.async_get_traces()
        for event in turn.as_dict()["events"]
        if event["event_type"] == trace.ConversationTraceEventType.AGENT_DETAIL
        and "path" in (event["data"] or {})
    ]
    assert "memory_remember" in str(details)
    assert not leaked(secret, diagnostics, details)


async def test_a_number_that_is_plainly_no_secret_is_kept_and_logged(
    hass: HomeAssistant,
    scripted_llm: ScriptedLLMServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    _, agent = await setup_jarvis(hass, scripted_llm)
    fact = "my flight is on 12 March 2027 and I walk 3000 steps"
    response = await process(hass, agent, f"remember {fact}")
    assert speech(response) == REMEMBERED["en"]
    assert [f.text for f in await async_get_memory(hass).recall(HOUSEHOLD, fact)] == [
        fact
    ]
    assert any(fact in line for line in jarvis_logs(caplog))


async def test_every_jarvis_logger_redacts(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    """A module that takes a plain logger would log secrets verbatim."""
    await setup_jarvis(hass, scripted_llm)
    names = [
        name
        for name, logger in logging.root.manager.loggerDict.items()
        if name.startswith("custom_components.jarvis")
        and isinstance(logger, logging.Logger)
    ]
    assert "custom_components.jarvis.engine.loop.step" in names
    names.append(CHAT_LOG)
    for name in names:
        filters = logging.getLogger(name).filters
        assert any(isinstance(f, RedactingFilter) for f in filters), name


def test_a_traceback_is_redacted(caplog: pytest.LogCaptureFixture) -> None:
    logger = logging.getLogger("custom_components.jarvis")
    error = ValueError("cannot reach https://admin:hunter2@nas.local")
    logger.error(
        "Setup of %s failed", "https://admin:hunter2@nas.local", exc_info=error
    )
    (record,) = caplog.records
    assert "hunter2" not in record.getMessage()
    assert "hunter2" not in caplog.text
    assert "https://[secret]@nas.local" in caplog.text


def test_a_record_that_cannot_be_formatted_passes_unchanged() -> None:
    """The handler reports it, as for any logger; the caller never sees an error."""
    record = logging.LogRecord(
        "custom_components.jarvis",
        logging.WARNING,
        __file__,
        1,
        "%d items",
        ("many",),
        None,
    )
    assert RedactingFilter().filter(record)
    assert (record.msg, record.args) == ("%d items", ("many",))
