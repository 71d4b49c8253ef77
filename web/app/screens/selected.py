"""Several combatants chosen at once: one amount or one condition for all (one step to undo)."""

from __future__ import annotations

from pyengine.model import Encounter
from pyengine.rules import system_of
from web.app.html import esc
from web.app.messages import BatchApplied
from web.app.render import hp_html
from web.app.screens.base import Context, Elsewhere, Screen
from web.app.views import Handler


def draw(ctx: Context, ident: str | None) -> str | Elsewhere:
    enc = ctx.model.timeline.present
    chosen = tuple(i for i in (ctx.model.ui.selected or ()) if i in enc.names())
    return selected_sheet_html(enc, chosen) if chosen else Elsewhere()


SCREENS = (Screen("selected", draw, "sheet-error"),)

# One amount (half for those whose box is ticked) or one condition, for every selected combatant: one step.
EVENTS: dict[str, Handler] = {
    "apply-batch": lambda page: BatchApplied(str(page.data("kind")), page.rng, amount=page.value("batch-amount"),
                                             halves=tuple(page.checked("#sheet-body input.half")), condition=page.value("batch-condition")),
}


def selected_sheet_html(enc: Encounter, selected: tuple[str, ...]) -> str:
    """Damage, healing or a condition for several at once (a fireball on four goblins): one amount,
    half for each one who made its save; one step to undo."""
    chosen = [c for c in enc.combatants if c.id in selected]
    rows = "".join(
        f'<label class="check toggle" data-testid="selected-row"><input type="checkbox" class="half" value="{esc(c.id)}" id="half-{esc(c.id)}" '
        f'data-id="{esc(c.id)}" data-testid="half"> {esc(c.name)} <span class="muted">{esc(hp_html(c))}</span>'
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
        + ('<div class="row"><button type="button" data-action="save-selected" data-testid="save-selected">Saving throw…</button></div>'
           if enc.system == "generic" else
           '<div class="row"><button type="button" data-action="save-selected" data-testid="save-selected">Area effect…</button></div>'
           if enc.system == "realms" else
           '<div class="row"><button type="button" data-action="save-selected" data-testid="save-selected">A power on them…</button></div>'
           if enc.system == "strife" else "")
        + '<p class="err" id="sheet-error" data-testid="sheet-error" role="alert"></p>'
        '<div class="row"><button type="button" data-action="close-sheet">Close</button></div>'
    )
