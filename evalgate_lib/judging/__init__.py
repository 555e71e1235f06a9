"""judging layer: correctness, sentence support, flags and the typed result rows."""

from evalgate_lib.judging import span_support  # noqa: F401  (registers the "span" sentence scorer)
