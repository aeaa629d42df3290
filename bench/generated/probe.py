"""python -m bench.generated.probe [--languages en,de,es] [--home-seed 28|31] [--size 60]

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

# Written for home seeds 28 and 31 (60 entities): their names, in each language.
COMMANDS = {
    28: {
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
    },
    31: {
        "en": (
            "switch off the lights in the living room",
            "is anything open in the garden?",
            "turn the heater in the office off",
            "how warm is it in the hallway?",
            "make the bedroom LED strip 30 percent",
            "lights on in the kids room please",
            "add eggs and butter to the shopping list",
            "what's on my personal tasks?",
            "play the speaker in the garden",
            "louder on the downstairs speakers",
            "open the kitchen curtain a little",
            "turn off the sprinkler",
            "vacuum the garage",
            "is the back door unlocked?",
            "turn on the coffee maker and then close the blinds in the garden",
            "how much battery does the back door have left?",
            "dim the lights on the first floor",
            "is there motion in the living room?",
            "turn the christmas tree in the kitchen on",
            "it's too bright in the bedroom",
        ),
        "de": (
            "mach das Licht im Wohnzimmer an",
            "ist die Hintertür abgeschlossen?",
            "schalte den Heizlüfter im Flur aus",
            "mach den Rollladen im Flur zu",
            "setz Schrauben auf die Baumarkt Liste",
            "wie viel Grad hat es im Schlafzimmer?",
            "lauter im Flur",
            "starte den Saugroboter im Büro",
            "mach den Wasserkocher aus",
            "mach es im Büro heller",
        ),
        "es": (
            "enciende la luz del salón",
            "¿está abierta la persiana del pasillo?",
            "baja el volumen del altavoz del despacho",
            "¿qué temperatura hace en el cuarto de los niños?",
            "pon la tira LED del dormitorio al 80 por ciento",
            "abre el aspersor del jardín",
            "añade leche a la lista de la compra",
            "enciende el hervidor",
            "manda el robot aspirador del jardín a la base",
            "apaga todas las luces de la primera planta",
        ),
    },
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
        for number, text in enumerate(COMMANDS[args.home_seed][lang])
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
    parser.add_argument("--home-seed", type=int, choices=sorted(COMMANDS), default=28)
    parser.add_argument("--size", type=int, choices=(20, 60, 200), default=60)
    parser.add_argument("--dump", type=Path, help="append every LLM call (JSON lines)")
    asyncio.run(_main(parser.parse_args(argv)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
