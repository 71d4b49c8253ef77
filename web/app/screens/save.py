"""The save panel (issue 52, generic d20): a save effect on several targets, with each target's exact
odds before the roll (P(fail), mean damage, P(drops to 0)), one roll, the results, and one Apply.
Opened from a creature's save action on its sheet, from "Save…" (typed by hand: a trap, a spell),
or from several rows selected together."""

from __future__ import annotations

from typing import Any

from pyengine.damage_types import adjust_all, parts_from_args
from pyengine.errors import EngineError
from pyengine.model import Action, Combatant, Encounter
from pyengine.save_effects import ABILITY_NAMES, CONDITIONS, NEXT_TURN_END, SOURCE_TURN_END, SaveEffect
from pyengine.systems.generic import is_lair
from pyengine.systems.saving_throws import legendary_resistance, read_portions, save_odds, save_target, taken
from web.app.html import esc, pct
from web.app.messages import (
    SaveConfigured,
    SaveLegendaryToggled,
    SavePanelOpened,
    SavesApplied,
    SavesAsked,
    SavesRolled,
    SaveTargetsPicked,
)
from web.app.screens.area import area_panel_html
from web.app.screens.base import Context, Elsewhere, Screen
from web.app.screens.multi import APPLY_ROW, NO_TARGETS, odds_list, panel_end, result_html, target_toggles
from web.app.screens.power import power_panel_html
from web.app.ui import AREA_BLANK, POWER_BLANK
from web.app.ui import SAVE_BLANK as BLANK
from web.app.ui import save_effect as effect_of
from web.app.views import Events, Handler, Page

LASTS = {"0": "until removed", str(NEXT_TURN_END): "until the end of its next turn",
         str(SOURCE_TURN_END): "until the end of the source's next turn", "1": "1 round", "10": "1 minute (10 rounds)",
         "100": "10 minutes (100 rounds)"}


def draw(ctx: Context, ident: str | None) -> str | Elsewhere:
    enc = ctx.model.timeline.present
    if enc.system == "realms":  # (its area effect: web/app/screens/area.py)
        return area_panel_html(enc, ctx.model.ui.save or {"effect": dict(AREA_BLANK), "targets": []})
    if enc.system == "strife":  # (a power on several targets: web/app/screens/power.py)
        return power_panel_html(enc, ctx.model.ui.save or {"effect": dict(POWER_BLANK), "targets": []})
    if enc.system != "generic":
        return Elsewhere()
    live = ctx.model.live
    phones = frozenset(cid for _, eid, cid in live.claims if eid == enc.id) if live.hosting else frozenset()
    return save_panel_html(enc, ctx.model.ui.save or {"source": ident or None, "effect": dict(BLANK), "targets": []}, phones)


SCREENS = (Screen("save", draw, "sheet-error"),)


def _configured(page: Page) -> Events:
    """Every input of the panel, read whole."""
    effect: dict[str, Any] = {}
    for key, text, ticked, kind in page.fields("#sheet-body [data-save-key]", "data-save-key"):
        effect[key] = ticked if kind == "checkbox" else text
    targets = page.checked("#sheet-body input.save-target")
    d20 = {ident: text for ident, text, _, _ in page.fields("#sheet-body [data-testid=save-d20]", "data-combatant-id")}
    adv = {ident: text for ident, text, _, _ in page.fields("#sheet-body [data-testid=save-adv]", "data-combatant-id")}
    cover = {ident: text for ident, text, _, _ in page.fields("#sheet-body [data-testid=area-cover]", "data-combatant-id")}
    return SaveConfigured({"effect": effect, "targets": targets, "d20": d20, "adv": adv, "cover": cover}, page.typing)


def _opened(page: Page) -> Events:
    index = str(page.data("index") or "")
    return SavePanelOpened(page.data("id") or None, int(index) if index.isdigit() else None)


EVENTS: dict[str, Handler] = {
    "save-action": _opened,
    "save-selected": lambda page: SavePanelOpened(None, None, tuple(page.model.ui.selected or ())),
    "save-pick": lambda page: SaveTargetsPicked(str(page.data("side"))),
    "roll-saves": lambda page: SavesRolled(page.rng),
    "save-legendary": lambda page: SaveLegendaryToggled(str(page.data("id"))),
    "apply-saves": lambda page: SavesApplied(),
    "ask-saves": lambda page: SavesAsked(),
}
CHANGES: dict[str, Handler] = {"save-config": _configured}


def _select(key: str, value: str, options: dict[str, str], testid: str) -> str:
    chosen = "".join(f'<option value="{esc(v)}"{" selected" if v == value else ""}>{esc(w)}</option>' for v, w in options.items())
    return f'<select data-save-key="{key}" data-action-change="save-config" data-testid="{testid}">{chosen}</select>'


def _input(key: str, label: str, value: object, testid: str, kind: str = "text", extra: str = "") -> str:
    mode = ' inputmode="numeric"' if kind == "number" else ' autocomplete="off" autocapitalize="off" spellcheck="false"'
    return (f'<label class="field">{esc(label)}<input type="{kind}" data-save-key="{key}" data-action-change="save-config" '
            f'data-testid="{testid}" value="{esc(value)}"{mode}{extra}></label>')


def _check(key: str, label: str, ticked: bool, testid: str) -> str:
    return (f'<label class="check"><input type="checkbox" data-save-key="{key}" data-action-change="save-config" '
            f'data-testid="{testid}"{" checked" if ticked else ""}> {esc(label)}</label>')


def form_html(effect: dict[str, Any]) -> str:
    """The effect's fields: name, ability, DC, damage, a success's share, the condition of a failure,
    how long it lasts, whether the save repeats, whether it is magical."""
    rounds = str(effect.get("rounds", "0"))
    lasts = LASTS if rounds in LASTS else {**LASTS, rounds: f"{rounds} rounds"}
    return (
        '<div class="grid2">'
        + _input("name", "Name", effect.get("name", ""), "save-effect-name", extra=' maxlength="60"')
        + f'<label class="field">Save{_select("ability", str(effect.get("ability", "dex")), ABILITY_NAMES, "save-ability")}</label>'
        + _input("dc", "DC", effect.get("dc", ""), "save-dc", "number", ' min="1" max="40"')
        + f'<label class="field">A success{_select("success", str(effect.get("success", "half")), {"half": "takes half", "none": "takes none"}, "save-success")}</label>'
        + '</div>'
        + _input("damage", "Damage (rolled once for all)", effect.get("damage", ""), "save-damage", extra=' maxlength="100" placeholder="8d6 fire"')
        # (the condition and its duration the whole width: "Incapacitated", "until the end of its next turn")
        + f'<label class="field">A failure gives{_select("condition", str(effect.get("condition", "")), {"": "no condition", **{c: c for c in CONDITIONS}}, "save-condition")}</label>'
        + f'<label class="field">Lasting{_select("rounds", rounds, lasts, "save-rounds")}</label>'
        + '<div class="checks">'
        + _check("repeat", "It saves again at the end of each of its turns", effect.get("repeat") is True, "save-repeat")
        + _check("magical", "Magical (Magic Resistance applies)", effect.get("magical") is True, "save-magical")
        + '</div>'
    )


def _targets_html(enc: Encounter, chosen: list[str]) -> str:
    rows = target_toggles((c for c in enc.combatants if not is_lair(c)), chosen)
    shortcuts = ('<div class="grid3">'
                 '<button type="button" data-action="save-pick" data-side="opponents" data-testid="save-all-opponents">All opponents</button>'
                 '<button type="button" data-action="save-pick" data-side="party" data-testid="save-all-party">All party</button>'
                 '<button type="button" data-action="save-pick" data-side="none" data-testid="save-no-targets">None</button></div>')
    return f'<h4>Targets</h4>{shortcuts}<div class="checks" data-testid="save-targets">{rows}</div>'


PHONE_WORDS = {"waiting": "Asked on the player's phone: waiting", "away": "Asked: the player's phone is away (it is asked when it is back)",
               "rolled": "Rolled on the player's phone", "typed": "Typed on the player's phone"}


def _phone_html(config: dict[str, Any], ident: str, phones: frozenset[str]) -> str:
    """Where a target played on a phone stands: not asked, asked and waiting, answered (its d20s)."""
    if ident not in phones:
        return ""
    asked = (config.get("asked") or {}).get(ident)
    if not asked:
        return '<p class="muted small" data-testid="save-phone" data-state="">Played on a phone: "Ask their phones" below.</p>'
    faces = asked.get("faces") or []
    dice = "".join(f' <span class="die">{f}</span>' for f in faces)
    return (f'<p class="small" data-testid="save-phone" data-state="{esc(asked.get("state"))}">'
            f'{esc(PHONE_WORDS.get(str(asked.get("state")), ""))}{dice}</p>')


def _odds_rows(enc: Encounter, config: dict[str, Any], phones: frozenset[str] = frozenset()) -> str:
    """One line per chosen target: its roll and bonus, P(fail), mean damage, P(drops to 0), and the
    boxes for a player's own d20 and for advantage; then the effect's total expected damage."""
    effect = effect_of(config)
    portions = read_portions(effect.damage)
    typed, adv = config.get("d20") or {}, config.get("adv") or {}
    rows, total = [], 0.0
    for ident in config.get("targets") or ():
        if ident not in enc.names():
            continue
        c, mode, bonus, notes = save_target(enc, effect, {"id": ident, "adv": adv.get(ident)})
        odds = save_odds(mode, bonus, effect.dc, portions, c.defenses, effect.success)
        total += odds.damage.mean
        drop = f' · P(drops) <b data-testid="save-p-drop">{pct(odds.p_drop(c.hp))}</b>' if c.hp is not None and portions else ""
        how = "fails automatically" if mode.auto_fail else f"{mode.roll} {bonus:+d}"
        choice = _adv_select(ident, str(adv.get(ident) or ""))
        rows.append(
            f'<div class="save-row" data-testid="save-odds-row" data-combatant-id="{esc(c.id)}"><p><b>{esc(c.name)}</b> '
            f'<span class="muted">{esc(how)}{"".join(" · " + esc(n) for n in notes)}</span><br>'
            f'P(fail) <b data-testid="save-p-fail">{pct(odds.p_fail)}</b>'
            + (f' · mean damage <b data-testid="save-mean">{odds.damage.mean:.1f}</b>' if portions else "") + drop + '</p>'
            + _phone_html(config, ident, phones) +
            f'<div class="grid2"><label class="field">Its d20 (typed)<input type="number" inputmode="numeric" min="1" max="20" '
            f'data-testid="save-d20" data-combatant-id="{esc(c.id)}" data-action-change="save-config" placeholder="rolled" '
            f'value="{esc(typed.get(ident) or "")}"></label>{choice}</div></div>')
    if not rows:
        return NO_TARGETS
    words = f'<p data-testid="save-total">Expected damage in all: <b>{total:.1f}</b></p>' if portions else ""
    return "".join(rows) + words


def _adv_select(ident: str, value: str) -> str:
    options = "".join(f'<option value="{v}"{" selected" if v == value else ""}>{w}</option>'
                      for v, w in (("", "Normal"), ("adv", "Advantage"), ("dis", "Disadvantage")))
    return (f'<label class="field">Roll<select data-testid="save-adv" data-combatant-id="{esc(ident)}" '
            f'data-action-change="save-config">{options}</select></label>')


def _results_html(enc: Encounter, pending: Action) -> str:
    """The roll: the damage once, then each target's save and what it takes after its defenses."""
    args = pending.args
    parts = parts_from_args(args.get("parts"))
    effect = SaveEffect.read(args["effect"])
    rows = []
    for r in args["results"]:
        if r["id"] not in enc.names():
            continue
        c: Combatant = enc.get(r["id"])
        made = r["saved"] or r.get("legendary") is True
        takes = taken(parts, made, effect.success)
        after = sum(a.after for a in adjust_all(c.defenses, takes)) if takes else 0
        dice = "".join(f'<span class="die">{f}</span>' for f in r.get("faces", []))
        said = ("fails automatically" if r.get("auto_fail") else
                f'{ABILITY_NAMES[effect.ability][:3]} save {r["total"]}{" (typed)" if r.get("typed") else " (phone)" if r.get("phone") else ""}: '
                + ("succeeded" if r["saved"] else "failed"))
        legendary = ""
        resist = legendary_resistance(c)
        if not r["saved"] and resist is not None and (resist.left > 0 or r.get("legendary")):
            legendary = (f'<label class="check"><input type="checkbox" data-action="save-legendary" data-id="{esc(c.id)}" '
                         f'data-testid="save-legendary"{" checked" if r.get("legendary") else ""}> Spend a Legendary Resistance '
                         f'({resist.left} left) to succeed?</label>')
        rows.append(f'<div class="save-row" data-testid="save-result-row" data-combatant-id="{esc(c.id)}" data-saved="{str(made).lower()}">'
                    f'<p><b>{esc(c.name)}</b> {dice} {esc(said)}'
                    + (f' · <b data-testid="save-result-damage">{after}</b> damage' if parts else "")
                    + (f' · {esc(effect.condition.lower())}' if effect.condition and not made else "") + f'</p>{legendary}</div>')
    damage = f'<p data-testid="save-damage-roll">Damage: <code class="roll">{esc(args.get("damage_text", ""))}</code></p>' if parts else ""
    return (damage + "".join(rows)
            + APPLY_ROW)


def save_panel_html(enc: Encounter, config: dict[str, Any], phones: frozenset[str] = frozenset()) -> str:
    """The whole panel: the effect, the targets, the odds (and, at a live table, where each target played
    on a phone stands), Ask the players' phones, Roll, and once rolled the results and Apply."""
    effect = {**BLANK, **(config.get("effect") or {})}
    source = config.get("source")
    who = f"{enc.get(source).name}: " if source in enc.names() else ""
    head = f'<h3 data-testid="sheet-title">{esc(who)}{esc(effect.get("name") or "Save")}</h3>'
    try:
        chosen = effect_of(config)
        words = f'<p class="muted" data-testid="save-words">{esc(chosen.words)}</p>'
        odds = _odds_rows(enc, config, phones)
    except EngineError as error:
        words, odds = "", odds_list("", str(error), True)
    result = result_html(config, lambda a: _results_html(enc, a), "save")
    asking = any(i in phones for i in config.get("targets") or ())
    waiting = sum(1 for a in (config.get("asked") or {}).values() if a.get("state") in ("waiting", "away"))
    ask = ('<button type="button" data-action="ask-saves" data-testid="ask-saves">Ask their phones</button>' if asking else "")
    roll = (f'<div class="row">{ask}<button type="button" class="primary" data-action="roll-saves" data-testid="roll-saves">'
            + (f"Roll (for the {waiting} silent too)" if waiting else "Roll the saves") + '</button></div>')
    return head + form_html(effect) + words + _targets_html(enc, list(config.get("targets") or ())) + panel_end("Odds", odds, roll, result)
