"""Rendering: state -> HTML text. Pure functions; every user text goes through `esc`.

The core screens are drawn here; what a game system adds comes from its view (`views.view_for`),
and how its turns go from its turn flow. Nothing here names a system."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pyengine.dice import RollResult
from pyengine.handoff import HIDDEN, UNKNOWN
from pyengine.model import Combatant, Encounter, Event
from pyengine.rules import system_of
from pyengine.tracker import Timeline
from pyengine.turns import active_unit, eligible, side_state, unit_name
from web.app import tools
from web.app.html import UNSIGNED, esc, field, odds_html, roll_text, view_body_html
from web.app.html import round_label as label_of_round
from web.app.library import encounter_xp
from web.app.views import view_for

if TYPE_CHECKING:
    from pyengine.documents import Rolled, SavedRoll
    from web.app.model import Request
    from web.app.storage.records import Notice

__all__ = [
    "esc", "round_label", "tracker_html", "log_html", "combatant_sheet_html", "add_sheet_html",
    "roll_result_html", "odds_html", "notices_html", "history_html", "saved_rolls_html",
]


def round_label(enc: Encounter) -> str:
    return label_of_round(enc.started, enc.round, system_of(enc).elapsed_seconds(enc))


def hp_html(c: Combatant) -> str:
    if c.hp is None:
        return ""
    temp = f" +{c.temp_hp}" if c.temp_hp else ""
    top = f"/{c.max_hp}" if c.max_hp is not None else ""
    return f"{c.hp}{top}{temp}"


def _bar(c: Combatant) -> str:
    if c.hp is None or not c.max_hp:
        return ""
    pct = max(0, min(100, round(100 * c.hp / c.max_hp)))
    colour = "var(--ok)" if pct > 50 else "var(--accent)" if pct > 25 else "var(--danger)"
    return f'<div class="hpbar" aria-hidden="true"><i style="width:{pct}%;background:{colour}"></i></div>'


def combatant_row(enc: Encounter, c: Combatant, active_ids: set[str], names: dict[str, str],
                  selected: tuple[str, ...] | None = None) -> str:
    """One row of the order; while several are being selected, a tap on it selects it instead."""
    current = c.id in active_ids
    system = system_of(enc)
    view = view_for(enc.system)
    down = system.is_down(c)
    classes = ["combatant", f"side-{c.side}"]
    if down:
        classes.append("down")
    init = "–" if c.initiative is None else str(c.initiative)
    if not system.flow.ordered_by_initiative:
        init = "▶" if current else ("✓" if "done" in c.flags else "")
    chips = "".join(
        f'<span class="chip" title="{esc(k.duration.describe(names))}">{esc(k.name)}</span>' for k in c.conditions
    )
    flags = view.flag_html(c)
    if down:
        flags = f'<span class="chip down" data-testid="down">{esc(view.down_label)}</span>' + flags
    flags += view.row_chips(enc, c) + tools.row_chips(c)
    act = ""
    if selected is None and system.flow.may_act_now(system, enc, c):
        act = f'<button type="button" class="act" data-action="act-now" data-id="{esc(c.id)}" data-testid="act-now">Act</button>'
    tag = '<span class="muted pc">PC</span>' if c.pc else ""
    hidden = ' data-hidden="true"' if HIDDEN in c.flags else ""  # its "hidden" chip is the flag's (view.flag_html)
    aria = ' aria-current="true"' if current else ""
    action = "open-combatant"
    if selected is not None:
        action = "toggle-select"
        aria += f' role="button" aria-pressed="{"true" if c.id in selected else "false"}"'
        if c.id in selected:
            classes.append("selected")
    return (
        f'<li class="{" ".join(classes)}" data-testid="combatant-row" data-combatant-id="{esc(c.id)}" '
        f'data-action="{action}" data-id="{esc(c.id)}"{aria}{hidden} tabindex="0">'
        f'<span class="init">{esc(init)}</span><span class="name">{esc(c.name)}{tag}</span>'
        f'<span class="hp" data-testid="hp">{act}{esc(hp_html(c))}</span>{_bar(c)}'
        + (f'<div class="chips">{flags}{chips}</div>' if chips or flags else "")
        + "</li>"
    )


def side_turn_html(enc: Encounter) -> str:
    """Side initiative's line: whose side acts and who of it now (Attack… beside, as in every system),
    or, when no one is acting, what is true: who may go, or that no one of the side can act and
    what Next turn does then (issue 53: never "Now: —")."""
    system, st = system_of(enc), side_state(enc)
    side = st.get("side")
    whose = "the party's" if side == "party" else "the opponents'"
    if enc.active_id in enc.names():
        attack = view_for(enc.system).now_actions(enc, enc.get(enc.active_id))
        return f'{whose.capitalize()} turn. Now: <b>{esc(enc.get(enc.active_id).name)}</b> · tap Act to choose who goes {attack}'
    if any(eligible(enc, system, c, st) for c in enc.combatants):
        return f'{whose.capitalize()} turn: tap Act to choose who goes'
    other = "opponents" if side == "party" else "party"
    passes = side == st.get("first") and any(eligible(enc, system, c, {**st, "side": other}) for c in enc.combatants)
    then = f"Next turn gives the turn to the {other}" if passes else "Next turn ends the round"
    return f"No one on {whose} side can act: {then}"


def shown_order(enc: Encounter) -> tuple[Combatant, ...]:
    """The rows as the list shows them: the turn order once the fight runs; before, highest known
    initiative first (as the start will order them, ties as added), those without one after."""
    system = system_of(enc)
    if enc.started or not system.flow.ordered_by_initiative:
        return enc.combatants
    known = sorted((c for c in enc.combatants if c.initiative is not None), key=system.order_key)
    return (*known, *(c for c in enc.combatants if c.initiative is None))


def _xp(enc: Encounter) -> str:
    """The opponents' total XP beside the party's size, once a creature with XP is in the fight."""
    xp, party = encounter_xp(enc.combatants)
    if not xp:
        return ""
    return (f'<p class="muted small xp" data-testid="encounter-xp">Opponents: {xp:,} XP'
            + (f' · party of {party} ({xp // party:,} XP each)' if party else "") + "</p>")


def tracker_html(timeline: Timeline, selected: tuple[str, ...] | None = None) -> str:
    """The turn order: what is also stored as the instant-start snapshot (without a selection).
    `selected`: the rows chosen while selecting several (None: not selecting)."""
    enc = timeline.present
    names = enc.names()
    active_ids = {c.id for c in active_unit(enc)}
    system = system_of(enc)
    flow = system.flow
    view = view_for(enc.system)
    head = (
        f'<div class="enc-bar" data-round-label="{esc(round_label(enc))}">'
        f'<button type="button" class="enc-name" data-action="open-menu" data-testid="encounter-name">{esc(enc.name)}</button>'
        f'<span class="muted">{esc(system.label)}</span></div>{_xp(enc)}'
    )
    if not enc.combatants:
        body = '<p class="placeholder" data-testid="empty-fight">No combatants yet. Add the party and their foes.</p>'
    else:
        rows = "".join(combatant_row(enc, c, active_ids, names, selected) for c in shown_order(enc))
        body = f'<ol class="order" data-testid="turn-order">{rows}</ol>'
    if enc.started and flow.table_picks_actor:
        st = side_state(enc)
        status = (f'<p class="side-banner" data-testid="side-banner">{esc(st.get("text", ""))} <span class="muted">(d6: {esc(st.get("face"))})</span></p>'
                  f'<p class="turn-now" data-testid="turn-now">{side_turn_html(enc)}</p>')
    elif enc.started:
        unit = active_unit(enc)
        who = unit_name(unit) if unit else "—"
        attack = view.now_actions(enc, enc.get(enc.active_id) if enc.active_id in enc.names() else None)
        status = f'<p class="turn-now" data-testid="turn-now">Now: <b>{esc(who)}</b> {attack}</p>'
    else:
        status = ""
    status += tools.now_html(enc) + view.turn_panel(enc)
    options = "" if enc.started else view.start_options(enc)
    start_label = "Roll initiative" if flow.ordered_by_initiative else "Roll for sides"
    if selected is not None:
        chosen = [c for c in enc.combatants if c.id in selected]
        return head + status + body + (
            '<div class="row controls select-bar" data-testid="select-bar" aria-live="polite">'
            f'<span class="grow"><b>{len(chosen)}</b> selected</span>'
            f'<button type="button" class="primary" data-action="apply-selected" data-testid="apply-selected"{"" if chosen else " disabled"}>'
            f'Apply to {len(chosen)}…</button>'
            '<button type="button" data-action="select-mode" data-testid="select-done">Done</button></div>'
        )
    controls = options + (
        '<div class="row controls">'
        '<button type="button" data-action="add" data-testid="add-combatant">+ Add combatant</button>'
        + ('<button type="button" data-action="select-mode" data-testid="select-mode">Select several</button>' if len(enc.combatants) > 1 else "")
        + (f'<button type="button" data-action="end-combat" data-testid="end-combat">{esc(view.end_label)}</button>' if enc.started
           else '<button type="button" data-action="start-combat" data-testid="start-combat"'
                + (" disabled" if not enc.combatants else "")
                + f">{start_label}</button>"
                + ('<button type="button" data-action="reroll-all" data-testid="reroll-all">Reroll all</button>'
                   if flow.ordered_by_initiative and any(c.initiative is not None for c in enc.combatants) else ""))
        + "</div>"
    )
    return head + status + body + controls


def log_html(events: list[Event], limit: int = 200) -> str:
    if not events:
        return '<p class="muted">Nothing has happened yet.</p>'
    shown = events[-limit:][::-1]
    items = "".join(
        f'<li data-kind="{esc(e.kind)}"><span class="muted">R{e.round}</span> {esc(e.text)}'
        + (f'<br><code class="roll">{roll_text(e.roll)}</code>' if e.roll else "")
        + "</li>"
        for e in shown
    )
    more = f'<p class="muted">{len(events) - limit} earlier entries not shown.</p>' if len(events) > limit else ""
    return f'<ol class="log" data-testid="log" reversed tabindex="0" aria-label="Log, newest first">{items}</ol>{more}'


def add_sheet_html(enc: Encounter, roster: list[dict[str, Any]], templates: list[dict[str, Any]], edit: Combatant | None = None,
                   last: tuple[str, bool] = ("opponents", False), library: str = "") -> str:
    """The add / edit form; a new combatant starts on the side (and PC or not) of the last one added;
    `library`: the system's creature library (searched, a tap adds), above the form."""
    c = edit
    title = "Edit combatant" if c else "Add combatant"
    side = c.side if c else last[0]
    pc = c.pc if c else last[1]
    system = system_of(enc)
    view = view_for(enc.system)
    sides = not system.flow.ordered_by_initiative
    hp_word = system.hp_label
    quick = ""
    if not c and (roster or templates):
        buttons = "".join(
            f'<button type="button" data-action="quick-add" data-source="roster" data-index="{i}">{esc(p.get("name", "?"))}</button>'
            for i, p in enumerate(roster)
        ) + "".join(
            f'<button type="button" data-action="quick-add" data-source="templates" data-index="{i}">{esc(p.get("name", "?"))}</button>'
            for i, p in enumerate(templates)
        )
        quick = f'<p class="muted">Quick add</p><div class="quick-add row" data-testid="quick-add">{buttons}</div>'
    if not c:
        quick += view.add_extras(enc) + library
    return (
        f'<h3>{title}</h3>{quick}'
        f'<form id="combatant-form" data-action-submit="{"save-edit" if c else "save-add"}" data-id="{esc(c.id) if c else ""}">'
        # The side first, in its colour: a foe added as a player character would show its exact HP to the players.
        + '<div class="grid2 side-pick" data-testid="side-pick">'
        + f'<label class="field">Side<select id="f-side" data-action-change="side-picked" data-testid="field-side"><option value="party"{" selected" if side == "party" else ""}>Party</option>'
        f'<option value="opponents"{" selected" if side == "opponents" else ""}>Opponents</option></select></label>'
        + f'<label class="field">Player character<select id="f-pc" data-testid="field-pc"><option value="0">No</option><option value="1"{" selected" if pc else ""}>Yes</option></select></label>'
        + '</div>'
        + field("Name", "name", c.name if c else "", extra=' required maxlength="200" autocomplete="off"')
        + '<div class="grid2">'
        + ("" if sides else field(view.init_label, "init_mod", c.init_mod if c else 0, "number", ' min="-100" max="100"'))
        + ("" if sides or not view.typed_initiative else field("Initiative (typed roll)", "initiative", "" if not c or c.initiative is None else c.initiative, "number", ' placeholder="roll"'))
        + field(f"Max {hp_word}", "max_hp", "" if not c or c.max_hp is None else c.max_hp, "number", ' inputmode="numeric"')
        + (field("How many", "count", 1, "number", ' min="1" max="50" inputmode="numeric"') if not c else field(f"{hp_word} now", "hp", "" if c.hp is None else c.hp, "number", UNSIGNED if system.hp_floor is not None else ""))
        + "</div>"
        + view.fields_html(system, c)
        + f'<label class="field">Notes<textarea id="f-notes" data-testid="field-notes" maxlength="5000" rows="2">{esc(c.notes if c else "")}</textarea></label>'
        + ("" if c else '<label class="check"><input type="checkbox" id="f-remember" data-testid="field-remember"> Remember (party roster or saved opponents)</label>')
        + '<p class="err" id="form-error" data-testid="form-error" role="alert"></p>'
        + '<div class="row"><button type="button" data-action="close-sheet">Cancel</button>'
        + f'<button type="submit" class="primary" data-testid="save-combatant">{"Save" if c else "Add"}</button></div></form>'
    )


def _target_choice(enc: Encounter, c: Combatant) -> str:
    """The attack's target, changed here without leaving the attack (its attacker and choices stay):
    any creature (a lair is none)."""
    creature = system_of(enc).is_creature
    if not creature(c):
        return ""
    options = "".join(f'<option value="{esc(x.id)}"{" selected" if x.id == c.id else ""}>{esc(x.name)}</option>'
                      for x in enc.combatants if creature(x))
    return (f'<label class="field">Target of an attack<select id="attack-target" data-action-change="attack-target" '
            f'data-testid="attack-target">{options}</select></label>')


def sections_html(sections: list[tuple[str, str, str]], open_key: str | None) -> str:
    """A system's parts of the sheet: one at a time, chosen by tabs (the first when none is chosen)."""
    if not sections:
        return ""
    if len(sections) == 1:
        return sections[0][2]
    shown = next((s for s in sections if s[0] == open_key), sections[0])
    tabs = "".join(
        f'<button type="button" role="tab" class="tab" data-action="pick-section" data-section="{esc(key)}" '
        f'data-testid="section-{esc(key)}" aria-selected="{"true" if key == shown[0] else "false"}">{esc(label)}</button>'
        for key, label, _ in sections
    )
    return (f'<div class="tabs" role="tablist" data-testid="sheet-sections">{tabs}</div>'
            f'<div role="tabpanel" data-testid="section-body" data-section="{esc(shown[0])}">{shown[2]}</div>')


def combatant_sheet_html(enc: Encounter, c: Combatant, attack: dict[str, Any] | None = None, events: list[Event] | None = None,
                         section: str | None = None, tool_kind: str | None = None, condition_rules: str = "") -> str:
    names = enc.names()
    conds = "".join(
        f'<span class="chip">{esc(k.name)} <span class="muted">{esc(k.duration.describe(names))}</span> '
        f'<button type="button" class="x" data-action="remove-condition" data-id="{esc(c.id)}" data-condition="{esc(k.id)}" aria-label="Remove {esc(k.name)}">×</button></span>'
        for k in c.conditions
    ) or '<span class="muted">None</span>'
    options = "".join(f'<option value="{esc(n)}"></option>' for n in system_of(enc).condition_names)
    anchors = "".join(
        f'<option value="{esc(x.id)}"{" selected" if x.id == (enc.active_id or c.id) else ""}>{esc(x.name)}</option>' for x in enc.combatants
    )
    others = "".join(f'<option value="{esc(x.id)}">{esc(x.name)}</option>' for x in enc.combatants if x.id != c.id and (c.group is None or x.group != c.group))
    hp = (
        f'<p class="big-hp" data-testid="sheet-hp">{esc(hp_html(c)) or "No HP tracked"}</p>'
        '<input id="hp-amount" type="text" inputmode="text" autocomplete="off" autocapitalize="off" spellcheck="false" '
        'placeholder="Amount or dice: 2d6+3, 8d6 fire" data-testid="hp-amount">'
        '<div class="grid3">'
        f'<button type="button" class="danger" data-action="damage" data-id="{esc(c.id)}" data-testid="damage">Damage</button>'
        f'<button type="button" data-action="heal" data-id="{esc(c.id)}" data-testid="heal">Heal</button>'
        f'<button type="button" data-action="temp" data-id="{esc(c.id)}" data-testid="temp-hp">Temp HP</button></div>'
    ) if c.hp is not None else '<p class="muted">No HP tracked (edit to add).</p>'
    delay = (
        f'<div class="row"><select id="delay-after" data-testid="delay-after" aria-label="Delay until after">{others}</select>'
        f'<button type="button" data-action="delay" data-id="{esc(c.id)}" data-testid="delay">Delay until after</button></div>'
    ) if enc.started and others and system_of(enc).flow.ordered_by_initiative and not system_of(enc).no_delay else ""
    return (
        f'<h3 data-testid="sheet-title">{esc(c.name)}</h3>{hp}'
        + (_target_choice(enc, c) if attack is not None and system_of(enc).attack_kind else "")
        + (sections_html(view_for(enc.system).sheet_sections(enc, c, attack, events or []), section) if attack is not None else "")
        + tools.sheet_html(enc, c, tool_kind)
        + f'<p class="muted">Conditions</p><div class="chips" data-testid="sheet-conditions">{conds}</div>'
        '<div class="grid2">'
        f'<label class="field">Condition<input id="cond-name" list="cond-names" maxlength="60" data-testid="condition-name" autocomplete="off"></label>'
        f'<datalist id="cond-names">{options}</datalist>'
        '<label class="field wide">Lasts<select id="cond-until" data-testid="condition-until">'
        '<option value="never">Until removed</option><option value="rounds">Rounds</option>'
        '<option value="start">Until start of turn of…</option><option value="end">Until end of turn of…</option></select></label>'
        '<label class="field">Rounds<input id="cond-rounds" type="number" min="1" max="1000" value="1" inputmode="numeric" data-testid="condition-rounds"></label>'
        f'<label class="field wide">Whose turn (caster)<select id="cond-anchor" data-testid="condition-anchor">{anchors}</select></label>'
        '</div>'
        f'<button type="button" data-action="add-condition" data-id="{esc(c.id)}" data-testid="add-condition">Add condition</button>'
        f'{condition_rules}{delay}{_players_sees(c)}'
        + '<p class="err" id="sheet-error" data-testid="sheet-error" role="alert"></p>'
        '<div class="row">'
        f'<button type="button" data-action="edit" data-id="{esc(c.id)}" data-testid="edit-combatant">Edit</button>'
        f'<button type="button" class="danger" data-action="remove" data-id="{esc(c.id)}" data-testid="remove-combatant">Remove</button>'
        '<button type="button" data-action="close-sheet" data-testid="close-sheet">Close</button></div>'
    )


def _players_sees(c: Combatant) -> str:
    """What the players may see of this combatant (the live table, the players' view, the table display)."""
    hidden, unknown = HIDDEN in c.flags, UNKNOWN in c.flags
    return (
        '<p class="muted">The players see</p><div class="grid2">'
        f'<button type="button" data-action="players-flag" data-flag="{HIDDEN}" data-id="{esc(c.id)}" data-testid="hide-toggle" '
        f'aria-pressed="{"true" if hidden else "false"}">{"Hidden: reveal" if hidden else "Hide from players"}</button>'
        f'<button type="button" data-action="players-flag" data-flag="{UNKNOWN}" data-id="{esc(c.id)}" data-testid="unknown-toggle" '
        f'aria-pressed="{"true" if unknown else "false"}">{"Unknown: show name" if unknown else "Name as unknown"}</button></div>'
    )


def table_view_html(view: dict[str, Any]) -> str:
    """A fight as the players see it from the game master's QR code: read-only, HP of the party,
    the opponents' state in words. Every text escaped (it came from another phone)."""
    return (
        view_body_html(view)
        + '<p class="muted">A read-only view of the game master\'s screen at the moment the code was shown: scan it again to '
        'see the fight move on. Nothing here is saved on this phone.</p>'
        '<div class="row"><button type="button" data-action="close-sheet">Close</button></div>'
    )



def _die_class(d: Any) -> str:
    classes = ["die"]
    if d.rerolled or d.dropped:
        classes.append("dropped")
    if d.exploded:
        classes.append("exploded")
    if d.success:
        classes.append("success")
    if d.failure:
        classes.append("failure")
    if d.crit and not d.rerolled and not d.dropped:  # cs>N, or a d20's 20; a dropped die is only dropped
        classes.append("crit")
    if d.fumble and not d.rerolled and not d.dropped:
        classes.append("fumble")
    return " ".join(classes)


DRAWN_DICE = 120  # dice drawn one by one under a roll's total; past it, the count (the roll's text has them)


def roll_result_html(result: RollResult) -> str:
    dice = "".join(
        f'<span class="{_die_class(d)}" data-flags="{esc(" ".join(d.flags()))}" title="d{esc(d.sides)}{" " + esc(d.label) if d.label else ""}">'
        f'{esc(d.value)}{"!" if d.exploded else ""}</span>'
        for d in result.dice[:DRAWN_DICE]
    )
    more = len(result.dice) - DRAWN_DICE
    if more > 0:
        dice += f'<span class="chip" data-testid="roll-more-dice">+ {more:,} more dice</span>'
    return (
        f'<div class="total" data-testid="roll-total">{esc(result.total)}</div>'
        f'<div class="dice" data-testid="roll-dice">{dice}</div>'
        f'<code class="roll" data-testid="roll-text">{roll_text(result.text)}</code>'
    )


def requests_html(requests: tuple[Request, ...]) -> str:
    """What players' phones asked (the live table), oldest first, each with Apply and Dismiss: the
    tray's cards."""
    return "".join(
        f'<div class="notice info request" data-testid="request" data-kind="{esc(r.kind)}"><span>{esc(r.text)}</span> '
        f'<button type="button" data-action="request-apply" data-id="{r.id}" data-testid="request-apply">'
        f'{"Approve" if r.kind == "claim" else "Next turn" if r.kind == "done" else "Apply"}</button> '
        f'<button type="button" data-action="request-dismiss" data-id="{r.id}" data-testid="request-dismiss">Dismiss</button></div>'
        for r in requests
    )


def tray_html(requests: tuple[Request, ...]) -> str:
    """The game master's tray of requests, above the turn controls wherever the page is scrolled."""
    return (f'<div class="tray-head"><b>Players\' requests ({len(requests)})</b>'
            '<button type="button" data-action="request-tray" data-testid="request-tray-hide">Hide</button></div>'
            + requests_html(requests))


def notices_html(notices: list[Notice], timeline: Timeline | None = None) -> str:
    """Messages for the user, each with its buttons and a dismiss × (its index in `notices`); one
    about a step of a fight only beside that fight while the step is done."""
    return "".join(
        f'<div class="notice {esc(n.level)}" data-testid="notice" data-level="{esc(n.level)}">'
        + ('<span data-testid="' + esc(n.testid) + '">' if n.testid else "<span>") + f'{esc(n.text)}</span>'
        + "".join(f' <button type="button" data-action="notice-{esc(action)}" data-testid="notice-action">{esc(label)}</button>'
                  for action, label in n.buttons())
        + f' <button type="button" class="x" data-action="dismiss" data-index="{i}" aria-label="Dismiss">×</button></div>'
        for i, n in enumerate(notices) if timeline is None or n.shown_with(timeline)
    )


def history_html(rolls: list[Rolled]) -> str:
    if not rolls:
        return '<li class="muted">No rolls yet.</li>'
    return "".join(
        f'<li data-testid="history-item"><b>{esc(r.get("total"))}</b>{_crit_chips(r)}'
        + (f' <span class="label" data-testid="history-label">{esc(r["label"])}</span>' if r.get("label") else "")
        + f' <code>{roll_text(r.get("text", ""), 300)}</code></li>'
        for r in rolls
    )


def _crit_chips(entry: Rolled) -> str:
    """A roll with critical dice or fumbles (cs / cf, or a d20's 20 / 1) says so in the history."""
    out = ""
    for key, word, css in (("crits", "crit", "ok"), ("fumbles", "fumble", "bad")):
        count = entry.get(key, 0)
        if isinstance(count, int) and count > 0:
            out += f' <span class="chip {css}" data-testid="history-{word}">{word}{f" ×{count}" if count > 1 else ""}</span>'
    return out


def readings_html(notes: list[str]) -> str:
    """How the roller read an expression, when that is likely not what was meant: under the input."""
    return "".join(f'<p data-testid="reading">{esc(note)}</p>' for note in notes)


def saved_rolls_html(saved: list[SavedRoll]) -> str:
    if not saved:
        return '<p class="muted">No saved rolls. Type a roll, then Save.</p>'
    return "".join(
        f'<span class="saved"><button type="button" data-action="roll-saved" data-index="{i}" data-testid="saved-roll">{esc(s.get("name"))}: {esc(s.get("expr"))}</button>'
        f'<button type="button" class="x" data-action="delete-saved" data-index="{i}" aria-label="Delete {esc(s.get("name"))}">×</button></span>'
        for i, s in enumerate(saved)
    )


QUICK = (("d4", "4"), ("d6", "6"), ("d8", "8"), ("d10", "10"), ("d12", "12"), ("d20", "20"), ("d100", "100"),
         ("Adv", "adv"), ("Dis", "dis"))  # a die adds to the expression being built; Adv / Dis rewrite its d20


def roller_html() -> str:
    """The dice roller: the dice box, the quick dice, the odds, saved rolls and the history (filled in after)."""
    quick = "".join(
        f'<button type="button" data-action="quick" data-expr="{e}" data-testid="quick-{label.lower()}">{label}</button>'
        for label, e in QUICK
    )
    return (
        '<form class="row" id="roll-form" data-action-submit="roll">'
        '<input id="dice-input" data-testid="dice-input" value="1d20" autocomplete="off" autocapitalize="off" '
        'spellcheck="false" aria-label="Dice notation" maxlength="1000">'
        '<button type="submit" id="roll-button" class="primary" data-testid="roll-button">Roll</button></form>'
        f'<div class="quick">{quick}</div>'
        '<p class="err" id="dice-error" data-testid="dice-error" role="alert"></p>'
        '<div class="reading" id="dice-reading" data-testid="dice-reading" aria-live="polite"></div>'
        '<div id="roll-result" data-testid="roll-result" aria-live="polite"></div>'
        '<details open class="odds"><summary>Odds before you roll</summary>'
        '<div id="odds-body" data-testid="odds"></div>'
        '<label class="field inline">Chance of at least <input id="odds-target" type="number" data-testid="odds-target"></label></details>'
        '<div class="row"><input id="save-name" placeholder="Its name" aria-label="Name of the roll (e.g. Longsword)" maxlength="60" data-testid="save-name">'
        '<button type="button" data-action="save-roll" data-testid="save-roll">Save roll</button></div>'
        '<div id="saved-rolls" class="saved-list" data-testid="saved-rolls"></div>'
        '<div class="row hist-head"><h3>History</h3><button type="button" data-action="clear-history" data-testid="clear-history">Clear</button></div>'
        '<ul id="roll-history" class="history" data-testid="roll-history"></ul>'
    )

