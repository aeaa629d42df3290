"""Constants for the Jarvis integration."""

from __future__ import annotations

from typing import Final

from .engine.llm.base import Sampling
from .engine.redact import redacting_logger

DOMAIN: Final = "jarvis"
LOGGER = redacting_logger(__package__)

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
CONF_TURN_DEADLINE: Final = "turn_deadline"
CONF_TEMPERATURE: Final = "temperature"
CONF_TOP_P: Final = "top_p"
CONF_MAX_TOKENS: Final = "max_tokens"

DEFAULT_AGENT_NAME: Final = "Jarvis"
DEFAULT_MAX_TURNS: Final = 8
DEFAULT_NUM_CTX: Final = 8192
DEFAULT_KEEP_ALIVE: Final = -1  # seconds; -1 keeps the model loaded
DEFAULT_THINK: Final = False
DEFAULT_TURN_DEADLINE: Final = 60  # seconds
MIN_NUM_CTX: Final = 2048
MAX_NUM_CTX: Final = 131072
# Temperature and top-p have no default: unset, small models decode greedily and
# others at the server's default. Replies are always capped (the engine's cap).
DEFAULT_MAX_TOKENS: Final = Sampling().max_tokens
MIN_MAX_TOKENS: Final = 64  # room for one tool call
# A reply never takes more than half of the smallest context window.
MAX_MAX_TOKENS: Final = MIN_NUM_CTX // 2

CONNECT_TIMEOUT: Final = 10.0  # seconds, for config-flow and setup checks

# Reply-engine features, each switchable per agent (the scenario benchmark's
# "plain" configuration turns them all off).
# Fast path: HA's own intent matcher answers first.
CONF_PREFER_LOCAL: Final = "prefer_local_intents"
CONF_TOOL_ROUTER: Final = "tool_router"
CONF_PLANNER: Final = "planner"
CONF_MEMORY: Final = "memory"
CONF_TARGET_REPAIR: Final = "target_repair"
CONF_LOOK_FIRST: Final = "look_first"
# Each sentence of the model's reply checked against the home (engine/grounding.py).
CONF_GROUNDED_REPLIES: Final = "grounded_replies"
ENGINE_FEATURES: Final = (
    CONF_PREFER_LOCAL,
    CONF_TOOL_ROUTER,
    CONF_PLANNER,
    CONF_MEMORY,
    CONF_TARGET_REPAIR,
    CONF_LOOK_FIRST,
    CONF_GROUNDED_REPLIES,
)
# The planner costs an LLM call per turn; off until the benchmark shows it pays.
ENGINE_FEATURE_DEFAULTS: Final = {
    CONF_PREFER_LOCAL: True,
    CONF_TOOL_ROUTER: True,
    CONF_PLANNER: False,
    CONF_MEMORY: True,
    CONF_TARGET_REPAIR: True,
    CONF_LOOK_FIRST: True,
    CONF_GROUNDED_REPLIES: True,
}

# The Jarvis LLM API (built-in tools plus the tools of every MCP server).
LLM_API_JARVIS: Final = "jarvis"
LLM_API_JARVIS_NAME: Final = "Jarvis tools"
# MergedAPI prefixes each tool with the API's slug and "__"; names stay within 64.
MAX_TOOL_NAME: Final = 64 - len("jarvis-tools__")

# MCP server subentries.
SUBENTRY_MCP_SERVER: Final = "mcp_server"
CONF_TRANSPORT: Final = "transport"
CONF_TOKEN: Final = "token"
CONF_HEADERS: Final = "headers"
MCP_REFRESH_INTERVAL: Final = 600.0  # seconds between tool-list refreshes
MCP_RETRY_MIN: Final = 5.0  # seconds; backoff while a server is down doubles up to
MCP_RETRY_MAX: Final = 300.0
MCP_CALL_TIMEOUT: Final = 30.0
MCP_PROBE_INTERVAL: Final = 3.0  # seconds between liveness checks during a call
SERVICE_REFRESH_MCP: Final = "refresh_mcp"

# Tool options of a server entry.
CONF_WEB_SEARCH: Final = "web_search"
CONF_SEARCH_URL: Final = "search_url"
CONF_SENSITIVE: Final = "sensitive"
SENSITIVE_LOCKS: Final = "locks"
SENSITIVE_ALARMS: Final = "alarms"
SENSITIVE_GARAGE_DOORS: Final = "garage_doors"
SENSITIVE_GATES: Final = "gates"
SENSITIVE_KINDS: Final = (
    SENSITIVE_LOCKS,
    SENSITIVE_ALARMS,
    SENSITIVE_GARAGE_DOORS,
    SENSITIVE_GATES,
)

# Actions whose effect cannot be known before they run (MCP tools, a script
# with a templated action, mqtt.publish, shell_command): ask first, or run.
CONF_UNRESOLVED: Final = "unresolved_actions"
UNRESOLVED_CHOICES: Final = ("ask", "run")
DEFAULT_UNRESOLVED: Final = "ask"
# The assistant whose exposed entities Jarvis may act on (HA's conversation).
ASSISTANT: Final = "conversation"
# Seconds a held action waits for its owner's answer.
DEFAULT_CONFIRM_WINDOW: Final = 60.0

# The built-in tool that runs an action the user confirmed.
TOOL_CONFIRM_ACTION: Final = "confirm_action"

# AI task subentries: `ai_task.generate_data` on one of the server's models.
SUBENTRY_AI_TASK: Final = "ai_task_data"
DEFAULT_AI_TASK_NAME: Final = "Jarvis AI Task"
# Small models sometimes never stop: a task's reply is capped, and so is its
# time (all attempts together).
AI_TASK_MAX_TOKENS: Final = 1024
AI_TASK_TIMEOUT: Final = 120.0  # seconds
