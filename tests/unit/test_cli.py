"""The command line: python -m pyengine roll / odds."""

from __future__ import annotations

import random

from pyengine.__main__ import main
from pyengine.dice import roll


def test_roll_with_seed_prints_the_annotated_roll(capsys):
    assert main(["roll", "4d6kh3", "--seed", "7"]) == 0
    assert capsys.readouterr().out.strip() == roll("4d6kh3", random.Random(7)).text


def test_odds_prints_a_histogram(capsys):
    assert main(["odds", "2d6"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "2d6: mean 7.00, stdev 2.42, range 2..12"
    seven = next(line for line in out if line.split()[0] == "7")
    assert "16.6667%" in seven and "58.3333%" in seven


def test_bad_notation_is_an_error_message_and_exit_code(capsys):
    assert main(["roll", "2d"]) == 1
    assert "expected the number of sides" in capsys.readouterr().err
