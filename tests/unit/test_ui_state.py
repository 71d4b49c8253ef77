"""The page's UI state: one value, changed only by update(); the old value never changes."""

from __future__ import annotations

import pytest

from pyengine.tracker import Timeline, new_encounter
from web.app import ui as state
from web.app.ui import FRESH_ATTACK, Ui


def test_opening_a_sheet_starts_a_fresh_attack_panel_and_closing_keeps_the_last_target():
    ui = state.sheet_opened(Ui(), kind="combatant", ident="c2")
    ui = state.attack_configured(ui, config={"attacker": "c1", "power": True})
    rolled = state.attack_rolled(ui, pending={"target": "c2", "damage": 7})
    assert rolled.attack == {"attacker": "c1", "power": True, "pending": {"target": "c2", "damage": 7}}
    assert ui.attack["pending"] is None  # the earlier value is untouched
    applied = state.attack_applied(rolled)
    assert applied.attack["pending"] is None and applied.attack["power"] and applied.last_target == "c2"
    other = state.sheet_opened(applied, kind="combatant", ident="c3")
    assert other.attack == FRESH_ATTACK and other.last_target == "c2"
    assert state.sheet_closed(other).sheet is None


def test_changing_the_panel_drops_a_rolled_attack_that_was_not_applied():
    ui = state.attack_configured(state.attack_rolled(Ui(), pending={"target": "c2"}), config={"sneak": True})
    assert ui.attack == {"sneak": True, "pending": None}
    assert state.attack_applied(ui).last_target is None  # nothing was pending: nothing hit


def test_the_small_memories():
    ui = state.dice_typed(state.next_turn_tapped(Ui(), now=12.5))
    assert (ui.last_next_turn, ui.building) == (12.5, True)
    assert not state.dice_rolled(ui).building
    fight = Timeline.start(new_encounter("e1"))
    shared = state.share_offered(ui, timeline=fight)
    assert shared.pending_share is fight and state.share_taken(shared).pending_share is None


def test_the_state_changes_by_typed_functions_only():
    """(Issue 35: no string reducer; a misspelt change is a name mypy finds, not a KeyError at a tap.)"""
    assert not hasattr(state, "update") and not hasattr(state, "MESSAGES")
    assert all(callable(getattr(state, name)) for name in state.__all__ if name not in ("Ui", "FRESH_ATTACK", "SAVE_BLANK", "AREA_BLANK", "POWER_BLANK"))


def test_the_state_is_frozen():
    with pytest.raises(AttributeError):
        Ui().sheet = ("menu", None)  # type: ignore[misc]


def test_another_target_keeps_the_attack_but_not_its_roll_and_a_section_is_kept_until_the_next_sheet():
    ui = state.attack_configured(state.sheet_opened(Ui(), kind="combatant", ident="c2"), config={"attacker": "c1"})
    ui = state.section_picked(state.attack_rolled(ui, pending={"target": "c2"}), key="save")
    moved = state.target_picked(ui, ident="c3")
    assert moved.sheet == ("combatant", "c3") and moved.attack == {"attacker": "c1", "pending": None}
    assert moved.section == "save" and state.sheet_opened(moved, kind="combatant", ident="c4").section is None
