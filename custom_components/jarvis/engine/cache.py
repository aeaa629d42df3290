"""The conversation-scoped cache of planner, router and memory results.

People repeat themselves within a conversation ("turn the kitchen light on"
... "turn the kitchen light on"), and on a CPU the plan is a whole LLM call.
Results are keyed by the request and a signature of the tool catalogue, so a
changed catalogue (an MCP server came back, memory tools joined) misses. Not
cached: a router result that fell open to every tool, and empty or failed
plans. The loop clears the cache on a new conversation and on stop.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
import hashlib
import json
import time

from .memory import Fact
from .planner import Plan, PlanStep, grounded
from .router import Route
from .types import ToolSpec

# Entries of each kind per conversation, oldest dropped first.
MAX_ENTRIES = 32
# Conversations kept at once, and how long an idle one is kept (Home
# Assistant ends a conversation after 5 idle minutes).
MAX_CONVERSATIONS = 32
IDLE_SECONDS = 600.0


def catalogue_signature(tools: Sequence[ToolSpec]) -> str:
    """A short fingerprint of the tools: names, descriptions and schemas."""
    text = json.dumps(
        [[tool.name, tool.description, tool.parameters] for tool in tools],
        sort_keys=True,
        default=str,
    )
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _query(text: str) -> str:
    """Requests that differ only in case, spacing or end punctuation meet."""
    return " ".join(text.casefold().split()).strip(" .!?¿¡")


def _remember[K, V](entries: OrderedDict[K, V], key: K, value: V) -> None:
    entries[key] = value
    entries.move_to_end(key)
    while len(entries) > MAX_ENTRIES:
        entries.popitem(last=False)


class ConversationCache:
    """Planner, router and memory-recall results of one conversation."""

    def __init__(self) -> None:
        self._plans: OrderedDict[tuple[str, str], Plan] = OrderedDict()
        self._routes: OrderedDict[tuple[str, str, tuple[str, ...]], Route] = (
            OrderedDict()
        )
        self._facts: OrderedDict[tuple[str, str, int], list[Fact]] = OrderedDict()

    def clear(self) -> None:
        """Forget everything (a new conversation, or the user said stop)."""
        self._plans.clear()
        self._routes.clear()
        self._facts.clear()

    def plan(self, request: str, tools: Sequence[ToolSpec]) -> Plan | None:
        """The plan made for this request and catalogue, if any."""
        plan = self._plans.get((_query(request), catalogue_signature(tools)))
        return None if plan is None else Plan(list(plan.steps))

    def keep_plan(self, request: str, tools: Sequence[ToolSpec], plan: Plan) -> None:
        """Keep a usable plan. Arguments the request does not itself contain
        came from the dialogue ("turn it off"), so they are not kept: the same
        words later in the conversation may mean another device."""
        if not plan.steps:
            return
        steps = [
            step
            if step.arguments is None or grounded(step.arguments, request)
            else PlanStep(step.action)
            for step in plan.steps
        ]
        _remember(
            self._plans, (_query(request), catalogue_signature(tools)), Plan(steps)
        )

    def route(
        self, text: str, tools: Sequence[ToolSpec], keep: Sequence[str]
    ) -> Route | None:
        """The route chosen for this text, catalogue and kept tools, if any."""
        return self._routes.get((_query(text), catalogue_signature(tools), tuple(keep)))

    def keep_route(
        self, text: str, tools: Sequence[ToolSpec], keep: Sequence[str], route: Route
    ) -> None:
        """Keep a route, unless it fell open to every tool."""
        if route.fell_open:
            return
        key = (_query(text), catalogue_signature(tools), tuple(keep))
        _remember(self._routes, key, route)

    def facts(self, user: str, request: str, revision: int) -> list[Fact] | None:
        """Facts recalled for this request from this revision of the memory."""
        return self._facts.get((user, _query(request), revision))

    def keep_facts(
        self, user: str, request: str, revision: int, facts: list[Fact]
    ) -> None:
        """Keep what a recall found."""
        _remember(self._facts, (user, _query(request), revision), facts)


class ConversationCaches:
    """One cache per conversation id, for the conversations still going."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._caches: OrderedDict[str, tuple[float, ConversationCache]] = OrderedDict()

    def get(self, conversation_id: str) -> ConversationCache:
        """The cache of this conversation; a new one for a new conversation."""
        now = self._clock()
        for stale, (seen, _) in list(self._caches.items()):
            if now - seen > IDLE_SECONDS:
                del self._caches[stale]
        _, cache = self._caches.pop(conversation_id, (now, ConversationCache()))
        self._caches[conversation_id] = (now, cache)
        while len(self._caches) > MAX_CONVERSATIONS:
            self._caches.popitem(last=False)
        return cache
