"""Model sizes and kinds read from model names."""

from __future__ import annotations

import pytest

from custom_components.jarvis.engine.llm.base import Sampling
from custom_components.jarvis.engine.loop import LoopSettings, ProtocolMemory
from custom_components.jarvis.engine.loop.settings import sampling
from custom_components.jarvis.engine.modelsize import (
    first_chat_model,
    is_embedding_model,
    is_small_model,
    parameter_billions,
)


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
    told = Sampling(temperature=0.7, top_p=0.9, max_tokens=200)
    assert sampling(LoopSettings(model="qwen2.5:0.5b")) == Sampling(temperature=0.0)
    assert sampling(LoopSettings(model="qwen2.5:0.5b", sampling=told)) == told
    assert sampling(LoopSettings(model="llama3.1:8b")) == Sampling()


@pytest.mark.parametrize(
    ("name", "embeds"),
    [
        ("nomic-embed-text:latest", True),
        ("mxbai-embed-large", True),
        ("qwen3-embedding:0.6b", True),
        ("bge-m3", True),
        ("BAAI/bge-small-en-v1.5", True),
        ("all-minilm:l6-v2", True),
        ("multilingual-e5-large", True),
        ("jina-reranker-v2-base", True),
        ("paraphrase-multilingual", True),
        ("qwen2.5:0.5b", False),
        ("qwen2.5-coder-1.5b-instruct-q4_k_m.gguf", False),
        ("llama3.2:3b", False),
        ("gemma3n:e4b", False),
        ("mistral-nemo", False),
    ],
)
def test_embedding_and_reranker_models_are_known_by_name(
    name: str, embeds: bool
) -> None:
    assert is_embedding_model(name) is embeds


def test_first_chat_model_skips_embedders_else_takes_the_first() -> None:
    assert first_chat_model(["bge-m3", "nomic-embed-text", "qwen2.5:3b"]) == (
        "qwen2.5:3b"
    )
    assert first_chat_model(["nomic-embed-text", "bge-m3"]) == "nomic-embed-text"
    assert first_chat_model([]) == ""
