"""Exact probability distributions of dice expressions, computed from the AST.

Sums are convolutions, keep/drop is a dynamic programme over the distinct values of a die (never
enumeration of all rolls), exploding dice follow their chain until the probability still in play
is below EXPLODE_CUTOFF, which is reported as `residual`. Floats throughout: exact up to rounding.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from .errors import DiceLimitError, DiceValueError
from .notation import Binary, Compare, Const, Dice, Group, Label, Node, SetOp, Unary, parse
from .rolling import apply_set_ops, binary_value, compare_value

__all__ = ["EXPLODE_CUTOFF", "MAX_SUPPORT", "Distribution", "distribution", "distribution_ast"]

EXPLODE_CUTOFF = 1e-12
MAX_SUPPORT = 200_000      # distinct totals (or joint states) one distribution may hold
MAX_WORK = 4_000_000       # inner-loop steps one keep/drop programme may take

Pmf = dict[int, float]


@dataclass(frozen=True)
class Distribution:
    """The exact probability of every total; `residual` is the mass cut off from explosions."""

    pmf: dict[int, float]
    residual: float = 0.0

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

def _check(pmf: dict) -> dict:
    if len(pmf) > MAX_SUPPORT:
        raise DiceLimitError(f"The odds of this expression have more than {MAX_SUPPORT:,} outcomes; roll it instead.")
    return pmf


def convolve(a: Pmf, b: Pmf) -> Pmf:
    if len(a) < len(b):
        a, b = b, a
    out: Pmf = {}
    for y, q in b.items():
        for x, p in a.items():
            out[x + y] = out.get(x + y, 0.0) + p * q
    return _check(out)


def combine(a: Pmf, b: Pmf, fn) -> Pmf:
    if len(a) * len(b) > MAX_WORK:
        raise DiceLimitError("The odds of this expression are too large to compute; roll it instead.")
    out: Pmf = {}
    for x, p in a.items():
        for y, q in b.items():
            z = fn(x, y)
            out[z] = out.get(z, 0.0) + p * q
    return _check(out)


def power(pmf: Pmf, n: int) -> Pmf:
    """The sum of n independent copies, by repeated squaring."""
    result: Pmf = {0: 1.0}
    base = pmf
    while n:
        if n & 1:
            result = convolve(result, base)
        n >>= 1
        if n:
            base = convolve(base, base)
    return result


# -- one die -------------------------------------------------------------------------------

def face_pmf(dice: Dice) -> Pmf:
    """One face after rerolls (r until, ro once) and mi/ma."""
    faces = dice.faces
    s = len(faces)
    rr = dice.reroll
    pmf: Pmf = {}
    if rr is not None and rr.kind == "until":
        allowed = [f for f in faces if not rr.cmp.test(f)]
        raw = {f: 1.0 / len(allowed) for f in allowed}
    elif rr is not None and rr.kind == "once":
        matching = sum(1 for f in faces if rr.cmp.test(f))
        raw = {f: (0.0 if rr.cmp.test(f) else 1.0 / s) + matching / s / s for f in faces}
    else:
        raw = {f: 1.0 / s for f in faces}
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


def unit_pmf(dice: Dice) -> tuple[dict[tuple[int, int], float], float]:
    """Joint distribution of (unit total, unit count) for one die and what it adds; and the residual.

    The count is successes minus failures (0 when the roll does not count successes)."""
    face = face_pmf(dice)
    succ, fail = dice.success, dice.failure
    compound = dice.explode is not None and dice.explode.kind == "compound"

    def weight(v: int) -> int:
        if compound:
            return 0
        return int(succ is not None and succ.test(v)) - int(fail is not None and fail.test(v))

    done: dict[tuple[int, int], float] = {}
    residual = 0.0
    ex = dice.explode
    rr = dice.reroll
    if ex is None:
        for v, p in face.items():
            if rr is not None and rr.kind == "add" and rr.cmp.test(v):
                for v2, p2 in face.items():
                    key = (v + v2, weight(v) + weight(v2))
                    done[key] = done.get(key, 0.0) + p * p2
            else:
                key = (v, weight(v))
                done[key] = done.get(key, 0.0) + p
    else:
        live: dict[tuple[int, int], float] = {(0, 0): 1.0}
        first = True
        while live:
            nxt: dict[tuple[int, int], float] = {}
            for (total, w), p in live.items():
                for v, q in face.items():
                    c = v - 1 if (ex.kind == "penetrate" and not first) else v
                    key = (total + c, w + weight(c))
                    target = nxt if ex.cmp.test(v) else done
                    target[key] = target.get(key, 0.0) + p * q
            first = False
            live = nxt
            if len(done) + len(live) > MAX_SUPPORT:
                raise DiceLimitError("The explosions of this roll have too many outcomes to compute; roll it instead.")
            if sum(live.values()) < EXPLODE_CUTOFF:
                residual = sum(live.values())
                break
    if compound:
        done = {
            (t, int(succ is not None and succ.test(t)) - int(fail is not None and fail.test(t))): p
            for (t, _), p in done.items()
        }
    return done, residual


# -- a set of dice -------------------------------------------------------------------------

def dice_pmf(dice: Dice) -> tuple[Pmf, float]:
    joint, unit_residual = unit_pmf(dice)
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
        return power(unit, n), residual

    op = counted[0]
    return _select(by_key, excluded, n, op), residual


def _select(by_key: dict[int, Pmf], excluded: float, n: int, op: SetOp) -> Pmf:
    """Keep/drop the op.n highest or lowest of n independent units, by dynamic programming.

    Values are visited in the order the op selects them; for j units showing the same value, the
    first free selection slots go to them. State: units placed so far -> distribution of the sum."""
    keys = sorted(by_key, reverse=op.how == "h")
    # (unit weights given this value, probability of the value, excluded by an earlier filter)
    classes = [(by_key[k], sum(by_key[k].values()), False) for k in keys] + [({0: excluded}, excluded, True)]
    if len(classes) * (n + 1) * (n + 1) > MAX_WORK:
        raise DiceLimitError("Too many dice to compute keep/drop odds exactly; roll it instead.")
    binom = _binomials(n)
    state: dict[int, Pmf] = {0: {0: 1.0}}
    for bucket, mass, is_excluded in classes:
        if mass == 0.0:
            continue
        cond = {w: p / mass for w, p in bucket.items()}
        powers: dict[int, Pmf] = {0: {0: 1.0}}
        nxt: dict[int, Pmf] = {}
        for m, sums in state.items():
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
                    powers[kept] = power(cond, kept)
                add = powers[kept]
                target = nxt.setdefault(m + j, {})
                for s, p in sums.items():
                    for w, q in add.items():
                        target[s + w] = target.get(s + w, 0.0) + p * q * weight
        state = nxt
    return _check(state.get(n, {0: 1.0}))


@lru_cache(maxsize=8)
def _binomials(n: int) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(math.comb(a, b) for b in range(a + 1)) for a in range(n + 1))


# -- groups and operators ------------------------------------------------------------------

def group_pmf(node: Group) -> tuple[Pmf, float]:
    """Joint outcomes of the items (as sorted tuples), then the same keep/drop as a roll."""
    states: dict[tuple[int, ...], float] = {(): 1.0}
    residual = 0.0
    for item in node.items:
        pmf, r = _eval(item)
        residual = 1.0 - (1.0 - residual) * (1.0 - r)
        nxt: dict[tuple[int, ...], float] = {}
        if len(states) * len(pmf) > MAX_WORK:
            raise DiceLimitError("This group has too many outcomes to compute; roll it instead.")
        for values, p in states.items():
            for v, q in pmf.items():
                key = tuple(sorted(values + (v,)))
                nxt[key] = nxt.get(key, 0.0) + p * q
        states = _check(nxt)
    out: Pmf = {}
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
    return out, residual


def _eval(node: Node) -> tuple[Pmf, float]:
    if isinstance(node, Const):
        return {node.value: 1.0}, 0.0
    if isinstance(node, Dice):
        return dice_pmf(node)
    if isinstance(node, Label):
        return _eval(node.node)
    if isinstance(node, Unary):
        pmf, r = _eval(node.operand)
        return ({-v: p for v, p in pmf.items()} if node.op == "-" else pmf), r
    if isinstance(node, Group):
        return group_pmf(node)
    if isinstance(node, (Binary, Compare)):
        a, ra = _eval(node.left)
        b, rb = _eval(node.right)
        residual = 1.0 - (1.0 - ra) * (1.0 - rb)
        if isinstance(node, Compare):
            return _drop_zero(combine(a, b, lambda x, y: int(compare_value(node.op, x, y)))), residual
        if node.op == "+":
            return convolve(a, b), residual
        if node.op == "-":
            return convolve(a, {-v: p for v, p in b.items()}), residual
        if node.op == "/" and b.get(0, 0.0) > 0.0:
            raise DiceValueError("Division by zero is possible in this expression.")
        return combine(a, b, lambda x, y: binary_value(node.op, x, y)), residual
    raise TypeError(node)  # pragma: no cover


def _drop_zero(pmf: Pmf) -> Pmf:
    return {v: p for v, p in pmf.items() if p > 0.0}


def distribution_ast(ast: Node) -> Distribution:
    pmf, residual = _eval(ast)
    return Distribution(dict(sorted((v, p) for v, p in pmf.items() if p > 0.0)), residual)


def distribution(expression: str) -> Distribution:
    """The exact distribution of a dice expression's total."""
    return distribution_ast(parse(expression))
