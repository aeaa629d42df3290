"""Web search (a pluggable provider) and page fetching; off unless enabled."""

from __future__ import annotations

from dataclasses import dataclass
from html.parser import HTMLParser
import re
from typing import Protocol

import aiohttp
from yarl import URL

MAX_PAGE_BYTES = 200_000
MAX_RESULTS = 5
FETCH_TIMEOUT = 15.0
_SKIPPED_TAGS = {"script", "style", "noscript", "template", "svg", "head"}


class WebError(Exception):
    """The search or fetch failed; the message is for the model."""


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One search result."""

    title: str
    url: str
    snippet: str


class SearchProvider(Protocol):
    """Where searches go. Add a provider by implementing `search`."""

    async def search(self, query: str, limit: int) -> list[SearchHit]:
        """Up to `limit` results for `query`."""


class SearxngProvider:
    """A SearXNG instance's JSON API (`/search?q=...&format=json`)."""

    def __init__(self, session: aiohttp.ClientSession, url: str) -> None:
        """`url`: the instance's base URL or its /search endpoint."""
        self._session = session
        base = URL(url.rstrip("/"))
        self._url = base if base.path.endswith("/search") else base / "search"

    async def search(self, query: str, limit: int) -> list[SearchHit]:
        """Ask the instance."""
        data = await _get_json(
            self._session, self._url.with_query(q=query, format="json")
        )
        results = data.get("results") if isinstance(data, dict) else None
        if not isinstance(results, list):
            raise WebError("The search provider gave no results list.")
        return [
            SearchHit(
                str(hit.get("title", "")),
                str(hit.get("url", "")),
                str(hit.get("content", "")),
            )
            for hit in results[:limit]
            if isinstance(hit, dict)
        ]


async def _get_json(session: aiohttp.ClientSession, url: URL) -> object:
    try:
        async with session.get(
            url, timeout=aiohttp.ClientTimeout(total=FETCH_TIMEOUT)
        ) as response:
            response.raise_for_status()
            return await response.json(content_type=None)
    except (aiohttp.ClientError, TimeoutError, ValueError) as err:
        raise WebError(f"The search provider failed ({type(err).__name__}).") from err


async def fetch_text(session: aiohttp.ClientSession, url: str) -> str:
    """The readable text of a web page (at most MAX_PAGE_BYTES are read)."""
    target = URL(url)
    if target.scheme not in ("http", "https") or not target.host:
        raise WebError("Only http and https URLs can be fetched.")
    try:
        async with session.get(
            target, timeout=aiohttp.ClientTimeout(total=FETCH_TIMEOUT)
        ) as response:
            response.raise_for_status()
            body = await response.content.read(MAX_PAGE_BYTES)
            charset = response.charset or "utf-8"
            html = "html" in response.content_type
    except (aiohttp.ClientError, TimeoutError) as err:
        raise WebError(f"Could not fetch {url} ({type(err).__name__}).") from err
    text = body.decode(charset, errors="replace")
    return page_text(text) if html else text


def page_text(html: str) -> str:
    """Visible text of an HTML document, whitespace collapsed."""
    parser = _TextParser()
    parser.feed(html)
    parser.close()
    return re.sub(r"\s+", " ", " ".join(parser.parts)).strip()


class _TextParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skipping = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIPPED_TAGS:
            self._skipping += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIPPED_TAGS and self._skipping:
            self._skipping -= 1

    def handle_data(self, data: str) -> None:
        if not self._skipping:
            self.parts.append(data)
