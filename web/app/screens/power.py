"""Realm of Strife's power on several targets on the save panel (issue 52, section 5): one hit roll
against each target's own Resistance (pyengine/systems/strife/power.py), each target's exact P(hit)
and P(crit) before the roll, the damage once (the bonus split over the targets hit), one Apply. Drawn
by web/app/screens/save.py's screen for a fight of that system; its inputs read as the d20 panel's are."""

from __future__ import annotations

from typing import Any

from pyengine.errors import EngineError
from pyengine.model import Action, Encounter
from pyengine.systems.strife import power_odds
from web.app.html import esc, pct
from web.app.screens.multi import APPLY_ROW, odds_list, panel_end, result_html, target_toggles
from web.app.ui import POWER_BLANK, power_args

__all__ = ["power_panel_html"]

def _results(enc: Encounter, pending: Action) -> str:
    args = pending.args
    rows = []
    for r in args["results"]:
        if r["id"] not in enc.names():
            continue
        c = enc.get(r["id"])
        landed = r["outcome"] in ("hit", "crit")
        rows.append(f'<div class="save-row" data-testid="save-result-row" data-combatant-id="{esc(c.id)}" data-saved="{str(not landed).lower()}">'
                    f'<p><b>{esc(c.name)}</b> {r["total"]} vs Resistance {r["resistance"]}: <b data-testid="power-outcome">{esc(r["outcome"])}</b>'
                    + (f' · <b data-testid="save-result-damage">{r.get("damage", 0)}</b> damage' if landed else "") + '</p></div>')
    head = (f'<p data-testid="save-damage-roll">d100 <b>{args["natural"]}</b>'
            + (f' · damage <code class="roll">{esc(args["damage_text"])}</code>' if args["damage_text"] else "")
            + (f' · bonus {args["share"]:+d} each' if args.get("share") else "") + '</p>')
    return head + "".join(rows) + APPLY_ROW


def power_panel_html(enc: Encounter, config: dict[str, Any]) -> str:
    """The whole panel: who uses the power, the situation, the targets, each one's odds, Roll, the
    results and Apply."""
    effect = {**POWER_BLANK, **(config.get("effect") or {})}
    chosen = list(config.get("targets") or ())
    who = "".join(f'<option value="{esc(c.id)}"{" selected" if c.id == effect["attacker"] else ""}>{esc(c.name)}</option>' for c in enc.combatants)
    form = (
        '<h3 data-testid="sheet-title">A power on several targets</h3>'
        f'<label class="field">Who uses it<select data-save-key="attacker" data-action-change="save-config" data-testid="power-attacker">{who}</select></label>'
        '<div class="grid2">'
        + "".join(f'<label class="field">{label}<input type="number" inputmode="numeric" data-save-key="{key}" data-action-change="save-config" '
                  f'data-testid="power-{key}" value="{esc(effect[key])}"></label>' for key, label in (("modifier", "To-hit modifier"), ("bonus", "Damage bonus (split)")))
        + '</div><div class="checks"><label class="check"><input type="checkbox" data-save-key="missile" data-action-change="save-config" '
        f'data-testid="power-missile"{" checked" if effect["missile"] is True else ""}> Missile-type (Dodge adds to Resistance)</label></div>'
    )
    toggles = target_toggles((c for c in enc.combatants if c.id != effect["attacker"]), chosen)
    try:
        odds = power_odds(enc, power_args(config, set(enc.names())))
        error = ""
    except EngineError as e:
        odds, error = [], str(e)
    rows = "".join(
        f'<div class="save-row" data-testid="save-odds-row" data-combatant-id="{esc(o["id"])}"><p><b>{esc(enc.get(o["id"]).name)}</b> '
        f'<span class="muted">Resistance {o["resistance"]}</span><br>P(hit) <b data-testid="power-p-hit">{pct(o["p_hit"])}</b> · '
        f'P(crit) <b data-testid="power-p-crit">{pct(o["p_crit"])}</b></p></div>' for o in odds)
    roll = '<div class="row"><button type="button" class="primary" data-action="roll-saves" data-testid="roll-saves">Roll the power</button></div>'
    return (form + f'<h4>Targets</h4><div class="checks" data-testid="save-targets">{toggles}</div>'
            + panel_end("Odds (one d100 for all)", odds_list(rows, error, bool(chosen)), roll, result_html(config, lambda a: _results(enc, a), "power")))
