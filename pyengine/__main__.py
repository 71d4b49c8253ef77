"""Command line: `python -m pyengine roll "4d6kh3" [--seed N]`, `python -m pyengine odds "3d20kh1+2"`,
`python -m pyengine creature "Adult Red Dragon" [--json]` (the SRD library: the built site's file, or
made from the pinned package by build.py the first time), `python -m pyengine save-odds --dc 17 --bonus 2
--damage "16d6 fire" --success half [--adv|--dis] [--resist T] [--immune T] [--vulnerable T] [--hp N] [--json]`
(a d20 saving throw's exact odds: pyengine/systems/saving_throws.py)."""

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


def save_odds(args: argparse.Namespace) -> int:
    """A d20 save's exact P(fail), damage distribution, mean and P(drop)."""
    import json

    from .damage_types import DAMAGE_TYPES, Defenses
    from .systems.saving_throws import SaveMode, read_dc, read_portions, read_success
    from .systems.saving_throws import save_odds as odds

    for kind in (*args.resisted, *args.immune_to, *args.vulnerable_to):
        if kind.lower() not in DAMAGE_TYPES:
            raise EngineError(f"{kind!r} is not a damage type ({', '.join(DAMAGE_TYPES)}).")
    if not -30 <= args.bonus <= 40:
        raise EngineError("The save bonus must be from -30 to 40.")
    if args.hp is not None and not 1 <= args.hp <= 1_000_000:
        raise EngineError("--hp must be from 1 to 1,000,000.")
    defenses = Defenses(tuple(k.lower() for k in args.resisted), tuple(k.lower() for k in args.immune_to),
                        tuple(k.lower() for k in args.vulnerable_to))
    mode = SaveMode("2d20kh1" if args.adv else "2d20kl1" if args.dis else "1d20", args.fail)
    found = odds(mode, args.bonus, read_dc(args.dc), read_portions(args.damage), defenses, read_success(args.success))
    out: dict[str, object] = {"p_fail": found.p_fail, "mean_damage": found.damage.mean,
                              "damage": {str(v): p for v, p in found.damage.items()}}
    if args.hp is not None:
        out["p_drop"] = found.p_drop(args.hp)
    if args.json:
        print(json.dumps(out))
    else:
        print(f"P(fail) {found.p_fail * 100:.4f}%  mean damage {found.damage.mean:.4f}"
              + (f"  P(drops from {args.hp} HP) {out['p_drop'] * 100:.4f}%" if args.hp is not None else ""))  # type: ignore[operator]
        for value, p in found.damage.items():
            print(f"{value:>6} {p * 100:8.4f}%")
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
    p_save = sub.add_parser("save-odds", help="a d20 saving throw's exact odds and damage")
    p_save.add_argument("--dc", type=int, required=True)
    p_save.add_argument("--bonus", type=int, default=0)
    p_save.add_argument("--damage", default="", help='typed damage rolled once: "16d6 fire"')
    p_save.add_argument("--success", default="half", help="half or none: what a successful save takes")
    mode = p_save.add_mutually_exclusive_group()
    mode.add_argument("--adv", action="store_true", help="advantage on the save")
    mode.add_argument("--dis", action="store_true", help="disadvantage on the save")
    mode.add_argument("--fail", action="store_true", help="fails automatically (paralyzed, stunned ...: Str and Dex)")
    p_save.add_argument("--resist", dest="resisted", action="append", default=[], metavar="TYPE")
    p_save.add_argument("--immune", dest="immune_to", action="append", default=[], metavar="TYPE")
    p_save.add_argument("--vulnerable", dest="vulnerable_to", action="append", default=[], metavar="TYPE")
    p_save.add_argument("--hp", type=int, default=None, help="the target's hit points: P(drops to 0)")
    p_save.add_argument("--json", action="store_true", help="as JSON")
    args = parser.parse_args(argv)
    try:
        if args.command == "save-odds":
            return save_odds(args)
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
