"""The odds of an expression estimated by rolling it many times, a slice at a time (when the exact
answer is over budget)."""

from __future__ import annotations

import math

from ..errors import DiceLimitError
from ..notation import Node
from ..rolling import Rng, roll_total
from .value import Distribution

__all__ = ["Estimate", "sample"]

class Estimate:
    """The odds of an expression estimated by rolling it many times (when the exact answer is over
    budget). Rolls are added in slices, so a page can draw more between two taps."""

    def __init__(self) -> None:
        self.counts: dict[int, int] = {}
        self.rolls = 0
        self.refused = 0  # rolls that went past a cap (an explosion chain of over 100 dice ...)

    def add(self, total: int) -> None:
        self.counts[total] = self.counts.get(total, 0) + 1
        self.rolls += 1

    def distribution(self) -> Distribution:
        n = self.rolls
        return Distribution({v: c / n for v, c in sorted(self.counts.items())})

    def margin(self, p: float) -> float:
        """Half the 95% confidence interval of a probability p estimated from these rolls."""
        return 1.96 * math.sqrt(max(p * (1.0 - p), 0.25 / self.rolls) / self.rolls) if self.rolls else 1.0


def sample(ast: Node, estimate: Estimate, rng: Rng, rolls: int, dice_limit: int | None = None) -> Estimate:
    """Roll `rolls` more times into `estimate`. A roll past a cap (or past `dice_limit` dice drawn:
    what one slice of a page may take) is counted as refused; an impossible roll (division by zero)
    raises DiceValueError."""
    for _ in range(rolls):
        try:
            estimate.add(roll_total(ast, rng) if dice_limit is None else roll_total(ast, rng, dice_limit))
        except DiceLimitError:
            estimate.refused += 1
    return estimate


