"""Generic d20 on screen: AC on the row and the sheet, and a dying player character's death saves
(rolled here, or told as a success or a failure when rolled at the table)."""

from __future__ import annotations

from pyengine.model import Combatant, Encounter, Event
from pyengine.systems.generic import DEATH_SAVES, dying

from ..html import esc
from . import Page, View

__all__ = ["VIEW", "GenericView"]


def _death_state(c: Combatant) -> str:
    if c.stat("dead"):
        return "dead"
    if c.stat("stable"):
        return "stable"
    successes, failures = int(c.stat_or("death_successes", 0)), int(c.stat_or("death_failures", 0))
    return f"dying {'✓' * successes}{'✗' * failures}".rstrip()


def _death_save(page: Page) -> None:
    page.act("death_save", {"id": page.data("id"), **({"result": page.data("result")} if page.data("result") else {})})


class GenericView(View):
    events = {"death-save": _death_save}

    def row_chips(self, enc: Encounter, c: Combatant) -> str:
        chips = ""
        if c.stat("ac") is not None:
            chips += f'<span class="chip ac" data-testid="ac">AC {esc(c.stat("ac"))}</span>'
        if c.pc and c.hp is not None and c.hp <= 0:
            chips += f'<span class="chip down" data-testid="death-state">{esc(_death_state(c))}</span>'
        return chips

    def sheet_html(self, enc: Encounter, c: Combatant, attack: dict, events: list[Event]) -> str:
        ac = f'<p data-testid="sheet-ac">AC <b>{esc(c.stat("ac"))}</b></p>' if c.stat("ac") is not None else ""
        if not (c.pc and c.hp is not None and c.hp <= 0):
            return ac
        successes, failures = int(c.stat_or("death_successes", 0)), int(c.stat_or("death_failures", 0))
        cid = esc(c.id)
        state = (f'<p data-testid="death-saves">Death saves: <b>{successes}</b>/{DEATH_SAVES} ✓ · <b>{failures}</b>/{DEATH_SAVES} ✗'
                 f' <span class="muted">({esc(_death_state(c))})</span></p>')
        buttons = ('<div class="grid3">'
                   f'<button type="button" class="primary" data-action="death-save" data-id="{cid}" data-testid="death-save-roll">Roll death save</button>'
                   f'<button type="button" data-action="death-save" data-result="success" data-id="{cid}" data-testid="death-save-success">Success</button>'
                   f'<button type="button" data-action="death-save" data-result="failure" data-id="{cid}" data-testid="death-save-failure">Failure</button>'
                   '</div>') if dying(c) else ""
        return ac + state + buttons


VIEW = GenericView()
