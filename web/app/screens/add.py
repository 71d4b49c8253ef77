"""The add form (with the saved party and opponents one tap away) and the edit form."""

from __future__ import annotations

from typing import Any

from pyengine.core_args import Edit
from pyengine.rules import system_of
from web.app import render
from web.app.library import srd_section_html
from web.app.messages import (
    Act,
    CombatantAdded,
    CreaturePicked,
    LibraryRetried,
    LibrarySearched,
    NameTyped,
    QuickAdded,
    SidePicked,
)
from web.app.screens.base import EVERY_COLLECTION, Context, Elsewhere, Screen
from web.app.views import Events, Handler, Page, datum, view_for


def draw_add(ctx: Context, ident: str | None) -> str | Elsewhere:
    enc = ctx.model.timeline.present
    srd = srd_section_html(ctx.model) if view_for(enc.system).creature_library else ""
    return render.add_sheet_html(enc, list(ctx.model.roster), list(ctx.model.templates), last=ctx.model.ui.last_added, library=srd)


def draw_edit(ctx: Context, ident: str | None) -> str | Elsewhere:
    enc = ctx.model.timeline.present
    if ident is None or ident not in enc.names():
        return Elsewhere()
    return render.add_sheet_html(enc, list(ctx.model.roster), list(ctx.model.templates), edit=enc.get(ident))


SCREENS = (Screen("add", draw_add, "form-error", EVERY_COLLECTION), Screen("edit", draw_edit, "form-error"))


def form_fields(page: Page, editing: bool) -> dict[str, Any]:
    """The add (or edit) form as the tracker's combatant fields (the engine checks them)."""
    fields: dict[str, Any] = {
        "name": page.value("f-name"),
        "side": page.value("f-side", "opponents"),
        "pc": page.value("f-pc") == "1",
        "init_mod": page.number(page.value("f-init_mod"), 0),
        "max_hp": page.number(page.value("f-max_hp")),
        "notes": page.value("f-notes"),
    }
    initiative = page.number(page.value("f-initiative"))
    if initiative is not None or editing:
        fields["initiative"] = initiative
    if editing:
        fields["hp"] = page.number(page.value("f-hp"))
    enc = page.model.timeline.present
    stats = view_for(enc.system).stats_from_form(system_of(enc), page, editing)
    if stats is not None:
        fields["stats"] = stats
    return fields


def added(page: Page) -> Events:
    """The new combatant (a group of `count`), kept in the party or the saved opponents when asked."""
    count = page.number(page.value("f-count"), 1)
    return CombatantAdded(form_fields(page, editing=False), 1 if count is None else count, page.ticked("f-remember"), page.rng)


def quick_added(page: Page) -> Events:
    """A saved party member or opponent, one tap."""
    roster = page.data("source") == "roster"
    source = page.model.roster if roster else page.model.templates
    index = page.number(page.data("index"), -1)
    return QuickAdded(roster, dict(source[index]), page.rng) if index is not None and 0 <= index < len(source) else None


def side_picked(page: Page) -> Events:
    """Choosing Party makes a new combatant a player character (not on the edit form)."""
    return SidePicked(page.chosen) if page.exists("f-pc") and page.exists("f-count") else None


def creature_picked(page: Page) -> Events:
    """A creature of the SRD library, one tap: with the form's How many, side and Remember."""
    count = page.number(page.value("f-count"), 1)
    return CreaturePicked(str(page.data("name") or ""), 1 if count is None else count, page.value("f-side", "opponents"),
                          page.ticked("f-remember"), page.ticked("srd-roll-hp"), page.rng)


EVENTS: dict[str, Handler] = {"quick-add": quick_added, "srd-add": creature_picked, "srd-retry": lambda page: LibraryRetried()}
SUBMITS: dict[str, Handler] = {
    "save-add": added,
    "save-edit": lambda page: Act("update_combatant", Edit(datum(page, "id"), form_fields(page, editing=True)), page.rng,
                                  close_sheet=True),
}
CHANGES: dict[str, Handler] = {"side-picked": side_picked}
# The add form's name (not the edit form's): a known opponent's name puts the form on the opponents' side.
INPUTS: dict[str, Handler] = {"f-name": lambda page: NameTyped(page.value("f-name")) if page.exists("f-count") else None,
                               "srd-search": lambda page: LibrarySearched(page.value("srd-search"))}
