"""Realm of Strife rules (seed 001, RULES.md section 2): every outcome boundary of the d100 with
scripted faces, parries and blocks, combined attacks, odds against a seeded simulation, the bonus
split, penalties, 4-3-2."""

from __future__ import annotations

import random

import pytest

from pyengine.errors import RuleError
from pyengine.systems.strife import (
    Portion,
    Spec,
    attack_odds,
    check_432,
    parse_riders,
    penalties,
    resolve_attack,
    split_bonus,
    untrained_block,
    ward_off_odds,
)
from tests.unit.scripted import Scripted

AC = 40


def one(natural: int, modifier: int = 0, crit: int = 10, parry: int = 0, block: int = 0, *more: int, **kw) -> object:
    spec = Spec((Portion("physical", modifier, crit, AC, "1d6", **kw),), parry=parry, block=block)
    return resolve_attack(spec, Scripted([natural, *more]))


@pytest.mark.parametrize("natural,modifier,outcome", [
    (1, 100, "critical miss"), (5, 100, "critical miss"),      # 1-5 whatever the modifiers
    (6, 100, "hit"),                                            # 6 is past the critical miss width
    (40, 0, "miss"),                                            # equal to AC misses
    (41, 0, "hit"),                                             # AC + 1 hits
    (30, 10, "miss"), (31, 10, "hit"),                          # modifiers count
    (20, -20, "automatic miss"), (21, -20, "miss"),             # natural + modifiers <= 0: automatic miss
    (90, 0, "hit"), (91, 0, "crit"), (100, -95, "crit"),        # crit chance 10%: naturals 91+, whatever the AC
])
def test_d100_boundaries(natural, modifier, outcome):
    faces = [natural] + ([3] if outcome in ("hit", "crit") else [])
    r = one(natural, modifier, 10, 0, 0, *faces[1:])
    assert r.outcome == outcome
    assert r.natural == natural


def test_crit_doubles_damage_and_hit_does_not():
    r = one(95, 0, 10, 0, 0, 4)
    assert (r.outcome, r.damage) == ("crit", 8)
    r = one(60, 0, 10, 0, 0, 4)
    assert (r.outcome, r.damage) == ("hit", 4)
    assert "d100 95" in one(95, 0, 10, 0, 0, 4).text()


def test_critical_miss_width_is_an_option():
    spec = Spec((Portion("physical", 100, 0, 0, "1d6"),), crit_miss=2)
    assert resolve_attack(spec, Scripted([2])).outcome == "critical miss"
    assert resolve_attack(spec, Scripted([3, 1])).outcome == "hit"


def test_parry_and_block_are_rolled_with_the_hit_roll_and_crits_go_through():
    # natural 60 hits AC 40; parry die 30 <= 35 parries.
    r = one(60, 0, 10, 35, 0, 30)
    assert (r.outcome, r.damage, r.parry_die) == ("parried", 0, 30)
    # parry die 36 > 35: the hit lands (damage die 5).
    r = one(60, 0, 10, 35, 0, 36, 5)
    assert (r.outcome, r.damage) == ("hit", 5)
    # a crit cannot be parried or blocked: both dice are still rolled, then damage 2 x2.
    r = one(99, 0, 10, 35, 20, 1, 1, 2)
    assert (r.outcome, r.damage, r.parry_die, r.block_die) == ("crit", 4, 1, 1)
    # a block stops it when the parry fails
    r = one(60, 0, 10, 35, 20, 90, 20)
    assert r.outcome == "blocked"
    # a miss is a miss: nothing else rolls after the parry and block dice
    r = one(10, 0, 10, 35, 20, 1, 1)
    assert (r.outcome, r.damage) == ("miss", 0)


def test_spirit_attacks_are_not_parried_and_blocked_only_when_the_power_says_so():
    spell = Portion("spirit", 0, 10, 30, "2d6", parryable=False, blockable=False)
    r = resolve_attack(Spec((spell,), parry=50, block=50), Scripted([50, 1, 1, 3, 4]))
    assert (r.outcome, r.damage) == ("hit", 7)
    missile = Portion("spirit", 0, 10, 30, "2d6", parryable=False, blockable=True)
    r = resolve_attack(Spec((missile,), parry=50, block=50), Scripted([50, 1, 1]))
    assert r.outcome == "blocked"


def test_combined_attack_one_d100_two_portions():
    phys = Portion("physical", 0, 5, 40, "1d8")
    spirit = Portion("spirit", 20, 20, 70, "1d6", parryable=False, blockable=False)
    spec = Spec((phys, spirit))
    # natural 45: physical 45 > 40 hits; spirit 65 <= 70 misses -> a physical hit only.
    r = resolve_attack(spec, Scripted([45, 6]))
    assert [p.outcome for p in r.portions] == ["hit", "miss"] and r.damage == 6
    # natural 55: both hit -> both damage dice.
    r = resolve_attack(spec, Scripted([55, 6, 2]))
    assert [p.outcome for p in r.portions] == ["hit", "hit"] and r.damage == 8
    # natural 85: spirit crits (81+), physical only hits -> only the spirit portion doubles.
    r = resolve_attack(spec, Scripted([85, 6, 2]))
    assert [p.outcome for p in r.portions] == ["hit", "crit"] and r.damage == 6 + 4
    # natural 30: physical misses -> the whole attack fails even though spirit 50... also misses; use a big spirit mod
    spec2 = Spec((phys, Portion("spirit", 60, 0, 70, "1d6", parryable=False)))
    r = resolve_attack(spec2, Scripted([30]))
    assert r.outcome == "miss" and r.damage == 0 and r.portions[1].outcome == "miss"
    # natural 3: critical miss fails all
    assert resolve_attack(spec, Scripted([3])).outcome == "critical miss"


def test_combined_attack_parry_stops_only_the_physical_portion():
    phys = Portion("physical", 0, 5, 40, "1d8")
    spirit = Portion("spirit", 40, 0, 70, "1d6", parryable=False, blockable=False)
    r = resolve_attack(Spec((phys, spirit), parry=50), Scripted([50, 10, 4]))
    assert [p.stopped for p in r.portions] == ["parry", None]
    assert (r.outcome, r.damage) == ("hit", 4)


def test_ward_off_roll_off_comes_first():
    spec = Spec((Portion("physical", 0, 10, 40, "1d6"),), ward_off=(30, 40))
    # attacker 50+30=80 vs defender 41+40=81: warded off, no hit roll.
    r = resolve_attack(spec, Scripted([50, 41]))
    assert r.outcome == "warded off" and r.natural is None
    # a tie (80 vs 80) rolls again; then the attacker wins and the attack goes on.
    r = resolve_attack(spec, Scripted([50, 40, 60, 10, 70, 2]))
    assert r.ward == ((50, 40), (60, 10)) and r.outcome == "hit" and r.damage == 2


def test_riders_roll_only_when_the_attack_lands():
    spec = Spec((Portion("physical", 0, 0, 40, "1d6"),), riders=(("Stun", 20), ("Disarm", 10)))
    r = resolve_attack(spec, Scripted([60, 3, 20, 11]))
    assert [(n, f, a) for n, _, f, a in r.riders] == [("Stun", 20, True), ("Disarm", 11, False)]
    assert resolve_attack(spec, Scripted([10])).riders == ()
    assert parse_riders("Stun 20, Disarm 10%") == [["Stun", 20], ["Disarm", 10]]
    with pytest.raises(RuleError):
        parse_riders("Stun")


def _simulate(spec: Spec, n: int, seed: int = 7) -> dict:
    rng = random.Random(seed)
    counts: dict[str, int] = {}
    damage: dict[int, int] = {}
    for _ in range(n):
        r = resolve_attack(spec, rng)
        counts[r.outcome] = counts.get(r.outcome, 0) + 1
        damage[r.damage] = damage.get(r.damage, 0) + 1
    return {"counts": counts, "damage": damage}


@pytest.mark.parametrize("spec", [
    Spec((Portion("physical", 5, 12, 40, "2d6+1"),), parry=20, block=15),
    Spec((Portion("physical", 0, 5, 40, "1d8"), Portion("spirit", 20, 20, 70, "1d6", parryable=False, blockable=True)), parry=30, block=10),
    Spec((Portion("physical", -10, 10, 30, "1d10"),), ward_off=(20, 35), crit_miss=8),
])
def test_exact_odds_agree_with_a_seeded_simulation(spec):
    odds = attack_odds(spec)
    total = odds.p_warded + odds.p_crit_miss + odds.p_miss + odds.p_stopped + odds.p_hit + odds.p_crit
    assert total == pytest.approx(1.0, abs=1e-12)
    assert sum(odds.damage.pmf.values()) == pytest.approx(1.0, abs=1e-12)
    n = 40_000
    sim = _simulate(spec, n)
    c = sim["counts"]
    stopped = c.get("parried", 0) + c.get("blocked", 0)
    for p, k in ((odds.p_crit_miss, c.get("critical miss", 0)), (odds.p_miss, c.get("miss", 0) + c.get("automatic miss", 0)),
                 (odds.p_stopped, stopped), (odds.p_hit, c.get("hit", 0)), (odds.p_crit, c.get("crit", 0)),
                 (odds.p_warded, c.get("warded off", 0))):
        assert k / n == pytest.approx(p, abs=0.012)
    mean = sum(v * k for v, k in sim["damage"].items()) / n
    assert mean == pytest.approx(odds.damage.mean, rel=0.04, abs=0.05)


def test_exact_odds_by_hand():
    # AC 40, no modifiers, crit 10%: naturals 1-5 critical miss, 6-40 miss, 41-90 hit, 91-100 crit.
    odds = attack_odds(Spec((Portion("physical", 0, 10, 40, "1d6"),), parry=20))
    assert odds.p_crit_miss == pytest.approx(0.05)
    assert odds.p_miss == pytest.approx(0.35)
    assert odds.p_stopped == pytest.approx(0.50 * 0.2)
    assert odds.p_hit == pytest.approx(0.50 * 0.8)
    assert odds.p_crit == pytest.approx(0.10)
    # a crit deals 2, 4, ... 12 each with 0.10 / 6; 12 only from a crit
    assert odds.damage.probability(12) == pytest.approx(0.10 / 6)
    assert odds.damage.probability(5) == pytest.approx(0.40 / 6)
    assert odds.p_drop(12) == pytest.approx(0.10 / 6)
    assert ward_off_odds(0, 0) == pytest.approx(0.5)


def test_bonus_split():
    assert split_bonus(2, 5) == 1      # 0.4 -> at least 1
    assert split_bonus(5, 2) == 3      # 2.5 rounds half up
    assert split_bonus(2, 6) == 1
    assert split_bonus(7, 2) == 4
    assert split_bonus(6, 4) == 2      # 1.5 -> 2
    assert split_bonus(9, 1) == 9
    assert split_bonus(0, 3) == 0
    assert split_bonus(-5, 2) == -3
    with pytest.raises(RuleError):
        split_bonus(3, 0)


def test_penalties_with_reasons():
    assert penalties(ranged=True, inches_moved=3) == [("moved 3 in and shooting", -15)]
    assert penalties(ranged=True, inches_moved=2, flying=True) == [("moved 2 in and shooting", -10), ("flying and shooting", -5)]
    assert penalties(ranged=False, inches_moved=3) == []
    assert penalties(dual_wielding=True, dual_wield_skill=False, weapon_size=1) == [("dual wielding without the skill (S)", -10)]
    assert penalties(dual_wielding=True, dual_wield_skill=False, weapon_size=4) == [("dual wielding without the skill (XL)", -40)]
    assert penalties(dual_wielding=True, dual_wield_skill=True, weapon_size=4) == []
    assert penalties(trained=False, weapon_size=2) == [("untrained weapon (M)", -10)]
    assert penalties(trained=False, weapon_size=4) == [("untrained weapon (XL)", -20)]
    assert untrained_block(40) == 10 and untrained_block(12) == 5 and untrained_block(0) == 0


def test_dual_wielding_without_the_skill_cannot_crit():
    spec = Spec((Portion("physical", 0, 10, 40, "1d6", can_crit=False),))
    assert resolve_attack(spec, Scripted([99, 3])).outcome == "hit"


def test_432_rule():
    made: list[tuple[str, str]] = []
    for target, weapon in (("a", "main"), ("a", "main")):
        check_432(made, target, weapon, pc=True)
        made.append((target, weapon))
    with pytest.raises(RuleError, match="2 attacks with the same weapon"):
        check_432(made, "a", "main", pc=True)
    check_432(made, "a", "off", pc=True)
    made.append(("a", "off"))
    with pytest.raises(RuleError, match="3 attacks on the same target"):
        check_432(made, "a", "other", pc=True)
    check_432(made, "b", "main", pc=True)
    made.append(("b", "main"))
    with pytest.raises(RuleError, match="at most 4 attacks"):
        check_432(made, "c", "main", pc=True)
    check_432(made, "c", "main", pc=False)  # NPCs are exempt
