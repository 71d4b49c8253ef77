"""Entry point run by PyScript: build the app, wire the page's events, say the engine is ready."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from pyscript import document, window

from pyengine.characters import Character, validated_config, validated_stats
from pyengine.errors import EngineError
from pyengine.rules import get_system, system_of
from pyengine.text import clean_text

from . import characters, dom
from .app import App
from .dom import JsObject
from .messages import (
    Act,
    BatchApplied,
    CharacterDeleted,
    CharacterRestored,
    CharacterSaved,
    CombatantAdded,
    DiceTyped,
    EncounterCopied,
    EncounterCreated,
    EncounterDeleted,
    EncounterRestored,
    HistoryCleared,
    HitPointsTyped,
    InitiativeEntered,
    NextTurnTapped,
    NoticeDismissed,
    QuickAdded,
    QuickDieTapped,
    RedoTapped,
    RollSaved,
    SavedRollDeleted,
    SavedRollRestored,
    SavedRollTapped,
    SectionPicked,
    SelectingToggled,
    SelectionToggled,
    StartTapped,
    UndoTapped,
)
from .model import NEXT_TURN_GUARD
from .persist import (
    COLLECTIONS,
    INDEX,
    Notice,
    export_all,
    export_encounter,
)
from .update import typed_number
from .views import view_for

app: App | None = None


def _app() -> App:
    """The page's app, once `start()` made it (events are wired only after that)."""
    assert app is not None
    return app


class Page:
    """What a handler gets (views.Page): the tapped element's data, the page's inputs, the app."""

    def __init__(self, a: App, node: JsObject) -> None:
        self.app = a
        self.node = node

    @property
    def attack(self) -> dict[str, Any]:
        return self.app.ui.attack

    def data(self, key: str) -> Any:
        return dom.py(self.node.getAttribute(f"data-{key}")) if self.node is not None else None

    def value(self, node_id: str, default: str = "") -> str:
        return dom.value(node_id, default)

    def number(self, text: Any, default: int | None = None) -> int | None:
        return typed_number(text, default)

    def checked(self, selector: str) -> list[str]:
        return [str(n.value) for n in document.querySelectorAll(selector) if n.checked]

    def attribute(self, selector: str, name: str) -> str | None:
        node = document.querySelector(selector)
        return None if node is None else str(node.getAttribute(name))

    def act(self, kind: str, args: dict[str, Any] | None = None) -> bool:
        return self.app.act(kind, args)

    def apply_attack(self) -> None:
        self.app.apply_attack()


def _form_fields(page: Page, editing: bool) -> dict[str, Any]:
    fields = {
        "name": dom.value("f-name"),
        "side": dom.value("f-side", "opponents"),
        "pc": dom.value("f-pc") == "1",
        "init_mod": typed_number(dom.value("f-init_mod"), 0),
        "max_hp": typed_number(dom.value("f-max_hp")),
        "notes": dom.value("f-notes"),
    }
    initiative = typed_number(dom.value("f-initiative"))
    if initiative is not None or editing:
        fields["initiative"] = initiative
    if editing:
        fields["hp"] = typed_number(dom.value("f-hp"))
    enc = page.app.timeline.present
    stats = view_for(enc.system).stats_from_form(system_of(enc), page, editing)
    if stats is not None:
        fields["stats"] = stats
    return fields


# -- click actions: data-action -> handler (a system's own come from its view) ------------------
Handler = Callable[[Page], None]
HANDLERS: dict[str, Handler] = {}


def on(*actions: str) -> Callable[[Handler], Handler]:
    def register(handler: Handler) -> Handler:
        for action in actions:
            HANDLERS[action] = handler
        return handler
    return register


def _start_args(page: Page) -> dict[str, Any]:
    enc = page.app.timeline.present
    return {} if enc.started else view_for(enc.system).start_args(page)


@on("next-turn")
def _next_turn(page: Page) -> None:
    """Next turn; before the fight, Start fight (first the initiative step, where it has one)."""
    page.app.dispatch(NextTurnTapped(time.monotonic(), page.app.rng, _start_args(page)))


@on("start-combat")
def _start(page: Page) -> None:
    page.app.dispatch(StartTapped(page.app.rng, _start_args(page)))


def _initiative_entered(page: Page) -> None:
    """The fight starts with the typed numbers, the rest rolled."""
    typed = {}
    for node in document.querySelectorAll("[data-testid=init-input]"):
        value = typed_number(node.value)
        if value is not None:
            typed[str(node.getAttribute("data-combatant-id"))] = value
    page.app.dispatch(InitiativeEntered(typed, page.app.rng, _start_args(page)))


@on("undo", "toast-undo")
def _undo(page: Page) -> None:
    page.app.dispatch(UndoTapped(from_toast=page.data("action") == "toast-undo"))


@on("redo")
def _redo(page: Page) -> None:
    page.app.dispatch(RedoTapped())


@on("attack-last")
def _attack_last(page: Page) -> None:
    page.app.open_attack_sheet()


@on("select-mode")
def _select_mode(page: Page) -> None:
    page.app.dispatch(SelectingToggled())


@on("toggle-select")
def _toggle_select(page: Page) -> None:
    page.app.dispatch(SelectionToggled(str(page.data("id"))))


@on("apply-selected")
def _apply_selected(page: Page) -> None:
    page.app.open_sheet("selected")


@on("apply-batch")
def _apply_batch(page: Page) -> None:
    """One amount (half for those whose box is ticked) or one condition, for every selected combatant: one step."""
    page.app.dispatch(BatchApplied(str(page.data("kind")), page.app.rng, amount=dom.value("batch-amount"),
                                   halves=tuple(page.checked("#sheet-body input.half")), condition=dom.value("batch-condition")))


@on("pick-section")
def _pick_section(page: Page) -> None:
    page.app.dispatch(SectionPicked(str(page.data("section"))))


@on("act-now")
def _act_now(page: Page) -> None:
    page.act("act_now", {"id": page.data("id")})


@on("attack-roll")
def _attack_roll(page: Page) -> None:
    page.app.roll_attack(page.data("id"))


@on("attack-apply")
def _attack_apply(page: Page) -> None:
    page.app.apply_attack()


@on("reroll-all")
def _reroll_all(page: Page) -> None:
    page.act("start_combat", {"reroll_all": True})


@on("end-combat")
def _end_combat(page: Page) -> None:
    page.act("end_combat")


@on("add")
def _open_add(page: Page) -> None:
    page.app.open_sheet("add")


@on("open-combatant")
def _open_combatant(page: Page) -> None:
    page.app.open_sheet("combatant", page.data("id"))


@on("edit")
def _open_edit(page: Page) -> None:
    page.app.open_sheet("edit", page.data("id"))


@on("close-sheet")
def _close_sheet(page: Page) -> None:
    page.app.close_sheet()


@on("quick-add")
def _quick_add(page: Page) -> None:
    a = page.app
    roster = page.data("source") == "roster"
    source = a.ws.roster if roster else a.ws.templates
    index = int(page.data("index"))
    if 0 <= index < len(source):
        a.dispatch(QuickAdded(roster, dict(source[index]), a.rng))


@on("remove")
def _remove(page: Page) -> None:
    page.app.dispatch(Act("remove_combatant", {"id": page.data("id")}, page.app.rng, close_sheet=True))


@on("damage", "heal", "temp")
def _hit_points(page: Page) -> None:
    kind = {"damage": "damage", "heal": "heal", "temp": "temp_hp"}[str(page.data("action"))]
    page.app.dispatch(HitPointsTyped(kind, str(page.data("id")), dom.value("hp-amount"), page.app.rng))


@on("add-condition")
def _add_condition(page: Page) -> None:
    page.act("add_condition", {
        "id": page.data("id"), "name": dom.value("cond-name"), "until": dom.value("cond-until", "never"),
        "rounds": typed_number(dom.value("cond-rounds"), 1), "anchor": dom.value("cond-anchor") or None,
        "source": page.app.timeline.present.active_id,
    })


@on("remove-condition")
def _remove_condition(page: Page) -> None:
    page.act("remove_condition", {"id": page.data("id"), "condition": page.data("condition")})


@on("delay")
def _delay(page: Page) -> None:
    page.app.dispatch(Act("delay", {"id": page.data("id"), "after": dom.value("delay-after")}, page.app.rng, close_sheet=True))


@on("open-menu")
def _open_menu(page: Page) -> None:
    page.app.open_sheet("menu")


@on("switch-encounter")
def _switch(page: Page) -> None:
    page.app.load_encounter(page.data("id"))
    page.app.close_sheet()


@on("new-encounter")
def _new_encounter(page: Page) -> None:
    a = page.app
    a.dispatch(EncounterCreated(dom.value("new-system") or None, a.persistence.new_id(), len(a.ws.encounters)))


@on("duplicate-encounter")
def _duplicate(page: Page) -> None:
    page.app.dispatch(EncounterCopied(page.app.persistence.new_id()))


@on("rename-encounter")
def _rename(page: Page) -> None:
    name = dom.py(window.prompt("Name of this encounter", page.app.timeline.present.name))
    if name is not None:
        page.act("rename", {"name": str(name)})


@on("delete-encounter")
def _delete(page: Page) -> None:
    a = page.app
    left = sum(1 for e in a.ws.encounters if e["id"] != a.timeline.present.id)
    a.dispatch(EncounterDeleted(a.persistence.new_id(), left))


@on("restore-encounter")
def _restore(page: Page) -> None:
    page.app.dispatch(EncounterRestored(int(page.data("index"))))


@on("export-current")
def _export_current(page: Page) -> None:
    dom.download(f"roundkeeper-{_slug(page.app.timeline.present.name)}.json", export_encounter(page.app.timeline))


@on("export-all", "notice-export-all")
def _export_all(page: Page) -> None:
    dom.download("roundkeeper-all.json", export_all(page.app.ws, page.app.persistence))


@on("share-link")
def _share_link(page: Page) -> None:
    """The link goes into a field that fits the screen, selected, and to the clipboard when the browser lets us."""
    field = dom.el("share-field")
    if field is None:
        return
    link = page.app.share_link(dom.value("share-for", "view") or "view")
    field.value = link
    _copy_share(page)
    asyncio.ensure_future(page.app.show_qr(link))


@on("copy-share")
def _copy_share(page: Page) -> None:
    _copy_field("share-field", "share-out")


def _copy_field(field_id: str, out_id: str) -> None:
    """A link in a read-only field: selected, and to the clipboard when the browser lets us."""
    field, out = dom.el(field_id), dom.el(out_id)
    if field is None or not str(field.value):
        return
    field.select()

    def told(text: str) -> JsObject:
        def say(*_: Any) -> None:
            if out is not None:
                out.textContent = text
        return dom.proxy(say)

    clipboard = getattr(window.navigator, "clipboard", None)
    if clipboard is None:
        told("Copy the link from the field (long-press it).")()
        return
    # Clipboard access may be refused: the link stays in the field, selected, either way.
    clipboard.writeText(str(field.value)).then(told("Copied: paste it to the other phone.")).catch(
        told("Copy the link from the field (long-press it)."))


# -- my characters -------------------------------------------------------------------------------

def _checked(node_id: str) -> bool:
    node = dom.el(node_id)
    return bool(node is not None and node.checked)


@on("my-characters")
def _my_characters(page: Page) -> None:
    page.app.open_sheet("characters")


@on("new-character")
def _new_character(page: Page) -> None:
    page.app.open_sheet("character-edit", "new:" + (dom.value("new-character-system") or "generic"))


@on("edit-character")
def _edit_character(page: Page) -> None:
    page.app.open_sheet("character-edit", page.data("id"))


@on("open-character")
def _open_character(page: Page) -> None:
    page.app.open_character(page.data("id"))


@on("character-attack")
def _character_attack(page: Page) -> None:
    page.app.open_character(page.data("id"), typed_number(page.data("index")))


def _edited() -> tuple[str, Character | None]:
    """The system and the character of the open edit form (None: a new one)."""
    sheet = _app().ui.sheet
    ident = str(sheet[1] if sheet is not None else "")
    if ident.startswith("new:"):
        return ident[4:], None
    c = _app().character(ident)
    if c is None:
        raise EngineError("That character is gone (deleted in another tab?).")
    return c.system, c


@on("save-character", "save-attack")
def _save_character(page: Page) -> None:
    """The form as one character; Save attack also adds (or, by name, replaces) the attack typed below."""
    a = page.app
    ident = str(a.ui.sheet[1] if a.ui.sheet is not None else "")
    edited = None if ident.startswith("new:") else ident
    c = a.character(edited) if edited is not None else None
    system = ident[4:] if edited is None else (c.system if c is not None else "generic")
    fields = get_system(system).stat_fields
    weapon_keys = view_for(system).weapon_fields
    own = tuple(f for f in fields if f.key not in weapon_keys)
    weapon = tuple(f for f in fields if f.key in weapon_keys)
    attack = None
    if str(page.node.getAttribute("data-action")) == "save-attack":
        attack = (dom.value("a-name"), characters.read_stats(weapon, "a", dom.value, _checked))
    a.dispatch(CharacterSaved(system, edited, a.new_character_id(), dom.value("k-name"), dom.value("k-max_hp"), dom.value("k-init_mod"),
                              characters.read_stats(own, "k", dom.value, _checked), attack))


@on("pick-attack")
def _pick_attack(page: Page) -> None:
    """An attack of the list into the attack form below, to change it (the same name replaces it)."""
    try:
        system, c = _edited()
    except EngineError:
        return
    chosen = c.attack(typed_number(page.data("index"), -1) or 0) if c else None
    if c is None or chosen is None:
        return
    dom.el("a-name").value = chosen.name
    view = view_for(system)
    for f in get_system(system).stat_fields:
        node = dom.el(f"a-stat-{f.key}")
        if node is None or f.key not in view.weapon_fields:
            continue
        value = chosen.stats.get(f.key, c.stats.get(f.key, f.default))
        if f.kind == "flag":
            node.checked = bool(value)
        else:
            node.value = "" if value is None else str(value)
    dom.el("a-name").focus()


@on("remove-attack")
def _remove_attack(page: Page) -> None:
    a = page.app
    try:
        _, c = _edited()
    except EngineError as error:
        a.error(str(error))
        return
    index = typed_number(page.data("index"), -1)
    if c is None or index is None or c.attack(index) is None:
        return
    a.store_character(replace(c, attacks=c.attacks[:index] + c.attacks[index + 1:]))
    a.render_sheet()


@on("delete-character")
def _delete_character(page: Page) -> None:
    page.app.dispatch(CharacterDeleted(str(page.data("id"))))


@on("notice-undelete-character")
def _undelete_character(page: Page) -> None:
    page.app.dispatch(CharacterRestored())


@on("save-attack-options")
def _save_attack_options(page: Page) -> None:
    """The attack panel's options as they are now, kept in the chosen named attack."""
    a = page.app
    c = a.character(a.ui.sheet[1] if a.ui.sheet else None)
    index = a.ui.practice.get("attack")
    chosen = c.attack(index) if c is not None and isinstance(index, int) else None
    if c is None or chosen is None:
        return
    try:
        config = validated_config({k: v for k, v in a.ui.attack.items() if k not in ("pending", "attacker", "target")})
    except EngineError as error:
        a.error(str(error))
        return
    attacks = list(c.attacks)
    attacks[index] = replace(chosen, config=config)  # type: ignore[index]
    a.store_character(replace(c, attacks=tuple(attacks)))
    a.toast(f"{chosen.name} keeps these options.")


@on("copy-character")
def _copy_character(page: Page) -> None:
    _copy_field("character-link", "character-out")


@on("import-character")
def _import_character(page: Page) -> None:
    """A pasted code or link: offered like a link (add to the open fight, or keep in My characters)."""
    a = page.app
    a.offer_character(dom.value("character-code"), from_link=False)
    if a.ui.pending_character is not None:
        a.close_sheet()


@on("notice-add-character")
def _add_character(page: Page) -> None:
    page.app.take_character(into_fight=True)


@on("notice-keep-character")
def _keep_character(page: Page) -> None:
    page.app.take_character(into_fight=False)


def _practice_target(a: App, target: JsObject) -> None:
    """What the game master says about the target, read whole from the character's screen."""
    c = a.character(a.ui.sheet[1] if a.ui.sheet else None)
    if c is None:
        return
    fields = tuple(f for f in get_system(c.system).stat_fields if f.key in view_for(c.system).target_fields)
    try:
        stats = validated_stats(fields, characters.read_stats(fields, "t", dom.value, _checked), get_system(c.system).label)
        hp = typed_number(dom.value("t-hp"))
        wanted = typed_number(dom.value("t-at_least"))
        name = clean_text(dom.value("t-name"))[:60] or "Target"
    except EngineError as error:
        a.error(str(error))
        return
    a.update("target-described", target=stats, hp=hp if hp is None or hp > 0 else None, name=name,
             at_least=wanted if wanted is None or 0 <= wanted <= 1_000_000 else None)
    if str(target.type) in ("text", "number"):
        a.schedule_sheet()
    else:
        a.render_sheet()


@on("toggle-theme")
def _toggle_theme(page: Page) -> None:
    root = document.documentElement
    theme = "light" if (root.dataset.theme or "dark") == "dark" else "dark"
    root.dataset.theme = theme
    if page.app.persistent:
        page.app.store.set("theme", theme)
    page.app.render_sheet()


@on("dismiss")
def _dismiss(page: Page) -> None:
    page.app.dispatch(NoticeDismissed(int(page.data("index"))))


@on("notice-reload")
def _reload(page: Page) -> None:
    window.location.reload()


@on("notice-trim-history")
def _trim(page: Page) -> None:
    page.app.trim_history()


@on("notice-undelete")
def _undelete(page: Page) -> None:
    page.app.dispatch(EncounterRestored(-1))


@on("notice-open-share")
def _open_share(page: Page) -> None:
    page.app.open_shared()


@on("notice-replace-share")
def _replace_share(page: Page) -> None:
    page.app.open_shared(replace_earlier=True)


@on("quick")
def _quick_die(page: Page) -> None:
    page.app.dispatch(QuickDieTapped(str(page.data("expr")), dom.value("dice-input")))


@on("save-roll")
def _save_roll(page: Page) -> None:
    page.app.dispatch(RollSaved(dom.value("dice-input"), dom.value("save-name")))


@on("roll-saved")
def _roll_saved(page: Page) -> None:
    page.app.dispatch(SavedRollTapped(int(page.data("index")), page.app.rng, int(time.time() * 1000)))


@on("delete-saved")
def _delete_saved(page: Page) -> None:
    page.app.dispatch(SavedRollDeleted(int(page.data("index"))))


@on("notice-undelete-roll")
def _undelete_roll(page: Page) -> None:
    page.app.dispatch(SavedRollRestored())


@on("clear-history")
def _clear_history(page: Page) -> None:
    page.app.dispatch(HistoryCleared())


def handle(action: str, node: JsObject) -> None:
    """Find the tap's handler (the core's, else the encounter's view's) and run it."""
    a = _app()
    handler = HANDLERS.get(action) or view_for(a.timeline.present.system).events.get(action)
    if handler is not None:
        handler(Page(a, node))


def _slug(name: str) -> str:
    return "".join(ch if ch.isalnum() else "-" for ch in name.lower()).strip("-")[:40] or "encounter"


def submit(form_action: str, form: JsObject) -> None:
    a = _app()
    if form_action == "roll":
        a.do_roll(dom.value("dice-input"))
        return
    page = Page(a, form)
    if form_action == "init-start":
        _initiative_entered(page)
    elif form_action == "save-add":
        remember = dom.el("f-remember") is not None and bool(dom.el("f-remember").checked)
        count = typed_number(dom.value("f-count"), 1)
        a.dispatch(CombatantAdded(_form_fields(page, editing=False), 1 if count is None else count, remember, a.rng))
    elif form_action == "save-edit":
        cid = dom.py(form.getAttribute("data-id"))
        a.dispatch(Act("update_combatant", {"id": cid, "fields": _form_fields(page, editing=True)}, a.rng, close_sheet=True))


def on_click(event: JsObject) -> None:
    node = dom.py(event.target.closest("[data-action]"))
    if node is None or node.hasAttribute("disabled"):
        return
    try:
        handle(node.getAttribute("data-action"), node)
    except EngineError as error:
        _app().error(str(error))


def on_submit(event: JsObject) -> None:
    form = event.target
    action = dom.py(form.getAttribute("data-action-submit"))
    if not action:
        return
    event.preventDefault()
    try:
        submit(action, form)
    except EngineError as error:
        _app().error(str(error))


def on_input(event: JsObject) -> None:
    target = event.target
    if target.id == "dice-input":
        _app().dispatch(DiceTyped())  # typed by hand: the quick dice add to it; odds once typing stops
    elif target.id == "odds-target":
        _app().schedule_odds()


def _set_skip(a: App, target: JsObject) -> None:
    a.act("set_option", {"key": "skip_down", "value": target.value})


def _set_option(a: App, target: JsObject) -> None:
    value = str(target.value)
    a.act("set_option", {"key": str(target.getAttribute("data-key")), "value": int(value) if value.isdigit() else value})


def _attack_config(a: App, target: JsObject) -> None:
    """The attack panel's inputs, read whole into the UI state (a rolled attack not applied is dropped)."""
    sheet = dom.el("sheet-body")
    config = {}
    for node in sheet.querySelectorAll("[data-attack-key]"):
        key = str(node.getAttribute("data-attack-key"))
        config[key] = bool(node.checked) if str(node.type) == "checkbox" else (str(node.value) or None)
    config = view_for(a.panel_system()).read_attack_config(Page(a, target), config)
    a.update("attack-configured", config=config)
    if str(target.type) in ("text", "number"):
        a.schedule_sheet()  # typing then tapping a button: let the tap land before the sheet is redrawn
    else:
        a.render_sheet()


def _side_picked(a: App, target: JsObject) -> None:
    """Choosing Party makes a new combatant a player character (Opponents: not); it can be changed after."""
    pc = dom.el("f-pc")
    if pc is not None and dom.el("f-count") is not None:  # adding, not editing
        pc.value = "1" if str(target.value) == "party" else "0"


def _attack_target(a: App, target: JsObject) -> None:
    a.update("target-picked", ident=str(target.value))
    a.render_sheet()


CHANGES: dict[str, Callable[[App, object], None]] = {  # data-action-change -> handler
    "attack-target": _attack_target,
    "side-picked": _side_picked,
    "set-skip": _set_skip, "set-option": _set_option, "attack-config": _attack_config, "practice-target": _practice_target,
    "share-for": lambda a, target: _share_link(Page(a, None)),
}


def _on_hash_change(event: JsObject) -> None:
    _open_fragment()
    _app().render_notices()


def _open_fragment() -> None:
    """A link with a shared fight or a player's character: offered, never opened unasked (also when
    the link is opened on a page already running: only the part after # changed)."""
    fragment = str(window.location.hash or "")
    if fragment.startswith("#fight="):
        _app().offer_shared(fragment[len("#fight="):])
    elif fragment.startswith("#character="):
        _app().offer_character(fragment[len("#character="):])
    elif fragment.startswith("#view="):
        _app().open_view(fragment[len("#view="):])


def on_change(event: JsObject) -> None:
    target = event.target
    if target.id == "import-file" and target.files.length:
        asyncio.ensure_future(_app().import_file(target.files.item(0)))
        target.value = ""
        return
    handler = CHANGES.get(str(dom.py(target.getAttribute("data-action-change")) or ""))
    if handler is not None:
        handler(_app(), target)


def _next_initiative(event: JsObject) -> None:
    """Enter in an initiative field moves on to the next empty one; after the last, the fight starts."""
    event.preventDefault()
    inputs = list(document.querySelectorAll("[data-testid=init-input]"))
    at = next((i for i, n in enumerate(inputs) if n == event.target), len(inputs))
    empty = next((n for n in inputs[at + 1:] if not str(n.value).strip()), None)
    if empty is not None:
        empty.focus()
    else:
        dom.el("init-form").requestSubmit()


def on_key(event: JsObject) -> None:
    key = str(event.key)
    target = event.target
    if key == "Enter" and dom.py(target.getAttribute("data-testid")) == "init-input":
        _next_initiative(event)
        return
    if key in ("Enter", " ") and str(target.tagName) == "LI" and target.hasAttribute("data-action"):
        event.preventDefault()  # a focusable row (a combatant) answers Enter and Space like a button
        on_click(event)
        return
    tag = str(event.target.tagName or "").lower()
    if tag in ("input", "textarea", "select") or dom.el("sheet").open or event.defaultPrevented:
        return
    key = str(event.key).lower()
    ctrl = event.ctrlKey or event.metaKey
    if key == "n" and not ctrl:
        handle("next-turn", event.target)
    elif (key == "u" and not ctrl) or (key == "z" and ctrl and not event.shiftKey):
        event.preventDefault()
        handle("undo", event.target)
    elif (key == "z" and ctrl and event.shiftKey) or (key == "y" and ctrl):
        event.preventDefault()
        handle("redo", event.target)


def on_sheet_click(event: JsObject) -> None:
    """A tap on the backdrop (outside the sheet's box, which the dialog itself receives) closes it."""
    sheet = dom.el("sheet")
    if event.target == sheet:
        box = sheet.getBoundingClientRect()
        if not (box.left <= event.clientX <= box.right and box.top <= event.clientY <= box.bottom):
            _app().close_sheet()


SWIPE_PX = 80  # a downward swipe this long, started while the sheet is scrolled to its top, closes it
_swipe: dict[str, float] = {}


def on_sheet_touchstart(event: JsObject) -> None:
    sheet = dom.el("sheet")
    touch = event.changedTouches.item(0)
    if event.touches.length == 1 and sheet.scrollTop <= 0 and touch is not None:
        _swipe["y"], _swipe["x"] = float(touch.clientY), float(touch.clientX)
    else:
        _swipe.clear()


def on_sheet_touchend(event: JsObject) -> None:
    touch = event.changedTouches.item(0)
    if "y" not in _swipe or touch is None:
        return
    dy, dx = float(touch.clientY) - _swipe["y"], abs(float(touch.clientX) - _swipe["x"])
    _swipe.clear()
    if dy >= SWIPE_PX and dx < dy / 2:  # mostly down, like pulling the sheet away
        _app().close_sheet()


def on_storage(event: JsObject) -> None:
    key = dom.py(event.key)
    if key is None:
        return
    key = str(key)
    if not key.startswith(_app().prefix):
        return  # a sibling site at another path of this origin
    name = key[len(_app().prefix):]
    if name == f"enc:{_app().timeline.present.id}":
        _app().pick_up_other_tab()
    elif name in COLLECTIONS or name == INDEX:
        _app().pick_up_collection(name)


def on_visibility(event: JsObject) -> None:
    _app().wake_lock = None  # the browser releases it when hidden
    _app().update_wake_lock()


def on_log_toggle(event: JsObject) -> None:
    dom.forget("log")
    _app().render()


def _bench(name: JsObject, arg: JsObject = "") -> str:
    from . import bench  # only when the benchmark asks: keeps it off the start-up path

    return bench.hook(_app(), str(name), str(arg))


def start() -> None:
    global app
    rk = window.RK
    prefix = str(rk.prefix)
    store, status = dom.open_store(prefix)
    params = window.URLSearchParams.new(window.location.search)
    seed = dom.py(params.get("seed"))
    rng = random.Random(int(seed)) if seed is not None and str(seed).lstrip("-").isdigit() else random.Random()
    try:
        app = App(store, status, rng, prefix)
    except Exception as error:  # noqa: BLE001 - whatever is stored, the engine starts
        from .persist import MemoryStore

        app = App(MemoryStore(), "blocked", rng, prefix)
        app.notices.append(Notice("error", f"The saved data could not be loaded ({type(error).__name__}: {str(error)[:200]}). "
                                           "It is left untouched; this page runs without saving. Reload to try again."))

    tracker = dom.el("tracker")
    tracker.removeAttribute("inert")
    app.render()
    app.render_roller()
    window.performance.mark("rk:first-render")
    dom.on(document, "click", on_click)
    dom.on(document, "submit", on_submit)
    dom.on(document, "input", on_input)
    dom.on(document, "change", on_change)
    dom.on(document, "keydown", on_key)
    dom.on(window, "storage", on_storage)
    dom.on(document, "visibilitychange", on_visibility)
    dom.on(dom.el("log-box"), "toggle", on_log_toggle)
    dom.on(dom.el("sheet"), "close", lambda e: app.update("sheet-closed"))
    dom.on(dom.el("sheet"), "click", on_sheet_click)
    dom.on(dom.el("sheet"), "touchstart", on_sheet_touchstart)
    dom.on(dom.el("sheet"), "touchend", on_sheet_touchend)
    for node in (dom.el("undo"), dom.el("redo"), dom.el("next-turn")):
        node.setAttribute("data-action", node.id)
    app.render()
    _open_fragment()
    dom.on(window, "hashchange", _on_hash_change)
    app.update_wake_lock()
    app.first_run_hint()
    app.home_screen_hint()
    app.render_notices()
    asyncio.ensure_future(app.check_storage_kept(ask=False))
    app.ask_to_keep_storage()
    guard = dom.py(getattr(rk, "nextTurnGuardMs", None))
    app.next_turn_guard = NEXT_TURN_GUARD if guard is None else float(guard) / 1000
    rk.bench = dom.proxy(_bench)
    window.clearTimeout(rk.watchdog)
    document.getElementById("boot-error").classList.remove("show")
    document.documentElement.dataset.engine = "ready"
    rk.readyAt = window.performance.now()
    window.performance.mark("rk:ready")
