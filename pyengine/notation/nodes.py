"""The dice notation's tree: frozen nodes (a die set with its modifiers, numbers, operators,
groups, labels, calls), its caps, and the walks every reader of a tree shares."""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass, replace

__all__ = ["MAX_TEXT", "MAX_DICE", "MAX_SIDES", "MAX_DEPTH", "MAX_CONSTANT", "Cmp", "SetOp", "Explode", "Reroll", "Clamp", "Dice", "Const", "Unary", "Binary", "Compare", "Group", "Label", "Call", "FUNCTIONS", "ROUNDING", "Node", "left_spine", "children", "clamped", "doubled_dice", "count_dice"]

MAX_TEXT = 1000        # characters in one expression
MAX_DICE = 1000        # dice asked for in one expression (before rerolls and explosions)
MAX_SIDES = 10_000     # sides of one die
MAX_DEPTH = 40         # nesting of parentheses, groups and unary signs
MAX_CONSTANT = 10**9   # largest integer literal


_TESTS: dict[str, Callable[[int, int], bool]] = {
    "=": operator.eq, "!=": operator.ne, "<": operator.lt, ">": operator.gt, "<=": operator.le, ">=": operator.ge,
}


@dataclass(frozen=True)
class Cmp:
    """A comparison against a number: op is one of = != < > <= >=."""

    op: str
    value: int

    def test(self, x: int) -> bool:
        return _TESTS[self.op](x, self.value)

    def text(self) -> str:
        return ("" if self.op == "=" else self.op) + str(self.value)


@dataclass(frozen=True)
class SetOp:
    """Keep or drop dice of a set. how: 'h' highest n, 'l' lowest n, or 'cmp' matching `cmp`."""

    keep: bool
    how: str
    n: int = 0
    cmp: Cmp | None = None

    def text(self) -> str:
        """As written: kh3, dl1, k>4, p<2."""
        letter = "k" if self.keep else ("p" if self.how == "cmp" else "d")
        return f"{letter}{self.how}{self.n}" if self.how != "cmp" or self.cmp is None else f"{letter}{self.cmp.text()}"


@dataclass(frozen=True)
class Explode:
    """Roll another die when a face matches; kind: 'explode' (each die its own) or 'compound' (one
    die adding up its chain). Penetrating: every die the chain adds counts one less."""

    kind: str
    cmp: Cmp
    penetrate: bool = False
    once: bool = False  # Foundry's xo: a matching die adds one die, which does not explode


@dataclass(frozen=True)
class Reroll:
    """Reroll matching faces; kind: 'until' (until it no longer matches), 'once', or 'add'.
    `more`: further faces this step matches too (Roll20's `2d8r1r3r5r7` rerolls any of them);
    `then`: the next step, of another kind, applied to what this one left (`1d20r1ro2`)."""

    kind: str
    cmp: Cmp
    more: tuple[Cmp, ...] = ()
    then: Reroll | None = None

    def test(self, x: int) -> bool:
        return self.cmp.test(x) or any(c.test(x) for c in self.more)

    def steps(self) -> tuple[Reroll, ...]:
        out: list[Reroll] = []
        step: Reroll | None = self
        while step is not None:
            out.append(step)
            step = step.then
        return tuple(out)

    def words(self) -> str:
        """The faces this step matches, as written: 1, <3, 5."""
        return ", ".join(c.text() for c in (self.cmp, *self.more))


@dataclass(frozen=True)
class Clamp:
    """Each die at least (`low`) or at most (`high`) a value."""

    low: int | None = None
    high: int | None = None


@dataclass(frozen=True)
class Dice:
    """NdX with its modifiers. faces is the tuple of face values of one die."""

    count: int
    faces: tuple[int, ...]
    label_sides: str
    reroll: Reroll | None = None
    clamp: Clamp = Clamp()
    explode: Explode | None = None
    set_ops: tuple[SetOp, ...] = ()
    success: Cmp | None = None
    failure: Cmp | None = None
    text: str = ""
    crit: Cmp | None = None     # cs: faces that count as critical (default: a d20's 20)
    fumble: Cmp | None = None   # cf: faces that count as fumbles (default: a d20's 1)
    sort: str = ""              # s / sa: lowest first, sd: highest first
    late: str = ""              # a reroll, explosion or mi/ma written after a keep/drop (4d6kh3rr1): applied before it here

    @property
    def sides(self) -> int:
        return len(self.faces)


@dataclass(frozen=True)
class Const:
    value: int


@dataclass(frozen=True)
class Unary:
    op: str
    operand: Node


@dataclass(frozen=True)
class Binary:
    op: str
    left: Node
    right: Node


@dataclass(frozen=True)
class Compare:
    op: str
    left: Node
    right: Node


@dataclass(frozen=True)
class Group:
    """{a, b, ...} with keep/drop or success counting over the items' totals."""

    items: tuple[Node, ...]
    set_ops: tuple[SetOp, ...] = ()
    success: Cmp | None = None
    failure: Cmp | None = None
    paren: bool = False


@dataclass(frozen=True)
class Label:
    node: Node
    text: str


@dataclass(frozen=True)
class Call:
    """floor() ceil() round() abs() max() min(). For the rounding three, `divided` says the argument
    was a division, then `args` holds its two sides and the quotient is rounded exactly."""

    name: str
    args: tuple[Node, ...]
    divided: bool = False


FUNCTIONS = ("floor", "ceil", "round", "abs", "max", "min")
ROUNDING = ("floor", "ceil", "round")

Node = Dice | Const | Unary | Binary | Compare | Group | Label | Call


def children(node: Node) -> tuple[Node, ...]:
    """A node's sub-expressions, in the order they are written (none for dice and numbers)."""
    if isinstance(node, (Binary, Compare)):
        return node.left, node.right
    if isinstance(node, Unary):
        return (node.operand,)
    if isinstance(node, Label):
        return (node.node,)
    if isinstance(node, Group):
        return node.items
    if isinstance(node, Call):
        return node.args
    return ()


def doubled_dice(node: Node) -> Node:
    """The same expression with every die rolled twice as many times (a critical hit's damage in
    d20 games: `1d8+3` becomes `2d8+3`); refused past MAX_DICE like any roll."""
    if isinstance(node, Dice):
        return replace(node, count=2 * node.count, text=f"{2 * node.count}d{node.label_sides}" + node.text.split("d", 1)[1][len(node.label_sides):]
                       if "d" in node.text else node.text)
    if isinstance(node, Label):
        return replace(node, node=doubled_dice(node.node))
    if isinstance(node, Unary):
        return replace(node, operand=doubled_dice(node.operand))
    if isinstance(node, (Binary, Compare)):
        return replace(node, left=doubled_dice(node.left), right=doubled_dice(node.right))
    if isinstance(node, Group):
        return replace(node, items=tuple(doubled_dice(i) for i in node.items))
    if isinstance(node, Call):
        return replace(node, args=tuple(doubled_dice(a) for a in node.args))
    return node


def count_dice(node: Node) -> int:
    """How many dice an expression asks for (before rerolls and explosions)."""
    stack, total = [node], 0
    while stack:
        n = stack.pop()
        if isinstance(n, Dice):
            total += n.count
        stack += children(n)
    return total


def left_spine(node: Binary) -> tuple[Node, list[Binary]]:
    """A chain of binary operators as (its leftmost operand, the operators from the bottom up), so
    that evaluators walk a long sum like `1+1+...+1` in a loop instead of recursing once a term."""
    chain = [node]
    left = node.left
    while isinstance(left, Binary):
        chain.append(left)
        left = left.left
    chain.reverse()
    return left, chain


def clamped(face: int, clamp: Clamp) -> int:
    """A face after mi / ma."""
    if clamp.low is not None and face < clamp.low:
        face = clamp.low
    if clamp.high is not None and face > clamp.high:
        face = clamp.high
    return face
