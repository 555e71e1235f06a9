"""statistics layer."""
