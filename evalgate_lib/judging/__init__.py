"""judging layer."""
