"""The exact distribution of one die and of a set of dice: keep/drop from order statistics or a
dynamic programme over a die's distinct values, rerolls, explosions mixed over the negative-
binomial count of explosions or followed along their chain when they count successes."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from functools import lru_cache
from typing import Any

from ..errors import DiceLimitError, DiceWorkError
from ..notation import Dice, Explode, SetOp
from ..rolling import separate_dice
from .value import EXPLODE_CUTOFF, MAX_SUPPORT, Budget, Distribution, K, Pmf, check_pmf, convolve, power, uniform_sum

__all__ = ["face_pmf", "unit_pmf", "dice_pmf", "explosion_count", "keep_sum", "keeps_highest", "keep_mixed", "add_into"]

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
        return uniform_sum(dice.faces, dice.count, budget), 0.0
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
        return keep_sum(pool, n, op.n if op.keep else n - op.n, keeps_highest(op), budget), residual
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
    return check_pmf(out)


def keeps_highest(op: SetOp) -> bool:
    """kh / k keep from the top, and so do dl / d (they keep the rest)."""
    return (op.how == "h") == op.keep


def keep_sum(pool: Pmf, n: int, k: int, highest: bool, budget: Budget) -> Pmf:
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
        flipped = keep_sum({-v: p for v, p in pool.items()}, n, k, True, budget)
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
    return check_pmf(out)


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
    return convolve(check_pmf(mixture), power(cond_low, dice.count, budget), budget), exploding.residual


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
    keep_high = keeps_highest(op)

    def kept(total: int) -> int:
        return op.n if op.keep else max(0, total - op.n)

    weight = worth if counting else None
    if ex.penetrate:
        return _penetrating_keep(n, pe, cond_high, cond_low, kept, keep_high, weight, budget)
    exploding = explosion_count(pe, n, budget)
    if counting or min(high) <= max(low):  # the exploding dice need not be the highest: order statistics over both kinds
        out: Pmf = {}
        for m, pm in exploding.pmf.items():
            parts = [cond_high] * m + [cond_low] * n
            _mix_into(out, keep_mixed(parts, kept(m + n), keep_high, budget, weight), pm, budget)
        return check_pmf(out), exploding.residual
    return _split_keep(n, exploding, cond_high, cond_low, kept, keep_high, budget), exploding.residual


def _penetrating_keep(n: int, pe: float, cond_high: Pmf, cond_low: Pmf, kept: Callable[[int], int], keep_high: bool,
                      weight: Callable[[int], int] | None, budget: Budget) -> tuple[Pmf, float]:
    """Keep/drop over penetrating dice: J chains explode (J start on an exploding face, J added dice
    end them, one less each), mixed over J, then over the added dice that explode again."""
    out: Pmf = {}
    residual = 0.0
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
            _mix_into(out, keep_mixed(parts, kept(len(parts)), keep_high, budget, weight), pj * pm, budget)
    return check_pmf(out), residual


def _split_keep(n: int, exploding: Distribution, cond_high: Pmf, cond_low: Pmf, kept: Callable[[int], int], keep_high: bool,
                budget: Budget) -> Pmf:
    """The fast path when every exploding face is above every other: the M exploding dice are the
    highest, the N final ones the lowest, so a keep takes whole groups and order statistics of one."""
    out: Pmf = {}
    cache: dict[tuple[Any, ...], Pmf] = {}

    def extreme_sum(pool: Pmf, count: int, take: int, highest: bool) -> Pmf:
        """The sum of the `take` highest (or lowest) of `count` draws from `pool`."""
        take = max(0, min(take, count))
        key = (id(pool), count, take, highest)
        if key not in cache:
            cache[key] = keep_sum(pool, count, take, highest, budget)
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
    return check_pmf(out)


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
    return check_pmf(state.get(n, {0: 1.0}))


@lru_cache(maxsize=8)
def _binomials(n: int) -> tuple[tuple[float, ...], ...]:
    """Pascal's triangle up to row n, as floats (C(1000, 500) is about 2.7e299: it fits)."""
    rows: list[tuple[float, ...]] = [(1.0,)]
    for _ in range(n):
        last = rows[-1]
        rows.append((1.0, *[a + b for a, b in zip(last, last[1:])], 1.0))
    return tuple(rows)


def keep_mixed(parts: list[Pmf], k: int, highest: bool, budget: Budget, weight: Callable[[int], int] | None = None) -> Pmf:
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
        flipped = keep_mixed([{-v: p for v, p in pmf.items()} for pmf in parts], k, True, budget, back)
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
                    add_into(nxt, (a, e), sums, under)
                if at > 0.0:
                    add_into(nxt, (a, min(e + 1, k)), sums, at)
                if above and a + 1 < k:
                    add_into(nxt, (a + 1, e), convolve(sums, above, budget), 1.0)
            state = nxt
        for (a, e), sums in state.items():
            if a + e >= k:
                shift = (k - a) * worth(t)
                for s, p in sums.items():
                    out[s + shift] = out.get(s + shift, 0.0) + p
    return check_pmf(out)


def add_into(target: dict[tuple[int, int], Pmf], key: tuple[int, int], pmf: Pmf, weight: float) -> None:
    into = target.setdefault(key, {})
    for v, p in pmf.items():
        into[v] = into.get(v, 0.0) + p * weight
