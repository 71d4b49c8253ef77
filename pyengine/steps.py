"""Work done a step at a time: a generator yields between steps (the page ends its task there) and
returns what it made; `finished` runs one to its end at once (CPython, the command line, tests)."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any, TypeVar

__all__ = ["finished"]

T = TypeVar("T")


def finished(steps: Generator[Any, None, T]) -> T:
    """What `steps` returns, run without its pauses.

    >>> def counting():
    ...     yield 1
    ...     return "done"
    >>> finished(counting())
    'done'
    """
    while True:
        try:
            next(steps)
        except StopIteration as done:
            result: T = done.value
            return result
