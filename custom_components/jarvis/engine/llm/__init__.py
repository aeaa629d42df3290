"""LLM clients: Ollama's native API and OpenAI-compatible servers."""

from __future__ import annotations

import ssl

import aiohttp

from .base import LLMClient
from .ollama_client import OllamaClient
from .openai_client import OpenAIClient

# Literal names: the engine must not import the Home Assistant package's const.
BACKEND_OLLAMA = "ollama"
BACKEND_OPENAI = "openai"


def create_client(
    backend: str,
    url: str,
    api_key: str | None = None,
    *,
    session: aiohttp.ClientSession | None = None,
    verify_ssl: bool | ssl.SSLContext = True,
    connect_timeout: float = 10.0,
    read_timeout: float | None = 120.0,
) -> LLMClient:
    """Build the client for `backend` ("ollama" or "openai").

    `session` is used by the OpenAI client only; Ollama's package brings its
    own HTTP client. Raises ValueError for an unknown backend.
    """
    if backend == BACKEND_OLLAMA:
        return OllamaClient(
            url,
            api_key,
            connect_timeout=connect_timeout,
            read_timeout=read_timeout,
            verify_ssl=verify_ssl,
        )
    if backend == BACKEND_OPENAI:
        return OpenAIClient(
            url,
            api_key,
            session=session,
            connect_timeout=connect_timeout,
            read_timeout=read_timeout,
            verify_ssl=verify_ssl,
        )
    raise ValueError(f"Unknown LLM backend: {backend!r}")


__all__ = ["OllamaClient", "OpenAIClient", "create_client"]
