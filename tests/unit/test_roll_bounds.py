"""No roll typed in the roller blocks the page (issue 37, item 14): `100d100r<100` made a 1,107 ms
task, most of it drawing 6,275 dice (600 KB of HTML) and writing 100 such texts to storage at every
roll. Now a roll typed there draws at most ROLLER_FACES faces (refused with a message past that), the
page draws at most DRAWN_DICE dice and a bounded text, and the history keeps a bounded text.
What the code controls is counted here; `python3 build.py bench --only engine` prints the longest
task in the browser."""

from __future__ import annotations

import random

import pytest

from pyengine.dice import roll
from pyengine.errors import DiceLimitError
from pyengine.tracker import Timeline, new_encounter
from web.app.effects import SayOnLine, ShowRoll
from web.app.messages import RollTyped
from web.app.model import Model
from web.app.render import DRAWN_DICE, history_html, roll_result_html
from web.app.update import update
from web.app.update.roller import HISTORY_TEXT, ROLLER_FACES

AUDIT = ("100d100r<100", "1000d6!>=2", "1000d6!p", "1000d6r<6", "1000d6!>=2sa", "1000d10000", "1000d6!!", "1000d6!!p",
         "1000d20kh500", "{1000d6}kh1", "1000d6ro<6", "1000d6ra6", "100d6!>=2kh50", "1000dF", "1000d%", "500d6!p>=3",
         "1000d6xo", "1000d6mi6ma6")


def model() -> Model:
    return Model(Timeline.start(new_encounter("e1")))


@pytest.mark.parametrize("expression", AUDIT)
def test_a_roll_typed_in_the_roller_is_bounded_in_work_drawing_and_storage(expression):
    after, effects = update(model(), RollTyped(expression, random.Random(7), 0))
    shown = [e for e in effects if isinstance(e, ShowRoll)]
    if not shown:  # refused, with a message, before 4,000 faces were drawn
        said = next(e for e in effects if isinstance(e, SayOnLine) and e.line == "dice-error")
        assert f"more than {ROLLER_FACES:,} dice" in said.text
        with pytest.raises(DiceLimitError):
            roll(expression, random.Random(7), ROLLER_FACES)
        return
    result = shown[0].result
    assert len(result.dice) <= ROLLER_FACES
    html = roll_result_html(result)
    assert html.count('class="die') <= DRAWN_DICE and len(html) < 40_000
    assert len(after.rolls[0]["text"]) <= HISTORY_TEXT + 40
    assert len(history_html(list(after.rolls))) < 4_000


def test_the_audits_worst_roll_is_refused_and_a_big_one_still_rolls():
    after, effects = update(model(), RollTyped("100d100r<100", random.Random(1), 0))
    assert not any(isinstance(e, ShowRoll) for e in effects) and after.rolls == ()
    after, effects = update(model(), RollTyped("1000d6", random.Random(1), 0))
    result = next(e for e in effects if isinstance(e, ShowRoll)).result
    html = roll_result_html(result)
    assert "+ 880 more dice" in html and "characters in all" in html
    assert roll("100d100r<100", random.Random(1)).total > 0  # the engine's own limit (10,000) is unchanged


def test_a_roll_past_the_engines_own_caps_says_that_cap_not_the_rollers_bound():
    """(Seen in the one-off Firefox run: 1001d6 rolled at once was said as "more than 4,000 dice".)"""
    for expression, words in (("1001d6", "Too many dice: at most 1,000 in one roll."), ("100d100r<100", f"more than {ROLLER_FACES:,} dice")):
        _, effects = update(model(), RollTyped(expression, random.Random(1), 0))
        said = next(e for e in effects if isinstance(e, SayOnLine) and e.line == "dice-error")
        assert words in said.text, said.text
