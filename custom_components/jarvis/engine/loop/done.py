"""What a command's turn has done, read from its calls' results: whether
Jarvis can say it in its own words, and which joined command is left."""

from __future__ import annotations

from collections.abc import Sequence

from ..grounding import HouseView
from ..lang import says_a_way
from ..phrases import (
    DID_FIELD,
    DONE,
    FOUND_FIELD,
    NOT_UNDERSTOOD,
    OR,
    UNKNOWN_DEVICE,
    DidPhrase,
    FoundPhrase,
    listed,
    phrase,
)
from ..pointed import points_nowhere, targets_the_home
from ..results import REPEATED_CALL, failed, miscalled, took_words_for_a_device
from ..router import asked_part, asks_an_action, command_parts, joins_commands
from ..text import telling_words
from ..types import Message
from .instructions import PART_INSTRUCTION
from .records import ToolCallRecord


def done_calls(
    calls: Sequence[ToolCallRecord], request: str, language: str | None
) -> list[ToolCallRecord]:
    """The calls a command's turn made, less, for one command whose last
    call worked, those that ran nothing for being made wrongly: the model
    put them right (HassTurnOn on a to-do list, then the list's tool)."""
    if calls and not failed(calls[-1].result) and not joins_commands(request, language):
        return [record for record in calls if not miscalled(record.result)]
    return list(calls)


def found(calls: Sequence[ToolCallRecord]) -> list[FoundPhrase]:
    """What the turn's look-ups say they found in full (`FoundPhrase`s)."""
    return [said for record in calls if (said := _found_in(record)) is not None]


def _found_in(record: ToolCallRecord) -> FoundPhrase | None:
    said = record.result.get(FOUND_FIELD)
    return said if isinstance(said, FoundPhrase) else None


def can_say_done(
    calls: Sequence[ToolCallRecord], request: str, language: str | None
) -> bool:
    """Whether every call of a command's turn says what it did (a
    `DidPhrase`), and whatever the request asks a look-up says in full (a
    `FoundPhrase`): asked to write that reply, 1.5B claimed actions no tool
    had done ("The garage door is now open."), and 0.5B, told to do "tell
    me the bedroom temperature" after it was looked up, dimmed the light
    again."""
    done = [c for c in done_calls(calls, request, language) if _found_in(c) is None]
    return (
        (asked_part(request) is None or bool(found(calls)))
        and bool(done)
        and all(
            isinstance(record.result.get(DID_FIELD), DidPhrase)
            and not failed(record.result)
            for record in done
        )
    )


def part_left(
    calls: Sequence[ToolCallRecord], request: str, language: str | None
) -> str | None:
    """The first command the request joins to others that no call has acted
    on yet, judged by the names each call says it acted on: "prende el árbol
    de Navidad" after "Hecho, he encendido Hervidor" for "enciende el
    hervidor y luego prende el árbol de Navidad"."""
    if not joins_commands(request, language):
        return None
    did = [
        telling_words(str(record.result[DID_FIELD]))
        for record in calls
        if isinstance(record.result.get(DID_FIELD), DidPhrase)
    ]
    if not did:
        return None
    parts = command_parts(request, language)
    # Words every command says ("office" of "turn off the office lamp and
    # then the office fan") tell none apart.
    shared = set.intersection(*(telling_words(part) for part in parts))
    acted = set().union(*did) - shared
    # A part that asks what a look-up found in full is answered.
    left = [
        part
        for part in parts
        if not telling_words(part) & acted
        and not (found(calls) and asked_part(part) is not None)
    ]
    # Where no part names what was done, the names tell nothing ("the
    # kettle", done as Wasserkocher): the model's reply stands.
    return left[0] if left and len(left) < len(parts) else None


def first_of_mixed(
    step_calls: Sequence[ToolCallRecord],
    done: Sequence[str],
    request: str,
    language: str | None,
) -> str | None:
    """The first command of a request that joins commands, where every call
    of this step failed and none of the turn worked: the model mixed them
    into one call (0.5B's "light" in "cooking", an awning, for "apaga la luz
    del techo en la cocina y luego cierra la cortina en el jardín")."""
    if (
        not step_calls
        or done
        or not all(failed(record.result) for record in step_calls)
        or not joins_commands(request, language)
    ):
        return None
    return command_parts(request, language)[0]


def next_part_asked(part: str, language: str | None) -> tuple[str | None, str | None]:
    """How a command left of joined ones is asked: alone, in the request's
    place, where it says its own way of turning ("prende la tira LED en el
    salón"; shown its call for the part done, 0.5B made it again); else by
    an instruction after the turn's calls, whose verb it leaves out ("… and
    the TV", which 0.5B asked alone paused)."""
    if says_a_way(part, language):
        return part, None
    return None, PART_INSTRUCTION.format(command=part)


def unasked_calls(
    calls: Sequence[ToolCallRecord],
    messages: Sequence[Message],
    house: HouseView | None,
) -> bool:
    """Whether every call of the turn failed on devices of the home, and
    the request points nowhere in it (`pointed`): the calls were the
    model's idea."""
    return (
        house is not None
        and all(failed(r.result) and targets_the_home(r.arguments) for r in calls)
        and points_nowhere(messages, house(()))
    )


def fallback_text(
    calls: Sequence[ToolCallRecord], request: str, language: str | None
) -> str:
    """What to say when the model cannot: "Done." only if every call worked;
    the names the user said that no device has, if the request says an
    action and every call failed on one of them ("lock the front door", with
    no Front Door exposed); else that Jarvis did not understand."""
    if calls and not any(failed(record.result) for record in calls):
        return phrase(DONE, language)
    if not asks_an_action(request):
        return phrase(NOT_UNDERSTOOD, language)
    named = [
        record
        for record in calls
        if took_words_for_a_device(record.result, record.arguments, request)
    ]
    if not named or len(named) + sum(
        record.result.get("error") == REPEATED_CALL for record in calls
    ) < len(calls):
        return phrase(NOT_UNDERSTOOD, language)
    # Said as words: "porch_light" is the model's entity-id way.
    unknown = {str(record.arguments["name"]).replace("_", " ") for record in named}
    names = listed(sorted(unknown), language, OR)
    return phrase(UNKNOWN_DEVICE, language).format(name=names)
