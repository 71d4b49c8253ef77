"""Command line: `python -m pyengine roll "4d6kh3" [--seed N]`, `python -m pyengine odds "3d20kh1+2"`."""

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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pyengine", description="Roundkeeper dice engine")
    sub = parser.add_subparsers(dest="command", required=True)
    p_roll = sub.add_parser("roll", help="roll dice notation")
    p_roll.add_argument("expression")
    p_roll.add_argument("--seed", type=int, default=None)
    p_odds = sub.add_parser("odds", help="exact distribution as a text histogram")
    p_odds.add_argument("expression")
    args = parser.parse_args(argv)
    try:
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
