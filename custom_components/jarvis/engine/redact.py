"""Redaction of personal data and secrets wherever text leaves Jarvis: logs,
diagnostics, turn records, memory and the LLM.

Codes, PINs and passwords have no shape of their own, so they are found by
what names them ("the alarm code is 4321", "der Code ist vier drei zwei
eins"), in the words of every language Jarvis speaks (`engine.lang`) whatever
the language of the text: a German request can end up in an English log line.

A secret no word names ("remember 4321 for the garage") is found by a rule
instead (`redact_fact`): a number of four digits or more that is plainly
nothing else. It applies to what is remembered and, as the exact numbers the
user said (`user_said`), to the logs and turn records of their conversation;
not to log lines as such, which hold ports, line numbers and token counts.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
import logging
import re
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from .lang import LANGUAGES
from .lang.base import UNIT_SYMBOLS

SECRET = "[secret]"
# Every placeholder `redact` writes; a text holding one had something withheld.
PLACEHOLDERS = (SECRET, "[card]", "[iban]", "[email]", "[phone]")

_EMAIL_RE = re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")
# Not the fraction of a decimal ("0.4123456789012345" seconds in a turn record).
_CARD_RE = re.compile(r"(?<![\d.,])(?:\d[ -]?){12,18}\d\b(?![.,]\d)")
_IBAN_RE = re.compile(
    r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b", re.I
)
_IBAN_SHORTEST = 15  # Norway's
# Not a date or a clock time ("2026-11-24", "11:18:33.123456", "24.11.2026",
# "11/24/26"): turn records, logs and remembered facts are full of them.
_DAY, _MONTH = r"(?:0?[1-9]|[12]\d|3[01])", r"(?:0?[1-9]|1[0-2])"
_PHONE_RE = re.compile(
    r"(?<![\w+:.])(?!\d{4}-\d\d-\d\d)"
    rf"(?!(?:{_DAY}[./-]{_MONTH}|{_MONTH}[./-]{_DAY})[./-](?:\d{{4}}|\d\d)(?!\d))"
    r"\+?\d[\d ()./-]{6,}\d\b(?![:.]\d)"
)
_BEARER_RE = re.compile(r"\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}", re.IGNORECASE)
_KEY_RE = re.compile(
    r"\b(?:sk|pk|rk|ghp|gho|xox[abp]|AKIA|eyJ)[A-Za-z0-9_\-.]{12,}\b"
    r"|\b[A-Fa-f0-9]{32,}\b"
    r"|\b(?=[A-Za-z0-9+/_-]*\d)(?=[A-Za-z0-9+/_-]*[A-Z])(?=[A-Za-z0-9+/_-]*[a-z])"
    r"[A-Za-z0-9+/_-]{32,}={0,2}"
)
# "https://user:pass@host": the user name can be a token too.
_URL_CREDENTIALS_RE = re.compile(r"\b([a-z][a-z0-9+.-]*://)[^\s/?#@]+@", re.IGNORECASE)
# Names of secrets in configuration and code rather than speech.
_TECHNICAL_NAMES = ("passwd", "pwd", "api key", "api_key", "apikey", "token", "secret")


def _alternatives(words: Iterable[str]) -> str:
    """A regex alternation of words, longest first, spaces as any blank.

    Lowered, not casefolded: "dreißig" must stay one to match as written.
    """
    ordered = sorted({word.lower() for word in words}, key=len, reverse=True)
    return "|".join(
        re.escape(word).replace(r"\ ", r"\s+").replace("'", "['’]") for word in ordered
    )


def _names(words: Iterable[str]) -> str:
    """Secret names; one of four letters or more also ends a compound ("Türcode")."""
    words = list(words)
    long = _alternatives(w for w in words if len(w) >= 4)
    short = _alternatives(w for w in words if len(w) < 4)
    # Unanchored before: a compound ends with the name.
    return rf"(?:(?:{long})|(?<!\w)(?:{short}))(?!\w)"


_CODES = [w for pack in LANGUAGES for w in pack.secret_codes]
_PASSWORDS = [w for pack in LANGUAGES for w in pack.secret_passwords]
_PASSWORDS += _TECHNICAL_NAMES
# The secret patterns try every position of a text; most texts name no secret,
# and a substring test of each name's first word says so far faster.
_NAME_STEMS = {re.split(r"[\s'’_]", w.casefold())[0] for w in _CODES + _PASSWORDS}


_BLANK = r"[^\S\n]"
_NUMBER = _alternatives(w for pack in LANGUAGES for w in pack.number_words)
_JOINER = _alternatives(w for pack in LANGUAGES for w in pack.number_joiners)
# "vierundzwanzig", "ventitré": number words glued, at most 40 letters so that
# a long word costs little backtracking.
_TOKEN = (
    rf"(?:\d+|(?=\w{{1,40}}(?!\w))(?:{_NUMBER})(?:(?:{_JOINER})?(?:{_NUMBER}))*)(?!\w)"
)


def _secret_patterns(
    codes: list[str], passwords: list[str]
) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """(a code followed by a number, a password followed by any word)."""
    links = _alternatives(w for pack in LANGUAGES for w in pack.secret_links)
    separator = rf"(?:{_BLANK}*[,/-]{_BLANK}*|{_BLANK}+)"
    run = rf"{_TOKEN}(?:{separator}(?:(?:{_JOINER}){separator})?{_TOKEN})*"
    # "code for the front door is", "'code': '": up to four words between.
    link = (
        rf"(?:{_BLANK}+[\w'’-]+){{0,4}}?"
        rf"(?:{_BLANK}+(?:{links})(?!\w)|['\"]?{_BLANK}*[:=])"
        rf"{_BLANK}*['\"]?"
    )
    code = re.compile(
        rf"(?P<head>{_names(codes + passwords)}(?:{link}|{_BLANK}+))"
        rf"(?P<value>{run}|\w*\d\w*)",
        re.IGNORECASE,
    )
    password = re.compile(
        rf"(?P<head>{_names(passwords)}{link})(?P<value>[^\s'\",;]+)", re.IGNORECASE
    )
    return code, password


_CODE_RE, _PASSWORD_RE = _secret_patterns(_CODES, _PASSWORDS)


def _luhn_ok(number: str) -> bool:
    digits = [int(d) for d in number if d.isdigit()]
    total = 0
    for index, digit in enumerate(reversed(digits)):
        doubled = digit * 2 if index % 2 else digit
        total += doubled - 9 if doubled > 9 else doubled
    return total % 10 == 0


def _card(match: re.Match[str]) -> str:
    return "[card]" if _luhn_ok(match.group(0)) else match.group(0)


def _iban_ok(text: str) -> bool:
    compact = text.replace(" ", "").upper()
    if len(compact) < _IBAN_SHORTEST:
        return False
    rearranged = compact[4:] + compact[:4]
    return int("".join(str(int(c, 36)) for c in rearranged)) % 97 == 1


def _iban(match: re.Match[str]) -> str:
    """The longest valid IBAN the match starts with: it may run into a word."""
    groups = match.group(0).split(" ")
    for end in range(len(groups), 0, -1):
        if _iban_ok(candidate := " ".join(groups[:end])):
            return match.group(0).replace(candidate, "[iban]", 1)
    return match.group(0)


def _secret(match: re.Match[str]) -> str:
    return match.group("head") + SECRET


def redact(text: str) -> str:
    """Replace secrets, emails, phone, card and account numbers with placeholders."""
    text = _URL_CREDENTIALS_RE.sub(rf"\1{SECRET}@", text)
    folded = text.casefold()
    named = any(stem in folded for stem in _NAME_STEMS)
    if named:
        text = _PASSWORD_RE.sub(_secret, text)
    text = _BEARER_RE.sub(lambda m: f"{m.group(1)} {SECRET}", text)
    text = _KEY_RE.sub(SECRET, text)
    text = _IBAN_RE.sub(_iban, text)
    if named:
        text = _CODE_RE.sub(_secret, text)
    text = _EMAIL_RE.sub("[email]", text)
    text = _CARD_RE.sub(_card, text)
    return _PHONE_RE.sub(_phone, text)


def _phone(match: re.Match[str]) -> str:
    """A phone number, unless only dots part its digits and it reads as a
    decimal, a version or an address ("0.123456", "2024.11.3", "10.0.0.138"):
    logs are full of those."""
    number = match.group(0)
    groups = number.split(".")
    if all(group.isdecimal() for group in groups) and (
        len(groups) < 3
        or any(len(group) < 2 for group in groups)
        or (len(groups) == 4 and all(int(group) < 256 for group in groups))
    ):
        return number
    return "[phone]"


def withheld(text: str) -> bool:
    """Whether `redact` replaced something in the text it made."""
    return any(placeholder in text for placeholder in PLACEHOLDERS)


# Secrets no word names: numbers of 4 digits or more, in digits ("4321",
# "4 3 2 1", "12-34") or in number words, one word counting as one digit.
_RUN_RE = re.compile(
    rf"(?<![\w.,:/+-]){_TOKEN}(?:(?:{_BLANK}*-{_BLANK}*|{_BLANK}+){_TOKEN})*",
    re.IGNORECASE,
)
_PARTS_RE = re.compile(rf"{_BLANK}*-{_BLANK}*|{_BLANK}+")
_SHORTEST_SECRET = 4
# A decimal, a clock time, a date or a fraction goes on after the number.
_GOES_ON_RE = re.compile(r"[.,:/]\d")
_SCALES = tuple(w.casefold() for pack in LANGUAGES for w in pack.number_scales)
_UNIT_AFTER_RE = re.compile(
    rf"{_BLANK}*(?:{'|'.join(map(re.escape, UNIT_SYMBOLS))}"
    rf"|(?i:{_alternatives(w for pack in LANGUAGES for w in pack.number_units)}))"
    r"(?!\w)"
)
# "€1500", "$ 20": symbols without letters.
_SIGNS = [re.escape(u) for u in UNIT_SYMBOLS if not any(c.isalnum() for c in u)]
_UNIT_BEFORE_RE = re.compile(rf"(?:{'|'.join(_SIGNS)}){_BLANK}*\Z")
_YEARS = range(1900, 2100)
_DAYS = range(1, 32)
_MONTHS = range(1, 13)


def _year(part: str) -> bool:
    return len(part) == 4 and part.isdecimal() and int(part) in _YEARS


def _date(parts: list[str]) -> bool:
    """Day and month with a year first or last: "2027-03-12", "12 2027" of
    "March 12 2027"."""
    if not 2 <= len(parts) <= 3 or not all(p.isdecimal() for p in parts):
        return False
    if _year(parts[0]):
        rest = parts[1:]
    elif _year(parts[-1]):
        rest = parts[:-1]
    else:
        return False
    days = [int(p) for p in rest if len(p) <= 2]
    return (
        len(days) == len(rest)
        and all(d in _DAYS for d in days)
        and (len(days) < 2 or min(days) in _MONTHS)
    )


def _unnamed_secret(match: re.Match[str]) -> bool:
    """Whether a run of numbers is a secret: not a year, date, time, decimal,
    quantity ("two hundred") or measure ("2000 calories", "€1500")."""
    run = match.group(0)
    # A word joined by dashes is one number ("quatre-vingt-dix-neuf").
    size = sum(
        len(digits) if (digits := re.sub(r"\D", "", chunk)) else 1
        for chunk in run.split()
        if chunk.strip("-")
    )
    if size < _SHORTEST_SECRET:
        return False
    text, start, end = match.string, match.start(), match.end()
    if _GOES_ON_RE.match(text, end) or _UNIT_AFTER_RE.match(text, end):
        return False
    if _UNIT_BEFORE_RE.search(text, max(0, start - 4), start):
        return False
    parts = _PARTS_RE.split(run)
    words = [p.casefold() for p in parts if not p.isdecimal()]
    if any(scale in word for word in words for scale in _SCALES):
        return False
    return not (len(parts) == 1 and _year(parts[0])) and not _date(parts)


def _unnamed_secrets(text: str) -> list[str]:
    return [m.group(0) for m in _RUN_RE.finditer(text) if _unnamed_secret(m)]


def redact_fact(text: str) -> str:
    """`redact`, and the numbers no word names that are plainly nothing else:
    said to be kept, such a number is most likely a code ("4321 for the garage").

    For memory only, not for log lines: they hold ports, line numbers and
    token counts (`user_said` hides the user's own numbers there).
    """
    return _RUN_RE.sub(
        lambda m: SECRET if _unnamed_secret(m) else m.group(0), redact(text)
    )


# The numbers the user said this turn that `redact_fact` would hide, as a pattern.
_SAID: ContextVar[re.Pattern[str] | None] = ContextVar("jarvis_said", default=None)


def _echo(secret: str) -> str:
    """A said secret as logs may show it again: digits with any spacing
    ("4 3 2 1" as "4321"), words with any blanks or dashes."""
    if re.sub(r"[\s-]", "", secret).isdecimal():
        between = rf"{_BLANK}*[,-]?{_BLANK}*"
        return r"(?<!\d)" + between.join(re.sub(r"\D", "", secret)) + r"(?!\d)"
    parts = map(re.escape, _PARTS_RE.split(secret))
    return r"(?<!\w)" + r"[\s,-]+".join(parts) + r"(?!\w)"


@contextmanager
def user_said(text: str) -> Iterator[None]:
    """Within: the numbers of the user's text that `redact_fact` would hide are
    hidden by `redact_turn`, wherever they show in logs and turn records.

    The rule itself is too coarse for log lines; the user's own numbers are not.
    """
    echoes = list(dict.fromkeys(map(_echo, _unnamed_secrets(text))))
    if (outer := _SAID.get()) is not None:
        echoes.insert(0, outer.pattern)
    token = _SAID.set(re.compile("|".join(echoes), re.IGNORECASE) if echoes else None)
    try:
        yield
    finally:
        _SAID.reset(token)


def redact_turn(text: str) -> str:
    """`redact`, and the numbers the user said this turn (`user_said`)."""
    text = redact(text)
    if (said := _SAID.get()) is not None:
        text = said.sub(SECRET, text)
    return text


# Keys whose values are secrets whatever they look like (alarm codes): the
# secret is the key's last word ("access_token", "pin_code"), not a measure of
# one ("first_token_s", a time).
_SECRET_KEY = re.compile(
    r"(?:^|_)(?:password|passwd|passcode|pin|code|token|secret|api_?key)$",
    re.IGNORECASE,
)


def redact_data(value: Any, key: str = "") -> Any:
    """JSON-like data (tool arguments, diagnostics) redacted, structure kept."""
    if isinstance(value, Mapping):
        return {k: redact_data(v, str(k)) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact_data(v, key) for v in value]
    if _SECRET_KEY.search(key) and value is not None:
        return SECRET
    if isinstance(value, str):
        return redact_turn(value)
    return value


def public_url(url: str) -> str:
    """The URL without its user name and password, to show or log."""
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=host))


class RedactingFilter(logging.Filter):
    """Redacts every record of the logger it is on, traceback included."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite the record's message; never drops a record."""
        try:
            message = record.getMessage()
        except (TypeError, ValueError):
            # Arguments that do not fit the message: the handler reports it, as
            # for any logger, and a filter must not raise at the caller.
            return True
        if (clean := redact_turn(message)) != message:
            record.msg, record.args = clean, ()
        if record.exc_info and record.exc_text is None:
            trace = logging.Formatter().formatException(record.exc_info)
            record.exc_text = redact_turn(trace)
        return True


def redacting_logger(name: str) -> logging.Logger:
    """The named logger, with its records redacted (once, however often asked).

    A filter acts only on its own logger's records, not on its children's, so
    every module that logs takes its logger from here.
    """
    logger = logging.getLogger(name)
    if not any(isinstance(f, RedactingFilter) for f in logger.filters):
        logger.addFilter(RedactingFilter())
    return logger
