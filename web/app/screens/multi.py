"""What the three multi-target panels share (the d20 save panel, Enchanted Realms' area effect,
Realm of Strife's power: web/app/screens/save.py, area.py, power.py): the targets' toggles, the odds
list's hint or error, the rolled result or "Applied", the Apply row and the panel's end."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from pyengine.model import Action, Combatant
from web.app.html import esc
from web.app.render import hp_html

__all__ = ["target_toggles", "odds_list", "result_html", "panel_end", "APPLY_ROW", "NO_TARGETS"]

APPLY_ROW = '<div class="row"><button type="button" class="primary" data-action="apply-saves" data-testid="apply-saves">Apply</button></div>'
NO_TARGETS = '<p class="muted" data-testid="save-odds-empty">Tick the targets: each one\'s odds show here.</p>'


def target_toggles(combatants: Iterable[Combatant], chosen: Iterable[str]) -> str:
    """A toggle per possible target (its name and HP), ticked when chosen."""
    picked = set(chosen)
    return "".join(
        f'<label class="check toggle"><input type="checkbox" class="save-target" value="{esc(c.id)}" data-combatant-id="{esc(c.id)}" '
        f'data-action-change="save-config" data-testid="save-target"{" checked" if c.id in picked else ""}> {esc(c.name)} '
        f'<span class="muted">{esc(hp_html(c))}</span></label>' for c in combatants)


def odds_list(rows: str, error: str, chosen: bool) -> str:
    """The odds' rows; the reason there are none (the effect unreadable); or the hint to tick targets."""
    if error and chosen:
        return f'<p class="err" data-testid="save-error">{esc(error)}</p>'
    return rows or NO_TARGETS


def result_html(config: dict[str, Any], results: Callable[[Action], str], what: str) -> str:
    """The rolled action's results (with Apply), or, once applied, what Undo takes back."""
    pending = config.get("pending")
    if isinstance(pending, Action):
        return results(pending)
    return f'<p class="muted" data-testid="save-applied">Applied: Undo takes the whole {esc(what)} back.</p>' if config.get("applied") else ""


def panel_end(odds_title: str, odds: str, roll: str, result: str) -> str:
    """The odds, the Roll row, the result, the error line and Close."""
    return (f'<h4>{esc(odds_title)}</h4><div data-testid="save-odds-list">{odds}</div>' + roll + result
            + '<p class="err" id="sheet-error" data-testid="sheet-error" role="alert"></p>'
            + '<div class="row"><button type="button" data-action="close-sheet">Close</button></div>')
