"""The comparison table in README.md is facts: every Avrae and rpg-dice-roller cell is run through
that roller (avrae/d20 from PyPI; @dice-roller/rpg-dice-roller from npm, both pinned, for the
tests only) and fails when the roller does otherwise; README.md holds exactly tests/peers/table.py."""

from __future__ import annotations

import json
import math
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from pyengine.dice import distribution
from tests.peers.table import README, ROWS, Checked, markdown, readme_table

ROLLS = 4000
ROOT = Path(__file__).resolve().parents[2]


def stats(totals: list[float]) -> dict[str, float]:
    mean = sum(totals) / len(totals)
    sd = math.sqrt(sum((t - mean) ** 2 for t in totals) / max(1, len(totals) - 1))
    return {"accepted": True, "min": min(totals), "max": max(totals), "mean": mean, "sd": sd}


def avrae(expr: str) -> dict[str, object]:
    import d20

    random.seed(20261124)  # d20 rolls with the random module
    try:
        return stats([float(d20.roll(expr).total) for _ in range(ROLLS)])
    except d20.RollError as error:
        return {"accepted": False, "error": str(error)}


@pytest.fixture(scope="module")
def rdr(tmp_path_factory) -> dict[str, dict[str, object]]:
    """Every row's expression through rpg-dice-roller, in one node run."""
    node = shutil.which("node")
    assert node, "node is needed (apt-get install nodejs)"
    exprs = sorted({row.rdr.expr or row.written for row in ROWS})
    path = tmp_path_factory.mktemp("rdr") / "exprs.json"
    path.write_text(json.dumps(exprs))
    done = subprocess.run([node, str(ROOT / "tests" / "peers" / "rpg_dice_roller.mjs"), str(path), str(ROLLS)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300, check=True)
    return json.loads(done.stdout)


def check(claim: Checked, written: str, got: dict[str, object]) -> None:
    """`got` (a roller's figures for the row) is what `claim` says."""
    if claim.refused:
        assert not got["accepted"], f"accepted, the table says refused: {got}"
        return
    assert got["accepted"], f"refused, the table says accepted: {got.get('error')}"
    low, high, mean, sd = (float(got[k]) for k in ("min", "max", "mean", "sd"))  # type: ignore[arg-type]
    if claim.value is not None:
        assert low == high == claim.value, got
        return
    if claim.mean is not None:
        assert abs(mean - claim.mean) <= 5 * sd / math.sqrt(ROLLS), got
        return
    ours = distribution(written if not claim.same_as else claim.same_as)
    error = 5 * max(sd, ours.stdev) / math.sqrt(ROLLS) + 1e-9
    if claim.differs:
        assert abs(mean - ours.mean) > error, f"reads as ours (mean {mean:.3f} vs {ours.mean:.3f}); the table says it differs"
        return
    assert abs(mean - ours.mean) <= error, f"mean {mean:.3f}, ours {ours.mean:.3f} (± {error:.3f})"
    assert ours.min <= low and high <= ours.max, f"range {low}–{high} outside ours {ours.min}–{ours.max}"


@pytest.mark.parametrize("row", ROWS, ids=[row.written for row in ROWS])
def test_each_avrae_cell_is_what_d20_does(row):
    check(row.avrae, row.written, avrae(row.avrae.expr or row.written))


@pytest.mark.parametrize("row", ROWS, ids=[row.written for row in ROWS])
def test_each_rpg_dice_roller_cell_is_what_it_does(row, rdr):
    check(row.rdr, row.written, rdr[row.rdr.expr or row.written])


@pytest.mark.parametrize("row", ROWS, ids=[row.written for row in ROWS])
def test_each_of_our_cells_reads_as_it_says(row):
    """Ours: refused where the cell says so, else it has odds (exact, unless the row says otherwise)."""
    from pyengine.errors import EngineError

    if row.ours.startswith("refused"):
        with pytest.raises(EngineError):
            distribution(row.written)
    else:
        assert distribution(row.written).pmf


def test_the_readme_holds_exactly_this_table():
    """`python3 -m tests.peers.table` writes it; a hand edit of README.md fails here."""
    assert readme_table(README.read_text(encoding="utf-8")) == markdown()
