"""Text matching: the words of what was said, and whether it names something.

Two foldings of case, kept apart on purpose: `words` case-folds ("Straße"
meets "STRASSE"), for comparing a text with names or with other texts;
`lower_words` only lower-cases, for comparing with word lists written as
spelled ("schließe" of the router's lexicon), which case-folding would miss.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
import re
import unicodedata

_WORD_RE = re.compile(r"\w+")
_APOSTROPHES_RE = re.compile(r"['’‘`´]")
# The shortest word taken as the first part of a compound: shorter ones
# start too many other words ("Tür" of "Türkei").
_COMPOUND_PART = 5


def words(text: str) -> list[str]:
    """The case-folded words of a text, in order."""
    return _WORD_RE.findall(text.casefold())


def lower_words(text: str, signs: str = "") -> list[str]:
    """The lower-cased words of a text, in order; `signs` count as letters
    ("%" keeps "30%" one word)."""
    if not signs:
        return _WORD_RE.findall(text.lower())
    return re.findall(rf"[\w{re.escape(signs)}]+", text.lower())


def singular(word: str) -> str:
    """A word with its plural "s" folded away ("lights": "light"); words of
    three letters or fewer are kept ("bus", "is")."""
    return word.removesuffix("s") if len(word) > 3 else word


# The longest ending that makes a plural of a name's word ("s", "es", "n",
# "en"); a longer one makes a compound ("Küchen|lampe").
_PLURAL_ENDING = 2


def said_in_plural(name: str, text: str) -> bool:
    """Whether a word of the name is said only in its plural: "the lights
    in the office" names the kind, not the light called "Office Light"."""
    said = set(words(text))
    return any(
        part not in said
        and any(
            word.startswith(part) and len(word) - len(part) <= _PLURAL_ENDING
            for word in said
        )
        for part in words(name)
        if len(part) > 2
    )


def folded_words(text: str) -> set[str]:
    """Case-folded words with plurals folded ("lights" meets "light")."""
    return {singular(word) for word in words(text)}


def telling_words(name: str) -> set[str]:
    """The folded words of a name that tell it apart: "la" or "of" tells
    nothing; "TV" or "AC" does."""
    return {
        word for word in folded_words(name) if len(word) > 2 or word.upper() in name
    }


def most_specific[Named](tellings: Mapping[Named, frozenset[str]]) -> list[Named]:
    """The names, by their telling words, that no other name holds: "Robot
    Vacuum Battery" over "Robot Vacuum", whose battery it is."""
    return sorted(
        (
            name
            for name, telling in tellings.items()
            if not any(telling < other for other in tellings.values())
        ),
        key=str,
    )


def all_said(parts: Collection[str], said: Collection[str]) -> bool:
    """Whether every word of `parts` is among the `said` words, alone or as
    the start of a compound ("Batterie" of "Batteriestand", "Küche" of
    "Küchenlampe"); short words only alone ("TV" is not in "TVs")."""
    return all(
        part in said
        or (len(part) >= _COMPOUND_PART and any(word.startswith(part) for word in said))
        for part in parts
    )


def within(parts: Collection[str], name: str) -> bool:
    """Whether every part is inside the case-folded name, even inside one of
    its words ("light" of "Ceiling Lights")."""
    folded = name.casefold()
    return all(part in folded for part in parts)


def accent_folded(text: str) -> str:
    """Case, accents and apostrophes folded away: "Don’t" and "dont" meet."""
    text = unicodedata.normalize("NFKD", text.casefold())
    text = "".join(char for char in text if not unicodedata.combining(char))
    return _APOSTROPHES_RE.sub("", text)


def mentions(text: str | None, names: Iterable[str]) -> bool:
    """Whether the text names any of `names` (whole words, any case)."""
    if not text:
        return False
    said = f" {' '.join(words(text))} "
    for name in names:
        wanted = " ".join(words(name))
        if wanted and f" {wanted} " in said:
            return True
    return False


def any_of(phrases: Iterable[str]) -> str:
    """A regular expression for any of these phrases, as written."""
    return "|".join(map(re.escape, phrases))
