"""Scoring: the benchmark's own contradiction checker, figures per configuration
and category over seeds, times on what both sides send to the model, and the
targets of the benchmark issue.

The checker is deliberately simple and not shipped code: a sentence that
names an exposed entity and states a state (on, off, open, locked, playing,
muted ..., in the home's language or in English) contradicts the house when no entity of that name that can be in
that state is. Questions and sentences with a negation are not judged.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
import json
from pathlib import Path
import re
import statistics
from typing import Any

from homeassistant.core import State

from .tasks import CATEGORIES, MINED


@dataclass(slots=True)
class TaskOutcome:
    """One task under one configuration and seed."""

    task: str
    category: str
    language: str
    model: str
    config: str
    seed: int
    text: str
    ok: bool = False
    problems: list[str] = field(default_factory=list)
    replies: list[str] = field(default_factory=list)
    said_yes: bool = False
    seconds: float = 0.0
    llm_calls: int = 0
    prompt_tokens: int = 0  # as the server reports them, cached ones included
    evaluated_tokens: int = 0  # prompt tokens the server did not take from cache
    contradictions: list[str] = field(default_factory=list)
    error: str | None = None

    @property
    def to_model(self) -> bool:
        return self.llm_calls > 0


# Claim word patterns per language -> (claimed state, domains that can be in it).
_ONOFF = ("light", "switch", "fan", "media_player")
_CLAIMS: Mapping[str, Sequence[tuple[str, str, tuple[str, ...]]]] = {
    "en": (
        (r"(?:turned |switched |is |are |now )on", "on", _ONOFF),
        (r"(?:turned |switched |is |are |now )off", "off", _ONOFF),
        (r"open(?:ed)?", "open", ("cover", "valve")),
        (r"closed|shut", "closed", ("cover", "valve")),
        (r"unlocked", "unlocked", ("lock",)),
        (r"locked", "locked", ("lock",)),
        (r"playing", "playing", ("media_player",)),
        (r"paused", "paused", ("media_player",)),
        (r"muted", "muted", ("media_player",)),
        (r"cleaning", "cleaning", ("vacuum",)),
    ),
    "de": (
        (r"eingeschaltet|angeschaltet|an", "on", _ONOFF),
        (r"ausgeschaltet|aus", "off", _ONOFF),
        (r"geöffnet|offen", "open", ("cover", "valve")),
        (r"geschlossen", "closed", ("cover", "valve")),
        (r"entriegelt|aufgeschlossen", "unlocked", ("lock",)),
        (r"verriegelt|abgeschlossen", "locked", ("lock",)),
        (r"pausiert", "paused", ("media_player",)),
        (r"stumm(?:geschaltet)?", "muted", ("media_player",)),
    ),
    "es": (
        (r"encendid[oa]s?", "on", _ONOFF),
        (r"apagad[oa]s?", "off", _ONOFF),
        (r"abiert[oa]s?", "open", ("cover", "valve")),
        (r"cerrad[oa]s?", "closed", ("cover", "valve")),
        (r"desbloquead[oa]s?", "unlocked", ("lock",)),
        (r"bloquead[oa]s?", "locked", ("lock",)),
        (r"pausad[oa]s?", "paused", ("media_player",)),
        (r"silenciad[oa]s?", "muted", ("media_player",)),
    ),
}
_NEGATION = {"en": r"\bnot\b|n't\b|\bno\b", "de": r"\bnicht\b|\bkein", "es": r"\bno\b"}


def _in_state(state: State, claim: str) -> bool:
    if claim == "muted":
        return bool(state.attributes.get("is_volume_muted"))
    if claim == "on":
        return state.state not in ("off", "unavailable")
    if claim == "open":
        return state.state in ("open", "opening")
    if claim == "closed":
        return state.state in ("closed", "closing")
    return state.state == claim


def contradictions(
    reply: str, states: Mapping[str, State], names: Mapping[str, str], language: str
) -> list[str]:
    """The reply's sentences that state something the house contradicts."""
    found = []
    by_name: dict[str, list[State]] = {}
    for entity_id, name in names.items():
        by_name.setdefault(name.casefold(), []).append(states[entity_id])
    # Small models often answer in English whatever the language: judge both.
    languages = dict.fromkeys((language, "en"))
    claims = [claim for lang in languages for claim in _CLAIMS[lang]]
    negation = "|".join(_NEGATION[lang] for lang in languages)
    for sentence in re.split(r"(?<=[.!?])\s+", reply):
        low = sentence.casefold()
        if low.rstrip().endswith("?") or re.search(negation, low):
            continue
        named = [
            state
            for name, group in by_name.items()
            if re.search(rf"(?<!\w){re.escape(name)}(?!\w)", low)
            for state in group
        ]
        for pattern, claim, domains in claims:
            if not re.search(rf"(?<!\w)(?:{pattern})(?!\w)", low):
                continue
            able = [s for s in named if s.domain in domains]
            if able and not any(_in_state(s, claim) for s in able):
                found.append(f"{sentence.strip()!r}: no such entity is {claim}")
                break
    return found


def success(outcomes: Sequence[TaskOutcome]) -> float:
    """Percent of outcomes that succeeded."""
    return 100.0 * sum(o.ok for o in outcomes) / len(outcomes) if outcomes else 0.0


def _by(
    outcomes: Iterable[TaskOutcome], *keys: str
) -> dict[tuple[Any, ...], list[TaskOutcome]]:
    groups: dict[tuple[Any, ...], list[TaskOutcome]] = {}
    for outcome in outcomes:
        groups.setdefault(tuple(getattr(outcome, k) for k in keys), []).append(outcome)
    return groups


def spread(values: Sequence[float]) -> str:
    """Mean ± sample standard deviation (just the mean for one value)."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return f"{mean:.0f}"
    return f"{mean:.0f} ± {statistics.stdev(values):.0f}"


def table(outcomes: Sequence[TaskOutcome]) -> str:
    """Per model and configuration: success over seeds, and its cost."""
    rows = [
        "| model | config | seeds | tasks | success % | to model | LLM calls/task "
        "| prompt tok/call | evaluated tok/call | median s | contradictions |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for (model, config), group in _by(outcomes, "model", "config").items():
        seeds = _by(group, "seed")
        calls = sum(o.llm_calls for o in group)
        rows.append(
            f"| {model} | {config} | {len(seeds)} | {len(group) // len(seeds)} "
            f"| {spread([success(s) for s in seeds.values()])} "
            f"| {sum(o.to_model for o in group) / len(seeds):.1f} "
            f"| {calls / len(group):.2f} "
            f"| {sum(o.prompt_tokens for o in group) / calls if calls else 0:.0f} "
            f"| {sum(o.evaluated_tokens for o in group) / calls if calls else 0:.0f} "
            f"| {statistics.median(o.seconds for o in group):.1f} "
            f"| {sum(len(o.contradictions) for o in group)} |"
        )
    return "\n".join(rows)


def category_table(outcomes: Sequence[TaskOutcome]) -> str:
    """Success % per category (mean ± spread over seeds) for each configuration."""
    groups = _by(outcomes, "model", "config")
    head = " | ".join(f"{m} {c}" for m, c in groups)
    rows = [f"| category | tasks | {head} |", "|---" * (len(groups) + 2) + "|"]
    for category in CATEGORIES:
        cells = []
        count = 0
        for group in groups.values():
            members = [o for o in group if o.category == category]
            seeds = _by(members, "seed")
            count = max(count, len(members) // max(len(seeds), 1))
            cells.append(spread([success(s) for s in seeds.values()]) if seeds else "-")
        if count:
            rows.append(f"| {category} | {count} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def both_to_model_seconds(
    outcomes: Sequence[TaskOutcome], model: str, mine: str, rival: str
) -> tuple[float, float, int] | None:
    """Median seconds of `mine` and `rival` over the (task, seed) pairs both
    sent to the model, and how many pairs there were."""
    keyed = {(o.config, o.task, o.seed): o for o in outcomes if o.model == model}
    pairs = [
        (o, keyed[(rival, o.task, o.seed)])
        for (config, task, seed), o in keyed.items()
        if config == mine and (rival, task, seed) in keyed
    ]
    both = [(a.seconds, b.seconds) for a, b in pairs if a.to_model and b.to_model]
    if not both:
        return None
    return (
        statistics.median(a for a, _ in both),
        statistics.median(b for _, b in both),
        len(both),
    )


MARGIN = 15.0
MINED_TARGET = {"0.5b": 50.0, "1.5b": 70.0}


def targets(
    outcomes: Sequence[TaskOutcome], mine: str = "default", rival: str = "ha-pipeline"
) -> list[str]:
    """The benchmark issue's targets, per model, as PASS/FAIL lines."""
    lines = []
    matcher = {o.task: o.ok for o in outcomes if o.config == "intent"}
    for model in sorted({o.model for o in outcomes if o.config == mine}):
        own = [o for o in outcomes if o.model == model and o.config == mine]
        other = [o for o in outcomes if o.model == model and o.config == rival]
        if not other:
            continue
        ours, theirs = success(own), success(other)
        lines.append(_check(ours >= theirs + MARGIN,
            f"{model}: {mine} {ours:.0f}% >= {rival} {theirs:.0f}% + {MARGIN:.0f}"))  # fmt: skip
        mined = success([o for o in own if o.category == MINED])
        lines.append(_check(mined >= MINED_TARGET.get(model, 70.0),
            f"{model}: {MINED} {mined:.0f}% >= {MINED_TARGET.get(model, 70.0):.0f}%"))  # fmt: skip
        seeds = len(_by(own, "seed")) or 1
        behind = []
        for category in CATEGORIES:
            gap = (sum(o.ok for o in other if o.category == category)
                   - sum(o.ok for o in own if o.category == category)) / seeds  # fmt: skip
            if gap > 1:
                behind.append(f"{category} ({gap:.1f} tasks)")
        lines.append(_check(not behind, f"{model}: no category more than one task "
                            f"behind {rival}: {', '.join(behind) or 'none'}"))  # fmt: skip
        lost = sorted({o.task for o in own if matcher.get(o.task) and not o.ok})
        lines.append(_check(not lost, f"{model}: nothing the matcher solves is lost: "
                            f"{', '.join(lost) or 'none'}"))  # fmt: skip
        said = sum(len(o.contradictions) for o in own)
        lines.append(_check(said == 0, f"{model}: {said} contradicting replies"))
        if times := both_to_model_seconds(outcomes, model, mine, rival):
            a, b, n = times
            lines.append(_check(a <= b, f"{model}: median {a:.1f} s <= {rival} "
                                f"{b:.1f} s on {n} tasks both send to the model "
                                f"(ratio {a / b:.2f})"))  # fmt: skip
    return lines


def _check(ok: bool, text: str) -> str:
    return f"{'PASS' if ok else 'FAIL'}  {text}"


def failures(outcomes: Sequence[TaskOutcome]) -> list[str]:
    """One line per failed task run: what was said, what came back, what was wrong."""
    return [
        f"{o.model} {o.config} s{o.seed} {o.task}: {o.text!r} -> "
        f"{' / '.join(o.replies)!r}: {'; '.join(o.problems + o.contradictions)}"
        for o in outcomes
        if not o.ok or o.contradictions
    ]


def write_json(
    path: Path, outcomes: Sequence[TaskOutcome], meta: Mapping[str, Any]
) -> None:
    data = {"meta": dict(meta), "outcomes": [asdict(o) for o in outcomes]}
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")


def load_json(paths: Iterable[Path]) -> list[TaskOutcome]:
    """The outcomes of earlier `--json` files, in order."""
    return [
        TaskOutcome(**{k: v for k, v in raw.items() if k != "to_model"})
        for path in paths
        for raw in json.loads(path.read_text(encoding="utf-8"))["outcomes"]
    ]
