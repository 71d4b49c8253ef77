"""A saved fight per game system, written once by an earlier version (tests/fights.py), replayed
now: the same state and the same log, so a change that breaks an old save fails here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import pyengine.tracker  # noqa: F401 - registers the built-in systems
from pyengine.rules import systems
from pyengine.storage import loads, timeline_from_dict, timeline_to_dict
from tests.fights import FIGHTS, fixture_files, play, replayed

FIXTURES = Path(__file__).parent / "fixtures"


SAVED = [(system, saved, expected) for system in sorted(FIGHTS) for saved, expected in fixture_files(system)]


@pytest.mark.parametrize("system, saved, expected", SAVED)
def test_an_old_save_replays_to_the_same_fight(system, saved, expected):
    t = timeline_from_dict(loads((FIXTURES / saved).read_text()))
    assert replayed(t) == json.loads((FIXTURES / expected).read_text())


@pytest.mark.parametrize("system, saved, expected", SAVED)
def test_the_same_requests_still_give_the_saved_actions(system, saved, expected):
    """The table's requests, resolved with the same seed, roll and record what was saved (a script
    only grows at its end, so an older save is a prefix of today's fight)."""
    old = loads((FIXTURES / saved).read_text())["actions"]
    assert timeline_to_dict(play(system, FIGHTS[system]))["actions"][: len(old)] == old


def test_the_newest_save_of_each_system_covers_its_whole_script():
    """A script that grew without a new fixture (python3 -m tests.fights) would leave new actions unsaved."""
    for system in FIGHTS:
        newest = loads((FIXTURES / fixture_files(system)[-1][0]).read_text())
        assert len(newest["actions"]) == len(play(system, FIGHTS[system]).actions), system


def test_every_registered_system_has_a_saved_fight():
    assert {s.name for s in systems()} <= set(FIGHTS)
    assert all(fixture_files(system) for system in FIGHTS)
