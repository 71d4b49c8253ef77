"""Roll a parsed dice expression into an annotated result tree.

Semantics shared with `odds` (so every rolled total lies in the computed distribution):
- each die is a *unit*: its face after rerolls (`r` until, `ro` once) and `mi`/`ma`, plus the dice its
  explosion chain or `ra` adds; keep/drop selects whole units by their total, except that with an
  explosion (`!`, `!p`) every die rolled is a unit of its own (`4d6!kh3` keeps the best 3 dice);
- success counting tests every face of a unit (`!!` compound: the unit's total) and counts
  successes minus failures; with only `f`, the count of failures;
- a die is critical (`crit`) when its face matches `cs` (default: a d20 showing 20) and a fumble when it
  matches `cf` (default: a d20 showing 1); the kept ones are counted in the result for the history;
- `r` rerolls up to MAX_REROLLS times, then draws straight from the faces that do not match,
  which is the same distribution, so a roll never hangs.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from dataclasses import replace as _replace
from typing import Any, Protocol

from .errors import DiceDrawnError, DiceLimitError, DiceValueError
from .notation import (
    Binary,
    Call,
    Cmp,
    Compare,
    Const,
    Dice,
    Group,
    Label,
    Node,
    SetOp,
    Unary,
    left_spine,
    parse,
)

__all__ = [
    "MAX_REROLLS",
    "MAX_CHAIN",
    "MAX_ROLLED",
    "Rng",
    "DieRoll",
    "RolledNode",
    "RollResult",
    "roll",
    "roll_ast",
    "roll_total",
]

MAX_REROLLS = 100     # rerolls of one die before drawing straight from the faces that do not match
MAX_CHAIN = 100       # dice one explosion chain may add
MAX_ROLLED = 10_000   # faces rolled in one expression, rerolls and explosions included


class Rng(Protocol):
    def randint(self, a: int, b: int) -> int: ...


@dataclass(frozen=True)
class DieRoll:
    """One face shown to the player, with what happened to it."""

    sides: str
    face: int
    value: int
    kept: bool = True
    rerolled: bool = False
    exploded: bool = False
    added: bool = False
    success: bool = False
    failure: bool = False
    natural_max: bool = False
    natural_min: bool = False
    crit: bool = False
    fumble: bool = False
    label: str | None = None

    @property
    def dropped(self) -> bool:
        return not self.kept and not self.rerolled

    def flags(self) -> tuple[str, ...]:
        names = ("rerolled", "exploded", "added", "success", "failure", "natural_max", "natural_min", "crit", "fumble")
        out = [n for n in names if getattr(self, n)]
        if self.dropped:
            out.insert(0, "dropped")
        return tuple(out)


@dataclass(frozen=True)
class RolledNode:
    """A node of the evaluated tree: the AST node, its value and its parts."""

    node: Node
    value: int
    children: tuple[RolledNode, ...] = ()
    dice: tuple[DieRoll, ...] = ()
    kept: bool = True


@dataclass(frozen=True)
class RollResult:
    expression: str
    ast: Node
    tree: RolledNode
    total: int
    text: str
    dice: tuple[DieRoll, ...] = field(default=())

    @property
    def crits(self) -> int:
        """Kept dice that count as critical (cs, or a d20's 20): the history marks the roll."""
        return sum(1 for d in self.dice if d.crit and d.kept and not d.rerolled)

    @property
    def fumbles(self) -> int:
        return sum(1 for d in self.dice if d.fumble and d.kept and not d.rerolled)

    def to_dict(self) -> dict[str, Any]:
        return {
            "expression": self.expression,
            "total": self.total,
            "text": self.text,
            "dice": [
                {"sides": d.sides, "face": d.face, "value": d.value, "flags": list(d.flags()), "label": d.label}
                for d in self.dice
            ],
        }


class _Roller:
    def __init__(self, rng: Rng, limit: int = MAX_ROLLED) -> None:
        self.rng = rng
        self.rolled = 0
        self.limit = limit   # faces one roll may draw (a simulation's slice sets fewer)

    def draw(self, dice: Dice) -> int:
        self.rolled += 1
        if self.rolled > self.limit:
            raise DiceDrawnError(f"More than {self.limit:,} dice rolled in one expression.")
        return self.rng.randint(dice.faces[0], dice.faces[-1])

    def face(self, dice: Dice, out: list[DieRoll], added: bool) -> int:
        """Roll one face through rerolls and mi/ma; append what was seen; return its value."""
        face = self.draw(dice)
        for rr in dice.reroll.steps() if dice.reroll is not None else ():  # in turn: rr1rr2 rerolls 1s, then 2s
            if rr.kind not in ("until", "once") or not rr.test(face):
                continue
            out.append(self.die(dice, face, face, rerolled=True, kept=False, added=added))
            if rr.kind == "once":
                face = self.draw(dice)
            else:
                tries = 1
                face = self.draw(dice)
                while rr.test(face):
                    out.append(self.die(dice, face, face, rerolled=True, kept=False, added=added))
                    tries += 1
                    if tries >= MAX_REROLLS:
                        allowed = [f for f in dice.faces if not rr.test(f)]
                        face = allowed[self.rng.randint(0, len(allowed) - 1)]
                        break
                    face = self.draw(dice)
        value = face
        if dice.clamp.low is not None and value < dice.clamp.low:
            value = dice.clamp.low
        if dice.clamp.high is not None and value > dice.clamp.high:
            value = dice.clamp.high
        out.append(self.die(dice, face, value, added=added))
        return value

    def die(self, dice: Dice, face: int, value: int, **flags: Any) -> DieRoll:
        d20 = dice.label_sides == "20"
        return DieRoll(
            sides=dice.label_sides, face=face, value=value,
            natural_max=face == dice.faces[-1] and dice.label_sides != "F",
            natural_min=face == dice.faces[0] and dice.label_sides != "F",
            crit=dice.crit.test(face) if dice.crit is not None else d20 and face == 20,
            fumble=dice.fumble.test(face) if dice.fumble is not None else d20 and face == 1,
            **flags,
        )

    def unit(self, dice: Dice) -> list[DieRoll]:
        seen: list[DieRoll] = []
        value = self.face(dice, seen, added=False)
        ex = dice.explode
        if ex is not None:
            chain = 0
            while ex.cmp.test(value) and not (ex.once and chain):
                chain += 1
                if chain > MAX_CHAIN:
                    raise DiceLimitError(f"An explosion chain went past {MAX_CHAIN} dice.")
                seen[-1] = _replace(seen[-1], exploded=True)
                value = self.face(dice, seen, added=True)
                if ex.penetrate:
                    seen[-1] = _replace(seen[-1], value=seen[-1].value - 1)
        return seen

    def dice(self, dice: Dice) -> RolledNode:
        units = [self.unit(dice) for _ in range(dice.count)]
        rr = dice.reroll
        if rr is not None and rr.kind == "add" and any(rr.test(u[-1].value) for u in units):
            # Avrae's `ra`: one die more when any matches (at most one a roll), a die of its own in the pool.
            extra: list[DieRoll] = []
            self.face(dice, extra, added=True)
            units.append(extra)
        if separate_dice(dice):  # every die an explosion rolled is a die of its own for keep/drop
            units = [part for u in units for part in _split(u)]
        keys = [sum(d.value for d in u if not d.rerolled) for u in units]
        kept = apply_set_ops(keys, dice.set_ops)
        counting = dice.success is not None or dice.failure is not None
        chunks: list[tuple[int, list[DieRoll]]] = []
        total = 0
        for unit, key, keep in zip(units, keys, kept):
            marks = unit_marks(dice, unit, key)
            shown = [
                d if d.rerolled or (keep and not s and not f)  # nothing to mark: no copy
                else _replace(d, kept=keep, success=keep and s, failure=keep and f)
                for d, (s, f) in zip(unit, marks)
            ]
            chunks.append((key, shown))
            if keep:
                total += sum(s - f for s, f in marks) if counting else key
        if dice.sort:  # s / sa / sd: shown in order of their totals (a chain stays together)
            chunks.sort(key=lambda chunk: chunk[0], reverse=dice.sort == "d")
        return RolledNode(dice, total, dice=tuple(d for _, shown in chunks for d in shown))

    def eval(self, node: Node) -> RolledNode:
        if isinstance(node, Const):
            return RolledNode(node, node.value)
        if isinstance(node, Dice):
            return self.dice(node)
        if isinstance(node, Label):
            inner = self.eval(node.node)
            labelled = tuple(_replace(d, label=node.text) for d in inner.dice)
            return RolledNode(node, inner.value, (inner,), labelled)
        if isinstance(node, Unary):
            inner = self.eval(node.operand)
            return RolledNode(node, -inner.value if node.op == "-" else inner.value, (inner,), inner.dice)
        if isinstance(node, Compare):
            left, right = self.eval(node.left), self.eval(node.right)
            value = int(compare_value(node.op, left.value, right.value))
            return RolledNode(node, value, (left, right), left.dice + right.dice)
        if isinstance(node, Binary):
            bottom, chain = left_spine(node)  # a long sum is a loop, not a recursion per term
            done = self.eval(bottom)
            dice = list(done.dice)
            for step in chain:
                right = self.eval(step.right)
                dice.extend(right.dice)
                done = RolledNode(step, binary_value(step.op, done.value, right.value), (done, right), tuple(dice))
            return done
        if isinstance(node, Call):
            parts = [self.eval(arg) for arg in node.args]
            value = call_value(node.name, node.divided, [part.value for part in parts])
            return RolledNode(node, value, tuple(parts), tuple(d for part in parts for d in part.dice))
        if isinstance(node, Group):
            items = [self.eval(item) for item in node.items]
            values = [item.value for item in items]
            kept = apply_set_ops(values, node.set_ops)
            if node.success is not None or node.failure is not None:
                total = sum(
                    (node.success is not None and node.success.test(v)) - (node.failure is not None and node.failure.test(v))
                    for v, k in zip(values, kept) if k
                )
            else:
                total = sum(v for v, k in zip(values, kept) if k)
            children = tuple(_replace(item, kept=k) for item, k in zip(items, kept))
            return RolledNode(node, total, children, tuple(d for item in items for d in item.dice))
        raise TypeError(node)  # pragma: no cover


def separate_dice(dice: Dice) -> bool:
    """Keep/drop over exploded dice picks among every die rolled (Roll20, Foundry, Avrae, rpg-dice-
    roller), not whole chains; a compound `!!` die stays one die."""
    return dice.explode is not None and dice.explode.kind != "compound" and bool(dice.set_ops)


def _split(unit: list[DieRoll]) -> list[list[DieRoll]]:
    """A chain as its dice, each with the rerolled faces that came before it."""
    parts: list[list[DieRoll]] = []
    current: list[DieRoll] = []
    for d in unit:
        current.append(d)
        if not d.rerolled:
            parts.append(current)
            current = []
    if current:
        parts.append(current)
    return parts


def unit_marks(dice: Dice, unit: list[DieRoll], key: int) -> list[tuple[bool, bool]]:
    """(success, failure) for each face of a unit; compound explosions test the unit's total."""
    succ, fail = dice.success, dice.failure
    if succ is None and fail is None:
        return [(False, False)] * len(unit)
    compound = dice.explode is not None and dice.explode.kind == "compound"
    marks: list[tuple[bool, bool]] = []
    for i, d in enumerate(unit):
        if d.rerolled:
            marks.append((False, False))
            continue
        if compound:
            last = i == max(j for j, e in enumerate(unit) if not e.rerolled)
            v = key
            marks.append((last and succ is not None and succ.test(v), last and fail is not None and fail.test(v)))
        else:
            marks.append((succ is not None and succ.test(d.value), fail is not None and fail.test(d.value)))
    return marks


def apply_set_ops(keys: list[int], ops: tuple[SetOp, ...]) -> list[bool]:
    """Which of the items stay after keep/drop operations applied in order (ties: earlier first)."""
    kept = [True] * len(keys)
    for op in ops:
        live = [i for i in range(len(keys)) if kept[i]]
        if op.how == "cmp":
            assert op.cmp is not None
            for i in live:
                if op.cmp.test(keys[i]) != op.keep:
                    kept[i] = False
            continue
        order = sorted(live, key=lambda i: keys[i], reverse=op.how == "h")
        chosen = set(order[: op.n])
        for i in live:
            if (i in chosen) != op.keep:
                kept[i] = False
    return kept


def binary_value(op: str, a: int, b: int) -> int:
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if b == 0:
        raise DiceValueError("Division by zero." if op == "/" else "A remainder (%) by zero.")
    if op == "%":  # the sign of the number divided, as in Roll20 and Foundry (JavaScript's %)
        rest = abs(a) % abs(b)
        return rest if a >= 0 else -rest
    return a // b


def call_value(name: str, divided: bool, values: Sequence[int]) -> int:
    """A function's value. floor/ceil/round of a division round the exact quotient (round: halves
    up, as JavaScript's Math.round in Roll20 and Foundry); of anything else, the value itself."""
    if divided:
        a, b = values
        if b == 0:
            raise DiceValueError("Division by zero.")
        if name == "floor":
            return a // b
        if name == "ceil":
            return -(-a // b)
        return (2 * a + b) // (2 * b)  # floor(a/b + 1/2), for either sign of b
    if name == "abs":
        return abs(values[0])
    if name == "max":
        return max(values)
    if name == "min":
        return min(values)
    return values[0]


def compare_value(op: str, a: int, b: int) -> bool:
    return Cmp("=" if op == "==" else op, b).test(a)


# -- text ----------------------------------------------------------------------------------

_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2, "%": 2}


def describe(tree: RolledNode) -> str:
    node = tree.node
    if isinstance(node, Const):
        return str(node.value)
    if isinstance(node, Dice):
        return f"{node.text} ({', '.join(_die_text(d) for d in tree.dice)})"
    if isinstance(node, Label):
        return f"{describe(tree.children[0])} [{node.text}]"
    if isinstance(node, Unary):
        return f"{node.op}{_wrapped(tree.children[0], 3)}"
    if isinstance(node, Binary):
        # Walk down the left operands of equal precedence in a loop (a long sum is one chain).
        steps = []
        while isinstance(node, Binary):
            steps.append(tree)
            left = tree.children[0]
            if not (isinstance(left.node, Binary) and _PRECEDENCE[left.node.op] >= _PRECEDENCE[node.op]):
                break
            tree, node = left, left.node
        last = steps[-1]
        parts = [_wrapped(last.children[0], _PRECEDENCE[last.node.op])]  # type: ignore[union-attr]
        for step in reversed(steps):
            op = step.node.op  # type: ignore[union-attr]
            parts.append(f" {op} {_wrapped(step.children[1], _PRECEDENCE[op] + (op in '-/%'))}")
        return "".join(parts)
    if isinstance(node, Compare):
        return f"{describe(tree.children[0])} {node.op} {describe(tree.children[1])}"
    if isinstance(node, Call):
        if node.divided:
            return f"{node.name}({_wrapped(tree.children[0], 2)} / {_wrapped(tree.children[1], 3)})"
        return f"{node.name}({', '.join(describe(c) for c in tree.children)})"
    if isinstance(node, Group):
        parts = [describe(c) if c.kept else f"~~{describe(c)}~~" for c in tree.children]
        opening, closing = ("(", ")") if node.paren else ("{", "}")
        return f"{opening}{', '.join(parts)}{closing}{_group_mods(node)}"
    raise TypeError(node)  # pragma: no cover


def _wrapped(tree: RolledNode, precedence: int) -> str:
    node = tree.node
    inner = node.node if isinstance(node, Label) else node
    if isinstance(inner, Binary) and _PRECEDENCE[inner.op] < precedence or isinstance(inner, Compare):
        return f"({describe(tree)})"
    return describe(tree)


def _group_mods(node: Group) -> str:
    out = "".join(op.text() for op in node.set_ops)
    if node.success:
        out += node.success.op + str(node.success.value)
    if node.failure:
        out += "f" + node.failure.text()
    return out


def _die_text(d: DieRoll) -> str:
    text = str(d.value)
    if d.exploded:
        text += "!"
    if d.rerolled or d.dropped:
        text = f"~~{text}~~"
    return text


def roll_ast(ast: Node, rng: Rng | None = None, expression: str = "", limit: int = MAX_ROLLED) -> RollResult:
    """Roll an already parsed expression; DiceLimitError past `limit` faces drawn (rerolls and
    explosions included: the page's roller sets fewer, so that no roll blocks the page)."""
    roller = _Roller(rng if rng is not None else random.Random(), min(limit, MAX_ROLLED))
    tree = roller.eval(ast)
    text = f"{describe(tree)} = {tree.value}"
    return RollResult(expression, ast, tree, tree.value, text, tree.dice)


def roll_total(ast: Node, rng: Rng, limit: int = MAX_ROLLED) -> int:
    """Only the total of one roll (for simulations: no text is built); DiceLimitError past `limit` dice."""
    return _Roller(rng, min(limit, MAX_ROLLED)).eval(ast).value


def roll(expression: str, rng: Rng | None = None, limit: int = MAX_ROLLED) -> RollResult:
    """Parse and roll dice notation. `rng` is anything with randint (default: a new random.Random)."""
    return roll_ast(parse(expression), rng, expression, limit)
