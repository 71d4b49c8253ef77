"""The page's UI state: one value, changed only by update(); the old value never changes."""

from __future__ import annotations

import pytest

from web.state import FRESH_ATTACK, MESSAGES, Ui, update


def test_opening_a_sheet_starts_a_fresh_attack_panel_and_closing_keeps_the_last_target():
    ui = update(Ui(), "sheet-opened", kind="combatant", ident="c2")
    ui = update(ui, "attack-configured", config={"attacker": "c1", "power": True})
    rolled = update(ui, "attack-rolled", pending={"target": "c2", "damage": 7})
    assert rolled.attack == {"attacker": "c1", "power": True, "pending": {"target": "c2", "damage": 7}}
    assert ui.attack["pending"] is None  # the earlier value is untouched
    applied = update(rolled, "attack-applied")
    assert applied.attack["pending"] is None and applied.attack["power"] and applied.last_target == "c2"
    other = update(applied, "sheet-opened", kind="combatant", ident="c3")
    assert other.attack == FRESH_ATTACK and other.last_target == "c2"
    assert update(other, "sheet-closed").sheet is None


def test_changing_the_panel_drops_a_rolled_attack_that_was_not_applied():
    ui = update(update(Ui(), "attack-rolled", pending={"target": "c2"}), "attack-configured", config={"sneak": True})
    assert ui.attack == {"sneak": True, "pending": None}
    assert update(ui, "attack-applied").last_target is None  # nothing was pending: nothing hit


def test_the_small_memories():
    ui = update(update(Ui(), "next-turn-tapped", now=12.5), "dice-typed")
    assert (ui.last_next_turn, ui.building) == (12.5, True)
    assert not update(ui, "dice-rolled").building
    shared = update(ui, "share-offered", timeline="T")
    assert shared.pending_share == "T" and update(shared, "share-taken").pending_share is None


def test_an_unknown_message_is_a_programming_error():
    with pytest.raises(KeyError):
        update(Ui(), "no-such-message")
    assert all(callable(f) for f in MESSAGES.values())


def test_the_state_is_frozen():
    with pytest.raises(AttributeError):
        Ui().sheet = ("menu", None)  # type: ignore[misc]


def test_another_target_keeps_the_attack_but_not_its_roll_and_a_section_is_kept_until_the_next_sheet():
    ui = update(update(Ui(), "sheet-opened", kind="combatant", ident="c2"), "attack-configured", config={"attacker": "c1"})
    ui = update(update(ui, "attack-rolled", pending={"target": "c2"}), "section-picked", key="save")
    moved = update(ui, "target-picked", ident="c3")
    assert moved.sheet == ("combatant", "c3") and moved.attack == {"attacker": "c1", "pending": None}
    assert moved.section == "save" and update(moved, "sheet-opened", kind="combatant", ident="c4").section is None
