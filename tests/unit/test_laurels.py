"""Laurels and Loot (seed 003, RULES.md section 3) with scripted dice."""

from __future__ import annotations

import random

import pytest

from pyengine.errors import RuleError
from pyengine.systems.laurels import (
    OPPONENTS,
    PARTY,
    Attack,
    Fighter,
    Weapon,
    attack_odds,
    dice_count,
    resolve_attack,
    roll_damage_dice,
    shooter_stamina_cost,
    side_initiative,
)
from tests.unit.scripted import Scripted

P, OPP = PARTY, OPPONENTS


@pytest.mark.parametrize(
    "ambush, face, first, surprised",
    [
        ("none", 1, OPP, P), ("none", 2, OPP, None), ("none", 3, OPP, None),
        ("none", 4, P, None), ("none", 5, P, None), ("none", 6, P, OPP),
        ("opponents", 1, OPP, P), ("opponents", 2, OPP, P), ("opponents", 3, OPP, None),
        ("opponents", 4, P, None), ("opponents", 5, P, None), ("opponents", 6, P, None),
        ("party", 1, OPP, None), ("party", 2, OPP, None), ("party", 3, OPP, None),
        ("party", 4, P, None), ("party", 5, P, OPP), ("party", 6, P, OPP),
    ],
)
def test_first_round_tables(ambush, face, first, surprised):
    result = side_initiative(1, face, ambush)
    assert (result.first, result.surprised) == (first, surprised)


@pytest.mark.parametrize("face, first", [(1, OPP), (2, OPP), (3, OPP), (4, P), (5, P), (6, P)])
def test_later_rounds_ignore_ambush(face, first):
    for ambush in ("none", "opponents", "party"):
        result = side_initiative(2, face, ambush)
        assert (result.first, result.surprised) == (first, None)


def test_side_roll_texts():
    assert side_initiative(1, 6, "none").text() == "Opponents surprised!"
    assert side_initiative(1, 1, "opponents").text() == "Party surprised!"
    assert side_initiative(3, 4).text() == "Party acts first"
    assert side_initiative(3, 4).order == (P, OPP)


@pytest.mark.parametrize("level, n", [(1, 1), (2, 1), (3, 2), (4, 2), (9, 5), (12, 6)])
def test_dice_count_by_level(level, n):
    assert dice_count(level) == n
    assert dice_count(level, power=True) == 2 * n


def test_explosions_roll_breadth_first_like_the_seed():
    chains = roll_damage_dice(6, 6, Scripted([6, 5, 3, 6, 2, 6, 5, 1, 6, 2]))
    assert chains == ((6, 5), (5,), (3,), (6, 1), (2,), (6, 6, 2))
    assert sum(map(sum, chains)) == 42


def test_worked_example_tombril_hits_the_hill_giant():
    tombril = Fighter(level=9, str=8, dex=5, armour=3, stamina=55, weapon=Weapon(die=6, magic=2))
    giant = Fighter(level=12, str=9, dex=3, armour=1, stamina=68, weapon=Weapon(die=6))
    result = resolve_attack(tombril, giant, Attack(), Scripted([5, 3, 4, 3, 2]))
    assert result.rolled == 17 and result.bonus == 18 and result.soak == 4
    assert result.damage == 31 and result.to_stamina == 31 and result.to_injuries == 0
    assert giant.stamina - result.to_stamina == 37


def test_worked_example_the_hill_giant_hits_tombril():
    tombril = Fighter(level=9, str=8, dex=5, armour=3, stamina=55, weapon=Weapon(die=6, magic=2))
    giant = Fighter(level=12, str=9, dex=3, armour=1, stamina=68, weapon=Weapon(die=6))
    result = resolve_attack(giant, tombril, Attack(), Scripted([6, 5, 3, 6, 2, 6, 5, 1, 6, 2]))
    assert result.rolled == 42 and result.exploded == 4
    assert result.rolled + result.bonus == 51
    assert result.damage == 43 and tombril.stamina - result.to_stamina == 12


def test_worked_example_cedryk_sneak_attack():
    cedryk = Fighter(level=3, dex=4, awa=4, weapon=Weapon(die=4, finesse=True))
    half_orc = Fighter(level=2, dex=2, armour=3, stamina=20)
    hit = resolve_attack(cedryk, half_orc, Attack(sneak=True), Scripted([9, 4, 2, 2]))
    assert hit.awa_check == (9, 13, True)
    assert hit.rolled == 8 and hit.damage == 12 and hit.to_injuries == 12 and hit.to_stamina == 0
    missed = resolve_attack(cedryk, half_orc, Attack(sneak=True), Scripted([8, 4, 2, 2]))
    assert missed.awa_check == (8, 12, False)
    assert missed.damage == 9  # armour applies, DEX still never does


def test_magic_is_added_per_original_die_only():
    a = Fighter(level=3, str=1, weapon=Weapon(die=4, magic=3))
    result = resolve_attack(a, Fighter(), Attack(), Scripted([4, 4, 1, 2]))
    assert result.dice == ((4, 1), (4, 2)) and result.bonus == 2 * 3 + 1


def test_soak_to_zero_and_melee_overflow_to_injuries():
    weak = Fighter(level=1, str=0, weapon=Weapon(die=4))
    tank = Fighter(dex=3, armour=5, stamina=10)
    assert resolve_attack(weak, tank, Attack(), Scripted([3])).damage == 0
    brute = Fighter(level=1, str=10, weapon=Weapon(die=4))
    tired = Fighter(stamina=4)
    result = resolve_attack(brute, tired, Attack(), Scripted([3]))
    assert (result.damage, result.to_stamina, result.to_injuries) == (13, 4, 9)


def test_ranged_goes_to_injuries_and_costs_the_shooter_stamina():
    archer = Fighter(level=1, awa=3, weapon=Weapon(die=8, ranged=True))
    result = resolve_attack(archer, Fighter(dex=1, armour=1, stamina=30), Attack(ranged=True), Scripted([5]))
    assert (result.damage, result.to_stamina, result.to_injuries) == (6, 0, 6)
    assert shooter_stamina_cost(archer.weapon, Scripted([3])) == 3
    expert = Weapon(die=8, ranged=True, specialised=True)
    assert shooter_stamina_cost(expert, Scripted([3])) == 2
    assert shooter_stamina_cost(expert, Scripted([4])) == 2


def test_power_attack_doubles_dice_and_breaks_the_weapon():
    a = Fighter(level=3, str=2, weapon=Weapon(die=6))
    result = resolve_attack(a, Fighter(stamina=50), Attack(power=True), Scripted([1, 2, 3, 4]))
    assert result.original == 4 and result.rolled == 10 and result.attacker_weapon_broken
    with pytest.raises(RuleError):
        resolve_attack(a, Fighter(), Attack(power=True, sneak=True), Scripted([1]))


def test_weapon_parry_absorbs_and_shatters_on_the_n_plus_first_exploding_die():
    a = Fighter(level=3, str=2, weapon=Weapon(die=6))
    target = Fighter(stamina=20)
    plain = resolve_attack(a, target, Attack(parry="weapon"), Scripted([3, 4]))
    assert plain.to_stamina == 0 and plain.absorbed == 9 and not plain.weapon_shattered
    boom = resolve_attack(a, target, Attack(parry="weapon"), Scripted([6, 4, 2]))
    assert boom.weapon_shattered and boom.to_stamina == 0  # that blow is still absorbed
    plus_one = resolve_attack(a, target, Attack(parry="weapon", parry_magic=1), Scripted([6, 4, 2]))
    assert not plus_one.weapon_shattered
    second = resolve_attack(a, target, Attack(parry="weapon", parry_magic=1, parry_explosions_taken=1), Scripted([6, 4, 2]))
    assert second.weapon_shattered


def test_shield_parry_takes_double_and_overflows_when_it_breaks():
    a = Fighter(level=1, str=2, weapon=Weapon(die=6))
    held = resolve_attack(a, Fighter(stamina=20, shield=10), Attack(parry="shield"), Scripted([3]))
    assert (held.to_shield, held.shield_broken, held.to_stamina) == (10, False, 0)
    broke = resolve_attack(a, Fighter(stamina=20, shield=6), Attack(parry="shield"), Scripted([5]))
    # 7 damage doubled is 14 against 6 shield points: 8 doubled points left, 4 reach the fighter.
    assert (broke.to_shield, broke.shield_broken, broke.to_stamina) == (6, True, 4)


def test_odds_match_known_values_and_a_seeded_simulation():
    tombril = Fighter(level=9, str=8, weapon=Weapon(die=6, magic=2))
    giant = Fighter(level=12, dex=3, armour=1, stamina=68)
    odds = attack_odds(tombril, giant, Attack())
    assert odds.damage.min == 5 + 18 - 4
    assert odds.damage.mean == pytest.approx(5 * 3.5 * 6 / 5 + 18 - 4, rel=1e-9)
    rng = random.Random(2026)
    n = 20000
    counts: dict[int, int] = {}
    for _ in range(n):
        d = resolve_attack(tombril, giant, Attack(), rng).damage
        counts[d] = counts.get(d, 0) + 1
    for threshold in (30, 40, 50):
        simulated = sum(c for d, c in counts.items() if d >= threshold) / n
        assert simulated == pytest.approx(odds.at_least(threshold), abs=0.015)


def test_odds_of_a_sneak_attack_mix_the_awa_check():
    cedryk = Fighter(level=3, dex=4, awa=4, weapon=Weapon(die=4, finesse=True))
    half_orc = Fighter(armour=3, stamina=20)
    odds = attack_odds(cedryk, half_orc, Attack(sneak=True))
    # d20 + 4 >= 13 succeeds on 9..20: 60 %. Without armour the minimum is 2+4 = 6, with it 3
    # (the check failed, 40 %, and both d4 show 1).
    assert odds.damage.probability(3) == pytest.approx(0.4 * (1 / 4) ** 2)
    # 6 is 1+1 with the check made, or 2+3 / 3+2 (rolled 5, +4 -3) with it failed.
    assert odds.damage.probability(6) == pytest.approx(0.6 * (1 / 16) + 0.4 * (2 / 16))
    assert odds.p_injury == pytest.approx(1.0)
    assert odds.p_out_of_stamina == 0.0


def test_odds_of_stamina_and_injury_for_melee():
    brute = Fighter(level=1, str=0, weapon=Weapon(die=4))
    target = Fighter(stamina=3)
    odds = attack_odds(brute, target, Attack())
    # d4 exploding: a 3, or a 4 (which explodes to 5+), takes him out of Stamina; only the 4 injures.
    assert odds.p_out_of_stamina == pytest.approx(0.5)
    assert odds.p_injury == pytest.approx(0.25)


def test_the_chance_that_a_parrying_weapon_shatters_matches_a_simulation():
    """Seed 003, "Parrying": the (N+1)-th exploding die against a +N weapon shatters it."""
    from pyengine.systems.laurels import maxima

    assert maxima(2, 6).at_least(1) == pytest.approx(1 - (5 / 6) ** 2)
    rng = random.Random(9)
    counts = [sum(f == 6 for chain in roll_damage_dice(3, 6, rng) for f in chain) for _ in range(40_000)]
    for needed in (1, 2, 3):
        assert sum(c >= needed for c in counts) / len(counts) == pytest.approx(maxima(3, 6).at_least(needed), abs=0.01)
    a = Fighter(level=5, str=3, weapon=Weapon(die=6))
    t = Fighter(level=3, dex=1, armour=1)
    odds = attack_odds(a, t, Attack(parry="weapon", parry_magic=1))  # 3d6: two maxima shatter a +1 weapon
    assert odds.p_shatter == pytest.approx(maxima(3, 6).at_least(2))
    assert [v for v, _ in odds.through.items()] == [0]  # a weapon parry stops it all (explosions past 1e-12 aside)


def test_a_sneak_attacks_awa_check_is_shown_in_the_result():
    a = Fighter(level=1, awa=4, weapon=Weapon(die=4, finesse=True))
    t = Fighter(level=1, dex=2, armour=3)
    result = resolve_attack(a, t, Attack(sneak=True), Scripted([11, 3]))
    assert result.text().startswith("AWA check d20 (11) = 15 vs 13: armour ignored; dice 3 = 3")
