"""The context budget: estimates, shortening, summaries."""

from __future__ import annotations

import pytest

from custom_components.jarvis.engine.budget import TokenEstimator, fit
from custom_components.jarvis.engine.llm import OpenAIClient
from custom_components.jarvis.engine.llm.base import LLMClient, Sampling
from custom_components.jarvis.engine.types import Message, ToolCall
from tests.engine.test_loop import make_host, run_loop
from tests.scripted_llm import Reply, ScriptedLLMServer


def conversation(turns: int) -> list[Message]:
    """Turns of chat, each with a tool call; turn 2 carries a fact."""
    messages: list[Message] = []
    for n in range(1, turns + 1):
        said = "my name is Bob and I live in Leeds" if n == 2 else f"question {n} " * 8
        call = ToolCall(f"c{n}", "GetLiveContext", {})
        messages += [
            Message("user", said),
            Message("assistant", tool_calls=[call]),
            Message(
                "tool",
                '{"states": "' + "x" * 900 + '"}',
                tool_call_id=f"c{n}",
                name="GetLiveContext",
            ),
            Message("assistant", f"answer {n}"),
        ]
    return messages


def test_small_requests_are_untouched() -> None:
    messages = conversation(2)
    fitted = fit("system", messages, [], budget=10_000, estimator=TokenEstimator())
    assert fitted.messages == messages
    assert (fitted.shortened_results, fitted.summarised_turns) == (0, 0)


def test_old_tool_results_are_shortened_first() -> None:
    messages = conversation(3)
    fitted = fit("system", messages, [], budget=950, estimator=TokenEstimator())
    assert fitted.shortened_results == 1
    assert fitted.summarised_turns == 0
    # The latest turns stay verbatim.
    assert fitted.messages[-6:] == messages[-6:]


def test_forty_turns_fold_into_a_summary_that_keeps_turn_two() -> None:
    estimator = TokenEstimator()
    messages = conversation(40)
    fitted = fit("system", messages, [], budget=1500, estimator=estimator)

    assert fitted.summarised_turns > 30
    summary = fitted.messages[0]
    assert summary.content.startswith("(Summary of the earlier conversation")
    assert "- my name is Bob and I live in Leeds" in summary.content
    assert fitted.messages[-8:] == messages[-8:]
    # A tool result never loses the call it answers.
    call_ids = {
        call.id
        for m in fitted.messages
        if m.role == "assistant"
        for call in m.tool_calls
    }
    assert all(m.tool_call_id in call_ids for m in fitted.messages if m.role == "tool")


def test_estimator_calibrates_but_stays_conservative() -> None:
    estimator = TokenEstimator()
    estimator.calibrate(chars=4000, tokens=1000)
    assert 3.2 <= estimator.chars_per_token <= 4.0
    estimator.calibrate(chars=10_000, tokens=1)
    assert estimator.chars_per_token <= 6.0


async def test_loop_keeps_prompts_within_the_context(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    scripted_llm.script(Reply(content="Your name is Bob."))
    history = [*conversation(40), Message("user", "what's my name?")]
    host, _ = make_host()
    result = await run_loop(
        client,
        host,
        history=history,
        tools=[],
        context_size=2048,
        sampling=Sampling(max_tokens=256),
    )

    sent = scripted_llm.chat_requests[0]["json"]["messages"]
    assert sum(len(str(m.get("content") or "")) for m in sent) < (2048 - 256) * 3.2
    assert "my name is Bob" in sent[1]["content"]
    assert result.summarised_turns > 0


@pytest.mark.parametrize(("tokenizer", "folded"), [(None, False), (2.0, True)])
async def test_server_tokenizer_catches_what_the_estimate_lets_through(
    scripted_llm: ScriptedLLMServer, tokenizer: float | None, folded: bool
) -> None:
    """A prompt the character estimate fits, but the server counts past the
    context (two characters a token here), is fitted again before it is sent."""
    scripted_llm.tokenizer_chars_per_token = tokenizer
    scripted_llm.script(Reply(content="Your name is Bob."))
    client = OpenAIClient(scripted_llm.url)
    host, _ = make_host()
    try:
        result = await run_loop(
            client,
            host,
            history=[*conversation(4), Message("user", "what's my name?")],
            tools=[],
            context_size=2048,
            sampling=Sampling(max_tokens=256),
        )
    finally:
        await client.close()

    assert (result.summarised_turns > 0) is folded
    if tokenizer:
        sent = scripted_llm.chat_requests[0]["json"]["messages"]
        chars = sum(len(str(m.get("content") or "")) for m in sent)
        assert chars / tokenizer <= 2048 - 256
