"""web/app/odds_job.py: the roller's odds never take more than a counted share of one task (issue 49,
item 6: counted work in the tests, the milliseconds in the bench: `tests/bench.py --only typing`)."""

from __future__ import annotations

import pytest

from pyengine.dice import Budget, distribution_ast, parse
from pyengine.errors import DiceLimitError, EngineError
from web.app import odds_job
from web.app.odds_job import ESTIMATE_DICE, PAGE_WORK, SLICE_DICE, Counted, OddsJob, first_answer

# What froze the page once (tests/e2e/test_never_freeze.py types them), and heavy keep/drop and groups.
TYPED = ["1d10000+1d10000", "10d10000", "1000d10000", "100d6!", "100d6!!", "1000d6", "+".join(["d20"] * 250), "1d20!>1",
         "2d10000", "1d10000kh1", "2d5000dh1", "10d10000dh9", "8d10000!dh9", "1000d6kh500", "500d12<=11pl264",
         "{4d6kh3, 4d6kh3, 4d6kh3, 4d6kh3, 4d6kh3, 4d6kh3}kh1", "4d6ra6", "1000d6!>=2"]


def never() -> float:
    return 0.0  # a clock that never reaches a deadline: only the counted work ends a slice


@pytest.mark.parametrize("text", TYPED)
def test_an_exact_attempt_stays_in_its_budget_and_a_slice_draws_a_bounded_number_of_dice(text):
    odds_job._EXACT.clear()  # (computed here, not answered from the cache: its work is counted)
    job = OddsJob(parse(text), clock=never)
    assert 0 <= job.work <= PAGE_WORK  # (0: refused at its first step, 1000d10000)
    steps = 0
    while not job.done and steps < 15:
        try:
            job.step()
        except EngineError:
            break
        steps += 1
    assert all(0 < dice <= SLICE_DICE + ESTIMATE_DICE for dice in job.slices), job.slices
    if job.estimate is not None and not job.too_costly:
        assert len(job.slices) >= 2  # cut into slices, each its own task
    else:
        assert job.slices == [] or job.too_costly


def test_the_work_a_budget_refuses_is_not_spent():
    budget = Budget(1_000)
    with pytest.raises(DiceLimitError):
        distribution_ast(parse("1000d10000"), budget)
    assert 0 <= budget.used <= 1_000


def test_a_slice_stops_at_its_dice_or_its_deadline_whichever_comes_first():
    job = OddsJob(parse("1000d10000"), clock=never)
    job.step()
    assert job.slices == [2 * 1_000]  # two rolls of 1,000 dice: SLICE_DICE reached
    ticks = iter(range(100))
    timed = OddsJob(parse("1000d10000"), clock=lambda: float(next(ticks)))
    timed.step(seconds=1)  # the deadline comes after the first roll
    assert timed.slices == [1_000]


def test_the_counted_random_draws_what_random_draws():
    import random

    counted, plain = Counted(5), random.Random(5)
    assert [counted.randint(1, 6) for _ in range(50)] == [plain.randint(1, 6) for _ in range(50)] and counted.drawn == 50
    assert first_answer(parse("2d6"), PAGE_WORK)[0] == "exact"
