"""Running a recursive walk of a tree without Python recursion: the walk as generators on an explicit stack.

A document tree is as deep as its markup says: a page of 500 nested ``<div>``s, or a hand-written page
whose 3,000 ``<li>`` are never closed (Python's HTML parser nests each in the one before), is deeper
than Python's recursion limit allows a recursive walk to go. Written as a generator, a walk keeps
its shape: where it would call itself on a child it yields the child's walk instead, and
:func:`run` runs that walk on a list and sends its result back. The depth then costs list
entries, not stack frames::

    def count(node):
        total = 1
        for child in node.children:
            total += yield count(child)
        return total

    run(count(root))
"""

from __future__ import annotations

from typing import Any, Generator

#: A walk: a generator that yields the walks of its parts and is sent each one's result.
Walk = Generator["Walk", Any, Any]


def run(walk: Walk) -> Any:
    """Run ``walk`` and every walk it yields, depth first, on an explicit stack; its result."""
    stack: list[Walk] = [walk]
    value: Any = None
    while stack:
        try:
            child = stack[-1].send(value)
        except StopIteration as stop:
            stack.pop()
            value = stop.value
            continue
        stack.append(child)
        value = None
    return value
