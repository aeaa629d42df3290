"""Replies are spoken: strip what a voice cannot say well."""

from __future__ import annotations

import re
from urllib.parse import urlparse

_CODE_BLOCK_RE = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)
_INLINE_CODE_RE = re.compile(r"`([^`]*)`")
_MD_LINK_RE = re.compile(r"\[([^\]]+)\]\((?:[^)]+)\)")
# Trailing punctuation ends the sentence, not the URL.
_URL_RE = re.compile(r"https?://[^\s)>\]]*[^\s)>\].,;:!?]")
_EMPHASIS_RE = re.compile(r"(\*\*|__|\*|_)(?=\S)(.+?)(?<=\S)\1")
_HEADING_RE = re.compile(r"^\s{0,3}#{1,6}\s*", re.MULTILINE)
_BULLET_RE = re.compile(r"^\s*(?:[-*•+]|\d+[.)])\s+", re.MULTILINE)
_TABLE_RULE_RE = re.compile(r"^\s*\|?[\s:|-]+\|[\s:|-]*$", re.MULTILINE)


def _describe_url(match: re.Match[str]) -> str:
    host = urlparse(match.group(0)).netloc.removeprefix("www.")
    return f"a link to {host}" if host else "a link"


def clean_for_speech(text: str) -> str:
    """Markdown, code and URLs turned into plain words fit for text-to-speech."""
    text = _CODE_BLOCK_RE.sub(" ", text)
    text = _MD_LINK_RE.sub(r"\1", text)
    text = _URL_RE.sub(_describe_url, text)
    text = _INLINE_CODE_RE.sub(r"\1", text)
    text = _TABLE_RULE_RE.sub("", text)
    text = _HEADING_RE.sub("", text)
    text = _BULLET_RE.sub("", text)
    text = _EMPHASIS_RE.sub(r"\2", text)
    text = text.replace("|", ", ")
    # Keep the edges' whitespace: streamed pieces are joined as they come.
    leading = text[: len(text) - len(text.lstrip())]
    trailing = text[len(text.rstrip()) :]
    body = re.sub(r"[ \t]+", " ", text.strip())
    return f"{leading[:1]}{body}{trailing[:1]}" if body else leading[:1]
