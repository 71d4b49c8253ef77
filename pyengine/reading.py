"""How an expression was read, when the reading is likely not what was meant.

The notation keeps one rule for each spelling (see `notation`), and some spellings that other rollers
take differently, or that are easy to mistype, silently give a surprising total: `2d6>=7` counts the
dice showing 7 or more (always 0), `5+1d20>=15` adds 1 when the die shows 15 or more, `1d20!=20`
explodes on 20, `3d6!!>=10` never explodes. `readings` says, in words for the line under the input,
how such an expression was read and how to write the other meaning. Bounded: one walk of the tree,
and the odds of a comparison only within a small budget.
"""

from __future__ import annotations

from .errors import EngineError
from .notation import ADVANTAGE, Binary, Cmp, Compare, Dice, Group, Label, Node, SetOp, children, clamped
from .odds import Budget, distribution_ast

__all__ = ["readings"]

_SYMBOL = {">=": "≥ ", "<=": "≤ ", "!=": "≠ ", "=": "", ">": "> ", "<": "< "}
_CHECK_WORK = 50_000  # the odds work spent to see whether a comparison is constant


def readings(ast: Node) -> list[str]:
    """Sentences such as "read as: count the dice showing ≥ 7 (always 0) …", at most one per cause."""
    notes: list[str] = []
    budget = Budget(_CHECK_WORK)  # one budget for every comparison of the expression: a long one stays quick
    stack: list[tuple[Node, bool]] = [(ast, True)]
    while stack:
        node, whole = stack.pop()
        if isinstance(node, Dice):
            notes += _dice_notes(node, whole)
        elif isinstance(node, Compare):
            notes += _constant_comparison(node, budget)
        elif isinstance(node, Group):
            notes += _keep_notes(node.set_ops, len(node.items), "items")
        elif isinstance(node, Label):
            notes += _comment_notes(node)
        elif isinstance(node, Binary) and node.op == "/" and not whole:
            notes.append("read as: '/' rounds down to a whole number where it stands, before the rest (7/2*2 is 6 here; "
                         "Roll20, Foundry, Avrae and rpg-dice-roller carry 3.5 on: 7). Divide last (7*2/2), or round "
                         "on purpose with floor(a/b), ceil(a/b) or round(a/b)")
        # In source order; a label stands for the whole expression when what it labels does.
        stack += [(part, whole and isinstance(node, Label)) for part in reversed(children(node))]
    return list(dict.fromkeys(notes))  # one of each, in order


# Words of a comment that look like roll instructions, and what to write for them.
_INSTRUCTIONS = {"drop": "dl1 (drop the lowest) or dh1", "keep": "kh1 (keep the highest) or kl1", "reroll": "r1 (reroll 1s) or ro1 (once)",
                 "explode": "! (explode on the highest face)", "advantage": "adv", "best": "kh1", "worst": "kl1"}
_ALIASES = {"drops": "drop", "dropping": "drop", "keeps": "keep", "keeping": "keep", "rerolls": "reroll", "rerolling": "reroll",
            "explodes": "explode", "exploding": "explode", "lowest": "drop", "highest": "keep", "twice": "advantage"}


def _comment_notes(node: Label) -> list[str]:
    """A comment or label that reads like an instruction (`4d6 drop lowest`): it is only text."""
    words = [w.strip(".,;:!?()").lower() for w in node.text.split()]
    if words and words[0] in ADVANTAGE:
        mark = f"2d20k{ADVANTAGE[words[0]]}1"
        if any(isinstance(d, Dice) and d.text == mark for d in _dice_in(node.node)):
            kept = "higher" if ADVANTAGE[words[0]] == "h" else "lower"
            return [f"read as: '{words[0]}' rolls the first d20 twice and keeps the {kept} ({mark}), as Avrae's {words[0]}"]
        return [f"read as: '{words[0]}' needs a single d20 to roll twice (1d20+5 {words[0]}); here it is only a comment"]
    for word in words:
        key = _ALIASES.get(word, word)
        if key in _INSTRUCTIONS:
            if key == "drop" and "highest" in words:
                hint = "dh1 (drop the highest)"
            elif key == "keep" and "lowest" in words:
                hint = "kl1 (keep the lowest)"
            elif key == "drop" and "lowest" in words or key == "keep" and "highest" in words:
                hint = "dl1 (drop the lowest)" if key == "drop" else "kh1 (keep the highest)"
            else:
                hint = _INSTRUCTIONS[key]
            return [f"read as: '{node.text}' is a comment: words change nothing in the roll. Write {hint} right after "
                    "the dice (4d6dl1, 2d20kh1)"]
    return []


def _dice_in(node: Node) -> list[Node]:
    out, stack = [], [node]
    while stack:
        n = stack.pop()
        out.append(n)
        stack += list(children(n))
    return out


def _faces(dice: Dice) -> list[int]:
    clamp = dice.clamp
    return sorted({clamped(f, clamp) for f in dice.faces})


def _cmp_words(cmp: Cmp) -> str:
    return f"{_SYMBOL[cmp.op]}{cmp.value}"


def _die(dice: Dice) -> str:
    return f"d{dice.label_sides}"


def _dice_notes(dice: Dice, whole: bool) -> list[str]:
    notes: list[str] = []
    if dice.late:
        notes.append(f"read as: '{dice.late}' is applied before the keep/drop here, whatever the order written; Avrae "
                     f"applies its operators in the order written (after the keep/drop there). Write it before the "
                     f"keep/drop to read the same everywhere")
    faces = _faces(dice)
    name, plain = _die(dice), f"{dice.count}{_die(dice)}"
    succ = dice.success
    if succ is not None and dice.count:
        matching = [f for f in faces if succ.test(f)]
        written = f"{plain}{succ.text() if succ.op != '=' else '=' + str(succ.value)}"
        spaced = f"{plain} {'==' if succ.op == '=' else succ.op} {succ.value}"
        if not matching:
            notes.append(f"read as: count the dice showing {_cmp_words(succ)}: no {name} face does, so always 0. "
                         f"To compare the total, put spaces around: {spaced}")
        elif len(matching) == len(faces) and dice.failure is None:
            notes.append(f"read as: count the dice showing {_cmp_words(succ)}: every {name} face does, so always "
                         f"{dice.count}. To compare the total, put spaces around: {spaced}")
        elif dice.count > 1:
            notes.append(f"read as: count the dice showing {_cmp_words(succ)} → 0–{dice.count}. "
                         f"To compare the total, put spaces around: {spaced}")
        elif not whole:
            notes.append(f"read as: {written} is 1 when the {name} shows {_cmp_words(succ)}, else 0, inside the sum. "
                         f"To compare the whole total, put spaces around the comparison, as in 5 + 1d20 >= 15")
    ex = dice.explode
    if ex is not None:
        if "!=" in dice.text and ex.cmp.op == "=":
            notes.append(f"read as: {plain} exploding on {ex.cmp.value} ('!' then '=', as in 1d6!=6). "
                         f"To compare the total, put spaces around: {plain} != {ex.cmp.value}")
        if not any(ex.cmp.test(f) for f in faces):
            notes.append(f"read as: the explosion on {_cmp_words(ex.cmp)} never happens on a {name}, so this is a plain {plain}")
    for rr in dice.reroll.steps() if dice.reroll is not None else ():
        if not any(rr.test(f) for f in dice.faces):
            notes.append(f"read as: the reroll on {rr.words()} never happens on a {name}")
    if dice.clamp.low is not None and dice.clamp.low <= dice.faces[0]:
        notes.append(f"read as: 'mi{dice.clamp.low}' changes nothing: a {name} never shows less")
    if dice.clamp.high is not None and dice.clamp.high >= dice.faces[-1]:
        notes.append(f"read as: 'ma{dice.clamp.high}' changes nothing: a {name} never shows more")
    if dice.crit is not None and dice.count > 1 and succ is None:
        notes.append(f"read as: cs marks the dice that count as critical (Roll20, rpg-dice-roller); the total is their sum. "
                     f"To count successes, as Foundry's cs does, write {plain}{'>=' if dice.crit.op == '=' else ''}{dice.crit.text()}")
    for marker, what in ((dice.crit, "critical"), (dice.fumble, "a fumble")):
        if marker is None:
            continue
        hits = [f for f in dice.faces if marker.test(f)]
        if not hits:
            notes.append(f"read as: no {name} face counts as {what} ({_cmp_words(marker)})")
        elif marker.op in (">", "<"):
            span = f"{hits[0]}" if len(hits) == 1 else f"{hits[0]}–{hits[-1]}"
            closed = ">=" if marker.op == ">" else "<="
            notes.append(f"read as: {what} on {span} ({marker.op} is strictly {'more' if marker.op == '>' else 'less'} here; "
                         f"Roll20 reads it as 'or {'more' if marker.op == '>' else 'less'}': write c{'s' if what == 'critical' else 'f'}"
                         f"{closed}{marker.value} for that)")
    if not (ex is not None and ex.kind != "compound" and dice.set_ops):
        notes += _keep_notes(dice.set_ops, dice.count, "dice")
    return notes


def _keep_notes(ops: tuple[SetOp, ...], count: int, things: str) -> list[str]:
    notes: list[str] = []
    for op in ops:
        if op.how == "cmp":
            continue
        letters = op.text()
        if op.keep and op.n >= count:
            notes.append(f"read as: '{letters}' keeps all {count} {things}, so it changes nothing")
        elif not op.keep and op.n == 0:
            notes.append(f"read as: '{letters}' drops nothing")
        elif not op.keep and op.n >= count:
            notes.append(f"read as: '{letters}' drops all {count} {things}, so the total is always 0")
    return notes


def _constant_comparison(node: Compare, budget: Budget) -> list[str]:
    if budget.left <= 0:
        return []
    try:
        dist = distribution_ast(node, budget)
    except EngineError:
        budget.left = 0  # spent (or refused): the other comparisons are not checked
        return []
    if len(dist.pmf) == 1 and not dist.residual:
        value = next(iter(dist.pmf))
        return [f"read as: this comparison ({node.op}) is always {'true (1)' if value else 'false (0)'}"]
    return []
