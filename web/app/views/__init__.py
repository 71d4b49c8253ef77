"""One view per game system: what its screen adds to the generic one, behind one protocol.

`render.py` draws the core screens (turn order, sheets, menu) and asks the encounter's view for the
system's parts: chips on a row, a panel under whose turn it is, start options, the combatant
sheet's own section, how the add form's stats are read, and the `data-action`s the view handles.
A view module is imported the first time a fight of its system is shown, so start-up does not
grow with the number of systems. A new system's view is one module here and one line in VIEWS.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any, Protocol

from pyengine.dice import Rng
from pyengine.documents import Listed
from pyengine.errors import EngineError, UnsetDefenceError
from pyengine.model import Combatant, Encounter, Event
from pyengine.rules import System, system_of
from web.app.html import esc, stat_fields_html
from web.app.messages import Message
from web.app.model import Model

__all__ = ["attack_error_html", "PRACTICE_HINT", "Page", "datum", "Events", "Handler", "View", "VIEWS", "view_for", "register_view", "attacker_choice"]


class Page(Protocol):
    """What an event handler reads to make its message (web/app/screens: EVENTS): the tapped element's
    data, the page's inputs, the UI state's attack panel, and what a message takes from the runtime
    (the dice generator, the clocks, fresh ids, the list of encounters). The runtime's is the DOM's;
    the unit tests pass a dictionary of inputs."""

    @property
    def model(self) -> Model:
        """The page's state when the event came."""
        ...

    @property
    def attack(self) -> dict[str, Any]:
        """The attack panel's choices (the model's UI state)."""
        ...

    @property
    def rng(self) -> Rng: ...

    @property
    def typing(self) -> bool:
        """The event came from a text or number field (its sheet is redrawn a moment later)."""
        ...

    def data(self, key: str) -> str | None:
        """The tapped element's data-<key> (None: it has none)."""
        ...

    @property
    def chosen(self) -> str:
        """The value of the element the event came from (a select's choice, a field's text)."""
        ...

    def value(self, node_id: str, default: str = "") -> str: ...

    def number(self, text: str | None, default: int | None = None) -> int | None: ...

    def checked(self, selector: str) -> list[str]:
        """The values of the ticked boxes that match `selector`."""
        ...

    def ticked(self, node_id: str) -> bool:
        """Whether the box of this id is there and ticked."""
        ...

    def exists(self, node_id: str) -> bool: ...

    def attribute(self, selector: str, name: str) -> str | None:
        """The attribute `name` of the first element that matches `selector` (None: no such element)."""
        ...

    def fields(self, selector: str, key: str) -> list[tuple[str, str, bool, str]]:
        """(its `key` attribute, value, ticked, type) of every input that matches `selector`, in page order."""
        ...

    def prompt(self, question: str, default: str) -> str | None:
        """Ask for a line of text (None: cancelled)."""
        ...

    def now_ms(self) -> int:
        """The wall clock, in ms since 1970 (a roll's time in the history)."""
        ...

    def monotonic(self) -> float:
        """Seconds on a clock that only goes forward (the Next-turn guard)."""
        ...

    def new_id(self) -> str:
        """A fresh id, not taken by any stored encounter."""
        ...

    @property
    def encounters(self) -> tuple[Listed, ...]:
        """The list of encounters (id, name, where each came from)."""
        ...

    @property
    def locked(self) -> frozenset[str]:
        """Encounters saved by a newer version of the app (never written)."""
        ...

    @property
    def servers(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The live table's relays and STUN servers (the page's `relays` / `stun`, else the defaults)."""
        ...

    @property
    def nostr(self) -> tuple[str, ...]:
        """The live table's Nostr relays (the page's `nostr`, else this phone's settings, else the defaults)."""
        ...


PRACTICE_HINT = ('<p class="muted" data-testid="practice-hint">Type the target\'s defences above, as the game master tells '
                 'them: the exact odds and the Roll button come next.</p>')


def attack_error_html(error: EngineError, cfg: dict[str, Any]) -> str:
    """An attack panel's refusal, said in red; in a player's practice (`cfg["practice"]`), a target
    whose defence is not typed yet is told what to type instead (issue 50, item 2)."""
    if cfg.get("practice") and isinstance(error, UnsetDefenceError):
        return PRACTICE_HINT
    return f'<p class="err" data-testid="attack-error">{esc(error)}</p>'


def datum(page: Page, key: str) -> str:
    """The tapped element's data-<key>, "" when it has none (an id that names nobody: the rules refuse it)."""
    return page.data(key) or ""


Events = Message | tuple[Message, ...] | None  # what a handler answers: a message, several in order, or none
Handler = Callable[[Page], Events]


def attacker_choice(enc: Encounter, target: Combatant, chosen: object, default: str | None = None) -> tuple[str, str] | None:
    """An attack panel's attacker: the one chosen on the panel, else `default` (or whoever's turn
    it is; on a group's turn its first member still standing) unless that is on the target's own
    side, else the first foe of the target still standing; with the select's HTML. An ally never
    attacks by default (a PC tapped on its own turn is not attacked by its friend). None: nobody else."""
    creature = system_of(enc).is_creature
    others = [x for x in enc.combatants if x.id != target.id and creature(x)]
    if not others or not creature(target):
        return None
    ids = {x.id for x in others}
    down = system_of(enc).is_down
    acting = default if default in ids else enc.active_id if enc.active_id in ids else None
    if acting is not None:
        me = enc.get(acting)
        if me.group and down(me):
            acting = next((x.id for x in others if x.group == me.group and not down(x)), acting)
        if enc.get(acting).side == target.side:
            acting = None
    fallback = (acting or next((x.id for x in others if x.side != target.side and not down(x)), None)
                or next((x.id for x in others if not down(x)), others[0].id))
    attacker_id = chosen if isinstance(chosen, str) and chosen in ids else fallback
    options = "".join(f'<option value="{esc(x.id)}"{" selected" if x.id == attacker_id else ""}>{esc(x.name)}{" (down)" if down(x) else ""}</option>'
                      for x in others)
    attacker = enc.get(attacker_id)
    # A combatant that is down chosen as the attacker (issue 51): said, the roll left to the table.
    warning = (f'<p class="warn small" data-testid="attacker-down">{esc(attacker.name)} is down ({esc(system_of(enc).hp_label)} '
               f'{attacker.hp}): a combatant that is down makes no attack, unless your table says otherwise.</p>') if down(attacker) else ""
    return attacker_id, (f'<label class="field">Attacker<select id="atk-attacker" data-attack-key="attacker" data-action-change="attack-config" '
                         f'data-testid="attack-attacker">{options}</select></label>{warning}')


class View:
    """The generic view, and the base of every system's: override only what the system changes."""

    attack_button = False            # an "Attack…" button next to whose turn it is
    end_label = "End fight"
    init_label = "Initiative modifier"
    typed_initiative = True          # the add form takes a typed initiative roll
    fields_note = ""                 # a line under the system's own fields on the add form
    flag_chips = True                # show per-turn flags as chips on a row
    down_label = "down"              # the chip of a combatant the system counts as down
    events: dict[str, Handler] = {}  # data-action -> handler, for this system's own buttons
    weapon_fields: tuple[str, ...] = ()  # stats a player's named attack sets (its weapon), on "My characters"
    target_fields: tuple[str, ...] = ()  # stats the game master tells about a target, for a player's attack
    creature_library = False         # the add form searches the system's creature library (generic d20: the SRD's)

    def row_chips(self, enc: Encounter, c: Combatant) -> str:
        """Chips after a combatant's name, beyond its conditions and flags."""
        return ""

    def now_actions(self, enc: Encounter, active: Combatant | None) -> str:
        """The buttons after "Now: …" for whoever acts: Attack… where the system has attacks."""
        return ('<button type="button" class="act" data-action="attack-last" data-testid="attack-open">Attack…</button>'
                if self.attack_button else "")

    def add_extras(self, enc: Encounter) -> str:
        """What the add form offers beyond a combatant (the generic system's lair)."""
        return ""

    def turn_panel(self, enc: Encounter) -> str:
        """A panel under "Now: …" (the turn's parts, a reminder)."""
        return ""

    def start_options(self, enc: Encounter) -> str:
        """Choices shown before the fight starts."""
        return ""

    def start_args(self, page: Page) -> dict[str, Any]:
        """The start request's arguments read from those choices."""
        return {}

    def sheet_html(self, enc: Encounter, c: Combatant, attack: dict[str, Any], events: list[Event]) -> str:
        """The system's part of a combatant's sheet, when it is one section."""
        return ""

    def attack_html(self, enc: Encounter, target: Combatant, attack: dict[str, Any]) -> str:
        """The attack panel alone (odds first, then a rolled result): a target's sheet shows it, and
        so does a player's attack from "My characters", on a practice encounter."""
        return ""

    def sheet_sections(self, enc: Encounter, c: Combatant, attack: dict[str, Any], events: list[Event]) -> list[tuple[str, str, str]]:
        """The system's parts of a combatant's sheet as (key, label, HTML), shown one at a time (the
        first by default): a long sheet stays short, and a result shows next to its button."""
        html = self.sheet_html(enc, c, attack, events)
        return [("main", "", html)] if html else []

    def fields_html(self, system: System, c: Combatant | None) -> str:
        """The system's own stats on the add / edit form."""
        return stat_fields_html(system.stat_fields, c, self.fields_note)

    def stats_from_form(self, system: System, page: Page, editing: bool) -> dict[str, Any] | None:
        """The system's own stats as typed on the add / edit form (None: the system has none)."""
        if not system.stat_fields:
            return None
        stats: dict[str, Any] = {}
        for f in system.stat_fields:
            if f.kind == "flag":
                stats[f.key] = bool(page.checked(f"#f-stat-{f.key}"))
            elif f.kind == "text":
                stats[f.key] = page.value(f"f-stat-{f.key}").strip()
            else:
                stats[f.key] = page.number(page.value(f"f-stat-{f.key}"), f.default)
        return stats

    def read_attack_config(self, page: Page, config: dict[str, Any]) -> dict[str, Any]:
        """The attack panel's choices (`config`: every `data-attack-key` input, read by the page),
        with what the system's own inputs add (Enchanted Realms' skill boxes)."""
        return config

    def flag_html(self, c: Combatant) -> str:
        if not self.flag_chips:
            return ""
        return "".join(f'<span class="chip flag">{esc(f.replace("_", " "))}</span>' for f in c.flags if f != "done")


GENERIC = View()

# system name -> the module holding its view (imported when first needed)
VIEWS: dict[str, str] = {
    "generic": "web.app.views.generic",
    "laurels": "web.app.views.laurels",
    "realms": "web.app.views.realms",
    "strife": "web.app.views.strife",
}
_LOADED: dict[str, View] = {}


def register_view(name: str, view: View) -> None:
    """A view defined elsewhere (a test's system): used as it is, nothing to import."""
    _LOADED[name] = view


def view_for(system: str) -> View:
    view = _LOADED.get(system)
    if view is None:
        module = VIEWS.get(system)
        view = importlib.import_module(module).VIEW if module else GENERIC
        _LOADED[system] = view
    return view
