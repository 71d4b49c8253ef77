"""The seams between the core (engine and web) and the game systems: the core asks, never names.

A system's facts stay in its own modules (pyengine/systems/<name>.py, web/views/<name>.py); the
registry finds every built-in system whatever was imported first; no system can shadow one of the
tracker's own actions; every system has a view of its own."""

from __future__ import annotations

import ast
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from pyengine.errors import RuleError
from pyengine.model import Combatant
from pyengine.rules import CORE_KINDS, ActionRule, System, register, systems, unregister
from pyengine.systems import BUILTIN
from pyengine.tracker import CORE, apply_action, new_encounter, resolve
from web.views import GENERIC, VIEWS, view_for

ROOT = Path(__file__).resolve().parents[2]
# Stat keys that are also plain words the core uses in its own sense (a roll's damage, a crit
# marker, a die, the light theme, the power of a number): not a system's fact there.
WORDS = {"damage", "crit", "die", "light", "power", "hit", "str"}
# The benchmark names systems on purpose: it measures each one's attack.
NOT_CORE = {"web/bench.py"}


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
