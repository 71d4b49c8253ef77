"""Enchanted Realms' area effect on the save panel (issue 52, section 5): one save of a kind against
one DC for several targets, each with its cover and advantage, its exact P(success) before the roll
(pyengine/systems/realms/area.py), the damage to Body rolled once, one Apply. Drawn by
web/app/screens/save.py's screen for a fight of that system; its inputs read as the d20 panel's are."""

from __future__ import annotations

from typing import Any

from pyengine.errors import EngineError
from pyengine.model import Action, Encounter
from pyengine.systems.realms import SAVE_KINDS
from pyengine.systems.realms.area import area_odds
from web.app.html import esc, pct
from web.app.screens.multi import APPLY_ROW, odds_list, panel_end, result_html, target_toggles
from web.app.ui import AREA_BLANK, area_args

__all__ = ["area_panel_html"]

COVERS = {"none": "None", "half": "Half +2", "three-quarters": "¾ +5", "complete": "Full +5"}


def _field(key: str, label: str, value: object, testid: str, number: bool = False) -> str:
    kind = ' type="number" inputmode="numeric"' if number else ' type="text" autocomplete="off" autocapitalize="off" spellcheck="false"'
    return (f'<label class="field">{esc(label)}<input{kind} data-save-key="{key}" data-action-change="save-config" '
            f'data-testid="{testid}" value="{esc(value)}"></label>')


def _select(key: str, value: str, options: dict[str, str], testid: str, ident: str = "") -> str:
    chosen = "".join(f'<option value="{esc(v)}"{" selected" if v == value else ""}>{esc(w)}</option>' for v, w in options.items())
    where = f' data-combatant-id="{esc(ident)}"' if ident else f' data-save-key="{key}"'
    return f'<select{where} data-action-change="save-config" data-testid="{testid}">{chosen}</select>'


def _results(enc: Encounter, pending: Action) -> str:
    args = pending.args
    rows = []
    for r in args["results"]:
        if r["id"] not in enc.names():
            continue
        c = enc.get(r["id"])
        takes = args["amount"] if not r["success"] else (args["amount"] // 2 if args["success"] == "half" else 0)
        rows.append(f'<div class="save-row" data-testid="save-result-row" data-combatant-id="{esc(c.id)}" data-saved="{str(r["success"]).lower()}">'
                    f'<p><b>{esc(c.name)}</b> {esc(r["text"])}' + (f' · <b data-testid="save-result-damage">{takes}</b> Body' if args["damage"] else "")
                    + '</p></div>')
    damage = f'<p data-testid="save-damage-roll">Damage: <code class="roll">{esc(args["damage_text"])}</code></p>' if args["damage"] else ""
    return damage + "".join(rows) + APPLY_ROW


def area_panel_html(enc: Encounter, config: dict[str, Any]) -> str:
    """The whole panel: the effect, the targets (each with its cover and roll), the odds, Roll, the
    results and Apply."""
    effect = {**AREA_BLANK, **(config.get("effect") or {})}
    chosen = list(config.get("targets") or ())
    cover, adv = config.get("cover") or {}, config.get("adv") or {}
    form = (
        f'<h3 data-testid="sheet-title">{esc(effect.get("name") or "Area effect")}</h3>'
        '<div class="grid2">' + _field("name", "Name", effect["name"], "save-effect-name")
        + f'<label class="field">Save{_select("kind", str(effect["kind"]), {k: k for k in SAVE_KINDS}, "area-kind")}</label>'
        + _field("dc", "DC", effect["dc"], "save-dc", True) + _field("modifier", "Modifier (all)", effect["modifier"], "area-modifier", True)
        + '</div>' + _field("damage", "Damage to Body (rolled once)", effect["damage"], "save-damage")
        + f'<label class="field">A success{_select("success", str(effect["success"]), {"none": "takes none", "half": "takes half"}, "save-success")}</label>'
    )
    toggles = target_toggles(enc.combatants, chosen)
    try:
        odds = {o["id"]: o for o in area_odds(enc, area_args(config, set(enc.names())))}
        error = ""
    except EngineError as e:
        odds, error = {}, str(e)
    rows = []
    for ident in chosen:
        if ident not in enc.names():
            continue
        c, o = enc.get(ident), odds.get(ident)
        line = ("fails automatically (" + esc(o["auto_fail"]) + ")" if o and o["auto_fail"] else
                f'P(success) <b data-testid="area-p-success">{pct(o["p_success"])}</b> · P(fail) <b data-testid="save-p-fail">'
                f'{pct(1 - o["p_success"])}</b> <span class="muted">d20 {o["modifier"]:+d}{"".join(" · " + esc(x) for x in o["causes"])}</span>'
                if o else "")
        rows.append(f'<div class="save-row" data-testid="save-odds-row" data-combatant-id="{esc(c.id)}"><p><b>{esc(c.name)}</b><br>{line}</p>'
                    f'<div class="grid2"><label class="field">Cover{_select("", str(cover.get(ident) or "none"), COVERS, "area-cover", ident)}</label>'
                    f'<label class="field">Roll{_select("", str(adv.get(ident) or ""), {"": "Normal", "adv": "Advantage", "dis": "Disadvantage"}, "save-adv", ident)}'
                    '</label></div></div>')
    roll = '<div class="row"><button type="button" class="primary" data-action="roll-saves" data-testid="roll-saves">Roll the saves</button></div>'
    return (form + f'<h4>Targets</h4><div class="checks" data-testid="save-targets">{toggles}</div>'
            + panel_end("Odds", odds_list("".join(rows), error, bool(chosen)), roll, result_html(config, lambda a: _results(enc, a), "effect")))
