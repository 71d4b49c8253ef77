"""Exact probability distributions of dice expressions, computed from the AST.

Sums are convolutions (a sliding window when one side is a uniform die); keep/drop comes from order
statistics, or a dynamic programme over the distinct values of a die when it also counts successes
(never enumeration of all rolls); exploding dice mix over the negative-binomial count of explosions,
or follow their chain when they count successes. What is cut off below EXPLODE_CUTOFF is reported as
`residual`. Floats throughout: exact up to rounding.

Every loop of one computation draws from one `Budget`: past it, a DiceWorkError says so (the page then
estimates by simulation), so no expression within the notation's caps can hang the caller.

The package's rooms: `value` (the Distribution, the budget, the pmf tools), `dice_sets` (one die and
a set of dice), `exact` (a whole expression, the cache, the possible range), `estimate` (simulation).
"""

from .dice_sets import explosion_count
from .estimate import Estimate, sample
from .exact import distribution, distribution_ast, possible_range
from .value import DEFAULT_WORK, EXPLODE_CUTOFF, MAX_SUPPORT, Budget, Distribution, combine, convolve, power

__all__ = [
    "EXPLODE_CUTOFF", "MAX_SUPPORT", "DEFAULT_WORK", "Budget", "Distribution", "Estimate", "distribution", "explosion_count",
    "distribution_ast", "convolve", "combine", "power", "sample", "possible_range",
]
