"""What a link may ask of the page (web/app/params.py): a seed within bounds, relays, and never a STUN
server this page does not list (issue 37, items 4 and 13)."""

from __future__ import annotations

import json

from pyengine.live import DEFAULT_NOSTR, DEFAULT_RELAYS, DEFAULT_STUN
from web.app.params import chosen_nostr, chosen_servers, read_seed


def test_a_seed_is_a_whole_number_of_at_most_40_digits():
    assert read_seed(None) == (None, "")
    assert read_seed("3") == (3, "") and read_seed("-12") == (-12, "")
    assert read_seed("9" * 40) == (int("9" * 40), "")
    for bad in ("9" * 4301, "9" * 41, "²", "1e5", "", " 3", "0x10", "٣"):
        seed, said = read_seed(bad)
        assert seed is None and "the dice are random" in said, bad
    assert len(read_seed("9" * 4301)[1]) < 300  # the message quotes a bounded part


def test_a_link_picks_relays_but_never_a_stun_server_of_its_own():
    assert chosen_servers(None, None, None) == (DEFAULT_RELAYS, DEFAULT_STUN)
    relays, stun = chosen_servers("ws://127.0.0.1:47913", "stun:evil.example:3478", None)
    assert relays == ("ws://127.0.0.1:47913",) and stun == DEFAULT_STUN
    assert chosen_servers(None, "none", None)[1] == ()  # fewer is the link's to choose
    assert chosen_servers(None, DEFAULT_STUN[1], None)[1] == (DEFAULT_STUN[1],)
    assert chosen_servers(None, f"stun:evil.example:3478,{DEFAULT_STUN[0]}", None)[1] == (DEFAULT_STUN[0],)
    # One this phone's game master typed in its own Connection settings is listed: a link may pick it.
    saved = json.dumps({"relays": ["wss://relay.example"], "stun": ["stun:own.example:3478"]})
    assert chosen_servers(None, None, saved) == (("wss://relay.example",), ("stun:own.example:3478",))
    assert chosen_servers(None, "stun:own.example:3478", saved)[1] == ("stun:own.example:3478",)
    assert chosen_servers(None, "stun:evil.example:3478", saved)[1] == ("stun:own.example:3478",)
    assert chosen_servers("not a relay", "stun:x", "{broken") == (DEFAULT_RELAYS, DEFAULT_STUN)


def test_a_link_names_the_nostr_relays_or_leaves_either_network_out():
    assert chosen_nostr(None, None) == DEFAULT_NOSTR
    assert chosen_nostr("ws://127.0.0.1:47914", None) == ("ws://127.0.0.1:47914",)
    assert chosen_nostr("", None) == () and chosen_nostr("none", None) == ()  # that network left out
    assert chosen_servers("", None, None)[0] == ()  # `?relays=` empty: no WebTorrent tracker
    saved = json.dumps({"relays": ["wss://relay.example"], "stun": [], "nostr": ["wss://nostr.example"]})
    assert chosen_nostr(None, saved) == ("wss://nostr.example",)
    assert chosen_nostr("ws://127.0.0.1:47914", saved) == ("ws://127.0.0.1:47914",)  # the link's first
    assert chosen_nostr("javascript:x", saved) == DEFAULT_NOSTR and chosen_nostr(None, "{broken") == DEFAULT_NOSTR
