"""The dice roller screen: seeded exact rolls, odds as you type, history and saved rolls."""

from __future__ import annotations

import random
import re

from pyengine.dice import distribution, roll
from tests.e2e.conftest import open_app, wait_ready


def shown(text: str) -> str:
    """A roll's text as the page shows it: dropped dice (~~5~~) struck through, not marked up."""
    return re.sub(r"~~(.+?)~~", r"\1", text)


def test_seeded_roll_matches_the_engine_exactly(context, site):
    page = open_app(context, site["url"] + "/?seed=42").page
    page.get_by_test_id("dice-input").fill("4d6kh3+2")
    page.get_by_test_id("roll-button").click()
    expected = roll("4d6kh3+2", random.Random(42))
    result = page.get_by_test_id("roll-result")
    result.get_by_test_id("roll-total").wait_for()
    assert result.get_by_test_id("roll-total").inner_text() == str(expected.total)
    assert result.get_by_test_id("roll-text").inner_text() == shown(expected.text)
    dice = page.eval_on_selector_all("[data-testid=roll-dice] .die", "els => els.map(e => [e.textContent, e.className])")
    assert [d[0] for d in dice] == [str(d.value) for d in expected.dice]
    assert sum("dropped" in d[1] for d in dice) == 1


def test_quick_buttons_advantage_and_exploding_dice_are_marked(context, site):
    page = open_app(context, site["url"] + "/?seed=7").page
    page.get_by_test_id("quick-adv").click()  # 1d20 becomes its advantage form; Roll rolls it
    assert page.get_by_test_id("dice-input").input_value() == "2d20kh1"
    page.get_by_test_id("roll-button").click()
    expected = roll("2d20kh1", random.Random(7))
    assert page.get_by_test_id("roll-text").inner_text() == shown(expected.text)
    rng = random.Random(7)
    roll("2d20kh1", rng)
    # Find an exploding roll from the same seeded stream: the page and this test advance alike.
    page.get_by_test_id("dice-input").fill("6d6!")
    page.get_by_test_id("roll-button").click()
    second = roll("6d6!", rng)
    assert page.get_by_test_id("roll-text").inner_text() == shown(second.text)
    exploded = page.eval_on_selector_all("[data-testid=roll-dice] .die.exploded", "els => els.length")
    assert exploded == sum(d.exploded for d in second.dice)


def test_odds_update_as_you_type_and_a_refused_expression_clears_them_and_says_why(context, site):
    """Issue 51, item 10: `2d6` then `1000d6!p` showed "too many to estimate" above 2d6's mean and
    P(total >= 7): a refused expression clears the panel and says why, whatever refused it (its
    notation, or the estimate's cost), and the next good one draws its own odds."""
    page = open_app(context, site["url"] + "/").page
    box = page.get_by_test_id("dice-input")
    box.fill("2d6")
    page.wait_for_function("document.querySelector('[data-testid=odds-mean]').textContent.includes('7.00')")
    page.get_by_test_id("odds-target").fill("10")
    expected = f"{distribution('2d6').at_least(10) * 100:.2f}%"
    page.wait_for_function(f"document.querySelector('[data-testid=odds-at-least]').textContent.includes('{expected}')")
    bars = page.eval_on_selector_all("[data-testid=odds-chart] i", "els => els.length")
    assert bars == 11
    for refused, why in (("2d6+", "expected"), ("1000d6!p", "too many to estimate")):
        box.fill(refused)
        page.wait_for_function("([e, w]) => document.getElementById('odds-body').dataset.expr === e"
                               " && document.querySelector('[data-testid=dice-error]').textContent.includes(w)", arg=[refused, why],
                               timeout=20_000)
        assert page.get_by_test_id("odds-mean").count() == 0 and page.get_by_test_id("odds-chart").count() == 0
        assert page.get_by_test_id("odds-at-least").count() == 0
        assert why in page.get_by_test_id("odds-refused").inner_text()
        box.fill("2d6")
        page.wait_for_function("document.querySelector('[data-testid=odds-mean]')?.textContent.includes('7.00')")
    box.fill("4d6kh3")
    page.wait_for_function("document.querySelector('[data-testid=odds-mean]').textContent.includes('12.24')")
    assert page.get_by_test_id("dice-error").inner_text() == ""


def test_history_and_saved_rolls_survive_reload_and_history_clears(context, site):
    page = open_app(context, site["url"] + "/?seed=1").page
    page.get_by_test_id("dice-input").fill("1d20+5")
    page.get_by_test_id("roll-button").click()
    page.get_by_test_id("dice-input").fill("2d20+3")
    page.get_by_test_id("save-name").fill("Longsword <b>")
    page.get_by_test_id("save-roll").click()
    page.get_by_test_id("roll-button").click()
    page.reload()
    wait_ready(page)
    items = page.get_by_test_id("history-item").all_inner_texts()
    assert len(items) == 2 and "2d20" in items[0] and "1d20" in items[1]
    saved = page.get_by_test_id("saved-roll")
    assert saved.inner_text() == "Longsword <b>: 2d20+3"
    saved.click()
    assert len(page.get_by_test_id("history-item").all_inner_texts()) == 3
    page.get_by_test_id("clear-history").click()
    assert page.get_by_test_id("history-item").count() == 0
    page.reload()
    wait_ready(page)
    assert page.get_by_test_id("history-item").count() == 0
    assert page.get_by_test_id("saved-roll").count() == 1


def test_invalid_and_absurd_notation_gets_a_clear_message(context, site):
    page = open_app(context, site["url"] + "/").page
    for text, words in [("6d0", "at least one side"), ("1001d6", "at most 1,000"), ("1d20 + * 3", "character 8"),
                        ("1d6/0", "Division by zero")]:
        page.get_by_test_id("dice-input").fill(text)
        page.get_by_test_id("roll-button").click()
        page.wait_for_function(
            f"document.querySelector('[data-testid=dice-error]').textContent.includes({words!r})", timeout=10_000
        )


def test_new_notation_reads_rolls_and_marks_crits_in_the_history(context, site):
    """Functions, crit markers and sorting roll in the browser exactly as in the engine; the line under
    the input says how a surprising expression was read, and goes when it is written the usual way."""
    page = open_app(context, site["url"] + "/?seed=5").page
    box = page.get_by_test_id("dice-input")
    box.fill("2d6>=7")
    page.wait_for_function("document.querySelector('[data-testid=dice-reading]').textContent.includes('always 0')")
    assert "2d6 >= 7" in page.get_by_test_id("dice-reading").inner_text()
    box.fill("2d6 >= 7")
    page.wait_for_function("document.getElementById('odds-body').dataset.expr === '2d6 >= 7'")
    assert page.get_by_test_id("dice-reading").inner_text() == ""
    box.fill("floor(1d6/2)")
    page.wait_for_function("document.querySelector('[data-testid=odds-mean]').textContent.includes('1.50')")

    rng = random.Random(5)
    for text in ("10d20cs>=19cf<=2sd", "ceil((1d20+5)/2) + max(1d4, 1d4) % 3"):
        box.fill(text)
        page.get_by_test_id("roll-button").click()
        expected = roll(text, rng)
        page.wait_for_function(f"document.querySelector('[data-testid=roll-text]').textContent === {shown(expected.text)!r}")
        assert page.get_by_test_id("roll-total").inner_text() == str(expected.total)
    first = roll("10d20cs>=19cf<=2sd", random.Random(5))
    assert first.crits and first.fumbles  # the seed was chosen so that both show
    dice = page.get_by_test_id("roll-history").get_by_test_id("history-item").nth(1)
    crit = f"crit ×{first.crits}" if first.crits > 1 else "crit"
    fumble = f"fumble ×{first.fumbles}" if first.fumbles > 1 else "fumble"
    assert dice.get_by_test_id("history-crit").inner_text() == crit
    assert dice.get_by_test_id("history-fumble").inner_text() == fumble
    box.fill("10d20cs>=19cf<=2sd")
    page.get_by_test_id("roll-button").click()
    again = roll("10d20cs>=19cf<=2sd", rng)
    page.wait_for_function(f"document.querySelector('[data-testid=roll-text]').textContent === {shown(again.text)!r}")
    marked = page.eval_on_selector_all("[data-testid=roll-dice] .die", "els => els.map(e => e.className)")
    assert sum("crit" in c for c in marked) == sum(d.crit for d in again.dice)
    assert [d.value for d in again.dice] == sorted((d.value for d in again.dice), reverse=True)
