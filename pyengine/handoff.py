"""What one phone hands another at the table: the players' read-only view of a fight.

The game master's phone shows a QR code; a player's phone opens it with the camera and sees the
round, whose turn it is and who is next, the party's HP, the opponents' state in words ("hurt",
"bloodied", "down") rather than numbers, and everyone's conditions. Nothing of it is saved on the
player's phone and nothing there can change the fight. The payload is the present only, in short
keys, compressed: small enough for a QR code a phone camera reads off another phone's screen.
(A co-GM who takes the fight over gets the whole present state: `storage`'s share link.)
"""

from __future__ import annotations

import hashlib
from typing import Any

from .errors import SchemaError
from .model import HIDDEN_FLAG, MAX_COMBATANTS, UNKNOWN_FLAG, Combatant, Encounter
from .rules import System, system_of
from .storage import pack, unpack
from .text import clean_text
from .turns import active_unit, surprised, turn_units, unit_name, unit_skipped

__all__ = ["VIEW_VERSION", "health_word", "table_view", "view_payload", "read_view", "check_view", "WORDS",
           "HIDDEN", "UNKNOWN", "UNKNOWN_NAME", "PLAYERS_HP", "shown_to_players", "players_ids", "view_id", "fight_id", "fight_salt", "fight_token", "players_id", "pc_state",
           "players_name", "is_word", "SURPRISED"]

VIEW_VERSION = 1
# An opponent's state as the players see it, in its system's words (System.players_health): HP's, and
# Laurels and Loot's Stamina and Injuries; parts joined by ", " ("out of Stamina, badly injured").
WORDS = ("unhurt", "hurt", "bloodied", "down", "", "tiring", "out of Stamina", "injured", "badly injured", "out of the fight")
SURPRISED = "surprised (round 1)"  # a chip on the row of who an ambush holds back (side initiative)
MAX_PAYLOAD = 20_000
# What the players may see is the game master's call: flags on a combatant (the core "flag" action,
# undoable) and one option of the encounter.
HIDDEN = HIDDEN_FLAG        # not shown to the players at all until revealed (an ambush, reinforcements)
UNKNOWN = UNKNOWN_FLAG      # shown, but its name kept as UNKNOWN_NAME
UNKNOWN_NAME = "Unknown creature"
PLAYERS_HP = "players_hp"    # option: "words" (default: opponents' HP as unhurt/hurt/bloodied/down) or "numbers"
PLAYERS_HP_VALUES = ("words", "numbers")


def shown_to_players(c: Combatant) -> bool:
    return HIDDEN not in c.flags


def view_id(salt: str, cid: str) -> str:
    """The id the players' view gives a combatant: a keyed hash of the fight's id, so the view's ids
    tell nothing (the fight's c1, c2, c3, c5 told that c4 was hidden), stay the same while the table
    is live (the key is the table's secret: across the game master's reload too), and are read back
    only by the game master's phone (`fight_id`)."""
    return "v" + hashlib.sha256(f"{salt}:{cid}".encode()).hexdigest()[:12]


def fight_salt(salt: str, enc: Encounter) -> str:
    """The key of one fight's view ids: the table's secret and the encounter's id. Combatant ids are
    per encounter (c1, c2 …), so a view id names one combatant of one fight: what a phone claimed or
    targeted in another encounter names nobody in this one (issue 53)."""
    return f"{salt}/{enc.id}"


def fight_token(salt: str, enc: Encounter) -> str:
    """Which fight a state is of, as the players' phones see it: a keyed hash (the same fight, the same
    token; another fight, another; nothing told of the encounter)."""
    return view_id(fight_salt(salt, enc), "")


def fight_id(enc: Encounter, salt: str, vid: str) -> str | None:
    """The fight's id of a view id a player's phone sent (None: nobody the players may see)."""
    key = fight_salt(salt, enc)
    return next((c.id for c in enc.combatants if shown_to_players(c) and view_id(key, c.id) == vid), None)


def players_id(enc: Encounter, salt: str, cid: str) -> str:
    """The view id of this fight's combatant `cid`."""
    return view_id(fight_salt(salt, enc), cid)


def players_ids(enc: Encounter, salt: str = "") -> tuple[list[list[str]], list[str]]:
    """([view id, name as the players see it, "p"/"o"/"x"] of who the players may see ("x": an entry
    of the order that is no creature, the lair: never a target), the view ids of whose turn it is):
    what a player claims and targets by at the live table."""
    system = system_of(enc)
    salt = fight_salt(salt, enc)
    ids = [[view_id(salt, c.id), players_name(c), "x" if not system.is_creature(c) else "p" if c.side == "party" else "o"]
           for c in enc.combatants if shown_to_players(c)]
    turn = [view_id(salt, c.id) for c in active_unit(enc) if shown_to_players(c)] if enc.started else []
    return ids, turn


def pc_state(enc: Encounter, salt: str = "") -> dict[str, dict[str, Any]]:
    """Each party member's own state as its player's phone shows it (pyengine/live.py's `pcs`): exact
    HP with temporary HP, conditions with what remains of them (a hidden creature named as none),
    death saves while at 0 HP (the systems that count them), its attacks' names and its initiative
    modifier (its phone rolls its initiative with it); what its system
    calls HP ("label": Stamina, Body), why the system counts it down ("" while it is not), and the rest of its own state
    as the system keeps it ("more": System.own_gauges, Laurels' Injuries); "surprised (round 1)" while an
    ambush holds it back. The party's own, so nothing here is the game master's to hide."""
    salt = fight_salt(salt, enc)
    system = system_of(enc)
    shown = {c.id: players_name(c) for c in enc.combatants if shown_to_players(c)}
    out: dict[str, dict[str, Any]] = {}
    for c in enc.combatants:
        if c.side != "party" or not shown_to_players(c):
            continue
        saves = None
        if c.pc and c.hp is not None and c.hp <= 0 and "death_save" in system.actions:
            state = "dead" if c.stat("dead") else "stable" if c.stat("stable") else "dying"
            saves = [int(c.stat_or("death_successes", 0) or 0), int(c.stat_or("death_failures", 0) or 0), state]
        out[view_id(salt, c.id)] = {
            "hp": c.hp, "max": c.max_hp, "temp": c.temp_hp,
            "cond": [[k.name, k.duration.describe({**shown, c.id: c.name}) if k.duration.anchor_id in shown or k.duration.event == "never"
                      else "until a creature's turn"] for k in c.conditions][:49]
            + ([[SURPRISED, "no turn and no attack this round"]] if surprised(enc, system, c) else []),
            "ds": saves, "atk": [a.name for a in c.attacks][:20], "init": c.init_mod,
            "label": system.hp_label, "down": system.down_words(c), "more": system.own_gauges(c)[:10]}
    return out


def players_name(c: Combatant) -> str:
    """A combatant's name as the players may know it (UNKNOWN_NAME for one kept unknown)."""
    return UNKNOWN_NAME if UNKNOWN in c.flags else c.name


def _players_unit_name(unit: tuple[Combatant, ...]) -> str:
    """A unit's name as the players may know it ("" when none of it is shown)."""
    shown = [c for c in unit if shown_to_players(c)]
    if not shown:
        return ""
    if any(UNKNOWN in c.flags for c in shown):
        return UNKNOWN_NAME if len(shown) == 1 else f"{UNKNOWN_NAME} ×{len(shown)}"
    return unit_name(shown)


def health_word(c: Combatant, system: System) -> str:
    """An opponent's state for the players, in its system's words (System.players_health)."""
    return system.players_health(c)


def is_word(text: Any) -> bool:
    """A state word as the players' view carries it: WORDS, or a few of them joined by ", "."""
    return isinstance(text, str) and len(text) <= 100 and all(part in WORDS for part in text.split(", "))


def _next_unit(enc: Encounter, system: System) -> tuple[Combatant, ...]:
    """Who acts after the active unit in an initiative order (skipping who the turn would skip);
    none when the table chooses (side initiative) or the fight has not started."""
    if not enc.started or not system.flow.ordered_by_initiative:
        return ()
    units = turn_units(enc)
    at = next((i for i, u in enumerate(units) if any(c.id == enc.active_id for c in u)), None)
    if at is None:
        return ()
    for step in range(1, len(units) + 1):
        unit = units[(at + step) % len(units)]
        if not unit_skipped(enc, system, unit) and any(shown_to_players(c) for c in unit):
            return unit  # the next the players may see (a hidden one's turn is no one's to them)
    return ()


def table_view(enc: Encounter) -> dict[str, Any]:
    """The fight as the players may see it. Rows: [name, side ("p" party / "o" opponents), HP, max HP
    (the party's, or everyone's when the game master shows numbers; else None), state word
    (opponents), conditions, "now" / "next" / ""]. A hidden combatant is in no part of it (not its
    row, not its name as now or next); an unknown one is named UNKNOWN_NAME."""
    system = system_of(enc)
    active = tuple(active_unit(enc)) if enc.started else ()
    now = {c.id for c in active}
    after = _next_unit(enc, system)
    nxt = {c.id for c in after}
    numbers = dict(enc.options).get(PLAYERS_HP) == "numbers"
    rows = []
    for c in enc.combatants:
        if not shown_to_players(c):
            continue
        party = c.side == "party"
        rows.append([
            players_name(c), "p" if party else "o",
            c.hp if party or numbers else None, c.max_hp if party or numbers else None,
            "" if party else health_word(c, system),
            [k.name for k in c.conditions] + ([SURPRISED] if surprised(enc, system, c) else [])
            + ([system.players_chip(c)] if party and system.players_chip(c) else []),
            "now" if c.id in now else "next" if c.id in nxt else "",
        ])
    return {"v": VIEW_VERSION, "name": enc.name, "system": enc.system, "round": enc.round if enc.started else 0,
            "now": _players_unit_name(active) if enc.started and enc.active_id else "",
            "next": _players_unit_name(after) if after else "", "rows": rows}


def view_payload(enc: Encounter) -> str:
    return pack(table_view(enc))


def _text(value: Any, limit: int) -> str:
    if not isinstance(value, str):
        raise SchemaError("The view is unreadable.")
    return clean_text(value)[:limit]


def _int_or_none(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or abs(value) > 10_000_000:
        raise SchemaError("The view is unreadable.")
    return int(value)


def read_view(payload: str) -> dict[str, Any]:
    """A players' view from a link's fragment, fully checked; raises SchemaError."""
    return check_view(unpack(payload, "the link's view of a fight", MAX_PAYLOAD, 500_000))


def check_view(doc: Any) -> dict[str, Any]:
    """A players' view as another phone sent it (a link, a live message), fully checked and its texts
    cleaned; raises SchemaError."""
    if not isinstance(doc, dict) or doc.get("v") != VIEW_VERSION:
        raise SchemaError("This view was made by another version of Roundkeeper: reload both phones.")
    rows = doc.get("rows")
    if not isinstance(rows, list) or len(rows) > MAX_COMBATANTS:
        raise SchemaError("The view is unreadable.")
    out_rows = []
    for row in rows:
        if not isinstance(row, list) or len(row) != 7 or row[1] not in ("p", "o") or not is_word(row[4]) \
                or row[6] not in ("now", "next", "") or not isinstance(row[5], list) or len(row[5]) > 50:
            raise SchemaError("The view is unreadable.")
        out_rows.append([_text(row[0], 200), row[1], _int_or_none(row[2]), _int_or_none(row[3]), row[4],
                         [_text(k, 100) for k in row[5]], row[6]])
    return {"v": VIEW_VERSION, "name": _text(doc.get("name", ""), 200), "system": _text(doc.get("system", ""), 40),
            "round": _int_or_none(doc.get("round")) or 0, "now": _text(doc.get("now", ""), 500),
            "next": _text(doc.get("next", ""), 500), "rows": out_rows}
