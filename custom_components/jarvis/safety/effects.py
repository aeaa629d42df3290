"""What a service call will do: the concrete entities it touches and how.

A call is resolved the way Home Assistant itself resolves it
(`helpers.target`: entity, device, area, floor and label ids, in the target
or in the data, groups expanded), and then through what it starts: a
script's or an automation's actions (read from their configuration, step by
step, the same way), a template entity's own actions, a scene's entities and
the states it sets. What cannot
be known before it runs (a templated action or target, an event, a service
that acts outside Home Assistant) is reported as unresolved, never guessed.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
import re
from typing import Any

from homeassistant.const import (
    ATTR_AREA_ID,
    ATTR_DEVICE_ID,
    ATTR_ENTITY_ID,
    ATTR_FLOOR_ID,
    ATTR_LABEL_ID,
    ENTITY_MATCH_ALL,
)
from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er, target as ha_target
from homeassistant.helpers.template import Template

TARGET_KEYS = (
    ATTR_ENTITY_ID,
    ATTR_DEVICE_ID,
    ATTR_AREA_ID,
    ATTR_FLOOR_ID,
    ATTR_LABEL_ID,
)
# Services without targets that only inform, store or ask: nothing in the
# house moves. Any other targetless service may act outside Home Assistant.
INFORMING_DOMAINS = frozenset(
    {
        "conversation",
        "logbook",
        "notify",
        "persistent_notification",
        "recorder",
        "system_log",
        "tts",
        "weather",
        "calendar",
        "todo",
        "shopping_list",
    }
)
# Targetless services of acting domains that only store something: a scene
# created (from states or a snapshot) sets nothing until it is turned on.
STORING_SERVICES = frozenset({("scene", "create")})
# Scripts that start scripts: deeper than this is treated as unknown.
MAX_DEPTH = 5
# Keys of a script step that hold conditions, triggers or values, not actions.
_NOT_ACTIONS = frozenset(
    {
        "condition",
        "conditions",
        "if",
        "while",
        "until",
        "trigger",
        "triggers",
        "variables",
        "data",
        "target",
        "fields",
        "response_variable",
    }
)


@dataclass(frozen=True, slots=True)
class Call:
    """A service call exactly as it will be made (targets inside `data`)."""

    domain: str
    service: str
    data: Mapping[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """For storage."""
        return {"domain": self.domain, "service": self.service, "data": dict(self.data)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Call:
        """From storage."""
        return cls(str(data["domain"]), str(data["service"]), dict(data["data"]))

    @property
    def entity_ids(self) -> tuple[str, ...]:
        """The entity ids named in the call (not those its targets expand to)."""
        value = self.data.get(ATTR_ENTITY_ID)
        if value is None:
            return ()
        return (value,) if isinstance(value, str) else tuple(map(str, value))


@dataclass(frozen=True, slots=True)
class Effect:
    """One entity and the service that will act on it in its own domain; a
    scene sets a `state` instead."""

    entity_id: str
    service: str
    data: Mapping[str, Any] = field(default_factory=dict)
    state: str | None = None


@dataclass(slots=True)
class Resolution:
    """Everything a call does that can be known, and what cannot."""

    effects: list[Effect] = field(default_factory=list)
    unresolved: list[str] = field(default_factory=list)

    def extend(self, other: Resolution) -> None:
        """Add another call's resolution."""
        self.effects += other.effects
        self.unresolved += other.unresolved


def target_entities(
    hass: HomeAssistant, domain: str, data: Mapping[str, Any]
) -> set[str]:
    """The entities a call's target keys reach, as Home Assistant resolves them;
    `all` is every entity of the domain (of the house for `homeassistant`)."""
    if data.get(ATTR_ENTITY_ID) == ENTITY_MATCH_ALL or ENTITY_MATCH_ALL in (
        data.get(ATTR_ENTITY_ID) or ()
    ):
        if domain == "homeassistant":
            return set(hass.states.async_entity_ids())
        return set(hass.states.async_entity_ids(domain))
    selected = ha_target.async_extract_referenced_entity_ids(
        hass, ha_target.TargetSelection(dict(data))
    )
    return selected.referenced | selected.indirectly_referenced


def resolve(hass: HomeAssistant, call: Call) -> Resolution:
    """What the call will do, as far as it can be known before it runs."""
    resolution = _resolve(hass, call, 0)
    _follow_triggers(hass, resolution)
    return resolution


def _resolve(hass: HomeAssistant, call: Call, depth: int) -> Resolution:
    resolution = Resolution()
    if depth > MAX_DEPTH:
        resolution.unresolved.append(f"{call.domain}.{call.service} (nested too deep)")
        return resolution
    if _templated(call.service) or any(
        _templated(call.data.get(k)) for k in TARGET_KEYS
    ):
        resolution.unresolved.append(f"{call.domain}.{call.service} (template)")
        return resolution
    data = {k: v for k, v in call.data.items() if k not in TARGET_KEYS}
    if call.domain == "scene" and call.service == "apply":
        return _scene_states(call.data.get("entities"))
    entities = target_entities(hass, call.domain, call.data)
    if call.domain == "script" and call.service not in _SCRIPT_SERVICES:
        entities.add(f"script.{call.service}")  # script.<name> runs that script
    if not entities:
        if (
            call.domain not in INFORMING_DOMAINS
            and (call.domain, call.service) not in STORING_SERVICES
        ):
            resolution.unresolved.append(f"{call.domain}.{call.service}")
        return resolution
    for entity_id in sorted(entities):
        resolution.extend(_on_entity(hass, call, entity_id, data, depth))
    return resolution


_SCRIPT_SERVICES = frozenset({"turn_on", "turn_off", "toggle", "reload"})
_STARTS = frozenset({"turn_on", "toggle", "trigger"})


def _on_entity(
    hass: HomeAssistant, call: Call, entity_id: str, data: Mapping[str, Any], depth: int
) -> Resolution:
    """What the call does to one of its entities (and what that starts)."""
    entity_domain = entity_id.partition(".")[0]
    service = call.service
    if call.domain == "script" and service not in _SCRIPT_SERVICES:
        service = "turn_on"
    if entity_domain in ("script", "automation") and service in _STARTS:
        if entity_domain == "automation" and service != "trigger":
            return Resolution()  # turning an automation on runs nothing now
        return _actions_of(hass, entity_domain, entity_id, depth + 1)
    if entity_domain == "scene" and service == "turn_on":
        return _scene(hass, entity_id)
    resolution = Resolution([Effect(entity_id, service, data)])
    resolution.extend(_own_actions(hass, entity_id, depth + 1))
    return resolution


def _follow_triggers(hass: HomeAssistant, resolution: Resolution) -> None:
    """Add what the enabled automations that a change of a touched entity
    triggers do; each once, as their own effects may trigger others."""
    followed: set[str] = set()
    index = 0
    while index < len(resolution.effects):
        entity_id = resolution.effects[index].entity_id
        index += 1
        for automation in _automations_watching(hass, entity_id):
            if automation not in followed:
                followed.add(automation)
                resolution.extend(_actions_of(hass, "automation", automation, 1))


def _automations_watching(hass: HomeAssistant, entity_id: str) -> list[str]:
    """The enabled automations with a trigger on the entity: by its id (a
    registry id in device triggers too), by its device, or in a template."""
    registry = er.async_get(hass)
    entry = registry.async_get(entity_id)
    device_id = entry.device_id if entry else None
    in_text = re.compile(rf"(?<![\w.]){re.escape(entity_id)}(?![\w.])")
    watching = []
    for automation in getattr(hass.data.get("automation"), "entities", ()):
        config = getattr(automation, "raw_config", None)
        if not isinstance(config, Mapping) or hass.states.is_state(
            automation.entity_id, "off"
        ):
            continue  # a disabled automation triggers on nothing
        for trigger in _as_list(config.get("triggers", config.get("trigger"))):
            if not isinstance(trigger, Mapping):
                continue
            if (
                any(
                    er.async_resolve_entity_id(registry, str(raw)) == entity_id
                    for raw in _as_list(trigger.get(ATTR_ENTITY_ID))
                )
                or (device_id is not None and trigger.get(ATTR_DEVICE_ID) == device_id)
                or in_text.search(str(_as_written(trigger))) is not None
            ):
                watching.append(automation.entity_id)
                break
    return watching


def _as_list(value: Any) -> list[Any]:
    """A configuration value that may be one item or a list of them."""
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def _entity(hass: HomeAssistant, domain: str, entity_id: str) -> Any:
    """The entity object, from its domain's entity component."""
    component = hass.data.get(domain)
    get_entity = getattr(component, "get_entity", None)
    return get_entity(entity_id) if callable(get_entity) else None


def _component_config(
    hass: HomeAssistant, domain: str, entity_id: str
) -> Mapping[str, Any] | None:
    """A script's or automation's configuration as the user wrote it."""
    config = getattr(_entity(hass, domain, entity_id), "raw_config", None)
    return config if isinstance(config, Mapping) else None


def _own_actions(hass: HomeAssistant, entity_id: str, depth: int) -> Resolution:
    """What an entity that runs actions of its own does when it acts (a
    template button's press, a template switch's turn_on, …): all of them,
    as any service on it may start one. Home Assistant's template entities
    keep them as scripts (`_action_scripts`); other entities have none."""
    entity = _entity(hass, entity_id.partition(".")[0], entity_id)
    scripts = getattr(entity, "_action_scripts", None)
    resolution = Resolution()
    if not isinstance(scripts, Mapping) or not scripts:
        return resolution
    if depth > MAX_DEPTH:
        return Resolution(unresolved=[f"{entity_id} (nested too deep)"])
    for script in scripts.values():
        for step in _steps(_as_written(getattr(script, "sequence", None))):
            resolution.extend(_step(hass, entity_id, step, depth))
    return resolution


def _as_written(value: Any) -> Any:
    """A validated configuration with its templates as their source text (a
    static one is plain text; one with braces counts as templated)."""
    if isinstance(value, Template):
        return value.template
    if isinstance(value, list):
        return [_as_written(item) for item in value]
    if isinstance(value, Mapping):
        return {key: _as_written(item) for key, item in value.items()}
    return value


def _actions_of(
    hass: HomeAssistant, domain: str, entity_id: str, depth: int
) -> Resolution:
    """Everything a script's or automation's actions do."""
    if depth > MAX_DEPTH:
        return Resolution(unresolved=[f"{entity_id} (nested too deep)"])
    if (config := _component_config(hass, domain, entity_id)) is None:
        return Resolution(unresolved=[f"{entity_id} (configuration unknown)"])
    actions = config.get("sequence") if domain == "script" else None
    if actions is None:
        actions = config.get("actions", config.get("action"))
    resolution = Resolution()
    for step in _steps(actions):
        resolution.extend(_step(hass, entity_id, step, depth))
    return resolution


def _steps(node: Any) -> Iterator[Mapping[str, Any]]:
    """The action steps of a sequence, inside choose, if, repeat and parallel."""
    if isinstance(node, list):
        for item in node:
            yield from _steps(item)
    elif isinstance(node, Mapping):
        if any(
            key in node
            for key in ("action", "service", "service_template", "scene", "event")
        ) or ("device_id" in node and "type" in node and "condition" not in node):
            yield node
        for key, value in node.items():
            if key not in _NOT_ACTIONS:
                yield from _steps(value)


def _step(
    hass: HomeAssistant, owner: str, step: Mapping[str, Any], depth: int
) -> Resolution:
    """What one step of a script or automation does."""
    if "service_template" in step or "event" in step:
        kind = "event" if "event" in step else "service template"
        return Resolution(unresolved=[f"{owner} ({kind})"])
    if "scene" in step:
        return _resolve(
            hass, Call("scene", "turn_on", {ATTR_ENTITY_ID: step["scene"]}), depth
        )
    action = step.get("action", step.get("service"))
    if isinstance(action, str) and "." in action:
        if _templated(action):
            return Resolution(unresolved=[f"{owner} (template)"])
        domain, _, service = action.partition(".")
        data: dict[str, Any] = {}
        for part in (step.get("data"), step.get("target")):
            if isinstance(part, Mapping):
                data.update(part)
        if ATTR_ENTITY_ID in step:
            data[ATTR_ENTITY_ID] = step[ATTR_ENTITY_ID]
        return _resolve(hass, Call(domain, service, data), depth)
    if "device_id" in step and "type" in step:
        return _device_action(hass, owner, step)
    return Resolution(unresolved=[f"{owner} (unknown step)"])


# Device actions' types as the services they call.
_DEVICE_ACTIONS = {
    ("lock", "unlock"): "unlock",
    ("lock", "open"): "open",
    ("lock", "lock"): "lock",
    ("cover", "open"): "open_cover",
    ("cover", "close"): "close_cover",
    ("cover", "set_position"): "set_cover_position",
    ("alarm_control_panel", "disarm"): "alarm_disarm",
}


def _device_action(
    hass: HomeAssistant, owner: str, step: Mapping[str, Any]
) -> Resolution:
    """A device action acts on its entity (given by id or registry id)."""
    domain, kind = str(step.get("domain")), str(step.get("type"))
    raw = step.get(ATTR_ENTITY_ID)
    entity_id = (
        er.async_resolve_entity_id(er.async_get(hass), raw)
        if isinstance(raw, str)
        else None
    )
    if entity_id is None:
        return Resolution(unresolved=[f"{owner} (device action {domain} {kind})"])
    service = _DEVICE_ACTIONS.get((domain, kind), kind)
    data = {"position": step["position"]} if "position" in step else {}
    return Resolution([Effect(entity_id, service, data)])


def _scene(hass: HomeAssistant, entity_id: str) -> Resolution:
    """The states a scene sets; a scene of another platform is unknown."""
    platform = hass.data.get("homeassistant_scene")
    entities = getattr(platform, "entities", {})
    scene = entities.get(entity_id) if isinstance(entities, Mapping) else None
    config = getattr(scene, "scene_config", None)
    states = getattr(config, "states", None)
    if not isinstance(states, Mapping):
        return Resolution(unresolved=[f"{entity_id} (scene states unknown)"])
    return Resolution(
        [
            Effect(
                target,
                "scene",
                dict(getattr(state, "attributes", {})),
                getattr(state, "state", None),
            )
            for target, state in states.items()
        ]
    )


def _scene_states(entities: Any) -> Resolution:
    """`scene.apply`'s entities: a state each, or a dict with one."""
    if not isinstance(entities, Mapping):
        return Resolution(unresolved=["scene.apply (no entities)"])
    effects = []
    for entity_id, value in entities.items():
        if isinstance(value, Mapping):
            state = value.get("state")
            attributes = {k: v for k, v in value.items() if k != "state"}
        else:
            state, attributes = value, {}
        effects.append(
            Effect(
                str(entity_id),
                "scene",
                attributes,
                None if state is None else str(state),
            )
        )
    return Resolution(effects)


def _templated(value: Any) -> bool:
    if isinstance(value, str):
        return "{{" in value or "{%" in value
    if isinstance(value, list | tuple):
        return any(_templated(item) for item in value)
    return False
