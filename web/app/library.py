"""The creature library on screen (generic d20): the add form's "From the SRD" search and its
results, the attribution its licence asks for, a creature's stat block on its sheet, and the SRD
conditions' rules text (pyengine/systems/srd.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pyengine.damage_types import read_entry
from pyengine.model import Combatant
from pyengine.systems.srd import MAX_RESULTS, SOURCE, cr_words, search
from web.app.html import esc

if TYPE_CHECKING:
    from web.app.model import Model

__all__ = ["srd_section_html", "creature_info_html", "condition_rules_html", "encounter_xp"]


def _attribution(model: Model) -> str:
    text = model.library.attribution if model.library is not None else f"Creatures from the {SOURCE} (CC BY 4.0)."
    return f'<p class="muted small" data-testid="srd-attribution">{esc(text)}</p>'


def srd_section_html(model: Model) -> str:
    """Search by name, type or CR; results as you type (30 at most), a tap adds one with the form's
    side, How many and Remember."""
    query = model.srd_query
    results = ""
    if model.library_state == "loading" and query:
        results = '<p class="muted" data-testid="srd-status" role="status">Loading the SRD library…</p>'
    elif model.library_state and model.library_state != "loading":
        results = (f'<p class="err" data-testid="srd-status" role="alert">{esc(model.library_state)}</p>'
                   '<button type="button" data-action="srd-retry" data-testid="srd-retry">Retry</button>')
    elif model.library is not None and query.strip():
        found = search(model.library, query, MAX_RESULTS)
        rows = "".join(
            f'<li><button type="button" class="srd-row" data-action="srd-add" data-name="{esc(c.name)}" data-testid="srd-result">'
            f'<b>{esc(c.name)}</b><span class="muted">CR {esc(cr_words(c.cr))} · HP {c.average_hp} · AC {c.ac} · {esc(c.kind)}</span></button></li>'
            for c in found)
        results = (f'<ul class="srd-results" data-testid="srd-results" aria-label="SRD creatures">{rows}</ul>' if rows else
                   f'<p class="muted" data-testid="srd-status" role="status">No SRD creature matches “{esc(query.strip())}” '
                   '(a name, a type such as dragon, or cr 5).</p>')
    state = "loading" if model.library_state == "loading" else "failed" if model.library_state else "ready" if model.library else ""
    return (
        f'<section class="srd" data-testid="srd" data-query="{esc(query)}" data-state="{state}">'
        '<label class="field">From the SRD<input id="srd-search" type="search" data-testid="srd-search" autocomplete="off" '
        f'autocapitalize="off" spellcheck="false" maxlength="60" placeholder="Name, type or cr 1/4" value="{esc(query)}"></label>'
        '<label class="check"><input type="checkbox" id="srd-roll-hp" data-testid="srd-roll-hp"> Roll HP from its hit dice '
        '(each one its own)</label>'
        + results
        + '<p class="muted small">A tap adds it with the side, How many and Remember of the form below.</p>'
        + _attribution(model) + '</section>'
    )


def _list(label: str, entries: tuple[str, ...], testid: str) -> str:
    if not entries:
        return ""
    words = "; ".join(e + (" (the table's call)" if read_entry(e).table and testid != "sheet-condition-immunities" else "") for e in entries)
    return f'<p data-testid="{testid}"><span class="muted">{label}</span> {esc(words)}</p>'


def creature_info_html(c: Combatant) -> str:
    """A creature's CR and XP, defenses, attacks (and multiattack) and its stat block's text."""
    cr, xp = c.stat("cr"), c.stat("xp")
    head = (f'<p data-testid="sheet-cr"><span class="muted">CR</span> {esc(cr)}'
            + (f' · {int(xp):,} XP' if isinstance(xp, int) else "") + "</p>") if cr is not None else ""
    d = c.defenses
    attacks = ""
    if c.attacks:
        multi = c.stat("multiattack")
        attacks = ('<p class="muted">Attacks</p><ul class="plain" data-testid="sheet-attacks">'
                   + "".join(f'<li><b>{esc(a.name)}</b> {a.bonus:+d} · {esc(a.damage)}</li>' for a in c.attacks)
                   + "</ul>" + (f'<p data-testid="sheet-multiattack"><span class="muted">Multiattack</span> {esc(multi)}</p>' if multi else ""))
    text = (f'<details class="help" data-testid="stat-block"><summary>Stat block</summary><p class="prewrap">{esc(c.notes)}</p></details>'
            if c.notes else "")
    return (head + _list("Resists", d.resistances, "sheet-resistances") + _list("Immune to", d.immunities, "sheet-immunities")
            + _list("Vulnerable to", d.vulnerabilities, "sheet-vulnerabilities")
            + _list("Condition immunities", d.condition_immunities, "sheet-condition-immunities") + attacks + text)


def condition_rules_html(model: Model) -> str:
    """The condition picker's rules text of the SRD's conditions (a tap shows or hides them)."""
    button = ('<button type="button" data-action="condition-rules" data-testid="condition-rules" '
              f'aria-expanded="{"true" if model.condition_rules else "false"}">'
              + ("Hide the conditions’ rules" if model.condition_rules else "Rules text of the conditions (SRD)") + "</button>")
    if not model.condition_rules:
        return button
    if model.library is None:
        state = model.library_state if model.library_state != "loading" else "Loading the SRD library…"
        return button + f'<p class="muted" role="status" data-testid="condition-rules-status">{esc(state)}</p>'
    items = "".join(f'<details class="help" data-testid="condition-rule"><summary>{esc(name)}</summary><p class="prewrap">{esc(text)}</p></details>'
                    for name, text in model.library.conditions)
    return button + items + _attribution(model)


def encounter_xp(combatants: tuple[Combatant, ...]) -> tuple[int, int]:
    """(the opponents' total XP, the party's size): the encounter's budget at a glance."""
    xp = sum(int(c.stat("xp")) for c in combatants if c.side == "opponents" and isinstance(c.stat("xp"), int))
    return xp, sum(1 for c in combatants if c.side == "party")
