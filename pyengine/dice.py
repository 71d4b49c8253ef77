"""Dice: notation -> AST -> annotated roll, and the exact distribution of the same AST.

    >>> import random
    >>> roll("4d6kh3", random.Random(1)).total
    10
    >>> round(distribution("2d6").at_least(7), 4)
    0.5833
"""

from __future__ import annotations

from .notation import MAX_DICE, MAX_SIDES, MAX_TEXT, Node, parse
from .odds import DEFAULT_WORK, EXPLODE_CUTOFF, Budget, Distribution, Estimate, distribution, distribution_ast, sample
from .rolling import MAX_CHAIN, MAX_REROLLS, MAX_ROLLED, DieRoll, Rng, RollResult, roll, roll_ast, roll_total

__all__ = [
    "MAX_CHAIN", "MAX_DICE", "MAX_REROLLS", "MAX_ROLLED", "MAX_SIDES", "MAX_TEXT", "EXPLODE_CUTOFF", "DEFAULT_WORK",
    "Budget", "DieRoll", "Distribution", "Estimate", "Node", "RollResult", "Rng",
    "distribution", "distribution_ast", "parse", "roll", "roll_ast", "roll_total", "sample",
]
