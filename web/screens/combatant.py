"""A combatant's sheet: hit points, conditions, the system's sections (the attack panel first)."""

from __future__ import annotations

from .. import render
from .base import Context, Elsewhere, Screen


def draw(ctx: Context, ident: str | None) -> str | Elsewhere:
    t = ctx.model.timeline
    enc = t.present
    if ident is None or ident not in enc.names():
        return Elsewhere()
    ui = ctx.model.ui
    return render.combatant_sheet_html(enc, enc.get(ident), ui.attack, t.log()[-30:], ui.section)


SCREENS = (Screen("combatant", draw, "sheet-error"),)
