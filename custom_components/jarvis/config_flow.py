"""Config flow: one entry per LLM server, agents as subentries."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from homeassistant.config_entries import (
    ConfigEntry,
    ConfigEntryState,
    ConfigFlow,
    ConfigFlowResult,
    ConfigSubentryFlow,
    OptionsFlow,
    SubentryFlowResult,
)
from homeassistant.const import CONF_LLM_HASS_API, CONF_NAME
from homeassistant.core import HomeAssistant, callback
from homeassistant.helpers import config_validation as cv, llm
from homeassistant.helpers.selector import (
    BooleanSelector,
    NumberSelector,
    NumberSelectorConfig,
    NumberSelectorMode,
    SelectOptionDict,
    SelectSelector,
    SelectSelectorConfig,
    SelectSelectorMode,
    TemplateSelector,
    TextSelector,
    TextSelectorConfig,
    TextSelectorType,
)
import voluptuous as vol

from . import JarvisConfigEntry, build_client
from .const import (
    BACKEND_OLLAMA,
    BACKENDS,
    CONF_API_KEY,
    CONF_BACKEND,
    CONF_HEADERS,
    CONF_KEEP_ALIVE,
    CONF_MAX_TOKENS,
    CONF_MAX_TURNS,
    CONF_MODEL,
    CONF_NUM_CTX,
    CONF_PROMPT,
    CONF_SEARCH_URL,
    CONF_SENSITIVE,
    CONF_TEMPERATURE,
    CONF_THINK,
    CONF_TOKEN,
    CONF_TOP_P,
    CONF_TRANSPORT,
    CONF_TURN_DEADLINE,
    CONF_UNRESOLVED,
    CONF_URL,
    CONF_WEB_SEARCH,
    CONNECT_TIMEOUT,
    DEFAULT_AGENT_NAME,
    DEFAULT_AI_TASK_NAME,
    DEFAULT_KEEP_ALIVE,
    DEFAULT_MAX_TOKENS,
    DEFAULT_MAX_TURNS,
    DEFAULT_NUM_CTX,
    DEFAULT_THINK,
    DEFAULT_TURN_DEADLINE,
    DEFAULT_UNRESOLVED,
    DOMAIN,
    ENGINE_FEATURE_DEFAULTS,
    LLM_API_JARVIS,
    MAX_MAX_TOKENS,
    MAX_NUM_CTX,
    MIN_MAX_TOKENS,
    MIN_NUM_CTX,
    SENSITIVE_KINDS,
    SUBENTRY_AI_TASK,
    SUBENTRY_CONVERSATION,
    SUBENTRY_MCP_SERVER,
    UNRESOLVED_CHOICES,
)
from .engine.llm.base import LLMAuthError, LLMError
from .engine.mcp_client import TRANSPORTS, McpAuthError, McpError
from .engine.modelsize import first_chat_model
from .engine.redact import public_url, redacting_logger
from .prompts import DEFAULT_PROMPT
from .tools.mcp import new_client, parse_headers

_LOGGER = redacting_logger(__name__)

SERVER_SCHEMA = vol.Schema(
    {
        vol.Required(CONF_BACKEND, default=BACKEND_OLLAMA): SelectSelector(
            SelectSelectorConfig(
                options=list(BACKENDS),
                translation_key=CONF_BACKEND,
                mode=SelectSelectorMode.LIST,
            )
        ),
        vol.Required(CONF_URL): TextSelector(
            TextSelectorConfig(type=TextSelectorType.URL)
        ),
        vol.Optional(CONF_API_KEY): TextSelector(
            TextSelectorConfig(type=TextSelectorType.PASSWORD)
        ),
    }
)


async def async_check_server(
    hass: HomeAssistant, data: Mapping[str, Any]
) -> tuple[list[str], str | None]:
    """Connect to a server; return its models and an error key (or None)."""
    try:
        cv.url(data[CONF_URL])
    except vol.Invalid:
        return [], "invalid_url"
    client = build_client(hass, dict(data))
    try:
        async with asyncio.timeout(CONNECT_TIMEOUT):
            models = await client.list_models()
    except LLMAuthError:
        return [], "invalid_auth"
    except (LLMError, TimeoutError):
        return [], "cannot_connect"
    except Exception:
        _LOGGER.exception("Unexpected error checking the LLM server")
        return [], "unknown"
    finally:
        await client.close()
    if not models:
        return [], "no_models"
    return models, None


def default_agent_data(model: str) -> dict[str, Any]:
    """Settings of the agent created with a new server entry."""
    return {
        CONF_MODEL: model,
        CONF_PROMPT: DEFAULT_PROMPT,
        CONF_LLM_HASS_API: [llm.LLM_API_ASSIST, LLM_API_JARVIS],
        CONF_MAX_TURNS: DEFAULT_MAX_TURNS,
        CONF_NUM_CTX: DEFAULT_NUM_CTX,
        CONF_MAX_TOKENS: DEFAULT_MAX_TOKENS,
        CONF_KEEP_ALIVE: DEFAULT_KEEP_ALIVE,
        CONF_THINK: DEFAULT_THINK,
        **ENGINE_FEATURE_DEFAULTS,
    }


def default_task_data(model: str) -> dict[str, Any]:
    """Settings of an AI task entity: only its model."""
    return {CONF_MODEL: model}


def _normalized(user_input: Mapping[str, Any]) -> dict[str, Any]:
    return {
        CONF_BACKEND: user_input[CONF_BACKEND],
        CONF_URL: str(user_input[CONF_URL]).strip().rstrip("/"),
        CONF_API_KEY: (user_input.get(CONF_API_KEY) or "").strip(),
    }


class JarvisConfigFlow(ConfigFlow, domain=DOMAIN):
    """Add an LLM server; its first agent is created with it."""

    VERSION = 1
    # 2: every entry has an AI task subentry (`async_migrate_entry`).
    MINOR_VERSION = 2

    async def async_step_user(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Ask for the server and connect to it before saving."""
        errors: dict[str, str] = {}
        if user_input is not None:
            data = _normalized(user_input)
            self._async_abort_entries_match({CONF_URL: data[CONF_URL]})
            models, error = await async_check_server(self.hass, data)
            if error:
                errors["base"] = error
            else:
                return self.async_create_entry(
                    title=f"Jarvis ({public_url(data[CONF_URL])})",
                    data=data,
                    subentries=[
                        {
                            "subentry_type": SUBENTRY_CONVERSATION,
                            "data": default_agent_data(first_chat_model(models)),
                            "title": DEFAULT_AGENT_NAME,
                            "unique_id": None,
                        },
                        {
                            "subentry_type": SUBENTRY_AI_TASK,
                            "data": default_task_data(models[0]),
                            "title": DEFAULT_AI_TASK_NAME,
                            "unique_id": None,
                        },
                    ],
                )
        return self.async_show_form(
            step_id="user",
            data_schema=self.add_suggested_values_to_schema(
                SERVER_SCHEMA, user_input or {}
            ),
            errors=errors,
        )

    async def async_step_reconfigure(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Change the server's backend, URL or key."""
        entry = self._get_reconfigure_entry()
        errors: dict[str, str] = {}
        if user_input is not None:
            data = _normalized(user_input)
            if data[CONF_URL] != entry.data[CONF_URL]:
                self._async_abort_entries_match({CONF_URL: data[CONF_URL]})
            _, error = await async_check_server(self.hass, data)
            if error:
                errors["base"] = error
            else:
                return self.async_update_reload_and_abort(entry, data=data)
        return self.async_show_form(
            step_id="reconfigure",
            data_schema=self.add_suggested_values_to_schema(
                SERVER_SCHEMA, user_input or dict(entry.data)
            ),
            errors=errors,
        )

    async def async_step_reauth(
        self, entry_data: Mapping[str, Any]
    ) -> ConfigFlowResult:
        """The server refused the API key."""
        return await self.async_step_reauth_confirm()

    async def async_step_reauth_confirm(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Ask for a new API key."""
        entry = self._get_reauth_entry()
        errors: dict[str, str] = {}
        if user_input is not None:
            data = {**entry.data, CONF_API_KEY: user_input.get(CONF_API_KEY, "")}
            _, error = await async_check_server(self.hass, data)
            if error:
                errors["base"] = error
            else:
                return self.async_update_reload_and_abort(entry, data=data)
        return self.async_show_form(
            step_id="reauth_confirm",
            data_schema=vol.Schema(
                {
                    vol.Optional(CONF_API_KEY): TextSelector(
                        TextSelectorConfig(type=TextSelectorType.PASSWORD)
                    )
                }
            ),
            description_placeholders={"url": public_url(entry.data[CONF_URL])},
            errors=errors,
        )

    @classmethod
    @callback
    def async_get_supported_subentry_types(
        cls, config_entry: ConfigEntry
    ) -> dict[str, type[ConfigSubentryFlow]]:
        """Agents and MCP servers are subentries."""
        return {
            SUBENTRY_CONVERSATION: AgentSubentryFlow,
            SUBENTRY_MCP_SERVER: McpServerSubentryFlow,
            SUBENTRY_AI_TASK: AITaskSubentryFlow,
        }

    @staticmethod
    @callback
    def async_get_options_flow(config_entry: ConfigEntry) -> OptionsFlow:
        """Tool options: web search and which actions need a confirmation."""
        return ToolOptionsFlow()


class AgentSubentryFlow(ConfigSubentryFlow):
    """Add or reconfigure an agent."""

    @property
    def _is_new(self) -> bool:
        return self.source == "user"

    async def async_step_set_options(
        self, user_input: dict[str, Any] | None = None
    ) -> SubentryFlowResult:
        """Model (listed from the server), persona, APIs and loop settings."""
        entry: JarvisConfigEntry = self._get_entry()
        if entry.state != ConfigEntryState.LOADED:
            return self.async_abort(reason="entry_not_loaded")

        if user_input is not None:
            if self._is_new:
                name = user_input.pop(CONF_NAME)
                return self.async_create_entry(title=name, data=user_input)
            return self.async_update_and_abort(
                entry, self._get_reconfigure_subentry(), data=user_input
            )

        try:
            async with asyncio.timeout(CONNECT_TIMEOUT):
                models = await entry.runtime_data.client.list_models()
        except (LLMError, TimeoutError):
            return self.async_abort(reason="cannot_connect")

        options = (
            self._defaults(first_chat_model(models))
            if self._is_new
            else dict(self._get_reconfigure_subentry().data)
        )
        return self.async_show_form(
            step_id="set_options",
            data_schema=self.add_suggested_values_to_schema(
                self._schema(models), options
            ),
        )

    async_step_user = async_step_set_options
    async_step_reconfigure = async_step_set_options

    def _defaults(self, model: str) -> dict[str, Any]:
        """A new subentry's settings."""
        return default_agent_data(model)

    def _schema(self, models: list[str]) -> vol.Schema:
        return agent_schema(self.hass, models, is_new=self._is_new)


class AITaskSubentryFlow(AgentSubentryFlow):
    """Add or reconfigure an AI task entity: a name and a model."""

    def _defaults(self, model: str) -> dict[str, Any]:
        return default_task_data(model)

    def _schema(self, models: list[str]) -> vol.Schema:
        schema: dict[vol.Marker, Any] = {}
        if self._is_new:
            schema[vol.Required(CONF_NAME, default=DEFAULT_AI_TASK_NAME)] = str
        schema[vol.Required(CONF_MODEL)] = SelectSelector(
            SelectSelectorConfig(options=models, custom_value=True)
        )
        return vol.Schema(schema)


def agent_schema(hass: HomeAssistant, models: list[str], *, is_new: bool) -> vol.Schema:
    """The agent form."""
    schema: dict[vol.Marker, Any] = {}
    if is_new:
        schema[vol.Required(CONF_NAME, default=DEFAULT_AGENT_NAME)] = str
    apis = [
        SelectOptionDict(label=api.name, value=api.id)
        for api in llm.async_get_apis(hass)
    ]
    schema.update(
        {
            vol.Required(CONF_MODEL): SelectSelector(
                SelectSelectorConfig(options=models, custom_value=True)
            ),
            vol.Optional(CONF_PROMPT): TemplateSelector(),
            vol.Optional(CONF_LLM_HASS_API): SelectSelector(
                SelectSelectorConfig(options=apis, multiple=True)
            ),
            vol.Optional(CONF_MAX_TURNS, default=DEFAULT_MAX_TURNS): _whole_number(
                1, 30
            ),
            vol.Optional(CONF_NUM_CTX, default=DEFAULT_NUM_CTX): _whole_number(
                MIN_NUM_CTX, MAX_NUM_CTX
            ),
            vol.Optional(CONF_MAX_TOKENS, default=DEFAULT_MAX_TOKENS): _whole_number(
                MIN_MAX_TOKENS, MAX_MAX_TOKENS
            ),
            # No defaults: left empty, the engine chooses (see const.py).
            vol.Optional(CONF_TEMPERATURE): _fraction(2.0),
            vol.Optional(CONF_TOP_P): _fraction(1.0),
            vol.Optional(
                CONF_TURN_DEADLINE, default=DEFAULT_TURN_DEADLINE
            ): _whole_number(10, 600),
            vol.Optional(CONF_KEEP_ALIVE, default=DEFAULT_KEEP_ALIVE): _whole_number(
                -1, 86400
            ),
            vol.Optional(CONF_THINK, default=DEFAULT_THINK): BooleanSelector(),
        }
    )
    for feature, default in ENGINE_FEATURE_DEFAULTS.items():
        schema[vol.Optional(feature, default=default)] = BooleanSelector()
    return vol.Schema(schema)


def _whole_number(minimum: int, maximum: int) -> vol.All:
    return vol.All(
        NumberSelector(
            NumberSelectorConfig(
                min=minimum, max=maximum, step=1, mode=NumberSelectorMode.BOX
            )
        ),
        vol.Coerce(int),
    )


def _fraction(maximum: float) -> NumberSelector:
    return NumberSelector(
        NumberSelectorConfig(min=0, max=maximum, step=0.05, mode=NumberSelectorMode.BOX)
    )


MCP_SCHEMA = vol.Schema(
    {
        vol.Required(CONF_URL): TextSelector(
            TextSelectorConfig(type=TextSelectorType.URL)
        ),
        vol.Required(CONF_TRANSPORT, default="auto"): SelectSelector(
            SelectSelectorConfig(
                options=list(TRANSPORTS),
                translation_key=CONF_TRANSPORT,
                mode=SelectSelectorMode.DROPDOWN,
            )
        ),
        vol.Optional(CONF_TOKEN): TextSelector(
            TextSelectorConfig(type=TextSelectorType.PASSWORD)
        ),
        vol.Optional(CONF_HEADERS): TextSelector(TextSelectorConfig(multiline=True)),
    }
)


async def async_check_mcp_server(
    hass: HomeAssistant, data: dict[str, Any]
) -> tuple[str | None, str | None, str]:
    """List a server's tools: (error key, server name, detail for the error)."""
    try:
        cv.url(data[CONF_URL])
    except vol.Invalid:
        return "invalid_url", None, ""
    try:
        parse_headers(data.get(CONF_HEADERS) or "")
    except ValueError as err:
        return "invalid_headers", None, str(err)
    client = new_client(data)
    try:
        await client.list_tools()
    except McpAuthError:
        return "invalid_auth", None, ""
    except McpError as err:
        return "cannot_connect_mcp", None, str(err)
    except Exception:
        _LOGGER.exception("Unexpected error checking the MCP server")
        return "unknown", None, ""
    # Later sessions skip the fallback once the transport is known.
    data[CONF_TRANSPORT] = client.transport
    return None, client.server_name, ""


class McpServerSubentryFlow(ConfigSubentryFlow):
    """Add or change an MCP server; it must list its tools before it is saved."""

    async def async_step_user(
        self, user_input: dict[str, Any] | None = None
    ) -> SubentryFlowResult:
        """A new server, named by the user or by the server itself."""
        return await self._async_form("user", user_input)

    async def async_step_reconfigure(
        self, user_input: dict[str, Any] | None = None
    ) -> SubentryFlowResult:
        """Change the server's address or credentials."""
        return await self._async_form("reconfigure", user_input)

    async def _async_form(
        self, step_id: str, user_input: dict[str, Any] | None
    ) -> SubentryFlowResult:
        is_new = step_id == "user"
        errors: dict[str, str] = {}
        detail = ""
        if user_input is not None:
            data = {
                CONF_URL: str(user_input[CONF_URL]).strip(),
                CONF_TRANSPORT: user_input.get(CONF_TRANSPORT, "auto"),
                CONF_TOKEN: (user_input.get(CONF_TOKEN) or "").strip(),
                CONF_HEADERS: user_input.get(CONF_HEADERS) or "",
            }
            error, server_name, detail = await async_check_mcp_server(self.hass, data)
            if error:
                errors["base"] = error
            elif is_new:
                title = (user_input.get(CONF_NAME) or "").strip()
                return self.async_create_entry(
                    title=title or server_name or public_url(data[CONF_URL]),
                    data=data,
                )
            else:
                return self.async_update_and_abort(
                    self._get_entry(), self._get_reconfigure_subentry(), data=data
                )
        schema = MCP_SCHEMA
        if is_new:
            schema = schema.extend({vol.Optional(CONF_NAME): str})
        suggested = user_input or (
            {} if is_new else dict(self._get_reconfigure_subentry().data)
        )
        return self.async_show_form(
            step_id=step_id,
            data_schema=self.add_suggested_values_to_schema(schema, suggested),
            errors=errors,
            description_placeholders={"error": detail},
        )


class ToolOptionsFlow(OptionsFlow):
    """Options of Jarvis's tools."""

    async def async_step_init(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Web search (off by default) and the actions that need a yes."""
        errors: dict[str, str] = {}
        if user_input is not None:
            if user_input.get(CONF_WEB_SEARCH) and not user_input.get(CONF_SEARCH_URL):
                errors[CONF_SEARCH_URL] = "search_url_required"
            else:
                return self.async_create_entry(data=user_input)
        schema = vol.Schema(
            {
                vol.Optional(CONF_WEB_SEARCH, default=False): BooleanSelector(),
                vol.Optional(CONF_SEARCH_URL): TextSelector(
                    TextSelectorConfig(type=TextSelectorType.URL)
                ),
                vol.Optional(
                    CONF_SENSITIVE, default=list(SENSITIVE_KINDS)
                ): SelectSelector(
                    SelectSelectorConfig(
                        options=list(SENSITIVE_KINDS),
                        translation_key=CONF_SENSITIVE,
                        multiple=True,
                        mode=SelectSelectorMode.LIST,
                    )
                ),
                vol.Optional(
                    CONF_UNRESOLVED, default=DEFAULT_UNRESOLVED
                ): SelectSelector(
                    SelectSelectorConfig(
                        options=list(UNRESOLVED_CHOICES),
                        translation_key=CONF_UNRESOLVED,
                        mode=SelectSelectorMode.LIST,
                    )
                ),
            }
        )
        return self.async_show_form(
            step_id="init",
            data_schema=self.add_suggested_values_to_schema(
                schema, user_input or dict(self.config_entry.options)
            ),
            errors=errors,
        )
