"""Redaction of personal data and secrets before logs, memory or the LLM."""

from __future__ import annotations

import re

_EMAIL_RE = re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")
_CARD_RE = re.compile(r"\b(?:\d[ -]?){12,18}\d\b")
_PHONE_RE = re.compile(r"(?<![\w+])\+?\d[\d ()./-]{6,}\d\b")
_BEARER_RE = re.compile(r"\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}", re.IGNORECASE)
_KEY_RE = re.compile(
    r"\b(?:sk|pk|rk|ghp|gho|xox[abp]|AKIA|eyJ)[A-Za-z0-9_\-.]{12,}\b"
    r"|\b[A-Fa-f0-9]{32,}\b"
    r"|\b(?=[A-Za-z0-9+/_-]*\d)(?=[A-Za-z0-9+/_-]*[A-Z])(?=[A-Za-z0-9+/_-]*[a-z])"
    r"[A-Za-z0-9+/_-]{32,}={0,2}"
)
_SECRET_FIELD_RE = re.compile(
    r"\b(password|passwd|pwd|api[_ -]?key|token|secret)(\s*[:=]\s*|\s+is\s+)(\S+)",
    re.IGNORECASE,
)


def _luhn_ok(number: str) -> bool:
    digits = [int(d) for d in number if d.isdigit()]
    total = 0
    for index, digit in enumerate(reversed(digits)):
        doubled = digit * 2 if index % 2 else digit
        total += doubled - 9 if doubled > 9 else doubled
    return total % 10 == 0


def _card(match: re.Match[str]) -> str:
    return "[card]" if _luhn_ok(match.group(0)) else match.group(0)


def redact(text: str) -> str:
    """Replace emails, phone and card numbers, keys and tokens with placeholders."""
    text = _SECRET_FIELD_RE.sub(lambda m: f"{m.group(1)}{m.group(2)}[secret]", text)
    text = _BEARER_RE.sub(lambda m: f"{m.group(1)} [secret]", text)
    text = _KEY_RE.sub("[secret]", text)
    text = _EMAIL_RE.sub("[email]", text)
    text = _CARD_RE.sub(_card, text)
    return _PHONE_RE.sub("[phone]", text)
