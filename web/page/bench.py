"""Measurements run inside the browser by `python3 build.py bench` (through window.RK.bench)."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from pyengine.dice import distribution, parse, roll
from pyengine.model import Combatant, Encounter
from pyengine.tracker import Timeline, new_encounter, resolve

if TYPE_CHECKING:
    from web.page.runtime import Runtime

DISTRIBUTIONS = ("4d6kh3", "10d20kh3", "8d6!", "6d10>=8")
# The expressions that froze the page before the work budget (issue "never freeze").
FROZE = ("1d10000+1d10000", "10d10000", "1000d10000", "100d6!", "100d6!!", "1000d6", "+".join(["d20"] * 250),
         "1d20!>1", "2d10000", "1d10000kh1", "1d6r<6!", "1d6r1!>=2")
# Keep/drop of large dice and heavy groups that once ran seconds past the budget (issue "Dice, third pass").
HEAVY = ("2d5000dh1", "3d4000dl2", "2d10000dh1", "10d10000dh9", "8d10000!dh9", "3d10000kh2", "1000d6kh500", "500d12<=11pl264",
         "1000d6dh834>2", "{1d10000k2mi2} >= 100d4!!kh1", "{4d6kh3, 4d6kh3, 4d6kh3, 4d6kh3, 4d6kh3, 4d6kh3}",
         "{4d6kh3, 4d6kh3, 4d6kh3, 4d6kh3, 4d6kh3, 4d6kh3}kh1", "{1d20, 1d20, 1d20, 1d20, 1d20}kh1", "4d6ra6", "3d6!=3kh2")
# Exact odds that reach further (issue "dice notation"): each exact within the default budget.
REACH = ("2d10000", "10d10000kh1", "1000d6", "100d6!", "100d20kh50", "40d6!kh20")


def reach_timings(repeat: int = 3) -> dict[str, object]:
    """Per expression: median ms of its exact distribution (default budget, no cache), outcomes, residual."""
    from pyengine.odds import Budget

    out: dict[str, object] = {}
    for expr in REACH:
        dist = distribution(expr, Budget())
        out[expr] = {"ms": _median_ms(_computed(expr), repeat),
                     "outcomes": len(dist.pmf), "residual": dist.residual}
    return out


def first_answers(work: int) -> dict[str, object]:
    """Per expression: ms from the text to the first answer the roller shows (parse, the exact odds
    within `work`, else the first slice of the estimate), and which it was."""
    from pyengine.errors import EngineError
    from web.app.odds_job import first_answer

    out: dict[str, object] = {}
    for expr in FROZE + HEAVY:
        t0 = time.perf_counter()
        try:
            kind, _ = first_answer(parse(expr), work)
        except EngineError:
            kind = "refused"
        out[expr] = {"ms": (time.perf_counter() - t0) * 1000, "kind": kind}
    return out


def _median_ms(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    times.sort()
    return times[len(times) // 2]


def dice_timings(repeat: int = 7) -> dict[str, float]:
    rng = random.Random(1)
    out = {"parse+roll 4d6kh3": _median_ms(lambda: roll("4d6kh3", rng), repeat * 10)}

    for expr in DISTRIBUTIONS:  # computed each time (distribution() alone answers a repeat from its cache)
        out[f"distribution {expr}"] = _median_ms(_computed(expr), repeat)
    out["parse 4d6kh3"] = _median_ms(lambda: parse("4d6kh3"), repeat * 10)
    from pyengine.systems.realms import Pool, attack_odds
    from pyengine.systems.strife import Portion, Spec
    from pyengine.systems.strife import attack_odds as strife_odds

    pool = Pool(skills=5, net="adv", crit_skill=True, ac=13, bonus=3, resistant=True)  # 6d20, immediate chains
    out["ER odds 6d20 adv+crit chain, resistant"] = _median_ms(lambda: attack_odds(pool), repeat)
    spec = Spec((Portion("physical", 5, 12, 40, "2d8+3"), Portion("spirit", 10, 15, 50, "3d6", parryable=False, blockable=True)),
                parry=25, block=10, ward_off=(40, 45), riders=(("Stun", 20),))
    out["RoS odds combined attack + ward-off"] = _median_ms(lambda: strife_odds(spec), repeat)
    enc, target = _realms_fight()
    from web.app import render

    out["ER attack sheet HTML (odds incl.)"] = _median_ms(lambda: render.combatant_sheet_html(enc, target, {"attacker": None}), repeat)
    return out


def _computed(expr: str) -> Callable[[], object]:
    """The exact odds of `expr` computed afresh at each call, each with a budget of its own."""
    from pyengine.odds import Budget

    return lambda: distribution(expr, Budget())


def _realms_fight() -> tuple[Encounter, Combatant]:
    t = Timeline.start(new_encounter("bench-er", "Bench", system="realms"))
    skills = "melee fighting, slashing, cleaving, weapon forte, brawling"
    for name, stats in (("Aldric", {"skills": skills, "str": 2, "weight": 1}), ("Ghoul", {"ac": 13, "resistant": "edged"})):
        t = t.do(resolve(t.present, "add_combatant", {"combatant": {"name": name, "max_hp": 20, "initiative": 5 if name == "Aldric" else 3, "stats": stats}}))
    t = t.do(resolve(t.present, "start_combat", {}, random.Random(1)))
    t = t.do(resolve(t.present, "add_condition", {"id": "c2", "name": "Prone"}))
    return t.present, t.present.get("c2")


def big_fight(n: int, seed: int = 1) -> Timeline:
    """A started fight of n combatants (a quarter of them in groups of 4)."""
    rng = random.Random(seed)
    t = Timeline.start(new_encounter(f"bench{n}", f"Bench {n}"))
    added = 0
    while added < n:
        count = 4 if added % 16 == 0 and n - added >= 4 else 1
        t = t.do(resolve(t.present, "add_combatant",
                         {"combatant": {"name": f"Fighter {added}", "init_mod": added % 6, "max_hp": 20 + added % 30}, "count": count}, rng))
        added += count
    return t.do(resolve(t.present, "start_combat", {}, rng))


def hook(rt: Runtime, name: str, arg: str = "") -> str:
    """Entry point: returns JSON. `rt`: the page's web.page.runtime.Runtime (not imported: it imports this)."""
    if name == "dice":
        return json.dumps(dice_timings())
    if name == "reach":
        return json.dumps(reach_timings())
    if name == "first_answers":
        from web.app.odds_job import PAGE_WORK

        return json.dumps(first_answers(PAGE_WORK))
    if name == "load_fight":
        rt.keeper.switch_to(rt.model, big_fight(int(arg)))
        return json.dumps({"combatants": len(rt.model.timeline.present.combatants)})
    if name == "modules":
        import sys

        return json.dumps(sorted(sys.modules))
    if name == "live":  # the live table as this page holds it (the tests' look when a phone is not told)
        live = rt.model.live
        return json.dumps({"role": live.role, "gm": live.gm, "rid": live.rid, "said": live.said, "refused": live.refused,
                           "peers": [[p.id, p.name, p.device, p.connected] for p in live.peers],
                           "claims": [list(c) for c in live.claims],
                           "requests": [[r.id, r.peer, r.device, r.kind, r.rid] for r in live.requests]})
    if name == "odds":  # the roller's odds, counted: the most work of an exact attempt and dice of a slice
        from web.app.odds_job import ESTIMATE_DICE, PAGE_WORK, SLICE_DICE

        return json.dumps({**rt.drawing.odds.counted, "page_work": PAGE_WORK, "slice_most": SLICE_DICE + ESTIMATE_DICE})
    if name == "save_size":
        return json.dumps({"chars": len(rt.keeper.store.get(f"enc:{rt.model.timeline.present.id}") or "")})
    raise ValueError(name)
