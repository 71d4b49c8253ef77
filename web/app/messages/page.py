"""The page's own messages: the fight, the roller, the sheets, the encounters, what comes from another
tab or a link, My characters (read by web/app/update's fight, roller, encounters and characters)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pyengine.dice import Rng
from pyengine.record import Record, field

if TYPE_CHECKING:
    from pyengine.documents import Listed

__all__ = [
    "Act", "NextTurnTapped", "StartTapped", "InitiativeEntered", "UndoTapped", "RedoTapped", "HitPointsTyped",
    "BatchApplied", "QuickAdded", "AttackApplied", "SelectingToggled", "SelectionToggled", "SectionPicked",
    "ToolKindPicked", "ToolAdded", "CombatantRemembered", "SavedRollDeleted", "SavedRollRestored", "CharacterDeleted",
    "CharacterRestored", "CombatantAdded", "RollTyped", "SavedRollTapped", "RollSaved", "QuickDieTapped", "DiceTyped",
    "AttackRolled", "CharacterSaved", "ShareOffered", "ShareOpened", "EncounterCreated", "EncounterCopied",
    "EncounterDeleted", "EncounterRestored", "HistoryCleared", "NoticeDismissed", "SheetOpened", "SheetClosed", "EarlyViewLeft",
    "AttackLastTapped", "TargetPicked", "AttackConfigured", "ThemeToggled", "Exported", "ShareLinkAsked", "LinkCopied",
    "ReloadTapped", "EncounterPicked", "HistoryTrimmed", "FileImported", "FightChangedElsewhere", "StoredElsewhere", "JournalRefused",
    "JournalAnswered", "VisibilityChanged", "LogToggled", "AddressChanged", "FileRead", "PageDrawn", "PageReady", "FirstTime", "CollectionChanged",
    "CollectionStored", "FightShown", "Noticed", "StorageAsked", "JournalFailed", "StorageKept", "BackupKnown", "ViewOpened",
    "CharacterOpened", "CharacterOffered", "CharacterTaken", "AttackPicked", "AttackRemoved", "AttackOptionsSaved",
    "TargetDescribed", "SidePicked", "NameTyped", "OddsTargetTyped"
]


class Act(Record):
    """A request to the fight (any tracker or system action) made of its typed record (the core's in
    pyengine/core_args.py, a system's beside its rules), with what closes on success."""

    kind: str
    args: Record
    rng: Rng
    close_sheet: bool = False


class NextTurnTapped(Record):
    """Next turn (or Start fight). `now`: monotonic seconds, for the double-tap guard; `start_args`:
    the system's start options as chosen on screen."""

    now: float
    rng: Rng
    start_args: dict[str, Any] = field(default_factory=dict)


class StartTapped(Record):
    """Start fight (the button under the list): never a Next turn, whatever the screen showed."""

    rng: Rng
    start_args: dict[str, Any] = field(default_factory=dict)


class InitiativeEntered(Record):
    """The initiative step: the numbers the players called out, by combatant id."""

    typed: dict[str, int]
    rng: Rng
    start_args: dict[str, Any] = field(default_factory=dict)


class UndoTapped(Record):
    from_toast: bool = False


class RedoTapped(Record):
    from_toast: bool = False


class HitPointsTyped(Record):
    """Damage, Heal or Temporary HP on a combatant's sheet, with the amount as typed."""

    kind: str  # "damage", "heal" or "temp_hp"
    ident: str
    amount: str
    rng: Rng


class BatchApplied(Record):
    """One amount (half for those who saved) or one condition, for every selected combatant."""

    kind: str  # "damage", "heal", "temp_hp" or "add_condition"
    rng: Rng
    amount: str = ""
    halves: tuple[str, ...] = ()
    condition: str = ""


class QuickAdded(Record):
    """A party member from the roster, or an opponent from the templates, into the fight."""

    roster: bool
    entry: dict[str, Any]
    rng: Rng


class AttackApplied(Record):
    """Apply on an attack panel: the rolled attack waiting there becomes one undoable step."""


class SelectingToggled(Record):
    pass


class SelectionToggled(Record):
    ident: str


class SectionPicked(Record):
    key: str


class ToolKindPicked(Record):
    """The kind of turn tool the sheet's add form is for (its fields follow it)."""

    kind: str


class ToolAdded(Record):
    """A turn tool as typed on a combatant's sheet (the engine checks its fields); `group`: for every
    member of its group."""

    ident: str
    fields: dict[str, Any]
    rng: Rng
    group: bool = False


class CombatantRemembered(Record):
    """A combatant kept in the party roster or the saved opponents as it is now, turn tools included."""

    ident: str


class SavedRollDeleted(Record):
    index: int


class SavedRollRestored(Record):
    pass


class CharacterDeleted(Record):
    ident: str


class CharacterRestored(Record):
    pass


class CombatantAdded(Record):
    """The add form: a combatant (or a group of `count`), remembered in the party or the saved
    opponents when asked."""

    fields: dict[str, Any]
    count: int
    remember: bool
    rng: Rng


class RollTyped(Record):
    """Roll in the dice roller; `at_ms`: the time, for the history."""

    expr: str
    rng: Rng
    at_ms: int


class SavedRollTapped(Record):
    index: int
    rng: Rng
    at_ms: int


class RollSaved(Record):
    """Save roll: the expression in the box under a name (the expression itself without one)."""

    expr: str
    name: str


class QuickDieTapped(Record):
    """A quick die (adds to the expression being built) or Adv / Dis (rewrites its d20); `box`: the
    dice box's text."""

    what: str
    box: str


class DiceTyped(Record):
    """The dice box was typed in by hand: the quick dice add to it from now on."""


class AttackRolled(Record):
    """Roll on an attack panel: against `target` in the fight (with the attacker the panel shows),
    or, on a character's screen, the character's practice attack (kept in the dice history)."""

    target: str
    shown_attacker: str | None
    rng: Rng
    at_ms: int


class CharacterSaved(Record):
    """The character form as typed: the system, the character edited (None: a new one, stored
    under `new_id`), its fields and own stats, and with `attack` (name, weapon stats) Save attack."""

    system: str
    edited: str | None
    new_id: str
    name: str
    max_hp: str
    init_mod: str
    stats: dict[str, Any]
    attack: tuple[str, dict[str, Any]] | None = None


class ShareOffered(Record):
    """A #fight= link: its payload, and the list of encounters (to tell a fight opened before)."""

    payload: str
    encounters: tuple[Listed, ...]
    locked: frozenset[str] = frozenset()


class ShareOpened(Record):
    """The user's answer to a shared fight: open it under `new_id`, or replace the copy opened before."""

    replace_earlier: bool
    new_id: str
    encounters: tuple[Listed, ...]
    locked: frozenset[str] = frozenset()


class EncounterCreated(Record):
    """New encounter, of the system chosen in the menu (None: the open fight's), under `new_id`;
    `listed`: how many encounters the list holds."""

    system: str | None
    new_id: str
    listed: int


class EncounterCopied(Record):
    """Copy the open fight, history included, under `new_id`."""

    new_id: str


class EncounterDeleted(Record):
    """Delete the open encounter (it goes to the trash); `new_id` and `left` (how many other
    encounters are listed): for the fresh one shown when no other can be."""

    new_id: str
    left: int


class EncounterRestored(Record):
    """An encounter back from the trash (-1: the last deleted), opened."""

    index: int


class HistoryCleared(Record):
    pass


class NoticeDismissed(Record):
    index: int




# -- sheets ---------------------------------------------------------------------------------------

class SheetOpened(Record):
    """A sheet over the turn order: a combatant's, the add form, the menu, My characters ..."""

    kind: str
    ident: str | None = None


class SheetClosed(Record):
    """The sheet was closed (its ✕, the backdrop, a swipe down, Escape)."""


class EarlyViewLeft(Record):
    """The players' view drawn before the engine (static/early.mjs) is this page's no more (the join
    taken over, or the display's wait over): the open sheet is drawn as the model has it."""


class AttackLastTapped(Record):
    """Attack…: the panel on the last target still standing, else the first foe of whoever's turn it is."""


class TargetPicked(Record):
    """The attack panel moves to another target."""

    ident: str


class AttackConfigured(Record):
    """The attack panel's inputs, read whole; `typing`: from a text field (redrawn a moment later)."""

    config: dict[str, Any]
    typing: bool = False


class ThemeToggled(Record):
    """The theme picked in the menu: "system" (as the phone is set), "light" or "dark"."""

    theme: str


class Exported(Record):
    """Export the open fight ("current") or everything ("all") to a file."""

    what: str


class ShareLinkAsked(Record):
    """The share screen's link (for the players' view or a co-GM's copy), as text and QR code."""

    kind: str


class LinkCopied(Record):
    """Copy a link field (`field`) and say how it went on `line`."""

    field: str
    line: str


class ReloadTapped(Record):
    """The page is reloaded (a newer version is in another tab)."""


# -- encounters -----------------------------------------------------------------------------------

class EncounterPicked(Record):
    """Another encounter of the list opened (the one on screen stays stored)."""

    ident: str


class HistoryTrimmed(Record):
    """Make room: every stored fight keeps its last `keep` undo steps, the roll history its last `keep` rolls."""

    keep: int = 20


class FileImported(Record):
    """An export file, read: its encounters, party, opponents and characters join ours."""

    file: Any  # web.app.storage.records.Imported: its fights, party, opponents and characters, checked
    new_id: str
    listed: int       # encounters in the list now (the new ids are numbered on from it)
    character_ids: tuple[str, ...] = ()  # fresh ids for characters whose id is taken here


# -- what comes from elsewhere: another tab, a link ------------------------------------------------

class FightChangedElsewhere(Record):
    """Another tab stored the fight on screen: its version is shown; `conflict`: ours was not saved;
    `said`: what to say instead (a merge of the two, web/app/storage/records.rebase_changes)."""

    timeline: Any
    conflict: bool = False
    said: str = ""
    made_from: str | None = None  # a merge of ours on theirs: saved, made from their version's vid (web/app/storage/keeper)


class StoredElsewhere(Record):
    """Another tab stored one of this site's keys (the browser's storage event): `name`, the key
    without the site's prefix. The fight on screen, a collection or the list of encounters is read again."""

    name: str


class JournalRefused(Record):
    """The journal (static/journal.js) refused this tab's version `vid` of `name` (a key without the
    site's prefix): another tab stored its own first; `raw`, the version the journal holds (None: none)."""

    name: str
    vid: str
    raw: str | None = None


class JournalAnswered(Record):
    """The journal answered every write of `name` (a key without the site's prefix) this tab made."""

    name: str


class VisibilityChanged(Record):
    """The page was shown or hidden (the browser's visibilitychange): the screen's wake lock, which the
    browser drops with a hidden page, is asked for again as the model wants it."""


class LogToggled(Record):
    """The fight's log was opened or closed (its <details>): the turn order is drawn again."""


class AddressChanged(Record):
    """The part of the address after # changed (a link opened on a page already running): what it
    offers was taken in (its own messages); the notices are drawn again."""


class FileRead(Record):
    """An export file being read, an encounter a task: `read` of them so far."""

    read: int


class PageDrawn(Record):
    """The engine started: the page is drawn from the model for the first time (the table display:
    its one screen; every other page, the roller too)."""

    display: bool = False


class PageReady(Record):
    """The page listens, the link it was opened with and a table kept live were taken up: the wake
    lock as the model wants it, the one-time hints (`safari_tab`: Safari on an iPhone or iPad, not
    from the Home Screen, which clears a site's data after 7 days without a visit), the notices, and
    the browser asked to keep our storage if a fight is under way."""

    safari_tab: bool = False


class FirstTime(Record):
    """This device meets `key` (a one-time hint's mark) for the first time (AskFirstTime)."""

    key: str


class CollectionChanged(Record):
    """Another tab stored a collection (persist key; the list of encounters: no items): its items as stored now."""

    key: str
    items: tuple[dict[str, Any], ...]


class CollectionStored(Record):
    """A collection of ours was stored: as stored (merged with another tab's entries) it is the model's."""

    key: str
    items: tuple[dict[str, Any], ...]


class FightShown(Record):
    """Another fight is on screen (picked, loaded, imported, or the one left after a delete): it is
    already listed (web/app/storage/keeper); shown, stored, the screen kept awake while it runs."""

    timeline: Any


class Noticed(Record):
    """What the browser's side has to say (storage refused, another tab's damaged copy, a hint):
    web.app.storage.records.Notice values, said in order."""

    notices: tuple[Any, ...]


class StorageAsked(Record):
    """The browser is being asked to keep our storage (asked once a page)."""


class JournalFailed(Record):
    """The durable copy (static/journal.js) was refused: the error's name (said once a page)."""

    name: str


class BackupKnown(Record):
    """When this device last made a backup (Export all: wall-clock seconds; None: never), and whether
    one is due (none in BACKUP_DAYS): Safari clears a site's data after 7 days without a visit."""

    at: float | None = None
    due: bool = False


class StorageKept(Record):
    """What the browser answered when asked whether it keeps our storage."""

    kept: bool


class ViewOpened(Record):
    """A #view= link: the players' read-only view of a fight, shown at once, nothing saved."""

    payload: str


# -- My characters --------------------------------------------------------------------------------

class CharacterOpened(Record):
    """A character's card; `practice`: with its practice attack open (the chosen named attack, else
    its first, in the panel), as tapping an attack or "Practice an attack" asks (issue 50, item 2)."""

    ident: str
    index: int | None = None
    practice: bool = False


class CharacterOffered(Record):
    """A character from a #character= link, or a pasted code (`from_link` False)."""

    payload: str
    from_link: bool = True


class CharacterTaken(Record):
    """The offered character joins the open fight, or goes into My characters (under `new_id` if its
    id is taken); `update`: it replaces the fighter of its name already in the fight (its HP kept)."""

    into_fight: bool
    new_id: str
    rng: Rng
    update: bool = False


class AttackPicked(Record):
    """A saved attack of the character being edited, into the attack form to be changed."""

    index: int


class AttackRemoved(Record):
    """A saved attack of the character being edited, removed."""

    index: int


class AttackOptionsSaved(Record):
    """The attack panel's options as they are now, kept in the chosen named attack."""


class TargetDescribed(Record):
    """What the game master says about a character's practice target (stats as typed, by key)."""

    stats: dict[str, Any]
    hp: str
    at_least: str
    name: str
    typing: bool = False


class SidePicked(Record):
    """The add form's side: Party makes the new combatant a player character (it can be changed after)."""

    side: str


class NameTyped(Record):
    """The add form's name as typed: a saved opponent's name, or another copy of an opponent in the
    fight, puts the form on the opponents' side (a saved party member's, on the party's)."""

    name: str


class OddsTargetTyped(Record):
    """The roller's "chance of at least" was typed: the odds a moment after typing stops."""
