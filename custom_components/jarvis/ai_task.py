"""Jarvis's AI task entities: `ai_task.generate_data` on the server's models."""

from __future__ import annotations

import asyncio
from dataclasses import replace
import json
from typing import Any

from homeassistant.components import ai_task, conversation
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import llm
from homeassistant.helpers.entity_platform import AddConfigEntryEntitiesCallback
import voluptuous as vol
from voluptuous_openapi import convert

from . import JarvisConfigEntry
from .const import (
    AI_TASK_MAX_TOKENS,
    AI_TASK_TIMEOUT,
    DOMAIN,
    SUBENTRY_AI_TASK,
)
from .engine.llm.base import ChatRequest, LLMError
from .engine.loop.settings import sampling
from .engine.redact import redacting_logger
from .engine.structured import (
    StructuredOutputError,
    Validator,
    complete,
    generate_data,
)
from .engine.types import JsonObject, Message
from .entity import JarvisLLMEntity, ToolNames, history_from_chat_log

_LOGGER = redacting_logger(__name__)

# Tasks run concurrently; the LLM server queues what it cannot run at once.
PARALLEL_UPDATES = 0


async def async_setup_entry(
    hass: HomeAssistant,
    entry: JarvisConfigEntry,
    async_add_entities: AddConfigEntryEntitiesCallback,
) -> None:
    """One AI task entity per AI task subentry."""
    for subentry in entry.subentries.values():
        if subentry.subentry_type == SUBENTRY_AI_TASK:
            async_add_entities(
                [JarvisTaskEntity(entry, subentry)],
                config_subentry_id=subentry.subentry_id,
            )


class JarvisTaskEntity(ai_task.AITaskEntity, JarvisLLMEntity):
    """Generates text, or data of a given structure, with one model."""

    _attr_supported_features = ai_task.AITaskEntityFeature.GENERATE_DATA

    async def _async_generate_data(
        self, task: ai_task.GenDataTask, chat_log: conversation.ChatLog
    ) -> ai_task.GenDataTaskResult:
        """Answer the task's instructions: no tools, one reply (two at most
        for structured data), capped in length and time."""
        settings = self.loop_settings()
        # Home Assistant's short AI task prompt and the instructions.
        system_prompt, history = history_from_chat_log(chat_log, ToolNames(None))
        request = ChatRequest(
            model=settings.model,
            messages=[Message("system", system_prompt), *history],
            # The agent's sampling (greedy for small models), longer replies.
            sampling=replace(sampling(settings), max_tokens=AI_TASK_MAX_TOKENS),
            num_ctx=settings.num_ctx,
            keep_alive=settings.keep_alive,
            think=settings.think,
        )
        client = self.entry.runtime_data.client
        data: Any
        try:
            async with asyncio.timeout(AI_TASK_TIMEOUT):
                if task.structure is None:
                    data = text = await complete(client, request)
                else:
                    data = await generate_data(
                        client,
                        request,
                        _json_schema(task.structure, chat_log.llm_api),
                        _validator(task.structure),
                    )
                    text = json.dumps(data, ensure_ascii=False, default=str)
        except StructuredOutputError as err:
            _LOGGER.warning(
                "Task %r: no valid data (%s) in %r", task.name, err.problem, err.reply
            )
            raise HomeAssistantError(
                translation_domain=DOMAIN, translation_key="invalid_task_data"
            ) from err
        except (LLMError, TimeoutError) as err:
            _LOGGER.warning("Task %r failed: %r", task.name, err)
            raise HomeAssistantError(
                translation_domain=DOMAIN, translation_key="task_failed"
            ) from err
        # In the chat log, so a follow-up task in the same conversation sees it.
        chat_log.async_add_assistant_content_without_tools(
            conversation.AssistantContent(agent_id=self.entity_id, content=text)
        )
        return ai_task.GenDataTaskResult(
            conversation_id=chat_log.conversation_id, data=data
        )


def _json_schema(structure: vol.Schema, api: llm.APIInstance | None) -> JsonObject:
    """The task's structure as JSON schema, selectors included (as HA's own
    LLM integrations convert it)."""
    schema: JsonObject = convert(
        structure,
        custom_serializer=api.custom_serializer if api else llm.selector_serializer,
    )
    return schema


def _validator(structure: vol.Schema) -> Validator:
    """Checks data against the task's structure; the message is for the model."""

    def validate(data: JsonObject) -> Any:
        try:
            return structure(data)
        except vol.Invalid as err:
            raise ValueError(str(err)) from err

    return validate
