"""Text that reaches an output medium, escaped for that medium: one function per medium.

A config name, an answer, a reviewer's name or a path is user-supplied text, and each medium
EvalGate writes to has characters that are not text to it:

* **a terminal** (what ``evalgate`` prints): control characters are commands. ``ESC [ 2 J`` clears
  the screen, a carriage return moves back to the start of the line so what follows overwrites a
  ``FAIL`` with a faked ``PASS``, a vertical tab or form feed starts a line of its own.
  :func:`terminal_text` shows each one visibly as its Python escape (``\\x1b``, ``\\r``), and so
  are the bidirectional controls that reorder what a line shows (U+202A–U+202E, U+2066–U+2069)
  and the line and paragraph separators; a line break and a tab stay as they are.
* **JUnit XML** (XML 1.0): most control characters may not appear in an XML 1.0 document at all,
  not even as a character reference, so a CI system refuses the whole report for one ``ESC`` in a
  name. :func:`xml10_text` replaces each character XML 1.0 forbids with its visible escape.
* **Markdown** (a CI job summary): a line break in a name ends its table row or list item and can
  start a heading; ``[text](url)`` and ``![alt](url)`` make a link or an image, ``*``, ``_`` and
  backticks change the text around them, and ``<...>`` is HTML. :func:`markdown_text` puts a
  name on one line (every line break, a lone carriage return included, becomes a space),
  HTML-escapes it, backslash-escapes the characters of Markdown's inline syntax, the ``(`` of a
  link's ``](`` and the ``:`` of a bare address's ``://``, so what is shown is exactly the name's
  characters, as text.

The HTML report has its own escaping (``html.escape`` in :mod:`evalgate_lib.reporting`); these
three are for the media that have none built in.
"""

from __future__ import annotations

import html
import re

#: Characters a terminal acts on instead of showing: C0 controls but the line break and the tab, DEL,
#: C1 controls, the line and paragraph separators and the bidirectional embedding, override and isolate controls.
_TERMINAL_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
#: Characters XML 1.0 forbids in a document (its ``Char`` production), as a pattern; a lone surrogate included.
_XML10_FORBIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
#: Every line ending CommonMark knows (LF, CR) and the ones other renderers or editors break on.
_LINE_BREAKS = re.compile("\r\n|[\r\n\x0b\x0c\x85\u2028\u2029]")
#: The ASCII punctuation of Markdown's inline syntax that changes the text around it (emphasis, code, table
#: cells, strike-through, escapes); brackets are left alone (an interval ``[-5.0, +1.2]`` stays as it reads).
_MARKDOWN_INLINE = re.compile(r"([\\`*_|~])")


def visible(char: str) -> str:
    """One character as its Python escape: ``\\x1b``, ``\\r``, ``\\u202e`` (a printable one is itself)."""
    shown = repr(char)[1:-1]
    return shown if shown != char else f"\\u{ord(char):04x}"


def terminal_text(text: str) -> str:
    """``text`` as a terminal shows it: every control character written as its escape (module docstring)."""
    if text.isascii() and text.isprintable():
        return text
    return _TERMINAL_CONTROL.sub(lambda m: visible(m.group()), text)


def xml10_text(text: str) -> str:
    """``text`` with each character XML 1.0 forbids written as its escape, so the document parses."""
    return _XML10_FORBIDDEN.sub(lambda m: visible(m.group()), text)


def markdown_text(text: str) -> str:
    """``text`` as one line of Markdown that renders as exactly these characters (module docstring).

    For a name or a line inside a table cell, a list item or a heading: line breaks become spaces,
    HTML is escaped (job summaries render HTML), and links, images, emphasis, code spans and table
    pipes are neutralised; other control characters are shown as :func:`terminal_text` shows them.
    """
    one_line = terminal_text(_LINE_BREAKS.sub(" ", text))
    escaped = _MARKDOWN_INLINE.sub(r"\\\1", html.escape(one_line, quote=False))
    # a link or an image needs "](" with nothing between; an address written out needs "://"
    return escaped.replace("](", "]\\(").replace("://", "\\://")
