"""A safe arithmetic evaluator: Python's parser builds the tree, a whitelist walks it.

Nothing is ever passed to `eval`; names, attributes, calls other than a few
math functions, and huge powers are refused.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
import math
import operator
import re
from typing import Any

MAX_EXPRESSION = 200
MAX_EXPONENT = 1000
MAX_MAGNITUDE = 1e300

_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_UNARY: dict[type[ast.unaryop], Callable[[Any], Any]] = {
    ast.UAdd: operator.pos,
    ast.USub: operator.neg,
}
_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "abs": abs,
    "round": round,
    "min": min,
    "max": max,
    "sqrt": math.sqrt,
    "log": math.log,
    "log10": math.log10,
    "exp": math.exp,
    "sin": math.sin,
    "cos": math.cos,
    "tan": math.tan,
    "floor": math.floor,
    "ceil": math.ceil,
}
_CONSTANTS = {"pi": math.pi, "e": math.e}
_PERCENT_OF = re.compile(r"(\d+(?:\.\d+)?)\s*%\s*of\b", re.IGNORECASE)


class CalcError(ValueError):
    """The expression is not plain arithmetic, or has no finite value."""


def calculate(expression: str) -> float | int:
    """The value of an arithmetic expression such as `2*(3+4)` or `15% of 80`."""
    text = expression.strip()
    if len(text) > MAX_EXPRESSION:
        raise CalcError("The expression is too long.")
    text = _PERCENT_OF.sub(r"(\1/100)*", text)
    text = text.replace("^", "**").replace("×", "*").replace("÷", "/")
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as err:
        raise CalcError(f"Not an arithmetic expression: {expression!r}.") from err
    try:
        value = _value(tree.body)
    except (ArithmeticError, ValueError, TypeError) as err:
        raise CalcError(f"Cannot compute {expression!r}: {err}.") from err
    if not isinstance(value, (int, float)):
        raise CalcError(f"{expression!r} has no real value.")
    if isinstance(value, float):
        if not math.isfinite(value):
            raise CalcError(f"{expression!r} has no finite value.")
        if value.is_integer() and abs(value) < 2**53:
            return int(value)
        return round(value, 10)
    return value


def _value(node: ast.expr) -> Any:
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    if isinstance(node, ast.Name) and node.id in _CONSTANTS:
        return _CONSTANTS[node.id]
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_value(node.operand))
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _value(node.left), _value(node.right)
        if isinstance(node.op, ast.Pow) and abs(right) > MAX_EXPONENT:
            raise CalcError("The exponent is too large.")
        result = _BINARY[type(node.op)](left, right)
        if abs(result) > MAX_MAGNITUDE:
            raise CalcError("The result is too large.")
        return result
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in _FUNCTIONS
        and not node.keywords
    ):
        return _FUNCTIONS[node.func.id](*(_value(arg) for arg in node.args))
    raise CalcError("Only numbers, + - * / // % ^ and a few math functions work.")
