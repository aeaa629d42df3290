"""The tool router: a small per-turn allow-list instead of the whole catalogue.

Small models choose better among few tools, and on a CPU every tool listed in
the prompt costs prompt-processing time. The router scores tools against the
request (words of the tool's name, description and arguments, plus a small
multilingual lexicon of household verbs) and keeps the best few. A
`tool_search` tool lets the model widen its tools mid-loop.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
import functools
import re

from .lang import LANGUAGES, bare_verbs, every, folded_verbs, language_pack
from .text import any_of, lower_words
from .types import ToolSpec

TOOL_SEARCH = "tool_search"
TOOL_SEARCH_SPEC = ToolSpec(
    TOOL_SEARCH,
    "Find more tools when none of the listed ones fits the request.",
    {
        "type": "object",
        "properties": {"query": {"type": "string", "description": "what to do"}},
        "required": ["query"],
    },
)

# Tool-name fragments of Home Assistant's intents and common MCP tools, with
# the words of every language that point to them, and signs that say as much.
_SIGNS: Mapping[str, tuple[str, ...]] = {
    "lightset": ("%",),
    "setposition": ("%",),
    "setvolume": ("%",),
    "getlivecontext": ("?",),
}


# Words for every device point to no tool either: Spanish "del todo" (fully)
# brought the to-do tools, whose description says "todo list".
_STOPWORDS = frozenset(every(lambda pack: (*pack.stopwords, *pack.everything)))
# Words that say a request is a question, or nothing at all, not what for.
_NOT_TELLING = _STOPWORDS | frozenset(every(lambda pack: pack.question_starts))
# "Prozent", "percent": a level, whatever kind of device, as "%" is.
_PERCENT_WORDS = tuple(
    phrase.split()[-1] for phrase in every(lambda pack: pack.percent_words)
)


# Topics whose words include the ways a level steps or a device turns
# (`Language.ways`), where one word says it: "make the kitchen lights
# brighter" had offered no light tool, "kill the fan" fit no off tool, and
# 0.5B's HassMediaNext for "stop the music in the garage" no other tool.
_STEPPED: Mapping[str, tuple[str, ...]] = {
    "lightset": ("brighter", "dimmer"),
    "climate": ("warmer", "cooler"),
    "turnon": ("on",),
    "turnoff": ("off",),
    "pause": ("stop",),
}


def _topic_words(topic: str) -> tuple[str, ...]:
    signs = _SIGNS.get(topic, ())
    levels = _PERCENT_WORDS if "%" in signs else ()
    steps = every(
        lambda pack: [
            word
            for way in _STEPPED.get(topic, ())
            for word in pack.ways[way]
            if " " not in word
        ]
    )
    return every(lambda pack: pack.tool_topics[topic]) + signs + levels + steps


_LEXICON = {topic: _topic_words(topic) for topic in LANGUAGES[0].tool_topics}

# Topics a step of their kind of device fits, said as a kind word and a way
# anywhere in the request: "turn the speaker in the office up" had offered
# no volume tool, and 0.5B made up a service "audio.turn_on"; "turn up the
# heating" is no volume's.
_KIND_STEPPED: Mapping[str, tuple[str, tuple[str, ...]]] = {
    "setvolume": ("media_player", ("up", "down")),
}


def _kind_step_words(
    kind: str, ways: tuple[str, ...]
) -> tuple[tuple[str, ...], frozenset[str]]:
    """The kind's words and the ways' one-word words, in every language."""
    kinds = every(lambda pack: pack.kind_words.get(kind, ()))
    steps = every(
        lambda pack: [
            word for way in ways for word in pack.ways[way] if " " not in word
        ]
    )
    return kinds, frozenset(steps)


_KIND_STEP_WORDS = {
    topic: _kind_step_words(kind, ways) for topic, (kind, ways) in _KIND_STEPPED.items()
}
_LEXICON_VERBS = folded_verbs(word for said in _LEXICON.values() for word in said)
_CAMEL_RE = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


# The persona answers to the wake word's name (persona.py).
_WAKE_NAMES = "jarvis|nabu|mycroft|alexa"
_SMALL_TALK = (
    rf"^\W*(?:(?:{'|'.join(every(lambda pack: pack.small_talk))}|"
    # Introductions, greeting first or not; a name of one or two words, so
    # "my name is Tom, turn on the lights" is no small talk.
    rf"(?:(?:{any_of(every(lambda pack: pack.greetings))})[\s,!.]+)?"
    rf"(?:{any_of(every(lambda pack: pack.introductions))})\s+\w+(?:\s+\w+)?)"
    rf"(?:[\s,]+(?:{_WAKE_NAMES}|{any_of(every(lambda pack: pack.small_talk_tails))}))*)"
)
_SMALL_TALK_RE = re.compile(rf"{_SMALL_TALK}\W*$", re.IGNORECASE)
_SMALL_TALK_OPENING_RE = re.compile(rf"{_SMALL_TALK}(?!\w)", re.IGNORECASE)


def is_small_talk(text: str) -> bool:
    """Greetings, thanks and chit-chat: answered without tools or memory."""
    return bool(_SMALL_TALK_RE.match(text.strip()))


def small_talk_rest(text: str) -> str | None:
    """What follows the small talk a request opens with, where the rest may
    be small talk too: neither a question nor a word of any tool's but the
    clock's ("today" of "how are you today?", "for your help" of "thanks so
    much for your help"); None for anything else. Whether the rest points to
    the home is the caller's to judge."""
    rest, opened, asked = text.strip(), False, False
    while (found := _SMALL_TALK_OPENING_RE.match(rest)) is not None:
        rest, opened = rest[found.end() :], True
        asked = asked or is_question(found.group())
    # A question mark is a question's that opened: "how are you today?".
    if not opened or is_question(rest.rstrip("?!. ") if asked else rest):
        return None
    said = _words(rest)
    if any(word in _LEXICON[topic] for topic in _NOT_SMALL_TALK for word in said):
        return None
    return rest


_QUESTION_RE = re.compile(
    rf"^\W*(?:{any_of(every(lambda pack: pack.question_starts))})\b|\?\W*$",
    re.IGNORECASE,
)


def is_question(text: str) -> bool:
    """A question rather than a command: "is the garage door open?"; not a
    command asked politely (`_polite_command`)."""
    text = text.strip()
    return bool(_QUESTION_RE.search(text)) and not _polite_command(text)


_POLITE_RE = re.compile(
    rf"^[\W_]*(?:{any_of(every(lambda pack: pack.polite_asks))})\b", re.IGNORECASE
)
# What makes the rest of a polite question one still: "can you check
# whether the lights are on?".
_UNSURE = frozenset(every(lambda pack: pack.unsure))


def _polite_command(text: str) -> bool:
    """Whether a question asks for an action, politely ("¿puedes encender la
    tira LED?", "can you turn off the lights?"): 0.5B, given the strip's
    state to answer a question, said it was off. Not where it asks to be
    told ("can you tell me …"), or whether something is so."""
    if (found := _POLITE_RE.search(text)) is None:
        return False
    # "?" would stay on the last word: "einschalten?".
    rest = re.sub(r"[?¿!¡]", " ", text[found.end() :])
    return (
        asks_an_action(rest)
        and _ASKS_RE.search(rest) is None
        and _UNSURE.isdisjoint(lower_words(rest))
    )


# A question inside a command: "turn on the fan and tell me the temperature".
_ASKS_RE = re.compile(
    rf"\b(?:{any_of(every(lambda pack: pack.tell_me))})\b", re.IGNORECASE
)


def asked_part(text: str) -> str | None:
    """What the user wants to be told: a whole question, or what follows
    "tell me" in a command; None when they ask nothing."""
    if is_question(text):
        return text
    found = _ASKS_RE.search(text)
    return text[found.end() :] if found else None


# What joins a command to the "tell me" after it.
_JOINED_RE = re.compile(
    rf"(?:[\s,;]*\b(?:{any_of(every(lambda pack: pack.joiners))})\b)*[\s,;]*$",
    re.IGNORECASE,
)


def joins_commands(text: str, language: str | None) -> bool:
    """Whether a request may hold more than one command ("... and then ..."),
    by its language's joining words: "en" joins in Dutch, and is "in" in
    Spanish."""
    joiners = any_of(language_pack(language).joiners)
    return re.search(rf"\b(?:{joiners})\b", text, re.IGNORECASE) is not None


def command_parts(text: str, language: str | None) -> list[str]:
    """The pieces a request falls into at its joining words and commas, in
    its language ("close the blinds and then turn on the spotlights": two).
    Whether each piece is a command of its own is for the caller to find out:
    "the kitchen and living room lights" falls apart too."""
    joiners = any_of(language_pack(language).joiners)
    split = re.split(
        rf"(?:[\s,;]*\b(?:{joiners})\b)+[\s,;]*|\s*[,;]\s*", text, flags=re.I
    )
    return [part.strip(" .!") for part in split if part.strip(" .!")]


def command_part(text: str) -> str | None:
    """What a command asks done before its "tell me": "dim the bed light to
    30%" of "dim the bed light to 30% and tell me the temperature"."""
    if is_question(text) or not (found := _ASKS_RE.search(text)):
        return None
    return _JOINED_RE.sub("", text[: found.start()]).strip() or None


# Topics of what the user asks to be told or kept, not done.
_TELLING_TOPICS = frozenset({"getlivecontext", "datetime", "memory", "search"})
# Topics whose words a small talk's rest may say: "today", "is".
_NOT_SMALL_TALK = [t for t in _LEXICON if t not in ("datetime", "getlivecontext")]
_ACTION_WORDS = frozenset(
    word
    for topic, words in _LEXICON.items()
    if topic not in _TELLING_TOPICS
    for word in words
)


def tells(tool: ToolSpec) -> bool:
    """Whether a tool only tells: the live states, the time, what is known."""
    topics = _topics(tool)
    return bool(topics) and set(topics) <= _TELLING_TOPICS


def asks_an_action(request: str) -> bool:
    """Whether a request says any household action, in any language: "on",
    "dim", "warmer", "%"; not "tell my wife I love her"."""
    return any(word in _ACTION_WORDS for word in _words(request))


def fits(tool: ToolSpec, request: str) -> bool:
    """Whether the router would offer this tool for the request on its own."""
    return score_tool(tool, _words(request)) > 0


@dataclass(frozen=True, slots=True)
class Route:
    """The tools chosen for a turn, and why each is there."""

    tools: list[ToolSpec]
    reasons: dict[str, str]
    # Nothing matched, so every tool is offered. Never cached.
    fell_open: bool
    # The best-scoring tool: the text protocol's example call is one of it.
    lead: str | None = None


# "on" and "an" are verbs of the lexicon ("switch on", "mach das Licht an"):
# dropped as stopwords, they could never count.
_DROPPED = _STOPWORDS - {verb for verbs in _LEXICON.values() for verb in verbs}


def _words(request: str) -> list[str]:
    # "apágame la lámpara" asks what "apaga la lámpara" does.
    return bare_verbs(_tokens(request), _LEXICON_VERBS)


def _tokens(text: str) -> list[str]:
    return [w for w in lower_words(text, "%?") if w not in _DROPPED]


def _tool_words(tool: ToolSpec) -> set[str]:
    """The words of a tool's name, description and arguments that say what
    it is for: not "are" or "what", kept in requests for the lexicon's
    questions, which had brought the to-do tools to "how are you today?"."""
    parts = [_CAMEL_RE.sub(" ", tool.name), tool.description]
    properties: Mapping[str, object] = tool.parameters.get("properties") or {}
    parts.extend(properties)
    return set(_tokens(" ".join(parts).replace("_", " "))) - _NOT_TELLING


# What a request whose words point to no tool is most likely for; offered
# with every request, first, so that the prompt's start is the same for all
# (the server's prompt cache then holds their lines).
_CORE_TOPICS = ("turnon", "turnoff", "getlivecontext")


def _topic_of(tool: ToolSpec) -> str:
    """The tool's name as the lexicon's topics are written."""
    return tool.name.lower().replace("_", "")


def _topics(tool: ToolSpec) -> tuple[str, ...]:
    """The lexicon's topics in the tool's name; the longest where one holds
    another: "unmute", not "mute" in it."""
    return _name_topics(_topic_of(tool))


@functools.cache
def _name_topics(name: str) -> tuple[str, ...]:
    # Once per tool: each route reads every tool's topics several times.
    topics = [topic for topic in _LEXICON if topic in name]
    return tuple(
        t for t in topics if not any(t in other and t != other for other in topics)
    )


def _lexicon_score(
    tool: ToolSpec, words: Sequence[str], topics: Iterable[str] | None = None
) -> int:
    """Three for each request word the lexicon has for the tool's topics,
    and for a step said of a topic's kind (`_KIND_STEPPED`)."""
    return sum(
        3
        * (
            sum(1 for word in words if word in _LEXICON[topic])
            + _kind_step(topic, words)
        )
        for topic in (_topics(tool) if topics is None else topics)
    )


def _kind_step(topic: str, words: Sequence[str]) -> int:
    """Two (the kind's word and the way) where the words say a step and a
    kind word of the topic's kind ("speakers" too): more than a player's
    word alone, which every player's tool fits."""
    if (said := _KIND_STEP_WORDS.get(topic)) is None:
        return 0
    kinds, steps = said
    return 2 * (
        any(word in steps for word in words)
        and any(word.startswith(kind) for word in words for kind in kinds)
    )


def _fewest_sharing(
    tool: ToolSpec, words: Sequence[str], sharing: Mapping[str, int]
) -> int:
    """How few tools share the fewest-shared of the tool's topics the request's
    words fit; the catalogue's size where they fit none."""
    return min(
        (
            sharing[topic]
            for topic in _topics(tool)
            if any(word in _LEXICON[topic] for word in words)
        ),
        default=sum(sharing.values()),
    )


def score_tool(tool: ToolSpec, words: Sequence[str]) -> int:
    """How well a tool fits these request words."""
    vocabulary = _tool_words(tool)
    return _lexicon_score(tool, words) + sum(
        1 for word in set(words) if len(word) > 2 and word in vocabulary
    )


def request_fit(tool: ToolSpec, request: str) -> int:
    """How well a tool fits a request's words (`score_tool`)."""
    return score_tool(tool, _words(request))


def verb_fit(tool: ToolSpec, request: str) -> int:
    """How well a tool fits a request's household verbs, leaving out the
    words its name and description share with the request."""
    return _lexicon_score(tool, _words(request))


def own_verb_fit(
    tool: ToolSpec, request: str, others: Iterable[ToolSpec]
) -> int | None:
    """How well a tool fits a request's household verbs by the topics of its
    name that no other tool's name has: "mute" of HassMediaPlayerMute, not
    the "media" every player's tool has ("volume" is a media word). None
    where it has no such topic."""
    shared = {topic for other in others for topic in _topics(other)}
    own = [topic for topic in _topics(tool) if topic not in shared]
    return _lexicon_score(tool, _words(request), own) if own else None


class ToolRouter:
    """Picks the per-turn allow-list from the catalogue."""

    def __init__(self, max_tools: int = 6) -> None:
        self._max_tools = max_tools

    def route(
        self,
        request: str,
        catalogue: Sequence[ToolSpec],
        *,
        keep: Iterable[str] = (),
    ) -> Route:
        """Best-scoring tools for the request, plus those named in `keep`."""
        words = _words(request)
        # Of tools that fit as well, one whose fitting topic fewer tools
        # share comes first: "volumen" is the volume's word, and also any
        # player's, and HassMediaNext had led "pon el volumen … al 70%".
        sharing = Counter(topic for tool in catalogue for topic in _topics(tool))
        scored = sorted(
            (
                (score_tool(tool, words), index, tool)
                for index, tool in enumerate(catalogue)
            ),
            key=lambda item: (
                -item[0],
                _fewest_sharing(item[2], words, sharing) if item[0] else 0,
                item[1],
            ),
        )
        chosen = {
            tool.name: f"router score {score}"
            for score, _, tool in scored[: self._max_tools]
            if score > 0
        }
        for name in keep:
            if any(tool.name == name for tool in catalogue):
                chosen.setdefault(name, "kept (failed last turn, or always offered)")
        if not chosen:
            return _fell_open(catalogue)
        core = core_tools(catalogue)
        for tool in core:
            chosen.setdefault(tool.name, "core")
        lead = _lead(scored, core, asks=asked_part(request) is not None)
        return _route_of(catalogue, chosen, first=core, lead=lead)

    def search(
        self, query: str, catalogue: Sequence[ToolSpec], limit: int = 3
    ) -> list[ToolSpec]:
        """Tools for a `tool_search` call, best first."""
        words = _words(query)
        scored = [(score_tool(tool, words), tool) for tool in catalogue]
        return [
            tool for score, tool in sorted(scored, key=lambda s: -s[0]) if score > 0
        ][:limit]


def core_tools(catalogue: Sequence[ToolSpec]) -> list[ToolSpec]:
    """The catalogue's core tools in the order of their topics (on, off,
    live states): what every route starts with, and a warm-up shows."""
    ordered = {
        tool.name: tool
        for topic in _CORE_TOPICS
        for tool in catalogue
        if topic in _topic_of(tool)
    }
    return list(ordered.values())


def opening_tools(catalogue: Sequence[ToolSpec]) -> list[ToolSpec]:
    """What a request with no tool's words is offered, and so what a warm-up
    shows: small talk then finds its whole prompt but its own words cached."""
    return _fell_open(catalogue).tools


def _fell_open(catalogue: Sequence[ToolSpec]) -> Route:
    """The route of a request with no tool's words in it."""
    core = core_tools(catalogue)
    return _core_route(core) if core else _whole(catalogue)


def _lead(
    scored: Sequence[tuple[int, int, ToolSpec]], core: Sequence[ToolSpec], *, asks: bool
) -> str | None:
    """The best-scoring tool; of several alike, a specific one: the core is
    offered anyway. A look-up leads a request that asks something only:
    led by it, 0.5B looked up the windows for "open all the windows"
    ("open" is a state's word too)."""
    best = scored[0][0] if scored else 0
    top = [tool for score, _, tool in scored if score == best > 0]
    if not asks:
        top = [t for t in top if "getlivecontext" not in _topics(t)] or top
    return next((t.name for t in top if t not in core), top[0].name if top else None)


def _route_of(
    catalogue: Sequence[ToolSpec],
    chosen: dict[str, str],
    first: Sequence[ToolSpec],
    lead: str | None,
) -> Route:
    """The chosen tools: `first`, then the rest in the catalogue's order,
    then the search unless every tool is shown."""
    tools = [*first, *(t for t in catalogue if t.name in chosen and t not in first)]
    if len(tools) < len(catalogue):
        tools.append(TOOL_SEARCH_SPEC)
        chosen[TOOL_SEARCH] = "escape hatch"
    return Route(tools, chosen, fell_open=False, lead=lead)


def _core_route(core: Sequence[ToolSpec]) -> Route:
    """No tool's words in the request ("tell me a joke", "make it cosy"):
    the home's core tools and the search for more. The whole catalogue
    cost 0.5B 1,800 prompt tokens to read for a joke."""
    reasons = dict.fromkeys((tool.name for tool in core), "no tool matched: core")
    reasons[TOOL_SEARCH] = "escape hatch"
    return Route([*core, TOOL_SEARCH_SPEC], reasons, fell_open=True)


def _whole(catalogue: Sequence[ToolSpec]) -> Route:
    """A catalogue without core tools, offered whole when nothing matched."""
    return Route(list(catalogue), {"*": "no tool matched"}, fell_open=True)
