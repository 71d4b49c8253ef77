"""Dice engine: notation, annotated rolls with scripted faces, exact odds against known values and
against seeded simulation, limits and errors."""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from fractions import Fraction

import pytest
from hypothesis import given, reject, settings
from hypothesis import strategies as st

from pyengine.dice import Distribution, distribution, parse, roll
from pyengine.errors import DiceLimitError, DiceSyntaxError, DiceValueError, EngineError
from tests.unit.scripted import Scripted

# -- rolling with scripted faces -----------------------------------------------------------

@pytest.mark.parametrize(
    "expression, faces, total, text",
    [
        ("4d6kh3", [6, 5, 1, 3], 14, "4d6kh3 (6, 5, ~~1~~, 3) = 14"),
        ("1d20+5", [15], 20, "1d20 (15) + 5 = 20"),
        ("d20", [7], 7, "d20 (7) = 7"),
        ("2d20kl1", [4, 17], 4, "2d20kl1 (4, ~~17~~) = 4"),
        ("2d20k1", [4, 17], 17, "2d20k1 (~~4~~, 17) = 17"),
        ("4d6d1", [2, 6, 3, 5], 14, "4d6d1 (~~2~~, 6, 3, 5) = 14"),
        ("4d6dh1", [2, 6, 3, 5], 10, "4d6dh1 (2, ~~6~~, 3, 5) = 10"),
        ("4d6p1", [1, 6, 1, 5], 11, "4d6p1 (~~1~~, 6, ~~1~~, 5) = 11"),
        ("4d6pl1", [2, 6, 3, 5], 14, "4d6pl1 (~~2~~, 6, 3, 5) = 14"),
        ("3d6k>3", [2, 6, 4], 10, "3d6k>3 (~~2~~, 6, 4) = 10"),
        ("8d6!", [6, 2, 1, 1, 1, 1, 1, 1, 1], 15, "8d6! (6!, 2, 1, 1, 1, 1, 1, 1, 1) = 15"),
        ("1d6!>=5", [5, 6, 2], 13, "1d6!>=5 (5!, 6!, 2) = 13"),
        ("1d6!=3", [3, 3, 6], 12, "1d6!=3 (3!, 3!, 6) = 12"),
        ("1d6e6", [6, 4], 10, "1d6e6 (6!, 4) = 10"),
        ("1d6!!", [6, 6, 2], 14, "1d6!! (6!, 6!, 2) = 14"),
        ("1d6!p", [6, 6, 2], 12, "1d6!p (6!, 5!, 1) = 12"),
        ("4d6r1", [1, 1, 5, 2, 3, 4], 14, "4d6r1 (~~1~~, ~~1~~, 5, 2, 3, 4) = 14"),
        ("1d20ro<3", [2, 1], 1, "1d20ro<3 (~~2~~, 1) = 1"),
        ("1d20rr1", [1, 1, 9], 9, "1d20rr1 (~~1~~, ~~1~~, 9) = 9"),
        ("2d6ra6", [6, 3, 2], 11, "2d6ra6 (6, 3, 2) = 11"),
        ("2d6ra6", [6, 6, 2], 14, "2d6ra6 (6, 6, 2) = 14"),  # Avrae: one die more a roll, however many match
        ("1d20mi10", [3], 10, "1d20mi10 (10) = 10"),
        ("1d20ma15", [19], 15, "1d20ma15 (15) = 15"),
        ("5d10>=8", [8, 1, 10, 3, 7], 2, "5d10>=8 (8, 1, 10, 3, 7) = 2"),
        ("5d10>=8f1", [8, 1, 10, 3, 7], 1, "5d10>=8f1 (8, 1, 10, 3, 7) = 1"),
        ("5d10f<=2", [8, 1, 10, 2, 7], -2, "5d10f<=2 (8, 1, 10, 2, 7) = -2"),
        ("3d6<3", [1, 3, 2], 2, "3d6<3 (1, 3, 2) = 2"),
        ("{2d6+3, 1d20}kh1", [3, 4, 15], 15, "{~~2d6 (3, 4) + 3~~, 1d20 (15)}kh1 = 15"),
        ("(2d6+3, 1d20)kh1", [3, 4, 5], 10, "(2d6 (3, 4) + 3, ~~1d20 (5)~~)kh1 = 10"),
        ("{1d20, 1d20, 1d20}>=10", [10, 9, 20], 2, "{1d20 (10), 1d20 (9), 1d20 (20)}>=10 = 2"),
        ("2d6[fire] + 1d4[cold]", [3, 4, 2], 9, "2d6 (3, 4) [fire] + 1d4 (2) [cold] = 9"),
        ("(1+2)*3", [], 9, "(1 + 2) * 3 = 9"),
        ("7/2", [], 3, "7 / 2 = 3"),
        ("-7/2", [], -4, "-7 / 2 = -4"),
        ("10-(2-1)", [], 9, "10 - (2 - 1) = 9"),
        ("-1d4", [3], -3, "-1d4 (3) = -3"),
        ("1d20 >= 10", [12], 1, "1d20 (12) >= 10 = 1"),
        ("1d20 < 10", [12], 0, "1d20 (12) < 10 = 0"),
        ("2d6 == 7", [3, 4], 1, "2d6 (3, 4) == 7 = 1"),
        ("2d6 != 7", [3, 4], 0, "2d6 (3, 4) != 7 = 0"),
        ("4dF", [-1, 0, 1, 1], 1, "4dF (-1, 0, 1, 1) = 1"),
        ("d%", [42], 42, "d% (42) = 42"),
        ("0d6+1", [], 1, "0d6 () + 1 = 1"),
    ],
)
def test_roll_with_scripted_faces(expression, faces, total, text):
    rng = Scripted(faces)
    result = roll(expression, rng)
    assert result.total == total
    assert result.text == text
    assert rng.left == []


def test_roll_flags_every_die():
    """An exploded die's extra dice are dice of their own for keep/drop: the best 3 of 6, 2, 5, 1, 3."""
    result = roll("4d6kh3!", Scripted([6, 2, 5, 1, 3]))
    assert [d.flags() for d in result.dice] == [
        ("exploded", "natural_max"), ("dropped", "added"), (), ("dropped", "natural_min"), (),
    ]
    first, added, five, one, three = result.dice
    assert first.exploded and first.natural_max and first.kept
    assert added.added and added.value == 2 and not added.kept
    assert five.kept and not five.dropped
    assert one.dropped and one.natural_min
    assert three.kept
    assert result.total == 6 + 5 + 3
    assert result.text == "4d6kh3! (6!, ~~2~~, 5, ~~1~~, 3) = 14"


def test_success_and_failure_flags():
    result = roll("4d10>=8f1", Scripted([9, 1, 4, 8]))
    assert [(d.success, d.failure) for d in result.dice] == [(True, False), (False, True), (False, False), (True, False)]
    assert result.total == 1


def test_compound_counts_the_unit_total_for_successes():
    # 6+5 = 11 is one die of 11 for success counting, not a 6 and a 5. A comparison right after
    # ! belongs to the explosion, so the explosion face is written out before the target.
    assert roll("1d6!!6>=10", Scripted([6, 5])).total == 1
    assert roll("1d6!6>=6", Scripted([6, 5])).total == 1
    assert parse("1d6!!>=5").explode.cmp.op == ">="


def test_labels_are_kept_on_dice():
    result = roll("2d6[fire] + 1d4[cold]", Scripted([1, 2, 3]))
    assert [d.label for d in result.dice] == ["fire", "fire", "cold"]


def test_roll_uses_rng_parameter_deterministically():
    a = roll("10d20kh3+4d6!", random.Random(7))
    b = roll("10d20kh3+4d6!", random.Random(7))
    assert a.text == b.text and a.total == b.total


def test_reroll_until_never_hangs_and_stays_in_allowed_faces():
    # A die that matches 19 of 20 faces: after 100 rerolls it draws from the allowed face directly.
    class Always1:
        def __init__(self):
            self.calls = 0

        def randint(self, a, b):
            self.calls += 1
            return a  # 1 on a d20 face draw, index 0 on the direct draw

    rng = Always1()
    result = roll("1d20r<20", rng)
    assert result.total == 20
    assert rng.calls == 101


def test_to_dict_is_json_ready():
    import json

    data = roll("2d6!", Scripted([6, 1, 3])).to_dict()
    assert json.loads(json.dumps(data))["total"] == 10
    assert data["dice"][0]["flags"] == ["exploded", "natural_max"]


# -- errors and limits ---------------------------------------------------------------------

@pytest.mark.parametrize(
    "text, pos",
    [("", 0), ("1d", 2), ("2d6+", 4), ("abc", 0), ("(1+2", 4), ("4d6k", 4), ("1d20 + * 3", 7), ("2d6)", 3)],
)
def test_syntax_errors_say_where(text, pos):
    with pytest.raises(DiceSyntaxError) as info:
        parse(text)
    assert info.value.pos == pos
    assert f"character {pos + 1}" in str(info.value)
    assert "expected" in str(info.value)


@pytest.mark.parametrize(
    "text",
    ["1001d6", "600d6+401d6", "1d10001", "1d6+" * 300 + "1", "(" * 50 + "1" + ")" * 50, "1d6*99999999999"],
)
def test_limits_raise_dice_limit_error(text):
    with pytest.raises(DiceLimitError):
        parse(text)


@pytest.mark.parametrize(
    "text",
    ["6d0", "1d20mi21", "1d20ma0", "1d6r<7", "1d6!>0", "1d6mi4ma3", "2d6ra6!"],
)
def test_impossible_requests_raise_value_error(text):
    with pytest.raises(DiceValueError):
        parse(text)


def test_division_by_zero_is_a_value_error():
    with pytest.raises(DiceValueError):
        roll("1d6/0", Scripted([3]))
    with pytest.raises(DiceValueError):
        distribution("1d6/(1d2-1)")


def test_explosion_chain_is_capped_when_rolling():
    class Sixes:
        def randint(self, a, b):
            return b

    with pytest.raises(DiceLimitError):
        roll("1d6!", Sixes())


def test_all_errors_are_engine_errors():
    for cls in (DiceSyntaxError, DiceLimitError, DiceValueError):
        assert issubclass(cls, EngineError)


# -- exact odds ----------------------------------------------------------------------------

def brute(faces: int, count: int, fn) -> dict[int, Fraction]:
    """Enumerate every roll: the reference the engine's dynamic programmes must match."""
    from itertools import product

    out: dict[int, Fraction] = {}
    for dice in product(range(1, faces + 1), repeat=count):
        v = fn(list(dice))
        out[v] = out.get(v, Fraction(0)) + Fraction(1, faces**count)
    return out


def assert_matches(dist: Distribution, exact: dict[int, Fraction]) -> None:
    assert set(dist.pmf) == set(exact)
    for value, p in exact.items():
        assert dist.pmf[value] == pytest.approx(float(p), abs=1e-12)


@pytest.mark.parametrize(
    "expression, faces, count, fn",
    [
        ("4d6kh3", 6, 4, lambda d: sum(sorted(d)[1:])),
        ("4d6dl1", 6, 4, lambda d: sum(sorted(d)[1:])),
        ("4d6kl2", 6, 4, lambda d: sum(sorted(d)[:2])),
        ("4d6dh1", 6, 4, lambda d: sum(sorted(d)[:3])),
        ("5d4kh2", 4, 5, lambda d: sum(sorted(d)[-2:])),
        ("3d8k>4", 8, 3, lambda d: sum(x for x in d if x > 4)),
        ("4d6p1kh2", 6, 4, lambda d: sum(sorted(x for x in d if x != 1)[-2:])),
        ("5d10>=8", 10, 5, lambda d: sum(x >= 8 for x in d)),
        ("5d10>=8f1", 10, 5, lambda d: sum(x >= 8 for x in d) - sum(x == 1 for x in d)),
        ("4d10kh2>=6", 10, 4, lambda d: sum(x >= 6 for x in sorted(d)[-2:])),
        ("3d6mi2ma5", 6, 3, lambda d: sum(min(5, max(2, x)) for x in d)),
    ],
)
def test_distribution_matches_enumeration(expression, faces, count, fn):
    assert_matches(distribution(expression), brute(faces, count, fn))


@pytest.mark.parametrize("expr", ["2d6ra<3", "3d4ra4", "3d6ra6>=5", "2d4mi2ra2", "1d8ra>6"])
def test_reroll_and_add_is_avraes_one_die_more_a_roll_checked_by_enumeration(expr):
    """Avrae's `ra` ("rerolls up to one matched value once"): when any die matches, exactly one
    more die joins the roll. Every face combination enumerated, the extra die included."""
    import itertools
    from fractions import Fraction

    from pyengine.dice import parse

    dice = parse(expr)
    while not hasattr(dice, "reroll"):
        dice = dice.left  # 3d6ra6>=5: the dice under the success count
    faces = range(1, int(dice.label_sides) + 1)
    clamp = (lambda v: max(v, 2)) if "mi2" in expr else (lambda v: v)
    counting = ">=5" in expr

    def worth(values):
        return sum(v >= 5 for v in values) if counting else sum(values)

    want: dict[int, Fraction] = {}
    for combo in itertools.product(faces, repeat=dice.count):
        values = [clamp(v) for v in combo]
        p = Fraction(1, len(faces) ** dice.count)
        if any(dice.reroll.cmp.test(v) for v in values):
            for extra in faces:
                total = worth([*values, clamp(extra)])
                want[total] = want.get(total, 0) + p / len(faces)
        else:
            want[worth(values)] = want.get(worth(values), 0) + p
    got = distribution(expr).pmf
    assert set(got) == set(want)
    assert all(got[v] == pytest.approx(float(q), abs=1e-15) for v, q in want.items())


def test_known_values():
    assert distribution("2d6").at_least(7) == pytest.approx(21 / 36)
    assert distribution("4d6kh3").mean == pytest.approx(15869 / 1296)
    assert distribution("2d20kh1").at_least(11) == pytest.approx(1 - (10 / 20) ** 2)
    assert distribution("1d20ro1").mean == pytest.approx(10.5 + (10.5 - 1) / 20)
    assert distribution("1d4r1").pmf == pytest.approx({2: 1 / 3, 3: 1 / 3, 4: 1 / 3})
    assert distribution("4dF").pmf[0] == pytest.approx(19 / 81)
    assert distribution("1d20 >= 11").pmf == pytest.approx({0: 0.5, 1: 0.5})
    assert distribution("2d6ra6").mean == pytest.approx(7 + 11 / 36 * 3.5)  # one die more when any die shows 6
    d = distribution("1d6+1d4-2")
    assert (d.min, d.max) == (0, 8)
    assert distribution("7/2").pmf == {3: 1.0}


def test_exploding_distribution_reports_residual():
    d = distribution("8d6!")
    assert 0 < d.residual < 1e-11
    assert sum(d.pmf.values()) + d.residual == pytest.approx(1.0, abs=1e-15)
    assert d.mean == pytest.approx(8 * 3.5 * 6 / 5, rel=1e-9)
    single = distribution("1d6!")
    assert 6 not in single.pmf  # a 6 always explodes
    assert single.pmf[7] == pytest.approx(1 / 36)
    assert single.pmf[12 + 3] == pytest.approx(1 / 216)


def test_penetrating_and_compound():
    pen = distribution("1d6!p")
    assert pen.pmf[6 + 0] == pytest.approx(1 / 36)  # 6, then 1 counted as 0
    comp = distribution("1d6!!")
    assert comp.pmf == pytest.approx(distribution("1d6!").pmf)


def test_group_odds_keep_highest():
    d = distribution("{1d6, 1d6}kh1")
    assert_matches(d, brute(6, 2, max))
    g = distribution("{1d20, 1d20, 1d20}>=10")
    assert g.mean == pytest.approx(3 * 11 / 20)


def chi_square_p(observed: dict[int, int], expected: dict[int, float], n: int) -> float:
    """Upper tail of the chi-square statistic (Wilson-Hilferty), bins with expected < 5 merged."""
    bins: list[tuple[float, int]] = []
    acc_e, acc_o = 0.0, 0
    for value in sorted(expected):
        acc_e += expected[value] * n
        acc_o += observed.get(value, 0)
        if acc_e >= 5:
            bins.append((acc_e, acc_o))
            acc_e, acc_o = 0.0, 0
    if acc_e and bins:
        e, o = bins.pop()
        bins.append((e + acc_e, o + acc_o))
    stat = sum((o - e) ** 2 / e for e, o in bins)
    k = len(bins) - 1
    z = ((stat / k) ** (1 / 3) - (1 - 2 / (9 * k))) / math.sqrt(2 / (9 * k))
    return 0.5 * math.erfc(z / math.sqrt(2))


@pytest.mark.parametrize(
    "expression",
    ["4d6kh3", "10d20kh3", "8d6!", "6d10>=8", "3d20kh1+2", "{2d6+3, 1d20}kh1", "4d10!>=8f1",
     "2d6ra6", "1d20ro<3", "3d6r1mi2", "4d6p1kh2", "2d10!p", "3d6!!", "1d20 >= 1d20"],
)
def test_distribution_agrees_with_seeded_simulation(expression):
    rng = random.Random(20261122)
    n = 20000
    observed: dict[int, int] = {}
    for _ in range(n):
        total = roll(expression, rng).total
        observed[total] = observed.get(total, 0) + 1
    dist = distribution(expression)
    assert set(observed) <= set(dist.pmf)
    assert chi_square_p(observed, dist.pmf, n) > 1e-4


# -- properties ----------------------------------------------------------------------------

ALPHABET = "0123456789d%F+-*/()[]{},!<>=khlpremiafcs xy"


@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.text(alphabet=ALPHABET, max_size=24))
def test_any_text_parses_or_raises_engine_error(text):
    try:
        parse(text)
    except EngineError:
        pass


TOKENS = st.sampled_from(["1d20", "2d6", "4d6kh3", "3d8!", "d%", "4dF", "5", "2d10>=7", "3d6r1", "2d4ro1", "{1d6, 1d8}kh1", "1d12mi3",
                          "floor(1d6/2)", "max(1d20, 1d20)", "1d20cs>=19", "4d6sd", "2d6!!p", "abs(1d6-3)", "round(3d6/4)",
                          "min(2d4, 5)", "ceil(1d8/3)"])
FRAGMENTS = st.sampled_from(["floor(", "ceil(", "round(", "abs(", "max(", "min(", ")", ",", "/", "%", "1d6", "2d20", "cs>19",
                             "cf<2", "s", "sd", "sa", "!!p", "!p", "kh1", "3", "-", "+", " ", "[x]", ">=7", " >= ", "!=", "0"])


DICE_TERM = st.builds(
    lambda n, sides, mods: f"{n}d{sides}{''.join(mods)}", st.integers(0, 4), st.sampled_from([4, 6, 8, 20]),
    st.lists(st.sampled_from(["cs>=3", "cf<2", "s", "sd", "!!p", "!p", "!", "kh1", "dl1", "r1", "mi2", ">=3"]), max_size=3),
)
EXPRESSIONS = st.recursive(
    DICE_TERM | st.integers(0, 9).map(str),
    lambda inner: st.one_of(
        st.tuples(inner, st.sampled_from(["+", "-", "*", "/", "%", " >= "]), inner).map("".join),
        st.tuples(st.sampled_from(["floor", "ceil", "round"]), inner, inner).map(lambda t: f"{t[0]}({t[1]}/{t[2]})"),
        st.tuples(st.sampled_from(["abs", "floor", "round"]), inner).map(lambda t: f"{t[0]}({t[1]})"),
        st.tuples(st.sampled_from(["max", "min"]), st.lists(inner, min_size=2, max_size=3)).map(lambda t: f"{t[0]}({', '.join(t[1])})"),
        inner.map(lambda x: f"({x})"),
    ),
    max_leaves=5,
)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.one_of(st.lists(FRAGMENTS, max_size=10).map("".join), EXPRESSIONS), st.integers(0, 2**32))
def test_new_notation_fragments_parse_roll_and_read_or_say_why(text, seed):
    """Functions, %, crit markers, sorting and !!p in any order: a parse or an engine error; what
    parses rolls to a total its exact odds contain, and its reading never raises."""
    from pyengine.errors import DiceWorkError
    from pyengine.reading import readings

    try:
        ast = parse(text)
    except EngineError:
        return
    readings(ast)
    try:
        dist = distribution(text)
    except (DiceWorkError, DiceLimitError, DiceValueError):
        return
    assert roll(text, random.Random(seed)).total in dist.pmf


@settings(max_examples=120, deadline=None, derandomize=True)
@given(st.lists(TOKENS, min_size=1, max_size=3), st.lists(st.sampled_from(["+", "-", "*"]), min_size=2, max_size=2), st.integers(0, 2**32))
def test_distribution_sums_to_one_and_contains_every_roll(parts, ops, seed):
    expression = parts[0] + "".join(f" {op} {p}" for op, p in zip(ops, parts[1:]))
    try:
        dist = distribution(expression)
    except DiceLimitError:
        # Products of exploding dice can pass the documented odds cap: a clear refusal is right.
        assert "*" in expression
        reject()
    assert sum(dist.pmf.values()) + dist.residual == pytest.approx(1.0, abs=1e-9)
    rng = random.Random(seed)
    for _ in range(5):
        assert roll(expression, rng).total in dist.pmf


# -- readings aligned with the other rollers (issue: dice notation people already type) ------------

@pytest.mark.parametrize("grouped, plain, faces", [("{2d20}kh1", "2d20kh1", [5, 19]), ("(4d6)dl1", "4d6dl1", [5, 2, 6, 3]),
                                                   ("{3d8}k>4", "3d8k>4", [8, 4, 5])])
def test_keep_or_drop_on_a_group_of_one_item_picks_among_its_dice(grouped, plain, faces):
    """Roll20's rule (Avrae and rpg-dice-roller agree): {2d20}kh1 is 1 to 20, not the sum of both."""
    assert distribution(grouped).pmf == distribution(plain).pmf
    assert roll(grouped, Scripted(faces)).total == roll(plain, Scripted(faces)).total
    assert roll("{2d20}kh1", Scripted([5, 19])).text == "{2d20kh1 (~~5~~, 19)} = 19"


@pytest.mark.parametrize("mixed, dice", [("{4d6+3d8}k4", "{d6,d6,d6,d6,d8,d8,d8}kh4"), ("{4d6+3d8}kl2", "{d6,d6,d6,d6,d8,d8,d8}kl2"),
                                         ("{4d10+5d6}k2", "{d10,d10,d10,d10,d6,d6,d6,d6,d6}kh2")])
def test_keep_over_a_sum_of_several_kinds_of_dice_picks_among_all_its_dice(mixed, dice):
    """Roll20's {4d6+3d8}k4: the 4 highest of the 7 dice (rpg-dice-roller and icepool agree: mean
    20.889), exact, checked against every joint outcome of the seven dice."""
    from pyengine.odds import Budget
    from pyengine.odds.exact import _eval, _joint_group

    node = parse(dice)
    want = _joint_group(node, [_eval(item, Budget())[0] for item in node.items], Budget())
    got = distribution(mixed).pmf
    assert set(got) == set(want) and all(got[v] == pytest.approx(p, abs=1e-14) for v, p in want.items())
    if mixed == "{4d6+3d8}k4":
        assert distribution(mixed).mean == pytest.approx(20.889, abs=5e-4)
        assert roll(mixed, Scripted([2, 5, 1, 3, 2, 8, 8])).total == 5 + 3 + 8 + 8


@pytest.mark.parametrize("text, message", [
    ("3d10k1d1", "Keep or drop by count once"), ("10d6k1ph1", "Keep or drop by count once"),
    ("4d6kh3dl1", "Keep or drop by count once"), ("{2d6,3d6}kh1d1", "Keep or drop by count once"),
    ("4d6kh2k>2", "goes before the keep or drop by count"),
    ("{4d6+3}k2", "Constants, other operations"), ("{2d20kh1}kh1", "picks among its dice"), ("{4d6-3d8}k4", "picks among"),
])
def test_a_reading_that_would_silently_differ_is_refused_with_a_message(text, message):
    """3d10k1d1 used to be always 0: now the roller says why instead of a silent total."""
    with pytest.raises(DiceValueError, match=message):
        parse(text)


def test_a_keep_by_value_then_by_count_still_reads():
    assert roll("4d6k>2kh2", Scripted([2, 5, 1, 3])).total == 8
    assert distribution("4d6k>2kh2").max == 12


def _top_chains(sides: int, explode_from: int, depth: int = 26):
    """Every explosion chain of one die with its probability (cut at `depth` dice)."""
    out = []

    def walk(prefix, p):
        for face in range(1, sides + 1):
            q = p / sides
            if face >= explode_from and len(prefix) < depth:
                walk(prefix + [face], q)
            else:
                out.append((prefix + [face], q))
    walk([], 1.0)
    return out


@pytest.mark.parametrize("text, n, sides, explode_from, keep", [
    ("2d3!kh1", 2, 3, 3, ("kh", 1)), ("3d3!dl1", 3, 3, 3, ("dl", 1)), ("2d3!kh2", 2, 3, 3, ("kh", 2)),
    ("3d3!kl2", 3, 3, 3, ("kl", 2)), ("2d3!dh1", 2, 3, 3, ("dh", 1)),
])
def test_keep_drop_over_exploded_dice_is_exact_against_enumeration(text, n, sides, explode_from, keep):
    """Every die an explosion rolled is a die of its own for keep/drop (Roll20, Foundry, Avrae)."""
    import itertools

    expected: dict[int, float] = {}
    chains = _top_chains(sides, explode_from)
    for combo in itertools.product(chains, repeat=n):
        dice = sorted(f for chain, _ in combo for f in chain)
        p = math.prod(q for _, q in combo)
        how, k = keep
        kept = {"kh": dice[-k:], "kl": dice[:k], "dl": dice[k:], "dh": dice[:-k] if k else dice}[how]
        expected[sum(kept)] = expected.get(sum(kept), 0.0) + p
    got = distribution(text)
    for v, p in expected.items():
        assert got.probability(v) == pytest.approx(p, abs=1e-9)


def test_exploded_dice_kept_separately_in_rolls_and_odds():
    assert distribution("4d6!kh3").max == 18 and distribution("4d6!!kh3").max > 18  # compound stays one die
    assert roll("2d6!kh1", Scripted([6, 6, 2, 4])).total == 6
    from pyengine.dice import roll_total

    for text in ("4d6!kh3", "4d6!>=5kh2", "3d8!dl1"):  # exploding on the top faces: exact, checked by simulation
        rng, ast = random.Random(8), parse(text)
        rolls = [roll_total(ast, rng) for _ in range(30_000)]
        exact = distribution(text)
        standard_error = exact.stdev / len(rolls) ** 0.5
        assert sum(rolls) / len(rolls) == pytest.approx(exact.mean, abs=4 * standard_error)
        target = round(exact.mean)
        assert sum(r >= target for r in rolls) / len(rolls) == pytest.approx(exact.at_least(target), abs=0.012)


def test_exploding_on_middle_faces_with_keep_is_exact_now():
    """3d6!=3kh2 was estimated; the threes and the final faces mix by order statistics (the
    enumeration of every chain checks it below); icepool gives the same mean."""
    assert distribution("3d6!=3kh2").mean == pytest.approx(8.9856, abs=1e-4)
    assert roll("3d6!=3kh2", Scripted([3, 1, 5, 2])).total == 5 + 3


@pytest.mark.parametrize("text, plain, shown", [
    ("2d6 [fire] + 1d4 [cold]", "2d6+1d4", "2d6 (2, 5) [fire] + 1d4 (1) [cold] = 8"),
    ("1d20+5 Stealth", "1d20+5", "1d20 (12) + 5 [Stealth] = 17"),
    ("1d20+5 stealth check (adv)", "1d20+5", "1d20 (12) + 5 [stealth check (adv)] = 17"),
    ("-(1d8 + 3) [healing]", "-(1d8+3)", None),
])
def test_labels_after_a_space_and_a_trailing_comment_read_as_avrae_does(text, plain, shown):
    faces = [2, 5, 1] if "fire" in text else [12] if "Stealth" in text or "stealth" in text else [4]
    result = roll(text, Scripted(faces))
    assert result.total == roll(plain, Scripted(faces)).total
    assert distribution(text).pmf == distribution(plain).pmf
    if shown:
        assert result.text == shown


@pytest.mark.parametrize("text", ["1d20 Stealth + 5", "2d6 d6", "1d20 +", "1d20+5Stealth", "2d6 x 3", "2d6 X3"])
def test_text_that_is_more_of_the_roll_is_not_swallowed_as_a_comment(text):
    with pytest.raises(DiceSyntaxError):
        parse(text)


@pytest.mark.parametrize("text, same_as", [("4d6min3", "4d6mi3"), ("4d6max5", "4d6ma5"), ("1d20r", "1d20r1"),
                                           ("1d20ro+5", "1d20ro1+5"), ("2d6rr", "2d6rr1"), ("4dFr", "4dFr<0")])
def test_rpg_dice_roller_spellings_read_the_same(text, same_as):
    """min3 / max3 are mi3 / ma3; a bare r or ro rerolls the lowest face."""
    assert distribution(text).pmf == distribution(same_as).pmf
    faces = [-1, 0, 1, -1, 1, 0, 0, 1] if "dF" in text else [1, 2, 3, 4, 5, 6] * 3
    assert roll(text, Scripted(list(faces))).total == roll(same_as, Scripted(list(faces))).total


# -- exact odds that reach further (order statistics, negative binomial explosions) ------------

def test_large_sums_and_keeps_match_closed_forms():
    two = distribution("2d10000")  # triangular
    assert two.probability(2) == pytest.approx(1e-8) and two.probability(10_001) == pytest.approx(1e-4)
    top = distribution("10d10000kh1")  # P(max <= v) = (v / 10000)^10
    assert top.at_most(5000) == pytest.approx(0.5 ** 10, rel=1e-9)
    assert top.probability(10_000) == pytest.approx(1 - 0.9999 ** 10, rel=1e-9)
    thousand = distribution("1000d6")
    assert thousand.mean == pytest.approx(3500) and thousand.stdev ** 2 == pytest.approx(1000 * 35 / 12)


@pytest.mark.parametrize("text, n, sides, how, k", [
    ("6d6kh3", 6, 6, "kh", 3), ("6d4kl4", 6, 4, "kl", 4), ("7d3dh2", 7, 3, "dh", 2), ("5d8dl3", 5, 8, "dl", 3),
    ("6d5k5", 6, 5, "kh", 5), ("5d6mi3kh2", 5, 6, "kh", 2),
])
def test_keep_k_of_n_from_order_statistics_against_enumeration(text, n, sides, how, k):
    clamp = 3 if "mi3" in text else 1

    def kept(d):
        d = sorted(max(clamp, x) for x in d)
        return sum({"kh": d[-k:], "kl": d[:k], "dh": d[:-k], "dl": d[k:]}[how])

    assert_matches(distribution(text), brute(sides, n, kept))


def test_explosion_count_is_negative_binomial():
    from pyengine.odds import explosion_count

    counts = explosion_count(1 / 6, 3)
    for k in range(6):
        assert counts.probability(k) == pytest.approx(math.comb(k + 2, k) * (1 / 6) ** k * (5 / 6) ** 3, rel=1e-12)
    assert 0 < counts.residual < 1e-12 and sum(counts.pmf.values()) + counts.residual == pytest.approx(1.0, abs=1e-15)
    many = explosion_count(0.9, 1000)  # (0.1)^1000 underflows: started from the mode
    assert many.mean == pytest.approx(1000 * 0.9 / 0.1, rel=1e-9)


@pytest.mark.parametrize("text", ["100d6!", "100d20kh50", "40d6!kh20", "30d6!p", "20d4!!"])
def test_big_exact_odds_agree_with_seeded_simulation(text):
    from pyengine.dice import roll_total

    rng, ast = random.Random(23), parse(text)
    rolls = [roll_total(ast, rng) for _ in range(4000)]
    exact = distribution(text)
    assert sum(exact.pmf.values()) + exact.residual == pytest.approx(1.0, abs=1e-12)
    assert all(r in exact.pmf for r in rolls)
    standard_error = exact.stdev / len(rolls) ** 0.5
    assert sum(rolls) / len(rolls) == pytest.approx(exact.mean, abs=4 * standard_error)
    median = min(v for v in sorted(exact.pmf) if exact.at_most(v) >= 0.5)
    assert sum(r <= median for r in rolls) / len(rolls) == pytest.approx(exact.at_most(median), abs=0.03)


# -- notation people type: functions, %, crit markers, sorting, !!p ---------------------------

@pytest.mark.parametrize("text, faces, total, shown", [
    ("floor(1d6/2)", [5], 2, "floor(1d6 (5) / 2) = 2"),
    ("ceil(1d6/2)", [5], 3, "ceil(1d6 (5) / 2) = 3"),
    ("round(1d6/2)", [5], 3, "round(1d6 (5) / 2) = 3"),       # halves up, as Math.round in Roll20 / Foundry
    ("round(-5/2)", [], -2, "round(-5 / 2) = -2"),
    ("round(7/-2)", [], -3, "round(7 / -2) = -3"),
    ("ceil((1d20+5)/2)", [10], 8, "ceil((1d20 (10) + 5) / 2) = 8"),
    ("floor(1d8)+ceil(3/2)", [4], 6, "floor(1d8 (4)) + ceil(3 / 2) = 6"),
    ("abs(1d6-4)", [1], 3, "abs(1d6 (1) - 4) = 3"),
    ("max(1d20, 1d20)", [3, 17], 17, "max(1d20 (3), 1d20 (17)) = 17"),
    ("min(1d20, 10)+2", [15], 12, "min(1d20 (15), 10) + 2 = 12"),
    ("max(1d4, 1d4, 1d4)", [2, 4, 1], 4, "max(1d4 (2), 1d4 (4), 1d4 (1)) = 4"),
    ("7%3", [], 1, "7 % 3 = 1"),
    ("-7%3", [], -1, "-7 % 3 = -1"),                            # the sign of the number divided (JavaScript's %)
    ("1d20+1d4 % 3", [4, 3], 4, "1d20 (4) + 1d4 (3) % 3 = 4"),  # % binds like * and /
    ("4d6sd", [2, 6, 1, 4], 13, "4d6sd (6, 4, 2, 1) = 13"),
    ("4d6s", [2, 6, 1, 4], 13, "4d6s (1, 2, 4, 6) = 13"),
    ("4d6sakh3", [2, 6, 1, 4], 12, "4d6sakh3 (~~1~~, 2, 4, 6) = 12"),
    ("4d6sd1", [2, 6, 1, 4], 12, "4d6sd1 (~~1~~, 2, 4, 6) = 12"),   # s, then d1 (drop the lowest)
    ("1d20cs>18", [19], 19, "1d20cs>18 (19) = 19"),
    ("2d6!!p", [6, 6, 3, 2], 15, "2d6!!p (6!, 5!, 2, 2) = 15"),     # compound and penetrate: 6 + 5 + 2, then 2
    ("7//2+1d4", [3], 6, "7 / 2 + 1d4 (3) = 6"),
    ("0001d6+02", [4], 6, "0001d6 (4) + 2 = 6"),                  # leading zeros, however many
    ("000000000000001d0006", [4], 4, "000000000000001d0006 (4) = 4"),                  # Avrae's // rounds down, as our / does
    ("2d6x", [6, 2, 3], 11, "2d6x (6!, 2, 3) = 11"),              # Foundry's x explodes
    ("1d10x>=9", [9, 10, 4], 23, "1d10x>=9 (9!, 10!, 4) = 23"),
])
def test_new_notation_rolls_with_scripted_faces(text, faces, total, shown):
    result = roll(text, Scripted(faces))
    assert (result.total, result.text) == (total, shown)
    assert total in distribution(text).pmf


@pytest.mark.parametrize("text, faces, count, fn", [
    ("floor(1d6/2)", 6, 1, lambda d: d[0] // 2),
    ("ceil(2d6/3)", 6, 2, lambda d: -(-sum(d) // 3)),
    ("round(1d20/3)", 20, 1, lambda d: math.floor(Fraction(d[0], 3) + Fraction(1, 2))),
    ("round(-1d10/4)", 10, 1, lambda d: math.floor(Fraction(-d[0], 4) + Fraction(1, 2))),
    ("abs(2d6-7)", 6, 2, lambda d: abs(sum(d) - 7)),
    ("max(1d8, 1d8)", 8, 2, max),
    ("min(1d6, 1d6, 1d6)", 6, 3, min),
    ("3d6 % 4", 6, 3, lambda d: sum(d) % 4),
    ("4d6s", 6, 4, sum),
    ("1d20cs>=19 + 1d20cf<3", 20, 2, sum),
])
def test_new_notation_odds_match_enumeration(text, faces, count, fn):
    assert_matches(distribution(text), brute(faces, count, fn))


def test_compound_penetrating_odds_match_enumeration_of_chains():
    # 1d4!!p: a 4 adds another die counted one less, and so on; enumerate chains to depth 12.
    exact: dict[int, float] = {}

    def walk(total: int, p: float, first: bool, depth: int) -> None:
        for face in range(1, 5):
            value = face if first else face - 1
            if face == 4 and depth < 12:
                walk(total + value, p / 4, False, depth + 1)
            else:
                exact[total + value] = exact.get(total + value, 0.0) + p / 4

    walk(0, 1.0, True, 0)
    got = distribution("1d4!!p")
    for v, p in exact.items():
        assert got.probability(v) == pytest.approx(p, abs=1e-7)
    assert distribution("2d4!!p").mean == pytest.approx(2 * got.mean, rel=1e-9)


def test_crit_markers_mark_the_dice_and_count_for_the_history():
    result = roll("3d20cs>=19cf<=2", Scripted([19, 2, 20]))
    assert [(d.crit, d.fumble) for d in result.dice] == [(True, False), (False, True), (True, False)]
    assert (result.crits, result.fumbles) == (2, 1)
    plain = roll("2d20kh1", Scripted([20, 1]))  # no marker: a d20's 20 and 1; a dropped die does not count
    assert (plain.crits, plain.fumbles) == (1, 0) and [d.flags() for d in plain.dice] == [
        ("natural_max", "crit"), ("dropped", "natural_min", "fumble")]
    assert roll("2d6cs6", Scripted([6, 5])).crits == 1 and roll("2d6", Scripted([6, 1])).crits == 0
    assert "crit" in roll("1d20cs20", Scripted([20])).to_dict()["dice"][0]["flags"]


@pytest.mark.parametrize("text, message", [
    ("ceil(1d6/2+1)", "a division must be the whole value"),
    ("floor(1d6/2/2)", "one division at most"),
    ("max(1d20)", "two or more values"),
    ("abs(1, 2)", "takes one value"),
    ("1d20cs", "the faces that count after 'cs'"),
    ("4d6ss", "only one sort modifier"),
    ("1d20 % 0", "by zero"),
    ("floor(1d6/0)", "Division by zero"),
    ("1d20**2", "a number, a die"),
    ("1d20/2.5", "an operator"),
])
def test_new_notation_refuses_with_a_message(text, message):
    with pytest.raises(EngineError, match=message):
        roll(text, Scripted([3] * 10))
        distribution(text)


# -- "read as": the line under the input when a reading is likely not what was meant ------------

@pytest.mark.parametrize("text, says", [
    ("2d6>=7", "count the dice showing ≥ 7: no d6 face does, so always 0"),
    ("2d6>=7", "2d6 >= 7"),
    ("5+1d20>=15", "1 when the d20 shows ≥ 15, else 0"),
    ("1d20!=20", "1d20 exploding on 20"),
    ("3d6!!>=10", "never happens on a d6, so this is a plain 3d6"),
    ("1d20 > 25", "always false (0)"),
    ("2d6 >= 2", "always true (1)"),
    ("4d6kh4", "'kh4' keeps all 4 dice"),
    ("6d6>=1", "every d6 face does, so always 6"),
    ("1d20cs>19", "critical on 20 (> is strictly more here"),
    ("1d6r7", "the reroll on 7 never happens"),
    ("1d8mi1", "'mi1' changes nothing"),
    ("5d10>=8", "count the dice showing ≥ 8 → 0–5"),
    ("10d6cs>=5", "as Foundry's cs does, write 10d6>=5"),
])
def test_readings_say_how_a_surprising_expression_was_read(text, says):
    from pyengine.reading import readings

    assert any(says in note for note in readings(parse(text))), readings(parse(text))


@pytest.mark.parametrize("text", ["1d20+5", "4d6kh3", "1d20 != 20", "2d6 >= 7", "1d20>=15", "2d20kh1", "8d6!",
                                  "1d20cs>=19", "floor(1d6/2)", "1d20 Stealth"])
def test_readings_stay_quiet_when_the_reading_is_the_usual_one(text):
    from pyengine.reading import readings

    assert readings(parse(text)) == []


def _chains(sides: int, explodes: Callable[[int], bool], penetrate: bool, once: bool, depth: int) -> dict[tuple[int, ...], float]:
    """Every chain one exploding die can roll, up to `depth` dice (the rest is under 1e-6 here), as
    the sorted values of its dice (each its own die for keep/drop) -> probability."""
    done: dict[tuple[int, ...], float] = {}
    live: dict[tuple[int, ...], float] = {(): 1.0}
    for step in range(depth):
        nxt: dict[tuple[int, ...], float] = {}
        for values, p in live.items():
            for face in range(1, sides + 1):
                key = tuple(sorted((*values, face - 1 if penetrate and step else face)))
                target = nxt if explodes(face) and not (once and step) else done
                target[key] = target.get(key, 0.0) + p / sides
        live = nxt
    return done


@pytest.mark.parametrize("expr, sides, explodes, penetrate, once", [
    ("2d4!=2kh1", 4, lambda f: f == 2, False, False),
    ("3d4!=2kh2", 4, lambda f: f == 2, False, False),
    ("2d4!pkh1", 4, lambda f: f == 4, True, False),
    ("3d4!pdl1", 4, lambda f: f == 4, True, False),
    ("2d4!k>2", 4, lambda f: f == 4, False, False),
    ("2d4!p>=3kh1", 4, lambda f: f == 4, True, False),
    ("2d4!>=3>=3kh1", 4, lambda f: f >= 3, False, False),
    ("2d4!>=3kl1", 4, lambda f: f >= 3, False, False),
    ("2d4xo", 4, lambda f: f == 4, False, True),
    ("2d4xo>=3", 4, lambda f: f >= 3, False, True),
])
def test_keep_drop_over_exploded_dice_is_exact_against_every_chain(expr, sides, explodes, penetrate, once):
    """Keep/drop over every die an explosion rolled, exploding on middle faces, penetrating,
    with success counting or by value, and Foundry's explode once: checked against every pair or
    triple of chains (enumerated to 20 dice a chain)."""
    import itertools

    from pyengine.rolling import apply_set_ops

    dice = parse(expr)
    chains = list(_chains(sides, explodes, penetrate, once, 20).items())
    want: dict[int, float] = {}
    for combo in itertools.product(chains, repeat=dice.count):
        values = sorted(v for chain, _ in combo for v in chain)
        p = 1.0
        for _, q in combo:
            p *= q
        kept = apply_set_ops(values, dice.set_ops)
        if dice.success is not None:
            total = sum(1 for v, k in zip(values, kept) if k and dice.success.test(v))
        else:
            total = sum(v for v, k in zip(values, kept) if k)
        want[total] = want.get(total, 0.0) + p
    got = distribution(expr).pmf
    assert all(got.get(v, 0.0) == pytest.approx(p, abs=2e-6) for v, p in want.items())
    assert sum(p for v, p in got.items() if v not in want) < 2e-6


@pytest.mark.parametrize("expr", [
    "{4d6kh3, 4d6kh3, 4d6kh3}", "{4d6kh3, 4d6kh3, 4d6kh3}kh1", "{1d20, 1d20, 1d20}kh1", "{2d6+3, 1d20, 3d4}kh2",
    "{2d6+3, 1d20, 3d4}kl1", "{3d6, 2d10, 1d20}dl1", "{3d6, 2d10, 1d20}dh2", "{1d20, 1d20}>=10", "{1d6, 2d4, 1d8}>4f1",
    "{1d6, 1d6, 1d8, 3}k2", "{1d10, -1d6, 1d4!}kh2", "{1d4, 1d4, 1d4, 1d4}kh3", "{1d6, 1d8}kh5", "{1d6, 1d8}dh5",
])
def test_group_odds_by_convolution_and_order_statistics_match_every_joint_outcome(expr):
    """Groups are summed by convolution and kept by order statistics over totals that may differ;
    each checked against the enumeration of every joint outcome of the items."""
    from pyengine.odds import Budget
    from pyengine.odds.exact import _eval, _joint_group

    node = parse(expr)
    want = _joint_group(node, [_eval(item, Budget())[0] for item in node.items], Budget())
    got = distribution(expr).pmf
    assert {v for v, p in got.items() if p > 1e-15} == {v for v, p in want.items() if p > 1e-15}
    assert all(got.get(v, 0.0) == pytest.approx(p, abs=1e-13) for v, p in want.items())


# -- forms people type (issue "Dice, third pass") ---------------------------------------------------

@pytest.mark.parametrize("text, same_as", [
    ("2d6 # fire", "2d6"), ("1d20+5 # Stealth check", "1d20+5"), ("1d20 // sneaky", "1d20"), ("2d6#", "2d6"),
    ("2d20kh", "2d20kh1"), ("2d20kl", "2d20kl1"), ("3d6dh", "3d6dh1"), ("(4-2)d10", "2d10"), ("3d(2*6)", "3d12"),
    ("(10/3)d(2+2)", "3d4"), ("1D20+5", "1d20+5"), ("D6", "d6"), ("2d8r1r3r5r7", "2d8r<=1r3r5r7"),
    ("1d20+5 adv", "2d20kh1+5"), ("1d20-1 dis sneaking", "2d20kl1-1"), ("2d6+1d20 advantage", "2d6+2d20kh1"),
])
def test_forms_documented_by_other_rollers_read_as_they_do(text, same_as):
    """Foundry's # flavour, rpg-dice-roller's // comment, Foundry's kh with no count (one), Roll20
    and Foundry's computed counts and sides, a capital D, Roll20's several r's (any of them),
    Avrae's adv / dis (the first d20 twice)."""
    assert distribution(text).pmf == pytest.approx(distribution(same_as).pmf, abs=1e-15)
    assert set(distribution(text).pmf) == set(distribution(same_as).pmf)


def test_several_rerolls_join_or_follow_in_turn_as_their_rollers_read_them():
    """Roll20's 2d8r1r3r5r7 rerolls any odd face (until none shows), and Avrae reads 1d20rr1rr2 the
    same way (any of 1 and 2); rerolls of another kind follow in turn (1d6r1ro2: 1s until none,
    then a 2 once, which may bring a 1 back)."""
    odd = distribution("1d8r1r3r5r7").pmf
    assert odd == pytest.approx({2: 0.25, 4: 0.25, 6: 0.25, 8: 0.25})
    assert distribution("1d20rr1rr2").pmf == pytest.approx({v: 1 / 18 for v in range(3, 21)})
    both = distribution("1d6r1ro2").pmf  # after r1: 2..6 evenly; a 2 rerolled once, over all six faces
    assert both[1] == pytest.approx(1 / 5 / 6) and both[2] == pytest.approx(1 / 5 / 6) and both[3] == pytest.approx(1 / 5 + 1 / 30)
    assert distribution("1d6ro1ro2").pmf[1] == pytest.approx(2 / 6 / 6)  # 1 or 2 rerolled once: a 1 stays 1/6 of that
    assert roll("1d20rr1rr2", Scripted([1, 2, 7])).total == 7
    assert roll("2d8r1r3", Scripted([1, 3, 4, 8])).total == 12
    with pytest.raises(DiceValueError, match="only reroll"):
        parse("2d6ra6r1")


def test_computed_counts_and_sides_take_numbers_only():
    with pytest.raises(DiceValueError, match="computed from numbers"):
        parse("(1d4)d6")
    with pytest.raises(DiceValueError, match="cannot be negative"):
        parse("(1-3)d6")
    with pytest.raises(DiceLimitError):
        parse("(999*2)d6")


@pytest.mark.parametrize("text, says", [
    ("7/2*2", "'/' rounds down to a whole number where it stands"), ("1d20+7/2", "Divide last"),
    ("4d6kh3rr1", "'rr1' is applied before the keep/drop here"), ("4d6 drop lowest", "Write dl1"),
    ("2d20 keep highest", "Write kh1"), ("1d20 reroll ones", "Write r1"), ("1d20+5 adv", "keeps the higher (2d20kh1)"),
    ("2d6 adv", "needs a single d20"),
])
def test_the_read_as_line_says_where_we_read_differently_or_words_do_nothing(text, says):
    from pyengine.reading import readings

    assert any(says in note for note in readings(parse(text))), readings(parse(text))


@pytest.mark.parametrize("text", ["7/2", "floor(7/2)*2", "4d6rr1kh3", "3d6 fire damage", "1d20+5 Stealth", "7 // 2"])
def test_the_read_as_line_stays_quiet_where_every_roller_agrees(text):
    from pyengine.reading import readings

    assert readings(parse(text)) == []
