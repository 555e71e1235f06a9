"""A team's own chunker: ``[chunking] method = "package.module:function"``.

The function takes one :class:`~evalgate_lib.inputs.corpus.Article` (``id``, ``title``,
``body``) and the other keys of ``[chunking]`` as keyword arguments, and returns the
chunks as ``(start, end)`` character spans of ``article.body``. Spans, not strings,
because every chunk must keep where it came from: the evidence-level retrieval metrics
check gold evidence against those spans, exactly as for the built-in chunkers.

The module is imported from the config file's folder, the current directory, or
anywhere on ``sys.path`` (an installed package). Its source is hashed (SHA-256 of the
module file, so a change in a helper it calls counts too) and the hash is recorded in
the manifest beside the method: two runs whose chunker code differs say so. The model
calls need no extra key: each is cached by a hash of its full input, so a code change
that changes any chunk's text re-runs exactly the embeddings and answers it affects, and
one that changes nothing (a comment) re-runs nothing.
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from evalgate_lib.errors import InputError
from evalgate_lib.inputs.corpus import Article


def is_custom(method: object) -> bool:
    """True for a ``"module:function"`` method name (the built-in chunkers have plain names)."""
    return isinstance(method, str) and ":" in method


@dataclass(frozen=True)
class CustomChunker:
    """A loaded user chunker and what identifies its code."""

    method: str
    function: Callable[..., Any]
    source_path: str
    source_sha256: str

    def parameters(self) -> tuple[list[str], bool]:
        """The keyword parameters it takes after ``article``, and whether it takes ``**kwargs``."""
        params = list(inspect.signature(self.function).parameters.values())[1:]
        names = [p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
        return names, any(p.kind == p.VAR_KEYWORD for p in params)


#: Source hash of each custom chunker module as this process imported it (see :func:`load_chunker`).
_loaded: dict[str, str] = {}


@contextmanager
def _importable_from(folders: Sequence[Path]) -> Iterator[None]:
    added = [str(f) for f in folders if str(f) not in sys.path]
    sys.path[:0] = added
    try:
        yield
    finally:
        for folder in added:
            sys.path.remove(folder)


def load_chunker(method: str, source: str, search: Sequence[Path] = ()) -> CustomChunker:
    """Import ``method`` (``"package.module:function"``), searching ``search`` folders first.

    ``source`` says where the name came from (``"configs/x.toml: [chunking]"``) for messages.
    """
    module_name, _, attr = method.partition(":")
    if not module_name or not attr or ":" in attr:
        raise InputError(f"{source}: a custom chunker is named 'package.module:function', got {method!r}")
    with _importable_from([*search, Path.cwd()]):
        try:
            module = importlib.import_module(module_name)
            path = getattr(module, "__file__", None)
            if path is None:
                raise InputError(f"{source}: module {module_name!r} has no source file to hash")
            digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()
            if _loaded.setdefault(module_name, digest) != digest:
                # edited since this process imported it (a notebook kernel): run the code the hash names
                module = importlib.reload(module)
                _loaded[module_name] = digest
        except ImportError as exc:
            where = ", ".join(str(f) for f in [*search, Path.cwd()])
            raise InputError(
                f"{source}: cannot import chunker module {module_name!r} ({exc}); looked in {where}"
            ) from None
    function = getattr(module, attr, None)
    if not callable(function):
        raise InputError(f"{source}: module {module_name!r} has no function {attr!r}")
    return CustomChunker(method, function, str(path), digest)


def check_params(chunker: CustomChunker, params: dict[str, Any], source: str) -> None:
    """Refuse a ``[chunking]`` key the function does not take, or a value TOML cannot mean plainly."""
    import difflib

    names, any_keyword = chunker.parameters()
    for name, value in params.items():
        if name not in names and not any_keyword:
            near = difflib.get_close_matches(name, names, n=1, cutoff=0.6)
            hint = f"; did you mean {near[0]!r}?" if near else f"; it takes: {', '.join(names) or 'no parameters'}"
            raise InputError(f"{source}: unknown key {name!r} for the chunker {chunker.method!r}{hint}")
        if not isinstance(value, (int, float, str, bool)):
            raise InputError(f"{source}: the chunker's {name} must be a number, string or boolean, got {value!r}")


def spans_of(chunker: CustomChunker, article: Article, params: dict[str, Any]) -> list[tuple[int, int]]:
    """Call the user's chunker on one article and check every span it returns, naming the article."""
    try:
        result = chunker.function(article, **params)
    except Exception as exc:
        raise InputError(f"chunker {chunker.method!r} failed on article {article.id!r}: {exc!r}") from exc
    spans = []
    length = len(article.body)
    for i, span in enumerate(result or ()):
        ok = (
            isinstance(span, (tuple, list))
            and len(span) == 2
            and all(isinstance(x, int) and not isinstance(x, bool) for x in span)
        )
        if not ok or not 0 <= span[0] < span[1] <= length:
            raise InputError(
                f"chunker {chunker.method!r} returned {span!r} as span {i} of article {article.id!r}: "
                f"each chunk must be a (start, end) pair of character offsets with 0 <= start < end <= {length}"
            )
        spans.append((span[0], span[1]))
    return spans
