"""What a tool result says about how the call went: one notion for the engine,
the safety rules and telemetry alike."""

from __future__ import annotations

from collections.abc import Mapping

from .text import folded_words, lower_words, singular


def failed(result: Mapping[str, object]) -> bool:
    """Whether a tool result reports a failure: an error, `success: false`, or
    an intent's error response."""
    return (
        "error" in result
        or result.get("success") is False
        or result.get("response_type") == "error"
    )


# Errors of a call that ran nothing because its tool, arguments or target
# were wrong ("MatchFailedError" is HA's for a name nothing has): a later
# call of the turn may put it right. A device's own failure is not one.
UNKNOWN_TOOL = "unknown_tool"
INVALID_ARGUMENTS = "invalid_arguments"
REPEATED_CALL = "repeated_call"
WRONG_TOOL = "wrong_tool"
WRONG_STATE = "wrong_state"
NO_MATCH = "MatchFailedError"
MISCALLED = frozenset(
    {UNKNOWN_TOOL, INVALID_ARGUMENTS, REPEATED_CALL, WRONG_TOOL, WRONG_STATE, NO_MATCH}
)


def miscalled(result: Mapping[str, object]) -> bool:
    """Whether the call ran nothing for being made wrongly (`MISCALLED`)."""
    return result.get("error") in MISCALLED


def took_words_for_a_device(
    result: Mapping[str, object], arguments: Mapping[str, object], request: str
) -> bool:
    """Whether a call named, as a device the home lacks, words the user said:
    "Anna" of "say hello to my friend Anna". Not the example call's "...",
    which the model copies when it has nothing to call, nor the place the
    call gives as well ("Living Room" as name and area of a thermostat the
    living room lacks: no device called Living Room was asked for)."""
    name = arguments.get("name")
    # "porch_light" is "porch light", as an entity id writes it.
    named = lower_words(name.replace("_", " ")) if isinstance(name, str) else []
    places = [
        lower_words(place)
        for key in ("area", "floor")
        if isinstance(place := arguments.get(key), str)
    ]
    return (
        result.get("error") == NO_MATCH
        and bool(named)
        # "curtain" of "close the curtains" is the user's word too.
        and {singular(word) for word in named} <= folded_words(request)
        and named not in places
    )
