"""The seams between the core (engine and web) and the game systems: the core asks, never names.

A system's facts stay in its own modules (pyengine/systems/<name>.py, web/app/views/<name>.py); the
registry finds every built-in system whatever was imported first; no system can shadow one of the
tracker's own actions; every system has a view of its own."""

from __future__ import annotations

import ast
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from pyengine.core_args import HitPoints, read_args
from pyengine.errors import RuleError
from pyengine.model import Action, Combatant
from pyengine.rules import CORE_KINDS, ActionRule, AttackOutcome, System, get_system, register, systems, unregister
from pyengine.systems import BUILTIN
from pyengine.tracker import CORE, apply_action, new_encounter, resolve
from tests.fights import FIGHTS, play
from web.app.views import GENERIC, VIEWS, view_for

ROOT = Path(__file__).resolve().parents[2]
# Stat keys that are also plain words the core uses in its own sense (a roll's damage, a crit
# marker, a die, the light theme, the power of a number, the d20 abilities a save effect names:
# pyengine/save_effects.py): not a system's fact there.
WORDS = {"damage", "crit", "die", "light", "power", "hit", "str", "dex"}
# The benchmark names systems on purpose: it measures each one's attack.
NOT_CORE = {"web/page/bench.py"}


def test_the_tracker_names_every_core_action_in_one_table():
    assert set(CORE) == CORE_KINDS
    assert all(isinstance(rule, ActionRule) for rule in CORE.values())


class Shadowing(System):
    name = "shadowing"
    label = "Shadowing"
    actions = {"damage": ActionRule(lambda enc, args: (enc, ()))}


def test_a_system_action_with_a_core_actions_name_is_refused():
    with pytest.raises(RuleError, match="damage is the tracker's own"):
        register(Shadowing())
    assert "shadowing" not in {s.name for s in systems()}


def test_the_built_in_systems_are_found_without_importing_the_tracker():
    """Anything that uses the registry first (a view, the characters' screen) sees every system."""
    code = ("from pyengine.rules import get_system, systems; "
            "print(sorted(s.name for s in systems()), get_system('Enchanted Realms').name)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert out.split("]")[0] + "]" == str(sorted(s.name for s in BUILTIN))
    assert out.strip().endswith("realms")


def test_every_built_in_system_is_registered():
    assert {s.name for s in BUILTIN} <= {s.name for s in systems()}


@pytest.mark.parametrize("name", sorted(s.name for s in BUILTIN))
def test_every_registered_system_has_its_own_view_module(name):
    """A forgotten line in VIEWS would silently give a system the generic view."""
    assert name in VIEWS
    assert (ROOT / (VIEWS[name].replace(".", "/") + ".py")).exists()
    if name != "generic":
        assert view_for(name) is not GENERIC


def system_keys() -> set[str]:
    return {f.key for s in BUILTIN for f in s.stat_fields} - WORDS


def core_modules() -> list[Path]:
    out = []
    for folder in ("pyengine", "web"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if "/systems/" not in rel and "/views/" not in rel and rel not in NOT_CORE:
                out.append(path)
    return out


def test_no_core_module_contains_a_systems_stat_keys():
    found = []
    for path in core_modules():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in system_keys():
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.value!r}")
    assert found == []


def test_the_stat_key_check_finds_a_leak():
    """The check above is not vacuous: the keys it looks for are real, and a leaked one is seen."""
    assert {"cannot_be_surprised", "skills", "injury_max"} <= system_keys()
    leak = ast.parse('c.stat("cannot_be_surprised", False)')
    assert any(isinstance(n, ast.Constant) and n.value in system_keys() for n in ast.walk(leak))


def test_surprise_asks_the_system():
    """An ambush surprises the party in round 1; a combatant that cannot be surprised acts anyway:
    the side flow asks System.can_be_surprised (Laurels reads its own stat)."""
    laurels = next(s for s in BUILTIN if s.name == "laurels")
    wary = Combatant(id="c1", name="Wary", stats=(("cannot_be_surprised", True),))
    assert laurels.can_be_surprised(wary) is False
    assert laurels.can_be_surprised(replace(wary, stats=())) is True
    assert GENERIC_SYSTEM.can_be_surprised(wary) is True


GENERIC_SYSTEM = next(s for s in BUILTIN if s.name == "generic")


class Carrier(System):
    """A system of the tests: its own action goes through the same table as the core ones."""

    name = "carrier"
    label = "Carrier"
    actions = {"carry": ActionRule(lambda enc, args: (enc, (enc.event("carry", f"carried {args['what']}"),)),
                                   lambda enc, args, rng: {"what": str(args.get("what", "?")).upper()})}


def test_a_systems_own_action_resolves_and_applies_beside_the_core_ones():
    register(Carrier())
    try:
        enc = new_encounter("e1", system="carrier")
        action = resolve(enc, "carry", {"what": "torch"})
        assert action.args == {"what": "TORCH"}
        assert apply_action(enc, action)[1][0].text == "carried TORCH"
        with pytest.raises(RuleError, match="Unknown action"):
            apply_action(enc, resolve(enc, "fly", {}))
    finally:
        unregister("carrier")


# -- the core actions' typed arguments -------------------------------------------------------------

def two() -> tuple:
    enc = new_encounter("e1", "Bridge")
    for name in ("Hero", "Foe"):
        enc, _ = apply_action(enc, resolve(enc, "add_combatant", {"combatant": {"name": name, "max_hp": 10}}))
    return enc, enc.combatants[0].id, enc.combatants[1].id


@pytest.mark.parametrize("kind, args, said", [
    ("damage", {"amount": 3}, "HitPoints: id is missing."),
    ("damage", {"id": "c2", "amount": [3]}, "HitPoints: amount must be a whole number."),
    ("damage", {"id": "c2", "amount": True}, "HitPoints: amount must be a whole number."),
    ("heal", {"id": 2, "amount": 3}, "HitPoints: id must be str."),
    ("set_flag", {"id": "c1", "flag": "inspired", "on": "yes"}, "Flag: on must be bool."),
    ("add_condition", {"id": "c1", "name": "Prone", "rounds": "two", "until": "rounds"}, "NewCondition: rounds must be a whole number."),
    ("remove_condition", {"id": "c1"}, "GoneCondition: condition is missing."),
    ("delay", {"id": "c1", "after": None}, "Delay: after must be str."),
    ("update_combatant", {"id": "c1", "fields": "hp=3"}, "Edit: fields must be dict."),
    ("set_initiative", {"id": "c1", "value": 4.5}, "Initiative: value must be a whole number."),
])
def test_a_core_action_with_a_missing_or_mistyped_argument_is_refused_by_name(kind, args, said):
    enc, _, _ = two()
    with pytest.raises(RuleError) as refused:
        apply_action(enc, Action(kind, args))
    assert str(refused.value) == said


def test_typed_arguments_keep_the_save_format():
    """The saved dict is what it was (an earlier version's number kept as text still reads), and
    keys a newer version adds are left alone."""
    enc, hero, foe = two()
    after, _ = apply_action(enc, Action("damage", {"id": foe, "amount": "4", "source": hero, "later": {"x": 1}}))
    assert after.get(foe).hp == 6
    assert read_args(HitPoints, {"id": foe, "amount": 4}) == HitPoints(foe, 4)
    assert resolve(enc, "damage", {"id": foe, "amount": 4}).args == {"id": foe, "amount": 4}


def test_every_core_action_but_the_flows_reads_typed_arguments():
    """The turn flow's start and next take the system's own arguments; every other core rule is typed."""
    untyped = {kind for kind, rule in CORE.items() if rule.apply.__qualname__.split(".")[0] != "typed"}
    assert untyped == {"start_combat", "next_turn"}


# -- one outcome for every system's attack -----------------------------------------------------------

@pytest.mark.parametrize("system", sorted(FIGHTS))
def test_every_systems_attack_says_its_outcome_and_the_fight_agrees(system):
    """Each attack in the system's scripted fight, read as an AttackOutcome: a miss leaves the target's
    hit points as they were; a hit for damage lowers them (temporary HP first) unless the target was
    already at its floor; the attacker and target are the action's."""
    sys_ = get_system(system)
    assert sys_.attack_kind in sys_.actions
    t = play(system, FIGHTS[system])
    attacks = 0
    for index, action in enumerate(t.actions):
        if action.kind != sys_.attack_kind:
            continue
        attacks += 1
        enc = t.states[index]  # the fight just before the attack
        outcome = sys_.attack_outcome(action.args)
        assert isinstance(outcome, AttackOutcome) and outcome.target == action.args["target"]
        assert outcome.attacker == action.args["attacker"] and outcome.text
        after, _ = apply_action(enc, action)
        was, now = enc.get(outcome.target), after.get(outcome.target)
        pool = (was.hp or 0) + was.temp_hp, (now.hp or 0) + now.temp_hp
        if not outcome.hit:
            assert pool[1] >= pool[0]
        elif outcome.damage > 0 and (was.hp or 0) > (sys_.hp_floor if sys_.hp_floor is not None else -10**9):
            assert pool[1] < pool[0] or sys_.is_down(now)
    assert attacks, f"the {system} script rolls no attack"

