"""The exact distribution of a whole expression: groups, operators and calls over the dice'
distributions, the cached `distribution(text)`, and the range a roll can possibly total."""

from __future__ import annotations

from functools import partial

from ..errors import DiceValueError
from ..notation import Binary, Call, Cmp, Compare, Const, Dice, Group, Label, Node, Unary, left_spine, parse
from ..rolling import apply_set_ops, binary_value, call_value, compare_value
from .dice_sets import dice_pmf, keep_mixed, keep_sum, keeps_highest
from .value import Budget, Distribution, Pmf, check_pmf, combine, convolve, either

__all__ = ["distribution", "distribution_ast", "possible_range", "group_pmf", "CACHE_SIZE", "CACHE_OUTCOMES"]

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
        highest = keeps_highest(op)
        if all(p == parts[0] for p in parts):
            return keep_sum(parts[0], m, k, highest, budget), residual
        return keep_mixed(parts, k, highest, budget), residual
    return _joint_group(node, parts, budget), residual


def _tally(pmf: Pmf, success: Cmp | None, failure: Cmp | None) -> Pmf:
    """An item's total as what it counts: +1 a success, -1 a failure, else 0."""
    out: Pmf = {}
    for v, p in pmf.items():
        w = int(success is not None and success.test(v)) - int(failure is not None and failure.test(v))
        out[w] = out.get(w, 0.0) + p
    return out


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
        states = check_pmf(nxt)
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
            residual = either(residual, rb)
        return pmf, residual
    if isinstance(node, Compare):
        a, ra = _eval(node.left, budget)
        b, rb = _eval(node.right, budget)
        return _drop_zero(combine(a, b, lambda x, y: int(compare_value(node.op, x, y)), budget)), either(ra, rb)
    if isinstance(node, Binary):
        bottom, chain = left_spine(node)  # long sums are loops, not recursion
        pmf, residual = _eval(bottom, budget)
        for step in chain:
            b, rb = _eval(step.right, budget)
            residual = either(residual, rb)
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

