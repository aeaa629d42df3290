"""Constants for the Jarvis integration."""

from __future__ import annotations

import logging
from typing import Final

DOMAIN: Final = "jarvis"
LOGGER = logging.getLogger(__package__)

# Config entry (one per LLM server).
CONF_BACKEND: Final = "backend"
CONF_URL: Final = "url"
CONF_API_KEY: Final = "api_key"
BACKEND_OLLAMA: Final = "ollama"
BACKEND_OPENAI: Final = "openai"
BACKENDS: Final = (BACKEND_OLLAMA, BACKEND_OPENAI)

# Agent subentries.
SUBENTRY_CONVERSATION: Final = "conversation"
CONF_MODEL: Final = "model"
CONF_PROMPT: Final = "prompt"
CONF_MAX_TURNS: Final = "max_turns"
CONF_NUM_CTX: Final = "num_ctx"
CONF_KEEP_ALIVE: Final = "keep_alive"
CONF_THINK: Final = "think"

DEFAULT_AGENT_NAME: Final = "Jarvis"
DEFAULT_MAX_TURNS: Final = 8
DEFAULT_NUM_CTX: Final = 8192
DEFAULT_KEEP_ALIVE: Final = -1  # seconds; -1 keeps the model loaded
DEFAULT_THINK: Final = False
MIN_NUM_CTX: Final = 2048
MAX_NUM_CTX: Final = 131072

CONNECT_TIMEOUT: Final = 10.0  # seconds, for config-flow and setup checks

# Reply-engine features, each switchable per agent (the scenario benchmark's
# "plain" configuration turns them all off).
CONF_PREFER_LOCAL: Final = "prefer_local_intents"  # fast path: HA's intent matcher first
CONF_TOOL_ROUTER: Final = "tool_router"
CONF_PLANNER: Final = "planner"
CONF_MEMORY: Final = "memory"
ENGINE_FEATURES: Final = (CONF_PREFER_LOCAL, CONF_TOOL_ROUTER, CONF_PLANNER, CONF_MEMORY)
