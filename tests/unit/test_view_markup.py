"""Issue 51, item 7: the allow-list of the start-up preview and the early view (tools/view_markup.py,
written into static/boot.js by the build) holds what the renderers write for every saved fight of
every system (the fixtures), and nothing of the rest of the app."""

from __future__ import annotations

import json

import pytest

from pyengine.handoff import table_view
from pyengine.storage import timeline_from_dict
from tests.fights import FIGHTS, FIXTURES, fixture_files
from tools.view_markup import _Markup, allowed_markup
from web.app.html import view_body_html
from web.app.render import tracker_html

ALLOWED = allowed_markup()


@pytest.mark.parametrize("system", sorted(FIGHTS))
def test_every_saved_fights_turn_order_and_players_view_pass_the_allow_list_whole(system):
    for name, _ in fixture_files(system):
        timeline = timeline_from_dict(json.loads((FIXTURES / name).read_text()))
        steps = [timeline]
        while steps[-1].cursor > 0:
            steps.append(steps[-1].undo())
        for t in steps:
            found = _Markup()
            found.feed(tracker_html(t) + view_body_html(table_view(t.present)))
            assert found.classes <= set(ALLOWED["classes"]), (name, found.classes - set(ALLOWED["classes"]))
            assert found.data <= set(ALLOWED["data"]), (name, found.data - set(ALLOWED["data"]))
            assert found.testids <= set(ALLOWED["testids"]), (name, found.testids - set(ALLOWED["testids"]))
            assert found.actions <= set(ALLOWED["actions"]), (name, found.actions - set(ALLOWED["actions"]))


def test_the_rest_of_the_app_is_not_on_the_list():
    assert not {"toast", "sheet", "dock", "notice", "overlay"} & set(ALLOWED["classes"])
    assert not {"next-turn", "undo", "menu-button", "claim", "request-apply"} & set(ALLOWED["testids"])
    assert not {"next-turn", "live-claim", "undo"} & set(ALLOWED["actions"])
