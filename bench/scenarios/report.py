"""Figures per model and configuration, the issue's target ratios, raw JSON."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
import json
from pathlib import Path
import statistics
from typing import Any

from .model import CATEGORIES
from .runner import ScenarioOutcome, TurnOutcome

# Targets of issue #3: points Jarvis full must beat the plain loop by, per model.
SUCCESS_MARGIN = {"0.5b": 25.0, "1.5b": 15.0}
MAX_DEVICE_LLM_CALLS = 1.0
MAX_DEVICE_WALL_RATIO = 1.2
MIN_CONTEXT_SUCCESS = 80.0  # follow-up and memory, on 1.5B
# Issue #12: sensitive commands asked about, then answered, on both models.
MIN_SENSITIVE_SUCCESS = 95.0


@dataclass(frozen=True, slots=True)
class Summary:
    """The figures of one model x configuration."""

    model: str
    config: str
    scenarios: int
    success: float  # percent
    by_category: dict[str, float]
    errors: int
    llm_calls_median: float
    llm_calls_mean: float
    prompt_tokens_mean: float
    completion_tokens_mean: float
    cached_token_share: float | None  # of prompt tokens, from llama.cpp
    prefix_reuse: float | None  # mean, over consecutive requests of a scenario
    # Median prompt tokens the server evaluated per LLM call, the run's first
    # call (its cold cache) left out.
    evaluated_per_call: float | None
    wall_median: float
    wall_p90: float
    small_talk_tool_calls: int
    device_llm_calls_median: float | None
    device_wall_median: float | None
    sensitive_llm_calls_median: float | None = None


def summarize(outcomes: Sequence[ScenarioOutcome]) -> list[Summary]:
    """One summary per (model, configuration), in the order they first ran."""
    groups: dict[tuple[str, str], list[ScenarioOutcome]] = {}
    for outcome in outcomes:
        groups.setdefault((outcome.model, outcome.config), []).append(outcome)
    return [_summary(model, config, group) for (model, config), group in groups.items()]


def _summary(model: str, config: str, group: list[ScenarioOutcome]) -> Summary:
    calls = [sum(t.llm_calls for t in o.turns) for o in group]
    walls = [sum(t.seconds for t in o.turns) for o in group]
    prompt = sum(t.prompt_tokens for o in group for t in o.turns)
    cached = sum(t.cached_tokens for o in group for t in o.turns)
    reuse = [r for o in group for t in o.turns for r in t.prefix_reuse]
    evaluated = [n for o in group for t in o.turns for n in t.evaluated_tokens][1:]
    device = [o for o in group if o.category == "device"]
    sensitive = [o for o in group if o.category == "sensitive"]
    return Summary(
        model=model,
        config=config,
        scenarios=len(group),
        success=_percent(group),
        by_category={
            category: _percent(members)
            for category in CATEGORIES
            if (members := [o for o in group if o.category == category])
        },
        errors=sum(o.error is not None for o in group),
        llm_calls_median=statistics.median(calls),
        llm_calls_mean=statistics.fmean(calls),
        prompt_tokens_mean=prompt / len(group),
        completion_tokens_mean=sum(t.completion_tokens for o in group for t in o.turns)
        / len(group),
        cached_token_share=cached / prompt if prompt else None,
        prefix_reuse=statistics.fmean(reuse) if reuse else None,
        evaluated_per_call=statistics.median(evaluated) if evaluated else None,
        wall_median=statistics.median(walls),
        wall_p90=_p90(walls),
        small_talk_tool_calls=sum(
            len(t.tool_calls)
            for o in group
            if o.category == "small_talk"
            for t in o.turns
        ),
        device_llm_calls_median=_median_calls(device),
        device_wall_median=statistics.median(
            sum(t.seconds for t in o.turns) for o in device
        )
        if device
        else None,
        sensitive_llm_calls_median=_median_calls(sensitive),
    )


def _median_calls(outcomes: Sequence[ScenarioOutcome]) -> float | None:
    """The median of the scenarios' LLM calls (None: no scenario)."""
    if not outcomes:
        return None
    return statistics.median(sum(t.llm_calls for t in o.turns) for o in outcomes)


def _percent(outcomes: Sequence[ScenarioOutcome]) -> float:
    return 100.0 * sum(o.ok for o in outcomes) / len(outcomes)


def _p90(values: list[float]) -> float:
    if len(values) < 2:
        return values[0]
    return statistics.quantiles(values, n=10, method="inclusive")[-1]


def _fmt(value: float | None, spec: str = ".1f", suffix: str = "") -> str:
    return "n/a" if value is None else f"{value:{spec}}{suffix}"


def table(summaries: Sequence[Summary]) -> str:
    """A Markdown table: one row per model x configuration."""
    rows = [
        "| model | config | scenarios | success | LLM calls/scenario (median, mean) "
        "| prompt tok/scenario | completion tok/scenario | llama.cpp cached prompt "
        "| prefix reuse | evaluated tok/call (median) "
        "| wall s/scenario (median, p90) | small-talk tool calls | errors |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    rows += [
        f"| {s.model} | {s.config} | {s.scenarios} | {s.success:.0f}% "
        f"| {s.llm_calls_median:g}, {s.llm_calls_mean:.2f} "
        f"| {s.prompt_tokens_mean:.0f} | {s.completion_tokens_mean:.0f} "
        f"| {_fmt(s.cached_token_share and 100 * s.cached_token_share, '.0f', '%')} "
        f"| {_fmt(s.prefix_reuse and 100 * s.prefix_reuse, '.0f', '%')} "
        f"| {_fmt(s.evaluated_per_call, '.0f')} "
        f"| {s.wall_median:.1f}, {s.wall_p90:.1f} | {s.small_talk_tool_calls} "
        f"| {s.errors} |"
        for s in summaries
    ]
    return "\n".join(rows)


def category_table(summaries: Sequence[Summary]) -> str:
    """Success per category, one column per model x configuration."""
    header = [f"{s.model} {s.config}" for s in summaries]
    rows = [
        "| category | " + " | ".join(header) + " |",
        "|---|" + "---|" * len(header),
    ]
    for category in CATEGORIES:
        cells = [_fmt(s.by_category.get(category), ".0f", "%") for s in summaries]
        if any(cell != "n/a" for cell in cells):
            rows.append(f"| {category} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def targets(summaries: Sequence[Summary]) -> list[str]:
    """The issue's targets as measured ratios, each with a verdict."""
    by_key = {(s.model, s.config): s for s in summaries}
    lines: list[str] = [
        _verdict(
            f"{s.model} {s.config}: sensitive {s.by_category['sensitive']:.0f}%, "
            f"median LLM calls {s.sensitive_llm_calls_median:g}",
            s.by_category["sensitive"] >= MIN_SENSITIVE_SUCCESS,
            f">= {MIN_SENSITIVE_SUCCESS:.0f}%",
        )
        for s in summaries
        if "sensitive" in s.by_category
    ]
    for model in dict.fromkeys(s.model for s in summaries):
        full, plain = by_key.get((model, "full")), by_key.get((model, "plain"))
        if full is None:
            continue
        if plain is not None:
            margin = SUCCESS_MARGIN.get(model)
            gain = full.success - plain.success
            lines.append(
                _verdict(
                    f"{model}: success full - plain = {gain:+.0f} points",
                    None if margin is None else gain >= margin,
                    f">= {margin:g}" if margin else "",
                )
            )
            if full.device_wall_median and plain.device_wall_median:
                ratio = full.device_wall_median / plain.device_wall_median
                lines.append(
                    _verdict(
                        f"{model}: device median wall full/plain = {ratio:.2f}",
                        ratio <= MAX_DEVICE_WALL_RATIO,
                        f"<= {MAX_DEVICE_WALL_RATIO}",
                    )
                )
        if full.device_llm_calls_median is not None:
            lines.append(
                _verdict(
                    f"{model}: device median LLM calls (full) = "
                    f"{full.device_llm_calls_median:g}",
                    full.device_llm_calls_median <= MAX_DEVICE_LLM_CALLS,
                    f"<= {MAX_DEVICE_LLM_CALLS:g}",
                )
            )
        if "small_talk" in full.by_category:
            lines.append(
                _verdict(
                    f"{model}: small-talk tool calls (full) = "
                    f"{full.small_talk_tool_calls}",
                    full.small_talk_tool_calls == 0,
                    "== 0",
                )
            )
        context = [full.by_category.get(c) for c in ("follow_up", "memory")]
        if model == "1.5b" and None not in context:
            lines.append(
                _verdict(
                    f"{model}: follow-up {context[0]:.0f}%, memory {context[1]:.0f}% (full)",
                    min(c for c in context if c is not None) >= MIN_CONTEXT_SUCCESS,
                    f">= {MIN_CONTEXT_SUCCESS:.0f}% each",
                )
            )
    return lines


def pieces(summaries: Sequence[Summary]) -> list[str]:
    """What each switched-off piece costs: full against full without it."""
    by_key = {(s.model, s.config): s for s in summaries}
    lines = []
    for summary in summaries:
        if not summary.config.startswith("no-"):
            continue
        if (full := by_key.get((summary.model, "full"))) is None:
            continue
        lines.append(
            f"- {summary.model}: {summary.config.removeprefix('no-')} adds "
            f"{full.success - summary.success:+.0f} points of success and "
            f"{full.llm_calls_mean - summary.llm_calls_mean:+.2f} LLM calls, "
            f"{full.prompt_tokens_mean - summary.prompt_tokens_mean:+.0f} prompt "
            "tokens per scenario"
        )
    return lines


def _verdict(text: str, met: bool | None, goal: str) -> str:
    mark = {True: "met", False: "NOT met", None: "no target"}[met]
    return f"- {text} (target {goal}: {mark})" if goal else f"- {text} ({mark})"


def failure_reason(outcome: ScenarioOutcome) -> str:
    """Why a scenario failed: its error, or the first failed turn's problems."""
    return outcome.error or next(
        f"turn {i + 1}: {'; '.join(t.problems)} (reply: {t.reply[:80]!r})"
        for i, t in enumerate(outcome.turns)
        if not t.ok
    )


def failures(outcomes: Sequence[ScenarioOutcome]) -> list[str]:
    """One line per failed scenario."""
    return [
        f"- {o.model} {o.config} {o.scenario}: {failure_reason(o)}"
        for o in outcomes
        if not o.ok
    ]


def write_json(
    path: Path, outcomes: Sequence[ScenarioOutcome], meta: dict[str, Any]
) -> None:
    summaries = summarize(outcomes)
    path.write_text(
        json.dumps(
            {
                "meta": meta,
                "summaries": [asdict(s) for s in summaries],
                "outcomes": [
                    asdict(o)
                    | {"ok": o.ok, "turns": [asdict(t) | {"ok": t.ok} for t in o.turns]}
                    for o in outcomes
                ],
            },
            indent=1,
            ensure_ascii=False,
        )
    )


def load_json(paths: Sequence[Path]) -> list[ScenarioOutcome]:
    """The outcomes of earlier `--json` files, for one report over several runs."""
    outcomes = []
    for path in paths:
        for raw in json.loads(path.read_text())["outcomes"]:
            fields = {k: v for k, v in raw.items() if k not in ("ok", "turns")}
            turns = [
                TurnOutcome(**{k: v for k, v in t.items() if k != "ok"})
                for t in raw["turns"]
            ]
            outcomes.append(ScenarioOutcome(**fields, turns=turns))
    return outcomes
