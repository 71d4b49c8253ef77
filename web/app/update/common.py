"""What every part of `update` shares: acting on the fight, numbers as typed, notices, sheets."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from pyengine.dice import Rng
from pyengine.documents import Rolled
from pyengine.errors import EngineError
from pyengine.model import Action, Event
from pyengine.record import Record
from pyengine.tracker import Timeline, request
from web.app import ui as state
from web.app.effects import (
    AskToKeepStorage,
    CloseSheet,
    Effect,
    KeepAwake,
    Refuse,
    Render,
    RenderNotices,
    SaveFight,
    ShowSheet,
    Toast,
)
from web.app.messages import BackupKnown
from web.app.model import Model
from web.app.storage.records import CHARACTERS, MAX_ROLL_HISTORY, ROLLS, ROSTER, SAVED_ROLLS, TEMPLATES, Notice

Result = tuple[Model, tuple[Effect, ...]]

# Actions whose result is plain on screen (the order, the round, a new row): no toast for them.
QUIET_ACTIONS = frozenset({"next_turn", "previous_turn", "start_combat", "add_combatant", "set_option", "rename", "act_now"})
# What follows any change to the fight: store it, draw it, keep the screen awake, ask to keep storage.
FIGHT_CHANGED: tuple[Effect, ...] = (SaveFight(), Render(), KeepAwake(), AskToKeepStorage())
MAX_AMOUNT = 1_000_000


def commit(model: Model, timeline: Timeline, *more: Effect) -> Result:
    return replace(model, timeline=timeline), FIGHT_CHANGED + more


def commit_action(model: Model, action: Action) -> Result:
    """One action already resolved (a player's attack, rolled from its phone's dice), as one undoable
    step; a refusal changes nothing and is said."""
    try:
        timeline = model.timeline.do(action)
    except EngineError as error:
        return model, (Refuse(str(error)),)
    return commit(model, timeline, step_said(timeline))


def act(model: Model, kind: str, args: Record, rng: Rng, close_sheet: bool = False) -> Result:
    """Resolve and apply one request (its typed record: tracker.request); a refusal changes nothing
    and is said where the tap was. A change the screen does not show by itself is said in a toast, with Undo."""
    try:
        timeline = model.timeline.do(request(model.timeline.present, kind, args, rng))
    except EngineError as error:
        return model, (Refuse(str(error)),)
    if kind == "start_combat" and FIRST_RUN_HINT in model.notices:  # the hint about setting up a fight has done its work
        model = replace(model, notices=tuple(n for n in model.notices if n != FIRST_RUN_HINT))
        commit_more: tuple[Effect, ...] = (RenderNotices(),)
    else:
        commit_more = ()
    if kind == "end_combat" and model.backup_due and BACKUP_OFFER not in model.notices:  # (Safari clears a site after 7 days unvisited)
        model = replace(model, notices=noticed(model.notices, BACKUP_OFFER))
        commit_more += (RenderNotices(),)
    if kind not in QUIET_ACTIONS:
        said: tuple[Effect, ...] = (step_said(timeline),)
    else:  # the screen shows a turn by itself; what runs out at it (a condition) is said still
        ending = [e.text for e in timeline.logs[timeline.cursor - 1] if e.kind in SAID_AT_TURNS]
        said = (Toast("; ".join(ending), undo=True),) if ending else ()
    return commit(model, timeline, *said, *commit_more, *((CloseSheet(),) if close_sheet else ()))


SAID_AT_TURNS = frozenset({"condition_expired"})
BACKUP_DAYS = 7  # a backup is offered as a fight ends when none was made in this many days
BACKUP_OFFER = Notice("info", f"No backup in the last {BACKUP_DAYS} days: Export all saves every fight to a file, and Import "
                              "brings them all back (a browser may clear a site's data: Safari after 7 days without a visit).",
                      "export-all", "Export all", testid="backup-offer")


def backup_known(at: float | None, now: float) -> BackupKnown:
    """The last backup's time, and whether one is due: none, or none in BACKUP_DAYS (a clock moved
    back past it counts as none)."""
    return BackupKnown(at, at is None or not 0 <= now - at < BACKUP_DAYS * 86_400)
# The first visit's hint; it goes when the first fight starts (it is about setting one up).
FIRST_RUN_HINT = Notice("info", "Add combatants, then tap one to open its sheet (damage, conditions, attacks). "
                                "☰ at the top opens the menu: encounters, game systems, export and the rules.")


def step_words(timeline: Timeline) -> str:
    """The last done step of `timeline` in words: its first event, else its kind."""
    events = timeline.logs[timeline.cursor - 1] if timeline.cursor else ()
    if events:
        return events[0].text + (" …" if len(events) > 1 else "")
    action = timeline.last_action()
    return action.kind.replace("_", " ") if action is not None else "nothing"


# Events a toast always says, however many others the step had: the reminders a table must not miss.
REMINDERS = frozenset({"concentration", "death_save", "dying", "down", "dead"})


def step_said(timeline: Timeline) -> Toast:
    """What the last step did, in a toast with Undo: its first three events, and every reminder
    among the rest (a concentration save after a fireball on four goblins)."""
    events = timeline.logs[timeline.cursor - 1] if timeline.cursor else ()
    rolled = next((e.roll for e in events[:3] if e.kind in ("damage", "heal") and e.roll), None)  # dice typed as the amount
    grouped, rest = _grouped(timeline, events)
    if grouped:  # a step on several combatants (a batch): every target named, each line once
        lines = grouped + [e.text for e in rest[:2]] + [e.text for e in rest[2:] if e.kind in REMINDERS]
    else:
        lines = [e.text for e in events[:3]] + [e.text for e in events[3:] if e.kind in REMINDERS]
    return Toast((f"{rolled} → " if rolled else "") + ("; ".join(lines) or "Done."), undo=True)


GROUPED_KINDS = frozenset({"damage", "heal", "temp_hp", "condition", "condition_removed", "down", "dead"})


def _grouped(timeline: Timeline, events: Sequence[Event]) -> tuple[list[str], list[Event]]:
    """The events of one step that say the same of several combatants, as one line each ("Goblin 1,
    2, 3 and 4 took 14 damage"), and the other events; ([], events) when nothing repeats."""
    names = {c.id: c.name for c in timeline.present.combatants}
    said: dict[str, list[str]] = {}
    rest = []
    for e in events:
        name = names.get(e.who or "")
        if e.kind in GROUPED_KINDS and name and e.text.startswith(name + " "):
            said.setdefault(e.text[len(name):], []).append(name)
        else:
            rest.append(e)
    if not any(len(who) > 1 for who in said.values()):
        return [], list(events)
    return [f"{_named(who)}{_plural(what) if len(who) > 1 else what}" for what, who in said.items()], rest


def _plural(said: str) -> str:
    """" is down" said of several: " are down"."""
    for one, more in ((" is ", " are "), (" has ", " have "), (" was ", " were "), (" gains ", " gain "), (" loses ", " lose "),
                      (" dies", " die")):
        if said.startswith(one):
            return more + said[len(one):]
    return said


def _named(names: list[str]) -> str:
    """"Goblin 1, 2, 4 and Ogre": a group's numbered members after the first by their numbers."""
    parts, base = [], None
    for name in names:
        head, _, number = name.rpartition(" ")
        numbered = bool(head) and number.isdigit()
        parts.append(number if numbered and head == base else name)
        base = head if numbered else None
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


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


def with_roll(model: Model, entry: Rolled) -> Model:
    """The dice history with `entry` first, the newest MAX_ROLL_HISTORY kept."""
    return replace(model, rolls=((entry,) + model.rolls)[:MAX_ROLL_HISTORY])


FOCUSED = frozenset({"add", "edit", "init"})  # forms whose first field takes the focus when they open


def opened(model: Model, kind: str, ident: str | None = None) -> Result:
    """A sheet opened (drawn anew, its attack panel fresh)."""
    return replace(model, ui=state.sheet_opened(model.ui, kind=kind, ident=ident)), (ShowSheet(kind in FOCUSED),)




COLLECTION_OF = {ROLLS: "rolls", SAVED_ROLLS: "saved_rolls", CHARACTERS: "characters", ROSTER: "roster", TEMPLATES: "templates"}


def closed(model: Model) -> Result:
    """The sheet closed (nothing to do when none is open: the dialog's own close event after ours)."""
    if model.ui.sheet is None:
        return model, ()
    return replace(model, ui=state.sheet_closed(model.ui)), (CloseSheet(),)


def numbered_name(name: str, taken: set[str]) -> str:
    """`name`, or the first of "name 2", "name 3" ... not taken: another of the same foe."""
    if name not in taken:
        return name
    n = 2
    while f"{name} {n}" in taken:
        n += 1
    return f"{name} {n}"
