"""Command line: `python -m pyengine roll "4d6kh3" [--seed N]`, `python -m pyengine odds "3d20kh1+2"`,
`python -m pyengine creature "Adult Red Dragon" [--json]` (the SRD library: the built site's file, or
made from the pinned package by build.py the first time)."""

from __future__ import annotations

import argparse
import random
import sys

from .dice import distribution, roll
from .errors import EngineError


def histogram(expression: str, width: int = 50) -> str:
    dist = distribution(expression)
    top = max(dist.pmf.values())
    lines = [f"{expression}: mean {dist.mean:.2f}, stdev {dist.stdev:.2f}, range {dist.min}..{dist.max}"]
    for value, p in dist.items():
        if p < 1e-6 and len(dist.pmf) > 60:
            continue
        bar = "#" * max(1 if p > 0 else 0, round(p / top * width))
        lines.append(f"{value:>6} {p * 100:8.4f}%  at least: {dist.at_least(value) * 100:8.4f}%  {bar}")
    if dist.residual:
        lines.append(f"(explosions cut off: {dist.residual:.2e} of the probability not shown)")
    return "\n".join(lines)


def library_text() -> str:
    """The SRD library file: the built site's, else made by build.py from the pinned package (it
    downloads the package from PyPI the first time)."""
    import importlib
    from pathlib import Path

    from .systems.srd import LIBRARY_FILE

    root = Path(__file__).resolve().parent.parent
    built = root / "dist" / LIBRARY_FILE
    if built.exists():
        return built.read_text(encoding="utf-8")
    sys.path.insert(0, str(root))
    return str(importlib.import_module("build").srd_library_text())


def creature(name: str, as_json: bool) -> int:
    import json

    from .systems.srd import closest, creature_json, find, read_library

    library = read_library(library_text())
    found = find(library, name)
    if found is None:
        print(f"error: no SRD creature named {name!r}. Closest: {', '.join(closest(library, name)) or 'none'}", file=sys.stderr)
        return 1
    data = creature_json(found)
    print(json.dumps(data, indent=1, ensure_ascii=False) if as_json else "\n".join(f"{k}: {v}" for k, v in data.items()))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pyengine", description="Roundkeeper dice engine")
    sub = parser.add_subparsers(dest="command", required=True)
    p_roll = sub.add_parser("roll", help="roll dice notation")
    p_roll.add_argument("expression")
    p_roll.add_argument("--seed", type=int, default=None)
    p_odds = sub.add_parser("odds", help="exact distribution as a text histogram")
    p_odds.add_argument("expression")
    p_creature = sub.add_parser("creature", help="an SRD creature as the add form would add it")
    p_creature.add_argument("name")
    p_creature.add_argument("--json", action="store_true", help="as JSON")
    args = parser.parse_args(argv)
    try:
        if args.command == "creature":
            return creature(args.name, args.json)
        if args.command == "roll":
            rng = random.Random(args.seed) if args.seed is not None else random.Random()
            print(roll(args.expression, rng).text)
        else:
            print(histogram(args.expression))
    except EngineError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
