"""Exact probability distributions of dice expressions, computed from the AST.

Sums are convolutions (a sliding window when one side is a uniform die); keep/drop comes from order
statistics, or a dynamic programme over the distinct values of a die when it also counts successes
(never enumeration of all rolls); exploding dice mix over the negative-binomial count of explosions,
or follow their chain when they count successes. What is cut off below EXPLODE_CUTOFF is reported as
`residual`. Floats throughout: exact up to rounding.

Every loop of one computation draws from one `Budget`: past it, a DiceWorkError says so (the page then
estimates by simulation), so no expression within the notation's caps can hang the caller.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache, partial
from itertools import accumulate
from types import MappingProxyType
from typing import Any, TypeVar

from .errors import DiceLimitError, DiceValueError, DiceWorkError
from .notation import Binary, Call, Cmp, Compare, Const, Dice, Explode, Group, Label, Node, SetOp, Unary, left_spine, parse
from .rolling import Rng, apply_set_ops, binary_value, call_value, compare_value, roll_total, separate_dice

__all__ = [
    "EXPLODE_CUTOFF", "MAX_SUPPORT", "DEFAULT_WORK", "Budget", "Distribution", "Estimate", "distribution", "explosion_count",
    "distribution_ast", "convolve", "combine", "power", "sample", "possible_range",
]

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
        self.left -= steps
        if self.left < 0:
            raise DiceWorkError("The exact odds of this expression take too long to compute.")


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
        return Distribution.from_pmf(convolve(dict(self.pmf), dict(other.pmf)), _either(self.residual, other.residual))

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


# -- small tools ---------------------------------------------------------------------------

PmfT = TypeVar("PmfT", bound=dict[Any, float])
K = TypeVar("K")  # the state a chain folds its dice into


def _check(pmf: PmfT) -> PmfT:
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


def _uniform_sum(faces: Sequence[int], n: int, budget: Budget) -> Pmf:
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
    return _check(out)


def combine(a: Pmf, b: Pmf, fn: Callable[[int, int], int], budget: Budget | None = None) -> Pmf:
    """The distribution of fn(x, y) for independent x ~ a, y ~ b."""
    budget = budget if budget is not None else Budget()
    budget.spend(10 * len(a) * len(b))
    out: Pmf = {}
    for x, p in a.items():
        for y, q in b.items():
            z = fn(x, y)
            out[z] = out.get(z, 0.0) + p * q
    return _check(out)


def power(pmf: Pmf, n: int, budget: Budget | None = None) -> Pmf:
    """The sum of n independent copies: one die at a time by sliding window when it is a uniform
    die, else by repeated squaring."""
    budget = budget if budget is not None else Budget()
    if n == 0:
        return {0: 1.0}
    _support_check(n * min(pmf), n * max(pmf))
    die = _uniform(pmf)
    if die is not None:
        return _uniform_sum(range(die[0], die[0] + die[1]), n, budget)
    result: Pmf = {0: 1.0}
    base = pmf
    while n:
        if n & 1:
            result = convolve(result, base, budget)
        n >>= 1
        if n:
            base = convolve(base, base, budget)
    return result


# -- one die -------------------------------------------------------------------------------

def face_pmf(dice: Dice, budget: Budget) -> Pmf:
    """One face after rerolls (r until, ro once) and mi/ma."""
    faces = dice.faces
    s = len(faces)
    steps = [rr for rr in dice.reroll.steps() if rr.kind in ("until", "once")] if dice.reroll is not None else []
    budget.spend(2 * s * (1 + 2 * len(steps)))
    pmf: Pmf = {}
    raw = {f: 1.0 / s for f in faces}
    for rr in steps:  # in turn: each moves the mass on its faces to a fresh die (until: one it does not match)
        moved = sum(p for f, p in raw.items() if rr.test(f))
        landing = [f for f in faces if not rr.test(f)] if rr.kind == "until" else list(faces)
        raw = {f: (0.0 if rr.test(f) else raw[f]) for f in faces}
        for f in landing:
            raw[f] += moved / len(landing)
    for f, p in raw.items():
        if p == 0.0:
            continue
        v = f
        if dice.clamp.low is not None and v < dice.clamp.low:
            v = dice.clamp.low
        if dice.clamp.high is not None and v > dice.clamp.high:
            v = dice.clamp.high
        pmf[v] = pmf.get(v, 0.0) + p
    return pmf


def unit_pmf(dice: Dice, budget: Budget) -> tuple[dict[tuple[int, int], float], float]:
    """Joint distribution of (unit total, unit count) for one die and what it adds; and the residual.

    The count is successes minus failures (0 when the roll does not count successes)."""
    face = face_pmf(dice, budget)
    succ, fail = dice.success, dice.failure
    compound = dice.explode is not None and dice.explode.kind == "compound"

    def weight(v: int) -> int:
        if compound:
            return 0
        return int(succ is not None and succ.test(v)) - int(fail is not None and fail.test(v))

    done: dict[tuple[int, int], float] = {}
    residual = 0.0
    ex = dice.explode
    if ex is None:
        budget.spend(3 * len(face))
        for v, p in face.items():
            key = (v, weight(v))
            done[key] = done.get(key, 0.0) + p
    else:
        done, residual = _chain(face, ex, (0, 0), lambda key, c: (key[0] + c, key[1] + weight(c)), budget)
    if compound:
        done = {
            (t, int(succ is not None and succ.test(t)) - int(fail is not None and fail.test(t))): p
            for (t, _), p in done.items()
        }
    return done, residual


# -- a set of dice -------------------------------------------------------------------------

def dice_pmf(dice: Dice, budget: Budget) -> tuple[Pmf, float]:
    if dice.count == 0:
        return {0: 1.0}, 0.0
    plain = Dice(dice.count, dice.faces, dice.label_sides)
    if dice == replace(plain, text=dice.text):  # NdX with no modifier: the sum of uniform dice
        return _uniform_sum(dice.faces, dice.count, budget), 0.0
    if separate_dice(dice):
        return _exploded_keep(dice, budget)
    if dice.reroll is not None and dice.reroll.kind == "add":
        return _reroll_added(dice, budget), 0.0
    if dice.explode is not None and not dice.explode.once and not dice.set_ops and dice.success is None and dice.failure is None:
        return _exploded_sum(dice, budget)
    joint, unit_residual = unit_pmf(dice, budget)
    budget.spend(4 * len(joint))
    counting = dice.success is not None or dice.failure is not None
    n = dice.count
    residual = 1.0 - (1.0 - unit_residual) ** n if unit_residual else 0.0
    if n == 0:
        return {0: 1.0}, 0.0

    filters = [op for op in dice.set_ops if op.how == "cmp"]
    counted = [op for op in dice.set_ops if op.how != "cmp"]
    ops = list(dice.set_ops)
    if len(counted) > 1 or (counted and any(ops.index(f) > ops.index(counted[0]) for f in filters)):
        raise DiceLimitError("Odds are computed for at most one keep/drop by count, after any keep/drop by value.")

    # Each unit: its key (total) decides selection; its weight is what it adds when kept.
    by_key: dict[int, Pmf] = {}
    excluded = 0.0
    for (key, count), p in joint.items():
        if not all(op.cmp.test(key) == op.keep for op in filters):  # type: ignore[union-attr]
            excluded += p
            continue
        w = count if counting else key
        bucket = by_key.setdefault(key, {})
        bucket[w] = bucket.get(w, 0.0) + p

    if not counted:
        unit: Pmf = {}
        for bucket in by_key.values():
            for w, p in bucket.items():
                unit[w] = unit.get(w, 0.0) + p
        if excluded:
            unit[0] = unit.get(0, 0.0) + excluded
        return power(unit, n, budget), residual

    op = counted[0]
    if op.keep and op.n == 1 and not counting and not excluded:
        return _extreme(by_key, n, highest=op.how == "h", budget=budget), residual
    if not counting and not excluded:  # each unit adds its own total: order statistics
        pool = {key: sum(bucket.values()) for key, bucket in by_key.items()}
        return _keep_sum(pool, n, op.n if op.keep else n - op.n, _keeps_highest(op), budget), residual
    return _select(by_key, excluded, n, op, budget), residual


def _reroll_added(dice: Dice, budget: Budget) -> Pmf:
    """Avrae's `ra`: when any die of the roll matches, one more die is rolled and added (at most
    one per roll, itself never rerolled). The total is the n dice with none matching, or the n
    dice with at least one matching (all outcomes less none matching) plus a die."""
    rr = dice.reroll
    assert rr is not None
    if dice.set_ops:
        raise DiceWorkError("The exact odds of keep/drop after 'ra' are not computed.")
    joint, _ = unit_pmf(replace(dice, reroll=None), budget)
    counting = dice.success is not None or dice.failure is not None
    one: Pmf = {}
    miss: Pmf = {}
    budget.spend(4 * len(joint))
    for (key, count), p in joint.items():
        w = count if counting else key
        one[w] = one.get(w, 0.0) + p
        if not rr.test(key):
            miss[w] = miss.get(w, 0.0) + p
    mass = sum(miss.values())
    every = power(one, dice.count, budget)
    none = {v: p * mass ** dice.count for v, p in power({v: p / mass for v, p in miss.items()}, dice.count, budget).items()} if miss else {}
    budget.spend(4 * len(every) + 2 * len(none))
    some = {v: p - none.get(v, 0.0) for v, p in every.items()}
    out = convolve({v: p for v, p in some.items() if p > 0.0}, one, budget)
    for v, p in none.items():
        out[v] = out.get(v, 0.0) + p
    return _check(out)


def _keeps_highest(op: SetOp) -> bool:
    """kh / k keep from the top, and so do dl / d (they keep the rest)."""
    return (op.how == "h") == op.keep


def _keep_sum(pool: Pmf, n: int, k: int, highest: bool, budget: Budget) -> Pmf:
    """The sum of the k highest (or lowest) of n independent draws from `pool`, from order
    statistics: condition on the k-th kept value t and on the a < k draws beyond it. Those a draws
    are independent draws from `pool` beyond t (a power, by sliding window for a plain die); the
    other k - a kept draws show t. P(a beyond t, at least k - a at t) is binomial. The work is
    about values * k * (n + the support of the power), not values * n^2 * support."""
    k = max(0, min(k, n))
    if k == 0:
        return {0: 1.0}
    if k == n:
        return power(pool, n, budget)
    if not highest:
        flipped = _keep_sum({-v: p for v, p in pool.items()}, n, k, True, budget)
        return {-v: p for v, p in flipped.items()}
    values = sorted(pool, reverse=True)
    budget.spend(len(values) * (k * (n + 4) + 60) + n * n // 2)  # each value t, its sums at t; Pascal's triangle
    binom = _binomials(n)
    beyond_mass = [0.0]   # P(a draw beats values[i]), from the top
    for v in values[:-1]:
        beyond_mass.append(beyond_mass[-1] + pool[v])
    below_mass = [0.0]    # P(a draw is under values[i]), from the bottom (precision in both tails)
    for v in reversed(values[1:]):
        below_mass.append(below_mass[-1] + pool[v])
    below_mass.reverse()
    out: Pmf = {}
    for i, t in enumerate(values):
        q, e, r = beyond_mass[i], pool[t], below_mass[i]
        beyond: Pmf | None = None  # one draw beyond t: built only when a draw beyond t is kept (k > 1)
        beyond_sum: Pmf = {0: 1.0}
        for a in range(0, k):
            if a:
                if not i or q <= 0.0:
                    break  # nothing beats the top value
                if beyond is None:
                    budget.spend(2 * i)
                    beyond = {v: pool[v] / q for v in values[:i]}
                beyond_sum = convolve(beyond_sum, beyond, budget)
            need, rest = k - a, n - a
            at_t = sum(binom[rest][c] * e ** c * r ** (rest - c) for c in range(need, rest + 1))
            weight = binom[n][a] * q ** a * at_t
            if weight == 0.0:
                continue
            shift = need * t
            budget.spend(2 * len(beyond_sum))
            for s, p in beyond_sum.items():
                out[s + shift] = out.get(s + shift, 0.0) + weight * p
    return _check(out)


def explosion_count(p: float, n: int, budget: Budget | None = None) -> Distribution:
    """How many dice show an exploding face when n dice explode, each such face rolling another
    die: a negative binomial, P(k) = C(n + k - 1, k) p^k (1 - p)^n, cut where the mass still to
    come falls below EXPLODE_CUTOFF (that mass is the residual)."""
    budget = budget if budget is not None else Budget()
    if n == 0 or p == 0.0:
        return Distribution.constant(0)

    def up(k: int) -> float:  # P(k + 1) / P(k)
        return (n + k) / (k + 1) * p

    start = 0 if n * math.log1p(-p) > -700 else int((n - 1) * p / (1.0 - p))  # (1 - p)^n underflows: start at the mode
    first = math.exp(math.lgamma(n + start) - math.lgamma(start + 1) - math.lgamma(n) + start * math.log(p) + n * math.log1p(-p))
    pmf: Pmf = {start: first}
    term, k = first, start
    while k > 0 and term > 0.0:  # below the mode: every term, down to the float floor
        budget.spend(4)
        term *= k / ((n + k - 1) * p)
        k -= 1
        pmf[k] = term
    term, k = first, start
    while True:  # above: until what is left (a geometric tail once past the mode) is below the cutoff
        budget.spend(4)
        ratio = up(k)
        if k > start + 1 and ratio < 1.0 and term * ratio / (1.0 - ratio) < EXPLODE_CUTOFF:
            break
        term *= ratio
        k += 1
        pmf[k] = term
        if k - start > MAX_SUPPORT:
            raise DiceLimitError("The explosions of this roll have too many outcomes to compute; roll it instead.")
    residual = 0.0
    while term > 1e-300 and residual < 1.0:  # the mass cut off, summed (it decays geometrically)
        budget.spend(2)
        term *= up(k)
        k += 1
        residual += term
    return Distribution.from_pmf({k: q for k, q in pmf.items() if q > 0.0}, residual)


def _exploded_sum(dice: Dice, budget: Budget) -> tuple[Pmf, float]:
    """The sum of n exploding dice (`!`, `!p`, `!!`: a compound die adds up the same chain) with no
    keep/drop or success count. Of all the dice rolled, K show an exploding face and n a final one;
    K is negative binomial and independent of which faces they show, so the total is a mixture
    over K of K exploding faces (each one less when penetrating) plus n final faces."""
    ex = dice.explode
    assert ex is not None
    face = face_pmf(dice, budget)
    high = {v: p for v, p in face.items() if ex.cmp.test(v)}
    low = {v: p for v, p in face.items() if not ex.cmp.test(v)}
    pe = sum(high.values())
    if not high:
        return power(face, dice.count, budget), 0.0
    drop = 1 if ex.penetrate else 0  # a penetrating extra die counts one less
    cond_high = {v - drop: p / pe for v, p in high.items()}
    cond_low = {v: p / (1.0 - pe) for v, p in low.items()}
    exploding = explosion_count(pe, dice.count, budget)
    mixture: Pmf = {}
    part: Pmf = {0: 1.0}
    for k in range(0, exploding.max + 1):
        if k:
            part = convolve(part, cond_high, budget)
        pk = exploding.pmf.get(k, 0.0)
        if pk == 0.0:
            continue
        budget.spend(2 * len(part))
        for v, q in part.items():
            mixture[v] = mixture.get(v, 0.0) + pk * q
    return convolve(_check(mixture), power(cond_low, dice.count, budget), budget), exploding.residual


def _exploded_keep(dice: Dice, budget: Budget) -> tuple[Pmf, float]:
    """Keep/drop over every die an explosion rolled (`4d6!kh3` keeps the best 3 of all dice, as
    Roll20, Foundry and Avrae read it). The number M of exploding faces shown is negative binomial
    and independent of the faces the chains end on, so the result mixes over M: M dice from the
    exploding faces and N from the others, kept by order statistics (a fast path when the exploding
    faces are the highest). Penetrating dice (`!p`, each added die one less) mix over J, the chains
    that explode, then M. Keep/drop by value sums each die that passes, chain by chain."""
    ex = dice.explode
    ops = dice.set_ops
    if ex is None or ex.kind != "explode" or ex.once:
        raise DiceWorkError("The exact odds of keep/drop over dice that explode once are not computed.")
    face = face_pmf(dice, budget)
    high = {v: p for v, p in face.items() if ex.cmp.test(v)}
    low = {v: p for v, p in face.items() if not ex.cmp.test(v)}
    pe = sum(high.values())
    if not low or not high:
        return dice_pmf(replace(dice, explode=None), budget)  # nothing (or everything: refused by the parser) explodes
    counting = dice.success is not None or dice.failure is not None

    def worth(v: int) -> int:
        return int(dice.success is not None and dice.success.test(v)) - int(dice.failure is not None and dice.failure.test(v))

    filters = [op for op in ops if op.how == "cmp"]
    counted = [op for op in ops if op.how != "cmp"]
    if filters and counted:
        raise DiceWorkError("The exact odds of a keep by value and one by count over exploded dice are not computed.")
    if filters:
        return _exploded_filtered(dice, face, filters, worth if counting else None, budget)
    op = counted[0]
    cond_high = {v: p / pe for v, p in high.items()}
    cond_low = {v: p / (1.0 - pe) for v, p in low.items()}
    n = dice.count
    keep_high = _keeps_highest(op)

    def kept(total: int) -> int:
        return op.n if op.keep else max(0, total - op.n)

    out: Pmf = {}
    residual = 0.0
    if ex.penetrate:  # J chains explode: J starts on an exploding face, J added dice end them (one less)
        follow_high = {v - 1: p for v, p in cond_high.items()}
        follow_low = {v - 1: p for v, p in cond_low.items()}
        binom = _binomials(n)
        for j in range(n + 1):
            pj = binom[n][j] * pe ** j * (1.0 - pe) ** (n - j)
            if pj == 0.0:
                continue
            more = explosion_count(pe, j, budget) if j else Distribution.constant(0)
            residual += pj * more.residual
            for e, pm in more.pmf.items():  # e: the added dice that explode again
                parts = [cond_high] * j + [cond_low] * (n - j) + [follow_high] * e + [follow_low] * j
                _mix_into(out, _keep_mixed(parts, kept(len(parts)), keep_high, budget, worth if counting else None), pj * pm, budget)
        return _check(out), residual
    exploding = explosion_count(pe, n, budget)
    residual = exploding.residual
    if counting or min(high) <= max(low):  # the exploding dice need not be the highest: order statistics over both kinds
        for m, pm in exploding.pmf.items():
            parts = [cond_high] * m + [cond_low] * n
            _mix_into(out, _keep_mixed(parts, kept(m + n), keep_high, budget, worth if counting else None), pm, budget)
        return _check(out), residual
    cache: dict[tuple[Any, ...], Pmf] = {}

    def extreme_sum(pool: Pmf, count: int, take: int, highest: bool) -> Pmf:
        """The sum of the `take` highest (or lowest) of `count` draws from `pool`."""
        take = max(0, min(take, count))
        key = (id(pool), count, take, highest)
        if key not in cache:
            cache[key] = _keep_sum(pool, count, take, highest, budget)
        return cache[key]

    for m, pm in exploding.pmf.items():
        k = kept(n + m)
        if keep_high:  # the m exploding dice are the highest
            part = (extreme_sum(cond_high, m, k, True) if k <= m
                    else convolve(power(cond_high, m, budget), extreme_sum(cond_low, n, k - m, True), budget))
        else:  # the n final dice are the lowest
            part = (extreme_sum(cond_low, n, k, False) if k <= n
                    else convolve(power(cond_low, n, budget), extreme_sum(cond_high, m, k - n, False), budget))
        _mix_into(out, part, pm, budget)
    return _check(out), residual


def _mix_into(out: Pmf, part: Pmf, weight: float, budget: Budget) -> None:
    budget.spend(2 * len(part))
    for v, q in part.items():
        out[v] = out.get(v, 0.0) + weight * q


def _chain(face: Pmf, ex: Explode, start: K, step: Callable[[K, int], K], budget: Budget) -> tuple[dict[K, float], float]:
    """One exploding die's chain, die by die: from `start`, each die's value (one less after the
    first when penetrating) folded in by `step`; a face that explodes rolls another die (only once
    for Foundry's `xo`). Cut where the mass still rolling is under EXPLODE_CUTOFF (the residual)."""
    done: dict[K, float] = {}
    live: dict[K, float] = {start: 1.0}
    first = True
    while live:
        budget.spend(8 * len(live) * len(face))
        nxt: dict[K, float] = {}
        for key, p in live.items():
            for v, q in face.items():
                folded = step(key, v - 1 if (ex.penetrate and not first) else v)
                target = nxt if ex.cmp.test(v) and (first or not ex.once) else done
                target[folded] = target.get(folded, 0.0) + p * q
        first = False
        live = nxt
        if len(done) + len(live) > MAX_SUPPORT:
            raise DiceLimitError("The explosions of this roll have too many outcomes to compute; roll it instead.")
        if sum(live.values()) < EXPLODE_CUTOFF:
            return done, sum(live.values())
    return done, 0.0


def _exploded_filtered(dice: Dice, face: Pmf, filters: list[SetOp], weight: Callable[[int], int] | None,
                       budget: Budget) -> tuple[Pmf, float]:
    """Keep/drop by value over every die an explosion rolled (`4d6!k>3`): each die adds its value
    (or what it counts) when the filters keep it; one chain's sum, then the n chains'."""
    ex = dice.explode
    assert ex is not None

    def add(total: int, c: int) -> int:
        kept = all(op.cmp.test(c) == op.keep for op in filters)  # type: ignore[union-attr]
        return total + ((weight(c) if weight is not None else c) if kept else 0)

    chain, residual = _chain(face, ex, 0, add, budget)
    n = dice.count
    return power(chain, n, budget), (1.0 - (1.0 - residual) ** n if residual else 0.0)


def _extreme(by_key: dict[int, Pmf], n: int, highest: bool, budget: Budget) -> Pmf:
    """The highest (or lowest) of n independent units, from order statistics:
    P(max <= v) = F(v)^n. Each unit adds its own value (keep/drop by value, no success count)."""
    budget.spend(6 * len(by_key))  # each value: its mass, two powers
    out: Pmf = {}
    below = 0.0  # P(one unit is beyond v on the side away from the kept end), built up in order
    for v in sorted(by_key, reverse=not highest):
        p = sum(by_key[v].values())
        inside = below + p
        mass = inside ** n - below ** n
        if mass > 0.0:
            out[v] = mass
        below = inside
    return out


def _select(by_key: dict[int, Pmf], excluded: float, n: int, op: SetOp, budget: Budget) -> Pmf:
    """Keep/drop the op.n highest or lowest of n independent units, by dynamic programming.

    Values are visited in the order the op selects them; for j units showing the same value, the
    first free selection slots go to them. State: units placed so far -> distribution of the sum."""
    keys = sorted(by_key, reverse=op.how == "h")
    # (unit weights given this value, probability of the value, excluded by an earlier filter)
    classes = [(by_key[k], sum(by_key[k].values()), False) for k in keys] + [({0: excluded}, excluded, True)]
    budget.spend(len(classes) * (n + 1) + (n + 1) * (n + 2) // 2)
    binom = _binomials(n)
    state: dict[int, Pmf] = {0: {0: 1.0}}
    for bucket, mass, is_excluded in classes:
        if mass == 0.0:
            continue
        budget.spend(20 + len(bucket))  # the fixed cost of one class
        cond = {w: p / mass for w, p in bucket.items()}
        powers: dict[int, Pmf] = {0: {0: 1.0}}
        nxt: dict[int, Pmf] = {}
        for m, sums in state.items():
            budget.spend(12 * (n - m + 1))  # each j: a weight, a selection, a merge (measured: about 1 us)
            for j in range(0, n - m + 1):
                weight = binom[n - m][j] * mass ** j
                if weight == 0.0:
                    continue
                if is_excluded:
                    kept = 0
                else:
                    selected = min(j, max(0, op.n - min(m, op.n)))
                    kept = selected if op.keep else j - selected
                if kept not in powers:
                    powers[kept] = power(cond, kept, budget)
                add = powers[kept]
                budget.spend(2 * len(sums) * len(add))
                target = nxt.setdefault(m + j, {})
                for s, p in sums.items():
                    for w, q in add.items():
                        target[s + w] = target.get(s + w, 0.0) + p * q * weight
        state = nxt
    return _check(state.get(n, {0: 1.0}))


@lru_cache(maxsize=8)
def _binomials(n: int) -> tuple[tuple[float, ...], ...]:
    """Pascal's triangle up to row n, as floats (C(1000, 500) is about 2.7e299: it fits)."""
    rows: list[tuple[float, ...]] = [(1.0,)]
    for _ in range(n):
        last = rows[-1]
        rows.append((1.0, *[a + b for a, b in zip(last, last[1:])], 1.0))
    return tuple(rows)


# -- groups and operators ------------------------------------------------------------------

def group_pmf(node: Group, budget: Budget) -> tuple[Pmf, float]:
    """A group's total. Without keep/drop: the sum of its items (each a success or not, when
    counting), a convolution. One keep/drop by count: order statistics over the items (which may
    differ). Otherwise: the joint outcomes of the items (as sorted tuples), then the same keep/drop
    as a roll."""
    parts: list[Pmf] = []
    residual = 0.0
    for item in node.items:
        pmf, r = _eval(item, budget)
        residual = 1.0 - (1.0 - residual) * (1.0 - r)
        parts.append(pmf)
    counting = node.success is not None or node.failure is not None
    if not node.set_ops:
        if counting:
            budget.spend(2 * sum(len(p) for p in parts))
            parts = [_tally(p, node.success, node.failure) for p in parts]
        out: Pmf = {0: 1.0}
        for pmf in parts:
            out = convolve(out, pmf, budget)
        return out, residual
    op = node.set_ops[0]
    if len(node.set_ops) == 1 and op.how != "cmp" and not counting:
        m = len(parts)
        k = op.n if op.keep else m - op.n
        highest = _keeps_highest(op)
        if all(p == parts[0] for p in parts):
            return _keep_sum(parts[0], m, k, highest, budget), residual
        return _keep_mixed(parts, k, highest, budget), residual
    return _joint_group(node, parts, budget), residual


def _tally(pmf: Pmf, success: Cmp | None, failure: Cmp | None) -> Pmf:
    """An item's total as what it counts: +1 a success, -1 a failure, else 0."""
    out: Pmf = {}
    for v, p in pmf.items():
        w = int(success is not None and success.test(v)) - int(failure is not None and failure.test(v))
        out[w] = out.get(w, 0.0) + p
    return out


def _keep_mixed(parts: list[Pmf], k: int, highest: bool, budget: Budget, weight: Callable[[int], int] | None = None) -> Pmf:
    """The sum of the k highest (or lowest) of independent totals that need not share a
    distribution (or, with `weight`, the sum of what each kept total counts: a success 1).
    Conditioned on t, the k-th kept value: a < k totals beat t and at least k - a show t; a
    dynamic programme over the totals keeps (a, how many show t) -> the sum beyond t."""
    m = len(parts)
    k = max(0, min(k, m))
    if k == 0:
        return {0: 1.0}
    if not highest:
        back = (lambda v: weight(-v)) if weight is not None else (lambda v: -v)
        flipped = _keep_mixed([{-v: p for v, p in pmf.items()} for pmf in parts], k, True, budget, back)
        return flipped
    worth = weight if weight is not None else (lambda v: v)
    values = sorted({v for pmf in parts for v in pmf}, reverse=True)
    budget.spend(len(values) * m * (k * (k + 1) + 10))
    out: Pmf = {}
    for t in values:
        # (beyond, at t) -> sub-distribution of the sum of the totals beyond t
        state: dict[tuple[int, int], Pmf] = {(0, 0): {0: 1.0}}
        for pmf in parts:
            above: Pmf = {}
            for v, p in pmf.items():
                if v > t:
                    above[worth(v)] = above.get(worth(v), 0.0) + p
            at, under = pmf.get(t, 0.0), sum(p for v, p in pmf.items() if v < t)
            nxt: dict[tuple[int, int], Pmf] = {}
            for (a, e), sums in state.items():
                budget.spend(len(sums) * (len(above) + 2))
                if under > 0.0:
                    _add_into(nxt, (a, e), sums, under)
                if at > 0.0:
                    _add_into(nxt, (a, min(e + 1, k)), sums, at)
                if above and a + 1 < k:
                    _add_into(nxt, (a + 1, e), convolve(sums, above, budget), 1.0)
            state = nxt
        for (a, e), sums in state.items():
            if a + e >= k:
                shift = (k - a) * worth(t)
                for s, p in sums.items():
                    out[s + shift] = out.get(s + shift, 0.0) + p
    return _check(out)


def _add_into(target: dict[tuple[int, int], Pmf], key: tuple[int, int], pmf: Pmf, weight: float) -> None:
    into = target.setdefault(key, {})
    for v, p in pmf.items():
        into[v] = into.get(v, 0.0) + p * weight


def _joint_group(node: Group, parts: list[Pmf], budget: Budget) -> Pmf:
    """Joint outcomes of the items (as sorted tuples), then the group's keep/drops as a roll's
    (several, by value, or with success counting over what is kept)."""
    states: dict[tuple[int, ...], float] = {(): 1.0}
    for i, pmf in enumerate(parts):
        nxt: dict[tuple[int, ...], float] = {}
        budget.spend(2 * len(states) * len(pmf) * (i + 1))
        for values, p in states.items():
            for v, q in pmf.items():
                key = tuple(sorted(values + (v,)))
                nxt[key] = nxt.get(key, 0.0) + p * q
        states = _check(nxt)
    out: Pmf = {}
    budget.spend(len(states) * (len(node.items) + 1) * (len(node.set_ops) + 1))
    for values, p in states.items():
        kept = apply_set_ops(list(values), node.set_ops)
        if node.success is not None or node.failure is not None:
            total = sum(
                int(node.success is not None and node.success.test(v)) - int(node.failure is not None and node.failure.test(v))
                for v, k in zip(values, kept) if k
            )
        else:
            total = sum(v for v, k in zip(values, kept) if k)
        out[total] = out.get(total, 0.0) + p
    return out


def _eval(node: Node, budget: Budget) -> tuple[Pmf, float]:
    if isinstance(node, Const):
        return {node.value: 1.0}, 0.0
    if isinstance(node, Dice):
        return dice_pmf(node, budget)
    if isinstance(node, Label):
        return _eval(node.node, budget)
    if isinstance(node, Unary):
        pmf, r = _eval(node.operand, budget)
        return ({-v: p for v, p in pmf.items()} if node.op == "-" else pmf), r
    if isinstance(node, Group):
        return group_pmf(node, budget)
    if isinstance(node, Call):
        parts = [_eval(arg, budget) for arg in node.args]
        pmf, residual = parts[0]
        if len(parts) == 1:
            budget.spend(2 * len(pmf))
            return _drop_zero(dict(Distribution.from_pmf(pmf).map(partial(_call1, node.name)).pmf)), residual
        for b, rb in parts[1:]:
            if node.divided and b.get(0, 0.0) > 0.0:
                raise DiceValueError("Division by zero is possible in this expression.")
            pmf = combine(pmf, b, partial(_call2, node.name, node.divided), budget)
            residual = _either(residual, rb)
        return pmf, residual
    if isinstance(node, Compare):
        a, ra = _eval(node.left, budget)
        b, rb = _eval(node.right, budget)
        return _drop_zero(combine(a, b, lambda x, y: int(compare_value(node.op, x, y)), budget)), _either(ra, rb)
    if isinstance(node, Binary):
        bottom, chain = left_spine(node)  # long sums are loops, not recursion
        pmf, residual = _eval(bottom, budget)
        for step in chain:
            b, rb = _eval(step.right, budget)
            residual = _either(residual, rb)
            if step.op == "+":
                pmf = convolve(pmf, b, budget)
            elif step.op == "-":
                pmf = convolve(pmf, {-v: p for v, p in b.items()}, budget)
            else:
                if step.op in "/%" and b.get(0, 0.0) > 0.0:
                    raise DiceValueError("Division by zero is possible in this expression.")
                pmf = combine(pmf, b, partial(binary_value, step.op), budget)
        return pmf, residual
    raise TypeError(node)  # pragma: no cover


def _call1(name: str, x: int) -> int:
    return call_value(name, False, (x,))


def _call2(name: str, divided: bool, x: int, y: int) -> int:
    return call_value(name, divided, (x, y))


def _either(ra: float, rb: float) -> float:
    return 1.0 - (1.0 - ra) * (1.0 - rb)


def _drop_zero(pmf: Pmf) -> Pmf:
    return {v: p for v, p in pmf.items() if p > 0.0}


def distribution_ast(ast: Node, budget: Budget | None = None) -> Distribution:
    """The exact distribution of a parsed expression; raises DiceWorkError past the budget."""
    budget = budget if budget is not None else Budget()
    pmf, residual = _eval(ast, budget)
    budget.spend(2 * len(pmf))  # sorting it, and what a caller does with every outcome
    return Distribution.from_pmf(pmf, residual)


def distribution(expression: str, budget: Budget | None = None) -> Distribution:
    """The exact distribution of a dice expression's total. With the default budget the answer is
    cached on the text (a distribution is a value: nothing changes it)."""
    if budget is not None:
        return distribution_ast(parse(expression), budget)
    cached = _CACHE.get(expression)
    if cached is None:
        cached = distribution_ast(parse(expression), Budget())
        if len(cached.pmf) <= CACHE_OUTCOMES:  # a few small answers, never a 200,000-outcome one
            if len(_CACHE) >= CACHE_SIZE:
                del _CACHE[next(iter(_CACHE))]  # the oldest goes
            _CACHE[expression] = cached
    return cached


CACHE_SIZE = 128
CACHE_OUTCOMES = 5_000
_CACHE: dict[str, Distribution] = {}


# -- what a roll can possibly total ----------------------------------------------------------------

def possible_range(node: Node) -> tuple[int | None, int | None] | None:
    """The lowest and highest total `node` can ever show (None on a side with no bound: explosions),
    by interval arithmetic over the tree; None when it is not worked out here (a division, say).
    Cheap: one walk, no odds. What an estimate's chart says beside the range its rolls saw."""
    if isinstance(node, Const):
        return node.value, node.value
    if isinstance(node, Label):
        return possible_range(node.node)
    if isinstance(node, Compare):
        return 0, 1
    if isinstance(node, Unary):
        inner = possible_range(node.operand)
        if inner is None or node.op == "+":
            return inner
        low, high = inner
        return (None if high is None else -high), (None if low is None else -low)
    if isinstance(node, Dice):
        return _dice_range(node)
    if isinstance(node, Binary) and node.op in "+-":
        a, b = possible_range(node.left), possible_range(node.right)
        if a is None or b is None:
            return None
        if node.op == "-":
            b = (None if b[1] is None else -b[1]), (None if b[0] is None else -b[0])
        return (None if a[0] is None or b[0] is None else a[0] + b[0]), (None if a[1] is None or b[1] is None else a[1] + b[1])
    if isinstance(node, Binary) and node.op == "*":
        a, b = possible_range(node.left), possible_range(node.right)
        if a is None or b is None or None in a or None in b:
            return None
        corners = [x * y for x in a for y in b]  # type: ignore[operator]
        return min(corners), max(corners)
    return None


def _dice_range(dice: Dice) -> tuple[int | None, int | None] | None:
    n = dice.count
    if dice.success is not None or dice.failure is not None:
        if dice.explode is not None:
            return (-n if dice.failure is not None else 0), None
        return (-n if dice.failure is not None else 0), (n if dice.success is not None else 0)
    if dice.reroll is not None and dice.reroll.kind == "add":
        return None
    faces = list(dice.faces)
    rr = dice.reroll
    if rr is not None and rr.kind == "until" and rr.then is None:  # a face rerolled until it stops showing never stays
        faces = [f for f in faces if not rr.test(f)]
    low, high = min(faces), max(faces)
    if dice.explode is not None and dice.explode.penetrate:
        low -= 1  # a penetrating die's added dice count one less
    if dice.clamp.low is not None:
        low, high = max(low, dice.clamp.low), max(high, dice.clamp.low)
    if dice.clamp.high is not None:
        low, high = min(low, dice.clamp.high), min(high, dice.clamp.high)
    if dice.set_ops:
        if any(op.how == "cmp" for op in dice.set_ops) or low < 0:
            return (min(0, n * low), None if dice.explode is not None else max(0, n * high))
        op = dice.set_ops[-1]
        kept = min(n, op.n if op.keep else max(0, n - op.n))  # at least this many dice are kept (explosions add more)
        if dice.explode is None:
            return kept * low, kept * high
        separate = dice.explode.kind != "compound"  # every die of a chain is kept or dropped alone, none above the top face
        return kept * low, (op.n * high if separate and op.keep and not dice.explode.penetrate else None)
    return n * low, (None if dice.explode is not None else n * high)
