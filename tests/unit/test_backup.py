"""Issue 48, item 2: Safari's storage rules, worked with. Safari clears all of a site's storage after 7
days of use without a visit unless it was added to the Home Screen: the menu says when the last
backup (Export all) was made, a fight's end offers one when none was made in 7 days, and Safari in a
tab on an iPhone or iPad is told, in the menu, to add the site to the Home Screen and why."""

from __future__ import annotations

import random

import pytest

from pyengine.core_args import Nothing
from tests.unit.test_update import PARTY, fight
from web.app.messages import Act
from web.app.render import notices_html
from web.app.screens.menu import backup_words, menu_sheet_html
from web.app.storage.keeper import stored_time
from web.app.update import BACKUP_OFFER, backup_known, update

DAY = 86_400.0
NOW = 1_800_000_000.0


@pytest.mark.parametrize(("at", "due"), [(None, True), (NOW - 6.9 * DAY, False), (NOW - 7 * DAY, True), (NOW - 30 * DAY, True),
                                         (NOW, False), (NOW + DAY, True)])  # (a clock moved back past it: due)
def test_a_backup_is_due_when_none_was_made_in_seven_days(at, due):
    assert backup_known(at, NOW).due is due and backup_known(at, NOW).at == at


def test_a_kept_time_that_is_not_one_reads_as_never():
    assert [stored_time(x) for x in (None, "", "x", "-5", "nan", "1e300", "1800000000.5")] == [None] * 6 + [1_800_000_000.5]


def ended(model):
    model, _ = update(model, Act("end_combat", Nothing(), random.Random(0)))
    return model


def test_the_end_of_a_fight_offers_a_backup_only_when_one_is_due():
    model = fight(*PARTY, started=True)
    model, _ = update(model, backup_known(None, NOW))
    after = ended(model)
    assert BACKUP_OFFER in after.notices
    html = notices_html(list(after.notices))
    assert 'data-testid="backup-offer"' in html and 'data-action="notice-export-all"' in html
    # A backup made: the offer goes, and the next fight's end offers none.
    model, _ = update(after, backup_known(NOW, NOW))
    assert BACKUP_OFFER not in model.notices and model.backup_at == NOW
    again = fight(*PARTY, started=True)
    again, _ = update(again, backup_known(NOW - DAY, NOW))
    assert BACKUP_OFFER not in ended(again).notices
    # Not known yet (the page is starting): nothing offered.
    assert BACKUP_OFFER not in ended(fight(*PARTY, started=True)).notices


def test_the_menu_says_when_the_last_backup_was_made_and_on_safari_in_a_tab_why_to_add_to_the_home_screen():
    assert backup_words(None, NOW) == "Last backup (Export all): never."
    assert backup_words(NOW - 2 * DAY - 5, NOW) == "Last backup (Export all): 2 days ago."
    assert backup_words(NOW - 30, NOW) == "Last backup (Export all): just now."
    plain = menu_sheet_html([], "e1", set(), "system", "npcs", [], now=NOW, backup_at=NOW - 3 * 3600)
    assert 'data-testid="backup-age">Last backup (Export all): 3 h ago.</p>' in plain and 'data-testid="add-to-home"' not in plain
    safari = menu_sheet_html([], "e1", set(), "system", "npcs", [], now=NOW, safari_tab=True)
    assert 'data-testid="add-to-home"' in safari and "7 days" in safari and "never" in safari
