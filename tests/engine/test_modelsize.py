"""Model sizes read from model names."""

from __future__ import annotations

import pytest

from custom_components.jarvis.engine.loop import LoopSettings, ProtocolMemory
from custom_components.jarvis.engine.loop.settings import temperature
from custom_components.jarvis.engine.modelsize import is_small_model, parameter_billions


@pytest.mark.parametrize(
    ("name", "size"),
    [
        ("qwen2.5:0.5b", 0.5),
        ("qwen2.5-coder-1.5b-instruct-q4_k_m", 1.5),
        ("llama3.2:3b-instruct-q8_0", 3.0),
        ("phi3:3.8B", 3.8),
        ("gemma2:27b", 27.0),
        ("qwen2.5", None),
        ("gpt-oss-20b", 20.0),
        ("mistral:latest", None),
    ],
)
def test_parameter_billions(name: str, size: float | None) -> None:
    assert parameter_billions(name) == size


def test_small_models_start_on_text_protocol_others_learn_it() -> None:
    memory = ProtocolMemory()
    assert is_small_model("qwen2.5:1.5b")
    assert memory.is_text("qwen2.5:1.5b")
    assert not memory.is_text("llama3.1:8b")
    memory.use_text("llama3.1:8b")
    assert memory.is_text("llama3.1:8b")


def test_small_models_decode_greedily_unless_told_otherwise() -> None:
    assert temperature(LoopSettings(model="qwen2.5:0.5b")) == 0.0
    assert temperature(LoopSettings(model="qwen2.5:0.5b", temperature=0.7)) == 0.7
    assert temperature(LoopSettings(model="llama3.1:8b")) is None
