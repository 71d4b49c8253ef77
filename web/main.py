"""Entry point run by PyScript: build the app, wire the page's events, say the engine is ready."""

from __future__ import annotations

import asyncio
import random
import time

from pyscript import document, window

from pyengine.dice import roll
from pyengine.errors import EngineError
from pyengine.text import clean_text, quoted
from pyengine.tracker import validated_fields

from . import dom, render
from .app import NEXT_TURN_GUARD, App
from .persist import COLLECTIONS, INDEX, ROLLS, ROSTER, SAVED_ROLLS, TEMPLATES, Notice, export_all, export_encounter
from .quick import add_die, advantage

app: App | None = None


def _int(text: str, default: int | None = None) -> int | None:
    text = (text or "").strip()
    if not text:
        return default
    try:
        return int(text)
    except ValueError:
        raise EngineError(f"“{text[:20]}” is not a whole number.") from None


def _amount() -> int:
    amount = _int(dom.value("hp-amount"))
    if amount is None:
        raise EngineError("Type an amount first.")
    return amount


def _form_fields(editing: bool) -> dict:
    fields = {
        "name": dom.value("f-name"),
        "side": dom.value("f-side", "opponents"),
        "pc": dom.value("f-pc") == "1",
        "init_mod": _int(dom.value("f-init_mod"), 0),
        "max_hp": _int(dom.value("f-max_hp")),
        "notes": dom.value("f-notes"),
    }
    initiative = _int(dom.value("f-initiative"))
    if initiative is not None or editing:
        fields["initiative"] = initiative
    if editing:
        fields["hp"] = _int(dom.value("f-hp"))
    if app is not None and app.timeline.present.system == "strife":
        from pyengine.systems.strife import RESOURCES, STAT_FIELDS, STAT_FLAGS, STAT_TEXT

        stats = {key: _int(dom.value(f"f-stat-{key}"), default) for key, (_, default, _, _) in STAT_FIELDS.items()}
        stats.update({key: dom.value(f"f-stat-{key}").strip() for key in STAT_TEXT})
        stats.update({key: bool(dom.el(f"f-stat-{key}").checked) for key in STAT_FLAGS})
        if not editing:  # resources with a maximum start full
            stats.update({key: stats[f"{key}_max"] for key, (_, has_max) in RESOURCES.items() if has_max})
        fields["stats"] = stats
    if app is not None and app.timeline.present.system == "realms":
        from pyengine.systems.realms import STAT_FIELDS as ER_FIELDS, STAT_FLAGS as ER_FLAGS, STAT_TEXT as ER_TEXT

        stats = {key: _int(dom.value(f"f-stat-{key}"), default) for key, (_, default, _, _) in ER_FIELDS.items()}
        stats.update({key: dom.value(f"f-stat-{key}").strip() for key in ER_TEXT})
        stats.update({key: bool(dom.el(f"f-stat-{key}").checked) for key in ER_FLAGS})
        fields["stats"] = stats
    if app is not None and app.timeline.present.system == "laurels":
        from pyengine.systems.laurels import STAT_FIELDS, STAT_FLAGS

        stats = {key: _int(dom.value(f"f-stat-{key}"), default) for key, (_, default, _) in STAT_FIELDS.items()}
        stats.update({key: bool(dom.el(f"f-stat-{key}").checked) for key in STAT_FLAGS})
        fields["stats"] = stats
    return fields


def _start_args(enc) -> dict:
    soon = dom.el("battle-soon")
    return {"soon": bool(soon.checked)} if enc.system == "strife" and soon is not None else {}


# -- click actions -------------------------------------------------------------------------
def handle(action: str, node) -> None:
    a = app
    assert a is not None
    data = lambda key: dom.py(node.getAttribute(f"data-{key}"))  # noqa: E731
    enc = a.timeline.present
    if action == "next-turn":
        now = time.monotonic()
        if now - a.last_next_turn < a.next_turn_guard:
            return  # a double tap would skip a player's turn
        a.last_next_turn = now
        a.act("next_turn") if enc.started else a.act("start_combat", _start_args(enc))
    elif action == "toast-undo":
        a.hide_toast()
        if a.timeline.can_undo:
            a.commit(a.timeline.undo())
    elif action == "undo":
        if a.timeline.can_undo:
            a.commit(a.timeline.undo())
    elif action == "redo":
        if a.timeline.can_redo:
            a.commit(a.timeline.redo())
    elif action == "start-combat":
        a.act("start_combat", _start_args(enc))  # rolls for whoever has no initiative yet; typed rolls stay
    elif action == "ros-part":
        a.act("ros_part", {"id": data("id"), "part": data("part")})
    elif action == "ros-move":
        adjacent = [str(n.value) for n in dom.el("tracker").querySelectorAll("input.adjacent:checked")]
        a.act("ros_part", {"id": data("id"), "part": "move", "mode": dom.value("move-mode", "move"), "adjacent": adjacent})
    elif action == "er-stance":
        a.act("er_stance", {"id": data("id"), "stance": data("stance"), "trigger": dom.value("ready-trigger")})
    elif action == "er-save":
        cfg = a.attack
        a.act("er_save", {"id": data("id"), "kind": cfg.get("save_kind") or "body", "modifier": _int(cfg.get("save_mod"), 0),
                          "dc": _int(cfg.get("save_dc"), 12), "adv": bool(cfg.get("save_adv")), "dis": bool(cfg.get("save_dis")),
                          "cover": cfg.get("cover") or "none", "area": bool(cfg.get("save_area"))})
    elif action == "er-competition":
        cfg = a.attack
        other = cfg.get("comp_other") or dom.value("atk-comp_other")
        a.act("er_competition", {"aggressor": data("id"), "victim": other, "kind": cfg.get("comp_kind") or "grapple",
                                 "slick": bool(cfg.get("comp_slick"))})
    elif action == "er-impale":
        a.act("er_impale", {"holder": data("id"), "charger": data("charger")})
    elif action == "er-blind-shot":
        pending = a.attack.get("pending")
        if pending is not None:
            a.apply_attack()
            a.act("er_blind_shot", {"attacker": pending["attacker"], "target": pending["target"], "faces": list(pending["kept"]),
                                    "damage_type": pending.get("damage_type")})
    elif action == "er-chase":
        a.act("er_chase", {"id": data("id")})
    elif action == "er-defense":
        a.act("er_defense", {"monster": data("monster"), "pc": data("id")})
    elif action == "attack-last":
        a.open_attack_sheet()
    elif action == "ros-bottom":
        a.act("ros_bottom", {"id": data("id")})
    elif action == "ros-resource":
        a.act("ros_resource", {"id": data("id"), "key": data("key"), "delta": int(data("delta"))})
    elif action == "act-now":
        a.act("act_now", {"id": data("id")})
    elif action == "attack-roll":
        a.roll_attack(data("id"))
    elif action == "attack-apply":
        a.apply_attack()
    elif action == "parry":
        a.act("ll_parry", {"id": data("id"), "with": data("with")})
    elif action == "reroll-all":
        a.act("start_combat", {"reroll_all": True})
    elif action == "end-combat":
        a.act("end_combat")
    elif action == "add":
        a.open_sheet("add")
    elif action == "open-combatant":
        a.open_sheet("combatant", data("id"))
    elif action == "edit":
        a.open_sheet("edit", data("id"))
    elif action == "close-sheet":
        a.close_sheet()
    elif action == "quick-add":
        source = a.ws.roster if data("source") == "roster" else a.ws.templates
        index = int(data("index"))
        if 0 <= index < len(source):
            if a.act("add_combatant", {"combatant": dict(source[index])}):
                a.close_sheet()
    elif action == "remove":
        if a.act("remove_combatant", {"id": data("id")}):
            a.close_sheet()
    elif action in ("damage", "heal", "temp"):
        kind = {"damage": "damage", "heal": "heal", "temp": "temp_hp"}[action]
        a.act(kind, {"id": data("id"), "amount": _amount()})  # manual damage blames nobody
    elif action == "add-condition":
        a.act("add_condition", {
            "id": data("id"), "name": dom.value("cond-name"), "until": dom.value("cond-until", "never"),
            "rounds": _int(dom.value("cond-rounds"), 1), "anchor": dom.value("cond-anchor") or None,
            "source": enc.active_id,
        })
    elif action == "remove-condition":
        a.act("remove_condition", {"id": data("id"), "condition": data("condition")})
    elif action == "delay":
        if a.act("delay", {"id": data("id"), "after": dom.value("delay-after")}):
            a.close_sheet()
    elif action == "open-menu":
        a.open_sheet("menu")
    elif action == "switch-encounter":
        a.load_encounter(data("id"))
        a.close_sheet()
    elif action == "new-encounter":
        a.new_encounter(dom.value("new-system") or None)
        a.close_sheet()
    elif action == "duplicate-encounter":
        from .persist import rebase

        a.switch_to(rebase(a.timeline, a.persistence.new_id(), f"{enc.name} (copy)"))
        a.close_sheet()
    elif action == "rename-encounter":
        name = dom.py(window.prompt("Name of this encounter", enc.name))
        if name is not None:
            a.act("rename", {"name": str(name)})
    elif action == "delete-encounter":
        a.delete_encounter()
        a.close_sheet()
    elif action == "restore-encounter":
        a.restore_encounter(int(data("index")))
        a.close_sheet()
    elif action == "export-current":
        dom.download(f"roundkeeper-{_slug(enc.name)}.json", export_encounter(a.timeline))
    elif action in ("export-all", "notice-export-all"):
        dom.download("roundkeeper-all.json", export_all(a.ws, a.persistence))
    elif action == "share-link":
        link = a.share_link()
        out = dom.el("share-out")
        if out is not None:
            out.textContent = link
        if hasattr(window.navigator, "clipboard"):
            # Clipboard access is optional (it may be refused); the link is shown either way.
            window.navigator.clipboard.writeText(link).catch(dom.proxy(lambda error: None))
    elif action == "toggle-theme":
        root = document.documentElement
        theme = "light" if (root.dataset.theme or "dark") == "dark" else "dark"
        root.dataset.theme = theme
        if a.persistent:
            a.store.set("theme", theme)
        a.render_sheet()
    elif action == "dismiss":
        index = int(data("index"))
        if 0 <= index < len(a.notices):
            a.notices.pop(index)
            a.render_notices()
    elif action == "notice-reload":
        window.location.reload()
    elif action == "notice-trim-history":
        a.trim_history()
    elif action == "notice-undelete":
        a.restore_encounter(len(a.trash) - 1)
    elif action == "notice-open-share":
        a.open_shared()
    elif action == "notice-replace-share":
        a.open_shared(replace_earlier=True)
    elif action == "quick":
        box = dom.el("dice-input")
        what = str(data("expr"))
        if what in ("adv", "dis"):
            box.value = advantage(str(box.value), what == "adv")
        else:
            box.value = add_die(str(box.value) if a.building else "", what)
        a.building = True
        a.update_odds()
    elif action == "save-roll":
        expr = dom.value("dice-input").strip()
        name = dom.value("save-name").strip() or expr
        try:
            roll(expr, random.Random(0))  # only to check it is valid
        except EngineError as error:
            dom.el("dice-error").textContent = str(error)
            return
        name = clean_text(name)[:60] or expr[:60]
        a.saved_rolls = a.store_list(SAVED_ROLLS, [s for s in a.saved_rolls if s.get("name") != name] + [{"name": name, "expr": expr}])
        dom.set_html("saved-rolls", render.saved_rolls_html(a.saved_rolls))
        dom.el("save-name").value = ""
    elif action == "roll-saved":
        index = int(data("index"))
        if 0 <= index < len(a.saved_rolls):
            expr = a.saved_rolls[index]["expr"]
            dom.el("dice-input").value = expr
            a.do_roll(expr)
            a.update_odds()
    elif action == "delete-saved":
        index = int(data("index"))
        if 0 <= index < len(a.saved_rolls):
            gone = a.saved_rolls[index]
            a.deleted_rolls.append((index, gone))
            a.saved_rolls = a.store_list(SAVED_ROLLS, a.saved_rolls[:index] + a.saved_rolls[index + 1:])
            dom.set_html("saved-rolls", render.saved_rolls_html(a.saved_rolls))
            a.notify(Notice("info", f"Deleted the saved roll {quoted(str(gone.get('name')))}.", "undelete-roll", "Undo"))
    elif action == "notice-undelete-roll":
        if a.deleted_rolls:
            index, back = a.deleted_rolls.pop()
            rest = [s for s in a.saved_rolls if s.get("name") != back.get("name")]
            a.saved_rolls = a.store_list(SAVED_ROLLS, rest[:index] + [back] + rest[index:])
            dom.set_html("saved-rolls", render.saved_rolls_html(a.saved_rolls))
        a.notices = [n for n in a.notices if n.action != "undelete-roll"]
        a.render_notices()
    elif action == "clear-history":
        a.rolls = a.store_list(ROLLS, [])
        dom.set_html("roll-history", render.history_html(a.rolls))


def _slug(name: str) -> str:
    return "".join(ch if ch.isalnum() else "-" for ch in name.lower()).strip("-")[:40] or "encounter"


def submit(form_action: str, form) -> None:
    a = app
    assert a is not None
    if form_action == "roll":
        a.do_roll(dom.value("dice-input"))
        return
    if form_action == "save-add":
        fields = _form_fields(editing=False)
        count = _int(dom.value("f-count"), 1)
        remember = dom.el("f-remember") is not None and dom.el("f-remember").checked
        if a.act("add_combatant", {"combatant": fields, "count": count}):
            if remember:
                entry = validated_fields({k: v for k, v in fields.items() if k != "initiative" and v not in (None, "")})
                if fields["side"] == "party":
                    a.ws.roster = a.store_list(ROSTER, [p for p in a.ws.roster if p.get("name") != entry["name"]] + [entry])
                else:
                    a.ws.templates = a.store_list(TEMPLATES, [p for p in a.ws.templates if p.get("name") != entry["name"]] + [entry])
            a.close_sheet()
    elif form_action == "save-edit":
        cid = dom.py(form.getAttribute("data-id"))
        if a.act("update_combatant", {"id": cid, "fields": _form_fields(editing=True)}):
            a.close_sheet()


def on_click(event) -> None:
    node = dom.py(event.target.closest("[data-action]"))
    if node is None or node.hasAttribute("disabled"):
        return
    try:
        handle(node.getAttribute("data-action"), node)
    except EngineError as error:
        app.error(str(error))


def on_submit(event) -> None:
    form = event.target
    action = dom.py(form.getAttribute("data-action-submit"))
    if not action:
        return
    event.preventDefault()
    try:
        submit(action, form)
    except EngineError as error:
        app.error(str(error))


def on_input(event) -> None:
    target = event.target
    if target.id == "dice-input":
        app.building = True  # typed by hand: the quick dice add to it
    if target.id in ("dice-input", "odds-target"):
        app.schedule_odds()


def on_change(event) -> None:
    target = event.target
    if target.id == "import-file" and target.files.length:
        asyncio.ensure_future(app.import_file(target.files.item(0)))
        target.value = ""
    elif dom.py(target.getAttribute("data-action-change")) == "set-skip":
        app.act("set_option", {"key": "skip_down", "value": target.value})
    elif dom.py(target.getAttribute("data-action-change")) == "set-ambush":
        app.act("set_option", {"key": "ambush", "value": target.value})
    elif dom.py(target.getAttribute("data-action-change")) == "set-option":
        value = str(target.value)
        app.act("set_option", {"key": str(target.getAttribute("data-key")), "value": int(value) if value.isdigit() else value})
    elif dom.py(target.getAttribute("data-action-change")) == "attack-config":
        sheet = dom.el("sheet-body")
        config = {}
        for node in sheet.querySelectorAll("[data-attack-key]"):
            key = str(node.getAttribute("data-attack-key"))
            config[key] = bool(node.checked) if str(node.type) == "checkbox" else (str(node.value) or None)
        boxes = sheet.querySelectorAll(".atk-skill")
        if boxes.length:
            config["skills"] = ", ".join(str(b.value) for b in boxes if b.checked)
            config["skills_of"] = str(boxes.item(0).getAttribute("data-owner"))
        app.attack = {**config, "pending": None}
        if str(target.type) in ("text", "number"):
            app.schedule_sheet()  # typing then tapping a button: let the tap land before the sheet is redrawn
        else:
            app.render_sheet()


def on_key(event) -> None:
    key = str(event.key)
    target = event.target
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


def on_sheet_click(event) -> None:
    """A tap on the backdrop (outside the sheet's box, which the dialog itself receives) closes it."""
    sheet = dom.el("sheet")
    if event.target == sheet:
        box = sheet.getBoundingClientRect()
        if not (box.left <= event.clientX <= box.right and box.top <= event.clientY <= box.bottom):
            app.close_sheet()


def on_storage(event) -> None:
    key = dom.py(event.key)
    if key is None:
        return
    key = str(key)
    if not key.startswith(app.prefix):
        return  # a sibling site at another path of this origin
    name = key[len(app.prefix):]
    if name == f"enc:{app.timeline.present.id}":
        app.pick_up_other_tab()
    elif name in COLLECTIONS or name == INDEX:
        app.pick_up_collection(name)


def on_visibility(event) -> None:
    app.wake_lock = None  # the browser releases it when hidden
    app.update_wake_lock()


def on_log_toggle(event) -> None:
    dom.forget("log")
    app.render()


def _bench(name, arg="") -> str:
    from . import bench  # only when the benchmark asks: keeps it off the start-up path

    return bench.hook(app, str(name), str(arg))


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
    dom.on(document, "click", on_click)
    dom.on(document, "submit", on_submit)
    dom.on(document, "input", on_input)
    dom.on(document, "change", on_change)
    dom.on(document, "keydown", on_key)
    dom.on(window, "storage", on_storage)
    dom.on(document, "visibilitychange", on_visibility)
    dom.on(dom.el("log-box"), "toggle", on_log_toggle)
    dom.on(dom.el("sheet"), "close", lambda e: setattr(app, "sheet", None))
    dom.on(dom.el("sheet"), "click", on_sheet_click)
    for node in (dom.el("undo"), dom.el("redo"), dom.el("next-turn")):
        node.setAttribute("data-action", node.id)
    app.render()
    fragment = str(window.location.hash or "")
    if fragment.startswith("#fight="):
        app.offer_shared(fragment[len("#fight="):])
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
