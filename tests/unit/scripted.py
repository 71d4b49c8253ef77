"""A scripted RNG: returns the given faces in order, and checks each lies in the asked range."""

from __future__ import annotations

from collections.abc import Iterable


class Scripted:
    def __init__(self, faces: Iterable[int]) -> None:
        self.left: list[int] = list(faces)

    def randint(self, a: int, b: int) -> int:
        if not self.left:
            raise AssertionError("the scripted dice ran out")
        face = self.left.pop(0)
        if not a <= face <= b:
            raise AssertionError(f"scripted face {face} is not in {a}..{b}")
        return face
