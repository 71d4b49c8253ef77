"""The live table's messages: the room, what the phones say and ask, the clocks, the two-code join
with no internet, and the creature library (read by web/app/update's live, requests, clock, pairing and library)."""

from __future__ import annotations

from typing import Any

from pyengine.dice import Rng
from pyengine.record import Record
from pyengine.systems.srd import Library

__all__ = [
    "LiveOpened", "LiveResumed", "LiveStopped", "LiveFollowed", "LiveLinkOpened", "PeerChanged", "PeerSaid", "LiveTicked", "LiveKeyKnown", "LiveBeat",
    "RequestAnswered", "RequestResent", "AutoDoneToggled", "ClaimTapped", "EarlyTapsKept", "EarlyJoinTaken", "InitiativeSent", "InitiativeRolled", "DoneTapped", "RollSent",
    "AttackSent", "HealSent", "DeathSaveSent", "PlayerPanelToggled", "PlayerTargetPicked", "TrayToggled",
    "AutoSavesToggled", "LiveAttackPicked", "ServersSaved", "DisplayOpened", "OfflineStarted", "OfferMade",
    "ScanOpened", "CodeRead", "AnswerMade", "PairingFailed", "DirectFailed", "EncountersImported", "RelaysChecked",
    "LibrarySearched", "LibraryLoaded", "LibraryFailed", "CreaturePicked", "LibraryRetried", "ConditionRulesAsked"
]


# -- the live table (web/app/update/live.py) -------------------------------------------------------------
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
    rng: Rng | None = None   # the page's randomness: the key of its answers to players' commitments (pyengine.fair), when none was kept


class LiveResumed(Record):
    """The page started with a hosted room kept (a reload of the game master's phone): the table is
    live again in the same room, quietly, with the servers this page uses (none if already live)."""

    room: str
    secret: str
    kept: str = ""           # what was kept with the room: its claims and waiting requests
    rng: Rng | None = None   # the page's randomness (LiveOpened's)


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
    keyed: bool = True       # the table display: its address carries its key (web/app/seal.py); else it can trust nothing


class LiveLinkOpened(Record):
    """A join link (`fragment` "ROOM.SECRET"), or "display" for the table display, opened on this
    page: followed with the servers this page uses and the name of its first character."""

    fragment: str
    device: str = ""
    keyed: bool = True


class PeerChanged(Record):
    """Another phone came into the room or left it (as the connection library says), at `at_ms`."""

    peer: str
    joined: bool
    at_ms: float = 0.0


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


class LiveKeyKnown(Record):
    """The hosted room is joined and its signing key known: the join link can be made (`here`: the
    page's address without query or fragment)."""

    room: str
    public: str
    here: str


class LiveBeat(Record):
    """The host's heartbeat, every BEAT_MS while it hosts or a table display listens: the clock, how
    its relays answer now (Nostr up, asked, WebTorrent up, asked; -1 where not known), and how many
    messages its data channels have dropped unread since it joined the room (static/live.mjs's
    guard: too fast, too large, not the room's)."""

    now_ms: float
    networks: tuple[int, int, int, int] = (-1, -1, -1, -1)
    unread: int = 0


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


class EarlyTapsKept(Record):
    """The taps made on the early view (static/early.mjs) before the engine was ready, as (action,
    id), oldest first: answered once this page has joined the room (EarlyJoinTaken)."""

    taps: tuple[tuple[str, str], ...]


class EarlyJoinTaken(Record):
    """The early view's join taken over by this page (joined, with the state it had): what was tapped
    on the early view is done now."""


class ClaimReleased(Record):
    """The game master: the character `cid` of the fight on screen is played by no phone now."""

    cid: str


class InitiativeSent(Record):
    value: int | None


class InitiativeRolled(Record):
    """A player's initiative rolled on its phone: a d20 from both phones plus the character's modifier."""

    rng: Rng


class DoneTapped(Record):
    pass


class RollSent(Record):
    """A player rolls against a target (dice typed, or an attack of My characters) to send the game
    master: verified (its dice from both phones), or `typed`: the total of real dice (marked typed)."""

    target: str
    expression: str
    label: str
    rng: Rng
    typed: str = ""


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
    """A dying player's death save: a d20 from both phones, or `typed`: a real die's face."""

    rng: Rng
    typed: str = ""


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
    """An import's encounters stored so far: how many of how many (storage may refuse some); `left`,
    those still to store (the next in a task of its own: the page answers taps between them); `last`,
    the last one stored, shown once none is left."""

    stored: int
    total: int
    left: tuple[Any, ...] = ()
    last: Any = None


class RelaysChecked(Record):
    """How many of the live table's relays answer (checked with the heartbeat; -1: not known), and per
    network: (Nostr up, Nostr asked, WebTorrent up, WebTorrent asked), -1 where a network is not used."""

    up: int
    networks: tuple[int, int, int, int] = (-1, -1, -1, -1)


class LibrarySearched(Record):
    """Typed in the add form's "From the SRD" field (the creature library loads on its first use)."""

    query: str


class LibraryLoaded(Record):
    """The creature library's file arrived: read and checked by the page a slice at a time (`library`),
    or its text, read and checked by update."""

    text: str = ""
    library: Library | None = None


class LibraryFailed(Record):
    """The creature library's file could not be fetched or read: why; `damaged`: it came but is not
    readable (a damaged copy: fetched again past the cache); `fresh`: this was such a fetch."""

    reason: str
    damaged: bool = False
    fresh: bool = False


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
