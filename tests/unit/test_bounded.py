"""Never freeze: every exact computation draws from one work budget, nothing recursive can be driven
past its limit by input of allowed size, and an expression over budget can still be estimated."""

from __future__ import annotations

import random
import signal
from collections import Counter
from contextlib import contextmanager

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from pyengine.dice import MAX_TEXT, Budget, Estimate, distribution, distribution_ast, parse, roll, roll_total, sample
from pyengine.errors import DiceLimitError, DiceValueError, DiceWorkError, EngineError
from pyengine.odds import DEFAULT_WORK, convolve, power

# The expressions that froze the page or never returned (issue: never freeze, never brick).
FROZE = [
    "1d10000+1d10000", "10d10000", "1000d10000", "100d6!", "100d6!!", "1000d6", "+".join(["d20"] * 250),
    "1d20!>1", "2d10000", "1d10000kh1",
]


class Hang(Exception):
    pass


# A guard against a true hang only, far above any answer (the budget is what bounds the work):
# a loaded machine must not fail a test by its clock.
HANG_SECONDS = 60


@contextmanager
def watchdog(seconds: float):
    """Fails the test if the block runs past `seconds`: a guard against hangs, not a timing figure
    (the figures are in `python3 build.py bench`)."""
    def fire(signum, frame):
        raise Hang(f"still running after {seconds} s")

    old = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


@pytest.mark.parametrize("expression", FROZE)
def test_expressions_that_froze_give_an_answer_or_a_limit_error(expression):
    with watchdog(5):
        try:
            dist = distribution(expression)
        except DiceLimitError:
            return
    assert sum(dist.pmf.values()) + dist.residual == pytest.approx(1.0, abs=1e-9)


@pytest.mark.parametrize("expression", ["1d6r<6!", "1d6r1!>=2", "1d4r<=3!!", "1d8r<8!p"])
def test_an_explosion_on_every_face_a_reroll_leaves_is_refused(expression):
    # The reroll removes the faces the explosion would not match: one live state kept probability 1.
    with watchdog(5), pytest.raises(DiceValueError, match="explode forever"):
        parse(expression)


def test_an_explosion_on_some_remaining_faces_still_works():
    dist = distribution("1d6r1!>=5")  # faces 2..6, explodes on 5 and 6
    assert dist.min == 2 and dist.residual < 1e-11
    assert dist.probability(2) == pytest.approx(1 / 5)


def test_small_budget_stops_each_kind_of_loop_with_a_work_error():
    # Sums (window), products (combine), keep/drop programme, explosion chain, group join, group order statistics.
    for expression in ("1000d6", "1d100*1d100*1d20", "20d20kh10", "1d20!>2", "{1d20,1d20,1d20,1d20,1d20}kh2>10",
                       "{1d100, 2d100, 3d100, 4d100}kh2"):
        budget = Budget(20_000)
        with pytest.raises(DiceWorkError):
            distribution(expression, budget)
        # Refused before the loop ran: what was spent is the work done, never past the limit (issue 49,
        # item 6: the page counts it), and what the loop asked for was more than was left.
        assert 0 <= budget.left < budget.limit and budget.used <= budget.limit


def test_the_same_expression_fits_a_larger_budget():
    budget = Budget(DEFAULT_WORK)
    dist = distribution("20d20kh10", budget)
    assert 0 < budget.used <= DEFAULT_WORK
    assert dist.min == 10 and dist.max == 200


def test_long_sums_roll_and_describe_without_recursion_errors():
    text = "+".join(["1"] * 499)  # 997 characters, under the 1,000 cap
    assert len(text) <= MAX_TEXT
    result = roll(text, random.Random(1))
    assert result.total == 499
    assert result.text == " + ".join(["1"] * 499) + " = 499"
    assert distribution(text).pmf == {499: 1.0}


def test_long_mixed_chains_keep_precedence_in_text():
    text = "-".join(["2*3"] * 150)
    result = roll(text, random.Random(1))
    assert result.total == 6 - 6 * 149
    assert result.text.startswith("2 * 3 - 2 * 3 - ")
    assert roll("1-(2-3)", random.Random(1)).text == "1 - (2 - 3) = 2"
    assert roll("10/(3-1)/2", random.Random(1)).text == "10 / (3 - 1) / 2 = 2"


def test_sum_of_identical_dice_by_sliding_window_is_exact():
    # Against the plain convolution on small cases and the closed form at the extremes.
    d6 = {f: 1 / 6 for f in range(1, 7)}
    direct = {0: 1.0}
    for _ in range(7):
        out: dict[int, float] = {}
        for x, p in direct.items():
            for y, q in d6.items():
                out[x + y] = out.get(x + y, 0.0) + p * q
        direct = out
    window = power(d6, 7)
    assert window.keys() == direct.keys()
    for v in direct:
        assert window[v] == pytest.approx(direct[v], rel=1e-9)
    ten = distribution("10d10000")
    assert ten.min == 10 and ten.max == 100_000 and len(ten.pmf) == 99_991
    assert ten.probability(10) == pytest.approx(1e-40, rel=1e-6)       # both tails keep precision
    assert ten.probability(100_000) == pytest.approx(1e-40, rel=1e-6)
    two = convolve({v: 1 / 6 for v in range(1, 7)}, {v: 1 / 100 for v in range(1, 101)})
    assert 1 not in two and two[2] == pytest.approx(1 / 600) and two[7] == pytest.approx(6 / 600)


def test_keep_highest_one_uses_order_statistics():
    dist = distribution("1d10000kh1")
    assert len(dist.pmf) == 10_000 and dist.probability(1) == pytest.approx(1e-4)
    two = distribution("2d10000kh1")
    assert two.probability(10_000) == pytest.approx(1 - (9_999 / 10_000) ** 2)
    assert distribution("3d6kl1").probability(1) == pytest.approx(1 - (5 / 6) ** 3)


def test_estimate_by_simulation_is_seeded_and_reports_its_margin():
    with pytest.raises(DiceWorkError):
        distribution_ast(parse("1000d20kh500"), Budget())  # past the default budget: refused at once
    ast = parse("100d6!")
    with pytest.raises(DiceWorkError):
        distribution_ast(ast, Budget(3_000))
    first = sample(ast, Estimate(), random.Random(0), 400)
    again = sample(ast, Estimate(), random.Random(0), 400)
    assert first.counts == again.counts and first.rolls == 400
    dist = first.distribution()
    assert sum(dist.pmf.values()) == pytest.approx(1.0)
    assert 400 < dist.mean < 440  # 100 * 3.5 * 6/5 = 420
    p = dist.at_least(420)
    assert first.margin(p) == pytest.approx(1.96 * (p * (1 - p) / 400) ** 0.5)


def test_estimate_counts_rolls_past_a_cap_as_refused():
    est = sample(parse("1d20!>1"), Estimate(), random.Random(3), 300)
    assert est.rolls + est.refused == 300 and est.refused > 0  # chains of over 100 dice


# -- property: any expression within the caps answers or refuses, and never hangs ----------

SIDES = st.sampled_from(["4", "6", "20", "100", "%", "F", "10000", "9999", "2", "1"])
MODS = st.sampled_from(["", "!", "!!", "!p", "!>=5", "e6", "r1", "ro<3", "rr2", "ra6", "kh3", "kl1", "k2", "dl1", "dh2",
                        "p1", "k>3", "mi2", "ma5", ">=5", "<3", "f1", "kh1", "kh50", "!kh20", "r<=2!"])


@st.composite
def dice_term(draw):
    count = draw(st.sampled_from(["", "1", "2", "3", "10", "40", "100", "250", "999", "1000"]))
    return f"{count}d{draw(SIDES)}{draw(MODS)}{draw(MODS)}"


@st.composite
def expression(draw, depth=0):
    kind = draw(st.integers(0, 6 if depth < 3 else 2))
    if kind == 0:
        return str(draw(st.integers(0, 10**9)))
    if kind in (1, 2):
        return draw(dice_term())
    if kind == 3:
        return "(" + draw(expression(depth + 1)) + ")"
    if kind == 4:
        items = draw(st.lists(expression(depth + 1), min_size=1, max_size=4))
        return "{" + ",".join(items) + "}" + draw(st.sampled_from(["", "kh1", "kl2", "k1", ">=3", "dl1"]))
    if kind == 5:
        # Sampled, not st.integers: Hypothesis also draws integers from the constants of the project's
        # own modules, so how many sums ran past the length cap moved with whatever code was imported.
        n = draw(st.sampled_from([2, 3, 4, 6, 10, 20, 50, 120, 300]))
        term = draw(dice_term()) if draw(st.booleans()) else draw(st.sampled_from(["d20", "1", "2d6"]))
        return draw(st.sampled_from(["+", "-", "*"])).join([term] * n)
    op = draw(st.sampled_from(["+", "-", "*", "/", " >= ", " == ", " < "]))
    return draw(expression(depth + 1)) + op + draw(expression(depth + 1))


def test_any_expression_within_the_caps_answers_or_refuses():
    """Every expression parses or is refused; a parsed one rolls or is refused; its exact odds come
    within the work budget or are refused by it. Bounded by counted work, not by seconds (a loaded
    machine made a 3-second alarm fail here): an answer never used more than the budget, and a
    refusal stopped as soon as the budget ran out. Over half the examples must get that far, or the test
    would pass on refusals alone."""
    seen: Counter[str] = Counter()

    # No 'explain' phase: its tracing slows every example tenfold.
    @settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck),
              phases=(Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink))
    @given(expression(), st.integers(0, 2**32))
    def check(text: str, seed: int) -> None:
        text = text[:MAX_TEXT + 20]
        seen["examples"] += 1
        with watchdog(HANG_SECONDS):
            try:
                ast = parse(text)
            except EngineError:
                return
            seen["parsed"] += 1
            try:
                result = roll(text, random.Random(seed))
                assert isinstance(result.total, int) and result.text
                roll_total(ast, random.Random(seed))
                seen["rolled"] += 1
            except EngineError:
                pass
            budget = Budget(DEFAULT_WORK)
            try:
                dist = distribution_ast(ast, budget)
            except DiceWorkError:
                # The budget ran out, or a form has no exact method (said at once, before any work).
                seen["over budget" if budget.left < 0 else "no exact method"] += 1
                return
            except EngineError:
                return
            assert budget.used <= budget.limit
            assert sum(dist.pmf.values()) + dist.residual == pytest.approx(1.0, abs=1e-6)
            seen["computed"] += 1

    check()
    # Over half parse (measured 58-60 %; the rest are refused by the caps on purpose: 999d10000, sums
    # past the length cap ...), and of those most roll and many get exact odds.
    assert seen["parsed"] >= 0.5 * seen["examples"], seen
    assert seen["rolled"] >= 0.5 * seen["parsed"], seen
    assert seen["computed"] >= 0.3 * seen["parsed"], seen


@pytest.mark.parametrize("text", ["(" * 40 + "1" + ")" * 40, "-" * 40 + "1", "{" * 40 + "1" + "}" * 40,
                                  "(" * 39 + "+".join(["1d6"] * 200) + ")" * 39])
def test_deepest_allowed_nesting_rolls_and_computes(text):
    roll(text, random.Random(1))
    distribution(text)


def test_nesting_past_the_cap_is_refused():
    with pytest.raises(DiceLimitError):
        parse("(" * 41 + "1" + ")" * 41)
