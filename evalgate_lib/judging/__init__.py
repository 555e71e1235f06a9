"""judging layer: correctness, sentence support, flags and the typed result rows."""

from evalgate_lib.judging import prose_support, span_support  # noqa: F401  (register the "prose" and "span" scorers)
