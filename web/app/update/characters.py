"""My characters: deleted and brought back, the form, a character's link, its attack screen and
the practice target."""

from __future__ import annotations

from dataclasses import replace
from typing import assert_never

from pyengine.characters import (
    CHARACTER_VERSION,
    Character,
    character_from_dict,
    character_to_dict,
    combatant_fields,
    read_character,
    validated_config,
    validated_stats,
)
from pyengine.core_args import Edit, Join
from pyengine.errors import EngineError
from pyengine.rules import get_system
from pyengine.text import clean_text, quoted
from web.app import characters as character_text
from web.app import ui as state
from web.app.characters import edited, fresh_id, open_character
from web.app.characters import find as find_character
from web.app.effects import ClearLink, CloseSheet, FillForm, Refuse, RenderNotices, RenderSheet, ShowSheet, StoreCollection, Toast
from web.app.messages import (
    AttackOptionsSaved,
    AttackPicked,
    AttackRemoved,
    CharacterDeleted,
    CharacterOffered,
    CharacterOpened,
    CharacterRestored,
    CharacterSaved,
    CharacterTaken,
    TargetDescribed,
)
from web.app.model import Model
from web.app.storage.records import CHARACTERS, Notice
from web.app.update.common import Result, act, closed, in_place, notify, numbered_name, opened, typed_number, without
from web.app.update.timers import redrawn
from web.app.views import view_for


def _character_deleted(model: Model, m: CharacterDeleted) -> Result:
    """A character of My characters goes to the trash; a notice offers Undo."""
    gone = next((c for c in model.characters if c.get("id") == m.ident), None)
    if gone is None:
        return model, ()
    model = replace(model, characters=tuple(c for c in model.characters if c is not gone),
                    trash=replace(model.trash, characters=model.trash.characters + (gone,)))
    model = notify(model, Notice("info", f"Deleted {quoted(str(gone.get('name', '')))}.", "undelete-character", "Undo"))
    model, shown = opened(model, "characters")
    return model, (StoreCollection(CHARACTERS), *shown, RenderNotices())


def _character_restored(model: Model, m: CharacterRestored) -> Result:
    notices = without(model.notices, "undelete-character")
    if not model.trash.characters:
        return replace(model, notices=notices), (RenderNotices(),)
    back = model.trash.characters[-1]
    model = replace(model, characters=tuple(c for c in model.characters if c.get("id") != back.get("id")) + (back,),
                    notices=notices, trash=replace(model.trash, characters=model.trash.characters[:-1]))
    return model, (StoreCollection(CHARACTERS), RenderNotices(), RenderSheet())


# -- My characters: the form ---------------------------------------------------------------------------


def character_document(model: Model, m: CharacterSaved) -> tuple[Character, str]:
    """The form as a character (checked by the engine), and the name of the attack saved with it.
    The same attack name replaces that attack (its panel options kept)."""
    old = find_character(model.characters, m.edited) if m.edited is not None else None
    if m.edited is not None and old is None:
        raise EngineError("That character is gone (deleted in another tab?).")
    weapon_keys = view_for(m.system).weapon_fields
    attacks = [{"name": x.name, "stats": x.stats, "config": x.config} for x in (old.attacks if old else ())]
    name = ""
    if m.attack is not None:
        name = clean_text(m.attack[0])
        if not name:
            raise EngineError("Name the attack first (e.g. Longsword).")
        before = next((x for x in attacks if x["name"] == name), None)
        new = {"name": name, "stats": dict(m.attack[1]), "config": before["config"] if before else {}}
        attacks = [new if x is before else x for x in attacks] if before else [*attacks, new]
    doc = {"v": CHARACTER_VERSION, "id": old.id if old else m.new_id, "name": m.name, "system": m.system,
           "max_hp": typed_number(m.max_hp), "init_mod": typed_number(m.init_mod, 0),
           "stats": {**{k: v for k, v in (old.stats if old else {}).items() if k in weapon_keys}, **m.stats},
           "attacks": attacks}
    return character_from_dict(doc), name


def _character_saved(model: Model, m: CharacterSaved) -> Result:
    """Save: the character kept in its place in My characters, its card shown (its practice attack
    opens when asked). Save attack: the form stays open for the next attack."""
    try:
        c, attack = character_document(model, m)
    except EngineError as error:
        return model, (Refuse(str(error)),)
    model = replace(model, characters=in_place(model.characters, character_to_dict(c)))
    if m.attack is not None:
        model, shown = opened(model, "character-edit", c.id)
        return model, (StoreCollection(CHARACTERS), *shown, Toast(f"Saved the attack {quoted(attack)}."))
    model, shown = _character_opened(model, CharacterOpened(c.id))
    return model, (StoreCollection(CHARACTERS), *shown)


# -- My characters: links, the attack form, practice -----------------------------------------------------


def _character_opened(model: Model, m: CharacterOpened) -> Result:
    """A character's card, or its practice attack with the chosen named attack (else its first) in the panel."""
    c = find_character(model.characters, m.ident)
    if c is None:
        return model, ()
    index = m.index if m.index is not None and c.attack(m.index) is not None else (0 if c.attacks else None)
    chosen = c.attack(index) if index is not None else None
    ui = state.character_opened(model.ui, ident=m.ident, attack=index, config=dict(chosen.config) if chosen else {}, practicing=m.practice)
    return replace(model, ui=ui), (ShowSheet(),)


def _character_offered(model: Model, m: CharacterOffered) -> Result:
    """A character from a link (or a pasted code): into the open fight, or into My characters."""
    try:
        c = read_character(m.payload)
    except EngineError as error:
        if not m.from_link:
            return model, (Refuse(f"Nothing was added: {error}"),)
        said = Notice("error", f"The character's link could not be opened: {error} It was removed from the address bar.")
        return notify(model, said), (ClearLink(), RenderNotices())
    model = replace(model, ui=state.character_offered(model.ui, character=c))
    same = model.timeline.present.system == c.system
    text = character_text.offer_text(c, quoted(model.timeline.present.name) if same else "")
    there = in_fight(model, c.name) if same else None
    if there is not None:  # opened again (a second scan): not a silent second copy
        offer = Notice("info", f"{c.name} is already in this fight. Update that fighter from the link (its HP kept), "
                               "or add another copy?", "update-character", f"Update {c.name}",
                       (("add-character", "Add a copy"), ("keep-character", "Save to my characters")))
    elif same:
        offer = Notice("info", text, "add-character", "Add to the fight", (("keep-character", "Save to my characters"),))
    else:
        offer = Notice("info", text, "keep-character", "Save to my characters")
    model = notify(model, offer)
    if m.from_link:
        return model, (RenderNotices(),)
    return closed(model)[0], (RenderNotices(), CloseSheet())


def in_fight(model: Model, name: str) -> str | None:
    """The id of the party's player character of that name in the open fight, if there is one."""
    return next((x.id for x in model.timeline.present.combatants if x.pc and x.side == "party" and x.name == name), None)


def _character_taken(model: Model, m: CharacterTaken) -> Result:
    """The offered character joins the open fight (one undoable step), or goes into My characters."""
    c = model.ui.pending_character
    if c is None:
        return model, ()
    model = replace(model, ui=state.character_taken(model.ui),
                    notices=without(model.notices, "add-character", "keep-character", "update-character"))
    if m.into_fight:
        fields = combatant_fields(c, c.attack(0))
        there = in_fight(model, c.name)
        if m.update and there is not None:
            changed = {k: v for k, v in fields.items() if k not in ("hp", "side", "pc", "name")}
            after, effects = act(model, "update_combatant", Edit(there, changed), m.rng)
            return after, (ClearLink(), *effects, RenderNotices())
        if there is not None:  # a copy on purpose: numbered, as another of the same foe would be
            fields["name"] = numbered_name(c.name, {x.name for x in model.timeline.present.combatants})
        after, effects = act(model, "add_combatant", Join(fields), m.rng)
        if after.timeline is not model.timeline:
            after = notify(after, Notice("info", f"{fields['name']} joined the fight.").about(after.timeline))
        return after, (ClearLink(), *effects, RenderNotices())
    if find_character(model.characters, c.id) is not None:
        c = replace(c, id=fresh_id(model.characters, m.new_id))
    model = notify(replace(model, characters=in_place(model.characters, character_to_dict(c))),
                   Notice("info", f"{c.name} is in My characters."))
    return model, (ClearLink(), StoreCollection(CHARACTERS), RenderNotices())


def _attack_picked(model: Model, m: AttackPicked) -> Result:
    """A saved attack into the attack form below, to change it (the same name replaces it)."""
    try:
        system, c = edited(model)
    except EngineError:
        return model, ()
    chosen = c.attack(m.index) if c is not None else None
    if c is None or chosen is None:
        return model, ()
    fields: list[tuple[str, str | bool]] = [("a-name", chosen.name)]
    weapon = view_for(system).weapon_fields
    for f in get_system(system).stat_fields:
        if f.key in weapon:
            value = chosen.stats.get(f.key, c.stats.get(f.key, f.default))
            fields.append((f"a-stat-{f.key}", bool(value) if f.kind == "flag" else "" if value is None else str(value)))
    return model, (FillForm(tuple(fields), focus="a-name"),)


def _attack_removed(model: Model, m: AttackRemoved) -> Result:
    try:
        _, c = edited(model)
    except EngineError as error:
        return model, (Refuse(str(error)),)
    if c is None or c.attack(m.index) is None:
        return model, ()
    c = replace(c, attacks=c.attacks[:m.index] + c.attacks[m.index + 1:])
    return replace(model, characters=in_place(model.characters, character_to_dict(c))), (StoreCollection(CHARACTERS), RenderSheet())


def _attack_options_saved(model: Model, m: AttackOptionsSaved) -> Result:
    """The attack panel's options as they are now, kept in the chosen named attack."""
    c = open_character(model)
    index = model.ui.practice.get("attack")
    chosen = c.attack(index) if c is not None and isinstance(index, int) else None
    if c is None or chosen is None:
        return model, ()
    try:
        config = validated_config({k: v for k, v in model.ui.attack.items() if k not in ("pending", "attacker", "target")})
    except EngineError as error:
        return model, (Refuse(str(error)),)
    attacks = c.attacks[:index] + (replace(chosen, config=config),) + c.attacks[index + 1:]  # type: ignore[operator]
    model = replace(model, characters=in_place(model.characters, character_to_dict(replace(c, attacks=attacks))))
    return model, (StoreCollection(CHARACTERS), Toast(f"{chosen.name} keeps these options."))


def _target_described(model: Model, m: TargetDescribed) -> Result:
    """What the game master says about the target, read whole from the character's screen."""
    c = open_character(model)
    if c is None:
        return model, ()
    system = get_system(c.system)
    fields = character_text.stat_fields_of(c.system, view_for(c.system).target_fields)
    try:
        stats = validated_stats(fields, dict(m.stats), system.label)
        hp = typed_number(m.hp)
        wanted = typed_number(m.at_least)
    except EngineError as error:
        return model, (Refuse(str(error)),)
    ui = state.target_described(model.ui, target=stats, hp=hp if hp is None or hp > 0 else None, name=clean_text(m.name)[:60] or "Target", at_least=wanted if wanted is None or 0 <= wanted <= 1_000_000 else None)
    return redrawn(replace(model, ui=ui), m.typing)


Handled = CharacterDeleted | CharacterRestored | CharacterSaved | CharacterOpened | CharacterOffered | CharacterTaken | AttackPicked | AttackRemoved | AttackOptionsSaved | TargetDescribed


def handle(model: Model, message: Handled) -> Result:  # noqa: C901 - one case a message
    """The model after one of this module's messages, and its effects: a `match` that mypy checks
    is whole (`assert_never`): a message in `Handled` with no case is a type error."""
    match message:
        case CharacterDeleted():
            return _character_deleted(model, message)
        case CharacterRestored():
            return _character_restored(model, message)
        case CharacterSaved():
            return _character_saved(model, message)
        case CharacterOpened():
            return _character_opened(model, message)
        case CharacterOffered():
            return _character_offered(model, message)
        case CharacterTaken():
            return _character_taken(model, message)
        case AttackPicked():
            return _attack_picked(model, message)
        case AttackRemoved():
            return _attack_removed(model, message)
        case AttackOptionsSaved():
            return _attack_options_saved(model, message)
        case TargetDescribed():
            return _target_described(model, message)
        case _:
            assert_never(message)
