"""Scripted fights, one per registered game system: the same requests a table makes (add, start,
turns, every action kind the system declares, undo, redo), played with a seeded RNG.

The contract test plays them against the engine as it is now; the saved-fight fixtures under
tests/unit/fixtures/fight-<system>.json were written from them once, and are replayed by the tests,
so a later change that breaks an old save fails. Requests name combatants by name (`@Name`), so a
script reads like the table's evening.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from pyengine.tracker import Timeline, new_encounter, resolve

Request = tuple[str, dict]


def _ids(t: Timeline, value: Any) -> Any:
    """Replace `@Name` by that combatant's id, `%Name` by that turn tool's, `&Name` by the id of that
    combatant's latest condition (in strings, lists and dicts)."""
    if isinstance(value, str) and value.startswith("@"):
        return next(c.id for c in t.present.combatants if c.name == value[1:])
    if isinstance(value, str) and value.startswith("%"):
        return next(x.id for c in t.present.combatants for x in c.tools if x.name == value[1:])
    if isinstance(value, str) and value.startswith("&"):  # that combatant's latest condition
        return next(c.conditions[-1].id for c in t.present.combatants if c.name == value[1:])
    if isinstance(value, list):
        return [_ids(t, v) for v in value]
    if isinstance(value, dict):
        return {k: _ids(t, v) for k, v in value.items()}
    return value


def play(system: str, requests: list[Request], seed: int = 7) -> Timeline:
    """Play the requests in order; `undo` and `redo` are the timeline's own."""
    rng = random.Random(seed)
    t = Timeline.start(new_encounter("e1", f"{system} fight", system=system))
    for kind, args in requests:
        if kind == "undo":
            t = t.undo()
        elif kind == "redo":
            t = t.redo()
        else:
            t = t.do(resolve(t.present, kind, _ids(t, args), rng))
    return t


def _add(name: str, count: int = 1, **fields: Any) -> Request:
    return ("add_combatant", {"combatant": {"name": name, **fields}, **({"count": count} if count > 1 else {})})


COMMON: list[Request] = [  # what every system's table does, after the system's own roster
    ("start_combat", {}),
    ("next_turn", {}),
    ("damage", {"id": "@Foe", "amount": 3}),
    ("heal", {"id": "@Foe", "amount": 1}),
    ("temp_hp", {"id": "@Hero", "amount": 4}),
    ("add_condition", {"id": "@Foe", "name": "Prone", "until": "rounds", "rounds": 2, "anchor": "@Hero"}),
    ("set_flag", {"id": "@Hero", "flag": "inspired", "on": True}),
    ("update_combatant", {"id": "@Hero", "fields": {"notes": "keeps the torch"}}),
    ("rename", {"name": "At the bridge"}),
    ("set_option", {"key": "skip_down", "value": "all"}),
    ("undo", {}),
    ("redo", {}),
    ("next_turn", {}),
    ("next_turn", {}),
    _add("Straggler", side="opponents", max_hp=5),
    ("next_turn", {}),
    ("remove_combatant", {"id": "@Straggler"}),
]

GENERIC: list[Request] = [
    _add("Hero", side="party", pc=True, init_mod=3, max_hp=20),
    _add("Foe", side="opponents", init_mod=1, max_hp=15),
    _add("Goblin", side="opponents", init_mod=2, max_hp=7, count=2),
    *COMMON,
    ("set_initiative", {"id": "@Foe", "value": 25}),
    ("delay", {"id": "@Hero", "after": "@Goblin 2"}),
    ("previous_turn", {}),
    ("next_turn", {}),
    ("end_combat", {}),
    # added with death saves, concentration and the several-at-once batch (fixture fight-generic-2)
    ("add_condition", {"id": "@Foe", "name": "Concentrating", "until": "never"}),
    ("damage", {"id": "@Hero", "amount": 40}),
    ("death_save", {"id": "@Hero"}),
    ("death_save", {"id": "@Hero", "result": "failure"}),
    ("damage", {"id": "@Hero", "amount": 2}),
    ("heal", {"id": "@Hero", "amount": 5}),
    ("batch", {"actions": [{"kind": "damage", "args": {"id": "@Foe", "amount": 24}},
                           {"kind": "damage", "args": {"id": "@Goblin 1", "amount": 12, "half": True}},
                           {"kind": "add_condition", "args": {"id": "@Goblin 2", "name": "Prone", "until": "never"}}]}),
    ("undo", {}),
    ("redo", {}),
    # added with the d20 attack (fixture fight-generic-3)
    _add("Ogre", side="opponents", max_hp=30, stats={"ac": 11}),
    ("d20_attack", {"attacker": "@Hero", "target": "@Ogre", "adv": "adv", "cover": "half"}),
    ("d20_attack", {"attacker": "@Foe", "target": "@Ogre", "modifier": "2"}),
    # added with the turn tools and the lair (fixture fight-generic-4)
    _add("Lair", side="opponents", initiative=20, stats={"lair": True}),
    ("add_tool", {"id": "@Ogre", "tool": {"kind": "recharge", "name": "Breath", "low": 5}}),
    ("add_tool", {"id": "@Ogre", "tool": {"kind": "regeneration", "amount": "3"}}),
    ("add_tool", {"id": "@Ogre", "tool": {"kind": "ongoing", "name": "Burning", "amount": "1d6", "when": "end"}}),
    ("add_tool", {"id": "@Foe", "tool": {"kind": "legendary", "most": 3}}),
    ("add_tool", {"id": "@Hero", "tool": {"kind": "uses", "name": "Second Wind", "most": 2}}),
    ("start_combat", {}),
    ("use_tool", {"id": "@Ogre", "tool": "%Breath"}),
    ("use_tool", {"id": "@Foe", "tool": "%Legendary actions", "count": 2}),
    ("recharge_tool", {"id": "@Ogre", "tool": "%Breath"}),
    ("tool_acts", {"id": "@Ogre", "tool": "%Burning"}),
    ("set_tool", {"id": "@Ogre", "tool": "%Regeneration", "paused": True}),
    ("use_tool", {"id": "@Hero", "tool": "%Second Wind"}),
    ("set_tool", {"id": "@Hero", "tool": "%Second Wind", "left": 2}),
    ("next_turn", {}),
    ("next_turn", {}),
    ("next_turn", {}),
    ("tool_acts", {"id": "@Ogre", "tool": "%Regeneration"}),
    ("remove_tool", {"id": "@Ogre", "tool": "%Burning"}),
    ("undo", {}),
    ("redo", {}),
    # added with saving throws, areas, instant death and monsters at 0 HP (fixture fight-generic-5)
    _add("Dragon", side="opponents", max_hp=178, stats={"save_dex": 4, "save_con": 9},
         save_actions=[{"name": "Fire Breath", "ability": "dex", "dc": 17, "success": "half", "damage": "16d6 fire"}]),
    ("d20_save", {"source": "@Dragon", "effect": {"name": "Fire Breath", "ability": "dex", "dc": 17, "success": "half", "damage": "16d6 fire"},
                  "targets": [{"id": "@Goblin 2"}, {"id": "@Ogre", "cover": "half"}, {"id": "@Hero", "d20": 15}]}),
    ("d20_save", {"effect": {"name": "Glare", "ability": "wis", "dc": 12, "condition": "Frightened", "rounds": 10, "repeat": True},
                  "targets": [{"id": "@Foe", "d20": 2}]}),
    ("repeat_save", {"id": "@Foe", "condition": "&Foe"}),
    ("set_option", {"key": "monsters_at_0", "value": "dying"}),
    ("damage", {"id": "@Dragon", "amount": 178}),
    ("death_save", {"id": "@Dragon"}),
    ("undo", {}),
    ("redo", {}),
]

LAURELS: list[Request] = [
    _add("Hero", side="party", pc=True, max_hp=55,
         stats={"level": 9, "str": 8, "dex": 5, "armour": 3, "die": 6, "magic": 2, "injury_max": 20}),
    _add("Cedryk", side="party", pc=True, max_hp=20, stats={"level": 3, "dex": 4, "awa": 4, "die": 4, "finesse": True, "injury_max": 12}),
    _add("Foe", side="opponents", max_hp=68, stats={"level": 12, "str": 9, "dex": 3, "armour": 1, "die": 6, "injury_max": 30}),
    _add("Half-orc", side="opponents", max_hp=20, stats={"level": 2, "dex": 1, "armour": 3, "die": 6, "injury_max": 8}),
    ("set_option", {"key": "ambush", "value": "none"}),
    *COMMON,
    ("ll_attack", {"attacker": "@Hero", "target": "@Half-orc", "power": True}),
    ("ll_parry", {"id": "@Cedryk", "with": "weapon"}),
    ("ll_attack", {"attacker": "@Foe", "target": "@Cedryk"}),
    ("act_now", {"id": "@Cedryk"}),
    ("next_turn", {}),
    ("next_turn", {}),
    ("end_combat", {}),
]

REALMS: list[Request] = [
    _add("Hero", side="party", pc=True, init_mod=2, max_hp=12,
         stats={"ac": 14, "str": 2, "weight": 1, "skills": "melee fighting, slashing", "damage_type": "edged", "body_mod": 2}),
    _add("Bryn", side="party", pc=True, init_mod=1, max_hp=9,
         stats={"ac": 12, "agi": 3, "str": 1, "skills": "ranged fighting", "damage_type": "piercing", "ranged": True, "speed": 40,
                "polearm": True}),
    _add("Foe", side="opponents", init_mod=0, max_hp=30,
         stats={"ac": 12, "ac_types": "blunt 14", "skills": "melee fighting", "resistant": "edged", "damage_type": "necrotic"}),
    _add("Bat", side="opponents", init_mod=3, max_hp=3, stats={"ac": 10, "skills": "melee fighting", "size": 1}),
    *COMMON,
    ("er_stance", {"id": "@Hero", "stance": "defend"}),
    ("er_attack", {"attacker": "@Foe", "target": "@Hero"}),
    ("er_save", {"id": "@Bryn", "kind": "body", "modifier": 1, "dc": 12}),
    ("er_competition", {"aggressor": "@Hero", "victim": "@Bat", "kind": "grapple"}),
    ("er_chase", {"id": "@Bryn"}),
    ("er_defense", {"monster": "@Foe", "pc": "@Hero"}),
    ("er_impale", {"holder": "@Bryn", "charger": "@Foe"}),
    ("er_blind_shot", {"attacker": "@Bryn", "target": "@Bat", "faces": [18, 5]}),
    ("next_turn", {}),
    ("er_stance", {"id": "@Foe", "stance": "ready", "trigger": "if the bat moves, bite"}),
    ("end_combat", {}),
    # (issue 52: added at the end, so the saves written before replay as they were)
    ("er_area", {"name": "Rockfall", "dc": 13, "damage": "1d6", "success": "half",
                 "targets": [{"id": "@Hero", "cover": "half"}, {"id": "@Foe"}, {"id": "@Bat", "adv": True}]}),
]

STRIFE: list[Request] = [
    _add("Hero", side="party", pc=True, init_mod=60, max_hp=30,
         stats={"ac": 35, "crit": 10, "hit": 5, "parry": 20, "weapon": "1d8+2", "offhand": "1d4", "dual_skill": True,
                "vigor_max": 10, "fury": 9, "honor_max": 3, "stacks": 2, "spirit_max": 8, "stealth": 4}),
    _add("Mira", side="party", pc=True, init_mod=50, max_hp=20,
         stats={"ac": 25, "resist": 30, "spirit_hit": 10, "spirit_crit": 15, "power": "2d6", "stealth": 6}),
    _add("Foe", side="opponents", init_mod=55, max_hp=25, stats={"ac": 40, "parry": 35, "weapon": "1d10", "ward_off": True}),
    _add("Goblin", side="opponents", init_mod=20, max_hp=12, stats={"ac": 20, "weapon": "1d6"}),
    *COMMON,
    ("ros_resource", {"id": "@Hero", "key": "vigor", "delta": 4}),
    ("ros_resource", {"id": "@Hero", "key": "vigor", "delta": -3}),
    ("ros_attack", {"attacker": "@Hero", "target": "@Goblin"}),
    ("ros_part", {"id": "@Hero", "part": "move"}),
    ("ros_part", {"id": "@Hero", "part": "action"}),
    ("ros_bottom", {"id": "@Foe"}),
    ("end_combat", {}),
    # added with the turn tools: a faith power, once a day (fixture fight-strife-2)
    ("add_tool", {"id": "@Mira", "tool": {"kind": "uses", "name": "Prayer of Faith"}}),
    ("use_tool", {"id": "@Mira", "tool": "%Prayer of Faith"}),
    # issue 52: a power on several targets with one hit roll, on Mira's turn (fixture fight-strife-3)
    ("start_combat", {}),
    ("next_turn", {}),
    ("next_turn", {}),
    ("ros_power", {"attacker": "@Mira", "targets": ["@Foe", "@Goblin"], "bonus": 3}),
]

FIGHTS: dict[str, list[Request]] = {"generic": GENERIC, "laurels": LAURELS, "realms": REALMS, "strife": STRIFE}


FIXTURES = Path(__file__).parent / "unit" / "fixtures"


def fixture_files(system: str) -> list[tuple[str, str]]:
    """Each saved fight of the system and what replaying it gives, oldest first: fight-<system>.json,
    then fight-<system>-2.json ... each written when the script had grown (a prefix of today's)."""
    saved = sorted((p.name for p in FIXTURES.glob(f"fight-{system}*.json") if not p.name.endswith(".expected.json")
                    and (p.stem == f"fight-{system}" or p.stem.removeprefix(f"fight-{system}-").isdigit())),
                   key=lambda name: int(name.removesuffix(".json").rpartition("-")[2]) if name.count("-") > 1 else 1)
    return [(name, name.removesuffix(".json") + ".expected.json") for name in saved]


def replayed(t: Timeline) -> dict:
    """What a replayed save must give: the state now, and the log the table saw."""
    from pyengine.storage import encounter_to_dict

    return {"present": encounter_to_dict(t.present), "log": [[e.kind, e.round, e.text, e.roll, e.who] for e in t.log()]}


def write_fixtures() -> None:  # pragma: no cover - run by hand when a script grows: python3 -m tests.fights
    """A fixture is written once (it is what that version saved); a longer script adds a new one."""
    import json

    from pyengine.storage import dumps, loads, timeline_to_dict

    for system, requests in FIGHTS.items():
        t = play(system, requests)
        known = fixture_files(system)
        if known and len(loads((FIXTURES / known[-1][0]).read_text())["actions"]) >= len(t.actions):
            continue
        stem = f"fight-{system}" if not known else f"fight-{system}-{len(known) + 1}"
        (FIXTURES / f"{stem}.json").write_text(dumps(timeline_to_dict(t)) + "\n")
        (FIXTURES / f"{stem}.expected.json").write_text(json.dumps(replayed(t), indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":  # pragma: no cover
    write_fixtures()
