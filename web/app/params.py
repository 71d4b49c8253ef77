"""What the page's address asks for (`?seed=`, `?relays=`, `?stun=`), read with bounds: pure, so the
runtime only passes the address's text in. A link is anyone's to write: nothing in it may brick the
page, and nothing in it chooses where this phone sends its address."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import quote

from pyengine.live import DEFAULT_NOSTR, DEFAULT_RELAYS, DEFAULT_STUN, RELAY_SCHEMES, STUN_SCHEMES, LiveError, read_servers
from web.app.storage.records import Notice

__all__ = ["MAX_SEED_DIGITS", "read_seed", "chosen_servers", "stun_ignored", "chosen_nostr", "journal_set_aside", "join_link", "uri_component"]

MAX_SEED_DIGITS = 40
_SEED = re.compile(rf"-?[0-9]{{1,{MAX_SEED_DIGITS}}}")


def read_seed(text: str | None) -> tuple[int | None, str]:
    """`?seed=N` (fixed dice, for tests and the bench): (the seed, ""), or (None, why it was refused)
    when it is not a whole number of at most 40 digits (a longer one bricked the page: Python's
    int() refuses more than 4,300 digits)."""
    if text is None:
        return None, ""
    if _SEED.fullmatch(text):
        return int(text), ""
    return None, (f"The address asks for fixed dice with a seed that is not a whole number of at most {MAX_SEED_DIGITS} digits "
                  f"(“{text[:20]}{'…' if len(text) > 20 else ''}”): the dice are random.")


def chosen_servers(link_relays: str | None, link_stun: str | None, stored: str | None) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The live table's relays and STUN servers. Relays: the link's (a join link carries the game
    master's; the page's Content-Security-Policy decides what it can reach), else this phone's
    settings, else the defaults. STUN servers learn the phone's address and the policy does not cover
    them, so a link never names one: it may only pick among those this page lists (the defaults and
    the ones typed in this phone's Connection settings), or "none"; any other is dropped."""
    relays = _relays(link_relays, stored, "relays", DEFAULT_RELAYS)
    try:
        own = read_servers(_setting(stored, "stun"), STUN_SCHEMES, DEFAULT_STUN)
    except (LiveError, TypeError):
        own = DEFAULT_STUN
    if link_stun is None:
        return relays, own
    try:
        asked = read_servers(link_stun, STUN_SCHEMES, own)
    except (LiveError, TypeError):
        return relays, own
    listed = set(own) | set(DEFAULT_STUN)
    kept = tuple(s for s in asked if s in listed)
    return relays, kept if kept or not asked else own


def stun_ignored(link_stun: str | None, stored: str | None) -> str:
    """What the page says once when a link's `?stun=` names STUN servers it does not use (chosen_servers
    drops them: a link never names one); "" when nothing of it was dropped.

    >>> stun_ignored("stun:evil.example:3478", None).split(": it is not used")[0]
    'This link asks for a STUN server this phone does not list (stun:evil.example:3478)'
    >>> stun_ignored(None, None), stun_ignored("none", None), stun_ignored(DEFAULT_STUN[0], None)
    ('', '', '')
    """
    if link_stun is None:
        return ""
    try:
        own = read_servers(_setting(stored, "stun"), STUN_SCHEMES, DEFAULT_STUN)
    except (LiveError, TypeError):
        own = DEFAULT_STUN
    try:
        asked = read_servers(link_stun, STUN_SCHEMES, own)
    except (LiveError, TypeError):
        asked = (link_stun.strip()[:60],)
    dropped = [s for s in asked if s not in set(own) | set(DEFAULT_STUN)]
    if not dropped:
        return ""
    names = ", ".join(d[:60] for d in dropped[:3]) + (" …" if len(dropped) > 3 else "")
    one = len(dropped) == 1
    return (f"This link asks for {'a STUN server' if one else 'STUN servers'} this phone does not list ({names}): "
            f"{'it is' if one else 'they are'} not used. A STUN server learns the phone's address; add one in "
            "Live table → Connection settings to use it.")


def chosen_nostr(link_nostr: str | None, stored: str | None) -> tuple[str, ...]:
    """The live table's Nostr relays: the link's `?nostr=` (a join link carries the game master's; "none"
    or empty leaves that network out), else this phone's settings, else the defaults."""
    return _relays(link_nostr, stored, "nostr", DEFAULT_NOSTR)


def _setting(stored: str | None, name: str) -> str | None:
    """One list of this phone's Connection settings (their stored JSON) as the text a link carries."""
    try:
        doc: Any = json.loads(stored) if stored and len(stored) < 5000 else {}
    except ValueError:
        return None
    listed = doc.get(name) if isinstance(doc, dict) else None
    return (",".join(str(x) for x in listed) or "none") if isinstance(listed, list) else None


def _relays(link: str | None, stored: str | None, name: str, default: tuple[str, ...]) -> tuple[str, ...]:
    """One network's relays: the link's (empty: that network left out), else the setting `name`, else
    `default` (also for anything unreadable)."""
    if link is not None and not link.strip():
        return ()
    try:
        return read_servers(link if link is not None else _setting(stored, name), RELAY_SCHEMES, default)
    except (LiveError, TypeError):
        return default


def journal_set_aside(keys: list[str]) -> Notice:
    """What the start says when the durable journal held records it could not read (static/journal.js
    set them aside as backup: keys; nothing was removed or put in a fight's place)."""
    names = ", ".join(sorted(set(keys))[:5]) + ("…" if len(set(keys)) > 5 else "")
    many = len(keys) != 1
    return Notice("warn", f"The safe copy held {len(keys)} unreadable entr{'ies' if many else 'y'} ({names[:200]}): "
                          f"{'they were' if many else 'it was'} set aside as a backup, and nothing saved was removed. "
                          "Export all keeps the set-aside copies.", "export-all", "Export all")


def uri_component(text: str) -> str:
    """JavaScript's encodeURIComponent: letters, digits and -_.!~*'() as they are, the rest as UTF-8 escapes.

    >>> uri_component("wss://relay.example/a b,ü")
    'wss%3A%2F%2Frelay.example%2Fa%20b%2C%C3%BC'
    """
    return quote(text, safe="!~*'()")


def join_link(here: str, room: str, secret: str, public: str, relays: tuple[str, ...], nostr: tuple[str, ...],
              stun: tuple[str, ...]) -> str:
    """A hosted table's join link: the page's address, the relays when they are not the defaults (the
    room's, not a setting saved since), and after # the room, its secret and the game master's public key.

    >>> join_link("https://rk.example/", "r1", "s2", "k3", DEFAULT_RELAYS, DEFAULT_NOSTR, DEFAULT_STUN)
    'https://rk.example/#live=r1.s2.k3'
    >>> join_link("https://rk.example/", "r1", "s2", "k3", (), ("ws://127.0.0.1:7000",), DEFAULT_STUN)
    'https://rk.example/?relays=none&nostr=ws%3A%2F%2F127.0.0.1%3A7000#live=r1.s2.k3'
    """
    query = []
    if relays != DEFAULT_RELAYS:
        query.append("relays=" + uri_component(",".join(relays) or "none"))
    if nostr != DEFAULT_NOSTR:
        query.append("nostr=" + uri_component(",".join(nostr) or "none"))
    if stun != DEFAULT_STUN:
        query.append("stun=" + uri_component(",".join(stun) or "none"))
    return f"{here}{'?' + '&'.join(query) if query else ''}#live={room}.{secret}.{public}"
