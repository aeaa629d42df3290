"""A repair issue for Assist pipelines that answer before Jarvis can ask.

With "Prefer handling commands locally", Home Assistant's pipeline sends each
command to its own intent matcher before the conversation agent sees it, and
the matcher unlocks, disarms and opens at once. Where such a pipeline uses a
Jarvis agent while a guarded kind is exposed, Jarvis's yes can be skipped.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime, timedelta

from homeassistant.components.homeassistant.exposed_entities import (
    async_should_expose,
)
from homeassistant.core import CALLBACK_TYPE, HomeAssistant, callback
from homeassistant.helpers import entity_registry as er, issue_registry as ir
from homeassistant.helpers.event import async_track_time_interval

from ..const import DOMAIN
from .policy import guarded_kind

ISSUE_PREFER_LOCAL = "prefer_local_guarded"
CHECK_INTERVAL = timedelta(minutes=5)


@callback
def async_check_pipelines(hass: HomeAssistant, kinds: Collection[str]) -> None:
    """Raise the issue while such a pipeline exists, clear it otherwise."""
    risky = sorted(_risky_pipelines(hass)) if _guarded_exposed(hass, kinds) else []
    if not risky:
        ir.async_delete_issue(hass, DOMAIN, ISSUE_PREFER_LOCAL)
        return
    ir.async_create_issue(
        hass,
        DOMAIN,
        ISSUE_PREFER_LOCAL,
        is_fixable=False,
        severity=ir.IssueSeverity.WARNING,
        translation_key=ISSUE_PREFER_LOCAL,
        translation_placeholders={"pipelines": ", ".join(risky)},
    )


@callback
def async_watch_pipelines(hass: HomeAssistant, kinds: Collection[str]) -> CALLBACK_TYPE:
    """Check now and every few minutes (pipelines have no change event)."""

    @callback
    def check(_: datetime) -> None:
        async_check_pipelines(hass, kinds)

    async_check_pipelines(hass, kinds)
    return async_track_time_interval(hass, check, CHECK_INTERVAL)


def _risky_pipelines(hass: HomeAssistant) -> list[str]:
    """Names of pipelines that prefer local handling in front of a Jarvis agent."""
    if "assist_pipeline" not in hass.config.components:
        return []
    # Imported late: assist_pipeline is an optional dependency.
    from homeassistant.components.assist_pipeline import (  # noqa: PLC0415
        async_get_pipelines,
    )

    registry = er.async_get(hass)
    jarvis = {
        entry.entity_id
        for entry in registry.entities.values()
        if entry.platform == DOMAIN and entry.domain == "conversation"
    }
    return [
        pipeline.name
        for pipeline in async_get_pipelines(hass)
        if pipeline.prefer_local_intents and pipeline.conversation_engine in jarvis
    ]


def _guarded_exposed(hass: HomeAssistant, kinds: Collection[str]) -> bool:
    """Whether any entity of a guarded kind is exposed to Assist."""
    return any(
        guarded_kind(hass, state.entity_id) in kinds
        and async_should_expose(hass, "conversation", state.entity_id)
        for domain in ("lock", "alarm_control_panel", "cover")
        for state in hass.states.async_all(domain)
    )
