"""A request to the fight is made of its kind's typed record (pyengine/core_args.py for the tracker's
own actions, each system's beside its rules): the screens build them, tracker.request refuses another,
and a request saves the same arguments the screens sent before they were typed."""

from __future__ import annotations

import ast
import importlib
import random
from pathlib import Path

import pytest

from pyengine.core_args import Flag, Flow, HitPoints, Join, NewCondition, Option, Target, ToolUsed, as_args
from pyengine.errors import RuleError
from pyengine.record import Record
from pyengine.rules import ActionRule, systems
from pyengine.systems.laurels import Parry
from pyengine.systems.strife import Part
from pyengine.tracker import CORE, Timeline, new_encounter, request, resolve
from tests.unit.pages import FakePage
from tests.unit.test_update import PARTY, fight, ids
from web.app import messages as msg
from web.app.effects import Refuse
from web.app.screens import CHANGES, EVENTS
from web.app.update import update

ROOT = Path(__file__).resolve().parents[2]


def _rules() -> dict[str, list[ActionRule]]:
    """Every action's rule by its kind: the tracker's, and each system's."""
    found: dict[str, list[ActionRule]] = {kind: [rule] for kind, rule in CORE.items()}
    for system in systems():
        for kind, rule in system.actions.items():
            found.setdefault(kind, []).append(rule)
    return found


def _acts() -> list[tuple[str, int, str, str]]:
    """(module, line, kind, record class) of every `Act("kind", Record(...), ...)` the screens and views build."""
    found = []
    for path in sorted([*(ROOT / "web" / "app" / "screens").glob("*.py"), *(ROOT / "web" / "app" / "views").glob("*.py")]):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Act":
                kind, args = node.args[0], node.args[1]
                assert isinstance(kind, (ast.Constant, ast.Name)), f"{path.name}:{node.lineno}"
                assert isinstance(args, ast.Call) and isinstance(args.func, ast.Name), (
                    f"{path.name}:{node.lineno}: an Act's arguments are a record, built where the kind is named")
                found.append((module, node.lineno, kind.value if isinstance(kind, ast.Constant) else "", args.func.id))
    return found


def test_every_act_the_screens_build_is_its_kinds_own_record():
    """Read from the source: each `Act("kind", Record(...))` names a record that is the request of
    that kind's rule (the tracker's, or the system's that has the kind)."""
    rules, acts = _rules(), _acts()
    assert len(acts) >= 30  # every screen and view's requests are found
    for module, line, kind, record in acts:
        cls = getattr(importlib.import_module(module), record)
        assert issubclass(cls, Record), f"{module}:{line}"
        if kind:
            assert kind in rules, f"{module}:{line}: no action {kind}"
            assert any(rule.request is cls for rule in rules[kind]), f"{module}:{line}: {kind} takes another record than {record}"


def test_every_action_but_the_attacks_says_its_request_record():
    """The attacks' requests are the attack panel's configuration (each system's own fields); every
    other action, the tracker's and every system's, says the record a request is made of."""
    attacks = {system.attack_kind for system in systems() if system.attack_kind}
    untyped = sorted(kind for kind, rules in _rules().items() for rule in rules if rule.request is None and kind not in attacks)
    assert untyped == []


def test_a_record_that_is_not_the_kinds_is_refused_by_name_and_changes_nothing():
    model = fight(*PARTY, started=True)
    enc, goblin = model.timeline.present, ids(model)["Goblin"]
    with pytest.raises(RuleError, match="damage takes HitPoints, not Target"):
        request(enc, "damage", Target(goblin))
    with pytest.raises(RuleError, match="ll_parry takes Parry, not Part"):
        request(new_encounter("e2", "Ford", system="laurels"), "ll_parry", Part("c1", "move"))
    with pytest.raises(RuleError, match="Unknown action 'fly'"):
        request(enc, "fly", Target(goblin))
    after, effects = update(model, msg.Act("damage", Target(goblin), random.Random(1)))
    assert after.timeline is model.timeline and effects == (Refuse("damage takes HitPoints, not Target."),)


def test_a_request_saves_the_arguments_the_screens_sent_before_they_were_typed():
    """The save format is unchanged: a field left at its default is left out, `with_` is `with`,
    the flow's options are its dict; and a request resolves as the same dict does."""
    assert as_args(NewCondition("c1", "Prone", "rounds", 2, None, "c3")) == {"id": "c1", "name": "Prone", "until": "rounds", "rounds": 2, "source": "c3"}
    assert as_args(Flag("c1", "hidden")) == {"id": "c1", "flag": "hidden"} and as_args(Flag("c1", "hidden", False))["on"] is False
    assert as_args(Parry("c1", "shield")) == {"id": "c1", "with": "shield"} and as_args(Parry("c1")) == {"id": "c1"}
    assert as_args(Option("crit_miss", 0)) == {"key": "crit_miss", "value": 0}  # a value is never a default left out
    assert as_args(ToolUsed("c1", "t1", 0)) == {"id": "c1", "tool": "t1", "count": 0}
    assert as_args(Flow({"reroll_all": True})) == {"reroll_all": True} and as_args(Flow()) == {}
    t = Timeline.start(new_encounter("e1", "Bridge"))
    joined = request(t.present, "add_combatant", Join({"name": "Ogre", "max_hp": 30}, 2), random.Random(3))
    assert joined == resolve(t.present, "add_combatant", {"combatant": {"name": "Ogre", "max_hp": 30}, "count": 2}, random.Random(3))
    hit = request(t.do(joined).present, "damage", HitPoints("c1", 4, roll="1d6 (4)"))
    assert hit.args == {"id": "c1", "amount": 4, "roll": "1d6 (4)"}


def test_the_hide_button_and_the_option_select_build_their_records():
    model = fight(*PARTY, started=True)
    goblin = ids(model)["Goblin"]
    hide = EVENTS["players-flag"](FakePage(model, node={"id": goblin, "flag": "hidden"}))
    assert hide == msg.Act("set_flag", Flag(goblin, "hidden", True), hide.rng)
    after, _ = update(model, hide)
    assert "hidden" in after.timeline.present.get(goblin).flags
    picked = CHANGES["set-option"](FakePage(model, node={"key": "crit_miss"}, chosen="2"))
    assert picked.args == Option("crit_miss", 2)
