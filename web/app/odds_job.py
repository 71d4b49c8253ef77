"""The roller's odds for one expression, without blocking the page: the exact distribution when it
fits a small work budget, else an estimate by seeded simulation that grows one short slice at a time.
Pure Python (no js): the page schedules the slices, tests and the bench drive it directly."""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from pyengine.dice import Budget, Distribution, Estimate, Node, distribution_ast, sample
from pyengine.errors import DiceLimitError, EngineError

__all__ = ["PAGE_WORK", "SLICE_SECONDS", "SLICE_DICE", "ESTIMATE_ROLLS", "ESTIMATE_DICE", "OddsJob", "Counted"]

# The exact odds computed while typing stay within one short task (about 10 ms of CPython, some 50 ms
# of Pyodide, under the 100 ms a tap may take); past that, the panel estimates by rolling in slices.
PAGE_WORK = 100_000
SLICE_SECONDS = 0.012    # one slice of the estimate, then the page answers input again
ESTIMATE_ROLLS = 20_000  # the estimate stops here (a 95% margin of under 0.7 points)
# Dice one roll of the estimate may draw: a roll is one uninterrupted piece of work, so one that would
# draw more (1000d6!>=2 draws about 6,000: 55-140 ms in Pyodide) is not rolled to its end. It counts as
# refused; an expression whose rolls are mostly that big is not estimated ("roll it to see").
ESTIMATE_DICE = 1_000
# And one slice stops once it has drawn this many dice, whatever the clock says (counted work, the same on
# every machine: a slice draws at most SLICE_DICE + ESTIMATE_DICE dice; tests count it, the bench times it).
SLICE_DICE = 2_000


class Counted(random.Random):
    """A seeded Random that counts the dice it was asked for (each die drawn is one randint)."""

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self.drawn = 0

    def randint(self, a: int, b: int) -> int:
        self.drawn += 1
        return super().randint(a, b)


# The last answers, by expression: typing back and forth, or the same roll tapped again, redraws
# without computing. None: over the budget (the estimate is rolled again, seeded, the same).
_EXACT: dict[tuple[Node, int], Distribution | None] = {}
EXACT_CACHE = 32


def _remember(key: tuple[Node, int], exact: Distribution | None) -> None:
    if exact is not None and len(exact.pmf) > 5_000:
        return  # a few small answers are kept, never a long chart
    if len(_EXACT) >= EXACT_CACHE:
        del _EXACT[next(iter(_EXACT))]
    _EXACT[key] = exact


class OddsJob:
    """Exact within `work`, else an Estimate that `step()` adds rolls to (seeded: the same
    expression always gives the same estimate)."""

    def __init__(self, ast: Node, work: int = PAGE_WORK, clock: Callable[[], float] = time.perf_counter) -> None:
        self.ast = ast
        self.clock = clock
        self.exact: Distribution | None = None
        self.estimate: Estimate | None = None
        self.rng = Counted(0)
        # What this job's tasks did, counted (the page's tests read it: web/page/bench.py "odds"): the
        # exact attempt's work units, and the dice each slice drew.
        self.work = 0
        self.slices: list[int] = []
        key = (ast, work)
        if key in _EXACT:
            self.exact = _EXACT[key]
        else:
            budget = Budget(work)
            try:
                self.exact = distribution_ast(ast, budget)
            except DiceLimitError:
                self.exact = None
            self.work = budget.used
            _remember(key, self.exact)
        if self.exact is None:
            self.estimate = Estimate()

    @property
    def too_costly(self) -> bool:
        """Most rolls are too big to draw within a slice: no estimate that would mean anything."""
        est = self.estimate
        return est is not None and est.refused >= 20 and est.refused > est.rolls

    @property
    def done(self) -> bool:
        est = self.estimate
        return est is None or est.rolls + est.refused >= ESTIMATE_ROLLS or self.too_costly

    def step(self, seconds: float = SLICE_SECONDS) -> None:
        """Roll for about `seconds` and at most SLICE_DICE dice (at least one roll: a slice draws at most
        SLICE_DICE + ESTIMATE_DICE). Raises EngineError if a roll is impossible
        (a division by zero the exact odds did not get far enough to see)."""
        est = self.estimate
        if est is None:
            return
        deadline = self.clock() + seconds
        start = self.rng.drawn
        try:
            while True:
                sample(self.ast, est, self.rng, 1, ESTIMATE_DICE)
                if est.rolls + est.refused >= ESTIMATE_ROLLS or self.rng.drawn - start >= SLICE_DICE or self.clock() >= deadline:
                    return
        finally:
            self.slices.append(self.rng.drawn - start)

    def distribution(self) -> Distribution | None:
        """What to draw now: the exact odds, the estimate so far, or None before the first roll."""
        if self.exact is not None:
            return self.exact
        assert self.estimate is not None
        return self.estimate.distribution() if self.estimate.rolls else None


def first_answer(ast: Node, work: int) -> tuple[str, OddsJob]:
    """('exact' | 'estimate' | 'error', job) after the work the page does before it first draws."""
    job = OddsJob(ast, work)
    if job.exact is not None:
        return "exact", job
    try:
        job.step()
    except EngineError:
        return "error", job
    return "estimate", job
