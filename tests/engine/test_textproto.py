"""The text tool-call protocol: finding calls small models write as text."""

from __future__ import annotations

import pytest

from custom_components.jarvis.engine.textproto import (
    cut_call,
    normalize_tool_name,
    parse_text_reply,
    render_tool_section,
    repair_arguments,
    validate_arguments,
)
from custom_components.jarvis.engine.types import ToolSpec

TURN_ON = ("HassTurnOn", {"name": "kitchen lights"})


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "HassTurnOn", "arguments": {"name": "kitchen lights"}}',
        '```json\n{"name": "HassTurnOn", "arguments": {"name": "kitchen lights"}}\n```',
        '```tool_call\n{"name": "HassTurnOn", "arguments": {"name": "kitchen lights"}}\n```',
        '<tool_call>\n{"name": "HassTurnOn", "arguments": {"name": "kitchen lights"}}\n</tool_call>',
        'To turn it on, use: ```json {"name": "HassTurnOn", "arguments": {"name": "kitchen lights"}}```',
        'Sure! {"name": "HassTurnOn", "parameters": {"name": "kitchen lights"}}',
        '{"function": {"name": "functions.HassTurnOn", "arguments": "{\\"name\\": \\"kitchen lights\\"}"}}',
        '{"tool_calls": [{"name": "HassTurnOn", "arguments": {"name": "kitchen lights"}}]}',
        "{'name': 'HassTurnOn', 'arguments': {'name': 'kitchen lights'},}",
    ],
)
def test_calls_written_as_text_are_found_and_prose_dropped(text: str) -> None:
    parsed = parse_text_reply(text)
    assert parsed.calls == [TURN_ON]
    assert parsed.had_call_syntax
    assert "{" not in parsed.prose
    assert "use:" not in parsed.prose


def test_plain_prose_has_no_calls() -> None:
    parsed = parse_text_reply("The kitchen is 21 degrees. Anything else?")
    assert parsed.calls == []
    assert not parsed.had_call_syntax
    assert parsed.prose == "The kitchen is 21 degrees. Anything else?"


def test_two_calls_in_one_reply() -> None:
    parsed = parse_text_reply(
        '{"name": "HassTurnOn", "arguments": {"name": "a"}}\n'
        '{"name": "HassTurnOff", "arguments": {"name": "b"}}'
    )
    assert parsed.calls == [
        ("HassTurnOn", {"name": "a"}),
        ("HassTurnOff", {"name": "b"}),
    ]


@pytest.mark.parametrize(
    "junk",
    [
        '{"name": "HassTurnOn", "arguments": {"name": "kitch',
        "tool_calls: []",
        '{"tool_calls": []}',
        '```json\n{"result": "ok"}\n```',
        # A reply in a call's shape: no tool name holds a space.
        '{"name": "Say hello to my friend Anna", "arguments": {"name": "Anna"}}',
        '{"name": "Tool result from Say hello", "arguments": {"error": "x"}}',
    ],
)
def test_junk_is_flagged_and_never_left_as_prose(junk: str) -> None:
    parsed = parse_text_reply(junk)
    assert parsed.calls == []
    assert parsed.had_call_syntax
    assert parsed.prose == ""


@pytest.mark.parametrize(
    ("raw", "name"),
    [
        ("functions.HassTurnOn", "HassTurnOn"),
        ("call=HassTurnOn", "HassTurnOn"),
        ("HassTurnOn<|channel|>commentary", "HassTurnOn"),
        ("to=functions.HassTurnOn", "HassTurnOn"),
        ("`HassTurnOn()`", "HassTurnOn"),
    ],
)
def test_tool_names_are_normalised(raw: str, name: str) -> None:
    assert normalize_tool_name(raw) == name


SPEC = ToolSpec(
    "HassLightSet",
    "Sets the brightness of a light.",
    {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "brightness": {"type": "integer"},
            "domain": {"type": "array", "items": {"type": "string", "enum": ["light"]}},
        },
        "required": ["brightness"],
    },
)


def test_argument_validation() -> None:
    assert validate_arguments(SPEC, {"name": "x", "brightness": 30}) is None
    assert "missing required" in (validate_arguments(SPEC, {"name": "x"}) or "")
    assert "integer" in (validate_arguments(SPEC, {"brightness": "high"}) or "")
    assert "integer" in (validate_arguments(SPEC, {"brightness": True}) or "")
    assert "one of" in (
        validate_arguments(SPEC, {"brightness": 1, "domain": ["switch"]}) or ""
    )


def test_tool_section_lists_tools_and_arguments() -> None:
    section = render_tool_section([SPEC])
    assert '{"name": "<tool name>", "arguments": {<arguments>}}' in section
    assert "HassLightSet: Sets the brightness of a light." in section
    assert "brightness (integer)" in section
    assert "name (optional string)" in section


def test_tool_section_leaves_out_optional_arguments_of_one_value() -> None:
    pause = ToolSpec(
        "HassMediaPause",
        "Pauses a media player",
        {
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "domain": {"type": "array", "items": {"enum": ["media_player"]}},
                "device_class": {"type": "array", "items": {"enum": ["tv", "speaker"]}},
            },
        },
    )
    only = ToolSpec(
        "Reboot",
        "Reboots.",
        {"type": "object", "properties": {"mode": {"enum": ["now"]}}},
    )
    section = render_tool_section([pause, only])
    assert (
        "- HassMediaPause: Pauses a media player Arguments: name (optional "
        "string), device_class (optional list of one of tv/speaker)."
    ) in section
    assert "- Reboot: Reboots. No arguments." in section


def test_repair_fixes_small_model_slips_and_drops_bad_optionals() -> None:
    # What Qwen2.5-Coder 0.5B actually sent for "turn on the kitchen lights".
    args = {
        "name": " Kitchen Lights",
        "brightness": "30%",
        "domain": "light",
        "device_class": "light",
    }
    spec = ToolSpec(
        SPEC.name,
        SPEC.description,
        {
            **SPEC.parameters,
            "properties": {
                **SPEC.parameters["properties"],
                "device_class": {"type": "array", "items": {"enum": ["tv", "speaker"]}},
            },
        },
    )
    assert repair_arguments(spec, args) == {
        "name": "Kitchen Lights",
        "brightness": 30,
        "domain": ["light"],
    }


def test_an_optional_value_that_says_none_is_left_out() -> None:
    """0.5B sent "kill the ceiling light in the bedroom" as HassLightSet with
    "color": "None", which HA refused as invalid slot info. A choice of the
    schema called "none" stays."""
    spec = ToolSpec(
        "HassClimateSetPreset",
        "Sets a preset",
        {
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "color": {"type": "string"},
                "preset": {"type": "string", "enum": ["none", "eco"]},
            },
            "required": ["name"],
        },
    )
    args = {"name": "Ceiling Light", "color": "None", "preset": "none"}
    assert repair_arguments(spec, args) == {"name": "Ceiling Light", "preset": "none"}
    assert repair_arguments(spec, {"name": "null"}) == {"name": "null"}


@pytest.mark.parametrize(
    ("args", "repaired"),
    [
        # What 0.5B sent for "turn the ceiling lights warmer" and "make the
        # kitchen lights warmer": no target, so HA's handler refused.
        ({"entity_id": "Ceiling Lights"}, {"name": "Ceiling Lights"}),
        ({"light": "kitchen", "brightness": 40}, {"name": "kitchen", "brightness": 40}),
        # Named by the tool's own arguments, or astray in two, or by a number:
        # as it was.
        (
            {"area": "Kitchen", "light": "ceiling"},
            {"area": "Kitchen", "light": "ceiling"},
        ),
        ({"light": "kitchen", "lamp": "desk"}, {"light": "kitchen", "lamp": "desk"}),
        ({"level": "40%"}, {"level": "40%"}),
    ],
)
def test_a_target_named_under_a_made_up_argument_is_the_name(
    args: dict[str, object], repaired: dict[str, object]
) -> None:
    assert repair_arguments(SPEC, args) == repaired


@pytest.mark.parametrize(
    ("given", "repaired"),
    [
        # The tool section's "one of tv/speaker" copied whole: those choices.
        ("tv/speaker", ["tv", "speaker"]),
        (["speaker / tv"], ["speaker", "tv"]),
        # A part that is no choice: the whole is none, and is dropped.
        ("tv/light", None),
    ],
)
def test_choices_copied_from_the_tool_section_are_those_choices(
    given: object, repaired: list[str] | None
) -> None:
    spec = ToolSpec(
        "HassMediaPause",
        "Pauses a media player",
        {
            "type": "object",
            "properties": {
                "device_class": {"type": "array", "items": {"enum": ["tv", "speaker"]}}
            },
        },
    )
    fixed = repair_arguments(spec, {"device_class": given})
    assert fixed.get("device_class") == repaired


def test_tool_section_has_an_example_call() -> None:
    assert 'Example: {"name": "HassLightSet", "arguments": {"name": "..."}}' in (
        render_tool_section([SPEC])
    )


def test_the_example_call_is_one_of_the_tool_the_request_points_to() -> None:
    add = ToolSpec(
        "HassListAddItem",
        "Add item to a todo list",
        {"type": "object", "properties": {"item": {"type": "string"}}},
    )
    section = render_tool_section([SPEC, add], lead="HassListAddItem")
    assert section.endswith(
        'Example: {"name": "HassListAddItem", "arguments": {"item": "..."}}'
    )
    assert 'Example: {"name": "HassLightSet"' in render_tool_section([SPEC, add])


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "HassMediaUnpause", "arguments": {"name": "Fernseher", '
        '"device_class": "tv"}',
        '{"name": "HassMediaUnpause", "arguments": {"name": "Fernseher"',
        '{"name": "HassMediaUnpause", "arguments": {"name": "Fernseher"}\n',
    ],
)
def test_a_call_whose_closing_brackets_never_came_is_read(text: str) -> None:
    parsed = parse_text_reply(text)
    assert [name for name, _ in parsed.calls] == ["HassMediaUnpause"]
    assert parsed.calls[0][1]["name"] == "Fernseher"
    assert parsed.prose == ""


DESPACHO = (
    '{"name": "HassListAddItem", "arguments": {"item": "Despacho", '
    '"name": "Despacho", "domain": ['
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # What 0.5B wrote for "añade regar las plantas a la lista de la compra".
        (
            DESPACHO + '"Despacho", ' * 20 + '"Desp',
            ("HassListAddItem", {"item": "Despacho", "name": "Despacho"}, "domain"),
        ),
        # The first argument loops: the call has no arguments left.
        (
            '{"name": "HassTurnOn", "arguments": {"area": ' + '"x", ' * 40,
            ("HassTurnOn", {}, "area"),
        ),
        # Other values before the loop: the call without the argument, which
        # its tool may refuse to run without (HassTurnOn's domain takes many).
        (
            '{"name": "HassTurnOn", "arguments": {"domain": ["light", "switch", '
            + '"tv", "fan", ' * 20,
            ("HassTurnOn", {}, "domain"),
        ),
        # 0.5B for "starte den Staubsauger im Garten".
        (
            '{"name": "HassVacuumStart", "arguments": {"name": "Garten", "area": '
            '"Garten", "domain": ["garage", ' + '"garden", ' * 30,
            ("HassVacuumStart", {"name": "Garten", "area": "Garten"}, "domain"),
        ),
        # Too much else before it: no loop.
        (
            '{"name": "HassTurnOn", "arguments": {"domain": ['
            + ", ".join(f'"kind{n}"' for n in range(20))
            + ', "x"' * 80,
            None,
        ),
        # A loop too short to be one, and a call that ended.
        (DESPACHO + '"Despacho", ' * 5, None),
        ('{"name": "HassTurnOn", "arguments": {"name": "Lamp"}}', None),
    ],
)
def test_a_call_cut_off_in_a_loop_is_read_up_to_its_looping_argument(
    text: str, expected: tuple[str, dict[str, str], str] | None
) -> None:
    assert cut_call(text) == expected
