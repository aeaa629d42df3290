"""What a scenario is, and how a turn's outcome is judged."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
import math
import re
from typing import Any

from homeassistant.core import State

type Expected = str | Mapping[str, Any]  # a state, or attributes (key "state" too)

CATEGORIES = (
    "device",
    "state",
    "multi_step",
    "follow_up",
    "memory",
    "refusal",
    "ambiguous",
    "timer",
    "small_talk",
    "non_english",
    "foreign_home",
    "sensitive",
)

# Demo covers with a position move in steps; a cover on its way counts.
_MOVING = {"open": {"open", "opening"}, "closed": {"closed", "closing"}}


@dataclass(frozen=True, slots=True)
class Turn:
    """One user message and what must (and must not) follow from it.

    `changes` maps entity ids to the state (or attributes) they must have after
    the turn; every other exposed entity must stay as it was, except those in
    `allow`. `reply` lists any-of groups ("closed|shut"), all of which must
    appear in the reply as whole words, case-insensitively.
    """

    text: str
    changes: Mapping[str, Expected] = field(default_factory=dict)
    allow: tuple[str, ...] = ()
    reply: tuple[str, ...] = ()
    max_tool_calls: int | None = None
    timer_seconds: int | None = None  # a timer of this length must be running
    new_conversation: bool = False  # memory: asked in a fresh conversation


@dataclass(frozen=True, slots=True)
class Scenario:
    """A conversation with a home; it succeeds when every turn does."""

    id: str
    category: str
    turns: tuple[Turn, ...]
    language: str = "en"
    home: str = "en"  # the name variant of the home, see home.py
    tier: int = 1  # 0: part of `make test`

    def __post_init__(self) -> None:
        if self.category not in CATEGORIES:
            raise ValueError(f"{self.id}: unknown category {self.category!r}")


def reply_misses(reply: str, groups: tuple[str, ...]) -> list[str]:
    """The any-of groups none of whose words appear in the reply."""
    return [
        group
        for group in groups
        if not any(re.search(_word(w), reply, re.IGNORECASE) for w in group.split("|"))
    ]


def _word(word: str) -> str:
    """A whole-word pattern; edges that are punctuation ("?") need no boundary."""
    start = r"(?<!\w)" if word[0].isalnum() else ""
    end = r"(?!\w)" if word[-1].isalnum() else ""
    return start + re.escape(word) + end


def state_problems(
    before: Mapping[str, State],
    after: Mapping[str, State],
    watched: frozenset[str],
    turn: Turn,
) -> list[str]:
    """Expected changes that did not happen and watched entities that changed."""
    problems = [
        f"{entity_id}: {problem}"
        for entity_id, expected in turn.changes.items()
        if (problem := _mismatch(after.get(entity_id), expected))
    ]
    for entity_id in sorted(watched - set(turn.changes) - set(turn.allow)):
        old, new = before.get(entity_id), after.get(entity_id)
        if old is None or new is None:
            continue
        if old.state != new.state or old.attributes != new.attributes:
            problems.append(f"{entity_id}: changed to {new.state} (forbidden)")
    return problems


def _mismatch(state: State | None, expected: Expected) -> str | None:
    if state is None:
        return "missing"
    wanted = {"state": expected} if isinstance(expected, str) else dict(expected)
    for key, value in wanted.items():
        actual = state.state if key == "state" else state.attributes.get(key)
        if not _matches(actual, value):
            return f"{key} is {actual!r}, expected {value!r}"
    return None


def _matches(actual: Any, expected: Any) -> bool:
    if isinstance(expected, str):
        return actual in _MOVING.get(expected, {expected})
    if isinstance(expected, int | float) and isinstance(actual, int | float):
        # 30% brightness is 76.5 of 255, stored as 76 or 77: allow rounding.
        return math.isclose(actual, expected, rel_tol=0.02)
    return bool(actual == expected)
