"""chunks layer."""
