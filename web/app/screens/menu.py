"""The menu: encounters (switch, new, copy, rename, delete, undelete), the game system, the theme,
how storage stands, export and import, sharing, the rules."""

from __future__ import annotations

from typing import Any

from pyengine.core_args import Option, Rename
from pyengine.documents import Listed
from pyengine.errors import EngineError
from pyengine.rules import get_system, systems
from pyengine.text import quoted
from web.app.html import esc
from web.app.messages import (
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
from web.app.screens.base import EVERY_COLLECTION, Context, Elsewhere, Screen
from web.app.views import Events, Handler, Page, datum


def draw(ctx: Context, ident: str | None) -> str | Elsewhere:
    enc = ctx.model.timeline.present
    return menu_sheet_html(list(ctx.encounters), enc.id, set(ctx.locked), ctx.theme, enc.option("skip_down", "npcs"),
                                  list(ctx.trash), enc.system, ctx.storage, ctx.now, ctx.model.backup_at, ctx.safari_tab)


SCREENS = (Screen("menu", draw, "menu-error", EVERY_COLLECTION),)


def renamed(page: Page) -> Events:
    name = page.prompt("Name of this encounter", page.model.timeline.present.name)
    return None if name is None else Act("rename", Rename(name), page.rng)


def deleted(page: Page) -> Events:
    here = page.model.timeline.present.id
    return EncounterDeleted(page.new_id(), sum(1 for e in page.encounters if e["id"] != here))


def option_set(page: Page) -> Events:
    value = page.chosen
    return Act("set_option", Option(datum(page, "key"), int(value) if value.isdigit() else value), page.rng)


EVENTS: dict[str, Handler] = {
    "switch-encounter": lambda page: EncounterPicked(str(page.data("id"))),
    "new-encounter": lambda page: EncounterCreated(page.value("new-system") or None, page.new_id(), len(page.encounters)),
    "duplicate-encounter": lambda page: EncounterCopied(page.new_id()),
    "rename-encounter": renamed,
    "delete-encounter": deleted,
    "restore-encounter": lambda page: EncounterRestored(int(datum(page, "index"))),
    "export-current": lambda page: Exported("current"),
    "export-all": lambda page: Exported("all"),
    "share-link": lambda page: ShareLinkAsked(page.value("share-for", "view") or "view"),
    "copy-share": lambda page: LinkCopied("share-field", "share-out"),
    "my-characters": lambda page: SheetOpened("characters"),
}
CHANGES: dict[str, Handler] = {
    "set-skip": lambda page: Act("set_option", Option("skip_down", page.chosen), page.rng),
    "set-option": option_set,
    "share-for": lambda page: ShareLinkAsked(page.chosen or "view"),
    "theme-picked": lambda page: ThemeToggled(page.chosen or "system"),
}


STORAGE_STATES = {
    "kept": "Saved on this device; the browser has agreed to keep it.",
    "may-clear": "Saved on this device, but the browser may clear it when space runs low: export now and then.",
    "unknown": "Saved on this device.",
    "full": "Storage is full: changes are not being saved. Export all keeps a copy.",
    "blocked": "Not saving: this browser blocks storage (private mode?). Export to keep the fight.",
}


def encounter_details(entry: Listed, now: float) -> str:
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


HOME_SCREEN_WHY = "Safari keeps a site's fights only then; in a tab it clears them after 7 days without a visit."


def backup_words(at: float | None, now: float) -> str:
    """The menu's line on the last backup (Export all, from this device)."""
    if at is None:
        return "Last backup (Export all): never."
    return f"Last backup (Export all): {_ago(max(0.0, now - at))}."


def _ago(seconds: float) -> str:
    if seconds < 90:
        return "just now"
    for unit, size in (("day", 86_400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            n = int(seconds // size)
            return f"{n} {unit}{'s' if unit == 'day' and n > 1 else ''} ago"
    return "just now"  # pragma: no cover


def menu_sheet_html(encounters: list[Listed], current_id: str, locked: set[str], theme: str, skip_down: str, trash: list[dict[str, Any]],
                    system: str = "generic", storage: str = "unknown", now: float = 0.0, backup_at: float | None = None,
                    safari_tab: bool = False) -> str:
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
        f'<p class="muted" data-testid="backup-age">{esc(backup_words(backup_at, now))}</p>'
        + (f'<p data-testid="add-to-home"><b>Add to Home Screen</b> (Share → Add to Home Screen): {esc(HOME_SCREEN_WHY)}</p>'
           if safari_tab else "")
        + '<h3>Look and help</h3><div class="grid2">'
        '<label class="field">Theme (Auto: as the phone)<select id="theme-pick" data-action-change="theme-picked" data-testid="theme-pick">'
        + "".join(f'<option value="{value}"{" selected" if theme == value else ""}>{label}</option>'
                  for value, label in (("system", "Auto"), ("light", "Light"), ("dark", "Dark")))
        + '</select></label>'
        '<a class="button-like" href="./rules.html" target="_blank" rel="noopener" data-testid="rules-link">Rules reference</a></div>'
        '<p class="err" id="menu-error" data-testid="menu-error" role="alert"></p>'
        '<div class="row"><button type="button" data-action="close-sheet">Close</button></div>'
    )
