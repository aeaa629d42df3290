"""The agentic tool loop: call the model, run its tool calls, repeat, reply.

The loop streams each step to a `StepHost` (Home Assistant's chat log, or a
local host in tests and scripts) and keeps the guards small models need:
text-protocol fallback, tool-name normalisation, unknown and repeated calls
answered with tool errors, no junk shown to the user, a capped number of
turns. `rule.next_step` says what happens after each model step.

- `reply`: `ReplyLoop`, what a turn needs before its first step;
- `turn`: one turn: look first, the plan, then model steps;
- `step`: one model call, streamed;
- `rule`: what the loop does after a step, a pure function;
- `host`: what a step streams to its host;
- `records`, `settings`: what a turn did, and what it runs with.
"""

from .host import (
    Delta,
    LocalStepHost,
    StepHost,
    StepStart,
    TextDelta,
    ToolCallDelta,
    ToolHandler,
)
from .instructions import ANSWER_INSTRUCTION, in_language
from .records import LLMCallRecord, ToolCallRecord, TurnResult
from .reply import ReplyLoop, is_stop_request, since_last_stop
from .settings import LoopSettings, ProtocolMemory
from .turn import LookUp

__all__ = [
    "ANSWER_INSTRUCTION",
    "Delta",
    "LLMCallRecord",
    "LocalStepHost",
    "LookUp",
    "LoopSettings",
    "ProtocolMemory",
    "ReplyLoop",
    "StepHost",
    "StepStart",
    "TextDelta",
    "ToolCallDelta",
    "ToolCallRecord",
    "ToolHandler",
    "TurnResult",
    "in_language",
    "is_stop_request",
    "since_last_stop",
]
