"""The text tool-call protocol: for models that write their tool calls as text.

Small models (Qwen2.5-Coder 0.5B/1.5B among them) never fill `tool_calls`; they
write the call as bare JSON, in a ```json fence, in <tool_call> tags, or wrapped
in prose. This module finds such calls, normalises tool names, and renders the
tool catalogue into the system prompt for models on this protocol.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
import json
import re
from typing import Any

from .types import JsonObject, Message, ToolCall, ToolSpec

_FENCE_RE = re.compile(r"```[ \t]*([\w-]*)[ \t]*\n?(.*?)(?:```|\Z)", re.DOTALL)
_TAG_RE = re.compile(
    r"<(tool_call|function_call|tool|function)>(.*?)(?:</\1>|\Z)", re.DOTALL
)
_NAME_KEYS = ("name", "tool", "tool_name", "function", "function_name")
_ARG_KEYS = ("arguments", "parameters", "args", "tool_args", "input", "params")
_EMPTY_CALLS_RE = re.compile(r"""["']?tool_calls["']?\s*[:=]\s*\[\s*\]""")
# An argument's name in a call, and the opening of its value if a list.
_KEY_RE = re.compile(r'([{,])\s*"([A-Za-z_]\w*)"\s*:\s*\[?')
_NUMBER_RE = re.compile(r"[-+]?\d+(?:[.,]\d+)?\s*%?")
# The arguments HA's intents name their targets by.
_NAMING_ARGUMENTS = ("name", "area", "floor")
# An optional argument's value that says it has none ("floor": "None").
_NULL_WORDS = frozenset({"none", "null", "nil", "undefined"})
# A loop: a unit of at most MAX_LOOP_UNIT characters over MIN_LOOP_CHARS
# (shorter repeats may be meant: "ha ha ha ha ha ha").
MAX_LOOP_UNIT = 64
MIN_LOOP_CHARS = 120
# Markers that mean a reply may be (or contain) a call written as text.
CALL_MARKERS = ("{", "```", "<tool", "<function", "tool_call")


@dataclass(frozen=True, slots=True)
class ParsedText:
    """A model reply split into the calls it wrote and the prose around them."""

    calls: list[tuple[str, JsonObject]]
    prose: str
    # JSON or call syntax was present, even if no usable call came out of it.
    had_call_syntax: bool


def normalize_tool_name(raw: str) -> str:
    """Undo the decorations models put around tool names.

    Handles `functions.x`, `call=x`, `to=functions.x`, `x<|channel|>commentary`,
    quotes, backticks and a trailing `()`.
    """
    name = raw.strip().strip("`'\" ")
    name = name.split("<|", 1)[0]
    for prefix in ("to=", "call=", "call:", "functions.", "function.", "tools."):
        if name.lower().startswith(prefix):
            name = name[len(prefix) :]
    if name.endswith("()"):
        name = name[:-2]
    return name.strip()


def find_tool(name: str, tools: Iterable[ToolSpec]) -> ToolSpec | None:
    """The tool a model meant; models copy namespaces loosely
    ("assistant__HassTurnOn" for HassTurnOn, "HassTurnOn" for "assist__HassTurnOn")."""
    bare = name.rsplit("__", 1)[-1].lower()
    return next(
        (
            tool
            for tool in tools
            if tool.name.lower() in (name.lower(), bare)
            or tool.name.lower().endswith(f"__{bare}")
        ),
        None,
    )


_NAME_WORD_RE = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")


def _name_words(name: str) -> frozenset[str]:
    """A tool name's words: "HassMediaPlayerPause": hass, media, player, pause."""
    return frozenset(w.lower() for w in _NAME_WORD_RE.findall(name.rsplit("__", 1)[-1]))


def loosely_named(name: str, tools: Iterable[ToolSpec]) -> ToolSpec | None:
    """The one tool whose name's words are the most of a made-up name's
    words and no others: 1.5B called "HassMediaPlayerPause" (after
    HassMediaPlayerMute) for HassMediaPause."""
    said = _name_words(name)
    fitting = [
        (len(words), tool)
        for tool in tools
        if (words := _name_words(tool.name)) and words <= said
    ]
    most = max((size for size, _ in fitting), default=0)
    best = [tool for size, tool in fitting if size == most]
    return best[0] if len(best) == 1 else None


def parse_text_reply(text: str) -> ParsedText:
    """Find tool calls written as text and return them with the remaining prose."""
    calls: list[tuple[str, JsonObject]] = []
    spans: list[tuple[int, int]] = []
    had_syntax = bool(_EMPTY_CALLS_RE.search(text))

    for match in [*_TAG_RE.finditer(text), *_FENCE_RE.finditer(text)]:
        if any(start <= match.start() < end for start, end in spans):
            continue
        body = match.group(2)
        found = list(_calls_in_json_values(_json_values(body)))
        lang = match.group(1).lower()
        is_code = match.re is _TAG_RE or lang in ("json", "tool_call", "tool", "")
        if found or (is_code and body.lstrip().startswith(("{", "["))):
            had_syntax = True
            calls.extend(found)
            spans.append(match.span())

    rest = _cut(text, spans)
    for start, end, value in _bare_json(rest):
        found = list(_calls_in_json_values([value]))
        if found or isinstance(value, (dict, list)):
            had_syntax = True
            calls.extend(found)
            spans.append((start, end))
            rest = rest[:start] + " " * (end - start) + rest[end:]
    if "{" in rest and re.search(r"\{\s*\"", rest):
        # An unterminated object: truncated JSON must never reach the user.
        had_syntax = True
        rest = rest[: rest.index("{")]

    prose = _EMPTY_CALLS_RE.sub(" ", rest)
    return ParsedText(calls=calls, prose=_tidy(prose), had_call_syntax=had_syntax)


def cut_call(text: str) -> tuple[str, JsonObject, str] | None:
    """The call a reply stuck in a loop was writing, without the argument it
    was cut off in, and that argument's name. None unless everything after
    that argument's name is one unit said again and again (0.5B wrote
    `"domain": ["Despacho", "Despacho", ...` to its token limit)."""
    keys = list(_KEY_RE.finditer(text))
    if not keys or not _loops(text[keys[-1].end() :]):
        return None
    last = keys[-1]
    head = text[: last.start() + (1 if last.group(1) == "{" else 0)]
    if (start := head.find("{")) == -1:
        return None
    value, _ = _lenient_decode(head, start)
    calls = list(_calls_in_json_values([value]))
    return (*calls[0], last.group(2)) if len(calls) == 1 else None


def _loops(text: str) -> bool:
    """Whether a text is one unit of a few characters said again and again,
    after at most a unit's length of other words: 0.5B wrote `"domain":
    ["garage", "garden", "garden", ...`. Whether the call may run without
    that argument is its tool's to say (`ModelStep._looped_call`)."""
    return any(
        len(tail := text[start:]) >= MIN_LOOP_CHARS
        and any(tail[:-unit] == tail[unit:] for unit in range(2, MAX_LOOP_UNIT + 1))
        for start in range(min(MAX_LOOP_UNIT, len(text)) + 1)
    )


def first_json_object(text: str) -> JsonObject | None:
    """The first JSON object in a text, read as leniently as calls are."""
    return next(
        (value for _, _, value in _bare_json(text) if isinstance(value, dict)), None
    )


def looks_like_call_syntax(text: str) -> bool:
    """Cheap check used while streaming: could this text contain a call?"""
    return any(marker in text for marker in CALL_MARKERS)


def _cut(text: str, spans: Sequence[tuple[int, int]]) -> str:
    out = text
    for start, end in sorted(spans, reverse=True):
        out = out[:start] + " " * (end - start) + out[end:]
    return out


def _tidy(prose: str) -> str:
    prose = re.sub(r"[ \t]+", " ", prose)
    prose = re.sub(r"\s*\n\s*", "\n", prose).strip()
    # Lead-ins such as "To turn it off, use:" mean nothing without their call.
    return re.sub(r"[^.!?\n]*:\s*$", "", prose).strip()


def _json_values(body: str) -> list[Any]:
    body = body.strip()
    try:
        return [json.loads(body)]
    except json.JSONDecodeError:
        return [value for _, _, value in _bare_json(body)]


def _bare_json(text: str) -> Iterator[tuple[int, int, Any]]:
    """Yield (start, end, value) for each JSON object or array embedded in text."""
    decoder = json.JSONDecoder()
    index = 0
    while (start := _next_open(text, index)) != -1:
        try:
            value, end = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            value, end = _lenient_decode(text, start)
            if value is None:
                index = start + 1
                continue
        yield start, end, value
        index = end


def _next_open(text: str, index: int) -> int:
    positions = [p for p in (text.find("{", index), text.find("[", index)) if p != -1]
    return min(positions) if positions else -1


def _lenient_decode(text: str, start: int) -> tuple[Any, int]:
    """Accept the commonest small-model slips: single quotes, trailing commas,
    and a call whose closing brackets never came (0.5B stopped after
    `"device_class": "tv"}`)."""
    closers: list[str] = []
    quoted = False
    for pos in range(start, len(text)):
        char = text[pos]
        if quoted:
            quoted = char != '"' or text[pos - 1] == "\\"
        elif char == '"':
            quoted = True
        elif char in "{[":
            closers.append("}" if char == "{" else "]")
        elif char in "}]":
            if not closers or closers.pop() != char:
                return None, start
            if not closers:
                return _repaired(text[start : pos + 1]), pos + 1
    if closers and not quoted and not text[start:].rstrip().endswith((",", ":")):
        return _repaired(text[start:].rstrip() + "".join(reversed(closers))), len(text)
    return None, start


def _repaired(candidate: str) -> Any:
    repaired = re.sub(r",\s*([}\]])", r"\1", candidate)
    if '"' not in repaired:
        repaired = repaired.replace("'", '"')
    try:
        return json.loads(repaired)
    except json.JSONDecodeError:
        return None


def _calls_in_json_values(values: Sequence[Any]) -> Iterator[tuple[str, JsonObject]]:
    for value in values:
        if isinstance(value, list):
            yield from _calls_in_json_values(value)
        elif isinstance(value, dict):
            if isinstance(value.get("tool_calls"), list):
                yield from _calls_in_json_values(value["tool_calls"])
            elif (call := _call_from_object(value)) is not None:
                yield call


def _call_from_object(obj: Mapping[str, Any]) -> tuple[str, JsonObject] | None:
    function = obj.get("function")
    if isinstance(function, dict):
        return _call_from_object(function)
    name = next((obj[k] for k in _NAME_KEYS if isinstance(obj.get(k), str)), None)
    # No tool name holds a space: {"name": "Say hello to Anna", ...} is a
    # reply in a call's shape, to be asked for again in words.
    if not name or any(char.isspace() for char in normalize_tool_name(name)):
        return None
    args: Any = next((obj[k] for k in _ARG_KEYS if k in obj), None)
    if args is None:
        # Some models flatten the arguments next to the name.
        args = {k: v for k, v in obj.items() if k not in (*_NAME_KEYS, "type", "id")}
    if isinstance(args, str):
        try:
            args = json.loads(args) if args.strip() else {}
        except json.JSONDecodeError:
            return None
    if not isinstance(args, dict):
        return None
    return normalize_tool_name(name), args


# --- Rendering the protocol for the model -------------------------------------


def render_tool_section(tools: Sequence[ToolSpec], lead: str | None = None) -> str:
    """The system-prompt section that teaches a model the text protocol; its
    example call is one of the `lead` tool, if listed, else of the first."""
    lines = [
        "## Tools",
        "To use a tool, reply with ONLY one JSON object and no other text:",
        '{"name": "<tool name>", "arguments": {<arguments>}}',
        "Use a tool only when the request needs it; otherwise answer in plain words.",
        "Include only the arguments the request needs, and copy device, area "
        "and floor names exactly as the home lists them.",
        "After a tool result arrives, answer the user in one short plain sentence, "
        "or call the next tool if the request needs more.",
        "Available tools:",
    ]
    lines.extend(f"- {tool.name}: {_describe_tool(tool)}" for tool in tools)
    leading = [tool for tool in tools if tool.name == lead]
    if example := _example_call([*leading, *tools]):
        lines.append(f"Example: {example}")
    return "\n".join(lines)


def _example_call(tools: Sequence[ToolSpec]) -> str | None:
    """A one-argument call of a listed tool: small models copy the shape."""
    for tool in tools:
        properties: dict[str, Any] = tool.parameters.get("properties") or {}
        for name, schema in properties.items():
            if schema.get("type") == "string" and "enum" not in schema:
                return json.dumps({"name": tool.name, "arguments": {name: "..."}})
    return None


def _describe_tool(tool: ToolSpec) -> str:
    description = tool.description.strip().split("\n", 1)[0]
    properties: dict[str, Any] = tool.parameters.get("properties") or {}
    required = set(tool.parameters.get("required") or ())
    parts = [
        f"{name} ({'' if name in required else 'optional '}{_schema_kind(schema)})"
        for name, schema in properties.items()
        # An optional argument of one allowed value says nothing the tool's
        # name does not ("domain: one of media_player"), costs tokens every
        # turn, and 0.5B looped in it.
        if name in required or not one_value(schema)
    ]
    if not parts:
        return f"{description} No arguments."
    return f"{description} Arguments: {', '.join(parts)}."


def one_value(schema: Mapping[str, Any]) -> bool:
    """Whether an argument allows one value only (or a list of it)."""
    if schema.get("type") == "array":
        schema = schema.get("items") or {}
    return len(schema.get("enum") or ()) == 1


def _schema_kind(schema: Mapping[str, Any]) -> str:
    if "enum" in schema:
        return "one of " + "/".join(str(v) for v in schema["enum"][:8])
    kind = schema.get("type")
    if kind == "array":
        return f"list of {_schema_kind(schema.get('items') or {})}"
    if isinstance(kind, str):
        return kind
    for key in ("anyOf", "oneOf"):
        if options := schema.get(key):
            return " or ".join(_schema_kind(option) for option in options)
    return "value"


def render_messages_for_text_protocol(messages: Sequence[Message]) -> list[Message]:
    """Rewrite native tool turns as plain text for servers that get no `tools`."""
    out: list[Message] = []
    for message in messages:
        if message.role == "assistant" and message.tool_calls:
            written = "\n".join(
                json.dumps({"name": call.name, "arguments": call.arguments})
                for call in message.tool_calls
            )
            out.append(Message("assistant", written))
        elif message.role == "tool":
            out.append(Message("user", tool_result_text(message)))
        else:
            out.append(message)
    return out


def tool_result_text(message: Message) -> str:
    """A tool result as a text-protocol model reads it."""
    return (
        f"Tool result from {message.name or 'the tool'}: {message.content}\n"
        "(This is a tool result, not the user. If the request is done, reply to "
        "the user in one short plain sentence; otherwise call the next tool.)"
    )


def repair_arguments(tool: ToolSpec, args: JsonObject) -> JsonObject:
    """Fix the argument slips small models make, before validation.

    Strings are trimmed, a scalar given for a list becomes a one-item list,
    numeric strings become numbers, and optional arguments that still do not
    fit the schema are dropped (a 0.5B model fills every optional slot with
    guesses, which would otherwise make the whole call fail).
    """
    properties: dict[str, Any] = tool.parameters.get("properties") or {}
    required = set(tool.parameters.get("required") or ())
    repaired: JsonObject = {}
    for name, value in args.items():
        schema = properties.get(name)
        if schema is None:
            repaired[name] = value
            continue
        fixed = _coerce(value, schema)
        if name in required or (
            _check_value(name, fixed, schema) is None and not _null(fixed, schema)
        ):
            repaired[name] = fixed
    return _named_astray(properties, repaired)


def _null(value: Any, schema: Mapping[str, Any]) -> bool:
    """Whether a value is a null written out, for a schema that has no such
    choice: 0.5B filled HassLightSet's colour with "None", which HA refused."""
    return (
        isinstance(value, str)
        and value.casefold() in _NULL_WORDS
        and value not in schema.get("enum", ())
    )


def _named_astray(properties: Mapping[str, Any], args: JsonObject) -> JsonObject:
    """A call that names nothing by the tool's naming arguments, with one
    word-valued argument the tool does not take: that is its name (0.5B
    wrote "entity_id": "Ceiling Lights" and "light": "kitchen" to
    HassLightSet, which then had no target)."""
    if "name" not in properties or any(key in args for key in _NAMING_ARGUMENTS):
        return args
    astray = [
        key
        for key, value in args.items()
        if key not in properties
        and isinstance(value, str)
        and value.strip()
        and not _NUMBER_RE.fullmatch(value.strip())
    ]
    if len(astray) != 1:
        return args
    (key,) = astray
    return {k: v for k, v in args.items() if k != key} | {"name": args[key]}


def _choices_copied(value: Any, schema: Mapping[str, Any]) -> list[str]:
    """The choices of a value written as the tool section lists them
    ("receiver/speaker/tv", copied from "one of receiver/speaker/tv"), if
    each is one of the schema's; else none."""
    if not isinstance(value, str) or "/" not in value:
        return []
    parts = [part.strip() for part in value.split("/")]
    return parts if all(part in schema.get("enum", ()) for part in parts) else []


def _coerce(value: Any, schema: Mapping[str, Any]) -> Any:
    if isinstance(value, str):
        value = value.strip()
    kind = schema.get("type")
    if kind == "array":
        items = schema.get("items") or {}
        values = value if isinstance(value, list) else [value]
        return [
            _coerce(choice, items)
            for item in values
            for choice in _choices_copied(item, items) or [item]
        ]
    if kind in ("integer", "number") and isinstance(value, str):
        try:
            number = float(value.rstrip("%"))
        except ValueError:
            return value
        return int(number) if kind == "integer" or number.is_integer() else number
    return value


def validate_arguments(tool: ToolSpec, args: JsonObject) -> str | None:
    """Check arguments against the tool's JSON schema; return a problem or None."""
    properties: dict[str, Any] = tool.parameters.get("properties") or {}
    for name in tool.parameters.get("required") or ():
        if name not in args:
            return f"missing required argument '{name}'"
    for name, value in args.items():
        if name not in properties:
            if properties and tool.parameters.get("additionalProperties") is False:
                return f"unknown argument '{name}'; valid: {', '.join(properties)}"
            continue
        if problem := _check_value(name, value, properties[name]):
            return problem
    return None


_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
}


def _check_value(name: str, value: Any, schema: Mapping[str, Any]) -> str | None:
    if "enum" in schema and value not in schema["enum"]:
        options = ", ".join(str(v) for v in schema["enum"])
        return f"argument '{name}' must be one of: {options}"
    kind = schema.get("type")
    if isinstance(kind, str) and kind in _JSON_TYPES:
        is_bool = isinstance(value, bool)
        if not isinstance(value, _JSON_TYPES[kind]) or (
            is_bool and kind in ("integer", "number")
        ):
            return f"argument '{name}' must be a {kind}"
        if isinstance(value, list) and isinstance(schema.get("items"), dict):
            for item in value:
                if problem := _check_value(name, item, schema["items"]):
                    return problem
    return None


def new_call(index: int, name: str, args: JsonObject) -> ToolCall:
    """A ToolCall for a call parsed from text (text calls carry no id)."""
    return ToolCall(id=f"text_call_{index}", name=name, arguments=args)
