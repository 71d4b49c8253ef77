"""Dice notation text -> the tree of `nodes`: one recursive-descent parser with its bounds (every
cap checked while reading), advantage comments, and a cache on the text."""

from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache
from typing import Any

from ..errors import DiceLimitError, DiceSyntaxError, DiceValueError
from .nodes import (
    FUNCTIONS,
    MAX_CONSTANT,
    MAX_DEPTH,
    MAX_DICE,
    MAX_SIDES,
    MAX_TEXT,
    ROUNDING,
    Binary,
    Call,
    Clamp,
    Cmp,
    Compare,
    Const,
    Dice,
    Explode,
    Group,
    Label,
    Node,
    Reroll,
    SetOp,
    Unary,
    children,
    clamped,
)

__all__ = ["ADVANTAGE", "parse"]

_CMP_OPS = ("<=", ">=", "!=", "<", ">", "=")   # after a modifier letter: r<=2, !>=5, e>5 ...
_TARGET_OPS = (">=", "<=", ">", "<", "=")        # a success target right after a roll: 5d10>=8


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.depth = 0
        self.dice_count = 0

    # -- low level -------------------------------------------------------------------------
    def error(self, expected: str) -> DiceSyntaxError:
        return DiceSyntaxError(self.text, self.pos, expected)

    def skip(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos] in " \t\r\n":
            self.pos += 1

    def peek(self, s: str) -> bool:
        return self.text.startswith(s, self.pos)

    def take(self, s: str) -> bool:
        if self.text.startswith(s, self.pos):
            self.pos += len(s)
            return True
        return False

    def number(self, what: str = "a number") -> int:
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos].isdigit() and self.text[self.pos].isascii():
            self.pos += 1
        if start == self.pos:
            raise self.error(what)
        digits = self.text[start:self.pos]
        if len(digits.lstrip("0")) > 10 or int(digits) > MAX_CONSTANT:  # leading zeros are fine: 0001d6
            self.pos = start
            raise DiceLimitError(f"The number {digits[:12]}{'…' if len(digits) > 12 else ''} is too large (at most {MAX_CONSTANT:,}).")
        return int(digits)

    def at_digit(self) -> bool:
        return self.pos < len(self.text) and self.text[self.pos].isdigit() and self.text[self.pos].isascii()

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise DiceLimitError(f"The expression is nested too deeply (at most {MAX_DEPTH} levels).")

    # -- grammar ---------------------------------------------------------------------------
    def parse(self) -> Node:
        if len(self.text) > MAX_TEXT:
            raise DiceLimitError(f"The expression is too long (at most {MAX_TEXT} characters).")
        self.skip()
        if self.pos >= len(self.text):
            raise self.error("a dice expression such as 1d20+5")
        node = self.comparison()
        self.skip()
        if self.pos < len(self.text):
            comment = self.comment()
            if comment is None:
                raise self.error("an operator (+ - * / or a comparison) or the end")
            # Avrae: "1d20+5 Stealth" is the roll and what it is for; "2d6 #" has an empty comment
            words = comment.split()
            if words and words[0].lower() in ADVANTAGE:  # Avrae's `!r 1d20+5 adv`: the first d20 twice
                node = _with_advantage(node, ADVANTAGE[words[0].lower()])
            return Label(node, comment) if comment else node
        return node

    def _comment_follows(self, at: int) -> bool:
        """After `//` at `at`: words, not a number, a die or a bracket (`7 // 2` divides)."""
        rest = self.text[at:].lstrip()
        return not rest or not (rest[0].isdigit() or rest[0] in "({+-" or re.match(r"[dD](\d|%|F)", rest)
                                or any(rest.startswith(f + "(") for f in FUNCTIONS))

    def comment(self) -> str | None:
        """Text after a complete expression, after a space, that starts with a word: the roll's
        comment. A first word with a digit (`2d6 d6`) is a typo, not a comment. After `#` (Foundry's
        flavour text) or `//` (rpg-dice-roller), anything is the comment."""
        rest = self.text[self.pos:].strip()
        for mark in ("#", "//"):
            if rest.startswith(mark):
                rest = rest[len(mark):].strip()
                if len(rest) > 100:
                    raise DiceLimitError("A comment is too long (at most 100 characters).")
                return rest
        first = rest.split()[0] if rest else ""
        if not (self.pos > 0 and self.text[self.pos - 1] in " \t" and first[:1].isalpha() and not any(ch.isdigit() for ch in first)):
            return None
        if re.search(r"[-+*/%]\s*(\d|d\d)", rest):  # "1d20 Stealth + 5": more of the roll, not a comment
            return None
        if re.match(r"[xX×]\s*\d", rest):  # "2d6 x 3": a multiplication written with an x, refused (write *)
            return None
        if len(rest) > 100:
            raise DiceLimitError("A comment is too long (at most 100 characters).")
        return rest

    def comparison(self) -> Node:
        left = self.additive()
        self.skip()
        for op in ("==", "!=", "<=", ">=", "<", ">"):
            if self.take(op):
                right = self.additive()
                return Compare(op, left, right)
        return left

    def additive(self) -> Node:
        node = self.term()
        while True:
            self.skip()
            if self.peek("+") or self.peek("-"):
                op = self.text[self.pos]
                self.pos += 1
                node = Binary(op, node, self.term())
            else:
                return node

    def term(self) -> Node:
        node = self.unary()
        while True:
            self.skip()
            if self.peek("//") and self._comment_follows(self.pos + 2):
                return node  # rpg-dice-roller's `2d6 // fire`: the rest is a comment (parse() takes it)
            if self.peek("*") or self.peek("/") or self.peek("%"):
                op = self.text[self.pos]
                self.pos += 2 if self.peek("//") else 1  # Avrae's // is our / (both round down)
                node = Binary(op, node, self.unary())
            else:
                return node

    def unary(self) -> Node:
        self.skip()
        if self.peek("-") or self.peek("+"):
            op = self.text[self.pos]
            self.pos += 1
            self.enter()
            operand = self.unary()
            self.depth -= 1
            return Unary(op, operand)
        return self.labelled(self.atom())

    def labelled(self, node: Node) -> Node:
        before = self.pos
        self.skip()  # "2d6 [fire]": a space before the label is fine
        if not self.peek("["):
            self.pos = before
        if self.peek("["):
            start = self.pos + 1
            end = self.text.find("]", start)
            if end < 0:
                self.pos = len(self.text)
                raise self.error("']' to close the label")
            label = self.text[start:end].strip()
            if len(label) > 100:
                raise DiceLimitError("A label is too long (at most 100 characters).")
            self.pos = end + 1
            return Label(node, label)
        return node

    def atom(self) -> Node:
        self.skip()
        start = self.pos
        if self.peek("(") or self.peek("{"):
            curly = self.peek("{")
            self.pos += 1
            self.enter()
            items = [self.comparison()]
            self.skip()
            while self.take(","):
                items.append(self.comparison())
                self.skip()
            if not self.take("}" if curly else ")"):
                raise self.error("'}'" if curly else "')' or ','")
            self.depth -= 1
            if not curly and len(items) == 1 and re.match(r"[dD](\d|%|F|\()", self.text[self.pos:self.pos + 2]):
                # Roll20 and Foundry: a computed number of dice, (4-2)d10
                return self.dice(self.fixed(items[0], start, "number of dice"), start)
            if curly or len(items) > 1 or self._set_op_follows():
                set_ops, success, failure = self.group_mods()
                if len(items) == 1 and set_ops:  # Roll20: one item's keep/drop picks among its dice
                    within = _keep_within(items[0], set_ops)
                    if isinstance(within, Group):  # {4d6+3d8}k4: a group of its dice
                        return replace(within, success=success, failure=failure, paren=not curly)
                    items = [within]
                    set_ops = ()
                return Group(tuple(items), set_ops, success, failure, paren=not curly)
            return items[0]
        name = next((f for f in FUNCTIONS if self.peek(f + "(")), None)
        if name is not None:
            return self.call(name)
        if self.at_digit() or self.peek("d") or self.peek("D"):  # 1D20 as 1d20 (a phone capitalises)
            count = 1
            if self.at_digit():
                count = self.number()
                if not (self.peek("d") or self.peek("D")):
                    return Const(count)
            return self.dice(count, start)
        raise self.error("a number, a die such as d20, '(' or '{'")

    def call(self, name: str) -> Call:
        start = self.pos
        self.pos += len(name) + 1
        self.enter()
        args = [self.comparison()]
        self.skip()
        while self.take(","):
            args.append(self.comparison())
            self.skip()
        if not self.take(")"):
            raise self.error("')' or ','")
        self.depth -= 1
        if name in ("max", "min"):
            if len(args) < 2:
                self.pos = start
                raise DiceValueError(f"{name}() takes two or more values, such as {name}(1d20, 10).")
            return Call(name, tuple(args))
        if len(args) != 1:
            self.pos = start
            raise DiceValueError(f"{name}() takes one value, such as {name}(1d6/2).")
        arg = args[0]
        if name in ROUNDING:
            if isinstance(arg, Binary) and arg.op == "/":
                if _divides(arg.left) or _divides(arg.right):
                    raise DiceValueError(f"Inside {name}(), one division at most, as the whole value: {name}(a/b).")
                return Call(name, (arg.left, arg.right), divided=True)
            if _divides(arg):
                raise DiceValueError(f"Inside {name}(), a division must be the whole value, as in {name}(1d6/2) + 1: "
                                     f"the other rollers divide exactly, here only {name}(a/b) does.")
        return Call(name, (arg,))

    def fixed(self, node: Node, start: int, what: str) -> int:
        """A computed count or number of sides: whole-number arithmetic on numbers, no dice."""
        value = _constant(node)
        if value is None:
            self.pos = start
            raise DiceValueError(f"The {what} can be computed from numbers, as in (4-2)d10 or 3d(2*6), not rolled.")
        if value < 0:
            self.pos = start
            raise DiceValueError(f"The {what} comes to {value}: it cannot be negative.")
        if value > MAX_CONSTANT:
            raise DiceLimitError(f"The {what} comes to more than {MAX_CONSTANT:,}.")
        return value

    def _set_op_follows(self) -> bool:
        return any(self.peek(s) for s in ("kh", "kl", "k", "dh", "dl", "ph", "pl", "p"))

    def dice(self, count: int, start: int) -> Dice:
        self.pos += 1  # the 'd'
        faces, label_sides = self.die_faces()
        self.dice_count += count
        if self.dice_count > MAX_DICE:
            raise DiceLimitError(f"Too many dice: at most {MAX_DICE:,} in one roll.")
        fields: dict[str, Any] = {"reroll": None, "explode": None, "success": None, "failure": None, "crit": None, "fumble": None,
                                  "sort": None, "low": None, "high": None, "late": None}
        set_ops = self.dice_modifiers(faces, fields)
        clamp = Clamp(fields["low"], fields["high"])
        _check_dice(faces, label_sides, clamp, fields["reroll"], fields["explode"])
        return Dice(
            count=count, faces=faces, label_sides=label_sides, reroll=fields["reroll"], clamp=clamp,
            explode=fields["explode"], set_ops=_one_count_op(set_ops), success=fields["success"],
            failure=fields["failure"], text=self.text[start:self.pos], crit=fields["crit"], fumble=fields["fumble"],
            sort=fields["sort"] or "", late=self.text[fields["late"]:self.pos] if fields.get("late") else "",
        )

    def die_faces(self) -> tuple[tuple[int, ...], str]:
        """The faces after the 'd' (a number of sides, '%' or 'F'), and how the label names them."""
        if self.take("%"):
            return tuple(range(1, 101)), "%"
        if self.take("F"):
            return (-1, 0, 1), "F"
        if self.peek("("):  # a computed number of sides, 3d(2*6)
            start = self.pos
            self.pos += 1
            self.enter()
            inner = self.comparison()
            self.skip()
            if not self.take(")"):
                raise self.error("')'")
            self.depth -= 1
            sides = self.fixed(inner, start, "number of sides")
        else:
            sides = self.number("the number of sides, '%' or 'F'")
        if sides > MAX_SIDES:
            raise DiceLimitError(f"A die can have at most {MAX_SIDES:,} sides.")
        if sides < 1:
            raise DiceValueError("A die needs at least one side.")
        return tuple(range(1, sides + 1)), str(sides)

    def dice_modifiers(self, faces: tuple[int, ...], fields: dict[str, Any]) -> list[SetOp]:
        """The modifiers after a dice term, into `fields` (each at most once); returns its keep/drop operations."""
        set_ops: list[SetOp] = []
        while True:
            here = self.pos
            if set_ops and not fields.get("late") and any(self.peek(c) for c in "!exrm"):
                fields["late"] = here  # Avrae applies operators in the order written; here rerolls come first
            if self.peek("!") or self.peek("e") or self.peek("x"):
                self.set_once(fields, "explode", self.explode_modifier(faces), here)
            elif self.peek("r"):
                self.pos += 1
                kind = "once" if self.take("o") else "add" if self.take("a") else "until"
                if kind == "until":
                    self.take("r")
                cmp = self.optional_cmp() or Cmp("=", min(faces))  # a bare r / ro rerolls the lowest face
                fields["reroll"] = self.more_reroll(fields["reroll"], Reroll(kind, cmp), here)
            elif self.take("min") or self.take("mi"):  # rpg-dice-roller writes min3 for Roll20's mi3
                fields["low"] = self.number("the minimum face after 'mi'")
            elif self.take("max") or self.take("ma"):
                fields["high"] = self.number("the maximum face after 'ma'")
            elif self.peek("cs") or self.peek("cf"):
                key = "crit" if self.take("cs") else "fumble" if self.take("cf") else ""
                self.set_once(fields, key, self.cmp_required(f"the faces that count after '{'cs' if key == 'crit' else 'cf'}', such as cs>19"), here)
            elif self.take("s"):
                descending = self.peek("d") and not re.match(r"d[hl\d]", self.text[self.pos:self.pos + 2])  # s then d1: drop
                if descending or self.peek("a"):
                    self.pos += 1
                self.set_once(fields, "sort", "d" if descending else "a", here)
            elif self.peek("k") or self.peek("d") or self.peek("p"):
                set_ops.append(self.set_op())
            elif self.peek("f"):
                self.pos += 1
                self.set_once(fields, "failure", self.cmp_required("a failure target such as f1 or f<=2"), here)
            elif (target := self.success_target()) is not None:
                self.set_once(fields, "success", target, here)
            else:
                return set_ops

    def more_reroll(self, before: Reroll | None, step: Reroll, here: int) -> Reroll:
        """A reroll after others: of the same kind they join into one step that rerolls any of
        their faces (Roll20's `2d8r1r3r5r7`; Avrae reads `1d20rr1rr2` so); `r1ro2` follow in turn;
        `ra` stands alone."""
        if before is None:
            return step
        if step.kind == "add" or any(s.kind == "add" for s in before.steps()):
            self.pos = here
            raise DiceValueError("'ra' (reroll and add) is the only reroll of its dice.")
        *first, last = before.steps()
        last = replace(last, more=(*last.more, step.cmp)) if step.kind == last.kind else replace(last, then=step)
        for earlier in reversed(first):
            last = replace(earlier, then=last)
        return last

    def explode_modifier(self, faces: tuple[int, ...]) -> Explode:
        """'!', '!!', '!p', '!!p' (optionally with a comparison), Avrae's 'eN' or Foundry's 'x'."""
        if self.peek("!"):
            kind = "compound" if self.take("!!") else "explode"
            if kind == "explode":
                self.pos += 1
            penetrate = self.take("p")
            return Explode(kind, self.optional_cmp() or Cmp("=", max(faces)), penetrate)
        if self.take("e"):
            return Explode("explode", self.cmp_required("a face to explode on, such as e6 or e>5"))
        self.pos += 1  # Foundry's explode, x; xo explodes once
        once = self.take("o")
        return Explode("explode", self.optional_cmp() or Cmp("=", max(faces)), once=once)

    def set_once(self, fields: dict[str, Any], key: str, value: object, here: int) -> None:
        if fields[key] is not None:
            self.pos = here
            raise self.error(f"only one {key} modifier on a roll")
        fields[key] = value

    def optional_cmp(self) -> Cmp | None:
        for op in _CMP_OPS:
            if self.peek(op) and not self.peek("=="):
                self.pos += len(op)
                return Cmp("=" if op == "=" else op, self.number(f"a number after '{op}'"))
        if self.at_digit():
            return Cmp("=", self.number())
        return None

    def success_target(self) -> Cmp | None:
        """`>=8`, `<3`, `=6` right after a roll or a group (but not `==`, a comparison of totals)."""
        if self.peek("=="):
            return None
        op = next((op for op in _TARGET_OPS if self.peek(op)), None)
        if op is None:
            return None
        self.pos += len(op)
        return Cmp(op, self.number("a success target"))

    def cmp_required(self, expected: str) -> Cmp:
        cmp = self.optional_cmp()
        if cmp is None:
            raise self.error(expected)
        return cmp

    def set_op(self) -> SetOp:
        letter = self.text[self.pos]
        self.pos += 1
        keep = letter == "k"
        for how in "hl":
            if self.take(how):  # Foundry: kh alone keeps one (2d20kh), as do kl, dh and dl
                return SetOp(keep, how, self.number() if self.at_digit() else 1)
        if letter in "kd" and self.at_digit():
            # Roll20 / Foundry: k3 keeps the highest three, d1 drops the lowest one.
            return SetOp(keep, "h" if keep else "l", self.number())
        cmp = self.optional_cmp()
        if cmp is None:
            raise self.error(f"'h', 'l', a number or a comparison after '{letter}'")
        return SetOp(keep, "cmp", cmp=cmp)

    def group_mods(self) -> tuple[tuple[SetOp, ...], Cmp | None, Cmp | None]:
        set_ops: list[SetOp] = []
        success = failure = None
        while True:
            if self._set_op_follows() or self.peek("d"):
                set_ops.append(self.set_op())
            elif self.peek("f"):
                self.pos += 1
                failure = self.cmp_required("a failure target")
            elif (target := self.success_target()) is not None:
                success = target
            else:
                return _one_count_op(set_ops), success, failure


# A comment's first word that rolls the first single d20 twice (Avrae): keep the higher, or the lower.
ADVANTAGE = {"adv": "h", "advantage": "h", "dis": "l", "disadvantage": "l"}


def _with_advantage(node: Node, how: str) -> Node:
    """`node` with its first single d20 (no keep/drop) rolled twice, keeping the higher ('h') or the
    lower ('l'); unchanged when it has none (the reading says so)."""
    found = False

    def walk(n: Node) -> Node:
        nonlocal found
        if found:
            return n
        if isinstance(n, Dice):
            if n.count == 1 and n.label_sides == "20" and not n.set_ops and n.success is None:
                found = True
                return replace(n, count=2, set_ops=(SetOp(True, how, 1),), text=f"2d20k{how}1")
            return n
        if isinstance(n, Binary):
            return replace(n, left=walk(n.left), right=walk(n.right))
        if isinstance(n, Unary):
            return replace(n, operand=walk(n.operand))
        if isinstance(n, Label):
            return replace(n, node=walk(n.node))
        return n
    return walk(node)


def _constant(node: Node) -> int | None:
    """The value of whole-number arithmetic with no dice (`/` rounds down, as everywhere here), else None."""
    if isinstance(node, Const):
        return node.value
    if isinstance(node, Unary):
        inner = _constant(node.operand)
        return None if inner is None else (-inner if node.op == "-" else inner)
    if isinstance(node, Binary):
        a, b = _constant(node.left), _constant(node.right)
        if a is None or b is None or (node.op in "/%" and b == 0) or abs(a) > MAX_CONSTANT or abs(b) > MAX_CONSTANT:
            return None
        if node.op == "+":
            return a + b
        if node.op == "-":
            return a - b
        if node.op == "*":
            return a * b
        if node.op == "/":
            return a // b
        rest = abs(a) % abs(b)  # the sign of the number divided, as rolling.binary_value
        return rest if a >= 0 else -rest
    return None


def _keep_within(item: Node, set_ops: tuple[SetOp, ...]) -> Node:
    """`{2d20}kh1` keeps the higher d20 (Roll20, Avrae and rpg-dice-roller agree): keep/drop on a
    group of one item applies to that item's dice. Over a sum of several kinds of dice, Roll20's
    `{4d6+3d8}k4` keeps the 4 highest of the 7 dice (rpg-dice-roller agrees): a group of the dice."""
    if isinstance(item, Dice) and not item.set_ops:
        return replace(item, set_ops=set_ops, text=item.text + "".join(op.text() for op in set_ops))
    terms: list[Node] = [item]
    dice: list[Dice] = []
    while terms:
        term = terms.pop()
        if isinstance(term, Binary) and term.op == "+":
            terms += [term.right, term.left]
        elif isinstance(term, Dice) and not term.set_ops and term.success is None and term.failure is None:
            dice.append(term)
        else:
            raise DiceValueError("Keep or drop on a group of one item picks among its dice: a sum of dice such as "
                                 "{4d6+3d8}k4 (the 4 highest of the 7 dice), or {2d20}kh1. Constants, other "
                                 "operations and modified keeps are not dice to pick among.")
    one = [replace(d, count=1, text=f"d{d.label_sides}") for d in dice for _ in range(d.count)]
    return Group(tuple(one), _one_count_op(list(set_ops)))


def _check_dice(faces: tuple[int, ...], label_sides: str, clamp: Clamp, reroll: Reroll | None, explode: Explode | None) -> None:
    """Refuse a dice term that can never end or makes no sense: mi/ma outside the faces, a reroll
    that matches every face, an explosion on every face the die can still show."""
    top, bottom = max(faces), min(faces)
    low, high = clamp.low, clamp.high
    if low is not None and low > top:
        raise DiceValueError(f"'mi{low}' is above the highest face of a d{label_sides} ({top}).")
    if high is not None and high < bottom:
        raise DiceValueError(f"'ma{high}' is below the lowest face of a d{label_sides} ({bottom}).")
    if low is not None and high is not None and low > high:
        raise DiceValueError(f"'mi{low}' is above 'ma{high}'.")
    steps = reroll.steps() if reroll is not None else ()
    for step in steps:
        if step.kind == "until" and all(step.test(f) for f in faces):
            raise DiceValueError(f"'r{step.words()}' matches every face: the die would be rerolled forever.")
    if explode is not None and reroll is not None and reroll.kind == "add":
        raise DiceValueError("'ra' (reroll and add) cannot be combined with exploding dice.")
    if explode is not None:
        # The faces a die can still show once rerolled: an explosion on all of them never ends.
        last = steps[-1] if steps else None
        shown = [f for f in faces if last is None or last.kind != "until" or not last.test(f)]
        if not explode.once and all(explode.cmp.test(clamped(f, clamp)) for f in shown):
            raise DiceValueError("The explosion matches every face the die can show: it would explode forever.")


def _one_count_op(set_ops: list[SetOp]) -> tuple[SetOp, ...]:
    """Keep or drop by count once, after any keep or drop by value: a chain like `3d10k1d1` would
    keep one die and then drop it (always 0), so it is refused rather than read silently."""
    counted = [i for i, op in enumerate(set_ops) if op.how in ("h", "l")]
    if len(counted) > 1:
        raise DiceValueError("Keep or drop by count once per dice or group (3d10k1d1 would keep a die, then drop it): "
                             "write 3d10k1, or 4d6kh3.")
    if counted and counted[0] != len(set_ops) - 1:
        raise DiceValueError("A keep or drop by value (k>2, d<3) goes before the keep or drop by count (kh3).")
    return tuple(set_ops)


def _divides(node: Node) -> bool:
    """Whether a division appears in node, outside any function call (those are whole values)."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, Binary) and n.op == "/":
            return True
        if not isinstance(n, Call):
            stack += children(n)
    return False


def parse(text: str) -> Node:
    """Parse dice notation into an AST; raises DiceSyntaxError, DiceLimitError or DiceValueError.
    The AST is frozen, so the same text gives the same (cached) tree."""
    if not isinstance(text, str):
        raise DiceValueError("A dice expression must be text.")
    return _parsed(text)


@lru_cache(maxsize=512)
def _parsed(text: str) -> Node:
    return _Parser(text).parse()
