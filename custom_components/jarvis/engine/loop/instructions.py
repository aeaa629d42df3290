"""What Jarvis asks the model for at the end of a request, beside the
user's words: never in the prompt's cached start."""

from __future__ import annotations

from collections.abc import Sequence

from ..lang import language_code, language_pack
from ..results import failed
from .records import ToolCallRecord

# With {language}: the user's, by name (`in_language`).
# Told to "answer the user's last message", 0.5B refused "tell me a joke".
PLAIN_REPLY_INSTRUCTION = (
    "Reply now to what the user just said, in one or two short, friendly "
    "sentences in {language}. Do not write JSON or call tools."
)
SUMMARY_INSTRUCTION = (
    "Stop using tools now. In one short sentence, in {language}, tell "
    "the user truthfully what was done and what could not be done."
)
ANSWER_INSTRUCTION = (
    "Now write your reply to the user: one short plain sentence, in "
    "{language}, saying what happened or what you found."
)


def in_language(instruction: str, language: str | None) -> str:
    """An instruction naming the user's language ("in Spanish"); with no
    language known, "in the user's language"."""
    pack = language_pack(language)
    known = language is not None and pack.code == language_code(language)
    return instruction.format(language=pack.name if known else "the user's language")


COMMAND_INSTRUCTION = (
    "The states asked about are above. Now do the rest of the request with a "
    'tool call: "{command}"'
)
PART_INSTRUCTION = (
    'That part is done. Now do the rest of the request with a tool call: "{command}"'
)


def summary_instruction(calls: Sequence[ToolCallRecord], language: str | None) -> str:
    """The summary instruction, grounded in what the last calls really did."""
    outcomes = "; ".join(
        f"{record.name}: "
        + (
            str(record.result.get("error_text") or "failed")
            if failed(record.result)
            else "ok"
        )
        for record in calls[-6:]
    )
    return f"{in_language(SUMMARY_INSTRUCTION, language)} Tool outcomes: {outcomes}."
