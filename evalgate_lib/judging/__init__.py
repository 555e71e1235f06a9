"""judging layer: correctness, sentence support, flags and the typed result rows.

Scorers are listed in one registry, :mod:`evalgate_lib.judging.scorers`; nothing here is
imported for its side effects.
"""
