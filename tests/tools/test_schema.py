"""MCP tool schemas become llm.Tool parameters without losing their shape."""

from __future__ import annotations

from typing import Any

from homeassistant.helpers import llm
import voluptuous as vol
from voluptuous_openapi import convert

from custom_components.jarvis.const import MAX_TOOL_NAME
from custom_components.jarvis.tools.mcp import schema_to_vol, tool_name

# What FastMCP (pydantic) sends for the test server's `plan` tool.
PLAN = {
    "$defs": {
        "Color": {"enum": ["red", "blue"], "title": "Color", "type": "string"},
        "Point": {
            "properties": {
                "x": {"title": "X", "type": "number"},
                "y": {"default": 0, "title": "Y", "type": "number"},
            },
            "required": ["x"],
            "title": "Point",
            "type": "object",
        },
    },
    "properties": {
        "mode": {"enum": ["fast", "slow"], "title": "Mode", "type": "string"},
        "color": {"$ref": "#/$defs/Color"},
        "points": {
            "items": {"$ref": "#/$defs/Point"},
            "title": "Points",
            "type": "array",
        },
        "origin": {"$ref": "#/$defs/Point"},
        "count": {
            "default": 3,
            "description": "How many",
            "maximum": 9,
            "minimum": 1,
            "title": "Count",
            "type": "integer",
        },
        "note": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
    },
    "required": ["mode", "color", "points", "origin"],
    "title": "planArguments",
    "type": "object",
}


def round_trip(schema: dict[str, Any]) -> dict[str, Any]:
    """Converted, then serialised as Jarvis sends tools to the model."""
    result: dict[str, Any] = convert(
        schema_to_vol(schema), custom_serializer=llm.selector_serializer
    )
    return result


def test_enums_refs_nesting_arrays_and_required_survive() -> None:
    schema = round_trip(PLAN)
    props = schema["properties"]
    assert set(schema["required"]) == {"mode", "color", "points", "origin"}
    assert props["mode"] == {"type": "string", "enum": ["fast", "slow"]}
    assert props["color"] == {"type": "string", "enum": ["red", "blue"]}
    point = {
        "type": "object",
        "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
        "required": ["x"],
    }
    assert props["origin"] == point
    assert props["points"] == {"type": "array", "items": point}
    assert props["count"] == {
        "type": "integer",
        "minimum": 1,
        "maximum": 9,
        "description": "How many",
    }
    assert props["note"] == {"type": "string", "nullable": True}


def test_validation_follows_the_schema() -> None:
    validator = schema_to_vol(PLAN)
    good = {"mode": "fast", "color": "red", "points": [{"x": 1}], "origin": {"x": 0}}
    assert validator(good) == good
    for bad in (
        {**good, "mode": "warp"},
        {**good, "count": 10},
        {key: value for key, value in good.items() if key != "origin"},
        {**good, "origin": {"y": 1}},
    ):
        try:
            validator(bad)
        except vol.Invalid:
            continue
        raise AssertionError(f"accepted {bad}")


def test_other_shapes() -> None:
    schema = round_trip(
        {
            "type": "object",
            "properties": {
                "tags": {"type": "array", "items": {"type": "string"}},
                "level": {"type": ["integer", "null"]},
                "const": {"const": "fixed"},
                "meta": {"type": "object", "additionalProperties": True},
                "zero": {"type": "number", "minimum": 0},
            },
        }
    )
    props = schema["properties"]
    assert props["tags"] == {"type": "array", "items": {"type": "string"}}
    assert props["level"] == {"type": "integer", "nullable": True}
    assert props["const"] == {"type": "string", "enum": ["fixed"]}
    assert props["meta"]["type"] == "object"
    assert props["zero"] == {"type": "number", "minimum": 0}


def test_tool_names_are_namespaced_safe_and_short() -> None:
    assert tool_name("weather", "get.forecast/today") == "weather__get_forecast_today"
    long = tool_name("a_very_long_slug", "x" * 80)
    assert len(long) == MAX_TOOL_NAME
    assert long != tool_name("a_very_long_slug", "x" * 81)
    # Merged with Assist, HA prefixes "jarvis-tools__": still within 64.
    assert len(f"jarvis-tools__{long}") == 64
