"""Probing the judge: faithful answers edited one way at a time, the construction as the label (docs/judge.md)."""
