"""The creature library in the web layer (CPython): typing loads it once, its file read and checked,
a tap adds a creature (a numbered group, its HP rolled for each, remembered with its attacks and
defenses), a failure said with a retry, hostile text inert, the attack panel's "With"."""

from __future__ import annotations

import json
import random

import pytest

import build
from pyengine.core_args import Join
from pyengine.errors import SchemaError
from pyengine.systems.srd import read_library
from tests.unit.test_tools_web import DAX, HOSTILE, add, model_of, tap
from web.app import render
from web.app.effects import CloseSheet, LoadLibrary, RenderSheet, Toast
from web.app.library import condition_rules_html, srd_section_html
from web.app.messages import Act, LibraryFailed, LibraryLoaded
from web.app.update import update
from web.app.views.generic import attack_html


@pytest.fixture(scope="module")
def text() -> str:
    return build.srd_library_text()


def loaded(text: str):
    model = model_of(DAX)
    typed, effects = tap(model, "srd-search", {"srd-search": "tro"}, kind="input")
    assert effects == (LoadLibrary(),) and typed.library_state == "loading" and typed.sheet_due  # drawn once typing stops
    again, effects = tap(typed, "srd-search", {"srd-search": "trol"}, kind="input")
    assert effects == () and again.sheet_due > typed.sheet_due  # asked once
    assert 'data-state="loading"' in srd_section_html(again) and "Loading the SRD library" in srd_section_html(again)
    model, effects = update(again, LibraryLoaded(text))
    assert effects == (RenderSheet(),) and model.library is not None and model.library_state == ""
    return model


def test_typing_loads_the_library_once_and_draws_the_results(text):
    model = loaded(text)
    html = srd_section_html(model)
    assert html.count('data-testid="srd-result"') == 1 and "Troll" in html and 'data-query="trol"' in html
    assert json.loads(text)["attribution"].replace('"', "&quot;") in html


def test_a_tap_adds_a_numbered_group_with_rolled_hp_remembered_with_its_attacks(text):
    model = loaded(text)
    inputs = {"f-count": "3", "f-side": "opponents", "f-remember": True, "srd-roll-hp": True}
    after, effects = tap(model, "srd-add", inputs, name="Troll")
    trolls = [c for c in after.timeline.present.combatants if c.name.startswith("Troll")]
    assert [c.name for c in trolls] == ["Troll 1", "Troll 2", "Troll 3"]
    assert all(48 <= c.max_hp <= 120 and c.hp == c.max_hp for c in trolls)  # 8d10+40 each
    assert len({c.max_hp for c in trolls}) > 1  # each its own roll
    assert [a.name for a in trolls[0].attacks] == ["Bite", "Claw"] and trolls[0].tools[0].stops == "acid, fire"
    assert Toast("Added Troll ×3 (CR 5, 1,800 XP each)", undo=True) in effects and CloseSheet() in effects
    saved = after.templates[-1]
    assert saved["name"] == "Troll" and saved["attacks"][0] == {"name": "Bite", "bonus": 7, "damage": "1d6+4 piercing"}
    assert saved["tools"] == [{"kind": "regeneration", "name": "Regeneration", "amount": "10", "when": "start", "stops": "acid, fire"}]
    assert after.srd_query == ""
    # The sheet's "Remember with its tools" keeps them too.
    kept, _ = tap(after, "tool-remember", id=trolls[0].id)
    assert kept.templates[-1]["attacks"] == saved["attacks"] and kept.templates[-1]["stats"]["cr"] == "5"
    assert "Opponents: 5,400 XP · party of 1 (5,400 XP each)" in render.tracker_html(after.timeline)


def test_a_library_that_cannot_be_had_is_said_with_a_retry(text):
    model = model_of(DAX)
    typed, _ = tap(model, "srd-search", {"srd-search": "orc"}, kind="input")
    failed, _ = update(typed, LibraryFailed("Failed to fetch"))
    html = srd_section_html(failed)
    assert "could not be loaded (Failed to fetch)" in html and 'data-testid="srd-retry"' in html
    retried, effects = tap(failed, "srd-retry")
    assert LoadLibrary(fresh=True) in effects and retried.library_state == "loading"  # (past the caches: issue 51)
    # A damaged copy (the cache's): fetched again past the caches at once, said only if that one is damaged too.
    damaged, effects = update(retried, LibraryLoaded(text[:1000]))
    assert damaged.library is None and damaged.library_state == "loading" and LoadLibrary(fresh=True) in effects
    again, effects = update(damaged, LibraryFailed("The creature library is damaged (not JSON: it may have been cut short).", damaged=True,
                                                   fresh=True))
    assert effects == (RenderSheet(),) and "cut short" in srd_section_html(again) and 'data-testid="srd-retry"' in srd_section_html(again)
    other, effects = update(retried, LibraryLoaded(json.dumps({**json.loads(text), "format": 9})))
    assert LoadLibrary(fresh=True) in effects
    other, _ = update(other, LibraryFailed(str(pytest.raises(SchemaError, read_library, json.dumps({**json.loads(text), "format": 9})).value),
                                           damaged=True, fresh=True))
    assert "format 9" in srd_section_html(other)


def test_hostile_text_is_inert_and_an_unknown_creature_is_refused(text):
    model = loaded(text)
    typed, _ = tap(model, "srd-search", {"srd-search": HOSTILE}, kind="input")
    html = srd_section_html(typed)
    assert "<img" not in html and "&lt;img" in html
    after, effects = tap(model, "srd-add", {"f-count": "1"}, name=HOSTILE)
    assert after.timeline is model.timeline and "is not in the SRD library" in effects[0].text


def test_the_attack_panel_offers_the_attackers_named_attacks(text):
    model = loaded(text)
    model, _ = tap(model, "srd-add", {"f-count": "1", "f-side": "opponents"}, name="Adult Red Dragon")
    model, _ = update(model, Act("add_combatant", Join(add("Aria", side="party", max_hp=30, stats={"ac": 16})[1]["combatant"]), random.Random(1)))
    enc = model.timeline.present
    dragon = next(c for c in enc.combatants if c.name == "Adult Red Dragon")
    aria = next(c for c in enc.combatants if c.name == "Aria")
    html = attack_html(enc, aria, {"attacker": dragon.id, "with": "Claw"})
    assert 'data-testid="attack-with"' in html and '<option value="Claw" selected>Claw +14</option>' in html
    assert "damage 2d6+8 slashing" in html and "Multiattack: Frightful Presence, Bite, Claw ×2" in html
    stale = attack_html(enc, aria, {"attacker": dragon.id, "with": "Scimitar"})  # another attacker's choice: its first
    assert '<option value="Bite" selected>' in stale
    model, _ = tap(model, "condition-rules")
    assert model.condition_rules
    sheet = render.combatant_sheet_html(enc, aria, {}, [], None, None, condition_rules_html(model))
    assert sheet.count('data-testid="condition-rule"') == 15 and "automatically fails any ability check that requires sight" in sheet
