"""Enchanted Realms rules (seeds 000, 002, 004; RULES.md section 1) with scripted dice: pools,
advantage, crits in both timings, damage types, saves, competitions, every row of the restrictions
table, the variants, and exact odds against a seeded simulation."""

from __future__ import annotations

import random

import pytest

from pyengine.errors import RuleError
from pyengine.systems.realms import (
    CHASE_TABLE,
    CONDITIONS,
    Competition,
    Pool,
    apply_damage_types,
    attack_odds,
    blind_shot,
    chase_hexes,
    chase_over,
    chase_penalty,
    chase_second,
    competition_modifiers,
    competition_odds,
    defense_roll,
    impalement,
    impalement_pool,
    net_advantage,
    roll_attack,
    roll_competition,
    roll_save,
    save_odds,
    save_situation,
    situation,
)
from tests.unit.scripted import Scripted

# -- the pool ------------------------------------------------------------------------------------

def test_hits_meet_or_beat_ac_and_count_as_body_plus_bonus_once():
    pool = Pool(skills=3, modifier=2, ac=14, bonus=3)
    r = roll_attack(pool, Scripted([12, 11, 5]))  # 14 hits (meets), 13 misses, 7 misses
    assert (r.hits, r.raw, r.damage, r.miss) == (1, 4, 4, False)
    r = roll_attack(pool, Scripted([13, 19, 12]))
    assert (r.hits, r.damage) == (3, 6)
    r = roll_attack(pool, Scripted([3, 4, 5]))
    assert (r.hits, r.damage, r.miss) == (0, 0, True)


def test_natural_20_always_hits_and_natural_1_always_misses():
    assert roll_attack(Pool(skills=1, ac=40), Scripted([20])).hits == 1
    assert roll_attack(Pool(skills=1, modifier=30, ac=5), Scripted([1])).hits == 0


def test_skill_dice_cap_at_5_and_sneak_makes_6():
    assert Pool(skills=7).dice == 5
    assert Pool(skills=7, net="adv").dice == 6
    assert Pool(skills=5, sneak=True).dice == 6
    assert Pool(skills=1, sneak=True, net="adv").dice == 3  # seed 004: dagger, advantage, sneak: 3d20
    with pytest.raises(RuleError, match="sneak"):
        Pool(skills=2, net="dis", sneak=True)


def test_advantage_adds_a_die_and_d3_once_if_a_primary_die_hits():
    pool = Pool(skills=1, net="adv", ac=15, bonus=1)
    assert pool.dice == 2
    r = roll_attack(pool, Scripted([15, 2, 3]))  # one hit, +d3 = 3
    assert (r.hits, r.adv_d3, r.damage) == (1, 3, 1 + 3 + 1)
    r = roll_attack(pool, Scripted([5, 2]))       # no hit: no d3 rolled
    assert (r.adv_d3, r.damage) == (0, 0)


def test_disadvantage_removes_a_die_keeps_the_worse_of_two_at_zero_and_can_turn_a_hit_into_a_miss():
    pool = Pool(skills=2, net="dis", ac=10, bonus=0)
    assert pool.dice == 1
    r = roll_attack(pool, Scripted([12, 1]))    # hit, -d3 1: 1 + 0 - 1 = 0 -> a miss
    assert (r.hits, r.dis_d3, r.miss, r.damage) == (1, 1, True, 0)
    one = Pool(skills=1, net="dis", ac=10, bonus=2)
    assert one.keep_worse
    r = roll_attack(one, Scripted([18, 11, 2]))  # keep 11: hit; 1 + 2 - 2 = 1
    assert (r.kept, r.hits, r.damage, r.miss) == ((11,), 1, 1, False)
    r = roll_attack(one, Scripted([18, 4]))
    assert (r.kept, r.hits) == ((4,), 0)


def test_advantage_and_disadvantage_never_stack_and_cancel():
    assert net_advantage(True, False) == "adv"
    assert net_advantage(True, True) is None
    s = situation(["Prone", "Poisoned"], ["Restrained"])  # 2 disadvantages and 1 advantage
    assert s.net is None and len(s.disadvantage) == 2 and len(s.advantage) == 1


# -- crits ---------------------------------------------------------------------------------------

def test_crit_needs_a_crit_skill_two_primary_dice_and_a_natural_20():
    assert not Pool(skills=1, crit_skill=True).can_crit            # one die: a lucky hit, no crit
    assert Pool(skills=2, crit_skill=True).can_crit
    assert Pool(skills=1, net="adv", crit_skill=True).can_crit      # the advantage die counts in the pool
    assert not Pool(skills=3, crit_skill=False).can_crit
    assert not Pool(skills=3, crit_skill=True, ranged=True).can_crit
    assert Pool(skills=3, crit_skill=True, ranged=True, ranged_crits=True).can_crit
    assert not Pool(skills=4, net="dis", crit_skill=True).can_crit


def test_immediate_crit_chain_award_dice_add_d3_each():
    pool = Pool(skills=2, crit_skill=True, ac=15, bonus=2)
    # 20 and 20: one award die only. Award 20 (hits, d3 2) -> another award 16 (hits, d3 3) -> another? no: 16 ends it.
    r = roll_attack(pool, Scripted([20, 20, 20, 2, 16, 3]))
    assert r.crit and r.awards == (20, 16) and r.award_d3 == (2, 3)
    assert r.damage == 2 + 2 + 3 + 2  # two hits + d3s + bonus once
    # an award die that misses adds nothing and ends the chain
    r = roll_attack(pool, Scripted([20, 4, 7]))
    assert r.awards == (7,) and r.award_d3 == () and r.damage == 1 + 2


def test_next_round_crit_timing_awards_a_die_instead():
    pool = Pool(skills=2, crit_skill=True, ac=15, timing="next_round")
    r = roll_attack(pool, Scripted([20, 3]))
    assert r.crit and r.next_round_award and r.awards == ()
    assert Pool(skills=2, award=1).dice == 3  # and it may pass the cap
    assert Pool(skills=5, award=1).dice == 6


def test_paralyzed_target_any_hit_is_a_crit_and_petrified_takes_only_crit_damage():
    para = Pool(skills=1, ac=10, hit_is_crit=True)
    r = roll_attack(para, Scripted([12, 15, 2]))
    assert r.crit and r.award_d3 == (2,) and r.damage == 1 + 2
    stone = Pool(skills=2, ac=10, crit_skill=True, only_crit_damage=True, bonus=4)
    assert roll_attack(stone, Scripted([12, 15])).damage == 0
    r = roll_attack(stone, Scripted([20, 12, 11, 3]))
    assert r.damage == 3  # only the award die's d3


# -- damage types --------------------------------------------------------------------------------

@pytest.mark.parametrize("flags,expected", [
    ({}, 7), ({"resistant": True}, 3), ({"vulnerable": True}, 14), ({"resistant": True, "vulnerable": True}, 7),
    ({"immune": True}, 0), ({"absorbing": True}, -7), ({"absorbing": True, "immune": True}, -7),
    ({"immune": True, "vulnerable": True}, 0),
])
def test_damage_types(flags, expected):
    assert apply_damage_types(7, **flags) == expected


def test_resistance_rounds_down_so_one_becomes_zero():
    assert apply_damage_types(1, resistant=True) == 0
    r = roll_attack(Pool(skills=1, ac=10, resistant=True), Scripted([15]))
    assert (r.raw, r.damage) == (1, 0)


# -- the restrictions table, row by row ----------------------------------------------------------

@pytest.mark.parametrize("name,by,melee,ranged,other", [
    ("Blind", "dis", "adv", "adv", ("sight",)),
    ("Charmed", None, None, None, ()),
    ("Deaf", None, None, None, ("hearing",)),
    ("Frightened", "dis", None, None, ()),
    ("Grappled", None, None, None, ()),
    ("Incapacitated", "refused", None, None, ()),
    ("Invisible", None, "dis", "dis", ()),
    ("Paralyzed", "refused", "adv", "adv", ("body",)),
    ("Petrified", "refused", "adv", "adv", ("body",)),
    ("Poisoned", "dis", None, None, ()),
    ("Prone", "dis", "adv", "dis", ()),
    ("Restrained", "dis", "adv", "adv", ()),
    ("Stunned", "refused", "adv", "adv", ("body",)),
    ("Unconscious", "refused", "adv", "dis", ()),  # seed 004 lists no failed saves for it
])
def test_restriction_rows(name, by, melee, ranged, other):
    assert name in CONDITIONS and len(CONDITIONS) == 14
    s = situation([name], [])
    if by == "refused":
        assert s.refused and "no actions" in s.refused
    else:
        assert s.refused is None
        assert s.net == by and (not by or name.lower() in s.disadvantage[0])
    for ranged_attack, expect in ((False, melee), (True, ranged)):
        t = situation([], [name], ranged=ranged_attack)
        assert t.net == expect, (name, ranged_attack)
        if expect:
            assert name.lower() in (t.advantage + t.disadvantage)[0]
    for kind in other:
        _, auto, _ = save_situation(kind, [name])
        assert auto and name.lower() in auto


def test_restriction_special_effects():
    inv = situation([], ["Invisible"])
    assert inv.die_penalty == 3 and inv.net == "dis"
    pool = Pool(skills=3, net=inv.net, ac=10, penalty=inv.die_penalty)
    r = roll_attack(pool, Scripted([12, 13, 2]))    # 2 dice left, each -3: 9 misses, 10 hits
    assert r.hits == 1
    assert situation([], ["Paralyzed"]).hit_is_crit
    assert situation([], ["Petrified"]).only_crit_damage
    assert situation(["Charmed"], [], charmer_is_target=True).refused.startswith("a charmed creature")
    assert save_situation("body", ["Restrained"])[0] == "dis"
    assert save_situation("preservation", ["Poisoned"])[0] == "dis"
    assert save_situation("social", ["Frightened"])[0] == "dis"
    assert save_situation("body", [], defending=True)[0] == "adv"
    # several restrictions do not add up: two penalties of the same kind are one
    assert situation([], ["Invisible", "invisible"]).die_penalty == 3


def test_cover_and_defending():
    assert situation([], [], cover="half").cover_ac == 2
    assert situation([], [], cover="three-quarters").cover_ac == 5
    assert "complete cover" in situation([], [], ranged=True, cover="complete").refused
    assert situation([], [], ranged=False, cover="complete").refused is None
    assert situation([], [], defending=True).disadvantage == ("target defending",)


# -- saves and competitions ------------------------------------------------------------------------

def test_saves():
    r = roll_save(3, 15, None, Scripted([12]))
    assert (r.total, r.success) == (15, True)
    r = roll_save(3, 15, "adv", Scripted([4, 13]))
    assert (r.kept, r.success) == (13, True)
    r = roll_save(3, 15, "dis", Scripted([4, 13]))
    assert (r.kept, r.success) == (4, False)
    assert not roll_save(30, 1, None, Scripted([]), "stunned: fails body saves").success
    assert save_odds(0, 11, None) == pytest.approx(0.5)
    assert save_odds(0, 11, "adv") == pytest.approx(0.75)
    assert save_odds(0, 11, "dis") == pytest.approx(0.25)


def test_grapple_modifiers_and_a_tie_keeps_things_as_they_were():
    c = Competition("grapple", 1, 0, aggressor_size=4, victim_size=3, aggressor_speed=30, victim_speed=50, slick=True, victim_prone=True)
    a, v = competition_modifiers(c)
    assert a == [("larger by 1 size", 2)]
    assert v == [("faster by 20 ft", 2), ("rain, ice or slick", 3), ("prone", -5)]
    r = roll_competition(c, Scripted([7, 10]))   # 7+1+2 = 10 vs 10+0+0 = 10: tie, the grappler fails
    assert (r["aggressor"]["total"], r["victim"]["total"], r["success"]) == (10, 10, False)
    assert roll_competition(c, Scripted([8, 10]))["success"]
    # escaping: the larger side gets the size bonus, the one held the speed and slick bonuses
    e = Competition("escape", 0, 0, aggressor_size=3, victim_size=4, aggressor_speed=40, victim_speed=30)
    a, v = competition_modifiers(e)
    assert a == [("faster by 10 ft", 1)] and v == [("larger by 1 size", 2)]


def test_push_modifiers_and_size_limit():
    c = Competition("trip", 0, 0, aggressor_size=3, victim_size=2, slick=True, aggressor_prone=True)
    a, v = competition_modifiers(c)
    assert a == [("larger competitor", 2), ("prone", -5)] and v == [("rain, ice or slick", -3)]
    with pytest.raises(RuleError, match="at most one size larger"):
        competition_modifiers(Competition("shove", aggressor_size=2, victim_size=4))
    assert competition_odds(Competition("shove")) == pytest.approx(66 / 144)
    assert competition_odds(Competition("shove", aggressor_net="adv")) > 0 and \
        competition_odds(Competition("shove", aggressor_net="adv")) > competition_odds(Competition("shove"))


# -- variants -------------------------------------------------------------------------------------

def test_defense_rolls():
    r = defense_roll(ac=14, monster_modifiers=3, dice=4, rng=Scripted([10, 9, 20, 1]))
    assert r["dc"] == 24 and r["avoided"] == [True, False, True, False] and r["body"] == 2


def test_blind_shot_rolls_the_dice_forward_by_two():
    r = blind_shot([18, 5], [("Ally", 15), ("Orc", 30)], Scripted([2]))
    assert r["target"] == "Orc" and r["faces"] == [20, 7] and r["hits"] == 1  # 18 becomes a natural 20
    assert blind_shot([18], [("Ally", 15)], Scripted([4]))["target"] is None  # one of the 3 empty slots


def test_impalement():
    assert impalement_pool() == 3 and impalement_pool(forte=True) == 4
    pool = Pool(skills=3, ac=12, bonus=1)
    r = impalement(pool, glaive=False, rng=Scripted([20, 13, 4]))
    assert r.hits == 2
    r = impalement(pool, glaive=True, rng=Scripted([20, 13, 4, 1]))  # the 20 goes; at disadvantage: 1 hit -1 +1
    assert r.kept == (13, 4) and r.hits == 1 and r.dis_d3 == 1 and r.damage == 1


def test_chase_mode():
    assert CHASE_TABLE[90][2] == 1 and chase_hexes(90, 8) == 1 and chase_hexes(90, 10) == 2
    assert chase_hexes(47, 1) == 0 and chase_hexes(50, 1) == 1 and chase_hexes(20, 10) == 0  # 47 uses the 45 row
    assert chase_hexes(45, 1, abandonment=True) == 1  # +5 ft: the 50 row
    assert chase_penalty([]) == (-3, ["running: -3"])
    assert chase_penalty(["spinning moves"])[0] == -2
    assert chase_penalty(["spinning moves", "footwork"])[0] == -1
    assert chase_penalty(["footwork"])[0] == -3
    assert chase_penalty([], ["dodge"])[0] == -4
    assert chase_penalty(["charging"], ["takedown"])[0] == -3
    assert chase_penalty([], [], foe_mounted=True)[0] == -5
    assert chase_second(50, 10, 0, Scripted([5])) == (1, 5)
    assert chase_second(50, 10, 0, Scripted([4])) == (0, 4)
    assert chase_second(50, 10, 10, Scripted([1])) == (0, 1)
    assert chase_second(50, 10, 0, Scripted([20])) == (2, 20)
    assert chase_second(25, 9, 0, Scripted([])) == (0, None)
    assert chase_over(25, 50) and not chase_over(20, 50)


# -- exact odds -----------------------------------------------------------------------------------

def _simulate(pool: Pool, n: int, seed: int = 5):
    rng = random.Random(seed)
    hits = crits = 0
    dist: dict[int, int] = {}
    for _ in range(n):
        r = roll_attack(pool, rng)
        hits += not r.miss  # a hit as the rules call it (at disadvantage a total of 0 or less is a miss)
        crits += r.crit
        dist[r.damage] = dist.get(r.damage, 0) + 1
    return hits / n, crits / n, dist


@pytest.mark.parametrize("pool", [
    Pool(skills=5, net="adv", sneak=False, crit_skill=True, ac=14, bonus=3, resistant=True),
    Pool(skills=2, net="dis", ac=12, bonus=1),
    Pool(skills=1, net="dis", ac=8, bonus=0),
    Pool(skills=3, ac=13, crit_skill=True, bonus=2, vulnerable=True, penalty=3),
    Pool(skills=2, ac=11, hit_is_crit=True, only_crit_damage=True),
    Pool(skills=4, crit_skill=True, ac=16, bonus=2, timing="next_round", absorbing=True),
])
def test_exact_odds_agree_with_a_seeded_simulation(pool):
    odds = attack_odds(pool)
    assert sum(odds.damage.pmf.values()) + odds.residual == pytest.approx(1.0, abs=1e-9)
    n = 30_000
    p_hit, p_crit, dist = _simulate(pool, n)
    assert p_hit == pytest.approx(odds.p_hit, abs=0.012)
    assert p_crit == pytest.approx(odds.p_crit, abs=0.008)
    mean = sum(v * k for v, k in dist.items()) / n
    assert mean == pytest.approx(odds.damage.mean, abs=0.06)
    for value in range(-5, 12):
        assert dist.get(value, 0) / n == pytest.approx(odds.damage.probability(value), abs=0.012)


def test_exact_odds_by_hand():
    # one die vs AC 11, no bonus: hits on 11..20 = 50%, damage 1
    odds = attack_odds(Pool(skills=1, ac=11))
    assert odds.p_hit == pytest.approx(0.5) and odds.damage.probability(1) == pytest.approx(0.5)
    # two dice, crit skill, AC 21 (only natural 20s hit): P(crit) = 1 - (19/20)^2
    odds = attack_odds(Pool(skills=2, ac=21, crit_skill=True))
    assert odds.p_crit == pytest.approx(1 - (19 / 20) ** 2)
    assert odds.p_drop(1) == pytest.approx(odds.p_hit)


def test_cover_on_saves_against_area_effects_and_movement_badges():
    from pyengine.systems.realms import cover_save_bonus, movement

    assert [cover_save_bonus(c, True) for c in ("none", "half", "three-quarters", "complete")] == [0, 2, 5, 5]
    assert cover_save_bonus("half", False) == 0
    assert movement(["Grappled"]) == "none" and movement(["Restrained", "Prone"]) == "none"
    assert movement(["Prone"]) == "half" and movement(["Poisoned"]) == "half" and movement(["Invisible"]) is None


def test_the_crit_chain_cut_is_reported_only_where_a_crit_can_happen():
    assert attack_odds(Pool(skills=1, ac=10)).residual == 0.0  # one d20, no crit skill: no chain to cut
    crits = attack_odds(Pool(skills=2, ac=10, crit_skill=True))
    assert crits.p_crit > 0 and 0 < crits.residual < 1e-12


class _Branch(Exception):
    """The enumerating RNG ran past its script: the die it was asked for (a..b)."""

    def __init__(self, a: int, b: int) -> None:
        super().__init__(a, b)
        self.a, self.b = a, b


class _Replay:
    def __init__(self, faces: tuple[int, ...]) -> None:
        self.faces, self.at = faces, 0

    def randint(self, a: int, b: int) -> int:
        if self.at == len(self.faces):
            raise _Branch(a, b)
        self.at += 1
        return self.faces[self.at - 1]


def _every_roll(pool: Pool, cutoff: float):
    """Every outcome of `roll_attack(pool)` with its exact probability: each die it asks for is tried at
    every face (branches below `cutoff` left out: only an endless crit chain has any)."""
    stack: list[tuple[tuple[int, ...], float]] = [((), 1.0)]
    while stack:
        faces, p = stack.pop()
        try:
            yield roll_attack(pool, _Replay(faces)), p
        except _Branch as die:
            q = p / (die.b - die.a + 1)
            if q >= cutoff:
                stack += [(faces + (f,), q) for f in range(die.a, die.b + 1)]


@pytest.mark.parametrize(("pool", "cut"), [
    (Pool(skills=1, net="dis", ac=14, bonus=1), 0.0),        # issue 53: a prone Ghoul (Str +1) against AC 14: 2 d20 keep worse
    (Pool(skills=1, net="dis", ac=14, modifier=3, bonus=0), 0.0),
    (Pool(skills=3, net="dis", ac=12, bonus=-1), 0.0),       # two dice at disadvantage, a negative bonus
    (Pool(skills=2, net="dis", ac=9, bonus=3), 0.0),          # a total never at 0: disadvantage changes no hit
    (Pool(skills=2, net="dis", ac=15, bonus=0, hit_is_crit=True, timing="next_round"), 0.0),  # a crit the -d3 cancels (a pool made so)
    (Pool(skills=2, net="adv", ac=15, bonus=-2, crit_skill=True, timing="next_round"), 0.0),
    (Pool(skills=2, net="dis", ac=15, bonus=-1, hit_is_crit=True), 1e-9),  # an award chain (endless: cut)
])
def test_p_hit_and_p_crit_are_what_roll_attack_calls_a_hit_and_a_crit_over_every_face_and_d3(pool, cut):
    """Issue 53, item 1: P(hit) counts a hit as `roll_attack` does; at disadvantage a low total is a
    miss (seed 002), so a die that hits is not enough. Every die `roll_attack` asks for is tried at
    every face (an endless crit chain down to branches of `cut`, the rest allowed for)."""
    odds = attack_odds(pool)
    p_hit = p_crit = seen = 0.0
    for roll, p in _every_roll(pool, cut):
        seen += p
        p_hit += p * (not roll.miss)
        p_crit += p * roll.crit
        assert not (roll.miss and roll.crit)
    missing = 1.0 - seen
    assert missing < 1e-5 if cut else missing == pytest.approx(0.0, abs=1e-12)
    assert p_hit - 1e-12 <= odds.p_hit <= p_hit + missing + 1e-12
    assert p_crit - 1e-12 <= odds.p_crit <= p_crit + missing + 1e-12


def test_the_prone_ghoul_at_disadvantage_hits_one_time_in_three_of_those_its_dice_hit():
    """Issue 53's figure: 2 d20 keep the worse, 7 faces in 20 hit AC 14, and 1 + 1 - d3 is above 0 only
    for a d3 of 1: P(hit) = (7/20)^2 / 3 = 4.08 %, not 12.25 %; a mean damage of 1/3 of that hit."""
    odds = attack_odds(Pool(skills=1, net="dis", ac=14, bonus=1))
    assert odds.p_hit == pytest.approx((7 / 20) ** 2 / 3)
    assert odds.damage.mean == pytest.approx((7 / 20) ** 2 / 3 * 1)
