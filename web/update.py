"""`update(model, message) -> (model, effects)`: what a message does to the page's state, and what
the runtime must then do (save, draw, say). Pure: no pyscript, no DOM, no clock (a time comes in
the message), no global random (a message that rolls carries its `rng`). Unit-tested in CPython.

>>> from pyengine.tracker import Timeline, new_encounter
>>> from web.messages import SelectingToggled
>>> model, effects = update(Model(Timeline.start(new_encounter("e1"))), SelectingToggled())
>>> model.ui.selected, effects
((), (Render(),))
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from pyengine.characters import (
    CHARACTER_VERSION,
    ME_ID,
    TARGET_ID,
    Character,
    character_from_dict,
    character_to_dict,
    practice_encounter,
)
from pyengine.dice import Rng, parse, roll, roll_ast
from pyengine.errors import EngineError
from pyengine.model import Encounter, validated_fields
from pyengine.rules import system_of
from pyengine.text import clean_text, quoted
from pyengine.tracker import Timeline, new_encounter, resolve

from . import state
from .effects import (
    AskToKeepStorage,
    ClearLink,
    CloseSheet,
    Effect,
    ForgetStored,
    HideToast,
    KeepAwake,
    OpenCharacter,
    OpenSheet,
    RefreshOdds,
    Refuse,
    Render,
    RenderNotices,
    RenderRolls,
    RenderSheet,
    SaveFight,
    SayOnLine,
    ScheduleOdds,
    SetField,
    ShowRoll,
    StoreCollection,
    SwitchTo,
    Toast,
)
from .messages import (
    Act,
    AttackApplied,
    AttackRolled,
    BatchApplied,
    CharacterDeleted,
    CharacterRestored,
    CharacterSaved,
    CombatantAdded,
    DiceTyped,
    EncounterCopied,
    EncounterCreated,
    EncounterDeleted,
    EncounterRestored,
    HistoryCleared,
    HitPointsTyped,
    InitiativeEntered,
    Message,
    NextTurnTapped,
    NoticeDismissed,
    QuickAdded,
    QuickDieTapped,
    RedoTapped,
    RollSaved,
    RollTyped,
    SavedRollDeleted,
    SavedRollRestored,
    SavedRollTapped,
    SectionPicked,
    SelectingToggled,
    SelectionToggled,
    ShareOffered,
    ShareOpened,
    StartTapped,
    UndoTapped,
)
from .model import Model
from .persist import CHARACTERS, MAX_ROLL_HISTORY, ROLLS, ROSTER, SAVED_ROLLS, TEMPLATES, Notice, read_share, rebase
from .quick import add_die, advantage
from .render import needs_initiative_entry
from .render import round_label as render_round
from .screens.characters import find as find_character
from .views import view_for

__all__ = ["update", "QUIET_ACTIONS", "FIGHT_CHANGED", "MAX_AMOUNT"]

Result = tuple[Model, tuple[Effect, ...]]

# Actions whose result is plain on screen (the order, the round, a new row): no toast for them.
QUIET_ACTIONS = frozenset({"next_turn", "previous_turn", "start_combat", "add_combatant", "set_option", "rename", "act_now"})
# What follows any change to the fight: store it, draw it, keep the screen awake, ask to keep storage.
FIGHT_CHANGED: tuple[Effect, ...] = (SaveFight(), Render(), KeepAwake(), AskToKeepStorage())
MAX_AMOUNT = 1_000_000


def update(model: Model, message: Message) -> Result:
    """The model after `message`, and the effects the runtime performs, in order."""
    return _UPDATES[type(message)](model, message)


# -- the fight -------------------------------------------------------------------------------

def _commit(model: Model, timeline: Timeline, *more: Effect) -> Result:
    return replace(model, timeline=timeline), FIGHT_CHANGED + more


def act(model: Model, kind: str, args: dict[str, Any], rng: Rng, close_sheet: bool = False) -> Result:
    """Resolve and apply one request; a refusal changes nothing and is said where the tap was.
    A change the screen does not show by itself is said in a toast, with Undo."""
    try:
        timeline = model.timeline.do(resolve(model.timeline.present, kind, args, rng))
    except EngineError as error:
        return model, (Refuse(str(error)),)
    said: tuple[Effect, ...] = ()
    if kind not in QUIET_ACTIONS:
        text = "; ".join(e.text for e in timeline.logs[timeline.cursor - 1][:3])
        said = (Toast(text or "Done.", undo=True),)
    return _commit(model, timeline, *said, *((CloseSheet(),) if close_sheet else ()))


def _act(model: Model, m: Act) -> Result:
    return act(model, m.kind, dict(m.args), m.rng, m.close_sheet)


def _next_turn(model: Model, m: NextTurnTapped) -> Result:
    """Next turn, guarded against a double tap (it would skip a player's turn); before the fight,
    Start fight: first the initiative step where the players call out their numbers."""
    if m.now - model.ui.last_next_turn < model.next_turn_guard:
        return model, ()
    model = replace(model, ui=state.update(model.ui, "next-turn-tapped", now=m.now))
    enc = model.timeline.present
    if enc.started:
        return act(model, "next_turn", {}, m.rng)
    return _start(model, StartTapped(m.rng, m.start_args))


def _start(model: Model, m: StartTapped) -> Result:
    """Where the players roll initiative, they call out their numbers first; the start rolls for
    whoever has none yet (the engine refuses a fight already started)."""
    if needs_initiative_entry(model.timeline.present):
        return model, (OpenSheet("init"),)
    return act(model, "start_combat", dict(m.start_args), m.rng)


def _initiative_entered(model: Model, m: InitiativeEntered) -> Result:
    """The fight starts with the typed numbers; the others are rolled."""
    return act(model, "start_combat", {"typed": dict(m.typed), **m.start_args}, m.rng, close_sheet=True)


def _undo(model: Model, m: UndoTapped) -> Result:
    hide: tuple[Effect, ...] = (HideToast(),) if m.from_toast else ()
    if not model.timeline.can_undo:
        return model, hide
    model, effects = _commit(model, model.timeline.undo())
    return model, hide + effects


def _redo(model: Model, m: RedoTapped) -> Result:
    return _commit(model, model.timeline.redo()) if model.timeline.can_redo else (model, ())


def typed_number(text: object, default: int | None = None) -> int | None:
    """A whole number as typed in a field; `default` when the field is empty (the engine checks its
    range); EngineError, with a message fit for a person, for anything else."""
    text = str(text or "").strip()
    if not text:
        return default
    try:
        return int(text)
    except ValueError:
        raise EngineError(f"“{text[:20]}” is not a whole number.") from None


def whole_number(text: str, what: str = "an amount") -> int:
    """A typed whole number from 0 to MAX_AMOUNT; EngineError with a message fit for a person."""
    value = typed_number(text)
    if value is None:
        raise EngineError(f"Type {what} first.")
    if not 0 <= value <= MAX_AMOUNT:
        raise EngineError(f"Enter a number from 0 to {MAX_AMOUNT:,}.")
    return value


def _hit_points(model: Model, m: HitPointsTyped) -> Result:
    """Damage, healing or temporary HP typed on a sheet: manual damage blames nobody."""
    try:
        amount = whole_number(m.amount)
    except EngineError as error:
        return model, (Refuse(str(error)),)
    return act(model, m.kind, {"id": m.ident, "amount": amount}, m.rng)


def batch_actions(model: Model, m: BatchApplied) -> list[dict[str, Any]]:
    """The requests of one batch: the same amount for every selected combatant still in the fight,
    halved (rounded down) for those who saved against damage; or the same condition for all."""
    enc = model.timeline.present
    chosen = [i for i in (model.ui.selected or ()) if i in enc.names()]
    if m.kind == "add_condition":
        return [{"kind": m.kind, "args": {"id": cid, "name": m.condition, "until": "never", "source": enc.active_id}} for cid in chosen]
    amount = whole_number(m.amount)
    halves = set(m.halves) if m.kind == "damage" else set()
    return [{"kind": m.kind, "args": {"id": cid, "amount": amount // 2 if cid in halves else amount,
                                      **({"half": True} if cid in halves else {})}} for cid in chosen]


def _batch(model: Model, m: BatchApplied) -> Result:
    """One step for every selected combatant (a fireball on four goblins); then the selection ends."""
    try:
        actions = batch_actions(model, m)
    except EngineError as error:
        return model, (Refuse(str(error)),)
    after, effects = act(model, "batch", {"actions": actions}, m.rng)
    if after.timeline is model.timeline:
        return after, effects
    return replace(after, ui=state.update(after.ui, "selection-done")), effects + (CloseSheet(), Render())


def numbered_name(name: str, taken: set[str]) -> str:
    """`name`, or the first of "name 2", "name 3" ... not taken: another of the same foe."""
    if name not in taken:
        return name
    n = 2
    while f"{name} {n}" in taken:
        n += 1
    return f"{name} {n}"


def _quick_add(model: Model, m: QuickAdded) -> Result:
    """A saved party member joins once; a saved opponent joins again with a number."""
    fields = dict(m.entry)
    names = {c.name for c in model.timeline.present.combatants}
    if fields.get("name") in names:
        if m.roster:
            return model, (Refuse(f"{fields['name']} is already in this fight."),)
        fields["name"] = numbered_name(str(fields["name"]), names)
    return act(model, "add_combatant", {"combatant": fields}, m.rng, close_sheet=True)


def _attack_applied(model: Model, m: AttackApplied) -> Result:
    """The rolled attack waiting on the panel, as one undoable step (a character's practice attack
    changes no fight)."""
    pending = model.ui.attack.get("pending")
    if pending is None or model.ui.practising:
        return model, ()
    model = replace(model, ui=state.update(model.ui, "attack-applied"))
    try:
        timeline = model.timeline.do(pending["action"])
    except EngineError as error:
        return model, (Refuse(str(error)),)
    return _commit(model, timeline)


# -- the screen ------------------------------------------------------------------------------

def _selecting(model: Model, m: SelectingToggled) -> Result:
    return replace(model, ui=state.update(model.ui, "selecting-toggled")), (Render(),)


def _selection(model: Model, m: SelectionToggled) -> Result:
    return replace(model, ui=state.update(model.ui, "selection-toggled", ident=m.ident)), (Render(),)


def _section(model: Model, m: SectionPicked) -> Result:
    return replace(model, ui=state.update(model.ui, "section-picked", key=m.key)), (RenderSheet(),)


def noticed(notices: Sequence[Notice], notice: Notice) -> tuple[Notice, ...]:
    """The notices with `notice` said once: the same text said again moves to the end."""
    return tuple(n for n in notices if n.text != notice.text) + (notice,)


def without(notices: Sequence[Notice], *actions: str) -> tuple[Notice, ...]:
    """The notices less those that offer one of `actions` (what they offered is done or gone)."""
    return tuple(n for n in notices if n.action not in actions)


def notify(model: Model, notice: Notice) -> Model:
    return replace(model, notices=noticed(model.notices, notice))


def in_place(items: tuple[dict[str, Any], ...], item: dict[str, Any]) -> tuple[dict[str, Any], ...]:
    """`items` with `item` in the place of the one with its id (else at the end)."""
    index = next((i for i, x in enumerate(items) if x.get("id") == item.get("id")), len(items))
    rest = tuple(x for x in items if x.get("id") != item.get("id"))
    return rest[:index] + (item,) + rest[index:]


def with_roll(model: Model, entry: dict[str, Any]) -> Model:
    """The dice history with `entry` first, the newest MAX_ROLL_HISTORY kept."""
    return replace(model, rolls=((entry,) + model.rolls)[:MAX_ROLL_HISTORY])


def _dismiss(model: Model, m: NoticeDismissed) -> Result:
    if not 0 <= m.index < len(model.notices):
        return model, ()
    return replace(model, notices=model.notices[:m.index] + model.notices[m.index + 1:]), (RenderNotices(),)


# -- the dice roller's collections ------------------------------------------------------------

def _roll_deleted(model: Model, m: SavedRollDeleted) -> Result:
    """A saved roll goes to the trash (with its place), and a notice offers Undo."""
    if not 0 <= m.index < len(model.saved_rolls):
        return model, ()
    gone = model.saved_rolls[m.index]
    model = replace(model, saved_rolls=model.saved_rolls[:m.index] + model.saved_rolls[m.index + 1:],
                    trash=replace(model.trash, rolls=model.trash.rolls + ((m.index, gone),)))
    model = notify(model, Notice("info", f"Deleted the saved roll {quoted(str(gone.get('name')))}.", "undelete-roll", "Undo"))
    return model, (StoreCollection(SAVED_ROLLS), RenderRolls(), RenderNotices())


def _roll_restored(model: Model, m: SavedRollRestored) -> Result:
    """The last deleted saved roll back where it stood (replacing one saved since under its name)."""
    notices = without(model.notices, "undelete-roll")
    if not model.trash.rolls:
        return replace(model, notices=notices), (RenderNotices(),)
    index, back = model.trash.rolls[-1]
    rest = tuple(s for s in model.saved_rolls if s.get("name") != back.get("name"))
    model = replace(model, saved_rolls=rest[:index] + (back,) + rest[index:], notices=notices,
                    trash=replace(model.trash, rolls=model.trash.rolls[:-1]))
    return model, (StoreCollection(SAVED_ROLLS), RenderRolls(), RenderNotices())


def _character_deleted(model: Model, m: CharacterDeleted) -> Result:
    """A character of My characters goes to the trash; a notice offers Undo."""
    gone = next((c for c in model.characters if c.get("id") == m.ident), None)
    if gone is None:
        return model, ()
    model = replace(model, characters=tuple(c for c in model.characters if c is not gone),
                    trash=replace(model.trash, characters=model.trash.characters + (gone,)))
    model = notify(model, Notice("info", f"Deleted {quoted(str(gone.get('name', '')))}.", "undelete-character", "Undo"))
    return model, (StoreCollection(CHARACTERS), OpenSheet("characters"), RenderNotices())


def _character_restored(model: Model, m: CharacterRestored) -> Result:
    notices = without(model.notices, "undelete-character")
    if not model.trash.characters:
        return replace(model, notices=notices), (RenderNotices(),)
    back = model.trash.characters[-1]
    model = replace(model, characters=tuple(c for c in model.characters if c.get("id") != back.get("id")) + (back,),
                    notices=notices, trash=replace(model.trash, characters=model.trash.characters[:-1]))
    return model, (StoreCollection(CHARACTERS), RenderNotices(), RenderSheet())


def _history_cleared(model: Model, m: HistoryCleared) -> Result:
    return replace(model, rolls=()), (StoreCollection(ROLLS), RenderRolls())


# -- the add form -------------------------------------------------------------------------------

def _combatant_added(model: Model, m: CombatantAdded) -> Result:
    """The add form's combatant (or group) joins; the next form starts on the same side; with
    "remember", it is kept by name in the party (a party member) or the saved opponents."""
    fields = dict(m.fields)
    after, effects = act(model, "add_combatant", {"combatant": fields, "count": m.count}, m.rng)
    if after.timeline is model.timeline:
        return after, effects
    after = replace(after, ui=state.update(after.ui, "combatant-added", side=fields.get("side", "opponents"), pc=bool(fields.get("pc"))))
    if m.remember:
        try:
            entry = validated_fields({k: v for k, v in fields.items() if k != "initiative" and v not in (None, "")})
        except EngineError as error:
            return after, effects + (Refuse(str(error)),)
        party = fields.get("side") == "party"
        kept = tuple(p for p in (after.roster if party else after.templates) if p.get("name") != entry["name"]) + (entry,)
        after = replace(after, roster=kept) if party else replace(after, templates=kept)
        effects += (StoreCollection(ROSTER if party else TEMPLATES),)
    return after, effects + (CloseSheet(),)


# -- the dice roller ------------------------------------------------------------------------------

def _rolled(model: Model, expr: str, rng: Rng, at_ms: int) -> Result:
    """Roll an expression: the result where the Roll button is, first in the history; a mistake is
    said on the roller's error line and nothing else changes."""
    expression = expr.strip()
    try:
        result = roll_ast(parse(expression), rng, expression)
    except EngineError as error:
        return model, (SayOnLine("dice-error", str(error)),)
    entry = {"expr": expression, "total": result.total, "text": result.text, "at": at_ms, "crits": result.crits, "fumbles": result.fumbles}
    model = with_roll(replace(model, ui=state.update(model.ui, "dice-rolled")), entry)  # the next quick die starts anew
    return model, (SayOnLine("dice-error", ""), ShowRoll(result), StoreCollection(ROLLS), RenderRolls())


def _roll_typed(model: Model, m: RollTyped) -> Result:
    return _rolled(model, m.expr, m.rng, m.at_ms)


def _saved_roll_tapped(model: Model, m: SavedRollTapped) -> Result:
    """A saved roll into the dice box, rolled, its odds shown."""
    if not 0 <= m.index < len(model.saved_rolls):
        return model, ()
    expr = str(model.saved_rolls[m.index].get("expr", ""))
    model, effects = _rolled(model, expr, m.rng, m.at_ms)
    return model, (SetField("dice-input", expr), *effects, RefreshOdds())


def _roll_saved(model: Model, m: RollSaved) -> Result:
    """Keep the expression under its name (the same name replaces the older one)."""
    expr = m.expr.strip()
    try:
        roll(expr, random.Random(0))  # only to check it rolls: a fixed generator, nothing is shown
    except EngineError as error:
        return model, (SayOnLine("dice-error", str(error)),)
    name = clean_text(m.name.strip() or expr)[:60] or expr[:60]
    saved = tuple(s for s in model.saved_rolls if s.get("name") != name) + ({"name": name, "expr": expr},)
    return replace(model, saved_rolls=saved), (StoreCollection(SAVED_ROLLS), RenderRolls(), SetField("save-name", ""))


def _quick_die(model: Model, m: QuickDieTapped) -> Result:
    """A die adds to the expression being built (else starts a new one); Adv / Dis rewrite its d20."""
    adv_or_dis = m.what in ("adv", "dis")
    text = advantage(m.box, m.what == "adv") if adv_or_dis else add_die(m.box if model.ui.building else "", m.what)
    return replace(model, ui=state.update(model.ui, "dice-typed")), (SetField("dice-input", text), RefreshOdds())


def _dice_typed(model: Model, m: DiceTyped) -> Result:
    return replace(model, ui=state.update(model.ui, "dice-typed")), (ScheduleOdds(),)


# -- attacks on a panel ------------------------------------------------------------------------------

def practice_of(model: Model) -> tuple[Character, Encounter]:
    """The open character and its practice encounter (the target the game master described);
    EngineError when it cannot be built (the character deleted in another tab, a stat out of bounds)."""
    c = find_character(model.characters, model.ui.sheet[1] if model.ui.sheet is not None else None)
    if c is None:
        raise EngineError("That character is gone (deleted in another tab?).")
    p = model.ui.practice
    chosen = c.attack(p["attack"]) if isinstance(p.get("attack"), int) else None
    return c, practice_encounter(c, chosen, p.get("target", {}), p.get("hp"), p.get("name") or "Target")


def practice_entry(model: Model, c: Character, pending: dict[str, Any], at_ms: int) -> dict[str, Any]:
    """A character's attack as a line of the dice history: what, against what, and the damage."""
    p = model.ui.practice
    chosen = c.attack(p["attack"]) if isinstance(p.get("attack"), int) else None
    label = f"{c.name}: {chosen.name if chosen else 'attack'} vs {p.get('name') or 'Target'}"
    entry: dict[str, Any] = {"expr": label[:1000], "label": label[:200], "total": view_for(c.system).pending_damage(pending),
                             "text": str(pending.get("text", ""))[:50_000], "at": at_ms}
    if pending.get("crit"):
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
            kind = view_for(enc.system).attack_kind or ""
            action = resolve(enc, kind, {**config, "attacker": ME_ID, "target": TARGET_ID}, m.rng)
        else:
            enc = model.timeline.present
            kind = view_for(enc.system).attack_kind or ""
            if not kind:
                return model, ()
            attacker = next((a for a in (config.get("attacker"), m.shown_attacker) if a in enc.names()), None)
            fallback = (enc.active_id if enc.active_id not in (None, m.target)
                        else next((c.id for c in enc.combatants if c.id != m.target), None))
            action = resolve(enc, kind, {**config, "attacker": attacker or fallback, "target": m.target}, m.rng)
    except EngineError as error:
        return model, (Refuse(str(error)),)
    model = replace(model, ui=state.update(model.ui, "attack-rolled", pending={**action.args, "action": action}))
    if not practising:
        return model, (RenderSheet(),)
    model = with_roll(model, practice_entry(model, c, action.args, m.at_ms))
    return model, (StoreCollection(ROLLS), RenderRolls(), RenderSheet())


# -- My characters: the form ---------------------------------------------------------------------------

def character_document(model: Model, m: CharacterSaved) -> tuple[Character, str]:
    """The form as a character (checked by the engine), and the name of the attack saved with it.
    The same attack name replaces that attack (its panel options kept)."""
    old = find_character(model.characters, m.edited) if m.edited is not None else None
    if m.edited is not None and old is None:
        raise EngineError("That character is gone (deleted in another tab?).")
    weapon_keys = view_for(m.system).weapon_fields
    attacks = [{"name": x.name, "stats": x.stats, "config": x.config} for x in (old.attacks if old else ())]
    name = ""
    if m.attack is not None:
        name = clean_text(m.attack[0])
        if not name:
            raise EngineError("Name the attack first (e.g. Longsword).")
        before = next((x for x in attacks if x["name"] == name), None)
        new = {"name": name, "stats": dict(m.attack[1]), "config": before["config"] if before else {}}
        attacks = [new if x is before else x for x in attacks] if before else [*attacks, new]
    doc = {"v": CHARACTER_VERSION, "id": old.id if old else m.new_id, "name": m.name, "system": m.system,
           "max_hp": typed_number(m.max_hp), "init_mod": typed_number(m.init_mod, 0),
           "stats": {**{k: v for k, v in (old.stats if old else {}).items() if k in weapon_keys}, **m.stats},
           "attacks": attacks}
    return character_from_dict(doc), name


def _character_saved(model: Model, m: CharacterSaved) -> Result:
    """Save: the character kept in its place in My characters, its attack screen opened. Save
    attack: the form stays open for the next attack."""
    try:
        c, attack = character_document(model, m)
    except EngineError as error:
        return model, (Refuse(str(error)),)
    model = replace(model, characters=in_place(model.characters, character_to_dict(c)))
    if m.attack is not None:
        return model, (StoreCollection(CHARACTERS), OpenSheet("character-edit", c.id), Toast(f"Saved the attack {quoted(attack)}."))
    return model, (StoreCollection(CHARACTERS), OpenCharacter(c.id))


# -- a fight shared by link ---------------------------------------------------------------------------

def shared_before(encounters: tuple[dict[str, Any], ...], locked: frozenset[str], source: str) -> dict[str, Any] | None:
    """The encounter opened before from the same shared fight (not one a newer version locked)."""
    return next((e for e in encounters if e.get("source") == source and e.get("id") not in locked), None)


def _share_offered(model: Model, m: ShareOffered) -> Result:
    """A shared fight is offered, never opened unasked: Open it, or (opened before) Replace it or
    Open a copy. A link that cannot be read is said, taken off the address bar, and nothing else changes."""
    try:
        timeline = read_share(m.payload)
    except EngineError as error:
        said = Notice("error", f"The shared link could not be opened: {error} It was removed from the address bar; "
                               "your own fights are untouched.")
        return notify(model, said), (ClearLink(), RenderNotices())
    model = replace(model, ui=state.update(model.ui, "share-offered", timeline=timeline))
    enc = timeline.present
    what = f"A shared fight {quoted(enc.name)} ({system_of(enc).label}, {render_round(enc).lower()}) is in this link."
    before = shared_before(m.encounters, m.locked, enc.id)
    if before is None:
        offer = Notice("info", what, "open-share", "Open it")
    else:
        offer = Notice("info", f"{what} You opened it before as {quoted(str(before.get('name', '')))}.", "replace-share", "Replace it",
                       (("open-share", "Open a copy"),))
    return notify(model, offer), (RenderNotices(),)


def _share_opened(model: Model, m: ShareOpened) -> Result:
    """The pending shared fight, under a fresh id; or, when the user chose so, over the copy opened
    from the same shared fight before."""
    timeline = model.ui.pending_share
    if timeline is None:
        return model, ()
    notices = without(model.notices, "open-share", "replace-share")
    model = replace(model, ui=state.update(model.ui, "share-taken"), notices=notices)
    source = timeline.present.id
    before = shared_before(m.encounters, m.locked, source) if m.replace_earlier else None
    if before is not None:
        switch = SwitchTo(rebase(timeline, str(before["id"])), replacing=str(before["id"]))
    else:
        switch = SwitchTo(rebase(timeline, m.new_id), (("from", "link"), ("source", source)))
    return model, (switch, ClearLink())


# -- encounters -------------------------------------------------------------------------------------

def _encounter_created(model: Model, m: EncounterCreated) -> Result:
    """A new, empty encounter ("Encounter 3"), of the chosen system or the open fight's; an
    unknown system is refused and nothing changes."""
    try:
        fresh = new_encounter(m.new_id, f"Encounter {m.listed + 1}", m.system or model.timeline.present.system)
    except EngineError as error:
        return model, (Refuse(str(error)),)
    return model, (SwitchTo(Timeline.start(fresh)), CloseSheet())


def _encounter_copied(model: Model, m: EncounterCopied) -> Result:
    """A copy of the open fight with its undo history ("Bridge (copy)"), opened."""
    copy = rebase(model.timeline, m.new_id, f"{model.timeline.present.name} (copy)")
    return model, (SwitchTo(copy), CloseSheet())


def _encounter_deleted(model: Model, m: EncounterDeleted) -> Result:
    """The open encounter goes to the trash with its whole history; the list moves on to the next
    one; a notice offers Undo."""
    enc = model.timeline.present
    fresh = new_encounter(m.new_id, f"Encounter {m.left + 1}", enc.system)  # shown if none of the others can be
    trash = replace(model.trash, encounters=(*model.trash.encounters, {"id": enc.id, "name": enc.name, "timeline": model.timeline}))
    model = notify(replace(model, trash=trash), Notice("info", f"Deleted {quoted(enc.name)}.", "undelete", "Undo"))
    return model, (ForgetStored(enc.id, Timeline.start(fresh)), RenderNotices(), CloseSheet())


def _encounter_restored(model: Model, m: EncounterRestored) -> Result:
    """An encounter back from the trash, stored again under its id and opened."""
    items = model.trash.encounters
    index = len(items) - 1 if m.index == -1 else m.index
    if not 0 <= index < len(items):
        return model, ()
    item = items[index]
    notices = without(model.notices, "undelete")
    model = replace(model, notices=notices, trash=replace(model.trash, encounters=items[:index] + items[index + 1:]))
    return model, (SwitchTo(item["timeline"], replacing=str(item["id"])), RenderNotices(), CloseSheet())


_UPDATES: dict[type, Callable[[Model, Any], Result]] = {
    Act: _act,
    NextTurnTapped: _next_turn,
    StartTapped: _start,
    InitiativeEntered: _initiative_entered,
    UndoTapped: _undo,
    RedoTapped: _redo,
    HitPointsTyped: _hit_points,
    BatchApplied: _batch,
    QuickAdded: _quick_add,
    AttackApplied: _attack_applied,
    SelectingToggled: _selecting,
    SelectionToggled: _selection,
    SectionPicked: _section,
    NoticeDismissed: _dismiss,
    SavedRollDeleted: _roll_deleted,
    SavedRollRestored: _roll_restored,
    HistoryCleared: _history_cleared,
    CharacterDeleted: _character_deleted,
    CharacterRestored: _character_restored,
    CombatantAdded: _combatant_added,
    RollTyped: _roll_typed,
    SavedRollTapped: _saved_roll_tapped,
    RollSaved: _roll_saved,
    QuickDieTapped: _quick_die,
    DiceTyped: _dice_typed,
    AttackRolled: _attack_rolled,
    CharacterSaved: _character_saved,
    ShareOffered: _share_offered,
    ShareOpened: _share_opened,
    EncounterCreated: _encounter_created,
    EncounterCopied: _encounter_copied,
    EncounterDeleted: _encounter_deleted,
    EncounterRestored: _encounter_restored,
}
