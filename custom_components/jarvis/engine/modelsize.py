"""What a model's name tells: its size, and whether it can chat at all."""

from __future__ import annotations

from collections.abc import Sequence
import re

# Parameter counts as written in model names: "qwen2.5:0.5b", "llama3.2-3B",
# "qwen2.5-coder-1.5b-instruct-q4_k_m", "phi3:3.8b".
_SIZE_RE = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)\s*b(?![a-z0-9])", re.IGNORECASE)
# At or below this size models write tool calls as text instead of filling
# `tool_calls` (measured: Qwen2.5-Coder 0.5B and 1.5B never do).
SMALL_MODEL_MAX_BILLIONS = 3.0


def parameter_billions(model: str) -> float | None:
    """The parameter count in billions named in a model name, if any."""
    match = _SIZE_RE.search(model)
    return float(match.group(1)) if match else None


def is_small_model(model: str) -> bool:
    """Whether the name says the model is small enough to need the text protocol."""
    size = parameter_billions(model)
    return size is not None and size <= SMALL_MODEL_MAX_BILLIONS


# Embedding and reranker models list beside chat models ("nomic-embed-text",
# "mxbai-embed-large", "bge-m3", "all-minilm", "multilingual-e5-large",
# "jina-reranker-v2", "paraphrase-multilingual") but cannot hold a conversation.
_NOT_CHAT_PARTS = ("embed", "rerank")
_NOT_CHAT_WORDS = frozenset({"bge", "minilm", "e5", "paraphrase"})
_WORD_RE = re.compile(r"[a-z0-9]+")


def is_embedding_model(model: str) -> bool:
    """Whether the name says the model embeds or reranks text instead of chatting."""
    name = model.lower()
    return any(
        part in name for part in _NOT_CHAT_PARTS
    ) or not _NOT_CHAT_WORDS.isdisjoint(_WORD_RE.findall(name))


def first_chat_model(models: Sequence[str]) -> str:
    """The first model not named as an embedder or reranker.

    Else the first model (a name can mislead), or "" when there is none.
    """
    fallback = models[0] if models else ""
    return next((m for m in models if not is_embedding_model(m)), fallback)
