"""Distribution as a value with operations (from a pmf, sum, map, mix, at-least), checked against
the notation's own exact odds and by simulation; and the caches of parse, distribution, the
roller's odds and the systems' attack odds."""

from __future__ import annotations

import random

import pytest

from pyengine import odds
from pyengine.dice import distribution, parse
from pyengine.odds import Distribution, exact
from pyengine.systems import laurels, realms, strife
from web.app import odds_job

D6 = Distribution.uniform(1, 6)


def close(a: Distribution, b: Distribution) -> bool:
    return a.pmf.keys() == b.pmf.keys() and all(a.pmf[v] == pytest.approx(b.pmf[v], abs=1e-15) for v in a.pmf)


def test_sum_and_repeated_sum_match_the_notation():
    assert close(D6 + D6, distribution("2d6"))
    assert close(D6.times(3), distribution("3d6"))
    assert (D6 + Distribution.constant(2)).min == 3


def test_map_merges_outcomes_and_from_pairs_adds_repeats():
    soaked = D6.map(lambda v: max(0, v - 4))
    assert soaked.items() == [(0, pytest.approx(4 / 6)), (1, pytest.approx(1 / 6)), (2, pytest.approx(1 / 6))]
    assert Distribution.from_pairs([(3, 0.25), (1, 0.5), (3, 0.25), (2, 0.0)]).pmf == {1: 0.5, 3: 0.5}
    assert list(Distribution.from_pmf({5: 0.5, -1: 0.5, 9: 0.0}).pmf) == [-1, 5]


def test_mix_weights_cases_and_their_residuals():
    exploding = distribution("1d6!")
    mixed = Distribution.mix([(0.25, Distribution.constant(0)), (0.75, exploding), (0.0, D6)])
    assert mixed.probability(0) == pytest.approx(0.25)
    assert mixed.at_least(1) == pytest.approx(0.75 * (1 - exploding.residual))
    assert mixed.residual == pytest.approx(0.75 * exploding.residual)


def test_a_mixture_matches_a_simulation():
    """Half the time 1d8, else 2d4+1: mean, and P(>= 6), within the simulation's margin."""
    mixed = Distribution.mix([(0.5, Distribution.uniform(1, 8)), (0.5, distribution("2d4") + Distribution.constant(1))])
    rng = random.Random(5)
    rolls = [rng.randint(1, 8) if rng.random() < 0.5 else rng.randint(1, 4) + rng.randint(1, 4) + 1 for _ in range(40_000)]
    assert sum(rolls) / len(rolls) == pytest.approx(mixed.mean, abs=0.05)
    assert sum(r >= 6 for r in rolls) / len(rolls) == pytest.approx(mixed.at_least(6), abs=0.01)


def test_parse_and_distribution_are_cached_on_the_text():
    assert parse("4d6kh3") is parse("4d6kh3")
    assert distribution("4d6kh3") is distribution("4d6kh3")
    assert distribution("4d6kh3", odds.Budget()) is not distribution("4d6kh3")  # an explicit budget computes afresh


def test_the_cache_keeps_no_huge_answer_and_stays_small():
    big = distribution("3d10000")  # 29,998 outcomes: computed, returned, not kept
    assert len(big.pmf) > exact.CACHE_OUTCOMES and "3d10000" not in exact._CACHE
    for n in range(exact.CACHE_SIZE + 20):
        distribution(f"1d6+{n}")
    assert len(exact._CACHE) <= exact.CACHE_SIZE


def test_the_roller_computes_an_expression_once(monkeypatch):
    calls = []
    real = odds_job.distribution_ast
    monkeypatch.setattr(odds_job, "distribution_ast", lambda ast, budget: calls.append(ast) or real(ast, budget))
    text = "3d8+1d12+7"  # not used by any other test, so not already remembered
    first, again = odds_job.OddsJob(parse(text)), odds_job.OddsJob(parse(text))
    assert first.exact is again.exact and len(calls) == 1
    over = "100d6!kh50"
    odds_job.OddsJob(parse(over)), odds_job.OddsJob(parse(over))
    assert calls.count(parse(over)) == 1  # over the budget: remembered as such, estimated each time


def test_attack_odds_are_cached_on_their_frozen_inputs():
    pool = realms.Pool(skills=2, ac=12, bonus=2)
    assert realms.attack_odds(pool) is realms.attack_odds(realms.Pool(skills=2, ac=12, bonus=2))
    spec = strife.Spec(portions=(strife.Portion("physical", 40, 5, 30, "1d8+2"),))
    assert strife.attack_odds(spec) is strife.attack_odds(spec)
    a = laurels.Fighter(level=3, str=2, weapon=laurels.Weapon(die=6))
    t = laurels.Fighter(level=1, armour=1)
    assert laurels.attack_odds(a, t, laurels.Attack()) is laurels.attack_odds(a, t, laurels.Attack())


def test_a_distribution_is_a_value_no_cache_can_be_poisoned_through():
    """Issue 49, item 5: `distribution('2d6').pmf[99] = 1.0` once stayed in the cache; now the pmf is
    read-only and a distribution hashes as its value."""
    from pyengine.odds import Distribution, distribution

    two = distribution("2d6")
    with pytest.raises(TypeError):
        two.pmf[99] = 1.0  # type: ignore[index]
    assert 99 not in distribution("2d6").pmf
    assert hash(two) == hash(distribution("2d6")) and two == distribution("2d6")
    assert len({Distribution.uniform(1, 6), Distribution.uniform(1, 6), Distribution.constant(3)}) == 2
    source = {1: 0.5, 2: 0.5}
    coin = Distribution(source)
    source[3] = 1.0  # (its own copy: the dict it was made from changes nothing)
    assert dict(coin.pmf) == {1: 0.5, 2: 0.5}
