"""A loop's settings and what it shares with its turns."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ..budget import TokenEstimator
from ..llm.base import LLMClient, Sampling
from ..memory import LongTermMemory
from ..modelsize import is_small_model


@dataclass(frozen=True, slots=True)
class LoopSettings:
    """Per-agent settings of the loop."""

    model: str
    max_turns: int = 8
    num_ctx: int | None = None
    keep_alive: int | None = None
    think: bool | None = None
    # How the model draws its reply, as the agent's options set it.
    sampling: Sampling = field(default_factory=Sampling)
    call_timeout: float = 120.0  # seconds the server may stay silent
    # Seconds a whole turn may take: a server that trickles tokens or ignores
    # max_tokens must not hold a satellite (the LLM request is cancelled).
    turn_deadline: float = 60.0
    # Strip personal data and secrets from what the user says before the LLM.
    redact_prompts: bool = False
    # Offer a per-turn allow-list of tools instead of the whole catalogue.
    tool_router: bool = False
    # Tools the router always keeps.
    always_offer: tuple[str, ...] = ()
    # A short planning call before the loop (see planner.py).
    planner: bool = False
    planner_timeout: float = 30.0
    # The model's context window in tokens; prompts are kept within it.
    context_size: int | None = None


class ProtocolMemory:
    """Which models use the text tool protocol.

    A model that once wrote a call as text stays on the text protocol for every
    later conversation, and small models (by the size in their name) start on
    it: neither pays for native tool schemas it never uses (for Qwen2.5-Coder
    0.5B in a demo home they triple the prompt, 1,474 to 4,172 tokens).
    """

    def __init__(self) -> None:
        self._text_models: set[str] = set()

    def is_text(self, model: str) -> bool:
        """Whether this model needs the text protocol, known or judged by size."""
        return model in self._text_models or is_small_model(model)

    def use_text(self, model: str) -> None:
        """Use the text protocol for this model from now on."""
        self._text_models.add(model)


@dataclass(frozen=True, slots=True)
class Engine:
    """What every turn of a loop uses: the model's client and settings, the
    protocol each model speaks, the memory, the token estimate."""

    client: LLMClient
    settings: LoopSettings
    protocols: ProtocolMemory
    memory: LongTermMemory | None
    estimator: TokenEstimator


def sampling(settings: LoopSettings) -> Sampling:
    """The agent's sampling; unset, small models decode greedily: they pick
    tools and arguments far more reliably that way. Servers otherwise sample
    at their default (llama.cpp: 0.8)."""
    chosen = settings.sampling
    if chosen.temperature is None and is_small_model(settings.model):
        return replace(chosen, temperature=0.0)
    return chosen
