"""Several combatants chosen at once: one amount or one condition for all (one step to undo)."""

from __future__ import annotations

from .. import render
from ..messages import BatchApplied
from ..views import Handler
from .base import Context, Elsewhere, Screen


def draw(ctx: Context, ident: str | None) -> str | Elsewhere:
    enc = ctx.model.timeline.present
    chosen = tuple(i for i in (ctx.model.ui.selected or ()) if i in enc.names())
    return render.selected_sheet_html(enc, chosen) if chosen else Elsewhere()


SCREENS = (Screen("selected", draw, "sheet-error"),)

# One amount (half for those whose box is ticked) or one condition, for every selected combatant: one step.
EVENTS: dict[str, Handler] = {
    "apply-batch": lambda page: BatchApplied(str(page.data("kind")), page.rng, amount=page.value("batch-amount"),
                                             halves=tuple(page.checked("#sheet-body input.half")), condition=page.value("batch-condition")),
}
