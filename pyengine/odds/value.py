"""A distribution as a value (`Distribution`: immutable, hashable, with operations), the work
budget every exact computation draws from, and the small tools on probability mass functions
(convolution, combination, repeated sums) the exact algorithms share."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate
from types import MappingProxyType
from typing import Any, TypeVar

from ..errors import DiceLimitError, DiceWorkError

__all__ = ["EXPLODE_CUTOFF", "MAX_SUPPORT", "DEFAULT_WORK", "Pmf", "Budget", "Distribution", "convolve", "combine", "power", "check_pmf", "uniform_sum", "either", "K", "PmfT"]

EXPLODE_CUTOFF = 1e-12
MAX_SUPPORT = 200_000      # distinct totals (or joint states) one distribution may hold
# One unit of work is about 100 ns of CPython on a 2-core machine (the loops weigh their steps to
# match; `python3 build.py bench` prints the figures): about 0.7 s at most by default.
DEFAULT_WORK = 6_000_000

Pmf = dict[int, float]


class Budget:
    """The work one exact computation may still do. Every loop spends from it before it runs."""

    __slots__ = ("limit", "left")

    def __init__(self, limit: int = DEFAULT_WORK) -> None:
        self.limit = limit
        self.left = limit

    @property
    def used(self) -> int:
        return self.limit - self.left

    def spend(self, steps: int) -> None:
        """Spend `steps` before they run; refused (and nothing spent) past the limit: `used` is the work
        done, never more than the limit."""
        if steps > self.left:
            raise DiceWorkError("The exact odds of this expression take too long to compute.")
        self.left -= steps


@dataclass(frozen=True)
class Distribution:
    """The exact probability of every total; `residual` is the mass cut off from explosions.

    A value: the operations return new distributions (icepool's style), so a rule system builds its
    odds from a pmf, a sum, a map over outcomes and a mixture of cases, never by hand.

        >>> d6 = Distribution.uniform(1, 6)
        >>> round((d6 + d6).at_least(7), 6)
        0.583333
        >>> [(v, round(p, 4)) for v, p in d6.map(lambda v: max(0, v - 4)).items()]
        [(0, 0.6667), (1, 0.1667), (2, 0.1667)]
        >>> Distribution.mix([(0.5, Distribution.constant(0)), (0.5, d6)]).probability(0)
        0.5
    """

    pmf: Mapping[int, float]
    residual: float = 0.0

    def __post_init__(self) -> None:
        # A read-only view of its own copy: a distribution a cache hands out cannot be changed through
        # it (`distribution("2d6").pmf[99] = 1.0` raises), and it hashes as the value it is.
        object.__setattr__(self, "pmf", MappingProxyType(dict(self.pmf)))

    def __hash__(self) -> int:
        return hash((tuple(self.pmf.items()), self.residual))

    @staticmethod
    def from_pmf(pmf: dict[int, float], residual: float = 0.0) -> Distribution:
        """Sorted by outcome, outcomes of probability 0 left out."""
        return Distribution(dict(sorted((v, p) for v, p in pmf.items() if p > 0.0)), residual)

    @staticmethod
    def from_pairs(pairs: Iterable[tuple[int, float]], residual: float = 0.0) -> Distribution:
        """Outcomes that repeat add up: [(0, .5), (1, .25), (0, .25)] gives P(0) = .75."""
        pmf: dict[int, float] = {}
        for v, p in pairs:
            pmf[v] = pmf.get(v, 0.0) + p
        return Distribution.from_pmf(pmf, residual)

    @staticmethod
    def constant(value: int) -> Distribution:
        return Distribution({value: 1.0})

    @staticmethod
    def uniform(low: int, high: int) -> Distribution:
        return Distribution({v: 1.0 / (high - low + 1) for v in range(low, high + 1)})

    @staticmethod
    def mix(cases: Iterable[tuple[float, Distribution]]) -> Distribution:
        """A mixture: case i happens with probability w_i (the weights may sum to less than 1)."""
        pairs: list[tuple[int, float]] = []
        residual = 0.0
        for weight, dist in cases:
            if weight:
                pairs.extend((v, weight * p) for v, p in dist.pmf.items())
                residual += weight * dist.residual
        return Distribution.from_pairs(pairs, residual)

    def map(self, fn: Callable[[int], int]) -> Distribution:
        """The distribution of fn(outcome); outcomes fn sends to one value add up."""
        return Distribution.from_pairs(((fn(v), p) for v, p in self.pmf.items()), self.residual)

    def __add__(self, other: Distribution) -> Distribution:
        """The sum of two independent totals."""
        return Distribution.from_pmf(convolve(dict(self.pmf), dict(other.pmf)), either(self.residual, other.residual))

    def times(self, n: int, budget: Budget | None = None) -> Distribution:
        """The sum of n independent copies."""
        return Distribution.from_pmf(power(dict(self.pmf), n, budget), 1.0 - (1.0 - self.residual) ** n)

    @property
    def min(self) -> int:
        return min(self.pmf)

    @property
    def max(self) -> int:
        return max(self.pmf)

    @property
    def mean(self) -> float:
        mass = sum(self.pmf.values())
        return sum(v * p for v, p in self.pmf.items()) / mass

    @property
    def stdev(self) -> float:
        mass = sum(self.pmf.values())
        mean = self.mean
        return math.sqrt(max(0.0, sum((v - mean) ** 2 * p for v, p in self.pmf.items()) / mass))

    def at_least(self, x: int) -> float:
        return sum(p for v, p in self.pmf.items() if v >= x)

    def at_most(self, x: int) -> float:
        return sum(p for v, p in self.pmf.items() if v <= x)

    def probability(self, x: int) -> float:
        return self.pmf.get(x, 0.0)

    def items(self) -> list[tuple[int, float]]:
        return sorted(self.pmf.items())


# -- small tools ---------------------------------------------------------------------------

PmfT = TypeVar("PmfT", bound=dict[Any, float])
K = TypeVar("K")  # the state a chain folds its dice into


def check_pmf(pmf: PmfT) -> PmfT:
    if len(pmf) > MAX_SUPPORT:
        raise DiceLimitError(f"The odds of this expression have more than {MAX_SUPPORT:,} outcomes; roll it instead.")
    return pmf


def _support_check(low: int, high: int) -> None:
    if high - low + 1 > MAX_SUPPORT:
        raise DiceLimitError(f"The odds of this expression have more than {MAX_SUPPORT:,} outcomes; roll it instead.")


def _uniform(pmf: Pmf) -> tuple[int, int] | None:
    """(lowest value, number of values) when pmf is one die: equally likely consecutive values."""
    if len(pmf) < 2:
        return None
    low, high = min(pmf), max(pmf)
    if high - low + 1 != len(pmf):
        return None
    first = next(iter(pmf.values()))
    if abs(first * len(pmf) - 1.0) > 1e-12 or any(abs(p - first) > 1e-15 * first for p in pmf.values()):
        return None  # not equally likely, or a part of a distribution (its mass is not 1)
    return low, len(pmf)


def _slide(dense: list[float], sides: int, budget: Budget) -> list[float]:
    """A dense pmf plus one uniform die of `sides` consecutive values: a sliding window sum,
    O(len + sides) instead of len * sides. Each window is the difference of two running sums,
    taken from whichever end holds less mass, so both tails keep their precision."""
    width = len(dense)
    budget.spend(3 * (width + sides))
    prefix = [0.0, *accumulate(dense)]                       # prefix[i] = sum(dense[:i])
    suffix = [*accumulate(reversed(dense))][::-1] + [0.0]    # suffix[i] = sum(dense[i:])
    pad = sides - 1
    p_hi = prefix[1:] + [prefix[width]] * pad
    p_lo = [0.0] * pad + prefix[:width]
    s_hi = suffix[1:] + [0.0] * pad
    s_lo = [suffix[0]] * pad + suffix[:width]
    p = 1.0 / sides
    return [
        max(0.0, (ph - pl) if ph <= sl else (sl - sh)) * p
        for ph, pl, sl, sh in zip(p_hi, p_lo, s_lo, s_hi)
    ]


def _slide_symmetric(dense: list[float], sides: int, budget: Budget) -> list[float]:
    """_slide for a symmetric pmf (a sum of identical uniform dice): the result is symmetric too,
    so only its lower half is computed (from the small end, keeping the precision) and mirrored."""
    width = len(dense)
    size = width + sides - 1
    half = (size + 1) // 2
    budget.spend(width // 2 + half)
    prefix = [0.0, *accumulate(dense[:half])]  # prefix[i] = sum(dense[:i])
    top = min(width, half)
    upper = prefix[1:top + 1] + [prefix[top]] * (half - top)   # prefix[min(t + 1, width)]
    lower = ([0.0] * min(sides - 1, half) + prefix)[:half]     # prefix[max(0, t - sides + 1)]
    p = 1.0 / sides
    low_half = [(a - b) * p for a, b in zip(upper, lower)]
    return low_half + low_half[: size - half][::-1]


def uniform_sum(faces: Sequence[int], n: int, budget: Budget) -> Pmf:
    """The sum of n dice whose faces are consecutive and equally likely (a plain NdX), one die at a
    time by a sliding window over the symmetric running distribution."""
    low, sides = faces[0], len(faces)
    _support_check(n * low, n * (low + sides - 1))
    budget.spend(2 * sides)
    dense = [1.0 / sides] * sides
    for _ in range(n - 1):
        dense = _slide_symmetric(dense, sides, budget)
    return _sparse(n * low, dense)


def _dense(pmf: Pmf) -> tuple[int, list[float]]:
    low = min(pmf)
    return low, [pmf.get(low + i, 0.0) for i in range(max(pmf) - low + 1)]


def _sparse(low: int, dense: list[float]) -> Pmf:
    return {low + i: p for i, p in enumerate(dense) if p > 0.0}


def convolve(a: Pmf, b: Pmf, budget: Budget | None = None) -> Pmf:
    """The distribution of the sum of two independent totals."""
    budget = budget if budget is not None else Budget()
    if len(a) * len(b) > 4 * (len(a) + len(b)):
        for other, side in ((a, b), (b, a)):
            die = _uniform(side)
            if die is not None and max(other) - min(other) < 2 * len(other):  # dense enough for a window
                _support_check(min(other) + die[0], max(other) + die[0] + die[1] - 1)
                budget.spend(3 * (len(other) + len(side)))  # to a list and back to a dict
                low, dense = _dense(other)
                return _sparse(low + die[0], _slide(dense, die[1], budget))
    if len(a) < len(b):
        a, b = b, a
    budget.spend(len(a) * len(b))
    out: Pmf = {}
    for y, q in b.items():
        for x, p in a.items():
            out[x + y] = out.get(x + y, 0.0) + p * q
    return check_pmf(out)


def combine(a: Pmf, b: Pmf, fn: Callable[[int, int], int], budget: Budget | None = None) -> Pmf:
    """The distribution of fn(x, y) for independent x ~ a, y ~ b."""
    budget = budget if budget is not None else Budget()
    budget.spend(10 * len(a) * len(b))
    out: Pmf = {}
    for x, p in a.items():
        for y, q in b.items():
            z = fn(x, y)
            out[z] = out.get(z, 0.0) + p * q
    return check_pmf(out)


def power(pmf: Pmf, n: int, budget: Budget | None = None) -> Pmf:
    """The sum of n independent copies: one die at a time by sliding window when it is a uniform
    die, else by repeated squaring."""
    budget = budget if budget is not None else Budget()
    if n == 0:
        return {0: 1.0}
    _support_check(n * min(pmf), n * max(pmf))
    die = _uniform(pmf)
    if die is not None:
        return uniform_sum(range(die[0], die[0] + die[1]), n, budget)
    result: Pmf = {0: 1.0}
    base = pmf
    while n:
        if n & 1:
            result = convolve(result, base, budget)
        n >>= 1
        if n:
            base = convolve(base, base, budget)
    return result


def either(ra: float, rb: float) -> float:
    return 1.0 - (1.0 - ra) * (1.0 - rb)


