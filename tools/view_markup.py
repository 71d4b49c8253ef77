"""The markup a page may show before its engine runs (issue 51, item 7), made at build time (never
shipped). The start-up preview of the turn order (static/boot.js) and a player's or the table
display's early view (static/early.mjs) are HTML that any page of this origin could have written,
so they pass an allow-list. This module makes that list from the renderers themselves: sample
fights of every system, played step by step through the states the renderers draw (whose turn,
down, dying, hidden and unknown, surprised, conditions, turn tools, a lair, temporary HP, numbers or words for
players), each step drawn by `render.tracker_html` and `html.view_body_html`; what they wrote (class
names, data attributes, and the values of data-testid and data-action) is the list. build.py writes
it into boot.js; nothing else passes."""

from __future__ import annotations

import random
from html.parser import HTMLParser
from typing import Any

from pyengine.handoff import table_view
from pyengine.rules import get_system
from pyengine.systems import BUILTIN
from pyengine.tracker import Action, Timeline, new_encounter, resolve
from web.app.html import view_body_html
from web.app.render import tracker_html

__all__ = ["allowed_markup", "samples"]

# What a table does, by name (`@Name`); each system's fighters first (the stats its rows show).
FIGHTERS: dict[str, list[dict[str, Any]]] = {
    "generic": [{"name": "Hero", "side": "party", "pc": True, "init_mod": 3, "max_hp": 20, "stats": {"ac": 15}},
                {"name": "Foe", "side": "opponents", "init_mod": 1, "max_hp": 15, "stats": {"ac": 12}},
                {"name": "Lair", "side": "opponents", "initiative": 20, "stats": {"lair": True}}],
    "realms": [{"name": "Hero", "side": "party", "pc": True, "init_mod": 2, "max_hp": 12, "stats": {"ac": 14, "skills": "melee fighting"}},
               {"name": "Foe", "side": "opponents", "max_hp": 30, "stats": {"ac": 12, "skills": "melee fighting"}}],
    "strife": [{"name": "Hero", "side": "party", "pc": True, "init_mod": 60, "max_hp": 30,
                "stats": {"ac": 35, "weapon": "1d8+2", "vigor_max": 10, "fury": 9, "honor_max": 3, "spirit_max": 8}},
               {"name": "Foe", "side": "opponents", "init_mod": 55, "max_hp": 25, "stats": {"ac": 40, "weapon": "1d10"}}],
    "laurels": [{"name": "Hero", "side": "party", "pc": True, "max_hp": 55, "stats": {"level": 9, "str": 8, "die": 6, "injury_max": 20}},
                {"name": "Foe", "side": "opponents", "max_hp": 68, "stats": {"level": 12, "str": 9, "die": 6, "injury_max": 30}}],
}
STEPS: list[tuple[str, dict[str, Any]]] = [
    ("add_combatant", {"combatant": {"name": "Goblin", "side": "opponents", "max_hp": 7}, "count": 2}),
    ("add_combatant", {"combatant": {"name": "Wraith", "side": "opponents", "max_hp": 9}}),
    ("add_combatant", {"combatant": {"name": "Shade", "side": "opponents", "max_hp": 9}}),
    ("set_flag", {"id": "@Wraith", "flag": "hidden", "on": True}),
    ("set_flag", {"id": "@Shade", "flag": "unknown", "on": True}),
    ("start_combat", {}),
    ("temp_hp", {"id": "@Hero", "amount": 4}),
    ("add_condition", {"id": "@Foe", "name": "Prone", "until": "rounds", "rounds": 2, "anchor": "@Hero"}),
    ("add_condition", {"id": "@Hero", "name": "Concentrating", "until": "never"}),
    ("add_tool", {"id": "@Foe", "tool": {"kind": "recharge", "name": "Breath", "low": 5}}),
    ("add_tool", {"id": "@Foe", "tool": {"kind": "legendary", "most": 3}}),
    ("add_tool", {"id": "@Foe", "tool": {"kind": "uses", "name": "Roar", "most": 2}}),
    ("use_tool", {"id": "@Foe", "tool": "%Breath"}),
    ("use_tool", {"id": "@Foe", "tool": "%Roar", "count": 2}),
    # A failed save's condition that ends on a repeated save (the reminder under "Now:" on its turn).
    ("d20_save", {"effect": {"name": "Glare", "ability": "wis", "dc": 12, "condition": "Frightened", "rounds": 10, "repeat": True},
                  "targets": [{"id": "@Foe", "d20": 1}]}),
    ("turn of", {"id": "@Foe"}),  # (its turn: the recharge roll and the tools under "Now:")
    ("damage", {"id": "@Foe", "amount": 8}),
    ("next_turn", {}),
    ("damage", {"id": "@Goblin 1", "amount": 99}),
    ("damage", {"id": "@Hero", "amount": 90}),
    ("next_turn", {}),
    ("set_option", {"key": "players_hp", "value": "numbers"}),
    # Enchanted Realms' badges (other systems refuse these steps and go on)
    ("er_stance", {"id": "@Hero", "stance": "defend"}),
    ("er_stance", {"id": "@Foe", "stance": "ready", "trigger": "if it moves"}),
    ("set_flag", {"id": "@Hero", "flag": "reaction_used", "on": True}),
    ("add_condition", {"id": "@Hero", "name": "Grappled", "until": "never"}),
    ("add_condition", {"id": "@Foe", "name": "Restrained", "until": "never"}),
    ("update_combatant", {"id": "@Foe", "fields": {"stats": {"award_round": 2}}}),
    ("next_turn", {}),
    ("end_combat", {}),
]


def _ids(t: Timeline, value: Any) -> Any:
    """`@Name`: that combatant's id; `%Name`: that turn tool's."""
    if isinstance(value, str) and value.startswith("@"):
        return next((c.id for c in t.present.combatants if c.name == value[1:]), value)
    if isinstance(value, str) and value.startswith("%"):
        return next((x.id for c in t.present.combatants for x in c.tools if x.name == value[1:]), value)
    if isinstance(value, dict):
        return {k: _ids(t, v) for k, v in value.items()}
    if isinstance(value, list):
        return [_ids(t, v) for v in value]
    return value


def _step(t: Timeline, kind: str, args: dict[str, Any], rng: random.Random) -> Timeline | None:
    """The step done, on the first turn (from now, one round at most) where the rules allow it; None if none."""
    if kind == "turn of":  # (its next turn, from the one after this)
        for _ in range(2 * len(t.present.combatants)):
            if not t.present.started:
                return t
            t = t.do(resolve(t.present, "next_turn", {}, rng))
            if t.present.active_id == _ids(t, args["id"]):
                return t
        return t
    tried = t
    for _ in range(len(t.present.combatants) + 1):
        try:
            return tried.do(resolve(tried.present, kind, _ids(tried, args), rng))
        except Exception:  # noqa: BLE001 - refused now: perhaps on another's turn
            if not tried.present.started:
                return None
            tried = tried.do(resolve(tried.present, "next_turn", {}, rng))
    return None


def samples() -> list[str]:
    """The turn order and the players' view of every step of every system's sample fight, as drawn."""
    out: list[str] = []
    for system in (s.name for s in BUILTIN):
        rng = random.Random(1)
        t = Timeline.start(new_encounter("e1", "Sample", system=system))
        out.append(tracker_html(t))  # (no one yet)
        for fields in FIGHTERS.get(system, FIGHTERS["generic"][:2]):
            t = t.do(resolve(t.present, "add_combatant", {"combatant": fields}, rng))
        if not get_system(system).flow.ordered_by_initiative:  # side initiative: d6 1, the party surprised in round 1
            ambushed = t.do(Action("start_combat", {"side_roll": 1, "ambush": "none"}))
            out += [tracker_html(ambushed), view_body_html(table_view(ambushed.present))]
        for kind, args in STEPS:
            done = _step(t, kind, args, rng)
            if done is None:
                continue  # a step this system's rules refuse: its other states are drawn
            t = done
            out.append(tracker_html(t))
            out.append(view_body_html(table_view(t.present)))
    return out


class _Markup(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.classes: set[str] = set()
        self.data: set[str] = set()
        self.testids: set[str] = set()
        self.actions: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name == "class":
                self.classes.update((value or "").split())
            elif name.startswith("data-"):
                self.data.add(name)
                if name == "data-testid":
                    self.testids.add(value or "")
                elif name == "data-action":
                    self.actions.add(value or "")


def allowed_markup() -> dict[str, list[str]]:
    """{"classes", "data", "testids", "actions"}: what the renderers wrote in `samples()`, sorted."""
    found = _Markup()
    for html in samples():
        found.feed(html)
    return {"classes": sorted(found.classes), "data": sorted(found.data), "testids": sorted(found.testids),
            "actions": sorted(found.actions)}
