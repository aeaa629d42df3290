"""Jarvis's conversation agents."""

from __future__ import annotations

from typing import Literal

from homeassistant.components import conversation
from homeassistant.config_entries import ConfigSubentry
from homeassistant.const import MATCH_ALL
from homeassistant.core import HomeAssistant
from homeassistant.helpers.entity_platform import AddConfigEntryEntitiesCallback

from . import JarvisConfigEntry
from .const import CONF_PROMPT, DOMAIN, SUBENTRY_CONVERSATION
from .entity import JarvisLLMEntity


async def async_setup_entry(
    hass: HomeAssistant,
    entry: JarvisConfigEntry,
    async_add_entities: AddConfigEntryEntitiesCallback,
) -> None:
    """One conversation entity per agent subentry."""
    for subentry in entry.subentries.values():
        if subentry.subentry_type == SUBENTRY_CONVERSATION:
            async_add_entities(
                [JarvisConversationEntity(entry, subentry)],
                config_subentry_id=subentry.subentry_id,
            )


class JarvisConversationEntity(
    conversation.ConversationEntity,
    JarvisLLMEntity,
):
    """A Jarvis agent in Home Assistant's Assist pipeline."""

    _attr_supports_streaming = True

    def __init__(self, entry: JarvisConfigEntry, subentry: ConfigSubentry) -> None:
        """Agents with Home Assistant APIs can control the home."""
        super().__init__(entry, subentry)
        if self.llm_apis:
            self._attr_supported_features = (
                conversation.ConversationEntityFeature.CONTROL
            )

    @property
    def supported_languages(self) -> list[str] | Literal["*"]:
        """The model decides which languages it speaks."""
        return MATCH_ALL

    async def _async_handle_message(
        self,
        user_input: conversation.ConversationInput,
        chat_log: conversation.ChatLog,
    ) -> conversation.ConversationResult:
        """Provide the LLM data to the chat log, then run the reply loop."""
        try:
            await chat_log.async_provide_llm_data(
                user_input.as_llm_context(DOMAIN),
                self.llm_apis,
                self.subentry.data.get(CONF_PROMPT),
                user_input.extra_system_prompt,
            )
        except conversation.ConverseError as err:
            return err.as_conversation_result()

        await self._async_handle_chat_log(chat_log, user_input.language)
        return conversation.async_get_result_from_chat_log(user_input, chat_log)
