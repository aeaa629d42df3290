"""hacs.json and the repository layout, checked against HACS's rules for integrations."""

from __future__ import annotations

from collections.abc import Callable
import json
from pathlib import Path
from typing import Any

from awesomeversion import AwesomeVersion, AwesomeVersionStrategy
from homeassistant.const import __version__ as HA_VERSION
from homeassistant.helpers import config_validation as cv
import pytest
import voluptuous as vol

REPO = Path(__file__).resolve().parent.parent
TESTED_HA = AwesomeVersion(HA_VERSION)


def ha_release(value: Any) -> str:
    """A Home Assistant release (CalVer) no newer than the one the tests run on."""
    version = AwesomeVersion(str(value))
    if version.strategy is not AwesomeVersionStrategy.CALVER:
        raise vol.Invalid(f"{value!r} is not a Home Assistant version")
    if version > TESTED_HA:
        raise vol.Invalid(f"{value} is newer than the tested {TESTED_HA}")
    return str(value)


def zip_release_needs_filename(config: dict[str, Any]) -> dict[str, Any]:
    if config.get("zip_release") and not config.get("filename"):
        raise vol.Invalid("zip_release needs filename (the release asset's name)")
    return config


COUNTRY = vol.Match(r"^[A-Z]{2}$")  # ISO 3166-1 alpha-2

# The keys HACS documents for hacs.json, with their types; any other key is an
# error to HACS's validation.
HACS_JSON_SCHEMA = vol.All(
    vol.Schema(
        {
            vol.Required("name"): str,
            vol.Optional("content_in_root"): bool,
            vol.Optional("country"): vol.Any(COUNTRY, [COUNTRY]),
            vol.Optional("filename"): str,
            vol.Optional("hacs"): str,
            vol.Optional("hide_default_branch"): bool,
            vol.Optional("homeassistant"): ha_release,
            vol.Optional("persistent_directory"): str,
            vol.Optional("render_readme"): bool,
            vol.Optional("zip_release"): bool,
        },
        extra=vol.PREVENT_EXTRA,
    ),
    zip_release_needs_filename,
)

# What HACS requires of the integration's manifest.json.
HACS_MANIFEST_SCHEMA = vol.Schema(
    {
        vol.Required("codeowners"): [str],
        vol.Required("documentation"): cv.url,
        vol.Required("domain"): str,
        vol.Required("issue_tracker"): cv.url,
        vol.Required("name"): str,
        vol.Required("version"): str,
    },
    extra=vol.ALLOW_EXTRA,
)


def hacs_json() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((REPO / "hacs.json").read_text())
    return data


def test_hacs_json_follows_hacs_rules() -> None:
    data = hacs_json()
    HACS_JSON_SCHEMA(data)
    # What this project promises: a name, the oldest HA it supports, and the
    # README as the store page.
    assert {"name", "homeassistant", "render_readme"} <= data.keys()
    assert data["render_readme"] is True
    assert (REPO / "README.md").is_file()


def test_repository_holds_the_one_integration_hacs_installs() -> None:
    assert hacs_json().get("content_in_root", False) is False
    integrations = [
        path
        for path in (REPO / "custom_components").iterdir()
        if (path / "manifest.json").is_file()
    ]
    assert [path.name for path in integrations] == ["jarvis"]
    manifest = json.loads((integrations[0] / "manifest.json").read_text())
    HACS_MANIFEST_SCHEMA(manifest)
    assert manifest["domain"] == integrations[0].name


def _set(key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    return lambda data: data.__setitem__(key, value)


@pytest.mark.parametrize(
    "breakage",
    [
        lambda data: data.pop("name"),
        _set("domains", ["conversation"]),  # removed from HACS long ago
        _set("render_readme", "yes"),
        _set("homeassistant", "latest"),
        _set("homeassistant", "2099.1.0"),
        _set("zip_release", True),
        _set("country", "Germany"),
    ],
    ids=[
        "no name",
        "unknown key",
        "render_readme not a bool",
        "homeassistant not a version",
        "homeassistant newer than tested",
        "zip_release without filename",
        "country not a code",
    ],
)
def test_hacs_rules_reject_a_broken_file(
    breakage: Callable[[dict[str, Any]], None],
) -> None:
    data = hacs_json()
    breakage(data)
    with pytest.raises(vol.Invalid):
        HACS_JSON_SCHEMA(data)
