"""Rendering: state -> HTML text. Pure functions; every user text goes through `esc`.

The core screens are drawn here; what a game system adds comes from its view (`views.view_for`),
and how its turns go from its turn flow. Nothing here names a system."""

from __future__ import annotations

from typing import Any

from pyengine.dice import RollResult
from pyengine.errors import EngineError
from pyengine.handoff import HIDDEN, UNKNOWN
from pyengine.model import Combatant, Encounter, Event
from pyengine.rules import get_system, system_of, systems
from pyengine.text import quoted
from pyengine.tracker import Timeline
from pyengine.turns import active_unit, side_state, unit_name

from . import tools
from .html import UNSIGNED, esc, field, odds_html, roll_text, view_body_html
from .html import round_label as label_of_round
from .library import encounter_xp
from .views import view_for

__all__ = [
    "esc", "round_label", "tracker_html", "log_html", "combatant_sheet_html", "add_sheet_html",
    "menu_sheet_html", "roll_result_html", "odds_html", "notices_html", "history_html", "saved_rolls_html",
]


def round_label(enc: Encounter) -> str:
    return label_of_round(enc.started, enc.round, system_of(enc).elapsed_seconds(enc))


def _hp(c: Combatant) -> str:
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
        f'<span class="hp" data-testid="hp">{act}{esc(_hp(c))}</span>{_bar(c)}'
        + (f'<div class="chips">{flags}{chips}</div>' if chips or flags else "")
        + "</li>"
    )


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
        side = "The party's" if st.get("side") == "party" else "The opponents'"
        status = (f'<p class="side-banner" data-testid="side-banner">{esc(st.get("text", ""))} <span class="muted">(d6: {esc(st.get("face"))})</span></p>'
                  f'<p class="turn-now" data-testid="turn-now">{side} turn. Now: <b>{esc(enc.get(enc.active_id).name if enc.active_id else "—")}</b> · tap Act to choose who goes</p>')
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


def selected_sheet_html(enc: Encounter, selected: tuple[str, ...]) -> str:
    """Damage, healing or a condition for several at once (a fireball on four goblins): one amount,
    half for each one who made its save; one step to undo."""
    chosen = [c for c in enc.combatants if c.id in selected]
    rows = "".join(
        f'<label class="check toggle" data-testid="selected-row"><input type="checkbox" class="half" value="{esc(c.id)}" id="half-{esc(c.id)}" '
        f'data-id="{esc(c.id)}" data-testid="half"> {esc(c.name)} <span class="muted">{esc(_hp(c))}</span>'
        '<span class="muted">saved: half damage</span></label>'
        for c in chosen
    )
    options = "".join(f'<option value="{esc(n)}"></option>' for n in system_of(enc).condition_names)
    return (
        f'<h3 data-testid="sheet-title">{len(chosen)} selected</h3>'
        f'<div class="checks">{rows}</div>'
        '<input id="batch-amount" type="text" inputmode="text" autocomplete="off" autocapitalize="off" spellcheck="false" '
        'placeholder="Amount or dice: 8d6 fire" data-testid="batch-amount">'
        '<div class="grid2">'
        '<button type="button" class="danger" data-action="apply-batch" data-kind="damage" data-testid="batch-damage">Damage</button>'
        '<button type="button" data-action="apply-batch" data-kind="heal" data-testid="batch-heal">Heal</button></div>'
        '<div class="row"><label class="field">Condition<input id="batch-condition" list="batch-cond-names" maxlength="60" '
        f'autocomplete="off" data-testid="batch-condition"></label><datalist id="batch-cond-names">{options}</datalist>'
        '<button type="button" data-action="apply-batch" data-kind="add_condition" data-testid="batch-add-condition">Add condition</button></div>'
        '<p class="err" id="sheet-error" data-testid="sheet-error" role="alert"></p>'
        '<div class="row"><button type="button" data-action="close-sheet">Close</button></div>'
    )


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


def initiative_sheet_html(enc: Encounter, sent: dict[str, int] | None = None) -> str:
    """The players call out their initiative: one number field per player character, in order;
    Enter moves on; whoever is left empty (and every other combatant) is rolled. `sent`: what
    players' phones sent at the live table (their latest roll: it fills the field)."""
    sent = sent or {}

    def value(c: Combatant) -> str:
        return str(sent[c.id]) if c.id in sent else "" if c.initiative is None else str(c.initiative)

    rows = "".join(
        f'<label class="field init-row">{esc(c.name)} <span class="muted">({c.init_mod:+d})</span>'
        f'<input id="init-{esc(c.id)}" type="number" '
        f'enterkeyhint="next" autocomplete="off" data-testid="init-input" data-combatant-id="{esc(c.id)}" '
        f'value="{esc(value(c))}" placeholder="roll"></label>'
        for c in enc.combatants if c.pc
    )
    return (
        '<h3>Initiative</h3>'
        '<p class="muted">Players: type your initiative. Anyone left empty, and every non-player, is rolled.</p>'
        f'<form id="init-form" class="init-entry" data-action-submit="init-start" data-testid="init-entry">{rows}'
        # After the fields: the first player's field has the focus (Enter moves on to the next).
        '<label class="field">What is typed<select id="init-typed" data-testid="init-typed">'
        '<option value="total">Total (die + modifier)</option>'
        '<option value="die">The die alone (+ modifier here)</option></select></label>'
        '<p class="err" id="form-error" data-testid="form-error" role="alert"></p>'
        '<div class="row"><button type="button" data-action="close-sheet">Cancel</button>'
        '<button type="submit" class="primary" data-testid="init-done">Roll for the rest and start</button></div></form>'
    )


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
        f'<p class="big-hp" data-testid="sheet-hp">{esc(_hp(c)) or "No HP tracked"}</p>'
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


def live_host_html(followers: str, players_hp: str, auto_done: bool = False, relays: tuple[str, ...] = (),
                   stun: tuple[str, ...] = (), nostr: tuple[str, ...] = (), networks: str = "", offline: str = "", auto_saves: bool = False) -> str:
    """The game master's Live table: the join code and link (when the table is at the relays), the
    No internet section (`offline`, offline_html), who follows, what players may see."""
    pick = "".join(f'<option value="{v}"{" selected" if v == players_hp else ""}>{label}</option>'
                   for v, label in (("words", "Opponents' HP as words (hurt, bloodied)"), ("numbers", "Opponents' HP as numbers")))
    at_relays = (
        '<p class="muted">Players scan this code (or open the link) and follow the fight on their phones as it happens.</p>'
        '<div id="live-qr" class="qr" data-testid="live-qr" hidden></div>'
        '<p id="live-qr-note" class="muted" aria-live="polite"></p>'
        '<div class="row share-row"><input id="live-link" readonly data-testid="live-link" aria-label="Join link">'
        '<button type="button" data-action="copy-live" data-testid="copy-live">Copy</button></div>'
        '<p id="live-out" class="muted" aria-live="polite"></p>'
    ) if relays or nostr else ""
    return (
        '<h3>Live table</h3>' + at_relays +
        f'<p data-testid="live-followers" id="live-followers" aria-live="polite">{esc(followers)}</p>'
        + (f'<p class="muted" data-testid="live-networks" id="live-networks" aria-live="polite">{esc(networks)}</p>' if relays or nostr else "")
        + offline +
        ''
        f'<label class="field">What players see<select id="players-hp" data-action-change="players-hp" data-testid="players-hp">{pick}</select></label>'
        '<label class="check"><input type="checkbox" id="auto-done" data-action-change="auto-done" data-testid="auto-done"'
        f'{" checked" if auto_done else ""}> A player\'s "I\'m done" passes the turn without asking</label>'
        '<label class="check"><input type="checkbox" id="auto-saves" data-action-change="auto-saves" data-testid="auto-saves"'
        f'{" checked" if auto_saves else ""}> Apply players\' death saves without asking</label>'
        '<p class="muted">Hide a combatant (an ambush, reinforcements) or keep its name unknown from its sheet: what is hidden is '
        'never sent to a phone.</p>'
        '<p class="err" id="live-error" data-testid="live-error" role="alert"></p>'
        '<div class="grid2">'
        '<button type="button" data-action="table-display" data-testid="table-display">Open table display</button>'
        '<button type="button" class="danger" data-action="live-stop" data-testid="live-stop">Stop live table</button></div>'
        '<details class="help"><summary>Connection settings</summary>'
        '<p class="muted">A table that goes live uses these (a table live without the relays: stop it and open Live table).</p>'
        f'<label class="field">Relays (WebTorrent trackers, comma-separated, or "none")<input id="live-relays" data-testid="live-relays" '
        f'autocomplete="off" value="{esc(", ".join(relays) or "none")}"></label>'
        f'<label class="field">Nostr relays (comma-separated, or "none")<input id="live-nostr" data-testid="live-nostr" '
        f'autocomplete="off" value="{esc(", ".join(nostr) or "none")}"></label>'
        f'<label class="field">STUN servers (or "none")<input id="live-stun" data-testid="live-stun" autocomplete="off" '
        f'value="{esc(", ".join(stun) or "none")}"></label>'
        '<button type="button" data-action="save-servers" data-testid="save-servers">Save</button>'
        '<p class="muted" id="live-servers-out" aria-live="polite"></p></details>'
        '<details class="help"><summary>How the live table connects</summary><p>The phones meet through public relays of two '
        'networks at once (Nostr relays and WebTorrent trackers), which only see that browsers asked for the same coded room name '
        '(Nostr: signed events of a throwaway key; the handshakes inside are encrypted with the room\'s password); the fight then goes '
        'from phone to phone, encrypted by WebRTC. Phones that do not meet: the line above says which relays answer. '
        'The room and its password are only in this code and link. The table display is a second window on this device and needs no network.</p></details>'
        '<div class="row"><button type="button" data-action="close-sheet" data-testid="close-sheet">Close</button></div>'
    )


def offline_html(said: str, relays_said: str, link: str) -> str:
    """The Live table's No internet section: a player joins by two scans (the offer here, then its answer)."""
    if link:
        steps = (
            '<ol class="steps"><li>The player opens Menu → <b>Join a table (scan)</b> and scans this code.</li>'
            '<li>Their phone then shows a code: scan it with <b>Scan the player\'s answer</b>.</li></ol>'
            '<div id="offer-qr" class="qr" data-testid="offer-qr" hidden></div>'
            '<p id="offer-qr-note" class="muted" aria-live="polite"></p>'
            f'<div class="row share-row"><input id="offer-code" readonly data-testid="offer-code" aria-label="The game master\'s code" value="{esc(link)}">'
            '<button type="button" data-action="copy-offer" data-testid="copy-offer">Copy</button></div>'
            '<p id="offer-out" class="muted" aria-live="polite"></p>'
            '<button type="button" class="primary" data-action="scan-open" data-testid="scan-open">Scan the player\'s answer</button>'
        )
        again = "Make a new code"
    else:
        steps = ('<p class="muted">This phone shows a code for the next player, then reads the code their phone shows '
                 '(it asks for the camera once).</p>')
        again = "Join a phone without internet"
    return (
        '<section class="offline" data-testid="offline-section"><h4>No internet</h4>'
        f'<p id="relays-state" data-testid="relays-state" aria-live="polite">{esc(relays_said)}</p>{steps}'
        f'<p id="pairing-state" data-testid="pairing-state" aria-live="polite">{esc(said)}</p>'
        f'<button type="button" data-action="live-offline" data-testid="live-offline">{again}</button>'
        '<details class="help"><summary>When to join without internet</summary><p>When the phones cannot reach the relays '
        '(no signal, no Wi-Fi internet) but are on one Wi-Fi: a venue\'s, a home router, or the game master\'s phone as a '
        'hotspot (it works with no mobile data). Each player\'s phone and this one exchange two codes by camera; then the '
        'fight goes from this phone to theirs directly. It cannot work between different networks, nor on a Wi-Fi that keeps '
        'its devices apart (many guest and venue networks). A phone that drops or reloads joins again with the two scans; '
        'the fight here is never affected.</p></details></section>'
    )


def scan_html(kind: str) -> str:
    """The scanner: the camera in a frame, and a field for a pasted code."""
    what = "the game master's code" if kind == "offer" else "the player's answer"
    return (
        f'<h3>Scan {what}</h3>'
        '<p class="muted">Hold this phone so that the code on the other phone\'s screen fills the frame.</p>'
        '<div class="scan-frame" data-testid="scan-frame"><video id="scan-video" data-testid="scan-video" playsinline muted '
        'aria-label="Camera"></video><span class="scan-aim" aria-hidden="true"></span></div>'
        '<p id="scan-state" class="muted" data-testid="scan-state" aria-live="polite">Opening the camera…</p>'
        '<p class="err" id="scan-error" data-testid="scan-error" role="alert"></p>'
        '<label class="field">No camera? Paste the code<textarea id="scan-paste" data-testid="scan-paste" rows="3" '
        'autocomplete="off" autocapitalize="off" spellcheck="false"></textarea></label>'
        f'<div class="row"><button type="button" class="primary" data-action="scan-submit" data-kind="{esc(kind)}" '
        'data-testid="scan-submit">Use this code</button>'
        + ('<button type="button" data-action="live-table" data-testid="scan-back">Back</button></div>' if kind == "answer" else
           '<button type="button" data-action="close-sheet" data-testid="close-sheet">Cancel</button></div>')
    )


def join_html(said: str, code: str) -> str:
    """A player's phone joining without internet: its answer, for the game master's phone to scan."""
    shown = (
        '<div id="answer-qr" class="qr" data-testid="answer-qr" hidden></div>'
        '<p id="answer-qr-note" class="muted" aria-live="polite"></p>'
        f'<div class="row share-row"><input id="answer-code" readonly data-testid="answer-code" aria-label="This phone\'s answer" value="{esc(code)}">'
        '<button type="button" data-action="copy-answer" data-testid="copy-answer">Copy</button></div>'
        '<p id="answer-out" class="muted" aria-live="polite"></p>'
    ) if code else ""
    return (
        '<h3>Show this to the game master</h3>'
        '<p class="muted">On their Live table screen they tap <b>Scan the player\'s answer</b> and point their phone at this code.</p>'
        + shown +
        f'<p id="join-state" data-testid="join-state" aria-live="polite">{esc(said)}</p>'
        '<p class="err" id="join-error" data-testid="join-error" role="alert"></p>'
        '<div class="row"><button type="button" data-action="join-table" data-testid="scan-again">Scan again</button>'
        '<button type="button" data-action="live-stop" data-testid="join-cancel">Cancel</button></div>'
    )


def live_follow_html(live: Any, state: str, display: bool, attacks: list[tuple[str, str]] | None = None, kind: str = "") -> str:
    """A player's phone (or the table display) following the fight live: the players' view, how the
    connection stands, and (a player's phone) what it may ask the game master."""
    body = (view_body_html(live.view) if live.view is not None
            else '<p class="muted">Waiting for the game master\'s phone…</p>')
    stop = "" if display else '<button type="button" data-action="live-stop" data-testid="live-leave">Stop following</button>'
    if live.direct and not live.host_here() and live.revision:
        # Joined by two scans and lost: no relay to look again through; the two scans bring it back.
        stop = '<button type="button" class="primary" data-action="join-table" data-testid="join-again">Join again (two scans)</button>' + stop
    return (
        f'<div class="live-view{" display" if display else ""}" data-testid="live-view">'
        f'<p class="live-state" id="live-state" data-testid="live-state" data-state="{esc(kind)}" aria-live="polite">{esc(state)}</p>{body}</div>'
        + ("" if display or live.view is None else _player_asks(live, attacks or []))
        + ("" if display else f'<div class="row">{stop}<button type="button" data-action="close-sheet" data-testid="close-sheet">Close</button></div>')
    )


def _player_asks(live: Any, attacks: list[tuple[str, str]]) -> str:
    """A player's part: claim a party combatant; then its own state (HP with temporary HP,
    conditions, death saves), initiative or "I'm done", an attack the game master's engine resolves,
    healing or temporary HP received, and any other roll against a target."""
    again = ('<button type="button" data-action="request-again" data-testid="request-again">Send again</button>'
             if live.said.startswith("not delivered") and live.asking else "")
    said = (f'<p class="request-state" id="request-state" data-testid="request-state" aria-live="polite">{esc(live.said)}</p>'
            + again)
    err = '<p class="err" id="sheet-error" data-testid="sheet-error" role="alert"></p>'
    names = {i: n for i, n, _ in live.ids}
    if not live.you:
        party = [(i, n) for i, n, side in live.ids if side == "p"]
        if not party:
            return said
        return (
            '<h4>Which one is you?</h4><div class="grid2">'
            + "".join(f'<button type="button" data-action="live-claim" data-id="{esc(i)}" data-testid="claim">{esc(n)}</button>'
                      for i, n in party)
            + f'</div>{said}{err}'
        )
    me = names.get(live.you, "your character")
    started = bool(live.view and live.view.get("round"))
    mine = live.you in live.turn
    own = (live.pcs or {}).get(live.you) or {}
    parts = [f'<h4>You play <b data-testid="live-you">{esc(me)}</b></h4>', _own_state(own, started and mine)]
    if not started:
        parts.append(
            '<div class="row"><input id="live-init" type="number" inputmode="numeric" placeholder="Your initiative" '
            'aria-label="Your initiative" data-testid="live-init">'
            '<button type="button" data-action="send-initiative" data-testid="send-initiative">Send initiative</button></div>')
    else:
        label = "I'm done" if mine else "I'm done (on your turn)"
        parts.append(f'<button type="button" class="primary" data-action="im-done" data-testid="im-done"{"" if mine else " disabled"}>'
                     f'{label}</button>')
    parts.append(
        '<div class="row">'
        f'<button type="button" data-action="player-attack" data-testid="player-attack" aria-expanded="{str(live.panel == "attack").lower()}">Attack</button>'
        f'<button type="button" data-action="player-heal" data-testid="player-heal" aria-expanded="{str(live.panel == "heal").lower()}">'
        'Healing, temp HP</button></div>')
    chosen = player_target(live)
    targets = "".join(f'<option value="{esc(i)}"{" selected" if i == chosen else ""}>{esc(n)}</option>'
                      for i, n, side in live.ids if side != "x" and i != live.you)  # (the attack's and another roll's)
    if live.panel == "attack":
        weapons = own.get("atk") or []
        pick = ('<label class="field">With<select id="attack-with" data-testid="attack-with">'
                + "".join(f'<option value="{esc(a)}">{esc(a)}</option>' for a in weapons) + '</select></label>') if weapons else ""
        parts.append(
            '<div class="panel player-attack" data-testid="attack-panel">'
            f'<label class="field">Target<select id="attack-target" data-testid="attack-target" data-action-change="player-target">{targets}</select></label>'
            f'{pick}<p class="muted small">Your phone rolls the dice; the game master\'s phone rolls them against the target\'s defences.</p>'
            '<button type="button" class="primary" data-action="send-attack" data-testid="send-attack">Roll the attack</button></div>')
    if live.panel == "heal":
        parts.append(
            '<div class="panel player-heal" data-testid="heal-panel"><div class="grid2">'
            '<label class="field">How much<input id="live-heal" type="number" inputmode="numeric" min="1" data-testid="live-heal"></label>'
            '<label class="field">What<select id="heal-kind" data-testid="heal-kind"><option value="heal">Healing</option>'
            '<option value="temp">Temporary HP</option></select></label></div>'
            '<button type="button" data-action="send-heal" data-testid="send-heal">Send to the game master</button></div>')
    if attacks:
        parts.append(
            '<label class="field">From My characters<select id="live-attack" data-action-change="live-attack" data-testid="live-attack">'
            '<option value="">Pick an attack…</option>'
            + "".join(f'<option value="{i}">{esc(label)} ({esc(dice)})</option>' for i, (label, dice) in enumerate(attacks))
            + '</select></label>')
    parts.append(
        '<h4 class="small">Another roll (a spell, typed dice)</h4>'
        '<div class="grid2"><label class="field">Target<select id="live-target" data-testid="live-target" data-action-change="player-target">'
        f'{targets}</select></label>'
        '<label class="field">Dice<input id="live-dice" data-testid="live-dice" autocomplete="off" placeholder="1d8+3"></label></div>'
        '<div class="row"><input id="live-label" data-testid="live-label" maxlength="60" autocomplete="off" placeholder="What (a spell…)" '
        'aria-label="What the roll is">'
        '<button type="button" data-action="send-roll" data-testid="send-roll">Roll and send</button></div>')
    return "".join(parts) + said + err


def player_target(live: Any) -> str:
    """The target a player's phone offers first: the one this player picked during this turn, else
    the opponent whose turn it is, else the last one it chose (kept across sends), else the first
    opponent; never the lair, never itself, never one the players cannot see."""
    valid = {i for i, _, side in live.ids if side != "x" and i != live.you}
    foes = [i for i, _, side in live.ids if side == "o"]
    if live.target in valid and live.target_turn == live.turn:
        return str(live.target)
    acting = next((i for i in live.turn if i in foes), "")
    if acting:
        return acting
    if live.target in valid:
        return str(live.target)
    return foes[0] if foes else next(iter(sorted(valid)), "")


def _own_state(own: dict[str, Any], my_turn: bool) -> str:
    """A player's own character: exact HP with temporary HP ("22/44 +8"), conditions and what remains
    of them, death saves at 0 HP (and the button to roll one on its turn)."""
    if not own:
        return ""
    hp, most, temp = own.get("hp"), own.get("max"), own.get("temp") or 0
    shown = "—" if hp is None else f"{hp}/{most}" if most else f"{hp}"
    out = (f'<p class="my-hp" data-testid="my-hp"><span class="muted">HP</span> <b>{esc(shown)}</b>'
           + (f' <span class="temp">+{temp}</span>' if temp else "") + '</p>')
    conds = own.get("cond") or []
    out += ('<ul class="my-conditions" data-testid="my-conditions">'
            + "".join(f'<li><b>{esc(name)}</b> <span class="muted">{esc(left)}</span></li>' for name, left in conds)
            + '</ul>') if conds else '<p class="muted small" data-testid="my-conditions">No conditions.</p>'
    saves = own.get("ds")
    if saves:
        successes, failures, state = saves
        out += (f'<p data-testid="my-death-saves">Death saves: <b>{successes}</b>/3 ✓ · <b>{failures}</b>/3 ✗ '
                f'<span class="muted">({esc(state)})</span></p>')
        if state == "dying":
            label = "Roll death save" if my_turn else "Roll death save (on your turn)"
            out += (f'<button type="button" class="primary" data-action="live-death-save" data-testid="death-save"'
                    f'{"" if my_turn else " disabled"}>{label}</button>')
    return out


STORAGE_STATES = {
    "kept": "Saved on this device; the browser has agreed to keep it.",
    "may-clear": "Saved on this device, but the browser may clear it when space runs low: export now and then.",
    "unknown": "Saved on this device.",
    "full": "Storage is full: changes are not being saved. Export all keeps a copy.",
    "blocked": "Not saving: this browser blocks storage (private mode?). Export to keep the fight.",
}


def encounter_details(entry: dict[str, Any], now: float) -> str:
    """'Enchanted Realms · round 3 · from a shared link · 2 h ago' for the list of encounters."""
    parts = []
    if entry.get("system"):
        try:
            parts.append(get_system(entry["system"]).label)
        except EngineError:
            parts.append(str(entry["system"]))
    if entry.get("round"):
        parts.append(f"round {entry['round']}")
    if entry.get("from"):
        parts.append("from a shared link" if entry["from"] == "link" else "from a file")
    if entry.get("at"):
        parts.append(_ago(now - entry["at"] / 1000))
    return " · ".join(parts)


def _ago(seconds: float) -> str:
    if seconds < 90:
        return "just now"
    for unit, size in (("day", 86_400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            n = int(seconds // size)
            return f"{n} {unit}{'s' if unit == 'day' and n > 1 else ''} ago"
    return "just now"  # pragma: no cover


def menu_sheet_html(encounters: list[dict[str, Any]], current_id: str, locked: set[str], theme: str, skip_down: str, trash: list[dict[str, Any]],
                    system: str = "generic", storage: str = "unknown", now: float = 0.0) -> str:
    system_options = "".join(
        f'<option value="{esc(x.name)}"{" selected" if x.name == system else ""}>{esc(x.label)}</option>' for x in systems()
    )
    rows = "".join(
        f'<li class="enc-item{" current" if e["id"] == current_id else ""}" data-testid="encounter-item">'
        f'<button type="button" data-action="switch-encounter" data-id="{esc(e["id"])}"{" disabled" if e["id"] in locked else ""}>'
        f'<span class="enc-title">{esc(e.get("name", "?"))}{" (newer version)" if e["id"] in locked else ""}</span>'
        f'<small class="muted" data-testid="encounter-details">{esc(encounter_details(e, now))}</small></button></li>'
        for e in encounters
    )
    restore = "".join(
        f'<button type="button" data-action="restore-encounter" data-index="{i}" data-testid="restore-encounter">Restore {esc(quoted(t["name"]))}</button>'
        for i, t in enumerate(trash)
    )
    skip = "".join(
        f'<option value="{v}"{" selected" if v == skip_down else ""}>{label}</option>'
        for v, label in (("npcs", "Downed non-players"), ("all", "Everyone who is down"), ("none", "Nobody"))
    )
    return (
        '<h3>Encounters</h3>'
        f'<ul class="enc-list" data-testid="encounter-list">{rows}</ul>'
        f'{restore}'
        f'<label class="field">Game system for a new encounter<select id="new-system" data-testid="new-system">{system_options}</select></label>'
        '<div class="grid2">'
        '<button type="button" data-action="new-encounter" data-testid="new-encounter">New</button>'
        '<button type="button" data-action="duplicate-encounter" data-testid="duplicate-encounter">Duplicate</button>'
        '<button type="button" data-action="rename-encounter" data-testid="rename-encounter">Rename</button>'
        '<button type="button" class="danger" data-action="delete-encounter" data-testid="delete-encounter">Delete</button>'
        '</div>'
        f'<label class="field">Skip at their turn<select id="opt-skip" data-action-change="set-skip" data-testid="option-skip">{skip}</select></label>'
        '<h3>Save and share</h3><div class="grid2">'
        '<button type="button" data-action="export-all" data-testid="export-all">Export all</button>'
        '<button type="button" data-action="export-current" data-testid="export-current">Export fight</button>'
        '<label class="button-like" data-testid="import-label">Import file<input type="file" id="import-file" accept=".json,application/json" data-testid="import-file" class="sr"></label>'
        '<button type="button" data-action="share-link" data-testid="share-link">Share link</button>'
        '<button type="button" data-action="live-table" data-testid="live-table">Live table</button>'
        '<button type="button" data-action="table-display" data-testid="table-display">Table display</button>'
        '<button type="button" data-action="join-table" data-testid="join-table">Join a table (scan)</button>'
        '</div><label class="field">Share with<select id="share-for" data-action-change="share-for" data-testid="share-for">'
        '<option value="view">Players (a read-only view)</option>'
        '<option value="fight">A co-GM (takes the fight over)</option></select></label>'
        '<div class="row share-row"><input id="share-field" readonly data-testid="share-field" aria-label="Share link" '
        'placeholder="Tap Share link">'
        '<button type="button" data-action="copy-share" data-testid="copy-share">Copy</button></div>'
        '<p id="share-out" class="muted" data-testid="share-out" aria-live="polite"></p>'
        '<div id="share-qr" class="qr" data-testid="share-qr" hidden></div>'
        '<p id="share-qr-note" class="muted" data-testid="share-qr-note" aria-live="polite"></p>'
        '<details class="help"><summary>How sharing works</summary><p data-testid="share-help">Players at the table: they point '
        'their phone\'s camera at the code and see the fight read-only (the round, whose turn, who is next, the party\'s HP, '
        'the foes as "hurt" or "bloodied", conditions); they scan again to see it move on. A co-GM: the code opens the whole '
        'fight on their phone as a copy to run from there (the two phones do not sync). No signal is needed: the fight is '
        'inside the code.</p></details>'
        f'<p class="muted" data-testid="storage-status" data-state="{esc(storage)}">{esc(STORAGE_STATES.get(storage, ""))}</p>'
        '<h3>Look and help</h3><div class="grid2">'
        '<label class="field">Theme<select id="theme-pick" data-action-change="theme-picked" data-testid="theme-pick">'
        + "".join(f'<option value="{value}"{" selected" if theme == value else ""}>{label}</option>'
                  for value, label in (("system", "As the phone"), ("light", "Light"), ("dark", "Dark")))
        + '</select></label>'
        '<a class="button-like" href="./rules.html" target="_blank" rel="noopener" data-testid="rules-link">Rules reference</a></div>'
        '<p class="err" id="menu-error" data-testid="menu-error" role="alert"></p>'
        '<div class="row"><button type="button" data-action="close-sheet">Close</button></div>'
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


def requests_html(requests: tuple[Any, ...]) -> str:
    """What players' phones asked (the live table), oldest first, each with Apply and Dismiss: the
    tray's cards."""
    return "".join(
        f'<div class="notice info request" data-testid="request" data-kind="{esc(r.kind)}"><span>{esc(r.text)}</span> '
        f'<button type="button" data-action="request-apply" data-id="{r.id}" data-testid="request-apply">'
        f'{"Approve" if r.kind == "claim" else "Next turn" if r.kind == "done" else "Apply"}</button> '
        f'<button type="button" data-action="request-dismiss" data-id="{r.id}" data-testid="request-dismiss">Dismiss</button></div>'
        for r in requests
    )


def tray_html(requests: tuple[Any, ...]) -> str:
    """The game master's tray of requests, above the turn controls wherever the page is scrolled."""
    return (f'<div class="tray-head"><b>Players\' requests ({len(requests)})</b>'
            '<button type="button" data-action="request-tray" data-testid="request-tray-hide">Hide</button></div>'
            + requests_html(requests))


def notices_html(notices: list[Any], timeline: Any = None) -> str:
    """Messages for the user, each with its buttons and a dismiss × (its index in `notices`); one
    about a step of a fight only beside that fight while the step is done."""
    return "".join(
        f'<div class="notice {esc(n.level)}" data-testid="notice" data-level="{esc(n.level)}">'
        f'<span>{esc(n.text)}</span>'
        + "".join(f' <button type="button" data-action="notice-{esc(action)}" data-testid="notice-action">{esc(label)}</button>'
                  for action, label in n.buttons())
        + f' <button type="button" class="x" data-action="dismiss" data-index="{i}" aria-label="Dismiss">×</button></div>'
        for i, n in enumerate(notices) if timeline is None or n.shown_with(timeline)
    )


def history_html(rolls: list[dict[str, Any]]) -> str:
    if not rolls:
        return '<li class="muted">No rolls yet.</li>'
    return "".join(
        f'<li data-testid="history-item"><b>{esc(r.get("total"))}</b>{_crit_chips(r)}'
        + (f' <span class="label" data-testid="history-label">{esc(r["label"])}</span>' if r.get("label") else "")
        + f' <code>{roll_text(r.get("text", ""), 300)}</code></li>'
        for r in rolls
    )


def _crit_chips(entry: dict[str, Any]) -> str:
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


def saved_rolls_html(saved: list[dict[str, Any]]) -> str:
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

