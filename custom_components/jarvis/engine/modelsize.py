"""What a model's name tells about its size."""

from __future__ import annotations

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
