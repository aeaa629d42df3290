"""A long conversation on the real Qwen2.5-Coder 0.5B model stays within its context.

One conversation of 40 turns through Jarvis's agent in Home Assistant, with a
context so small that the oldest turns must be folded into a summary after a
dozen turns; long-term memory is off, so a fact from turn 2 can come back at
turn 40 only through that summary.
"""

from __future__ import annotations

import time

from homeassistant.const import CONF_LLM_HASS_API
from homeassistant.core import HomeAssistant
import pytest

from custom_components.jarvis.config_flow import default_agent_data
from custom_components.jarvis.const import CONF_MEMORY, CONF_NUM_CTX, CONF_PROMPT
from custom_components.jarvis.engine.llm import OpenAIClient
from custom_components.jarvis.engine.llm.base import ChatRequest, Sampling
from custom_components.jarvis.engine.loop import LoopSettings
from custom_components.jarvis.engine.types import Message
from scripts.llm_server import LlamaServer
from tests.common import async_add_jarvis_agent
from tests.test_conversation import process, speech
from tests.test_telemetry import jarvis_detail

pytestmark = [
    pytest.mark.real_model,
    pytest.mark.usefixtures("ha_core", "socket_enabled"),
]

# Below the options' minimum (2048): the 0.5B model answers in a few words, so
# 40 turns of small talk would fit 2048, and every token of context costs
# prompt time on two cores (Home Assistant's system prompt carries the time to
# the second, so the server cannot reuse its cache from one turn to the next).
CONTEXT = 1024
# Room the agent keeps for the reply (it does not change the default).
REPLY_TOKENS = LoopSettings(model="").sampling.max_tokens
# Short, so the context goes to the conversation, as with a real context size.
PROMPT = "You are Jarvis, a friendly home assistant. Answer in one short sentence."
FACT = "By the way, my dog is called Biscuit."
# Cheap turns: short questions a 0.5B model answers in a sentence.
SMALL_TALK = [
    "What is two plus two?",
    "Name a colour of the rainbow.",
    "What day comes after Monday?",
    "How many legs does a spider have?",
    "What is the capital of France?",
    "Name a fruit that is yellow.",
    "Is the sun a star?",
    "What do bees make?",
    "How many days are in a week?",
    "What is frozen water called?",
    "Name a big cat.",
    "What colour is grass?",
    "How many wheels does a bicycle have?",
    "What is the opposite of hot?",
    "Which planet do we live on?",
    "What do cows drink?",
    "Name a musical instrument.",
    "What is ten minus three?",
    "Which season comes after winter?",
    "What animal says moo?",
    "How many hours are in a day?",
    "What is the largest ocean?",
    "Name a vegetable that is orange.",
    "What shape has three sides?",
    "What do you call a baby dog?",
    "Is ice cold or hot?",
    "What is the first letter of the alphabet?",
    "How many months are in a year?",
    "What colour is the sky on a clear day?",
    "Name a bird that cannot fly.",
    "What is five times two?",
    "What do plants need to grow?",
    "Which is bigger, a mouse or an elephant?",
    "What is the boiling point of water in Celsius?",
    "Name a farm animal.",
    "What do we use an umbrella for?",
    "Thanks, that is all for the quiz.",
]
QUESTION = "What is my dog called?"
TURNS = ["Hello Jarvis.", FACT, *SMALL_TALK, QUESTION]


# 40 model turns: 4 to 7 minutes on two busy cores, past the suite's default.
@pytest.mark.timeout(1500)
async def test_forty_turns_stay_within_the_context_and_recall_turn_two(
    hass: HomeAssistant, llama_server: LlamaServer
) -> None:
    assert len(TURNS) == 40
    _, agent = await async_add_jarvis_agent(
        hass,
        llama_server.url,
        {
            **default_agent_data(llama_server.alias),
            # A chat with no tools: every turn reaches the model.
            CONF_LLM_HASS_API: [],
            CONF_MEMORY: False,
            CONF_NUM_CTX: CONTEXT,
            CONF_PROMPT: PROMPT,
        },
    )

    limit = CONTEXT - REPLY_TOKENS
    conversation_id: str | None = None
    prompt_tokens: list[int] = []
    summarised: list[int] = []
    started = time.monotonic()
    for text in TURNS:
        response = await process(hass, agent, text, conversation_id)
        conversation_id = response["conversation_id"]
        detail = jarvis_detail()
        assert detail["ended"] == "done", detail
        prompt_tokens += [c["prompt_tokens"] for c in detail["llm_call_details"]]
        summarised.append(detail["context"]["summarised_turns"])
    elapsed = time.monotonic() - started
    reply = speech(response)
    print(
        f"\n40 turns in {elapsed:.0f} s; prompt tokens max {max(prompt_tokens)} "
        f"of {limit}; turns summarised per turn: {summarised}; reply: {reply!r}"
    )

    # The server's own counts: every prompt left room for the reply.
    assert all(0 < tokens <= limit for tokens in prompt_tokens), prompt_tokens
    # Turn 2 was folded into the summary before the question: only it can answer.
    assert summarised[-1] >= 2
    assert "biscuit" in reply.lower()


async def test_server_token_count_matches_its_reported_usage(
    llama_server: LlamaServer,
) -> None:
    """Counted before each call, as the loop does; the second count reuses the
    connection the first streamed reply retired."""
    messages = [
        Message("system", "You are Jarvis, the voice assistant of this home."),
        Message("user", FACT),
        Message("assistant", "What a lovely name for a dog."),
        Message("user", QUESTION),
    ]
    client = OpenAIClient(llama_server.url)
    counts: list[tuple[int | None, int]] = []
    try:
        for turn in (messages[:2], messages):
            request = ChatRequest(
                llama_server.alias, turn, sampling=Sampling(max_tokens=1)
            )
            counted = await client.count_tokens(request)
            chunks = [chunk async for chunk in client.chat_stream(request)]
            usage = chunks[-1].usage
            assert usage is not None
            counts.append((counted, usage.prompt_tokens))
    finally:
        await client.close()

    assert all(
        counted is not None and abs(counted - reported) <= 2
        for counted, reported in counts
    ), counts
