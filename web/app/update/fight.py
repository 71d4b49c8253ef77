"""What happens to the fight and the screen over it: turns, undo, hit points, the batch, the add
form, attacks on a panel, sheets and their small choices."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, assert_never

from pyengine.characters import (
    ME_ID,
    TARGET_ID,
    Character,
    practice_encounter,
)
from pyengine.core_args import Batch, Flow, HitPoints, Join, NewTool, Temporary
from pyengine.damage_types import Portion, parts_to_args, split_typed
from pyengine.dice import Rng, roll
from pyengine.documents import Rolled
from pyengine.errors import EngineError
from pyengine.model import Encounter, validated_fields
from pyengine.rules import get_system, needs_initiative_entry, system_of
from pyengine.systems.srd import CREATURE_STATS
from pyengine.tools import tool_spec, waiting
from pyengine.tracker import resolve
from pyengine.turns import active_unit
from web.app import ui as state
from web.app.characters import open_character
from web.app.effects import (
    CloseSheet,
    Effect,
    HideToast,
    Refuse,
    Render,
    RenderNotices,
    RenderRolls,
    RenderSheet,
    StoreCollection,
    Toast,
)
from web.app.messages import (
    Act,
    AttackApplied,
    AttackRolled,
    BatchApplied,
    CombatantAdded,
    CombatantRemembered,
    HitPointsTyped,
    InitiativeEntered,
    NextTurnTapped,
    NoticeDismissed,
    QuickAdded,
    RedoTapped,
    SectionPicked,
    SelectingToggled,
    SelectionToggled,
    StartTapped,
    ToolAdded,
    ToolKindPicked,
    UndoTapped,
)
from web.app.model import Model
from web.app.storage.records import ROLLS, ROSTER, TEMPLATES
from web.app.update.common import (
    MAX_AMOUNT,
    Result,
    act,
    commit,
    commit_action,
    numbered_name,
    opened,
    step_words,
    whole_number,
    with_roll,
)

# -- the fight -------------------------------------------------------------------------------


def _act(model: Model, m: Act) -> Result:
    return act(model, m.kind, m.args, m.rng, m.close_sheet)


def _next_turn(model: Model, m: NextTurnTapped) -> Result:
    """Next turn, guarded against a double tap (it would skip a player's turn); before the fight,
    Start fight: first the initiative step where the players call out their numbers."""
    if m.now - model.ui.last_next_turn < model.next_turn_guard:
        return model, ()
    model = replace(model, ui=state.next_turn_tapped(model.ui, now=m.now))
    enc = model.timeline.present
    if not enc.started:
        return _start(model, StartTapped(m.rng, m.start_args))
    left = [f"{c.name}'s {t.name}" for c in active_unit(enc) for t in waiting(enc, c)]
    after, effects = act(model, "next_turn", Flow(), m.rng)
    if not left or after.timeline is model.timeline:
        return after, effects
    return after, said_too(effects, f"Not done on that turn: {', '.join(left)} (Undo goes back)")


def said_too(effects: tuple[Effect, ...], text: str) -> tuple[Effect, ...]:
    """`effects` with `text` said in their toast (after what it said), or in a toast of its own, with Undo."""
    toast = next((e for e in effects if isinstance(e, Toast)), None)
    if toast is None:
        return effects + (Toast(text, undo=True),)
    return tuple(Toast(f"{toast.text}; {text}", undo=True) if e is toast else e for e in effects)


def _start(model: Model, m: StartTapped) -> Result:
    """Where the players roll initiative, they call out their numbers first; the start rolls for
    whoever has none yet (the engine refuses a fight already started)."""
    if needs_initiative_entry(model.timeline.present):
        return opened(model, "init")
    return act(model, "start_combat", Flow(dict(m.start_args)), m.rng)


def _initiative_entered(model: Model, m: InitiativeEntered) -> Result:
    """The fight starts with the typed numbers; the others are rolled."""
    return act(model, "start_combat", Flow({"typed": dict(m.typed), **m.start_args}), m.rng, close_sheet=True)


def _undo(model: Model, m: UndoTapped) -> Result:
    """Undo the last step and say which (with Redo)."""
    if not model.timeline.can_undo:
        return model, ((HideToast(),) if m.from_toast else ())
    undone = step_words(model.timeline)
    return commit(model, model.timeline.undo(), Toast(f"Undone: {undone}", redo=True))


def _redo(model: Model, m: RedoTapped) -> Result:
    """Redo the step undone last and say which (with Undo)."""
    if not model.timeline.can_redo:
        return model, ((HideToast(),) if m.from_toast else ())
    timeline = model.timeline.redo()
    return commit(model, timeline, Toast(f"Redone: {step_words(timeline)}", undo=True))


def amount_or_roll(text: str, rng: Rng) -> tuple[int, str | None]:
    """A typed amount: a whole number, or dice (`8d6`, `2d8+3`) rolled here with the engine: (the
    amount, the roll as shown, or None). EngineError, with a message fit for a person, otherwise."""
    text = " ".join(str(text or "").split())
    if not text or text.lstrip("-").isdigit():
        return whole_number(text), None
    try:
        rolled = roll(text, rng)
    except EngineError as error:
        raise EngineError(f"“{text[:20]}” is neither a number nor dice (such as 8d6): {error}") from None
    return max(0, min(rolled.total, MAX_AMOUNT)), rolled.text


def typed_damage(text: str, rng: Rng) -> tuple[int, str | None, list[tuple[Portion, int]]] | None:
    """Damage typed with its types (`12 fire`, `8d6 fire`, `2d6 slashing + 1d6 fire`): (the total,
    the rolls as shown, each typed part with its amount); None when no damage type is named (then
    it is a plain amount). EngineError with a message fit for a person otherwise."""
    portions = split_typed(text)
    if not any(p.kind for p in portions):
        return None
    parts, shown = [], []
    for p in portions:
        amount, rolled = amount_or_roll(p.dice, rng)
        parts.append((p, amount))
        shown.append((rolled or str(amount)) + p.suffix)
    rolls = " + ".join(shown) if any(not p.dice.isdigit() for p in portions) else None
    return min(sum(a for _, a in parts), MAX_AMOUNT), rolls, parts


def _hit_points(model: Model, m: HitPointsTyped) -> Result:
    """Damage, healing or temporary HP typed on a sheet, a number or dice (rolled, shown in the
    toast and the log, one undoable step): manual damage blames nobody. Damage may name its types
    (`8d6 fire`): the target's resistances, immunities and vulnerabilities then apply."""
    try:
        typed = typed_damage(m.amount, m.rng) if m.kind == "damage" else None
        amount, rolled = (typed[0], typed[1]) if typed else amount_or_roll(m.amount, m.rng)
    except EngineError as error:
        return model, (Refuse(str(error)),)
    if m.kind == "temp_hp":
        return act(model, m.kind, Temporary(m.ident, amount), m.rng)
    return act(model, m.kind, HitPoints(m.ident, amount, roll=rolled or None, parts=parts_to_args(typed[2]) if typed else None), m.rng)


def batch_actions(model: Model, m: BatchApplied) -> list[dict[str, Any]]:
    """The requests of one batch: the same amount for every selected combatant still in the fight,
    halved (rounded down) for those who saved against damage; or the same condition for all."""
    enc = model.timeline.present
    chosen = [i for i in (model.ui.selected or ()) if i in enc.names()]
    if m.kind == "add_condition":
        return [{"kind": m.kind, "args": {"id": cid, "name": m.condition, "until": "never", "source": enc.active_id}} for cid in chosen]
    typed = typed_damage(m.amount, m.rng) if m.kind == "damage" else None
    amount, rolled = (typed[0], typed[1]) if typed else amount_or_roll(m.amount, m.rng)  # one roll for all (a fireball)
    halves = set(m.halves) if m.kind == "damage" else set()  # halved (each typed part, down) for those who saved
    parts = typed[2] if typed else []
    halved = [(p, a // 2) for p, a in parts]
    half_amount = sum(a for _, a in halved) if typed else amount // 2
    return [{"kind": m.kind, "args": {"id": cid, "amount": half_amount if cid in halves else amount,
                                      **({"parts": parts_to_args(halved if cid in halves else parts)} if typed else {}),
                                      **({"half": True} if cid in halves else {}), **({"roll": rolled} if rolled else {})}}
            for cid in chosen]


def _batch(model: Model, m: BatchApplied) -> Result:
    """One step for every selected combatant (a fireball on four goblins); then the selection ends."""
    try:
        actions = batch_actions(model, m)
    except EngineError as error:
        return model, (Refuse(str(error)),)
    after, effects = act(model, "batch", Batch(actions), m.rng)
    if after.timeline is model.timeline:
        return after, effects
    return replace(after, ui=state.selection_done(after.ui)), effects + (CloseSheet(), Render())


def _quick_add(model: Model, m: QuickAdded) -> Result:
    """A saved party member joins once; a saved opponent joins again with a number."""
    fields = dict(m.entry)
    names = {c.name for c in model.timeline.present.combatants}
    if fields.get("name") in names:
        if m.roster:
            return model, (Refuse(f"{fields['name']} is already in this fight."),)
        fields["name"] = numbered_name(str(fields["name"]), names)
    return act(model, "add_combatant", Join(fields), m.rng, close_sheet=True)


def _attack_applied(model: Model, m: AttackApplied) -> Result:
    """The rolled attack waiting on the panel, as one undoable step (a character's practice attack
    changes no fight)."""
    pending = model.ui.attack.get("pending")
    if pending is None or model.ui.practising:
        return model, ()
    model = replace(model, ui=state.attack_applied(model.ui))
    return commit_action(model, pending["action"])  # what it did, and any reminder (concentration)


# -- the screen ------------------------------------------------------------------------------


def _selecting(model: Model, m: SelectingToggled) -> Result:
    return replace(model, ui=state.selecting_toggled(model.ui)), (Render(),)


def _selection(model: Model, m: SelectionToggled) -> Result:
    return replace(model, ui=state.selection_toggled(model.ui, ident=m.ident)), (Render(),)


def _section(model: Model, m: SectionPicked) -> Result:
    return replace(model, ui=state.section_picked(model.ui, key=m.key)), (RenderSheet(),)


def _tool_kind(model: Model, m: ToolKindPicked) -> Result:
    return replace(model, ui=state.tool_kind_picked(model.ui, kind=m.kind)), (RenderSheet(),)


def _tool_added(model: Model, m: ToolAdded) -> Result:
    """A turn tool given to a combatant, one undoable step; its form closes (the tool is in the list above it)."""
    after, effects = act(model, "add_tool", NewTool(m.ident, dict(m.fields), m.group), m.rng)
    if after.timeline is model.timeline:
        return after, effects
    return replace(after, ui=state.tool_kind_picked(after.ui, kind=None)), effects


def _dismiss(model: Model, m: NoticeDismissed) -> Result:
    if not 0 <= m.index < len(model.notices):
        return model, ()
    return replace(model, notices=model.notices[:m.index] + model.notices[m.index + 1:]), (RenderNotices(),)


# -- the add form -------------------------------------------------------------------------------


def _combatant_added(model: Model, m: CombatantAdded) -> Result:
    return joined(model, dict(m.fields), m.count, m.remember, m.rng)


def joined(model: Model, fields: dict[str, Any], count: int, remember: bool, rng: Rng, said: tuple[Effect, ...] = (),
           roll_hp: str | None = None) -> Result:
    """A combatant (or a group of `count`) from the add form or the creature library joins (`roll_hp`:
    each member's hit dice to roll); the next form starts on the same side; `said` follows a join;
    with `remember`, it is kept by name in the party (a party member) or the saved opponents."""
    after, effects = act(model, "add_combatant", Join(fields, count, roll_hp), rng)
    if after.timeline is model.timeline:
        return after, effects
    after = replace(after, ui=state.combatant_added(after.ui, side=fields.get("side", "opponents"), pc=bool(fields.get("pc"))))
    effects += said
    if remember:
        try:
            entry = validated_fields({k: v for k, v in fields.items() if k != "initiative" and v not in (None, "")})
        except EngineError as error:
            return after, effects + (Refuse(str(error)),)
        after, stored = kept_by_name(after, entry)
        effects += (stored,)
    return after, effects + (CloseSheet(),)


def kept_by_name(model: Model, entry: dict[str, Any]) -> tuple[Model, StoreCollection]:
    """`entry` (checked fields) kept in the party roster (a party member) or the saved opponents, in
    the place of any of its name; with the effect that stores that list."""
    party = entry.get("side") == "party"
    people = tuple(p for p in (model.roster if party else model.templates) if p.get("name") != entry["name"]) + (entry,)
    return (replace(model, roster=people) if party else replace(model, templates=people)), StoreCollection(ROSTER if party else TEMPLATES)


def _remembered(model: Model, m: CombatantRemembered) -> Result:
    """A combatant kept by name (a group member by its group's name) in the party roster or the saved
    opponents, as it is now: side, modifier, maximum HP, the system's own stats, notes, its named
    attacks and defenses, and its turn tools (without their state); Quick add brings it back with them."""
    enc = model.timeline.present
    if m.ident not in enc.names():
        return model, ()
    c = enc.get(m.ident)
    head, _, number = c.name.rpartition(" ")
    name = head if c.group is not None and head and number.isdigit() else c.name
    kept = {f.key for f in system_of(enc).stat_fields} | set(CREATURE_STATS)  # a library creature's CR, XP, hit dice too
    stats = {k: v for k, v in c.stats if k in kept and v is not None}
    fields: dict[str, Any] = {"name": name, "side": c.side, "pc": c.pc, "init_mod": c.init_mod, "max_hp": c.max_hp,
                              "notes": c.notes, "stats": stats, "tools": [tool_spec(t) for t in c.tools],
                              "attacks": [a.to_dict() for a in c.attacks], "defenses": c.defenses.to_dict()}
    try:
        entry = validated_fields({k: v for k, v in fields.items() if v not in (None, "", [], {})})
    except EngineError as error:
        return model, (Refuse(str(error)),)
    model, stored = kept_by_name(model, entry)
    tools = f", with its {len(c.tools)} turn tool{'s' * (len(c.tools) != 1)}" if c.tools else ""
    where = "the party roster" if c.side == "party" else "the saved opponents"
    return model, (stored, Toast(f"{name} is in {where}{tools}: Quick add brings it back"))


# -- attacks on a panel ------------------------------------------------------------------------------


def practice_of(model: Model) -> tuple[Character, Encounter]:
    """The open character and its practice encounter (the target the game master described);
    EngineError when it cannot be built (the character deleted in another tab, a stat out of bounds)."""
    c = open_character(model)
    if c is None:
        raise EngineError("That character is gone (deleted in another tab?).")
    p = model.ui.practice
    chosen = c.attack(p["attack"]) if isinstance(p.get("attack"), int) else None
    return c, practice_encounter(c, chosen, p.get("target", {}), p.get("hp"), p.get("name") or "Target")


def practice_entry(model: Model, c: Character, pending: dict[str, Any], at_ms: int) -> Rolled:
    """A character's attack as a line of the dice history: what, against what, and the damage."""
    p = model.ui.practice
    chosen = c.attack(p["attack"]) if isinstance(p.get("attack"), int) else None
    label = f"{c.name}: {chosen.name if chosen else 'attack'} vs {p.get('name') or 'Target'}"
    outcome = get_system(c.system).attack_outcome(pending)
    entry: Rolled = {"expr": label[:1000], "label": label[:200], "total": outcome.damage, "text": outcome.text[:50_000], "at": at_ms}
    if outcome.crit:
        entry["crits"] = 1
    return entry


def _attack_rolled(model: Model, m: AttackRolled) -> Result:
    """Roll the attack now; the result waits on the panel for Apply. On a character's screen it is
    rolled on the practice encounter, never the fight, and goes into the dice history."""
    config = {k: v for k, v in model.ui.attack.items() if k != "pending" and v is not None}
    practising = model.ui.practising
    try:
        if practising:
            c, enc = practice_of(model)
            kind = system_of(enc).attack_kind or ""
            action = resolve(enc, kind, {**config, "attacker": ME_ID, "target": TARGET_ID}, m.rng)
        else:
            enc = model.timeline.present
            kind = system_of(enc).attack_kind or ""
            if not kind:
                return model, ()
            attacker = next((a for a in (config.get("attacker"), m.shown_attacker) if a in enc.names()), None)
            fallback = (enc.active_id if enc.active_id not in (None, m.target)
                        else next((c.id for c in enc.combatants if c.id != m.target), None))
            action = resolve(enc, kind, {**config, "attacker": attacker or fallback, "target": m.target}, m.rng)
    except EngineError as error:
        return model, (Refuse(str(error)),)
    model = replace(model, ui=state.attack_rolled(model.ui, pending={**action.args, "action": action}))
    if not practising:
        return model, (RenderSheet(),)
    model = with_roll(model, practice_entry(model, c, action.args, m.at_ms))
    return model, (StoreCollection(ROLLS), RenderRolls(), RenderSheet())


# -- sheets ------------------------------------------------------------------------------------------
















Handled = Act | NextTurnTapped | StartTapped | InitiativeEntered | UndoTapped | RedoTapped | HitPointsTyped | BatchApplied | QuickAdded | AttackApplied | SelectingToggled | SelectionToggled | SectionPicked | ToolKindPicked | ToolAdded | CombatantRemembered | NoticeDismissed | CombatantAdded | AttackRolled


def handle(model: Model, message: Handled) -> Result:  # noqa: C901 - one case a message
    """The model after one of this module's messages, and its effects: a `match` that mypy checks
    is whole (`assert_never`): a message in `Handled` with no case is a type error."""
    match message:
        case Act():
            return _act(model, message)
        case NextTurnTapped():
            return _next_turn(model, message)
        case StartTapped():
            return _start(model, message)
        case InitiativeEntered():
            return _initiative_entered(model, message)
        case UndoTapped():
            return _undo(model, message)
        case RedoTapped():
            return _redo(model, message)
        case HitPointsTyped():
            return _hit_points(model, message)
        case BatchApplied():
            return _batch(model, message)
        case QuickAdded():
            return _quick_add(model, message)
        case AttackApplied():
            return _attack_applied(model, message)
        case SelectingToggled():
            return _selecting(model, message)
        case SelectionToggled():
            return _selection(model, message)
        case SectionPicked():
            return _section(model, message)
        case ToolKindPicked():
            return _tool_kind(model, message)
        case ToolAdded():
            return _tool_added(model, message)
        case CombatantRemembered():
            return _remembered(model, message)
        case NoticeDismissed():
            return _dismiss(model, message)
        case CombatantAdded():
            return _combatant_added(model, message)
        case AttackRolled():
            return _attack_rolled(model, message)
        case _:
            assert_never(message)
