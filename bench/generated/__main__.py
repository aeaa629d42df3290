"""python -m bench.generated [--models 0.5b,1.5b] [--configs default,ha-pipeline,intent]
[--size 20|60|200] [--seeds 3] [--json out.json]

Generates one home per language from the home seed, draws the template
commands and mines the matcher's misses, runs HA's matcher once, then each
LLM configuration once per seed, each on a fresh llama.cpp server (no warm
prompt cache from another configuration), and prints the figures and targets.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Callable, Sequence
from pathlib import Path
import sys

from bench.ollama_adapter import OllamaAdapter
from bench.scenarios.__main__ import LLM_CTX, MODELS, Recorder, configure_logging
from bench.scenarios.proxy import RecordingProxy
from bench.scenarios.runner import LLMEndpoint
from scripts.llm_server import DEFAULT_N_PREDICT, LlamaServer
from scripts.models import MODELS_DIR, model_path

from . import home as gen, score
from .run import ALL_CONFIGS, HA_PIPELINE, INTENT, Rig, mine, run_tasks
from .score import TaskOutcome
from .tasks import Task, draw, mining_pool


async def build_tasks(
    homes: dict[str, gen.Home], per_category: int, mined: int, pool: int
) -> list[Task]:
    """The drawn template commands and the mined matcher misses of each home."""
    tasks: list[Task] = []
    for home in homes.values():
        drawn = draw(home, per_category)
        texts = {t.text for t in drawn}
        fresh = [t for t in mining_pool(home, pool) if t.text not in texts]
        tasks += drawn + await mine(home, fresh, mined)
    return tasks


async def run_llm_config(
    tasks: Sequence[Task],
    homes: dict[str, gen.Home],
    *,
    model: str,
    config: str,
    seed: int,
    progress: Callable[[TaskOutcome], None],
    dump: Path | None = None,
    n_predict: int = DEFAULT_N_PREDICT,
) -> list[TaskOutcome]:
    """One configuration and seed on a fresh llama.cpp server (`n_predict`:
    its cap on completion tokens for requests that set none, as HA's agent's
    do: Ollama's default is no cap)."""
    log = MODELS_DIR.parent / f"llama-generated-{model}.log"
    async with LlamaServer(
        model_path(MODELS[model]), ctx=LLM_CTX, n_predict=n_predict, log_path=log
    ) as server:
        proxy = RecordingProxy(server.url, dump, seed=seed)
        await proxy.start()
        adapter = OllamaAdapter(proxy.url, server.alias)
        await adapter.start()
        try:
            rig = Rig(
                config,
                model,
                seed,
                LLMEndpoint(proxy, server.alias),
                adapter if config == HA_PIPELINE else None,
            )
            return await run_tasks(tasks, homes, rig, progress)
        finally:
            await adapter.stop()
            await proxy.stop()


def _progress(outcome: TaskOutcome) -> None:
    print(
        f"{'ok  ' if outcome.ok else 'FAIL'} {outcome.model:5} {outcome.config:11} "
        f"s{outcome.seed} {outcome.task:28} {outcome.seconds:6.1f} s "
        f"{outcome.llm_calls} calls  {outcome.text!r} -> {' / '.join(outcome.replies)!r}"
        + ("" if outcome.ok else f"  [{'; '.join(outcome.problems)}]"),
        flush=True,
    )


def print_report(outcomes: Sequence[TaskOutcome]) -> None:
    print("\n" + score.table(outcomes))
    print("\n" + score.category_table(outcomes))
    print("\nTargets:\n" + "\n".join(score.targets(outcomes)))
    if failed := score.failures(outcomes):
        print("\nFailures:\n" + "\n".join(failed))


async def _main(
    args: argparse.Namespace, record: Callable[[TaskOutcome], None]
) -> None:
    homes = {
        language: gen.generate(args.home_seed, args.size, language)
        for language in args.languages.split(",")
    }
    tasks = await build_tasks(homes, args.per_category, args.mined, args.pool)
    print(f"{len(tasks)} tasks in {len(homes)} homes of {args.size}", flush=True)
    configs = [c for c in args.configs.split(",") if c]
    await run_tasks(tasks, homes, Rig(INTENT, "none", 0), record)  # the matcher, once
    for model in args.models.split(","):
        for config in (c for c in configs if c != INTENT):
            for seed in range(1, args.seeds + 1):
                await run_llm_config(
                    tasks,
                    homes,
                    model=model,
                    config=config,
                    seed=seed,
                    progress=record,
                    dump=args.dump,
                )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.generated")
    parser.add_argument("--models", default="0.5b", help="of: " + ",".join(MODELS))
    parser.add_argument(
        "--configs",
        default="default,ha-pipeline,intent",
        help="of: " + ",".join(ALL_CONFIGS),
    )
    parser.add_argument("--size", type=int, choices=gen.SIZES, default=20)
    parser.add_argument("--languages", default=",".join(gen.LANGUAGES))
    parser.add_argument("--home-seed", type=int, default=1)
    parser.add_argument("--seeds", type=int, default=3, help="sampling seeds 1..N")
    parser.add_argument("--per-category", type=int, default=1)
    parser.add_argument("--mined", type=int, default=3, help="matcher misses per home")
    parser.add_argument("--pool", type=int, default=40, help="commands mined per home")
    parser.add_argument("--json", type=Path, help="raw results, rewritten as they come")
    parser.add_argument("--dump", type=Path, help="append every LLM call (JSON lines)")
    parser.add_argument("--summarize", nargs="+", type=Path, metavar="JSON")
    args = parser.parse_args(argv)
    if args.summarize:
        print_report(score.load_json(args.summarize))
        return 0
    if bad := [c for c in args.configs.split(",") if c not in ALL_CONFIGS] + [
        m for m in args.models.split(",") if m not in MODELS
    ]:
        parser.error(f"unknown model or configuration: {', '.join(bad)}")
    configure_logging()
    record = Recorder(
        "python -m bench.generated",
        argv,
        _progress,
        (args.json, score.write_json) if args.json else None,
    )
    asyncio.run(_main(args, record))
    print_report(record.outcomes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
