"""web/app/screens: every sheet the page opens has one home (its kind, its draw, its error line, what
redraws it), and every kind the code opens is one of them."""

from __future__ import annotations

import ast
import random
import re
from dataclasses import replace
from pathlib import Path

import pytest

from pyengine.handoff import read_view, view_payload
from pyengine.tracker import Timeline, new_encounter, resolve
from web.app import ui as state
from web.app.characters import find, readable
from web.app.model import Live, Model
from web.app.screens import SCREENS, Context, Elsewhere, screen_of
from web.app.storage.records import CHARACTERS, ROLLS

ROOT = Path(__file__).resolve().parents[2]


def fight(started: bool = False) -> Model:
    t = Timeline.start(new_encounter("e1", "Bridge"))
    for fields in ({"name": "Cyra", "side": "party", "pc": True, "initiative": 14, "max_hp": 20},
                   {"name": "Goblin", "initiative": 10, "max_hp": 7}):
        t = t.do(resolve(t.present, "add_combatant", {"combatant": fields}, random.Random(0)))
    if started:
        t = t.do(resolve(t.present, "start_combat", {}, random.Random(0)))
    return Model(t, characters=({"v": 1, "id": "k1", "name": "Ayla", "system": "generic"},))


def opened(model: Model, kind: str, ident: str | None = None) -> Model:
    return replace(model, ui=state.sheet_opened(model.ui, kind=kind, ident=ident))


IDENTS = {"combatant": "c1", "edit": "c1", "character": "k1", "character-edit": "k1"}


def opened_kinds() -> set[str]:
    """Every sheet kind the web code opens by name: SheetOpened("x"), Elsewhere("x"), opened(model, "x"),
    "sheet-opened" with kind="x"."""
    kinds = set()
    for path in (ROOT / "web").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name in ("SheetOpened", "Elsewhere") and node.args and isinstance(node.args[0], ast.Constant):
                kinds.add(node.args[0].value)
            if name == "opened" and len(node.args) > 1 and isinstance(node.args[1], ast.Constant):
                kinds.add(node.args[1].value)
            kinds |= {kw.value.value for kw in node.keywords if kw.arg == "kind" and isinstance(kw.value, ast.Constant)
                      and any(isinstance(a, ast.Constant) and a.value == "sheet-opened" for a in node.args)}
    return {k for k in kinds if k is not None}


def test_every_kind_the_code_opens_is_a_screen():
    kinds = opened_kinds()
    assert {"add", "combatant", "characters", "menu", "init"} <= kinds  # the scan sees them
    assert kinds <= set(SCREENS)


@pytest.mark.parametrize("kind", sorted(SCREENS))
def test_every_screen_draws_the_everyday_fight_with_its_error_line(kind):
    model = opened(fight(), kind, IDENTS.get(kind))
    if kind == "selected":
        model = replace(model, ui=state.selection_toggled(state.selecting_toggled(model.ui), ident="c2"))
    if kind == "view":
        model = replace(model, ui=replace(model.ui, table_view=read_view(view_payload(model.timeline.present))))
    if kind == "live":
        model = replace(model, live=Live(role="host", room="room1234", secret="secret1234"))
    if kind == "live-follow":
        view = read_view(view_payload(model.timeline.present))
        model = replace(model, live=Live(role="follow", view=view, ids=(("c1", "Cyra", "p"),), you="c1"))
    if kind == "join":
        model = replace(model, live=Live(role="follow", direct=True, answer="RKABC", pairing="Waiting…"))
    screen = SCREENS[kind]
    drawn = screen.draw(Context(model, page_url="http://127.0.0.1/"), IDENTS.get(kind))
    assert isinstance(drawn, str) and drawn
    if screen.error_line:
        assert re.search(rf'id="{screen.error_line}"', drawn)
    assert screen_of(model.ui) is screen


@pytest.mark.parametrize("kind, ident, instead", [("combatant", "c9", None), ("edit", "c9", None), ("selected", None, None),
                                                  ("character", "k9", "characters"), ("character-edit", "k9", "characters")])
def test_a_screen_whose_subject_is_gone_closes_or_goes_elsewhere(kind, ident, instead):
    model = opened(fight(), kind, ident)
    assert SCREENS[kind].draw(Context(model), ident) == Elsewhere(instead)


def test_the_initiative_step_closes_once_the_fight_has_started():
    assert SCREENS["init"].draw(Context(fight(started=True)), None) == Elsewhere()


def test_what_another_tab_stores_redraws_the_screens_that_show_it():
    assert SCREENS["characters"].redrawn_for(CHARACTERS) and not SCREENS["characters"].redrawn_for(ROLLS)
    assert SCREENS["menu"].redrawn_for(ROLLS) and SCREENS["add"].redrawn_for(CHARACTERS)
    assert not SCREENS["combatant"].redrawn_for(CHARACTERS)


def test_characters_are_read_from_their_stored_documents():
    docs = ({"v": 1, "id": "k1", "name": "Ayla", "system": "generic"}, {"v": 99, "id": "k2", "name": "From a newer tab"})
    assert [c.name for c in readable(docs)] == ["Ayla"]
    assert find(docs, "k1").name == "Ayla" and find(docs, "k2") is None and find(docs, None) is None
