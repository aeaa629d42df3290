"""What a tool result says about how the call went: one notion for the engine,
the safety rules and telemetry alike."""

from __future__ import annotations

from collections.abc import Mapping


def failed(result: Mapping[str, object]) -> bool:
    """Whether a tool result reports a failure: an error, `success: false`, or
    an intent's error response."""
    return (
        "error" in result
        or result.get("success") is False
        or result.get("response_type") == "error"
    )
