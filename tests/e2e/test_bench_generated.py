"""The small tier of the generated-homes benchmark (bench/generated).

The generator and the task draw are deterministic, the Ollama adapter's
parser turns what Qwen2.5-Coder writes into Ollama's tool calls, the scorer
fails what it must fail, and a handful of tasks run end to end on the real
0.5B model for Jarvis's defaults and for HA's own pipeline with its `ollama`
agent behind the adapter.
"""

from __future__ import annotations

from dataclasses import replace
import json
from typing import Any

from aiohttp import web
from homeassistant.core import State
import ollama
import pytest

from bench.generated import home as gen
from bench.generated.__main__ import run_llm_config
from bench.generated.run import INTENT, Rig, run_task
from bench.generated.score import contradictions
from bench.generated.tasks import CATEGORIES, MINED, draw, mining_pool
from bench.ollama_adapter import (
    OLLAMA_DEFAULT_OPTIONS,
    OllamaAdapter,
    could_be_tool_call,
    openai_request,
    parse_tool_calls,
)

SEED, SIZE = 7, 20


@pytest.fixture(autouse=True)
def verify_cleanup() -> None:
    """The benchmark builds and stops its own HA instances (not the `hass`
    fixture), so the HA test plugin's per-test cleanup check does not apply."""


def test_generator_is_reproducible_and_messy() -> None:
    home = gen.generate(SEED, SIZE, "de")
    assert home == gen.generate(SEED, SIZE, "de")
    assert home != gen.generate(SEED + 1, SIZE, "de")
    assert abs(len(home.entities) - SIZE) <= 3
    assert abs(len(gen.generate(SEED, 200, "en").entities) - 200) <= 20
    # A lock and its lock-state sensor share the device's (German) name.
    lock = next(d for d in home.devices if d.kind == "lock")
    named = {
        e.domain for e in lock.entities if e.friendly_name(lock, "de") == lock.name.name
    }
    assert named == {"lock", "binary_sensor"}
    assert lock.name.name in ("Haustür", "Hintertür")
    assert sum(d.kind == "todo" for d in home.devices) >= 2
    # No two devices share a name in one area.
    places = [(d.name.name, d.area) for d in home.devices]
    assert len(places) == len(set(places))


def test_tasks_are_reproducible() -> None:
    home = gen.generate(SEED, SIZE, "es")
    tasks = draw(home, 1)
    assert tasks == draw(home, 1)
    assert {t.category for t in tasks} == set(CATEGORIES) - {MINED}
    assert all(t.language == "es" for t in tasks)
    assert mining_pool(home, 10) == mining_pool(home, 10)
    assert len({t.id for t in tasks}) == len(tasks)


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "HassTurnOn", "arguments": {"name": "Lamp"}}',
        '```json\n{"name": "HassTurnOn", "arguments": {"name": "Lamp"}}\n```',
        '<tool_call>\n{"name": "HassTurnOn", "arguments": "{\\"name\\": \\"Lamp\\"}"}\n</tool_call>',
        '[{"name": "HassTurnOn", "parameters": {"name": "Lamp"}}]',
    ],
)
def test_whole_json_calls_become_tool_calls(text: str) -> None:
    assert parse_tool_calls(text) == [
        {"function": {"name": "HassTurnOn", "arguments": {"name": "Lamp"}}}
    ]
    assert could_be_tool_call(text[:5])


@pytest.mark.parametrize(
    "text",
    [
        "I turned on the lamp.",
        'Sure: {"name": "HassTurnOn", "arguments": {}}',
        '{"name": "HassTurnOn", "arguments": {}} and done',
        '{"success": true}',
        "<functions>\n{}\n</functions>",
    ],
)
def test_prose_stays_text(text: str) -> None:
    assert parse_tool_calls(text) is None


async def _scripted_upstream(pieces: list[str]) -> web.AppRunner:
    """A stand-in for llama.cpp's streaming chat endpoint that writes `pieces`."""

    async def chat(request: web.Request) -> web.StreamResponse:
        assert (await request.json())["top_k"] == 40
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        events: list[dict[str, Any]] = [
            {"choices": [{"delta": {"content": piece}}]} for piece in pieces
        ]
        events.append(
            {
                "choices": [{"delta": {}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 120, "completion_tokens": 9},
                "timings": {"prompt_n": 20, "cache_n": 100},
            }
        )
        for event in events:
            await response.write(f"data: {json.dumps(event)}\n\n".encode())
        await response.write(b"data: [DONE]\n\n")
        return response

    app = web.Application()
    app.router.add_post("/v1/chat/completions", chat)
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    return runner


@pytest.mark.usefixtures("socket_enabled")
@pytest.mark.parametrize(
    ("pieces", "content", "calls"),
    [
        (['```json\n{"name": "HassTurnOn", ', '"arguments": {"name": "Lamp"}}\n```'],
         "", [("HassTurnOn", {"name": "Lamp"})]),
        (["The lamp ", "is on."], "The lamp is on.", []),
    ],
)  # fmt: skip
async def test_adapter_streams_ollama_chat(
    pieces: list[str], content: str, calls: list[tuple[str, dict[str, Any]]]
) -> None:
    upstream = await _scripted_upstream(pieces)
    host, port = upstream.addresses[0][:2]
    adapter = OllamaAdapter(f"http://{host}:{port}", "qwen")
    await adapter.start()
    try:
        client = ollama.AsyncClient(host=adapter.url)
        assert [m.model for m in (await client.list()).models] == ["qwen:latest"]
        chunks = [
            chunk
            async for chunk in await client.chat(
                model="qwen:latest",
                messages=[{"role": "user", "content": "lamp"}],
                stream=True,
                options={"num_ctx": 8192},
            )
        ]
    finally:
        await adapter.stop()
        await upstream.cleanup()
    assert "".join(c.message.content or "" for c in chunks) == content
    assert [
        (call.function.name, dict(call.function.arguments))
        for c in chunks
        for call in c.message.tool_calls or ()
    ] == calls
    assert [c.done for c in chunks][-1] is True
    assert (chunks[-1].prompt_eval_count, chunks[-1].eval_count) == (20, 9)


def test_ollama_defaults_unless_the_request_sets_options() -> None:
    request = {
        "messages": [
            {"role": "user", "content": "hi"},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [{"function": {"name": "X", "arguments": {"a": 1}}}],
            },
        ],
        "options": {"num_ctx": 8192, "temperature": 0.2, "num_predict": -1},
    }
    body = openai_request(request, "m")
    assert body["temperature"] == 0.2
    assert body["top_k"] == OLLAMA_DEFAULT_OPTIONS["top_k"] == 40
    assert body["repeat_penalty"] == 1.1
    assert "num_ctx" not in body
    assert "max_tokens" not in body
    call = body["messages"][1]["tool_calls"][0]["function"]
    assert json.loads(call["arguments"]) == {"a": 1}


def test_checker_finds_contradictions() -> None:
    states = {"lock.a": State("lock.a", "locked"), "light.b": State("light.b", "off")}
    names = {"lock.a": "Front Door", "light.b": "Lamp"}
    german = {"lock.a": "Haustür", "light.b": "Lamp"}
    assert contradictions("The front door is unlocked.", states, names, "en")
    assert contradictions("Done, I turned on the Lamp.", states, names, "en")
    assert not contradictions("The front door is locked.", states, names, "en")
    assert not contradictions("Is the lamp on?", states, names, "en")
    assert not contradictions("The lamp is not on.", states, names, "en")
    # An English reply in a German home is judged too.
    assert contradictions("The lamp was turned on and is now on.", states, names, "de")
    assert not contradictions("Die Haustür ist verriegelt.", states, german, "de")
    assert contradictions("Die Haustür ist entriegelt.", states, german, "de")


@pytest.mark.usefixtures("socket_enabled")
async def test_scorer_passes_and_fails_on_the_matcher() -> None:
    home = gen.generate(SEED, SIZE, "en")
    task = next(t for t in draw(home, 1) if t.category == "onoff")
    rig = Rig(INTENT, "none", 0)
    solved = await run_task(task, home, rig)
    assert solved.ok, solved.problems
    assert solved.llm_calls == 0
    wrong = replace(task, changes=dict.fromkeys(task.changes, "unavailable"))
    failed = await run_task(wrong, home, rig)
    assert not failed.ok
    assert failed.problems
    untouched = replace(task, text="what time is it?")
    assert not (await run_task(untouched, home, rig)).ok


@pytest.mark.real_model
@pytest.mark.usefixtures("socket_enabled")
async def test_default_and_ha_pipeline_end_to_end() -> None:
    """Each configuration on its own fresh llama.cpp server, as in the benchmark."""
    home = gen.generate(SEED, SIZE, "en")
    homes = {"en": home}
    tasks = [t for t in draw(home, 1) if t.category in ("onoff", "sensitive")]
    matcher = {
        t.id: (await run_task(t, home, Rig(INTENT, "none", 0))).ok for t in tasks
    }
    assert sorted(matcher.values()) == [False, True], matcher
    for config in ("ha-pipeline", "default"):
        # HA's prompt starts with the time of day, so even a fixed seed may
        # sample a long reply; a low cap keeps this test's time bounded.
        outcomes = await run_llm_config(
            tasks,
            homes,
            model="0.5b",
            config=config,
            seed=1,
            progress=print,
            n_predict=96,
        )
        assert [o.error for o in outcomes] == [None, None]
        assert all(o.replies and o.replies[0].strip() for o in outcomes)
        if config == "ha-pipeline":
            # HA's matcher takes what it solves; the rest goes to the model.
            assert {o.task: not o.to_model for o in outcomes} == matcher
            assert all(o.prompt_tokens > 0 for o in outcomes if o.to_model)
