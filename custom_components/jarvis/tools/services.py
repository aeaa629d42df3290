"""Service calls on exposed entities: resolve targets, check them, run the call.

Only entities exposed to conversation agents may be targeted. Areas and floors
expand to their exposed entities of the service's domain, so a call never
reaches an entity the user did not expose, and a call that would touch nothing
is an error rather than a silent no-op.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
import difflib
from typing import Any

from homeassistant.components.homeassistant.exposed_entities import (
    async_should_expose,
)
from homeassistant.const import ATTR_ENTITY_ID
from homeassistant.core import Context, HomeAssistant, State, SupportsResponse
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import (
    area_registry as ar,
    config_validation as cv,
    device_registry as dr,
    entity_registry as er,
    floor_registry as fr,
    intent,
    llm,
    service as ha_service,
)
from homeassistant.util.json import JsonObjectType
import voluptuous as vol

from ..const import ASSISTANT
from ..safety.effects import TARGET_KEYS, Call, target_entities

# Service domains that act on entities of any domain.
GENERIC_DOMAINS = frozenset({"homeassistant"})


class ToolError(HomeAssistantError):
    """A tool call the model can correct; the message tells it how."""


@dataclass(frozen=True, slots=True)
class ServiceAction:
    """A checked service call on exposed entities."""

    domain: str
    service: str
    entity_ids: tuple[str, ...] = ()
    data: Mapping[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """For storage."""
        return {
            "domain": self.domain,
            "service": self.service,
            "entity_ids": list(self.entity_ids),
            "data": dict(self.data),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ServiceAction:
        """From storage."""
        return cls(
            data["domain"],
            data["service"],
            tuple(data["entity_ids"]),
            dict(data["data"]),
        )

    @property
    def call(self) -> Call:
        """The service call exactly as it will be made."""
        data = dict(self.data)
        if self.entity_ids:
            data[ATTR_ENTITY_ID] = list(self.entity_ids)
        return Call(self.domain, self.service, data)

    def describe(self, hass: HomeAssistant) -> str:
        """For people: "unlock Front Door"."""
        names = [
            state.name if (state := hass.states.get(entity_id)) else entity_id
            for entity_id in self.entity_ids
        ]
        verb = self.service.replace("_", " ")
        return f"{verb} {', '.join(names)}" if names else f"{self.domain} {verb}"


TARGET_SCHEMA: dict[vol.Marker, Any] = {
    vol.Optional(
        "entity_id", description="Entity ids (or exact names) to act on"
    ): vol.All(cv.ensure_list, [str]),
    vol.Optional("area", description="An area name: all its exposed entities"): str,
    vol.Optional("floor", description="A floor name: all its exposed entities"): str,
    vol.Optional(
        "data", description='Extra service data, e.g. {"brightness_pct": 50}'
    ): dict,
}
ACTION_SCHEMA: dict[vol.Marker, Any] = {
    vol.Required("domain", description="Service domain, e.g. light"): str,
    vol.Required("service", description="Service name, e.g. turn_on"): str,
    **TARGET_SCHEMA,
}


def exposed_states(hass: HomeAssistant) -> dict[str, State]:
    """The states of entities exposed to conversation agents."""
    return {
        state.entity_id: state
        for state in hass.states.async_all()
        if async_should_expose(hass, ASSISTANT, state.entity_id)
    }


async def async_resolve(hass: HomeAssistant, args: Mapping[str, Any]) -> ServiceAction:
    """Check a tool call's service and targets; raise ToolError with a way out."""
    domain = str(args["domain"]).strip().lower()
    service = str(args["service"]).strip().lower()
    if "." in service:  # "light.turn_on" given as the service
        domain, _, service = service.partition(".")
    if not hass.services.has_service(domain, service):
        known = hass.services.async_services_for_domain(domain)
        hint = (
            f"Services of {domain}: {', '.join(sorted(known))}."
            if known
            else closest_names("domain", domain, hass.services.async_services())
        )
        raise ToolError(f"There is no service {domain}.{service}. {hint}")

    exposed = exposed_states(hass)
    entity_ids = _named_entities(_as_list(args.get("entity_id")), exposed)
    if area := args.get("area"):
        entity_ids += _in_area(hass, str(area), domain, exposed)
    if floor := args.get("floor"):
        entity_ids += _on_floor(hass, str(floor), domain, exposed)
    entity_ids = list(dict.fromkeys(entity_ids))

    data = args.get("data") or {}
    if not isinstance(data, Mapping):
        raise ToolError("data must be an object of service fields.")
    entity_ids += _data_targets(hass, domain, data, exposed)
    entity_ids = list(dict.fromkeys(entity_ids))
    data = {key: value for key, value in data.items() if key not in TARGET_KEYS}
    wrong = [e for e in entity_ids if e.split(".")[0] != domain]
    if wrong and domain not in GENERIC_DOMAINS and hass.states.async_entity_ids(domain):
        raise ToolError(
            f"{domain}.{service} cannot act on {', '.join(wrong)}; use the "
            f"service of their own domain ({wrong[0].split('.')[0]})."
        )
    descriptions = await ha_service.async_get_all_descriptions(hass)
    description = descriptions.get(domain, {}).get(service, {})
    if "target" in description and not entity_ids:
        raise ToolError(
            f"{domain}.{service} needs a target: give entity_id, area or floor."
        )
    return ServiceAction(domain, service, tuple(entity_ids), data)


def _data_targets(
    hass: HomeAssistant,
    domain: str,
    data: Mapping[str, Any],
    exposed: Mapping[str, State],
) -> list[str]:
    """Targets given inside `data` (entity, device, area, floor or label ids, or
    `all`), resolved as Home Assistant would; each must be exposed."""
    if not any(key in data for key in TARGET_KEYS):
        return []
    reached = target_entities(hass, domain, data)
    if domain not in GENERIC_DOMAINS and ATTR_ENTITY_ID not in data:
        # HA's entity services act only on their own domain's entities.
        reached = {e for e in reached if e.startswith(f"{domain}.")}
    if hidden := sorted(e for e in reached if e not in exposed):
        raise ToolError(f"Not exposed to Jarvis: {', '.join(hidden)}.")
    if not reached:
        raise ToolError("The targets in data match no exposed entity.")
    return sorted(reached)


async def async_run(
    hass: HomeAssistant, action: ServiceAction, context: Context | None
) -> JsonObjectType:
    """Run a resolved action (its entities must still be exposed)."""
    exposed = exposed_states(hass)
    if gone := [e for e in action.entity_ids if e not in exposed]:
        raise ToolError(f"No longer exposed to Jarvis: {', '.join(gone)}.")
    data = dict(action.data)
    if action.entity_ids:
        data[ATTR_ENTITY_ID] = list(action.entity_ids)
    wants_response = (
        hass.services.supports_response(action.domain, action.service)
        != SupportsResponse.NONE
    )
    try:
        response = await hass.services.async_call(
            action.domain,
            action.service,
            data,
            blocking=True,
            context=context,
            return_response=wants_response,
        )
    except vol.Invalid as err:
        raise ToolError(
            f"Invalid data for {action.domain}.{action.service}: {err}. "
            f"{await _fields_hint(hass, action)}"
        ) from err
    result: JsonObjectType = {
        "success": True,
        "states": {
            entity_id: state.state
            for entity_id in action.entity_ids
            if (state := hass.states.get(entity_id))
        },
    }
    if response:
        result["response"] = dict(response)
    return result


async def _fields_hint(hass: HomeAssistant, action: ServiceAction) -> str:
    descriptions = await ha_service.async_get_all_descriptions(hass)
    fields = descriptions.get(action.domain, {}).get(action.service, {}).get("fields")
    return f"Valid fields: {', '.join(sorted(fields))}." if fields else ""


def _as_list(value: Any) -> list[str]:
    if value is None or value == "":
        return []
    return [str(v) for v in value] if isinstance(value, list) else [str(value)]


def _named_entities(names: list[str], exposed: Mapping[str, State]) -> list[str]:
    """Entity ids for ids or exact names; unknown ones raise with close matches."""
    by_name = {state.name.casefold(): entity_id for entity_id, state in exposed.items()}
    found: list[str] = []
    for name in names:
        key = name.strip()
        if key in exposed:
            found.append(key)
        elif entity_id := by_name.get(key.casefold()):
            found.append(entity_id)
        else:
            labels = [
                *exposed,
                *(
                    f"{state.name} ({entity_id})"
                    for entity_id, state in exposed.items()
                ),
            ]
            raise ToolError(
                f"Unknown or unexposed entity '{name}'. "
                + closest_names("entity", key, labels)
            )
    return found


def entity_area(hass: HomeAssistant, entity_id: str) -> str | None:
    """The area of the entity, else of its device."""
    entry = er.async_get(hass).async_get(entity_id)
    if entry is None:
        return None
    if entry.area_id:
        return entry.area_id
    if entry.device_id and (device := dr.async_get(hass).async_get(entry.device_id)):
        return device.area_id
    return None


def entity_places(hass: HomeAssistant, entity_id: str) -> list[str]:
    """The names and aliases of the entity's area and of its floor."""
    area_id = entity_area(hass, entity_id)
    if (
        area := ar.async_get(hass).async_get_area(area_id) if area_id else None
    ) is None:
        return []
    floor = fr.async_get(hass).async_get_floor(area.floor_id) if area.floor_id else None
    return [area.name, *area.aliases, *([floor.name, *floor.aliases] if floor else [])]


def satellite_area(hass: HomeAssistant, llm_context: llm.LLMContext) -> str | None:
    """The area of the device a request came from, if known."""
    if llm_context.device_id and (
        device := dr.async_get(hass).async_get(llm_context.device_id)
    ):
        return device.area_id
    return None


def _in_areas(
    hass: HomeAssistant, area_ids: set[str], domain: str, exposed: Mapping[str, State]
) -> list[str]:
    generic = domain in GENERIC_DOMAINS
    return [
        entity_id
        for entity_id in exposed
        if (generic or entity_id.startswith(f"{domain}."))
        and entity_area(hass, entity_id) in area_ids
    ]


def _in_area(
    hass: HomeAssistant, name: str, domain: str, exposed: Mapping[str, State]
) -> list[str]:
    registry = ar.async_get(hass)
    areas = {area.id for area in intent.find_areas(name, registry)}
    if not areas:
        labels = [area.name for area in registry.async_list_areas()]
        raise ToolError(
            f"Unknown area '{name}'. " + closest_names("area", name, labels)
        )
    if not (found := _in_areas(hass, areas, domain, exposed)):
        raise ToolError(f"No exposed {domain} entities in the area '{name}'.")
    return found


def _on_floor(
    hass: HomeAssistant, name: str, domain: str, exposed: Mapping[str, State]
) -> list[str]:
    registry = fr.async_get(hass)
    floors = {floor.floor_id for floor in intent.find_floors(name, registry)}
    if not floors:
        labels = [floor.name for floor in registry.async_list_floors()]
        raise ToolError(
            f"Unknown floor '{name}'. " + closest_names("floor", name, labels)
        )
    areas = {
        area.id
        for area in ar.async_get(hass).async_list_areas()
        if area.floor_id in floors
    }
    if not (found := _in_areas(hass, areas, domain, exposed)):
        raise ToolError(f"No exposed {domain} entities on the floor '{name}'.")
    return found


def closest_names(kind: str, name: str, candidates: Iterable[str]) -> str:
    """A tool-error hint: the candidates most like `name`."""
    folded = {candidate.casefold(): candidate for candidate in candidates}
    matches = difflib.get_close_matches(name.casefold(), folded, n=5, cutoff=0.4)
    if not matches:
        return f"No {kind} has a similar name."
    return f"Close matches: {', '.join(folded[match] for match in matches)}."
