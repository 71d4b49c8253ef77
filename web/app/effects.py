"""What `update` asks the runtime to do, as data: save, draw, say, open or close a sheet. The
runtime (web/page/runtime.py's `perform`) is the only place that carries them out in the browser."""

from __future__ import annotations

from typing import Any

from pyengine.dice import RollResult
from pyengine.record import Record
from pyengine.tracker import Timeline

__all__ = [
    "LoadLibrary", "MakeOffer", "AcceptOffer", "ApplyAnswer",
    "SaveFight", "Render", "RenderSheet", "RenderNotices", "RenderRolls", "RenderRoller", "AskFirstTime", "Toast", "HideToast", "Refuse", "ShowSheet",
    "After", "CloseSheet", "StoreCollection", "SayOnLine", "SetField", "ShowRoll", "RefreshOdds", "StopOdds", "StepOdds",
    "ClearLink", "SwitchTo", "ForgetStored", "PickUpStored", "MergeRefused", "SettleJournal", "StorageEffect", "KeepAwake", "AskToKeepStorage", "LoadEncounter", "TrimStored",
    "AddEncounters", "SetTheme", "Download", "ShowShareLink", "CopyLink", "Reload", "FillForm", "LiveConnect", "LiveSend", "LiveBroadcast", "Every", "LiveTell",
    "LiveLeave", "ForgetLive", "KeepLiveTable", "StoreServers", "OpenDisplay", "ShowLiveLink", "ShowLink", "Effect"
]


class LoadLibrary(Record):
    """Fetch the creature library's file (the site's own, precached): LibraryLoaded or LibraryFailed follows.
    `fresh`: past every cache (the service worker's copy is replaced: it was damaged)."""

    fresh: bool = False


class SaveFight(Record):
    """The fight on screen changed: store it (and its line in the list of encounters); `made_from`:
    the stored version (its vid) a merge was made on (web/app/storage/workspace.Persistence.save_timeline)."""

    made_from: str | None = None


class Render(Record):
    """Draw the turn order, the round, Undo / Redo and the open sheet again; `elsewhere`: for a change
    made in another tab (every field of the open sheet keeps what the user typed in it)."""

    elsewhere: bool = False


class RenderSheet(Record):
    """Draw the open sheet again; with `collection` (a persist key another tab changed), only when
    the open screen shows that collection (its `shows`); `typing`: drawn when typing stopped (the
    field typed in keeps what it holds)."""

    collection: str = ""
    typing: bool = False


class RenderNotices(Record):
    pass


class RenderRolls(Record):
    """Draw the saved rolls and the dice history again."""


class RenderRoller(Record):
    """Draw the dice roller whole: its form, the saved rolls and history, the odds of what its box holds."""


class AskFirstTime(Record):
    """Whether this device meets `key` for the first time (a one-time hint's mark: stored then): if
    so the runtime says FirstTime(key); never when nothing can be remembered (a hint does not nag)."""

    key: str


class Toast(Record):
    """A short message where the thumb is; with `undo`, an Undo button in it (with `redo`, Redo)."""

    text: str
    level: str = "info"
    undo: bool = False
    redo: bool = False
    request: int = 0   # a player's request (its id): Apply and Dismiss in the toast


class HideToast(Record):
    pass


class Refuse(Record):
    """A refusal, said where the tap was (the open sheet's error line, else a notice)."""

    text: str


class ShowSheet(Record):
    """Draw the open sheet anew (the UI state says which) and show it; `focus`: its first field takes the focus."""

    focus: bool = False


class CloseSheet(Record):
    pass


class StoreCollection(Record):
    """Store one collection of the model (persist.COLLECTIONS' key: rolls, saved rolls ...)."""

    key: str


class SayOnLine(Record):
    """A line of text in an element that stays on screen (the roller's error line)."""

    line: str
    text: str
    mark: str = ""         # its state for the page's colours (data-state: the live dot), when it has one


class SetField(Record):
    """An input's value (the dice box, the saved roll's name)."""

    field: str
    value: str


class ShowRoll(Record):
    """A roll's result where the Roll button is (the dice and the total)."""

    result: RollResult


class RefreshOdds(Record):
    """The roller's odds for the expression in the box, now."""


class StepOdds(Record):
    """One slice of the roller's estimate of the odds (its panel says when it wants another)."""


class RollStale(Record):
    """The dice box holds another expression than the roll shown: the result says it is the previous roll."""


class StopOdds(Record):
    """Typing in the dice box: no more of the estimate for the expression being changed (the odds of
    the new one come when typing stops: web/app/update/clock.subscriptions)."""


class ClearLink(Record):
    """Take the link's part after # off the address bar (a reload does not offer it again)."""


class SwitchTo(Record):
    """Show this fight (saving the one left, listing the new one with `origin`); with `replacing`,
    it is stored over the encounter of that id (its stored revision forgotten first)."""

    timeline: Timeline
    origin: tuple[tuple[str, str], ...] = ()
    replacing: str | None = None


class ForgetStored(Record):
    """Take an encounter out of storage and out of the list; then show the first one left (read
    from storage), or, when there is none or it cannot be read, `fresh`."""

    ident: str
    fresh: Timeline


class PickUpStored(Record):
    """Another tab stored `name` (a key without the site's prefix): the fight on screen (`enc:<id>`)
    read again and shown (or later, while the journal has not answered this tab's own write of it), a
    collection or the list of encounters as stored now."""

    name: str


class MergeRefused(Record):
    """The journal refused this tab's version `vid` of `name`: the other tab's `raw` stands, and the fight
    on screen has this tab's change since that version done again on it (no tap lost); JournalAnswered
    follows the merge."""

    name: str
    vid: str
    raw: str


class SettleJournal(Record):
    """The journal answered every write of `name` this tab made: another tab's version that came
    meanwhile is looked at now."""

    name: str


class KeepAwake(Record):
    """Hold the screen awake while a fight runs (and let it sleep when none does)."""


class AskToKeepStorage(Record):
    """Once a fight has started, ask the browser to keep our storage."""



class LoadEncounter(Record):
    """Show the stored encounter of this id (the one on screen stays stored); one that cannot be read is said."""

    ident: str


class TrimStored(Record):
    """Every stored fight but the one on screen keeps its last `keep` undo steps."""

    keep: int


class AddEncounters(Record):
    """Imported fights: the first of `timelines` stored and listed (from a file), with the model it is
    given, and EncountersImported said a task later (with the rest to store; `stored` of `total` so
    far, `last` the last one stored); a refusal of the storage stops there (the next, no smaller,
    would be refused too)."""

    timelines: tuple[Timeline, ...]
    stored: int = 0
    total: int = 0
    last: Timeline | None = None


class SetTheme(Record):
    """Dark or light, on the page and remembered."""

    theme: str


class Download(Record):
    """The open fight ("current") or everything ("all") as a file."""

    what: str


class ShowShareLink(Record):
    """The share screen's link for `kind` ("view": the players' view, "fight": a co-GM's copy) in its
    field, copied, and drawn as a QR code."""

    kind: str


class CopyLink(Record):
    """The link in the field `field`, selected and copied; how it went said on `line`."""

    field: str
    line: str


class Reload(Record):
    """Load the page again."""


class FillForm(Record):
    """Inputs' values (text, or a box's tick), then the focus on `focus`."""

    fields: tuple[tuple[str, str | bool], ...]
    focus: str | None = None



class LiveConnect(Record):
    """Join the room at the relays (role "host" or "follow"), or only the table display's channel
    (role "display", which says hello there: `hello` is its name)."""

    role: str
    room: str = ""
    secret: str = ""
    relays: tuple[str, ...] = ()
    stun: tuple[str, ...] = ()
    hello: str = ""
    host_key: str = ""     # follow: take only what this key signed
    nostr: tuple[str, ...] = ()  # the Nostr relays (joined at the same time as the WebTorrent trackers)


class LiveSend(Record):
    """The players' view of the present to one follower (`peer`), or to all and the table display
    (None); `update` numbers it (its revision). The view as drawn, for a phone whose engine is not
    ready yet, is added by the performer (web/app/live_status.state_sent): update builds no HTML."""

    view: dict[str, Any]
    peer: str | None = None
    ids: tuple[tuple[str, str, str], ...] = ()
    turn: tuple[str, ...] = ()
    pcs: Any = None  # the party's own state (pyengine.handoff.pc_state): what a player's phone shows of its character
    revision: int = 0  # numbered by `update` (web/app/update/live.numbered): this page's count of states sent, from 1
    session: str = ""  # this page's id at live tables (Model.live_page)
    fight: str = ""    # which fight it is, as the players' phones know it (pyengine.handoff.fight_token)


class LiveBroadcast(Record):
    """Say a text (the host's beat) in the room (`room`) and to this device's table display (`display`)."""

    text: str
    room: bool = False
    display: bool = False


class Every(Record):
    """A subscription (web/app/update/clock.subscriptions): `name`'s tick every `ms` while the model wants it."""

    name: str
    ms: int


class After(Record):
    """A subscription (web/app/update/clock.subscriptions): `message` once, `ms` after the model first
    wants it; a model that no longer wants it stops it (another toast, a key typed again)."""

    ms: int
    message: Record


class LiveTell(Record):
    """A message other than a state (a follower's request, the game master's "you play …") to one peer."""

    text: str
    peer: str


class LiveLeave(Record):
    pass


class ForgetLive(Record):
    """The hosted room is over: a reload does not take it up again. (While live, the runtime keeps
    the room with its signing key as it joins: LiveConnect.)"""


class KeepLiveTable(Record):
    """The hosted table's claims and waiting requests, kept with its room (web/app/live_status.live_table_text):
    the game master's reload takes them up again."""

    text: str


class StoreServers(Record):
    """Keep the live table's relays and STUN servers (a setting: the next table that goes live uses them)."""

    relays: tuple[str, ...]
    stun: tuple[str, ...]
    nostr: tuple[str, ...] = ()


class OpenDisplay(Record):
    pass


class ShowLiveLink(Record):
    """The join link wanted: once the room is joined and its key known, LiveKeyKnown follows
    (`fragment`: the room's part of it, kept for the performer's check that it is still this room)."""

    fragment: str


class ShowLink(Record):
    """The join link in the Live table's field and as its QR code."""

    link: str


# -- the live table with no internet ------------------------------------------------------------

class MakeOffer(Record):
    """A new direct connection on the game master's phone (the one offer on screen: an older one not
    answered yet is dropped); its description comes back as OfferMade."""


class AcceptOffer(Record):
    """A player's phone takes the game master's offer (a description written by pyengine.pairing);
    its answer comes back as AnswerMade, with `name` (this phone's first character's, or "")."""

    token: str
    sdp: str
    name: str = ""


class ApplyAnswer(Record):
    """The game master's phone takes a player's answer to its offer `token`: the two phones connect."""

    token: str
    sdp: str


# What the keeper (web/app/storage/keeper.Keeper.perform) carries out: the page's runtime and the tests' tabs
# hand it these alike.
StorageEffect = SaveFight | StoreCollection | SwitchTo | ForgetStored | LoadEncounter | TrimStored | PickUpStored | MergeRefused | SettleJournal

Effect = (StorageEffect | Render | RenderSheet | RenderNotices | RenderRolls | RenderRoller | AskFirstTime | Toast | HideToast | Refuse | ShowSheet |
          CloseSheet | SayOnLine | SetField | ShowRoll | RefreshOdds | StopOdds | StepOdds | RollStale |
          ClearLink | KeepAwake | AskToKeepStorage |
          AddEncounters | SetTheme | Download | ShowShareLink | CopyLink | Reload | FillForm |
          LiveConnect | LiveSend | LiveBroadcast | ShowLink | LiveTell | LiveLeave | ForgetLive | KeepLiveTable | StoreServers | OpenDisplay | ShowLiveLink |
          MakeOffer | AcceptOffer | ApplyAnswer | LoadLibrary)
