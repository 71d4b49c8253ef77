"""The page's state as one frozen value: the fight on screen, what the screen adds to it, the
collections shown beside it and the notices. `update` (web/app/update) makes the next one."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pyengine.documents import Rolled, SavedRoll
from pyengine.live import SILENT_MS
from pyengine.tracker import Timeline
from web.app.storage.records import Notice
from web.app.ui import Ui

__all__ = ["Model", "NEXT_TURN_GUARD", "Trash", "Live", "Peer", "Pending", "Request"]

NEXT_TURN_GUARD = 0.4  # seconds: two taps on Next turn closer than this are one tap (RK.nextTurnGuardMs)


@dataclass(frozen=True)
class Trash:
    """What was deleted and can come back, newest last: saved rolls (with where they stood),
    characters and encounters (their id, name and whole history). One place for every undelete."""

    rolls: tuple[tuple[int, SavedRoll], ...] = ()
    characters: tuple[dict[str, Any], ...] = ()
    encounters: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True)
class Peer:
    """Another phone in the live table's room: its connection library's id, the name it said."""

    id: str
    name: str = ""
    connected: bool = True
    device: str = ""        # its lasting id (what it claimed is kept under it, across reloads)
    left_ms: float = 0.0    # host: when its connection went (the clock of PeerChanged)


@dataclass(frozen=True)
class Request:
    """What a player's phone asked the game master, waiting for Apply or Dismiss."""

    id: int
    peer: str
    device: str
    kind: str               # "claim" | "done" | "roll" | "attack" | "cast" | "heal" | "temp" | "dsave"
    cid: str                # the player's combatant (claimed, or asked for)
    text: str               # what the game master reads
    target: str = ""        # a roll's target
    amount: int = 0         # a roll's total
    rid: int = 0            # its number on the player's phone (the answer names it)
    seed: int = 0           # a verified roll's seed (from both phones: pyengine.fair), a typed death save's face
    weapon: str = ""        # an attack's weapon (the attack's name; "": the combatant's own stats)
    typed: bool = False     # its dice were typed from real dice (not verified): never applied without asking
    eid: str = ""           # the fight it was asked in (its ids are that fight's; "": kept before this was)
    dtype: str = ""         # a roll's damage type as the player typed it ("fire", "magical slashing"; "": untyped)
    spell: str = ""         # a spell attack's damage ("2d10 fire": the library's, at its slot); a cast spell's level in `seed`


@dataclass(frozen=True)
class Pending:
    """A player's verified roll, between the game master's answer to its commitment and its phone's
    reveal (pyengine.fair): the request as sent, checked again when the secret comes."""

    peer: str
    device: str
    rid: int
    commit: str
    message: Any            # the request (pyengine.live's Attack, DeathSave or Roll)
    who: str                # the character it is for, as the game master reads it
    at_ms: float            # when the game master's phone answered it (a reveal later than REVEAL_MS is not waited for)

@dataclass(frozen=True)
class Live:
    """The live table, seen from this page. The game master's phone hosts ("host": the one writer);
    a player's phone follows ("follow"); a second window of the game master's shows the table
    display ("display", through BroadcastChannel, no network)."""

    role: str = "off"                       # "off" | "host" | "follow" | "display"
    room: str = ""
    secret: str = ""
    host_key: str = ""                      # follow: the game master's public key (from the link)
    relays: tuple[str, ...] = ()           # WebTorrent trackers
    nostr: tuple[str, ...] = ()            # Nostr relays (the room is joined on both at once)
    stun: tuple[str, ...] = ()
    peers: tuple[Peer, ...] = ()            # the others in the room, in the order they came
    display: bool = False                   # host: a table display listens
    link: str = ""                          # host: the join link, once the game master's public key is known
    sent: tuple[object, ...] | None = None  # host: the last view sent (update/live._sent: a change sends the next)
    refused: int = 0                        # messages refused (broken or hostile), counted
    claims: tuple[tuple[str, str, str], ...] = ()  # host: (device, encounter id, combatant id) the game master approved: one character of one fight
    since_ms: float = 0.0                   # host: when this page first heard the room (a phone not seen since is gone since then)
    trusted: tuple[tuple[str, str], ...] = ()  # host: (device, character's name) approved once: its claim on that name in another fight applies at once
    requests: tuple[Request, ...] = ()      # host: waiting for Apply / Dismiss
    initiatives: tuple[tuple[str, int], ...] = ()  # host: initiatives the players sent (they fill the initiative step)
    auto_done: bool = False                 # host: a player's "I'm done" passes the turn without asking
    auto_saves: bool = False                # host: a player's death save applies without asking
    tray: bool = True                       # host: the requests' tray is open (else its badge alone)
    asked: int = 0                          # host: requests numbered so far
    owed: tuple[tuple[str, str], ...] = ()  # host: (device, answer) for a phone not connected when it was answered
    view: Any = None                        # follow: the newest view received
    ids: tuple[tuple[str, str, str], ...] = ()  # follow: (id, name, side) of who the players see
    turn: tuple[str, ...] = ()              # follow: whose turn it is (ids)
    you: str = ""                           # follow: the combatant the game master let this phone play (a view id: of one fight)
    played: str = ""                        # follow: the name of the character it last played (offered first in another fight)
    fight: str = ""                         # follow: which fight the newest state is of (pyengine.handoff.fight_token)
    asked_fight: str = ""                   # follow: the fight its last request was made in (its answer is shown in that fight only)
    pcs: Any = None                         # follow: the party's own state by view id (pyengine.handoff.pc_state)
    panel: str = ""                         # follow: the panel open on this phone ("attack", "heal", "")
    target: str = ""                        # follow: the last target this player chose (kept across sends)
    target_turn: tuple[str, ...] = ()       # follow: whose turn it was when it chose it
    said: str = ""                          # follow: what the last request came to ("waiting: …", "not delivered: …")
    early_taps: tuple[tuple[str, str], ...] = ()  # follow: (action, id) tapped on the early view, answered once joined
    rid: int = 0                            # follow: the number of the last request sent (its answer names it)
    asking: str = ""                        # follow: the last request as sent (Send again sends it as it was)
    asked_what: str = ""                    # follow: the last request in words ("your claim on Ann")
    asked_ms: float = 0.0                   # follow: when it went, until an answer came (0: answered, or not sent)
    tries: int = 0                          # follow: times it went without an answer (a second try before "not delivered")
    rejoins: int = 0                        # follow: joins again since the game master's phone was last met (the back-off)
    met_ms: float = 0.0                     # follow: when the game master's phone was last connected to this one and heard
    revision: int = 0                       # follow: its revision within the game master's page (an older one is ignored)
    session: str = ""                       # follow: the game master's page it came from (a reload starts a new one)
    past_sessions: tuple[str, ...] = ()     # follow: the game master's pages it moved on from (never taken again)
    host: str = ""                          # follow: the peer the newest state came through (the host, or a follower passing it on)
    gm: str = ""                            # follow: the game master's phone in the room (named in its signed states)
    me: str = ""                            # follow: what this phone says it is (hello)
    device: str = ""                        # follow: this phone's lasting id (hello)
    updated_ms: float = 0.0                 # follow: when the newest view came
    confirmed_ms: float = 0.0               # follow: when the host's beat last said that view is still its newest
    heard_ms: float = 0.0                   # follow: when the host last said anything (a state, a beat)
    now_ms: float = 0.0                     # follow: the clock at the last tick
    rejoined_ms: float = 0.0                # follow: when it last joined the room (again)
    # No internet (two codes by camera, pyengine/pairing.py):
    direct: bool = False                    # follow: joined by the codes (the game master's phone is "direct-gm")
    offer: Any = None                       # host: the offer on screen for the next player: (Pairing, its join link)
    answered: tuple[tuple[str, Any, Any], ...] = ()  # host: (token, offer, answer) of each phone joined by codes
    answer: str = ""                        # follow: this phone's answer code, until the game master's phone reads it
    pairing: str = ""                       # what the two-code join says now (host: its section; follow: the join step)
    relays_up: int = -1                     # host: how many relays answer (-1: not known yet, or none asked)
    networks: tuple[int, int, int, int] = (-1, -1, -1, -1)  # Nostr up / asked, WebTorrent up / asked (-1: not used, not known)
    limits: tuple[tuple[str, float, float, float], ...] = ()  # host: (peer, tokens, at ms, muted until ms): each phone's rate
    limited: int = 0                        # host: messages dropped by the rate limit or the caps (counted, not drawn)
    unread: int = 0                         # host: messages its data channels dropped unread since it joined the room (too fast, too large)
    key: str = ""                           # host: what its values for players' commitments are made from (pyengine.fair.drawn; never sent)
    draws: tuple[Pending, ...] = ()         # host: verified rolls answered, waiting for their phone's reveal
    seen: tuple[str, ...] = ()              # host: commitments already answered (a replayed one is refused)
    turned_away: int = 0                    # host: claims of phones not let in, dropped past MAX_UNAPPROVED
    unshown: int = 0                        # host: rolls a phone committed to and did not show (or showed another)
    rolling: tuple[str, ...] = ()           # follow: (secret, dice) of the verified roll being asked ("1d20" a death save, "" an attack)
    save_asks: int = 0                      # host: save actions asked of players' phones so far (each ask's number)
    save_ask: Any = None                    # follow: the save the game master asks of this phone's character (pyengine.live.SaveAsk)
    save_sent: int = 0                      # follow: the request (its number) that answered the save card (it waits for the outcome)
    spell: str = ""                         # follow: the spell picked in the Spell panel (its levels follow it)

    @property
    def hosting(self) -> bool:
        return self.role == "host"

    @property
    def following(self) -> bool:
        return self.role in ("follow", "display")

    def current_ms(self) -> float:
        """When the view shown was last known to be the game master's newest (it came, or a beat of its
        revision said so): a quiet table's view is not "old" while the beats go on."""
        return max(self.updated_ms, self.confirmed_ms)

    def host_here(self) -> bool:
        """The host is connected and was heard from lately (a phone killed in the background never says it left)."""
        if not self.host or self.now_ms - self.heard_ms > SILENT_MS:
            return False
        return self.role == "display" or any(p.id == self.host and p.connected for p in self.peers)


@dataclass(frozen=True)
class Model:
    timeline: Timeline                        # the fight on screen, with its undo history
    ui: Ui = field(default_factory=Ui)         # sheets, the attack panel, selections ... (web/app/ui.py)
    rolls: tuple[Rolled, ...] = ()                       # the dice history, newest first
    saved_rolls: tuple[SavedRoll, ...] = ()              # named rolls
    characters: tuple[dict[str, Any], ...] = ()          # My characters (stored documents)
    roster: tuple[dict[str, Any], ...] = ()              # the party, saved from the add form
    templates: tuple[dict[str, Any], ...] = ()           # opponents saved from the add form
    notices: tuple[Notice, ...] = ()           # messages at the top, oldest first
    trash: Trash = field(default_factory=Trash)
    next_turn_guard: float = NEXT_TURN_GUARD
    storage_kept: bool | None = None           # the browser keeps our storage (navigator.storage.persisted), once known
    backup_at: float | None = None             # this device's last Export all (wall-clock seconds; None: never or not known)
    backup_due: bool = False                   # none in BACKUP_DAYS: offered as a fight ends
    asked_to_keep: bool = False                # the browser was asked to keep our storage (once a page, once a fight started)
    journal_said: bool = False                 # the durable copy's refusal was said (once a page)
    servers: tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]] = ((), (), ())  # the live table's relays, STUN, Nostr: the link's, else this phone's setting
    live: Live = field(default_factory=Live)   # the live table (web/app/update/live.py)
    live_page: str = ""                        # this page's id at live tables: a reload is a new page (its states count from 1 again)
    live_rev: int = 0                          # the live table's last state this page sent (its revision: a count, no clock)
    # What waits on a timer (web/app/update/clock.subscriptions), each by its number (0: nothing waits);
    # `timed` counts them, so a new toast or a key typed again starts its timer anew.
    timed: int = 0
    toast: int = 0                             # the toast on screen: hidden TOAST_MS after it was shown
    sheet_due: int = 0                         # the open sheet's redraw once typing stops
    odds_due: int = 0                          # the roller's odds once typing in the dice box stops
    estimating: int = 0                        # the roller's estimate: its next slice, in a task of its own
    library: Any = None                        # the creature library (pyengine.systems.srd.Library), once loaded
    library_state: str = ""                    # "" | "loading" | why it could not be loaded
    srd_query: str = ""                        # what is typed in the add form's "From the SRD"
    condition_rules: bool = False              # the condition picker's SRD rules text is shown
