"""One rounding rule for every percentage the app shows (issue 38, section 4): 1 − 0.95² = 9.75 % showed
as "9.7 %" in one place and 79.75 % as "79.8 %" in another (the float's own formatting)."""

from __future__ import annotations

import re
from pathlib import Path

from web.app.html import pct, percent

ROOT = Path(__file__).resolve().parents[2]


def test_half_away_from_zero_on_the_decimal_value():
    assert pct(1 - 0.95 ** 2) == "9.8%" and pct(0.7975) == "79.8%"
    assert pct(0.0025) == "0.3%" and pct(0.0024999) == "0.2%" and pct(1 / 3) == "33.3%" and pct(1.0) == "100.0%"
    assert pct(0.123456, 2) == "12.35%" and percent(0.00049, 2) == "0.05"


def test_every_percentage_on_screen_goes_through_the_one_function():
    """No module of the web layer formats a probability itself (`p * 100:.1f`)."""
    found = []
    for path in (ROOT / "web").rglob("*.py"):
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if re.search(r"\*\s*100\s*:\s*\.\d+f\}", line):
                found.append(f"{path.relative_to(ROOT)}:{n}")
    assert found == []
