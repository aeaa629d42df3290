"""Digests for small models: the few parts of a long text that the request needs.

Home Assistant's live context lists every device of the home (3,000 characters
in the demo home); a 0.5B model loses the thread in it, and on a CPU every
character costs prompt time. So long tool results reach small models as a
digest: the records (entities, list items, lines) that share words with the
request, in their original order, within a bound that grows with the model,
under a line that names the tool and says what was left out. When no record
is relevant the digest is NONE and the raw result is kept, as it always was.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
import json
import re
from typing import Any

from .lang import every
from .modelsize import parameter_billions
from .text import lower_words, singular
from .types import JsonObject
from .untrusted import (
    FENCE_CLOSE,
    UNTRUSTED_KEY,
    as_text,
    fence_open,
    fenced_source,
)

# Any model: the most of a raw tool result one message carries.
MAX_RAW_CHARS = 4000
# Characters a digest may take, by model size in billions of parameters.
DIGEST_CHARS = ((1.0, 800), (3.0, 1500), (8.0, 2500))
# Short top-level fields ("success", "error", "speech") frame every digest.
FRAME_CHARS = 80

_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+")
# Words too common to tie a record or a fact to a request.
COMMON_WORDS = frozenset(every(lambda pack: pack.common_words))


def keywords(text: str) -> set[str]:
    """The words of a text that can tie it to another, plurals folded."""
    words = {
        w
        for w in lower_words(text)
        # Single letters are the "s" of "wife's": they would tie everything.
        if len(w) > 1 and w not in COMMON_WORDS
    }
    # "wife's" and "wife", "lights" and "light" should meet.
    return {singular(w) for w in words}


# Share of a text's words the user must have said: the model may add a
# word ("name") when it turns "my wife is called Anna" into a fact.
OWN_WORDS_SHARE = 0.6


def in_own_words(text: str, said: str) -> bool:
    """Whether most of the text's meaningful words are the user's own."""
    wanted = keywords(text)
    return bool(wanted) and len(wanted & keywords(said)) >= OWN_WORDS_SHARE * len(
        wanted
    )


def digest_chars(model: str) -> int:
    """How long a digest may be for this model: small models get less."""
    size = parameter_billions(model)
    if size is not None:
        for bound, chars in DIGEST_CHARS:
            if size <= bound:
                return chars
    return MAX_RAW_CHARS


def pick(records: Sequence[str], wanted: set[str], limit: int) -> list[int] | None:
    """Indexes of the records most relevant to `wanted`, in order, within
    `limit` characters; None when no record is relevant at all."""
    scores = [len(wanted & keywords(record)) for record in records]
    if not any(scores):
        return None
    chosen: list[int] = []
    used = 0
    for index in sorted(range(len(records)), key=lambda i: (-scores[i], i)):
        if scores[index] == 0:
            break
        size = len(records[index]) + 1
        if chosen and used + size > limit:
            continue
        chosen.append(index)
        used += size
    return sorted(chosen)


def shorten(text: str, wanted: set[str], limit: int) -> str:
    """A text within `limit`: its relevant sentences, else its beginning."""
    if len(text) <= limit:
        return text
    sentences = _SENTENCE_RE.split(text)
    chosen = pick(sentences, wanted, limit)
    kept = text if chosen is None else " ".join(sentences[i] for i in chosen)
    if len(kept) <= limit:
        return kept
    return kept[:limit].rsplit(" ", 1)[0] + "…"


def tool_result_text(
    result: JsonObject, *, source: str, request: str, limit: int
) -> str:
    """A tool result as the model reads it: whole when short, else a digest.

    `request` is what the records are matched against: the user's words and
    the call's arguments.
    """
    raw = (
        as_text(result)
        if fenced_source(result) is not None
        else json.dumps(result, ensure_ascii=False, default=str)
    )
    if len(raw) <= limit:
        return raw
    frame, records = _records(result)
    budget = max(limit - sum(len(line) + 1 for line in frame), limit // 2)
    chosen = pick(records, keywords(request), budget)
    if chosen is None:
        # NONE: nothing matched, so the model gets the raw result.
        if len(raw) > MAX_RAW_CHARS:
            return raw[:MAX_RAW_CHARS] + "…(truncated)"
        return raw
    kept = [shorten(records[i], set(), budget) for i in chosen]
    header = (
        f"Digest of the {source} result: the {len(kept)} of {len(records)} "
        "entries that match the request; the rest are left out."
    )
    if (outside := fenced_source(result)) is not None:
        # Outside content stays fenced in its digest.
        kept = [fence_open(outside), *kept, FENCE_CLOSE]
    return "\n".join([header, *frame, *kept])


def _records(result: JsonObject) -> tuple[list[str], list[str]]:
    """(frame lines kept in every digest, records to choose from)."""
    frame: list[str] = []
    records: list[str] = []
    for key, value in result.items():
        if key == UNTRUSTED_KEY and isinstance(value, str):
            # The fence lines are put back around the digest's records.
            records.extend(_blocks(value.partition("\n")[2].rpartition("\n")[0]))
            continue
        if isinstance(value, (str, int, float, bool)) or value is None:
            line = f"{key}: {value}"
            if len(line) <= FRAME_CHARS and "\n" not in line:
                frame.append(line)
                continue
        records.extend(_value_records(key, value))
    return frame, records


def _value_records(path: str, value: Any) -> Iterator[str]:
    """Records of one value: blocks of a multi-line text, list items, fields."""
    if isinstance(value, str):
        blocks = _blocks(value)
        if len(blocks) > 1:
            yield from blocks
        else:
            yield f"{path}: {value}"
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _value_records(f"{path}.{key}", item)
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, (dict, list)):
                yield f"{path}: {json.dumps(item, ensure_ascii=False, default=str)}"
            else:
                yield from _value_records(path, item)
    else:
        yield f"{path}: {value}"


def _blocks(text: str) -> list[str]:
    """A multi-line text cut where a line starts unindented: YAML list items
    (one per device in the live context) keep their indented lines; a
    single long line is cut into sentences."""
    blocks: list[str] = []
    for line in text.splitlines():
        if not line.strip():
            continue
        if blocks and line.startswith((" ", "\t")):
            blocks[-1] += "\n" + line
        else:
            blocks.append(line)
    if len(blocks) == 1:
        return _SENTENCE_RE.split(blocks[0])
    return blocks
