"""The menu: encounters (switch, new, copy, rename, delete, undelete), the game system, the theme,
how storage stands, export and import, sharing, the rules."""

from __future__ import annotations

from .. import render
from ..messages import (
    Act,
    EncounterCopied,
    EncounterCreated,
    EncounterDeleted,
    EncounterPicked,
    EncounterRestored,
    Exported,
    LinkCopied,
    ShareLinkAsked,
    SheetOpened,
    ThemeToggled,
)
from ..views import Events, Handler, Page
from .base import EVERY_COLLECTION, Context, Elsewhere, Screen


def draw(ctx: Context, ident: str | None) -> str | Elsewhere:
    enc = ctx.model.timeline.present
    return render.menu_sheet_html(list(ctx.encounters), enc.id, set(ctx.locked), ctx.theme, enc.option("skip_down", "npcs"),
                                  list(ctx.trash), enc.system, ctx.storage, ctx.now)


SCREENS = (Screen("menu", draw, "menu-error", EVERY_COLLECTION),)


def renamed(page: Page) -> Events:
    name = page.prompt("Name of this encounter", page.model.timeline.present.name)
    return None if name is None else Act("rename", {"name": name}, page.rng)


def deleted(page: Page) -> Events:
    here = page.model.timeline.present.id
    return EncounterDeleted(page.new_id(), sum(1 for e in page.encounters if e["id"] != here))


def option_set(page: Page) -> Events:
    value = page.chosen
    return Act("set_option", {"key": str(page.data("key")), "value": int(value) if value.isdigit() else value}, page.rng)


EVENTS: dict[str, Handler] = {
    "switch-encounter": lambda page: EncounterPicked(str(page.data("id"))),
    "new-encounter": lambda page: EncounterCreated(page.value("new-system") or None, page.new_id(), len(page.encounters)),
    "duplicate-encounter": lambda page: EncounterCopied(page.new_id()),
    "rename-encounter": renamed,
    "delete-encounter": deleted,
    "restore-encounter": lambda page: EncounterRestored(int(page.data("index"))),
    "export-current": lambda page: Exported("current"),
    "export-all": lambda page: Exported("all"),
    "share-link": lambda page: ShareLinkAsked(page.value("share-for", "view") or "view"),
    "copy-share": lambda page: LinkCopied("share-field", "share-out"),
    "my-characters": lambda page: SheetOpened("characters"),
}
CHANGES: dict[str, Handler] = {
    "set-skip": lambda page: Act("set_option", {"key": "skip_down", "value": page.chosen}, page.rng),
    "set-option": option_set,
    "share-for": lambda page: ShareLinkAsked(page.chosen or "view"),
    "theme-picked": lambda page: ThemeToggled(page.chosen or "system"),
}
