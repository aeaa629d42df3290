"""python -m bench.generated.probe [--languages en,de,es] [--home-seed 28] [--size 60]

Commands no template writes, on a generated home, through Jarvis's defaults
on 0.5B, one sampling seed: each with the reply, its LLM calls and every
exposed entity it changed (there is no expected state: read them). A tool
for finding failure classes beyond the benchmark's templates; not scored.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Sequence
from pathlib import Path

from . import home as gen
from .__main__ import run_llm_config
from .score import TaskOutcome
from .tasks import Task

# Written for home seed 28 (60 entities): its names, in each language.
COMMANDS = {
    "en": (
        "is the front door locked?",
        "are any lights on in the kids room?",
        "what's the temperature in the living room?",
        "turn everything off in the kitchen",
        "dim the LED strip in the hallway a bit",
        "make the ceiling light in the garden brighter",
        "close all the blinds",
        "turn the speaker in the office up",
        "next song on the speaker in the kids room",
        "send the robot vacuum in the garage back to its dock",
        "turn on the heater in the kids room",
        "lock all the doors",
        "what's on my shopping list?",
        "open the blinds in the hallway halfway",
        "set the fan in the garden to 50 percent",
        "shut the sprinkler off",
        "it's too dark in the bedroom",
        "which lights are on?",
        "stop the music in the garage",
        "turn off the christmas tree please",
    ),
    "de": (
        "ist die Haustür abgeschlossen?",
        "mach alle Lichter im Flur aus",
        "wie warm ist es in der Garage?",
        "mach den Rollladen im Büro halb auf",
        "schalte den Weihnachtsbaum im Garten an",
        "mach den Fernseher in der Küche leiser",
        "was steht auf der Einkaufsliste?",
        "schließ die Hintertür ab",
        "stopp den Saugroboter",
        "dreh den Rasensprenger auf",
    ),
    "es": (
        "¿está cerrada la puerta trasera?",
        "apaga todo en la cocina",
        "sube el volumen de la televisión del pasillo",
        "¿qué temperatura hace en el salón?",
        "enciende la cafetera",
        "baja un poco la persiana del salón",
        "¿qué hay en la lista de la compra?",
        "para la televisión del garaje",
        "abre el aspersor",
        "apaga las luces del despacho",
    ),
}


def _show(outcome: TaskOutcome) -> None:
    # With no expected changes, every change is listed as a problem.
    print(
        f"{outcome.seconds:5.1f} s {outcome.llm_calls} calls  {outcome.text!r} -> "
        f"{' / '.join(outcome.replies)!r}  {outcome.problems}",
        flush=True,
    )


async def _main(args: argparse.Namespace) -> None:
    languages = args.languages.split(",")
    homes = {lang: gen.generate(args.home_seed, args.size, lang) for lang in languages}
    tasks = [
        Task(f"{lang}{args.size}-{args.home_seed}/probe/{number}", "probe", lang, text)
        for lang in languages
        for number, text in enumerate(COMMANDS[lang])
    ]
    await run_llm_config(
        tasks,
        homes,
        model="0.5b",
        config="default",
        seed=1,
        progress=_show,
        dump=args.dump,
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.generated.probe")
    parser.add_argument("--languages", default="en,de,es")
    parser.add_argument("--home-seed", type=int, default=28)
    parser.add_argument("--size", type=int, choices=(20, 60, 200), default=60)
    parser.add_argument("--dump", type=Path, help="append every LLM call (JSON lines)")
    asyncio.run(_main(parser.parse_args(argv)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
