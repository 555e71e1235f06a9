"""Loading the knowledge base: a folder of Markdown articles with front matter.

Each file ``<id>.md`` starts with a YAML front-matter block holding at least
``id`` and ``title``. The body (everything after the block) is what gets
chunked, and what gold evidence spans are character offsets into.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import yaml

from evalgate_lib.errors import InputError


@dataclass(frozen=True)
class Article:
    """One knowledge-base article."""

    id: str
    title: str
    body: str
    path: str = ""


def parse_article(text: str, source: str) -> Article:
    """Parse one article's text; ``source`` names it in error messages."""
    if not text.startswith("---\n"):
        raise InputError(f"{source}: an article must start with a '---' front-matter block holding id and title")
    end = text.find("\n---\n", 4)
    if end < 0:
        raise InputError(f"{source}: the front-matter block is not closed by a '---' line")
    try:
        meta = yaml.safe_load(text[4:end]) or {}
    except yaml.YAMLError as exc:
        raise InputError(f"{source}: front matter is not valid YAML: {exc}") from None
    if not isinstance(meta, dict) or not meta.get("id") or not meta.get("title"):
        raise InputError(f"{source}: front matter must set both 'id' and 'title'")
    body = text[end + len("\n---\n") :]
    if not body.strip():
        raise InputError(f"{source}: the article body is empty")
    return Article(id=str(meta["id"]), title=str(meta["title"]), body=body, path=source)


def load_corpus(directory: str | Path) -> list[Article]:
    """Load every ``*.md`` file of ``directory``, sorted by file name.

    Refuses an empty or missing folder, a file that is not UTF-8 text (a binary
    file dropped into the KB), and two articles with the same id.
    """
    folder = Path(directory)
    if not folder.is_dir():
        raise InputError(f"corpus folder {folder} does not exist")
    files = sorted(folder.glob("*.md"))
    if not files:
        raise InputError(f"corpus folder {folder} holds no *.md articles")
    articles: list[Article] = []
    seen: dict[str, str] = {}
    for path in files:
        raw = path.read_bytes()
        if b"\x00" in raw:
            raise InputError(f"{path}: looks like a binary file (NUL bytes), not a Markdown article")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(f"{path}: not UTF-8 text ({exc})") from None
        article = parse_article(text.replace("\r\n", "\n"), str(path))
        if article.id in seen:
            raise InputError(f"{path}: article id {article.id!r} is already used by {seen[article.id]}")
        seen[article.id] = str(path)
        articles.append(article)
    return articles


def corpus_digest(articles: list[Article]) -> str:
    """SHA-256 over ids, titles and bodies: the corpus identity recorded in the manifest."""
    digest = hashlib.sha256()
    for article in sorted(articles, key=lambda a: a.id):
        for part in (article.id, article.title, article.body):
            digest.update(part.encode("utf-8") + b"\x00")
    return digest.hexdigest()
