"""What can happen to the page, as small frozen values: a tap, a typed form, another tab. Each is
read by `update` (web/update); the runtime makes them from DOM events. A message that may roll
dice carries the `rng` to roll with (randomness is a parameter, as in the engine)."""

from __future__ import annotations

from typing import Any

from pyengine.dice import Rng
from pyengine.record import Record, field

__all__ = [
    "LibrarySearched", "LibraryLoaded", "LibraryFailed", "LibraryRetried", "CreaturePicked", "ConditionRulesAsked",
    "EncountersImported", "OfflineStarted", "OfferMade", "ScanOpened", "CodeRead", "AnswerMade", "PairingFailed", "DirectFailed", "RelaysChecked",
    "Act", "NextTurnTapped", "StartTapped", "InitiativeEntered", "UndoTapped", "RedoTapped", "HitPointsTyped",
    "BatchApplied", "QuickAdded", "AttackApplied", "SelectingToggled", "SelectionToggled", "SectionPicked", "ToolKindPicked", "ToolAdded", "CombatantRemembered",
    "SavedRollDeleted", "SavedRollRestored", "CharacterDeleted", "CharacterRestored", "CombatantAdded", "RollTyped",
    "SavedRollTapped", "RollSaved", "QuickDieTapped", "DiceTyped", "AttackRolled", "CharacterSaved", "ShareOffered",
    "ShareOpened", "EncounterCreated", "EncounterCopied", "EncounterDeleted", "EncounterRestored", "HistoryCleared",
    "NoticeDismissed", "SheetOpened", "SheetClosed", "AttackLastTapped", "TargetPicked", "AttackConfigured", "ThemeToggled",
    "Exported", "ShareLinkAsked", "LinkCopied", "ReloadTapped", "EncounterPicked", "HistoryTrimmed", "FileImported",
    "FightChangedElsewhere", "CollectionChanged", "StorageKept", "ViewOpened", "CharacterOpened", "CharacterOffered",
    "CharacterTaken", "AttackPicked", "AttackRemoved", "AttackOptionsSaved", "TargetDescribed", "SidePicked", "NameTyped",
    "OddsTargetTyped", "LiveOpened", "LiveStopped", "LiveFollowed", "PeerChanged", "PeerSaid", "LiveTicked",
    "DisplayOpened", "RequestAnswered", "RequestResent", "AutoDoneToggled", "ClaimTapped", "InitiativeSent", "DoneTapped", "RollSent",
    "LiveAttackPicked", "ServersSaved", "Message"
]


class Act(Record):
    """A request to the fight (any tracker or system action), with what closes on success."""

    kind: str
    args: dict[str, Any]
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
    encounters: tuple[dict[str, Any], ...]
    locked: frozenset[str] = frozenset()


class ShareOpened(Record):
    """The user's answer to a shared fight: open it under `new_id`, or replace the copy opened before."""

    replace_earlier: bool
    new_id: str
    encounters: tuple[dict[str, Any], ...]
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

    file: Any  # web.persist.Imported: its fights, party, opponents and characters, checked
    new_id: str
    listed: int       # encounters in the list now (the new ids are numbered on from it)
    character_ids: tuple[str, ...] = ()  # fresh ids for characters whose id is taken here


# -- what comes from elsewhere: another tab, a link ------------------------------------------------

class FightChangedElsewhere(Record):
    """Another tab stored the fight on screen: its version is shown; `conflict`: ours was not saved;
    `said`: what to say instead (a merge of the two, web/persist.rebase_changes)."""

    timeline: Any
    conflict: bool = False
    said: str = ""


class CollectionChanged(Record):
    """Another tab stored a collection (persist key): its items as stored now."""

    key: str
    items: tuple[dict[str, Any], ...]


class StorageKept(Record):
    """What the browser answered when asked whether it keeps our storage."""

    kept: bool


class ViewOpened(Record):
    """A #view= link: the players' read-only view of a fight, shown at once, nothing saved."""

    payload: str


# -- My characters --------------------------------------------------------------------------------

class CharacterOpened(Record):
    """A character's attack screen, with the chosen named attack (else its first) in the panel."""

    ident: str
    index: int | None = None


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



# -- the live table (web/update/live.py) -------------------------------------------------------------
class LiveOpened(Record):
    """The game master opened the Live table: host a fresh room (room, secret), or the one already
    live; `shown`: open its screen (False when a reload takes the table up again, quietly)."""

    room: str
    secret: str
    relays: tuple[str, ...]
    stun: tuple[str, ...]
    shown: bool = True
    kept: str = ""           # what was kept with the room (a reload): its claims and waiting requests
    nostr: tuple[str, ...] = ()  # the Nostr relays (the room is joined on both networks at once)


class LiveStopped(Record):
    """The game master ended the live table, or a follower stopped following."""


class LiveFollowed(Record):
    """A join link was opened (`fragment` "ROOM.SECRET"), or "display" for the table display."""

    fragment: str
    relays: tuple[str, ...]
    stun: tuple[str, ...]
    name: str = ""           # what the phone says it is (its first character's name)
    device: str = ""         # its lasting id at live tables (what it plays is kept under it)
    nostr: tuple[str, ...] = ()  # the Nostr relays (the link's, else this phone's)


class PeerChanged(Record):
    """Another phone came into the room or left it (as the connection library says)."""

    peer: str
    joined: bool


class PeerSaid(Record):
    """A message from another phone or window: any text (None: refused before it reached Python)."""

    peer: str
    text: str | None
    at_ms: float
    rng: Any = None          # a player's "I'm done" may pass the turn (the game master's dice for whoever is next)


class LiveTicked(Record):
    """A follower's clock, every few seconds: "last update 40 s ago"; with how its relays answer."""

    now_ms: float
    networks: tuple[int, int, int, int] = (-1, -1, -1, -1)


class RequestAnswered(Record):
    """The game master applied (or dismissed) a player's request."""

    id: int
    apply: bool
    rng: Rng


class RequestResent(Record):
    """A player: Send again, after "not delivered"."""


class AutoDoneToggled(Record):
    """The game master lets a player's "I'm done" pass the turn without asking (or not)."""

    on: bool


class ClaimTapped(Record):
    """A player: "this is me" on a party row."""

    cid: str


class InitiativeSent(Record):
    value: int | None


class DoneTapped(Record):
    pass


class RollSent(Record):
    """A player rolled against a target (dice typed, or an attack of My characters) to send the game master."""

    target: str
    expression: str
    label: str
    rng: Rng


class AttackSent(Record):
    """A player attacks a target (a view id) with one of its character's attacks (its name; "": its
    own stats): its phone draws the dice, the game master's engine resolves them."""

    target: str
    weapon: str
    rng: Rng


class HealSent(Record):
    """A player received healing (or gained temporary HP, `temp`): a request to the game master."""

    value: int | None
    temp: bool


class DeathSaveSent(Record):
    """A dying player's death save, rolled on its phone (a d20)."""

    rng: Rng


class PlayerPanelToggled(Record):
    """A player's phone opens (or closes) one of its panels: "attack", "heal"."""

    panel: str


class PlayerTargetPicked(Record):
    """A player picked a target on its phone (kept: the next attack offers it first)."""

    target: str


class TrayToggled(Record):
    """The game master opens (or closes) the tray of players' requests."""


class AutoSavesToggled(Record):
    """The game master lets a player's death save apply without asking (or not)."""

    on: bool


class LiveAttackPicked(Record):
    """A player picked one of My characters' attacks for a roll: its dice and name fill the form."""

    dice: str
    label: str


class ServersSaved(Record):
    """The Live table's connection settings: relays and STUN servers (comma-separated, "none", or
    blank for the defaults), and the relays this page's CSP lets it reach."""

    relays: str
    stun: str
    allowed: tuple[str, ...]
    nostr: str | None = None  # the Nostr relays typed (None: not on the form)


class DisplayOpened(Record):
    """"Open table display": a second window follows through BroadcastChannel."""


# -- the live table with no internet (two codes, by camera) ---------------------------------------

class OfflineStarted(Record):
    """The game master's "No internet: join by two scans": a new offer (the table goes live first,
    without the relays, if it was not). `room`, `secret`: a fresh room for that case."""

    room: str
    secret: str


class OfferMade(Record):
    """This phone's offer is ready: its id (`token`, 8 hex digits, chosen by the runtime), its
    session description (all addresses in), and this page's address (the join link's start)."""

    token: str
    sdp: str
    base: str


class ScanOpened(Record):
    """The scanner opens, to read an "offer" (a player joining) or an "answer" (the game master)."""

    kind: str


class CodeRead(Record):
    """A code read by the camera, or pasted, in the scanner of `kind`."""

    text: str
    kind: str


class AnswerMade(Record):
    """A player's phone made its answer to the game master's offer `token` (the runtime adds what
    this phone says it is, as for a join link)."""

    token: str
    sdp: str
    name: str
    device: str


class PairingFailed(Record):
    """The browser refused a step of the two-code join (its words)."""

    text: str


class DirectFailed(Record):
    """A direct connection whose codes were exchanged did not open (the phones could not reach each other)."""

    peer: str


class EncountersImported(Record):
    """An import's encounters were stored: how many of how many (storage may refuse some)."""

    stored: int
    total: int


class RelaysChecked(Record):
    """How many of the live table's relays answer (checked with the heartbeat; -1: not known), and per
    network: (Nostr up, Nostr asked, WebTorrent up, WebTorrent asked), -1 where a network is not used."""

    up: int
    networks: tuple[int, int, int, int] = (-1, -1, -1, -1)


class LibrarySearched(Record):
    """Typed in the add form's "From the SRD" field (the creature library loads on its first use)."""

    query: str


class LibraryLoaded(Record):
    """The creature library's file arrived (its text, read and checked by update)."""

    text: str


class LibraryFailed(Record):
    """The creature library's file could not be fetched: why."""

    reason: str


class CreaturePicked(Record):
    """A creature of the library tapped on the add form: added with the form's How many, side and
    Remember; `roll_hp`: each member's hit points rolled from its hit dice (else the average)."""

    name: str
    count: int
    side: str
    remember: bool
    roll_hp: bool
    rng: Rng


class LibraryRetried(Record):
    """Retry after the creature library could not be loaded."""


class ConditionRulesAsked(Record):
    """The condition picker's "Rules text" (the SRD's, from the creature library's file)."""


Message = (Act | NextTurnTapped | StartTapped | InitiativeEntered | UndoTapped | RedoTapped | HitPointsTyped |
           BatchApplied | QuickAdded | AttackApplied | SelectingToggled | SelectionToggled | SectionPicked | ToolKindPicked | ToolAdded | CombatantRemembered |
           SavedRollDeleted | SavedRollRestored | CharacterDeleted | CharacterRestored | CombatantAdded | RollTyped |
           SavedRollTapped | RollSaved | QuickDieTapped | DiceTyped | AttackRolled | CharacterSaved | ShareOffered |
           ShareOpened | EncounterCreated | EncounterCopied | EncounterDeleted | EncounterRestored | HistoryCleared |
           NoticeDismissed | SheetOpened | SheetClosed | AttackLastTapped | TargetPicked | AttackConfigured |
           ThemeToggled | Exported | ShareLinkAsked | LinkCopied | ReloadTapped | EncounterPicked | HistoryTrimmed |
           FileImported | FightChangedElsewhere | CollectionChanged | StorageKept | ViewOpened | CharacterOpened |
           CharacterOffered | CharacterTaken | AttackPicked | AttackRemoved | AttackOptionsSaved | TargetDescribed |
           SidePicked | NameTyped | OddsTargetTyped | LiveOpened | LiveStopped | LiveFollowed | PeerChanged | PeerSaid | LiveTicked |
           DisplayOpened | RequestAnswered | RequestResent | AutoDoneToggled | ClaimTapped | InitiativeSent | DoneTapped | RollSent |
           LiveAttackPicked | AttackSent | HealSent | DeathSaveSent | PlayerPanelToggled | PlayerTargetPicked | TrayToggled | AutoSavesToggled | ServersSaved | OfflineStarted | OfferMade | ScanOpened | CodeRead | AnswerMade |
           PairingFailed | DirectFailed | RelaysChecked | EncountersImported | LibrarySearched | LibraryLoaded | LibraryFailed | LibraryRetried |
           CreaturePicked | ConditionRulesAsked)
