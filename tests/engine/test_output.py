"""Think blocks and the release gate: what reaches the user while streaming."""

from __future__ import annotations

import asyncio

import pytest

from custom_components.jarvis.engine.llm import create_client
from custom_components.jarvis.engine.llm.base import Sampling
from custom_components.jarvis.engine.loop import LocalStepHost, LoopSettings, ReplyLoop
from custom_components.jarvis.engine.output import (
    ReleaseGate,
    RepetitionGuard,
    ThinkFilter,
    strip_think,
)
from custom_components.jarvis.engine.types import Message
from tests.scripted_llm import Reply, ScriptedLLMServer


@pytest.mark.parametrize("size", [1, 2, 3, 5, 100])
def test_think_blocks_removed_across_any_chunking(size: int) -> None:
    text = "<think>plan: call the tool</think>The light is on.<think>x</think> Done."
    think = ThinkFilter()
    out = "".join(think.feed(text[i : i + size]) for i in range(0, len(text), size))
    out += think.flush()
    assert out == "The light is on. Done."


def test_unclosed_think_block_is_dropped() -> None:
    think = ThinkFilter()
    assert think.feed("Hi<think>still thinking") == "Hi"
    assert think.flush() == ""


def test_strip_think_handles_unopened_leading_block() -> None:
    assert strip_think("reasoning here</think>Answer.") == "Answer."


def test_gate_releases_whole_sentences_of_prose() -> None:
    gate = ReleaseGate()
    assert gate.feed("The kitchen light") == ""
    assert gate.feed(" is on. It is") == "The kitchen light is on. "
    assert gate.held == "It is"


@pytest.mark.parametrize(
    "stream",
    [
        ['{"name": "HassTurnOn", ', '"arguments": {}}'],
        ["```json\n{", '"name": "x"}```'],
        ["To turn it on, use: ", '```json {"name": "x"}```. Done.'],
        ["<tool_call>", "{}</tool_call>"],
    ],
)
def test_gate_holds_anything_that_may_be_a_call(stream: list[str]) -> None:
    gate = ReleaseGate()
    assert "".join(gate.feed(piece) for piece in stream) == ""
    assert gate.held == "".join(stream)


def test_gate_holds_a_lead_in_until_prose_follows_it() -> None:
    gate = ReleaseGate()
    assert gate.feed("Sure, here it is:\n") == ""
    assert gate.feed("The hall light is on.\n") == (
        "Sure, here it is:\nThe hall light is on.\n"
    )
    assert gate.feed("To turn it off, use:\n") == ""
    assert gate.feed("```json") == ""
    assert gate.held == "To turn it off, use:\n```json"


@pytest.mark.parametrize(
    ("pieces", "shown"),
    [
        (["It is on. Now I call ", "`", "``json"], "It is on. "),
        (["Done. Then <to", "ol_call>"], "Done. "),
        (["Done. Next: tool", "_call"], "Done. "),
        (["Okay. " + "x" * 5000, " then {", '"name"'], "Okay. "),
    ],
)
def test_a_call_marker_split_across_pieces_blocks_the_rest(
    pieces: list[str], shown: str
) -> None:
    gate = ReleaseGate()
    assert "".join(gate.feed(piece) for piece in pieces) == shown
    assert gate.feed(" More. ") == ""


def test_a_lead_in_is_held_until_what_follows_is_prose() -> None:
    gate = ReleaseGate()
    assert gate.feed("To do that, use:\n") == ""
    assert gate.feed("nothing at all. ") == "To do that, use:\nnothing at all. "


RUNAWAY = '{"name": "HassTurnOff", "arguments": {"device_class": [' + (
    '"curtain_light", ' * 12
)


@pytest.mark.parametrize(
    ("text", "stuck"),
    [
        (RUNAWAY, True),
        ("and on " * 30, True),
        # A to-do item of 0.5B's, 55 characters a time.
        ('"Apuntar llamar a la abuela en mis tareas personales", ' * 8, True),
        # Short repeats may be meant.
        ("Ha ha ha ha ha ha ha ha! That is a good one.", False),
        ("ha " * 10, False),
        # Many parts, none said six times in a row.
        (
            "Kitchen Light, Bed Light, Office Lamp, Hall Light, Porch Light, "
            "Garage Light, Desk Lamp, Floor Lamp, Reading Light.",
            False,
        ),
        ("The light is on. " * 3, False),
    ],
)
def test_a_reply_stuck_repeating_itself_is_noticed(text: str, stuck: bool) -> None:
    guard = RepetitionGuard()
    # As a stream brings it: a few characters at a time.
    noticed = [guard.feed(text[i : i + 3]) for i in range(0, len(text), 3)]
    assert any(noticed) is stuck


async def test_the_loop_stops_reading_a_reply_stuck_repeating_itself(
    scripted_llm: ScriptedLLMServer,
) -> None:
    client = create_client("openai", scripted_llm.url)
    scripted_llm.script(
        # What 0.5B wrote for "turn off everything in the office", for longer.
        Reply(content=RUNAWAY + '"curtain_light", ' * 500, piece_delay=0.001),
        Reply(content="Which lights do you mean?"),
    )
    try:
        # Tokens enough for all of it: only the guard cuts it short.
        settings = LoopSettings(
            model="qwen2.5-coder:0.5b", sampling=Sampling(max_tokens=100_000)
        )
        result = await ReplyLoop(client, settings).run(
            system_prompt="You are Jarvis.",
            history=[Message("user", "turn off the office")],
            tools=[],
            host=LocalStepHost({}),
        )
    finally:
        await client.close()
    await asyncio.wait_for(scripted_llm.wait_for_disconnects(), 5)
    assert result.text == "Which lights do you mean?"
