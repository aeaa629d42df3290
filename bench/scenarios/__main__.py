"""python -m bench.scenarios [--models 0.5b,1.5b] [--configs full,plain,intent]
[--tier 0|1|all] [--only ID,...] [--category NAME,...] [--json out.json]

Starts one llama.cpp server per model (context 8192), runs every scenario under
every configuration and prints the figures and the issue's target ratios.
HA's intent agent uses no model, so it runs once, as model "none".
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Callable, Sequence
import datetime as dt
import logging
import os
from pathlib import Path
import signal
import sys
from typing import Any

from homeassistant.const import __version__ as HA_VERSION

from scripts.llm_server import LlamaServer
from scripts.models import MODELS_DIR, model_path

from . import report
from .model import Scenario
from .runner import CONFIGS, ScenarioOutcome, run_all, run_on_server
from .suite import select

MODELS = {"0.5b": "qwen2.5-coder-0.5b", "1.5b": "qwen2.5-coder-1.5b"}
LLM_CTX = 8192


def configure_logging() -> None:
    """Warnings and up, without the notes every fresh instance repeats."""
    logging.basicConfig(
        level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s"
    )
    # Each fresh instance repeats these: the demo camera's missing ffmpeg and
    # libturbojpeg, the custom-integration notice, aiohttp's zlib note.
    for noisy in (
        "homeassistant.components.camera",
        "homeassistant.components.ffmpeg",
        "haffmpeg",
        "homeassistant.loader",
        "aiohttp_fast_zlib",
    ):
        logging.getLogger(noisy).setLevel(logging.CRITICAL)


class Recorder[T]:
    """Keeps a run's outcomes as they come: prints each and, with a JSON path,
    rewrites the file each time, so a run cut short still leaves its results."""

    def __init__(
        self,
        prog: str,
        argv: Sequence[str] | None,
        progress: Callable[[T], None],
        json_file: tuple[Path, Callable[[Path, list[T], dict[str, Any]], None]] | None,
    ) -> None:
        self.started = dt.datetime.now(dt.UTC)
        self.meta: dict[str, Any] = {
            # Files by name only: a results file kept in the repository
            # carries no paths of the machine that wrote it.
            "command": " ".join(
                [
                    prog,
                    *(Path(a).name if os.sep in a else a for a in argv or sys.argv[1:]),
                ]
            ),
            "started": self.started.isoformat(timespec="seconds"),
            "home_assistant": HA_VERSION,
            "cpus": os.cpu_count(),
            "load": os.getloadavg(),
        }
        self.outcomes: list[T] = []
        self._progress = progress
        self._json_file = json_file

    def __call__(self, outcome: T) -> None:
        self.outcomes.append(outcome)
        self._progress(outcome)
        if self._json_file is not None:
            path, write = self._json_file
            minutes = (dt.datetime.now(dt.UTC) - self.started).total_seconds() / 60
            write(
                path,
                self.outcomes,
                self.meta | {"minutes": round(minutes, 1), "load_end": os.getloadavg()},
            )


def _progress(outcome: ScenarioOutcome) -> None:
    turns = outcome.turns
    print(
        f"{'ok  ' if outcome.ok else 'FAIL'} {outcome.model:5} {outcome.config:6} "
        f"{outcome.scenario:32} {sum(t.seconds for t in turns):6.1f} s "
        f"{sum(t.llm_calls for t in turns)} calls "
        f"{sum(len(t.tool_calls) for t in turns)} tools"
        + ("" if outcome.ok else f"  {report.failure_reason(outcome)}"),
        flush=True,
    )


async def _run(
    models: Sequence[str],
    configs: Sequence[str],
    scenarios: list[Scenario],
    record: Callable[[ScenarioOutcome], None],
    dump: Path | None,
) -> None:
    # SIGTERM cancels the run like Ctrl-C does, so the llama.cpp server stops too.
    task = asyncio.current_task()
    assert task is not None
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, task.cancel)
    llm_configs = [c for c in configs if CONFIGS[c] is not None]
    if len(llm_configs) < len(configs):
        await run_all(scenarios, ["intent"], "none", None, record)
    for model in models if llm_configs else ():
        path = model_path(MODELS[model])
        if not path.exists():
            raise SystemExit(f"{path} is missing: run `make models-all` first")
        log = MODELS_DIR.parent / f"llama-bench-{model}.log"
        async with LlamaServer(path, ctx=LLM_CTX, log_path=log) as server:
            await run_on_server(
                scenarios,
                llm_configs,
                model,
                server.url,
                server.alias,
                progress=record,
                dump=dump,
            )


def _print_report(outcomes: list[ScenarioOutcome]) -> None:
    summaries = report.summarize(outcomes)
    print("\n" + report.table(summaries))
    print("\n" + report.category_table(summaries))
    print("\nTargets:\n" + "\n".join(report.targets(summaries)))
    if added := report.pieces(summaries):
        print(
            "\nWhat each piece adds (full minus full without it):\n" + "\n".join(added)
        )
    if failed := report.failures(outcomes):
        print("\nFailures:\n" + "\n".join(failed))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.scenarios")
    parser.add_argument("--models", default="0.5b,1.5b", help="of: " + ",".join(MODELS))
    parser.add_argument(
        "--configs", default="full,plain,intent", help="of: " + ",".join(CONFIGS)
    )
    parser.add_argument("--tier", choices=("0", "1", "all"), default="all")
    parser.add_argument("--only", help="comma-separated scenario ids")
    parser.add_argument("--category", help="comma-separated categories")
    parser.add_argument(
        "--json", type=Path, help="raw results, rewritten after each scenario"
    )
    parser.add_argument(
        "--dump",
        type=Path,
        help="append every LLM request and the model's output to this JSON-lines file",
    )
    parser.add_argument(
        "--summarize",
        nargs="+",
        type=Path,
        metavar="JSON",
        help="print one report over earlier --json files instead of running",
    )
    args = parser.parse_args(argv)
    if args.summarize:
        _print_report(report.load_json(args.summarize))
        return 0
    models = [m for m in args.models.split(",") if m]
    configs = [c for c in args.configs.split(",") if c]
    if bad := [m for m in models if m not in MODELS] + [
        c for c in configs if c not in CONFIGS
    ]:
        parser.error(f"unknown model or configuration: {', '.join(bad)}")
    scenarios = select(args.tier, args.only, args.category)

    configure_logging()

    record = Recorder(
        "python -m bench.scenarios",
        argv,
        _progress,
        (args.json, report.write_json) if args.json else None,
    )

    print(f"{len(scenarios)} scenarios, models {models}, configs {configs}", flush=True)
    asyncio.run(_run(models, configs, scenarios, record, args.dump))
    _print_report(record.outcomes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
