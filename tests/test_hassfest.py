"""hassfest-style checks of custom_components/jarvis, and its quality-scale file.

HA's `script/hassfest` ships in neither the homeassistant wheel nor its sdist, so
the validations that apply to a custom integration are replicated here, with HA's
own loader, schemas and translation helpers where they are importable.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from functools import cache
import importlib
import importlib.metadata
import json
from pathlib import Path
import re
from types import ModuleType
from typing import Any, get_args, get_type_hints

from awesomeversion import (
    AwesomeVersion,
    AwesomeVersionException,
    AwesomeVersionStrategy,
)
import homeassistant.components
from homeassistant.config_entries import (
    SOURCE_USER,
    ConfigFlow,
    ConfigSubentry,
    OptionsFlow,
)
from homeassistant.const import Platform
from homeassistant.core import HomeAssistant
from homeassistant.data_entry_flow import FlowResultType
from homeassistant.helpers import (
    config_validation as cv,
    entity_registry as er,
    translation,
)
from homeassistant.helpers.service import _SERVICES_SCHEMA
from homeassistant.helpers.update_coordinator import DataUpdateCoordinator
from homeassistant.loader import Manifest, async_get_integration
from homeassistant.setup import async_setup_component
from homeassistant.util.yaml import load_yaml_dict
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
import pytest
import voluptuous as vol

import custom_components.jarvis
from custom_components.jarvis import PLATFORMS
from custom_components.jarvis.config_flow import default_task_data
from custom_components.jarvis.const import (
    DOMAIN,
    SUBENTRY_AI_TASK,
    SUBENTRY_CONVERSATION,
    SUBENTRY_MCP_SERVER,
)
from custom_components.jarvis.coordinator import SERVER_CHECK_INTERVAL
from tests.scripted_llm import ScriptedLLMServer
from tests.test_config_flow import closed_port_url, make_entry
from tests.tools.test_mcp import mcp_subentry

INTEGRATION = Path(custom_components.jarvis.__file__).parent
CORE = Path(homeassistant.components.__file__).parent
README = (INTEGRATION.parent.parent / "README.md").read_text()


def read_json(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((INTEGRATION / name).read_text())
    return data


MANIFEST = read_json("manifest.json")
STRINGS = read_json("strings.json")
ICONS = read_json("icons.json")
PLACEHOLDER = re.compile(r"{(\w+)}")
MDI = vol.Match(r"^mdi:[a-z0-9-]+$")


@cache
def core_manifests() -> list[dict[str, Any]]:
    return [json.loads(path.read_text()) for path in CORE.glob("*/manifest.json")]


@cache
def integration_sources() -> list[tuple[Path, ModuleType, ast.Module]]:
    """Every module of the integration: path, imported module, syntax tree."""
    sources = []
    for path in sorted(INTEGRATION.rglob("*.py")):
        parts = path.relative_to(INTEGRATION.parent.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        sources.append(
            (path, importlib.import_module(name), ast.parse(path.read_text()))
        )
    return sources


def source(name: str) -> tuple[ModuleType, ast.Module]:
    for path, module, tree in integration_sources():
        if path == INTEGRATION / name:
            return module, tree
    raise KeyError(name)


def call_name(call: ast.Call) -> str:
    func = call.func
    return func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")


def evaluate(node: ast.expr, module: ModuleType) -> Any:
    """An expression of the integration's own source, in its module's namespace."""
    return eval(compile(ast.Expression(node), module.__name__, "eval"), vars(module))


# --- manifest.json (hassfest's manifest validator, custom-integration rules) ---


def custom_version(value: str) -> str:
    """A version HA's loader accepts from a custom integration."""
    try:
        AwesomeVersion(
            value,
            ensure_strategy=[
                AwesomeVersionStrategy.CALVER,
                AwesomeVersionStrategy.SEMVER,
                AwesomeVersionStrategy.SIMPLEVER,
                AwesomeVersionStrategy.BUILDVER,
                AwesomeVersionStrategy.PEP440,
            ],
        )
    except AwesomeVersionException as err:
        raise vol.Invalid(str(err)) from err
    return value


def manifest_schema() -> vol.Schema:
    integration_types = get_args(get_type_hints(Manifest)["integration_type"])
    return vol.Schema(
        {
            vol.Required("domain"): DOMAIN,
            vol.Required("name"): str,
            vol.Required("codeowners"): [vol.Match(r"^@[\w-]+(/[\w-]+)?$")],
            vol.Required("documentation"): cv.url,
            vol.Required("issue_tracker"): cv.url,
            # Custom integrations must carry a version.
            vol.Required("version"): custom_version,
            vol.Required("integration_type"): vol.In(
                [kind for kind in integration_types if kind != "virtual"]
            ),
            # The classes HA's own integrations declare.
            vol.Required("iot_class"): vol.In(
                {m["iot_class"] for m in core_manifests() if "iot_class" in m}
            ),
            vol.Optional("config_flow"): bool,
            vol.Optional("dependencies"): [str],
            vol.Optional("after_dependencies"): [str],
            vol.Optional("requirements"): [str],
            vol.Optional("loggers"): [str],
            vol.Optional("single_config_entry"): bool,
            vol.Optional("import_executor"): bool,
        }
    )


def test_manifest_follows_hassfest_rules() -> None:
    manifest_schema()(MANIFEST)
    keys = list(MANIFEST)
    assert keys[:2] == ["domain", "name"], "domain and name come first"
    assert keys[2:] == sorted(keys[2:]), "then the keys in alphabetical order"


# HA 2026.11's pins (not installed here; docs/DEVELOPMENT.md, "HA's pins").
LATER_CORE_PINS = {"mcp": "2.3.0", "ollama": "0.6.2"}


def test_requirements_are_ranges_that_admit_core_pins() -> None:
    # Core integrations pin; a custom integration with another pin, or a range
    # that leaves core's pin out, makes HA reinstall the package back and forth.
    core_pins = {
        canonicalize_name(req.name): req.specifier
        for manifest in core_manifests()
        for req in map(Requirement, manifest.get("requirements", []))
    }
    for line in MANIFEST["requirements"]:
        req = Requirement(line)
        operators = {spec.operator for spec in req.specifier}
        assert "==" not in operators, f"{line} is pinned"
        assert "<" in operators, f"{line} has no upper bound before the next major"
        assert req.specifier.contains(importlib.metadata.version(req.name)), line
        (core_pin,) = core_pins[canonicalize_name(req.name)]
        assert req.specifier.contains(core_pin.version), f"{line} vs {core_pin}"
        later = LATER_CORE_PINS[canonicalize_name(req.name)]
        assert req.specifier.contains(later), f"{line} vs HA 2026.11's {later}"


async def test_home_assistant_loads_the_integration(
    hass: HomeAssistant, enable_custom_integrations: None
) -> None:
    integration = await async_get_integration(hass, DOMAIN)
    assert not integration.is_built_in
    assert str(integration.version) == MANIFEST["version"]
    assert integration.config_flow
    assert await integration.resolve_dependencies() is not None
    platforms = [platform.value for platform in PLATFORMS]
    assert integration.platforms_exists([*platforms, "config_flow", "diagnostics"]) == [
        *platforms,
        "config_flow",
        "diagnostics",
    ]


# Integrations hassfest lets any integration import (ALLOWED_USED_COMPONENTS in
# script/hassfest/dependencies.py): the entity platforms and internal ones, of
# which these are used here.
ALWAYS_IMPORTABLE = {platform.value for platform in Platform} | {
    "homeassistant",
    "persistent_notification",
}


def imported_integrations(tree: ast.Module) -> set[str]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "homeassistant.components":
                found |= {alias.name for alias in node.names}
            elif node.module.startswith("homeassistant.components."):
                found.add(node.module.split(".")[2])
        elif isinstance(node, ast.Import):
            found |= {
                alias.name.split(".")[2]
                for alias in node.names
                if alias.name.startswith("homeassistant.components.")
            }
    return found


def test_imported_integrations_are_dependencies() -> None:
    declared = {*MANIFEST["dependencies"], *MANIFEST["after_dependencies"]}
    used = set()
    for path, _, tree in integration_sources():
        for domain in imported_integrations(tree):
            used.add(domain)
            # A platform file may import the integration it is a platform of.
            allowed = declared | ALWAYS_IMPORTABLE | {path.stem}
            assert domain in allowed, f"{path.name} imports {domain}"
    assert "conversation" in used


# --- services.yaml, translations, icons ---


def services_yaml() -> dict[str, Any]:
    services: dict[str, Any] = _SERVICES_SCHEMA(
        load_yaml_dict(str(INTEGRATION / "services.yaml"))
    )
    return services


async def test_services_yaml_describes_the_registered_actions(
    hass: HomeAssistant, ha_core: None
) -> None:
    assert await async_setup_component(hass, DOMAIN, {})
    described = services_yaml()
    registered = hass.services.async_services_for_domain(DOMAIN)
    assert registered.keys() == described.keys()
    for name, service in registered.items():
        schema = service.schema.schema if service.schema is not None else {}
        fields = (described[name] or {}).get("fields", {})
        assert {str(key): isinstance(key, vol.Required) for key in schema} == {
            field: bool(spec.get("required")) for field, spec in fields.items()
        }, name

    # As the frontend gets them: every action and field has a name and description.
    strings = await translation.async_get_translations(hass, "en", "services", [DOMAIN])
    for name, spec in described.items():
        for key in ("name", "description"):
            assert strings.get(f"component.{DOMAIN}.services.{name}.{key}"), name
            for field in (spec or {}).get("fields", {}):
                path = f"component.{DOMAIN}.services.{name}.fields.{field}.{key}"
                assert strings.get(path), path
    # And no translation is left over from an action or field that is gone.
    assert {
        name: set(spec.get("fields", {})) for name, spec in STRINGS["services"].items()
    } == {name: set((spec or {}).get("fields", {})) for name, spec in described.items()}


def test_english_translation_is_strings_json() -> None:
    assert read_json("translations/en.json") == STRINGS


def test_icons_cover_the_actions_and_translated_entities() -> None:
    assert ICONS["services"].keys() == services_yaml().keys()
    for icon in ICONS["services"].values():
        MDI(icon["service"])
    for platform, entities in ICONS["entity"].items():
        assert entities.keys() <= STRINGS["entity"][platform].keys(), platform
        for icons in entities.values():
            MDI(icons["default"])
            for state_icon in icons.get("state", {}).values():
                MDI(state_icon)


def helper_abort(helper: str, method: str) -> str | None:
    """The abort reason HA's flow helpers use when given none."""
    if helper == "_async_abort_entries_match":
        return "already_configured"
    if helper in ("async_update_reload_and_abort", "async_update_and_abort"):
        return "reauth_successful" if "reauth" in method else "reconfigure_successful"
    return None


def flow_keys(
    flow: ast.ClassDef, returned: dict[str, set[str]]
) -> tuple[set[str], set[str]]:
    """The error and abort keys a flow class can show.

    Errors are literals put into `errors`, or the keys that the module's check
    functions it calls return; aborts are `reason=` literals and helpers' reasons.
    """
    errors: set[str] = set()
    aborts: set[str] = set()
    for method in flow.body:
        if not isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for node in ast.walk(method):
            if (
                isinstance(node, ast.Assign)
                and isinstance(target := node.targets[0], ast.Subscript)
                and isinstance(target.value, ast.Name)
                and target.value.id == "errors"
                and isinstance(node.value, ast.Constant)
            ):
                errors.add(node.value.value)
            elif isinstance(node, ast.Call):
                name = call_name(node)
                errors |= returned.get(name, set())
                aborts |= {
                    keyword.value.value
                    for keyword in node.keywords
                    if keyword.arg == "reason"
                    and isinstance(keyword.value, ast.Constant)
                }
                if reason := helper_abort(name, method.name):
                    aborts.add(reason)
    return errors, aborts


def returned_keys(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """String literals a function returns in a tuple, such as an error key."""
    return {
        element.value
        for node in ast.walk(function)
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple)
        for element in node.value.elts
        if isinstance(element, ast.Constant) and isinstance(element.value, str)
        if element.value
    }


def test_every_flow_error_and_abort_is_translated() -> None:
    module, tree = source("config_flow.py")
    returned = {
        node.name: returned_keys(node)
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    classes = {
        node: getattr(module, node.name)
        for node in tree.body
        if isinstance(node, ast.ClassDef)
    }
    (config_flow,) = (cls for cls in classes.values() if issubclass(cls, ConfigFlow))
    kinds = {
        flow: kind
        for kind, flow in config_flow.async_get_supported_subentry_types(None).items()
    }
    nodes = {cls: node for node, cls in classes.items()}
    checked = 0
    for node, cls in classes.items():
        if issubclass(cls, ConfigFlow):
            section = STRINGS["config"]
        elif issubclass(cls, OptionsFlow):
            section = STRINGS["options"]
        elif cls in kinds:
            section = STRINGS["config_subentries"][kinds[cls]]
        else:
            continue
        # Steps a flow inherits show their keys in its own section.
        errors, aborts = set(), set()
        for base in cls.__mro__:
            if base in nodes:
                base_errors, base_aborts = flow_keys(nodes[base], returned)
                errors |= base_errors
                aborts |= base_aborts
        assert errors or aborts, node.name
        assert errors <= section.get("error", {}).keys(), node.name
        assert aborts <= section.get("abort", {}).keys(), node.name
        checked += 1
    assert checked == len(kinds) + 2


def translated_calls() -> Iterator[tuple[str, dict[str, ast.expr], ModuleType]]:
    """Calls that pass a `translation_key`: the callee, its keywords, the module."""
    for _, module, tree in integration_sources():
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                keywords = {k.arg: k.value for k in node.keywords if k.arg}
                if "translation_key" in keywords:
                    yield call_name(node), keywords, module


def test_exceptions_issues_and_selectors_are_translated() -> None:
    seen = set()
    for callee, keywords, module in translated_calls():
        key = evaluate(keywords["translation_key"], module)
        if callee == "SelectSelectorConfig":
            options = evaluate(keywords["options"], module)
            assert set(options) == STRINGS["selector"][key]["options"].keys(), key
            seen.add("selector")
            continue
        if callee == "async_create_issue":
            texts = STRINGS["issues"][key].values()
            seen.add("issues")
        elif "translation_domain" in keywords:
            texts = [STRINGS["exceptions"][key]["message"]]
            seen.add("exceptions")
        else:
            continue  # entity descriptions: checked on live entities below
        given = keywords.get("translation_placeholders")
        provided = (
            {evaluate(k, module) for k in given.keys if k}
            if isinstance(given, ast.Dict)
            else set()
        )
        for text in texts:
            assert set(PLACEHOLDER.findall(text)) <= provided, key
    assert seen == {"selector", "issues", "exceptions"}


async def test_forms_and_entities_are_translated(
    hass: HomeAssistant, ha_core: None, scripted_llm: ScriptedLLMServer
) -> None:
    """Every form of every flow labels and explains each field; every entity is
    named by a translation, has a unique id and an icon."""
    entry = make_entry(scripted_llm.url)
    entry.add_to_hass(hass)
    hass.config_entries.async_add_subentry(
        entry, ConfigSubentry(**mcp_subentry(closed_port_url()))
    )
    hass.config_entries.async_add_subentry(
        entry,
        ConfigSubentry(
            data=default_task_data("test-model"),
            subentry_type=SUBENTRY_AI_TASK,
            title="Jarvis AI Task",
            unique_id=None,
        ),
    )
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    subentry_ids = {s.subentry_type: s.subentry_id for s in entry.subentries.values()}

    async def subentry_form(kind: str) -> Any:
        return await hass.config_entries.subentries.async_init(
            (entry.entry_id, kind), context={"source": SOURCE_USER}
        )

    forms = {
        "config": [
            await hass.config_entries.flow.async_init(
                DOMAIN, context={"source": SOURCE_USER}
            ),
            await entry.start_reconfigure_flow(hass),
            await entry.start_reauth_flow(hass),
        ],
        "options": [await hass.config_entries.options.async_init(entry.entry_id)],
        SUBENTRY_CONVERSATION: [
            await subentry_form(SUBENTRY_CONVERSATION),
            await entry.start_subentry_reconfigure_flow(
                hass, subentry_ids[SUBENTRY_CONVERSATION]
            ),
        ],
        SUBENTRY_MCP_SERVER: [
            await subentry_form(SUBENTRY_MCP_SERVER),
            await entry.start_subentry_reconfigure_flow(
                hass, subentry_ids[SUBENTRY_MCP_SERVER]
            ),
        ],
        SUBENTRY_AI_TASK: [
            await subentry_form(SUBENTRY_AI_TASK),
            await entry.start_subentry_reconfigure_flow(
                hass, subentry_ids[SUBENTRY_AI_TASK]
            ),
        ],
    }
    for kind, results in forms.items():
        section = STRINGS.get(kind) or STRINGS["config_subentries"][kind]
        for result in results:
            assert result["type"] is FlowResultType.FORM, result
            step = section["step"][result["step_id"]]
            fields = {str(key) for key in result["data_schema"].schema}
            assert fields <= step["data"].keys(), result["step_id"]
            # The config-flow rule: every field is explained.
            assert fields <= step["data_description"].keys(), result["step_id"]
            placeholders = result["description_placeholders"] or {}
            for text in (step.get("title", ""), step.get("description", "")):
                assert set(PLACEHOLDER.findall(text)) <= placeholders.keys()

    entities = er.async_entries_for_config_entry(er.async_get(hass), entry.entry_id)
    assert {entity.domain for entity in entities} == {p.value for p in PLATFORMS}
    for entity in entities:
        assert entity.unique_id, entity.entity_id
        assert entity.has_entity_name, entity.entity_id
        if entity.translation_key is None:
            # The agent itself: named after its device.
            assert entity.original_name is None, entity.entity_id
        else:
            assert entity.translation_key in STRINGS["entity"][entity.domain]
            assert entity.translation_key in ICONS["entity"][entity.domain]
    assert await hass.config_entries.async_unload(entry.entry_id)


# --- quality_scale.yaml ---


@cache
def quality_scale() -> dict[str, Any]:
    rules: dict[str, Any] = load_yaml_dict(str(INTEGRATION / "quality_scale.yaml"))[
        "rules"
    ]
    return rules


def status(rule: str) -> str:
    value = quality_scale().get(rule, {"status": "missing"})
    return str(value if isinstance(value, str) else value["status"])


# hassfest's schema, except that a rule left to do must also say why.
RULE_SCHEMA = vol.Any(
    "done",
    vol.Schema({vol.Required("status"): "done", vol.Optional("comment"): str}),
    vol.Schema(
        {
            vol.Required("status"): vol.In(["exempt", "todo"]),
            vol.Required("comment"): vol.All(str, vol.Length(min=10)),
        }
    ),
)


def test_quality_scale_assesses_every_rule() -> None:
    # The rule list: every rule HA's own integrations assess.
    rules = {
        rule
        for path in CORE.glob("*/quality_scale.yaml")
        for rule in load_yaml_dict(str(path))["rules"]
    }
    assert len(rules) > 50
    assert quality_scale().keys() == rules
    for rule, value in quality_scale().items():
        try:
            RULE_SCHEMA(value)
        except vol.Invalid as err:
            pytest.fail(f"{rule}: {err}")


def defines(module_file: str, name: str) -> bool:
    return hasattr(source(module_file)[0], name)


def calls(tree: ast.AST, name: str) -> bool:
    return any(
        isinstance(node, ast.Call) and call_name(node) == name
        for node in ast.walk(tree)
    )


def definition(module_file: str, *names: str) -> ast.AST:
    """A function or class by name, within the one before it."""
    found: ast.AST = source(module_file)[1]
    for name in names:
        (found,) = (
            node
            for node in ast.walk(found)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
            and node.name == name
        )
    return found


def labels(*steps: dict[str, Any]) -> set[str]:
    return {label for step in steps for label in step["data"].values()}


def actions_set_up_with_the_domain() -> bool:
    """Actions are registered in async_setup, never per config entry."""
    in_entry_setup = any(
        calls(node, "async_register") and "services.async_register" in ast.unparse(node)
        for _, _, tree in integration_sources()
        for node in ast.walk(tree)
        if isinstance(node, ast.AsyncFunctionDef) and node.name == "async_setup_entry"
    )
    return not in_entry_setup and calls(
        definition("__init__.py", "async_setup"), "async_setup_tools"
    )


def requirements_are_typed() -> bool:
    return all(
        any(
            file.name == "py.typed"
            for file in importlib.metadata.files(Requirement(line).name) or []
        )
        for line in MANIFEST["requirements"]
    )


def common_modules() -> bool:
    """The base entity in entity.py, every coordinator in coordinator.py."""
    coordinator_homes = {
        path.name
        for path, module, _ in integration_sources()
        for value in vars(module).values()
        if isinstance(value, type)
        and issubclass(value, DataUpdateCoordinator)
        and value.__module__ == module.__name__
    }
    return coordinator_homes == {"coordinator.py"} and defines(
        "entity.py", "JarvisLLMEntity"
    )


# What can be checked of a rule claimed done, from the code and the README.
RULE_CHECKS: dict[str, Callable[[], bool]] = {
    "action-setup": actions_set_up_with_the_domain,
    "common-modules": common_modules,
    "config-entry-unloading": lambda: defines("__init__.py", "async_unload_entry"),
    "config-flow": lambda: (
        MANIFEST["config_flow"] and defines("config_flow.py", "JarvisConfigFlow")
    ),
    "diagnostics": lambda: defines(
        "diagnostics.py", "async_get_config_entry_diagnostics"
    ),
    "reauthentication-flow": lambda: calls(
        definition("config_flow.py", "JarvisConfigFlow"), "_get_reauth_entry"
    ),
    "reconfiguration-flow": lambda: calls(
        definition("config_flow.py", "JarvisConfigFlow"), "_get_reconfigure_entry"
    ),
    "runtime-data": lambda: (
        "entry.runtime_data = "
        in ast.unparse(definition("__init__.py", "async_setup_entry"))
    ),
    "parallel-updates": lambda: all(
        defines(f"{platform.value}.py", "PARALLEL_UPDATES") for platform in PLATFORMS
    ),
    "unique-config-entry": lambda: calls(
        definition("config_flow.py", "JarvisConfigFlow", "async_step_user"),
        "_async_abort_entries_match",
    ),
    "test-before-configure": lambda: calls(
        definition("config_flow.py", "JarvisConfigFlow", "async_step_user"),
        "async_check_server",
    ),
    "test-before-setup": lambda: (
        "ConfigEntryNotReady"
        in ast.unparse(definition("__init__.py", "async_setup_entry"))
    ),
    "inject-websession": lambda: calls(
        definition("__init__.py", "build_client"), "async_get_clientsession"
    ),
    "strict-typing": requirements_are_typed,
    "repair-issues": lambda: bool(STRINGS["issues"]),
    "exception-translations": lambda: bool(STRINGS["exceptions"]),
    "entity-translations": lambda: bool(STRINGS["entity"]),
    "icon-translations": lambda: bool(ICONS["entity"]) and bool(ICONS["services"]),
    # The README documents what the rules ask for.
    "docs-actions": lambda: all(
        f"`{DOMAIN}.{name}`" in README for name in services_yaml()
    ),
    "docs-installation-instructions": lambda: (
        "HACS" in README and "Custom repositories" in README
    ),
    "docs-installation-parameters": lambda: all(
        label in README for label in labels(STRINGS["config"]["step"]["user"])
    ),
    "docs-configuration-parameters": lambda: all(
        label in README
        for label in labels(
            STRINGS["options"]["step"]["init"],
            STRINGS["config_subentries"][SUBENTRY_CONVERSATION]["step"]["set_options"],
            STRINGS["config_subentries"][SUBENTRY_MCP_SERVER]["step"]["user"],
            STRINGS["config_subentries"][SUBENTRY_AI_TASK]["step"]["set_options"],
        )
    ),
    "docs-supported-functions": lambda: all(
        entity["name"] in README
        for entities in STRINGS["entity"].values()
        for entity in entities.values()
    ),
    "docs-data-update": lambda: (
        f"every {int(SERVER_CHECK_INTERVAL.total_seconds())} seconds" in README
    ),
    "docs-removal-instructions": lambda: "\n## Removing Jarvis\n" in README,
    "docs-troubleshooting": lambda: "\n## Troubleshooting\n" in README,
    "docs-known-limitations": lambda: "\n## Known limitations\n" in README,
    "docs-examples": lambda: "\n## Examples\n" in README,
    "docs-use-cases": lambda: "\n## Use cases\n" in README,
    "docs-supported-devices": lambda: "\n## Supported LLM servers\n" in README,
}


@pytest.mark.parametrize(
    "rule", [rule for rule in sorted(RULE_CHECKS) if status(rule) == "done"]
)
def test_rules_claimed_done_hold(rule: str) -> None:
    assert RULE_CHECKS[rule]()
