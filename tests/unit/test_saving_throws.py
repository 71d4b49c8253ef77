"""Issue 52: the d20 saving throw's exact odds (pyengine/systems/saving_throws.py), checked against an
independent enumeration (every d20 face, every sum of the damage dice counted with integers), a
seeded simulation, and the command line's `save-odds`."""

from __future__ import annotations

import json
import random
from fractions import Fraction
from itertools import product

import pytest

from pyengine.__main__ import main
from pyengine.damage_types import Defenses, split_typed
from pyengine.errors import RuleError
from pyengine.model import Combatant, Condition
from pyengine.systems.saving_throws import SaveMode, p_fail, read_ability, read_portions, save_bonus, save_mode, save_odds


def dice_sums(n: int, sides: int) -> dict[int, int]:
    """How many ways n dice of `sides` faces make each sum: counted, not computed from a formula."""
    ways = {0: 1}
    for _ in range(n):
        nxt: dict[int, int] = {}
        for total, count in ways.items():
            for face in range(1, sides + 1):
                nxt[total + face] = nxt.get(total + face, 0) + count
        ways = nxt
    return ways


def brute(dc: int, bonus: int, dice: tuple[int, int], success: str, d20s: int = 1, keep: str = "high",
          after=lambda v: v, auto_fail: bool = False) -> tuple[Fraction, dict[int, Fraction]]:
    """P(fail) and the damage over every d20 face (one or two dice) and every sum of the damage dice:
    saved whole, halved (rounded down) on a success, then `after` (the target's defense)."""
    faces = list(product(range(1, 21), repeat=d20s))
    fails = sum(1 for f in faces if auto_fail or (max(f) if keep == "high" else min(f)) + bonus < dc)
    pf = Fraction(fails, len(faces))
    sums = dice_sums(*dice)
    total = sum(sums.values())
    out: dict[int, Fraction] = {}
    for value, count in sums.items():
        p = Fraction(count, total)
        full, half = after(value), after(value // 2) if success == "half" else 0
        out[full] = out.get(full, Fraction(0)) + pf * p
        if pf < 1:
            out[half] = out.get(half, Fraction(0)) + (1 - pf) * p
    return pf, out


def assert_same(found, expected: dict[int, Fraction]) -> None:
    want = {v: float(p) for v, p in expected.items() if p}
    got = {v: p for v, p in found.damage.items() if p > 1e-15}
    assert set(got) == set(want)
    assert max(abs(got[v] - want[v]) for v in want) < 1e-12


def fire(resist=(), vulnerable=(), immune=()) -> Defenses:
    return Defenses(tuple(resist), tuple(immune), tuple(vulnerable))


def test_young_red_dragon_fire_breath_dc_17_on_a_plus_2_dexterity_save():
    found = save_odds(SaveMode(), 2, 17, split_typed("16d6 fire"), Defenses(), "half")
    pf, expected = brute(17, 2, (16, 6), "half")
    assert pf == Fraction(7, 10) and found.p_fail == pytest.approx(0.7, abs=1e-15)
    assert_same(found, expected)
    assert found.damage.mean == pytest.approx(0.7 * 56 + 0.3 * float(sum(Fraction(c, 6 ** 16) * (v // 2) for v, c in dice_sums(16, 6).items())), abs=1e-9)


def test_the_same_breath_on_a_fire_resistant_target_halves_the_saved_half_again():
    found = save_odds(SaveMode(), 2, 17, split_typed("16d6 fire"), fire(resist=("fire",)), "half")
    assert_same(found, brute(17, 2, (16, 6), "half", after=lambda v: v // 2)[1])
    # 25 rolled, saved: 12, resisted: 6 (each halving rounded down, in that order).
    assert 6 in found.damage.pmf and found.damage.max == 48


def test_paralyzed_fails_dexterity_saves_whatever_it_rolls():
    c = Combatant("c1", "Aria", conditions=(Condition("k1", "Paralyzed"),), stats=(("save_dex", 30),))
    mode = save_mode(c, "dex")
    assert mode.auto_fail and "paralyzed" in mode.reasons[0]
    found = save_odds(mode, save_bonus(c, "dex") or 0, 17, split_typed("16d6 fire"), Defenses(), "half")
    assert found.p_fail == 1.0
    assert_same(found, brute(17, 30, (16, 6), "half", auto_fail=True)[1])
    assert not save_mode(c, "wis").auto_fail


def test_advantage_fails_only_when_both_dice_fail():
    found = save_odds(SaveMode("2d20kh1"), 2, 17, split_typed("16d6 fire"), Defenses(), "half")
    pf, expected = brute(17, 2, (16, 6), "half", d20s=2, keep="high")
    assert pf == Fraction(49, 100) and found.p_fail == pytest.approx(0.49, abs=1e-15)
    assert_same(found, expected)
    assert p_fail(SaveMode("2d20kl1"), 2, 17) == brute(17, 2, (1, 1), "half", d20s=2, keep="low")[0] == Fraction(91, 100)


def test_eight_d6_fire_half_on_a_vulnerable_target_doubles_each_amount():
    found = save_odds(SaveMode(), 1, 15, split_typed("8d6 fire"), fire(vulnerable=("fire",)), "half")
    assert_same(found, brute(15, 1, (8, 6), "half", after=lambda v: v * 2)[1])
    assert found.damage.max == 96 and found.p_fail == pytest.approx(13 / 20)


def test_none_on_a_success_and_immunity():
    found = save_odds(SaveMode(), 0, 15, split_typed("2d6+8 bludgeoning"), Defenses(), "none")
    assert found.p_fail == pytest.approx(14 / 20, abs=1e-15)
    assert found.damage.probability(0) == pytest.approx(6 / 20) and found.damage.min == 0 and found.damage.max == 20
    assert save_odds(SaveMode(), 0, 22, split_typed("2d6+8 bludgeoning"), Defenses(), "none").p_fail == 1.0  # a DC past 20 + bonus
    immune = save_odds(SaveMode(), 0, 10, split_typed("16d6 fire"), fire(immune=("fire",)), "half")
    assert immune.damage.pmf == {0: pytest.approx(1.0)}


def test_a_brute_force_over_every_face_of_small_typed_damage_with_two_parts():
    """3d4 fire + 1d6 cold, fire resisted: every face of every die, each part halved on its own."""
    defenses = fire(resist=("fire",))
    found = save_odds(SaveMode(), 3, 14, split_typed("3d4 fire + 1d6 cold"), defenses, "half")
    pf = Fraction(min(20, 14 - 3 - 1), 20)
    out: dict[int, Fraction] = {}
    for faces in product(range(1, 5), range(1, 5), range(1, 5), range(1, 7)):
        p = Fraction(1, 4 ** 3 * 6)
        flames, cold = sum(faces[:3]), faces[3]
        out[flames // 2 + cold] = out.get(flames // 2 + cold, Fraction(0)) + pf * p
        saved = (flames // 2) // 2 + cold // 2
        out[saved] = out.get(saved, Fraction(0)) + (1 - pf) * p
    assert_same(found, out)


def test_a_seeded_simulation_agrees_with_the_exact_odds():
    rng = random.Random(52)
    found = save_odds(SaveMode("2d20kl1"), 4, 15, split_typed("6d8 poison"), fire(resist=("poison",)), "half")
    n, fails, total = 40_000, 0, 0
    for _ in range(n):
        d20 = min(rng.randint(1, 20), rng.randint(1, 20))
        damage = sum(rng.randint(1, 8) for _ in range(6))
        failed = d20 + 4 < 15
        fails += failed
        total += (damage if failed else damage // 2) // 2
    assert abs(fails / n - found.p_fail) < 0.01
    assert abs(total / n - found.damage.mean) < 0.15


def test_conditions_and_traits_change_the_roll():
    def c(*names: str, **stats):
        return Combatant("c1", "X", conditions=tuple(Condition(f"k{i}", n) for i, n in enumerate(names)), stats=tuple(stats.items()))

    assert save_mode(c("Restrained"), "dex").roll == "2d20kl1" and save_mode(c("Restrained"), "str").roll == "1d20"
    assert save_mode(c("Dodging"), "dex").roll == "2d20kh1"
    assert save_mode(c("Exhaustion 3"), "wis").roll == "2d20kl1" and save_mode(c("Exhaustion 2"), "wis").roll == "1d20"
    assert save_mode(c(magic_resistance=True), "wis", magical=True).roll == "2d20kh1"
    assert save_mode(c(magic_resistance=True), "wis").roll == "1d20"
    assert save_mode(c("Restrained", "Dodging"), "dex").roll == "1d20"   # they cancel
    assert save_mode(c("Restrained"), "dex", asked="adv").roll == "1d20"
    assert save_mode(c("Stunned"), "str").auto_fail and save_mode(c("Unconscious"), "dex").auto_fail
    assert save_mode(c("Petrified"), "dex").auto_fail and not save_mode(c("Petrified"), "con").auto_fail


def test_bad_input_is_refused_with_a_message():
    with pytest.raises(RuleError, match="not a damage type"):
        read_portions("2d6 banana")
    with pytest.raises(RuleError, match="Strength, Dexterity"):
        read_ability("luck")
    assert read_ability("Dexterity") == "dex" and read_ability("CON") == "con"
    with pytest.raises(RuleError, match="(?i)too many dice"):
        read_portions("999999d6 fire")


def test_the_command_line_prints_the_exact_odds_as_json(capsys):
    assert main(["save-odds", "--dc", "17", "--bonus", "2", "--damage", "16d6 fire", "--success", "half", "--resist", "fire",
                 "--hp", "20", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    found = save_odds(SaveMode(), 2, 17, split_typed("16d6 fire"), fire(resist=("fire",)), "half")
    assert out["p_fail"] == pytest.approx(0.7, abs=1e-9)
    assert {int(k): v for k, v in out["damage"].items()} == pytest.approx(dict(found.damage.pmf), abs=1e-12)
    assert out["mean_damage"] == pytest.approx(found.damage.mean, abs=1e-9)
    assert out["p_drop"] == pytest.approx(found.damage.at_least(20), abs=1e-12)
    _, expected = brute(17, 2, (16, 6), "half", after=lambda v: v // 2)
    assert out["p_drop"] == pytest.approx(float(sum(p for v, p in expected.items() if v >= 20)), abs=1e-9)


@pytest.mark.parametrize("args", [["--dc", "0"], ["--dc", "17", "--success", "most"], ["--dc", "17", "--damage", "1d6 jelly"],
                                  ["--dc", "17", "--resist", "jelly"], ["--dc", "17", "--hp", "0"], ["--dc", "17", "--bonus", "99"]])
def test_the_command_line_refuses_bad_input_with_a_message(args, capsys):
    assert main(["save-odds", *args]) != 0
    assert capsys.readouterr().err.startswith("error: ")
