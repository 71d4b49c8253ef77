"""The tracker's actions on turn tools (pyengine/tools.py): give and take away a tool, use it, roll
a spent ability's recharge, apply regeneration or ongoing damage, set its state by hand.

Like every action, each is resolved (the only place that rolls: the recharge's d6, the dice of an
amount) and then applied purely, so a saved fight replays exactly and Undo takes any of them back.
Hit points change through `damage.py` only: ongoing damage is damage like any other (temporary HP,
"down", a concentration reminder, a failed death save), regeneration is healing.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from .core_args import NewTool, Recharged, ToolActed, ToolSet, ToolTarget, ToolUsed, read_args
from .damage import harm, mend
from .dice import Rng, roll
from .errors import EngineError, RuleError
from .model import LIMITS, Combatant, Encounter, Outcome, TurnTool
from .rules import ActionRule, system_of, typed_rule
from .tools import MAX_TOOLS, TIMED, describe, pause_words, recharge_words, tools_joining
from .turns import active_unit, unit_name

__all__ = ["TOOL_ACTIONS"]


def _tool(enc: Encounter, cid: str, tid: str, *kinds: str) -> tuple[Combatant, TurnTool]:
    c = enc.get(cid)
    t = c.tool(tid)
    if kinds and t.kind not in kinds:
        raise RuleError(f"{c.name}'s {t.name} does not do that.")
    return c, t


def _changed(enc: Encounter, c: Combatant, t: TurnTool) -> Encounter:
    return enc.with_combatant(c.with_tool(t))


def _add(enc: Encounter, a: NewTool) -> Outcome:
    """A tool for the combatant, or for every member of its group (each with a state of its own)."""
    c = enc.get(a.id)
    system = system_of(enc)
    kind = a.tool.get("kind")
    if kind not in system.turn_tools:
        raise RuleError(f"{system.label} has no such turn tool." if system.turn_tools else f"{system.label}'s rules have no turn tools.")
    members = [x for x in enc.combatants if x.id == c.id or (a.group and c.group is not None and x.group == c.group)]
    if any(len(x.tools) >= MAX_TOOLS for x in members):
        raise RuleError(f"A combatant keeps at most {MAX_TOOLS} turn tools.")
    seq = enc.seq
    for member in members:
        given, seq = tools_joining([a.tool], system.turn_tools, seq)
        enc = enc.with_combatant(replace(member, tools=member.tools + given))
    return replace(enc, seq=seq), (enc.event("tool", f"{unit_name(members)}: {describe(given[0])}", who=c.id),)


def _remove(enc: Encounter, a: ToolTarget) -> Outcome:
    c, t = _tool(enc, a.id, a.tool)
    updated = replace(c, tools=tuple(x for x in c.tools if x.id != t.id))
    return enc.with_combatant(updated), (enc.event("tool", f"{t.name} removed from {c.name}", who=c.id),)


def _use(enc: Encounter, a: ToolUsed) -> Outcome:
    """An ability used (spent until it recharges), legendary actions spent (never on its own turn:
    they come at the end of another creature's turn, SRD), a daily use."""
    c, t = _tool(enc, a.id, a.tool, "recharge", "legendary", "uses")
    if t.kind == "recharge":
        if not t.left:
            raise RuleError(f"{t.name} is spent: roll its recharge ({recharge_words(t.low)}) first.")
        # Spent on its own turn: its d6 is rolled at the start of its next turn (SRD), not now.
        spent = replace(t, left=0, done=a.waits if a.waits is not None else t.done)
        return _changed(enc, c, spent), (enc.event("tool", f"{c.name} uses {t.name}: spent ({recharge_words(t.low)})", who=c.id),)
    named = next((x for x in t.actions if x[0] == a.action), None) if a.action and t.kind == "legendary" else None
    if a.action and t.kind == "legendary" and named is None:
        raise RuleError(f"{c.name} has no legendary action {a.action[:60]!r}.")
    count = (named[1] if named else a.count) if t.kind == "legendary" else 1
    if not 1 <= count <= t.most:
        raise RuleError(f"{c.name} has {t.most} {t.name.lower()} a round.")
    if count > t.left:
        raise RuleError(f"{c.name} has {t.left} of its {t.name.lower()} left." if t.kind == "legendary" else f"{t.name} has no uses left today.")
    if t.kind == "legendary" and enc.started and c.id in {x.id for x in active_unit(enc)}:
        raise RuleError(f"Legendary actions come at the end of another creature's turn, not {c.name}'s own.")
    left = t.left - count
    if t.kind == "legendary":
        what = f"{named[0]}: " if named else ""
        text = f"{c.name} uses {what}{count} legendary action{'s' * (count != 1)} ({left} of {t.most} left until its next turn)"
    else:
        text = f"{c.name} uses {t.name} ({left} of {t.most} left today)"
    return _changed(enc, c, replace(t, left=left)), (enc.event("tool", text, who=c.id),)


def _resolve_recharge(enc: Encounter, args: dict[str, Any], rng: Rng) -> dict[str, Any]:
    a = read_args(ToolTarget, args)
    _, t = _tool(enc, a.id, a.tool, "recharge")
    if t.left:
        raise RuleError(f"{t.name} is ready: there is nothing to recharge.")
    return {"id": a.id, "tool": a.tool, "face": rng.randint(1, 6)}


def _resolve_use(enc: Encounter, args: dict[str, Any], rng: Rng) -> dict[str, Any]:
    """A recharge spent on its own turn is not offered its d6 again this round (decided here and saved
    with the step, so that a fight saved before this rule replays as it was played)."""
    a = read_args(ToolUsed, args)
    c, t = _tool(enc, a.id, a.tool)
    own = t.kind == "recharge" and enc.started and c.id in {x.id for x in active_unit(enc)}
    return {**args, **({"waits": enc.round} if own else {})}


def _recharge(enc: Encounter, a: Recharged) -> Outcome:
    """SRD, Recharge X–Y: a d6 at the start of its turn; on X or more the ability is ready again."""
    c, t = _tool(enc, a.id, a.tool, "recharge")
    if not 1 <= a.face <= 6:
        raise RuleError("A recharge roll is one d6.")
    ready = a.face >= t.low
    said = "recharges" if ready else f"stays spent ({recharge_words(t.low)})"
    return (_changed(enc, c, replace(t, left=1 if ready else t.left)),
            (enc.event("tool", f"{c.name}'s {t.name} {said}", f"1d6 ({a.face}) = {a.face}", c.id),))


def _resolve_acts(enc: Encounter, args: dict[str, Any], rng: Rng) -> dict[str, Any]:
    """The hit points regeneration gives or ongoing damage deals: its number, or its dice rolled."""
    a = read_args(ToolTarget, args)
    c, t = _tool(enc, a.id, a.tool, *TIMED)
    if c.hp is None:
        raise RuleError(f"{c.name} has no hit points to track.")
    if t.amount.isdigit():
        return {"id": a.id, "tool": a.tool, "amount": min(int(t.amount), LIMITS["hp"])}
    try:
        rolled = roll(t.amount, rng)
    except EngineError as error:
        raise RuleError(f"{t.name}: {error}") from None
    return {"id": a.id, "tool": a.tool, "amount": max(0, min(rolled.total, LIMITS["hp"])), "roll": rolled.text}


def _acts(enc: Encounter, a: ToolActed) -> Outcome:
    """Regeneration heals, ongoing damage hurts (through damage.py, so every reminder follows), and
    the tool is marked as done this round."""
    c, t = _tool(enc, a.id, a.tool, *TIMED)
    if c.hp is None:
        raise RuleError(f"{c.name} has no hit points to track.")
    if not 0 <= a.amount <= LIMITS["hp"]:
        raise RuleError("A turn tool's amount is out of range.")
    enc = _changed(enc, c, replace(t, done=enc.round))
    c = enc.get(c.id)
    if t.kind == "regeneration":
        enc, gained, more = mend(enc, c, a.amount)
        return enc, (enc.event("heal", f"{c.name} regains {gained} HP ({t.name})", a.roll, c.id), *more)
    enc, hurt, more = harm(enc, c, a.amount)
    note = f"; {hurt.note}" if hurt.absorbed else ""
    return enc, (enc.event("damage", f"{c.name} took {a.amount} damage ({t.name}{note})", a.roll, c.id), *more)


def _set(enc: Encounter, a: ToolSet) -> Outcome:
    """A tool's state by hand: uses back after a rest, an ability ready, legendary actions counted
    again; regeneration paused at its next turn (it took acid or fire) or working again."""
    c, t = _tool(enc, a.id, a.tool)
    if a.paused is not None:
        if t.kind != "regeneration":
            raise RuleError("Only regeneration stops for a turn.")
        said = (f"{c.name}'s {t.name} is off at its next turn ({pause_words(t)})" if a.paused
                else f"{c.name}'s {t.name} works again")
        return _changed(enc, c, replace(t, paused=a.paused)), (enc.event("tool", said, who=c.id),)
    if a.left is None or t.kind in TIMED:
        raise RuleError(f"{t.name} has no count to set.")
    if not 0 <= a.left <= t.most:
        raise RuleError(f"{t.name} holds 0 to {t.most}.")
    if t.kind == "recharge":
        said = f"{c.name}'s {t.name} is {'ready' if a.left else 'spent'}"
    else:
        said = f"{c.name}'s {t.name}: {a.left} of {t.most} left"
    return _changed(enc, c, replace(t, left=a.left)), (enc.event("tool", said, who=c.id),)


TOOL_ACTIONS: dict[str, ActionRule] = {
    "add_tool": typed_rule(NewTool, _add),
    "remove_tool": typed_rule(ToolTarget, _remove),
    "use_tool": typed_rule(ToolUsed, _use, _resolve_use),
    "recharge_tool": typed_rule(Recharged, _recharge, _resolve_recharge, ToolTarget),
    "tool_acts": typed_rule(ToolActed, _acts, _resolve_acts, ToolTarget),
    "set_tool": typed_rule(ToolSet, _set),
}
