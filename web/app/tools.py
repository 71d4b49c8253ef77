"""A combatant's turn tools on screen (pyengine/tools.py): chips on its row, the reminders with their
button under "Now: …" on its turn (legendary actions on everyone else's), and the sheet's list and
add form. Pure HTML builders; every user text goes through `esc`."""

from __future__ import annotations

from pyengine.model import Combatant, Encounter, TurnTool
from pyengine.rules import system_of
from pyengine.tools import (
    DEFAULT_NAMES,
    TIMED,
    describe,
    pause_words,
    recharge_chance,
    recharge_faces,
    recharge_words,
    state_words,
    terms,
    waiting,
)
from pyengine.turns import active_unit, unit_name
from web.app.html import esc, pct

__all__ = ["row_chips", "now_html", "sheet_html", "KIND_LABELS"]

KIND_LABELS = {"recharge": "Recharge (a d6 at its turn)", "regeneration": "Regeneration (HP at its turn)",
               "ongoing": "Ongoing damage (at its turn)", "legendary": "Legendary actions (a round)", "uses": "Uses a day"}
SHOWN_USE_BUTTONS = 3  # legendary actions spent at once: 1, 2 or 3 (an SRD action costs up to 3)


def _chance(low: int) -> str:
    """The exact chance a d6 recharges it, as faces and as a percentage: "2 in 6 · 33.3%"."""
    return f"{recharge_faces(low)} in 6 · {pct(float(recharge_chance(low)))}"


def _chip(t: TurnTool) -> str:
    if t.kind == "recharge":
        cls, state = (" ok", "✓") if t.left else (" bad", "✗")
    elif t.kind in TIMED:
        cls, state = "", esc(t.amount) + (" off" if t.paused else "")
    else:
        cls, state = " bad" if not t.left else "", f"{t.left}/{t.most}"
    return f'<span class="chip tool{cls}" data-testid="tool-chip" title="{esc(describe(t))}">{esc(t.name)} {state}</span>'


def row_chips(c: Combatant) -> str:
    """A chip a tool: an ability ✓ ready or ✗ spent, regeneration and ongoing damage with their
    amount, legendary actions and daily uses left."""
    return "".join(_chip(t) for t in c.tools)


def _button(c: Combatant, t: TurnTool, action: str, label: str, extra: str = "", cls: str = "") -> str:
    klass = f' class="{cls}"' if cls else ""
    return (f'<button type="button"{klass} data-action="{action}" data-id="{esc(c.id)}" '
            f'data-tool="{esc(t.id)}" data-testid="{action}"{extra}>{label}</button>')


def _waiting_button(c: Combatant, t: TurnTool, on_sheet: bool = False) -> str:
    """The one-tap answer to a tool that waits on its turn: under "Now: …" it names the tool, on its
    own sheet (beside the tool's name) it says what it does."""
    cls = "" if on_sheet else "act"
    if t.kind == "recharge":
        label = f"Roll recharge ({_chance(t.low)})" if on_sheet else f"Roll {esc(t.name)}'s recharge ({esc(recharge_words(t.low))}: {_chance(t.low)})"
        return _button(c, t, "tool-recharge", label, cls=cls)
    sign, what = ("+", "HP") if t.kind == "regeneration" else ("", "damage")
    if on_sheet:
        return _button(c, t, "tool-acts", f"Apply {sign}{esc(t.amount)} {what}")
    return _button(c, t, "tool-acts", f"{esc(t.name)}: {sign}{esc(t.amount)} {what}{' (end of turn)' if t.when == 'end' else ''}", cls=cls)


def now_html(enc: Encounter) -> str:
    """Under "Now: …": the turn tools waiting on the active creatures' turn (a recharge roll with its
    exact chance, regeneration, ongoing damage), and on anyone else's turn the legendary actions
    still left to others (an action's cost in one tap, back at their own turn)."""
    if not enc.started:
        return ""
    down = system_of(enc).is_down
    active = {c.id for c in active_unit(enc)}
    lines = []
    for c in enc.combatants:
        if c.id in active:
            buttons = "".join(_waiting_button(c, t) for t in waiting(enc, c))
            if buttons:
                lines.append(f'<div class="tools-now" data-testid="tools-now"><span class="who">{esc(c.name)}</span>{buttons}</div>')
        elif not down(c):
            lines.extend(
                f'<div class="tools-now" data-testid="legendary-now"><span class="who">{esc(c.name)}</span>'
                + (_named_buttons(c, t, "act") if t.actions else _count_buttons(c, t))
                + f' <span class="muted">({t.left}/{t.most} left)</span></div>'
                for t in c.tools if t.kind == "legendary" and t.left)
    return "".join(lines)


def _count_buttons(c: Combatant, t: TurnTool) -> str:
    """Legendary actions with no names typed: what one action may cost (1, 2 or 3: SRD), as far as
    are left ("Legendary actions: use 1", "use 2")."""
    return "".join(_button(c, t, "tool-use", f"{esc(t.name)}: use 1" if n == 1 else f"use {n}", f' data-count="{n}"', "act")
                   for n in range(1, min(t.left, SHOWN_USE_BUTTONS) + 1))


def _named_buttons(c: Combatant, t: TurnTool, cls: str = "") -> str:
    """A creature's named legendary actions it can still pay for this round, each spending its cost
    ("Wing Attack (2)")."""
    return "".join(_button(c, t, "tool-use", f"{esc(name)} ({cost})", f' data-count="{cost}" data-name="{esc(name)}"', cls)
                   for name, cost in t.actions if cost <= t.left)


def _tool_buttons(c: Combatant, t: TurnTool) -> str:
    if t.kind == "recharge":
        return (_button(c, t, "tool-use", "Use", ' data-count="1"', "primary") if t.left
                else _waiting_button(c, t, on_sheet=True) + _button(c, t, "tool-set", "Ready", ' data-left="1"'))
    if t.kind in TIMED:
        pause = (_button(c, t, "tool-set", "Works again", ' data-paused="0"') if t.paused
                 else _button(c, t, "tool-set", f"Off next turn ({pause_words(t)})", ' data-paused="1"') if t.kind == "regeneration" else "")
        return _waiting_button(c, t, on_sheet=True) + pause
    top = SHOWN_USE_BUTTONS if t.kind == "legendary" else 1
    if t.kind == "legendary" and t.actions:
        back = _button(c, t, "tool-set", "All back", f' data-left="{t.most}"') if t.left < t.most else ""
        return _named_buttons(c, t) + back
    uses = "".join(_button(c, t, "tool-use", f"Use {n}" if t.kind == "legendary" else "Use", f' data-count="{n}"', "primary" if n == 1 else "")
                   for n in range(1, min(t.left, top) + 1))
    back = _button(c, t, "tool-set", "All back (rest)" if t.kind == "uses" else "All back", f' data-left="{t.most}"') if t.left < t.most else ""
    return uses + back


def _add_form(enc: Encounter, c: Combatant, kinds: tuple[str, ...], kind: str | None) -> str:
    """Give the combatant a tool (or every member of its group): its kind (the fields follow it), a
    name, and what it needs."""
    chosen = kind if kind in kinds else kinds[0]
    options = "".join(f'<option value="{k}"{" selected" if k == chosen else ""}>{esc(KIND_LABELS[k])}</option>' for k in kinds)
    if chosen == "recharge":
        faces = "".join(f'<option value="{low}"{" selected" if low == 5 else ""}>{esc(recharge_words(low))} ({_chance(low)})</option>'
                        for low in range(6, 1, -1))
        extra = f'<label class="field wide">Recharges on<select id="tool-low" data-testid="tool-low">{faces}</select></label>'
    elif chosen in TIMED:
        extra = ('<label class="field">Amount<input id="tool-amount" type="text" autocomplete="off" autocapitalize="off" spellcheck="false" '
                 'maxlength="40" placeholder="10 or 2d6" data-testid="tool-amount"></label>'
                 '<label class="field">When<select id="tool-when" data-testid="tool-when">'
                 '<option value="start">Start of its turn</option><option value="end">End of its turn</option></select></label>')
    else:
        extra = (f'<label class="field">{"A round" if chosen == "legendary" else "A day"}<input id="tool-most" type="number" min="1" '
                 f'max="99" value="{3 if chosen == "legendary" else 1}" inputmode="numeric" data-testid="tool-most"></label>')
    pick = (f'<label class="field wide">Kind<select id="tool-kind" data-action-change="tool-kind" data-testid="tool-kind">{options}</select></label>'
            if len(kinds) > 1 else f'<input type="hidden" id="tool-kind" value="{chosen}">')
    return (f'<details class="tool-add" data-testid="tool-add"{" open" if kind else ""}><summary>Add a turn tool</summary><div class="grid2">{pick}'
            f'<label class="field">Name<input id="tool-name" maxlength="60" autocomplete="off" placeholder="{esc(DEFAULT_NAMES[chosen])}" '
            f'data-testid="tool-name"></label>{extra}</div>{_group_box(enc, c)}'
            f'<button type="button" data-action="tool-add" data-id="{esc(c.id)}" data-testid="tool-add-button">Add turn tool</button></details>')


def _group_box(enc: Encounter, c: Combatant) -> str:
    members = [x for x in enc.combatants if c.group is not None and x.group == c.group]
    if len(members) < 2:
        return ""
    return (f'<label class="check"><input type="checkbox" id="tool-group" checked data-testid="tool-group"> '
            f'Every one of {esc(unit_name(members))}</label>')


def sheet_html(enc: Encounter, c: Combatant, kind: str | None) -> str:
    """The sheet's turn tools: each with its state and buttons (use, recharge, apply, pause, all
    back, remove), then the form that adds one. Nothing where the system's rules have none."""
    kinds = system_of(enc).turn_tools
    if not kinds or not system_of(enc).is_creature(c):
        return ""
    items = "".join(
        f'<li data-testid="tool" data-tool-id="{esc(t.id)}"><span class="tool-name"><b>{esc(t.name)}</b> '
        f'<span class="muted">{esc(terms(t))}</span>'
        + (f' · <span data-testid="tool-state">{esc(state_words(t))}</span>' if state_words(t) else "")
        + f'</span><span class="row">{_tool_buttons(c, t)}'
        f'<button type="button" class="x" data-action="tool-remove" data-id="{esc(c.id)}" data-tool="{esc(t.id)}" '
        f'aria-label="Remove {esc(t.name)}" data-testid="tool-remove">×</button></span></li>'
        for t in c.tools)
    if not items:
        return _add_form(enc, c, kinds, kind)
    where = "party roster" if c.side == "party" else "saved opponents"
    remember = (f'<button type="button" data-action="tool-remember" data-id="{esc(c.id)}" data-testid="tool-remember">'
                f'Remember with its tools <span class="muted">({where})</span></button>')
    return f'<p class="muted">Turn tools</p><ul class="tools" data-testid="tools">{items}</ul>{remember}' + _add_form(enc, c, kinds, kind)
