"""A saved fight per game system, written once by an earlier version (tests/fights.py), replayed
now: the same state and the same log, so a change that breaks an old save fails here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pyengine.rules import systems
import pyengine.tracker  # noqa: F401 - registers the built-in systems
from pyengine.storage import loads, timeline_from_dict, timeline_to_dict
from tests.fights import FIGHTS, fixture_files, play, replayed

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.mark.parametrize("system", sorted(FIGHTS))
def test_an_old_save_replays_to_the_same_fight(system):
    saved, expected = fixture_files(system)
    t = timeline_from_dict(loads((FIXTURES / saved).read_text()))
    assert replayed(t) == json.loads((FIXTURES / expected).read_text())


@pytest.mark.parametrize("system", sorted(FIGHTS))
def test_the_same_requests_still_give_the_saved_actions(system):
    """The table's requests, resolved with the same seed, roll and record what was saved."""
    saved, _ = fixture_files(system)
    assert timeline_to_dict(play(system, FIGHTS[system]))["actions"] == loads((FIXTURES / saved).read_text())["actions"]


def test_every_registered_system_has_a_saved_fight():
    assert {s.name for s in systems()} <= set(FIGHTS)
