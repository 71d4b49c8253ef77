"""The contract every registered game system keeps: its scripted fight (tests/fights.py) goes
through add, start, turns, every action kind it declares, undo, redo, save and load, and its view
draws every screen of that fight with hostile text kept as text."""

from __future__ import annotations

import random

import pytest

from pyengine.rules import get_system, systems
from pyengine.storage import dumps, loads, timeline_from_dict, timeline_to_dict
from pyengine.tracker import Timeline, resolve
from tests.fights import FIGHTS, play
from tests.unit.test_render import HOSTILE, parsed
from web.app import render
from web.app.views import View, view_for

SYSTEMS = sorted(s.name for s in systems())


def every_state(t: Timeline) -> list[Timeline]:
    """The timeline at each step of its history (undo all the way back)."""
    out = [t]
    while out[-1].can_undo:
        out.append(out[-1].undo())
    return out


@pytest.mark.parametrize("name", SYSTEMS)
def test_the_fight_uses_every_action_kind_the_system_declares(name):
    t = play(name, FIGHTS[name])
    used = {a.kind for a in t.actions}
    assert set(get_system(name).actions) <= used
    assert {"add_combatant", "start_combat", "next_turn", "end_combat"} <= used


@pytest.mark.parametrize("name", SYSTEMS)
def test_undo_redo_save_and_load_give_back_the_same_fight(name):
    t = play(name, FIGHTS[name])
    back = every_state(t)
    assert back[-1].present == t.base and not back[-1].can_undo
    redone = back[-1]
    while redone.can_redo:
        redone = redone.redo()
    assert redone.present == t.present and redone.log() == t.log()
    loaded = timeline_from_dict(loads(dumps(timeline_to_dict(t))))
    assert loaded.present == t.present and loaded.log() == t.log()


@pytest.mark.parametrize("name", SYSTEMS)
def test_the_view_draws_every_state_of_the_fight(name):
    t = play(name, FIGHTS[name])
    view = view_for(name)
    assert isinstance(view, View)
    for state in every_state(t):
        enc = state.present
        html = render.tracker_html(state)
        assert 'data-testid="start-combat"' in html or 'data-testid="end-combat"' in html
        for c in enc.combatants:
            fresh = {"attacker": None, "pending": None}
            sheet = render.combatant_sheet_html(enc, c, fresh, state.log())
            assert f'data-testid="sheet-title">{c.name}<' in sheet
            sections = view.sheet_sections(enc, c, fresh, state.log())
            for key, _, _ in sections[1:]:  # every part of a long sheet draws, chosen by its tab
                assert f'data-testid="section-body" data-section="{key}"' in render.combatant_sheet_html(enc, c, fresh, state.log(), key)
            render.add_sheet_html(enc, [], [], edit=c)
        render.add_sheet_html(enc, [], [])
        render.log_html(state.log())


@pytest.mark.parametrize("name", SYSTEMS)
def test_a_hostile_name_stays_text_in_every_view(name):
    t = play(name, FIGHTS[name][:3])
    for text in HOSTILE:
        t = t.do(resolve(t.present, "add_combatant", {"combatant": {"name": text, "notes": text, "max_hp": 4, "side": "opponents"}}))
    t = t.do(resolve(t.present, "start_combat", {}, random.Random(3)))
    enc = t.present
    pages = [render.tracker_html(t), render.add_sheet_html(enc, [], [])]
    pages += [render.combatant_sheet_html(enc, c, {"attacker": None, "pending": None}, t.log()) for c in enc.combatants]
    pages += [render.add_sheet_html(enc, [], [], edit=c) for c in enc.combatants]
    for html in pages:
        tags = {tag for tag, _ in parsed(html).tags}
        assert not tags & {"img", "script"}
        assert not any(name.startswith("on") for _, attrs in parsed(html).tags for name in attrs)


@pytest.mark.parametrize("name", SYSTEMS)
def test_a_systems_attack_is_one_of_its_actions(name):
    view = view_for(name)
    system = get_system(name)
    if system.attack_kind is not None:
        assert system.attack_kind in system.actions
    assert all(action.replace("-", "").isalnum() for action in view.events)
