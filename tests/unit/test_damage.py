"""pyengine/damage.py: the one path by which hit points change. Every system's attack goes through
it: temporary HP first, the floor, the "down" event and the system's own reaction to damage."""

from __future__ import annotations

import ast
from dataclasses import replace
from pathlib import Path

import pytest

from pyengine import damage
from pyengine.model import Action, Combatant, Encounter
from pyengine.rules import get_system, systems
from pyengine.tracker import Timeline, apply_action, new_encounter, resolve
from tests.fights import FIGHTS, play

ENGINE = Path(__file__).resolve().parents[2] / "pyengine"
SYSTEMS = sorted(s.name for s in systems())
# The add/edit form sets hit points as typed: the game master's word, not damage or healing.
EDITS = {"add_combatant", "update_combatant"}


def realms_fight(temp_hp: int) -> Encounter:
    enc = new_encounter("e1", system="realms")
    enc = replace(enc, combatants=(
        Combatant(id="c1", name="Orc", side="opponents", hp=12, max_hp=12),
        Combatant(id="c2", name="Ayla", side="party", pc=True, hp=10, max_hp=10, temp_hp=temp_hp),
    ), seq=2)
    return enc


def test_an_enchanted_realms_attack_takes_temporary_hp_first():
    """The bug the issue found: 10 HP and 5 temporary HP, an er_attack of 1 left 9 HP and 5 temporary."""
    after, events = apply_action(realms_fight(5), Action("er_attack", {"attacker": "c1", "target": "c2", "damage": 1}))
    ayla = after.get("c2")
    assert (ayla.hp, ayla.temp_hp) == (10, 4)
    assert "1 to temporary HP" in events[0].text


def test_an_enchanted_realms_attack_past_temporary_hp_drops_the_target():
    after, events = apply_action(realms_fight(5), Action("er_attack", {"attacker": "c1", "target": "c2", "damage": 20}))
    assert (after.get("c2").hp, after.get("c2").temp_hp) == (0, 0)
    assert [e.kind for e in events] == ["attack", "down"]


def test_an_absorbed_enchanted_realms_attack_heals_up_to_the_maximum():
    hurt = replace(realms_fight(0), combatants=tuple(replace(c, hp=4) if c.id == "c2" else c for c in realms_fight(0).combatants))
    after, _ = apply_action(hurt, Action("er_attack", {"attacker": "c1", "target": "c2", "damage": -9}))
    assert after.get("c2").hp == 10


def with_temporary(enc: Encounter, amount: int) -> Encounter:
    return replace(enc, combatants=tuple(replace(c, temp_hp=amount) for c in enc.combatants))


def spent_on_purpose(action: Action) -> dict[str, int]:
    """Hit points an action spends by choice rather than takes as damage (Laurels' Stamina for a shot)."""
    cost = action.args.get("cost") if isinstance(action.args, dict) else None
    return {action.args["attacker"]: int(cost)} if cost else {}


@pytest.mark.parametrize("name", SYSTEMS)
def test_with_ample_temporary_hp_no_action_of_the_fight_lowers_hit_points(name):
    """Replay every step of the system's scripted fight with a million temporary HP on everyone:
    any action that lowers `hp` without going through the damage path shows up here."""
    t = play(name, FIGHTS[name])
    lowering = 0
    for before, action in zip(t.states, t.actions):
        if action.kind in EDITS:
            continue
        plain, _ = apply_action(before, action)
        lowering += sum(1 for c in plain.combatants if c.hp is not None and c.id in before.names() and c.hp < (before.get(c.id).hp or 0))
        after, _ = apply_action(with_temporary(before, 10**6), action)
        spent = spent_on_purpose(action)
        for c in after.combatants:
            if c.id in before.names() and c.hp is not None and before.get(c.id).hp is not None:
                assert c.hp >= before.get(c.id).hp - spent.get(c.id, 0), f"{action.kind} lowered {c.name}'s HP past temporary HP"
    assert lowering, "the scripted fight should deal damage somewhere"


@pytest.mark.parametrize("name", SYSTEMS)
def test_every_attack_that_deals_damage_reaches_the_systems_damage_hook(name, monkeypatch):
    system = get_system(name)
    calls: list[tuple[str, int]] = []
    original = type(system).on_damage

    def recording(self, encounter, before, amount):
        calls.append((before.id, amount))
        return original(self, encounter, before, amount)

    monkeypatch.setattr(type(system), "on_damage", recording)
    t = play(name, FIGHTS[name])
    for before, action in zip(t.states, t.actions):
        if action.kind not in system.actions:
            continue
        calls.clear()
        after, _ = apply_action(before, action)
        hurt = [c.id for c in after.combatants if c.id in before.names() and c.hp is not None and c.hp < (before.get(c.id).hp or 0)]
        assert set(hurt) <= {cid for cid, _ in calls}, f"{action.kind} lowered HP without the system's damage hook"


def test_the_generic_d20_attack_and_the_damage_action_agree():
    """One path: an attack's damage and the same damage typed by hand leave the same combatant."""
    enc = new_encounter("e1")
    enc = replace(enc, combatants=(Combatant(id="c1", name="Ogre", hp=30, max_hp=30, temp_hp=3),
                                   Combatant(id="c2", name="Hero", side="party", pc=True, hp=20, max_hp=20)), seq=2)
    by_hand, _ = apply_action(enc, resolve(enc, "damage", {"id": "c1", "amount": 7}))
    hit, _, _ = damage.harm(enc, enc.get("c1"), 7)
    assert by_hand.get("c1") == hit.get("c1") == replace(enc.get("c1"), hp=26, temp_hp=0)


def test_healing_brings_a_downed_combatant_back_up_from_the_floor():
    enc = replace(new_encounter("e1"), combatants=(Combatant(id="c1", name="Hero", hp=0, max_hp=20),), seq=1)
    after, gained, events = damage.mend(enc, enc.get("c1"), 5)
    assert (after.get("c1").hp, gained, [e.kind for e in events]) == (5, 5, ["up"])


# The edit form (update_combatant) sets fields by name and caps hit points at a lowered maximum:
# the game master's word, not damage.
ALLOWED = {("tracker.py", "_update")}


def hp_writers(tree: ast.AST) -> list[tuple[str, int]]:
    """(function, line) of each call that sets `hp` or `temp_hp` by keyword (dataclasses.replace and
    the like; a new Combatant aside), inside the innermost function that holds it."""
    found: dict[int, str] = {}
    for fn in ast.walk(tree):  # outer functions come first, so an inner one overwrites their claim
        if isinstance(fn, ast.FunctionDef):
            for node in ast.walk(fn):
                if isinstance(node, ast.Call) and not _is_constructor(node) and any(kw.arg in ("hp", "temp_hp") for kw in node.keywords):
                    found[node.lineno] = fn.name
    return sorted((name, line) for line, name in found.items())


def _is_constructor(node: ast.Call) -> bool:
    return isinstance(node.func, ast.Name) and node.func.id == "Combatant"


def test_only_the_damage_module_writes_hit_points():
    """A new attack that writes `replace(target, hp=...)` itself would skip temporary HP, the floor
    and the system's hook: it fails here."""
    found = []
    for path in sorted(ENGINE.rglob("*.py")):
        if path.name == "damage.py":
            continue
        name = str(path.relative_to(ENGINE))
        found += [(name, fn, line) for fn, line in hp_writers(ast.parse(path.read_text())) if (name, fn) not in ALLOWED]
    assert found == []


def test_the_source_check_sees_a_direct_write():
    assert ("hit", 2) in hp_writers(ast.parse("def hit(target):\n    return replace(target, hp=target.hp - 3)"))
    assert hp_writers(ast.parse("def new():\n    return Combatant(id='c1', name='x', hp=3)")) == []


def test_a_timeline_replays_an_old_attack_through_the_damage_path():
    """Saves keep actions, not states: loading replays them, so the fix holds for old fights too."""
    enc = realms_fight(5)
    t = Timeline.start(enc, [Action("er_attack", {"attacker": "c1", "target": "c2", "damage": 3})])
    assert (t.present.get("c2").hp, t.present.get("c2").temp_hp) == (10, 2)
