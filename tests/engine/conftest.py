"""Engine test fixtures."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from custom_components.jarvis.engine.llm import create_client
from custom_components.jarvis.engine.llm.base import LLMClient
from tests.scripted_llm import ScriptedLLMServer


@pytest_asyncio.fixture(params=["ollama", "openai"])
async def client(
    request: pytest.FixtureRequest, scripted_llm: ScriptedLLMServer
) -> AsyncIterator[LLMClient]:
    llm = create_client(request.param, scripted_llm.url)
    yield llm
    await llm.close()
