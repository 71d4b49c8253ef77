"""The live table's messages: what the game master's phone sends the players' phones and the table
display, and what they send back. Text on the wire (JSON), every message read here whatever its
source, bounded before it is parsed (size, then nesting), checked against its schema and version, and
only ever data: a message can make nothing run and can change no fight by itself.

One writer: the game master's phone. It sends the players' view of the present (`handoff.table_view`,
what players may see and nothing else) as a `state` with a rising revision; a follower keeps the
newest revision it was given and ignores older ones. Followers send `hello` (who they are) and
nothing that changes a fight.
"""

from __future__ import annotations

import json
import re
import secrets
from dataclasses import dataclass
from typing import Any, ClassVar

from .errors import SchemaError
from .fair import is_commitment, is_secret
from .handoff import check_view
from .save_effects import ABILITIES
from .storage import check_json_depth
from .text import clean_text

__all__ = [
    "LIVE_VERSION", "MAX_MESSAGE", "MAX_DEPTH", "Incoming", "State", "Beat", "You", "Answer", "Hello", "Bye", "Ask", "Claim", "Init", "Done",
    "Attack", "Cast", "Heal", "DeathSave", "Roll", "Reveal", "Drawn", "drawn_text", "SaveAsk", "SaveRoll", "save_ask_text", "SAVE_ROLLS", "Request", "LiveError", "new_room", "read_room", "join_code",
    "state_text", "beat_text", "STATE_PREFIX", "BEAT_PREFIX", "WIRE", "hello_text", "request_text", "you_text", "BEAT_MS", "SILENT_MS", "read_message", "read_servers", "FROM_HOST", "FROM_FOLLOWER", "DEFAULT_RELAYS",
    "DEFAULT_STUN", "newer", "RELAY_SCHEMES", "STUN_SCHEMES", "relay_origin", "allowed_relays", "check_relays", "answer_text", "ANSWERS", "MAX_RID", "DEFAULT_NOSTR",
]

LIVE_VERSION = 1
MAX_MESSAGE = 64_000      # characters: a 50-combatant view with conditions is under 10,000
MAX_DEPTH = 8             # the view nests 4 deep
MAX_REVISION = 2**53      # revisions are a millisecond clock: JSON's safe integers
FROM_HOST = frozenset({"state", "beat", "you", "ans", "draw", "sask"})
BEAT_MS = 4_000           # the host says it is there this often (a phone killed says nothing)
SILENT_MS = 11_000        # a follower that heard nothing from its host this long is reconnecting
FROM_FOLLOWER = frozenset({"hello", "claim", "init", "done", "roll", "atk", "cast", "heal", "dsave", "save", "show", "bye"})
ANSWERS = ("waiting", "applied", "dismissed", "refused")  # what a request came to (the game master's "ans")
MAX_RID = 2**31           # a request's number on its phone (answers name it)
MAX_ROLL = 1_000_000
MAX_SEED = 2**53          # a verified roll's seed (pyengine.fair.joint_seed), kept with the request it rolled
MAX_PC_ATTACKS = 20
MAX_CAST_TARGETS = 12     # a spell's targets from one phone (saving_throws.MAX_TARGETS bounds the game master's save action)
# Where phones meet to exchange their WebRTC handshakes: public WebTorrent trackers (Trystero's
# torrent strategy; build.py writes these and only these into the CSP's connect-src). They see that
# two browsers asked for the same hashed room, never the fight: that goes phone to phone, encrypted.
DEFAULT_RELAYS = (
    "wss://tracker.openwebtorrent.com",
    "wss://tracker.webtorrent.dev",
    "wss://tracker.files.fm:7073/announce",
)
# And Nostr relays at the same time (Trystero's nostr strategy; issue 36: Trystero's maintainer calls the
# public WebTorrent trackers' reliability spotty): four of the defaults Trystero's maintainers keep in
# @trystero-p2p/nostr 0.25.4, general-purpose public relays run by independent operators. They see
# signed events of an ephemeral key, tagged with a hash of the room; the offers and answers inside are
# encrypted with the room's password. build.py writes these into the CSP's connect-src too.
DEFAULT_NOSTR = (
    "wss://nos.lol",
    "wss://relay.mostr.pub",
    "wss://purplerelay.com",
    "wss://strfry.shock.network",
)
# What WebRTC asks a phone's public address from (not a relay: no data passes through them).
DEFAULT_STUN = ("stun:stun.l.google.com:19302", "stun:stun.cloudflare.com:3478")
MAX_SERVERS = 8
RELAY_SCHEMES = ("wss://", "ws://")
STUN_SCHEMES = ("stun:", "stuns:", "turn:", "turns:")
ROOM_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_")


class LiveError(SchemaError):
    """A message refused: too large, too deep, not JSON, another version, not expected here. `rid`:
    the request's number when the message was a request read that far (its phone is told why)."""

    rid = 0


# What another phone or window says, read whole and checked (`read_message`): one frozen record per
# kind of message, their union `Incoming` (a reader matches on the class; mypy finds a kind left out).
# `kind` is the message's "t" on the wire.

@dataclass(frozen=True, kw_only=True)
class State:
    """The game master's players' view (to every follower, or one that joined)."""

    kind: ClassVar[str] = "state"
    revision: int
    session: str              # the game master's page that sent it (one per page load)
    view: Any                 # the players' view, checked (handoff.check_view)
    ids: tuple[tuple[str, str, str], ...] = ()   # (id, name as shown, "p"/"o") of who players may see
    turn: tuple[str, ...] = ()                   # the ids of whose turn it is (the shown ones)
    sender: str = ""          # the game master's phone in the room
    pcs: Any = None           # the party members' own state by view id (pc_state; checked)
    fight: str = ""           # which fight it is (handoff.fight_token: a keyed hash; "": not said)


@dataclass(frozen=True, kw_only=True)
class Beat:
    """The game master's phone is there (every BEAT_MS), with the last revision it sent."""

    kind: ClassVar[str] = "beat"
    revision: int
    session: str


@dataclass(frozen=True, kw_only=True)
class You:
    """To one phone: the combatant it plays ("" none)."""

    kind: ClassVar[str] = "you"
    cid: str


@dataclass(frozen=True, kw_only=True)
class Answer:
    """To one phone: what became of its request `rid` (one of ANSWERS; `text`: why, or what was done)."""

    kind: ClassVar[str] = "ans"
    rid: int
    answer: str
    text: str = ""


@dataclass(frozen=True, kw_only=True)
class Hello:
    """A follower says who it is: its own words for itself, its lasting id (its claims are kept under it)."""

    kind: ClassVar[str] = "hello"
    name: str = ""
    device: str = ""


@dataclass(frozen=True, kw_only=True)
class Bye:
    """A table display's window closed."""

    kind: ClassVar[str] = "bye"


SAVE_ROLLS = ("1d20", "2d20kh1", "2d20kl1", "")   # a save's d20s as the game master's engine rolls them ("": fails automatically)


@dataclass(frozen=True, kw_only=True)
class SaveAsk:
    """To one phone: the game master's save action asks its character to save (issue 52), with what the
    player may know: the effect in words, the ability and DC, the character's own bonus and how it rolls
    (`roll`: one of SAVE_ROLLS; `note`: why: "restrained: disadvantage on Dexterity saves"). `ask`
    numbers the save action on the game master's page; `outcome` non-empty closes the card with what
    came of it ("Dex save 17 vs DC 17: succeeded; 28 damage")."""

    kind: ClassVar[str] = "sask"
    ask: int
    cid: str
    what: str = ""
    ability: str = "dex"
    dc: int = 10
    bonus: int = 0
    roll: str = "1d20"
    note: str = ""
    outcome: str = ""


@dataclass(frozen=True, kw_only=True)
class Ask:
    """A player's request, numbered on its phone (`rid`: the answer names it)."""

    kind: ClassVar[str] = ""
    rid: int = 0


@dataclass(frozen=True, kw_only=True)
class Claim(Ask):
    kind: ClassVar[str] = "claim"
    cid: str                  # the combatant asked for (its players' view id)


@dataclass(frozen=True, kw_only=True)
class Init(Ask):
    """Initiative: a total typed (`value`), or rolled (`commit`: the d20 comes from both phones, the
    game master's phone adds the character's initiative modifier)."""

    kind: ClassVar[str] = "init"
    value: int = 0
    commit: str = ""


@dataclass(frozen=True, kw_only=True)
class Done(Ask):
    kind: ClassVar[str] = "done"


@dataclass(frozen=True, kw_only=True)
class Attack(Ask):
    kind: ClassVar[str] = "atk"
    target: str               # a players' view id
    weapon: str = ""          # the attack's name ("": the combatant's own stats)
    commit: str               # the player's phone's commitment to its secret (pyengine.fair): the dice come from both phones
    spell: str = ""           # a spell attack: the SRD spell's name (its damage from the game master's library)
    slot: int = 0             # and the level it is cast at (a cantrip: the character's level)


@dataclass(frozen=True, kw_only=True)
class Cast(Ask):
    """A player casts an SRD spell with a saving throw at its targets (players' view ids): the game
    master's save action, pre-filled with the caster's spell save DC and the spell's damage at `slot`."""

    kind: ClassVar[str] = "cast"
    spell: str
    slot: int
    targets: tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class Heal(Ask):
    kind: ClassVar[str] = "heal"
    value: int
    temp: bool = False        # temporary hit points gained, not healing


@dataclass(frozen=True, kw_only=True)
class DeathSave(Ask):
    """A death save: verified (`commit`: the d20 comes from both phones) or typed (`face`, from a real die)."""

    kind: ClassVar[str] = "dsave"
    commit: str = ""
    face: int = 0


@dataclass(frozen=True, kw_only=True)
class Roll(Ask):
    """A roll at a target: its dice (`expr`) and what it is (`label`); verified (`commit`) or typed
    (`value`, a total read off real dice: checked against what `expr` can total)."""

    kind: ClassVar[str] = "roll"
    target: str
    expr: str
    label: str = ""
    commit: str = ""
    value: int = 0


@dataclass(frozen=True, kw_only=True)
class SaveRoll(Ask):
    """A player's answer to the save its phone was asked (`ask`): verified (`commit`: the d20s come from
    both phones, as the ask said to roll them) or typed (`face`: the natural d20 kept, from a real die)."""

    kind: ClassVar[str] = "save"
    ask: int
    commit: str = ""
    face: int = 0


@dataclass(frozen=True, kw_only=True)
class Reveal(Ask):
    """A player's phone shows the secret it committed to for its request `rid` (pyengine.fair)."""

    kind: ClassVar[str] = "show"
    secret: str


@dataclass(frozen=True, kw_only=True)
class Drawn:
    """To one phone: the game master's value for its request `rid`'s commitment (the dice's other half)."""

    kind: ClassVar[str] = "draw"
    rid: int
    value: str


Request = Claim | Init | Done | Attack | Cast | Heal | DeathSave | Roll | SaveRoll | Reveal
Incoming = State | Beat | You | Answer | Drawn | SaveAsk | Hello | Bye | Request


def new_room() -> tuple[str, str]:
    """A fresh room and its secret: the room names the meeting place at the relays, the secret is
    the password of its handshake. Both travel only in the link's fragment and the QR code."""
    return secrets.token_urlsafe(8), secrets.token_urlsafe(12)


def join_code(room: str, secret: str, host_key: str) -> str:
    """What follows "#live=" in a join link: the room, its secret and the game master's public key
    (which signs every state: a follower takes no one else's)."""
    return f"{room}.{secret}.{host_key}"


def read_room(text: str, with_key: bool = True) -> tuple[str, str, str]:
    """(room, secret, the host's public key) from a join link's fragment ("ROOM.SECRET.KEY"), or
    from the game master's stored "ROOM.SECRET" (with_key False: the key is ""); raises LiveError."""
    parts = text.split(".")
    key = parts[2] if with_key and len(parts) == 3 else ""
    if len(parts) != (3 if with_key else 2) or not 6 <= len(parts[0]) <= 40 or not 8 <= len(parts[1]) <= 60 \
            or (with_key and not 80 <= len(key) <= 100) or not set("".join(parts)) <= ROOM_CHARS:
        raise LiveError("That live table link is damaged: scan the game master's code again.")
    return parts[0], parts[1], key


def read_servers(text: str | None, schemes: tuple[str, ...], default: tuple[str, ...]) -> tuple[str, ...]:
    """A comma-separated list of relay or STUN addresses (a setting, or the page's `relays` / `stun`
    parameter); "none" for none; None or blank for the defaults. Raises LiveError on a bad one."""
    if text is None or not text.strip():
        return default
    if text.strip().lower() == "none":
        return ()
    urls = tuple(u.strip() for u in text.split(",") if u.strip())
    if len(urls) > MAX_SERVERS:
        raise LiveError(f"At most {MAX_SERVERS} addresses.")
    for url in urls:
        if not url.startswith(schemes) or len(url) > 200 or any(ch.isspace() or ch in "'\"<>;" for ch in url):
            raise LiveError(f"{url[:60]!r} is not a {' or '.join(s.rstrip(':/') for s in schemes)} address.")
    return urls


def relay_origin(url: str) -> str:
    """"wss://host:port" of a relay address (what a Content-Security-Policy names)."""
    rest = url.split("://", 1)[1] if "://" in url else url
    return url[: len(url) - len(rest)] + rest.split("/", 1)[0]


def allowed_relays(policy: str) -> tuple[str, ...]:
    """The relay origins a page's Content-Security-Policy lets it reach (its connect-src, less 'self')."""
    for part in policy.split(";"):
        words = part.split()
        if words and words[0] == "connect-src":
            return tuple(w for w in words[1:] if w.startswith(("ws://", "wss://")))
    return ()


def check_relays(relays: tuple[str, ...], allowed: tuple[str, ...]) -> None:
    """Refuse relays this site was not built to reach (its CSP would block them); raises LiveError."""
    blocked = [r for r in relays if relay_origin(r) not in allowed]
    if blocked:
        raise LiveError(f"{blocked[0][:60]} is not among the relays this site may reach ({', '.join(allowed) or 'none'}); "
                        "a table's own relay is added when the site is built (python3 build.py build --relay … or --nostr-relay …).")


def _dumps(doc: dict[str, Any]) -> str:
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=False)


SIGNATURE_ROOM = 200      # characters of a message's limit left for its signature (static/live.mjs: "S" + 86 + "|")


def state_text(view: dict[str, Any], revision: int, ids: list[list[str]] | None = None, turn: list[str] | None = None,
               sender: str = "", session: str = "", html: str = "", pcs: dict[str, Any] | None = None, fight: str = "") -> str:
    """The players' view with a revision; `ids`: [id, name as shown, side] of who players may see
    (what a player claims and targets by), `turn`: the ids of whose turn it is, `sender`: the game
    master's phone in the room (signed with the rest: followers say hello and ask only there);
    `session`: the game master's page that sent it (revisions count up within one, from 1: no clock);
    `html`: the view as drawn (web/app/html.view_body_html), for a phone whose engine is not ready yet
    (static/early.mjs shows it through an allow-list; this module never reads it). Left out when the
    message would pass MAX_MESSAGE with it: such a phone then waits for its engine.
    `pcs`: each party member's own state (pc_state: exact HP with temporary HP, conditions with what
    remains of them, death saves, its attacks' names), what a player's phone shows of its own character.
    `fight`: which fight it is (a keyed hash: a player's answers and claim belong to one fight)."""
    doc = {"v": LIVE_VERSION, "t": "state", "rev": revision, "ses": session, "view": view, "ids": ids or [], "turn": turn or [],
           "from": sender, **({"pcs": pcs} if pcs else {}), **({"fight": fight} if fight else {})}
    if html:
        text = _dumps({**doc, "html": html})
        if len(text) <= MAX_MESSAGE - SIGNATURE_ROOM:
            return text
    return _dumps(doc)


def beat_text(revision: int, session: str = "") -> str:
    return _dumps({"v": LIVE_VERSION, "t": "beat", "rev": revision, "ses": session})


# How a state and a beat begin on the wire: static/live.mjs passes these on (what is for everyone) and
# static/early.mjs reads them before the engine is ready; build.py writes these very values into both
# (WIRE), so the two sides cannot drift apart.
STATE_PREFIX = _dumps({"v": LIVE_VERSION, "t": "state"})[:-1]
BEAT_PREFIX = _dumps({"v": LIVE_VERSION, "t": "beat"})[:-1]
# What the page's JavaScript knows of the wire (sitebuild writes it into static/live.mjs and early.mjs):
# the messages' version (read with JSON.parse and their shape checked, never by a prefix), the largest
# message, and how long a follower waits before it says "reconnecting…".
WIRE = {"version": LIVE_VERSION, "max": MAX_MESSAGE, "silentMs": SILENT_MS}


SESSION = re.compile(r"[0-9a-z]{0,16}")


def newer(session: str, revision: int, past: tuple[str, ...], incoming: State) -> bool:
    """Whether a follower showing (`session`, `revision`) takes `incoming`: within one page of the game
    master's, a higher revision; a page of the same signing key it has not seen before (the game
    master's page reloaded: its count starts again, whatever any clock says); never one of the `past`
    pages it has moved on from (an old signed state replayed by another phone)."""
    if incoming.session == session:
        return incoming.revision > revision
    return incoming.session not in past


def hello_text(name: str, device: str = "") -> str:
    return _dumps({"v": LIVE_VERSION, "t": "hello", "name": clean_text(name)[:60], "device": device})


def request_text(kind: str, **fields: Any) -> str:
    """A follower's request: claim (cid), init (value), done, roll (target, expr, label, and c: a
    commitment, or value: a typed total), atk (target, with: the attack's name, c), heal (value, temp),
    dsave (c, or face: a typed d20), save (ask: the save asked, c or face), cast (spell, slot, targets),
    show (s: the secret a commitment promised)."""
    return _dumps({"v": LIVE_VERSION, "t": kind, **fields})


def drawn_text(rid: int, value: str) -> str:
    return _dumps({"v": LIVE_VERSION, "t": "draw", "rid": rid, "g": value})


def answer_text(rid: int, answer: str, why: str = "") -> str:
    """The game master's answer to request `rid` of one phone: waiting, applied, dismissed or refused (`why`)."""
    return _dumps({"v": LIVE_VERSION, "t": "ans", "rid": rid, "state": answer, "why": why[:200]})


def save_ask_text(ask: SaveAsk) -> str:
    return _dumps({"v": LIVE_VERSION, "t": "sask", "ask": ask.ask, "cid": ask.cid, "what": clean_text(ask.what)[:120],
                   "ability": ask.ability, "dc": ask.dc, "bonus": ask.bonus, "roll": ask.roll, "note": clean_text(ask.note)[:200],
                   "outcome": clean_text(ask.outcome)[:200]})


def _save_ask(doc: dict[str, Any]) -> SaveAsk:
    what, note, outcome, ability, roll = (doc.get(k, "") for k in ("what", "note", "outcome", "ability", "roll"))
    if not all(isinstance(x, str) for x in (what, note, outcome)) or ability not in ABILITIES \
            or roll not in SAVE_ROLLS:
        raise LiveError("a save asked without its ability or its dice")
    dc = _whole(doc.get("dc"), "save", 40)
    if dc < 1:
        raise LiveError("a save asked without its DC")
    return SaveAsk(ask=_whole(doc.get("ask"), "save", MAX_RID), cid=_ident(doc.get("cid"), "save"), what=clean_text(what)[:120],
                   ability=ability, dc=dc, bonus=_whole(doc.get("bonus"), "save", 40), roll=roll, note=clean_text(note)[:200],
                   outcome=clean_text(outcome)[:200])


def you_text(cid: str) -> str:
    return _dumps({"v": LIVE_VERSION, "t": "you", "cid": cid})


def _ident(value: Any, what: str, empty: bool = False) -> str:
    if not isinstance(value, str) or len(value) > 40 or (not value and not empty) or not set(value) <= ROOM_CHARS:
        raise LiveError(f"a {what} without a valid id")
    return value


def _whole(value: Any, what: str, limit: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or abs(value) > limit:
        raise LiveError(f"a {what} without a valid number")
    return int(value)


def _pcs(value: Any) -> dict[str, dict[str, Any]]:
    """A state's party members' own state, checked whole (pc_state's shape); raises LiveError."""
    if not isinstance(value, dict) or len(value) > 100:
        raise LiveError("a state with an unreadable party")
    out: dict[str, dict[str, Any]] = {}
    for vid, pc in value.items():
        if not isinstance(pc, dict):
            raise LiveError("a state with an unreadable party")
        hp, most, temp = (pc.get(k) for k in ("hp", "max", "temp"))
        for number in (hp, most, temp):
            if number is not None and (isinstance(number, bool) or not isinstance(number, int) or abs(number) > 10_000_000):
                raise LiveError("a state with an unreadable party")
        conds, saves, attacks = pc.get("cond", []), pc.get("ds"), pc.get("atk", [])
        if not isinstance(conds, list) or len(conds) > 50 or not isinstance(attacks, list) or len(attacks) > MAX_PC_ATTACKS:
            raise LiveError("a state with an unreadable party")
        if not all(isinstance(k, list) and len(k) == 2 and all(isinstance(x, str) for x in k) for k in conds) \
                or not all(isinstance(a, str) for a in attacks):
            raise LiveError("a state with an unreadable party")
        if saves is not None and not (isinstance(saves, list) and len(saves) == 3 and all(type(n) is int and 0 <= n <= 3 for n in saves[:2])
                                      and saves[2] in ("dying", "stable", "dead")):
            raise LiveError("a state with an unreadable party")
        label, down, more = pc.get("label", "HP"), pc.get("down", "At 0 HP" if hp is not None and hp <= 0 else ""), pc.get("more", [])
        if not isinstance(label, str) or not isinstance(down, str) or not isinstance(more, list) or len(more) > 10 \
                or not all(isinstance(g, list) and len(g) == 3 and isinstance(g[0], str)
                           and all(n is None or (type(n) is int and abs(n) <= 10_000_000) for n in g[1:]) for g in more):
            raise LiveError("a state with an unreadable party")
        init = pc.get("init", 0)
        if type(init) is not int or abs(init) > 1000:
            raise LiveError("a state with an unreadable party")
        out[_ident(vid, "state")] = {"hp": hp, "max": most, "temp": temp or 0, "init": init,
                                     "cond": [[clean_text(a)[:100], clean_text(b)[:100]] for a, b in conds],
                                     "ds": list(saves) if saves is not None else None, "atk": [clean_text(a)[:60] for a in attacks],
                                     "label": clean_text(label)[:20] or "HP", "down": clean_text(down)[:80],
                                     "more": [[clean_text(g[0])[:30], g[1], g[2]] for g in more]}
    return out


def _ids(doc: dict[str, Any]) -> tuple[tuple[tuple[str, str, str], ...], tuple[str, ...]]:
    ids, turn = doc.get("ids", []), doc.get("turn", [])
    if not isinstance(ids, list) or len(ids) > 500 or not isinstance(turn, list) or len(turn) > 500:
        raise LiveError("a state with unreadable ids")
    out = []
    for row in ids:
        if not isinstance(row, list) or len(row) != 3 or row[2] not in ("p", "o", "x") or not isinstance(row[1], str):
            raise LiveError("a state with unreadable ids")
        out.append((_ident(row[0], "state"), clean_text(row[1])[:200], row[2]))
    return tuple(out), tuple(_ident(t, "state") for t in turn)


def read_message(text: Any, expected: frozenset[str]) -> Incoming:
    """One message from another phone or window, checked whole; raises LiveError with what was wrong."""
    if not isinstance(text, str):
        raise LiveError("not text")
    if len(text) > MAX_MESSAGE:
        raise LiveError(f"too large ({len(text):,} characters)")
    try:
        check_json_depth(text, MAX_DEPTH, "message")
        doc = json.loads(text)
    except SchemaError as error:
        raise LiveError(f"too deep ({error})") from None
    except (ValueError, RecursionError):
        raise LiveError("not JSON") from None
    if not isinstance(doc, dict):
        raise LiveError("not a message")
    if doc.get("v") != LIVE_VERSION:
        raise LiveError("another version of Roundkeeper: reload both phones")
    kind = doc.get("t")
    if kind not in expected:
        raise LiveError(f"a {str(kind)[:20]!r} is not expected here")
    if kind in ("state", "beat"):
        revision = doc.get("rev")
        if isinstance(revision, bool) or not isinstance(revision, int) or not 0 <= revision < MAX_REVISION:
            raise LiveError(f"a {kind} without a valid revision")
        session = doc.get("ses", "")
        if not isinstance(session, str) or not SESSION.fullmatch(session):
            raise LiveError(f"a {kind} from an unreadable session")
        if kind == "beat":
            return Beat(revision=revision, session=session)
        try:
            view = check_view(doc.get("view"))
        except SchemaError as error:
            raise LiveError(f"an unreadable view ({error})") from None
        ids, turn = _ids(doc)
        return State(revision=revision, view=view, ids=ids, turn=turn, sender=_ident(doc.get("from", ""), "state", empty=True),
                     session=session, pcs=_pcs(doc.get("pcs", {})), fight=_ident(doc.get("fight", ""), "state", empty=True))
    if kind == "you":
        return You(cid=_ident(doc.get("cid"), "you", empty=True))
    if kind == "sask":
        return _save_ask(doc)
    return _asked(kind, doc)


def _rolled(kind: str, doc: dict[str, Any], rid: int) -> DeathSave | Roll | SaveRoll:
    """A death save, a save asked, or a roll at a target: verified (a commitment) or typed (a face, a total)."""
    if kind == "save":
        ask = _whole(doc.get("ask"), "save", MAX_RID)
        if "face" not in doc:
            return SaveRoll(ask=ask, commit=_commit(doc, "a save"), rid=rid)
        face = _whole(doc.get("face"), "save", 1000)
        if not 1 <= face <= 20:
            raise LiveError("a typed save is the d20 kept, from 1 to 20")
        return SaveRoll(ask=ask, face=face, rid=rid)
    if kind == "dsave":
        if "face" not in doc:
            return DeathSave(commit=_commit(doc, "a death save"), rid=rid)
        face = _whole(doc.get("face"), "death save", 20)
        if face < 1:
            raise LiveError("a typed death save is one d20, from 1 to 20")
        return DeathSave(face=face, rid=rid)
    expr, label = doc.get("expr"), doc.get("label", "")
    if not isinstance(expr, str) or not expr.strip() or len(expr) > 200 or not isinstance(label, str):
        raise LiveError("a roll without its dice")
    typed = "value" in doc
    return Roll(target=_ident(doc.get("target"), "roll"), expr=expr.strip(), label=clean_text(label)[:60],
                commit="" if typed else _commit(doc, "a roll"), value=_whole(doc.get("value"), "roll", MAX_ROLL) if typed else 0, rid=rid)


def _commit(doc: dict[str, Any], what: str) -> str:
    """A verified roll's commitment (pyengine.fair); a request that names its own dice (a seed, a face
    with no commitment) is refused: the dice come from both phones."""
    commit = doc.get("c")
    if not is_commitment(commit):
        raise LiveError(f"{what} without its commitment: the dice come from both phones (reload this phone's page)")
    return str(commit)


def _asked(kind: str, doc: dict[str, Any]) -> Incoming:
    """A follower's message (and the game master's answer to one), its fields checked."""
    if kind == "bye":
        return Bye()
    rid = _whole(doc.get("rid", 0), kind, MAX_RID)
    try:
        return _fields(kind, doc, rid)
    except LiveError as error:
        error.rid = rid
        raise


def _fields(kind: str, doc: dict[str, Any], rid: int) -> Incoming:
    if kind == "draw":
        value = doc.get("g")
        if not is_secret(value):
            raise LiveError("a draw without its value")
        return Drawn(rid=rid, value=str(value))
    if kind == "ans":
        answer, why = doc.get("state"), doc.get("why", "")
        if answer not in ANSWERS or not isinstance(why, str):
            raise LiveError("an answer without its state")
        return Answer(rid=rid, answer=answer, text=clean_text(why)[:200])
    if kind == "claim":
        return Claim(cid=_ident(doc.get("cid"), "claim"), rid=rid)
    if kind == "init":
        if "c" in doc:
            return Init(commit=_commit(doc, "a rolled initiative"), rid=rid)
        return Init(value=_whole(doc.get("value"), "initiative", 1000), rid=rid)
    if kind == "done":
        return Done(rid=rid)
    if kind == "atk":
        weapon, spell = doc.get("with", ""), doc.get("spell", "")
        if not isinstance(weapon, str) or not isinstance(spell, str):
            raise LiveError("an attack without its weapon")
        return Attack(target=_ident(doc.get("target"), "attack"), weapon=clean_text(weapon)[:60], commit=_commit(doc, "an attack"), rid=rid,
                      spell=clean_text(spell)[:60], slot=_whole(doc.get("slot", 0), "attack", 20) if spell else 0)
    if kind == "cast":
        spell, targets = doc.get("spell"), doc.get("targets")
        if not isinstance(spell, str) or not spell.strip() or not isinstance(targets, list) or not 1 <= len(targets) <= MAX_CAST_TARGETS:
            raise LiveError(f"a spell without its name or its targets (1 to {MAX_CAST_TARGETS})")
        return Cast(spell=clean_text(spell)[:60], slot=_whole(doc.get("slot"), "spell", 20), rid=rid,
                    targets=tuple(dict.fromkeys(_ident(t, "spell") for t in targets)))
    if kind == "show":
        secret = doc.get("s")
        if not is_secret(secret):
            raise LiveError("a roll shown without its secret (32 hex digits)")
        return Reveal(secret=str(secret), rid=rid)
    if kind == "heal":
        temp = doc.get("temp", False)
        if not isinstance(temp, bool):
            raise LiveError("a heal without its kind")
        value = _whole(doc.get("value"), "heal", MAX_ROLL)
        if value <= 0:
            raise LiveError("a heal of nothing")
        return Heal(value=value, temp=temp, rid=rid)
    if kind in ("dsave", "roll", "save"):
        return _rolled(kind, doc, rid)
    name, device = doc.get("name", ""), doc.get("device", "")
    if not isinstance(name, str):
        raise LiveError("a hello without a name")
    return Hello(name=clean_text(name)[:60], device=_ident(device, "hello", empty=True))
