"""The live table with no internet: two codes carry a WebRTC connection between two phones on one
Wi-Fi, by camera. The game master's phone shows an *offer*; the player's phone reads it and shows an
*answer*; the game master's phone reads that. Each code holds only what the connection needs (the ICE
user name and password, the DTLS certificate's SHA-256 fingerprint, the phone's host candidates),
packed into bytes and written in base 32, so it is QR alphanumeric text (about 90 bytes, 150
characters: QR version 6-8). `sdp_of` writes the session description a browser takes back, from
checked pieces only: no text of a code ever reaches the description as it came.

A code is `RK` + base 32 of: version and kind (1 byte), the offer's token (4 bytes; the answer
says it again, so an answer fits one offer), the ICE ufrag and pwd (a length byte each), the
fingerprint (32 bytes), the candidates (a count, then each: a type byte, its address, its port),
and a CRC-32 of all that (a damaged or cut code is refused, not half read).

>>> p = Pairing("offer", "0a0b0c0d", "Xk2p", "Jk9lyW8u9mMm0a3aFjcjSO1a", bytes(range(32)), (("192.168.1.20", 54400),))
>>> read_code(pack(p), "offer") == p
True
"""

from __future__ import annotations

import base64
import ipaddress
import re
import zlib
from dataclasses import dataclass

from .live import LiveError

__all__ = [
    "PAIRING_VERSION", "MAX_CODE", "MAX_CANDIDATES", "JOIN_FRAGMENT", "Pairing", "PairingError",
    "from_sdp", "pack", "read_code", "sdp_of", "same_network", "join_link", "local_address",
]

PAIRING_VERSION = 1
PREFIX = "RK"
JOIN_FRAGMENT = "#join="      # an offer as a link: a phone's own camera app opens the site at the join step
MAX_CODE = 2000               # characters read at most (a link with a long address, then the code)
MAX_CANDIDATES = 6            # host candidates kept per phone (one or two interfaces are usual)
KINDS = ("offer", "answer")
_ICE = re.compile(r"^[A-Za-z0-9+/]+$")  # RFC 8839 ice-char
_MDNS = re.compile(r"^([0-9a-f]{8})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{12})\.local$")
_IPV4, _IPV6, _NAMED = 4, 6, 16   # a candidate's address: IPv4, IPv6, or an mDNS name (a UUID + .local)


class PairingError(LiveError):
    """A code refused: not ours, damaged, of the other kind, or without a way to connect."""


@dataclass(frozen=True)
class Pairing:
    """One side's connection details: an offer (the game master's) or an answer (a player's)."""

    kind: str                                  # "offer" | "answer"
    token: str                                 # the offer's id, 8 hex digits (an answer repeats its offer's)
    ufrag: str                                 # ICE user name fragment
    pwd: str                                   # ICE password
    fingerprint: bytes                         # the DTLS certificate's SHA-256
    candidates: tuple[tuple[str, int], ...]    # host candidates: (address, port), UDP


def from_sdp(sdp: str, kind: str, token: str) -> Pairing:
    """What a browser's session description holds that the connection needs. Raises PairingError
    when there is nothing to connect to (no Wi-Fi: no host candidate), with what to do."""
    if kind not in KINDS or not re.fullmatch(r"[0-9a-f]{8}", token):
        raise PairingError("not a pairing kind or token")
    ufrag = _line(sdp, "a=ice-ufrag:")
    pwd = _line(sdp, "a=ice-pwd:")
    hashed = _line(sdp, "a=fingerprint:")
    method, _, hexes = hashed.partition(" ")
    if method.lower() != "sha-256":
        raise PairingError("This browser's connection uses a certificate this app cannot carry in a code.")
    try:
        fingerprint = bytes.fromhex(hexes.replace(":", ""))
    except ValueError:
        raise PairingError("The browser's certificate fingerprint could not be read.") from None
    candidates: list[tuple[str, int]] = []
    for line in sdp.splitlines():
        if not line.startswith("a=candidate:"):
            continue
        parts = line[len("a=candidate:"):].split()
        if len(parts) < 8 or parts[1] != "1" or parts[2].lower() != "udp" or parts[6] != "typ" or parts[7] != "host":
            continue  # RTP component 1, UDP, host: what two phones on one Wi-Fi use
        candidate = (parts[4].lower(), int(parts[5])) if parts[5].isdigit() else None
        if candidate and candidate not in candidates and _address(candidate[0]) is not None:
            candidates.append(candidate)
    if not candidates:
        raise PairingError("This phone has no network to offer: join the same Wi-Fi as the game master's phone "
                           "(or the game master's hotspot), then try again.")
    found = Pairing(kind, token, ufrag, pwd, fingerprint, tuple(candidates[:MAX_CANDIDATES]))
    _check(found)
    return found


def _line(sdp: str, start: str) -> str:
    for line in sdp.splitlines():
        if line.startswith(start):
            return line[len(start):].strip()
    raise PairingError(f"The browser's connection details have no {start[2:-1]}.")


def _check(p: Pairing) -> None:
    if not (4 <= len(p.ufrag) <= 32 and _ICE.fullmatch(p.ufrag)) or not (22 <= len(p.pwd) <= 64 and _ICE.fullmatch(p.pwd)):
        raise PairingError("The connection's ICE name or password is not one this app carries.")
    if len(p.fingerprint) != 32:
        raise PairingError("A certificate fingerprint is 32 bytes.")
    if not 1 <= len(p.candidates) <= MAX_CANDIDATES:
        raise PairingError("A code names one to six addresses.")
    for address, port in p.candidates:
        if not 1 <= port <= 65535 or _address(address) is None:
            raise PairingError(f"A code names {address[:60]}, which is not an address on a local network (a Wi-Fi's, a hotspot's): "
                               "refused. A table code only ever names the phone's own addresses on the Wi-Fi.")


def _encoded(text: str) -> tuple[int, bytes] | None:
    """A candidate's address as (type, bytes) in a code; None: not an address or mDNS name."""
    named = _MDNS.match(text)
    if named:
        return _NAMED, bytes.fromhex("".join(named.groups()))
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        return None
    return (_IPV4 if ip.version == 4 else _IPV6), ip.packed


def _address(text: str) -> tuple[int, bytes] | None:
    """A candidate's address as (type, bytes), or None when it is not one a phone on a Wi-Fi can have."""
    found = _encoded(text)
    if found is None or found[0] == _NAMED:
        return found
    return found if local_address(ipaddress.ip_address(text)) else None


def local_address(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """An address a phone can have on a Wi-Fi, and nothing a code could aim a browser at: a private
    range (10/8, 172.16/12, 192.168/16, IPv6 unique local fc00::/7 ...), IPv6 link-local (fe80::/10);
    never a public address (8.8.8.8), loopback (127.0.0.1), IPv4 link-local (169.254.169.254, a cloud's
    metadata service), multicast, broadcast or unspecified. (Python's `is_global` is False for every
    range no public host is reachable at, documentation ranges included.)"""
    if ip.is_global or ip.is_loopback or ip.is_multicast or ip.is_unspecified or ip.is_reserved:
        return False
    if ip.version == 4 and (ip.is_link_local or int(ip) == 0xFFFFFFFF):
        return False
    return not (ip.version == 6 and getattr(ip, "ipv4_mapped", None) is not None)


def pack(p: Pairing) -> str:
    """The code: `RK` and base 32 (QR alphanumeric text)."""
    _check(p)
    out = bytearray([PAIRING_VERSION << 4 | KINDS.index(p.kind)])
    out += bytes.fromhex(p.token)
    for text in (p.ufrag, p.pwd):
        out += bytes([len(text)]) + text.encode("ascii")
    out += p.fingerprint + bytes([len(p.candidates)])
    for address, port in p.candidates:
        kind, raw = _encoded(address) or (0, b"")
        out += bytes([kind]) + raw + port.to_bytes(2, "big")
    out += zlib.crc32(bytes(out)).to_bytes(4, "big")
    return PREFIX + base64.b32encode(bytes(out)).decode("ascii").rstrip("=")


def read_code(text: str, kind: str) -> Pairing:
    """A scanned or pasted code (bare, or an offer's join link) read whole, checked, of the kind
    expected here. Every refusal says what to do."""
    text = (text or "")[:MAX_CODE + 1]
    if len(text) > MAX_CODE:
        raise PairingError("That is too long to be a table code.")
    text = text.strip()
    if JOIN_FRAGMENT in text:
        text = text.rsplit(JOIN_FRAGMENT, 1)[1]
    code = re.sub(r"\s+", "", text).upper()
    if not code.startswith(PREFIX) or not re.fullmatch(r"[A-Z2-7]+", code[len(PREFIX):]):
        raise PairingError("That is not a Roundkeeper table code.")
    body = code[len(PREFIX):]
    try:
        raw = base64.b32decode(body + "=" * (-len(body) % 8))
    except ValueError:
        raise PairingError("That table code is damaged: scan it again.") from None
    if len(raw) < 5 or zlib.crc32(raw[:-4]).to_bytes(4, "big") != raw[-4:]:
        raise PairingError("That table code is damaged: scan it again.")
    if raw[0] >> 4 != PAIRING_VERSION:
        raise PairingError("That table code is from another version of Roundkeeper: both phones should reload the app.")
    if (raw[0] & 15) >= len(KINDS):
        raise PairingError("That is not a Roundkeeper table code.")
    found_kind = KINDS[raw[0] & 15]
    if found_kind != kind:
        raise PairingError("That is the game master's code: the player's phone reads it (Menu → Join a table)."
                           if found_kind == "offer" else
                           "That is a player's answer: the game master's phone reads it (Live table → No internet).")
    try:
        return _unpack(raw[:-4], found_kind)
    except (IndexError, ValueError, UnicodeDecodeError):
        raise PairingError("That table code is damaged: scan it again.") from None


def _unpack(raw: bytes, kind: str) -> Pairing:
    at = 5
    token = raw[1:5].hex()
    texts = []
    for _ in range(2):
        size = raw[at]
        texts.append(raw[at + 1:at + 1 + size].decode("ascii"))
        if len(texts[-1]) != size:
            raise ValueError("cut")
        at += 1 + size
    fingerprint = raw[at:at + 32]
    at += 32
    count = raw[at]
    at += 1
    if count > MAX_CANDIDATES:
        raise PairingError("A code names one to six addresses.")
    candidates = []
    for _ in range(count):
        kind_byte = raw[at]
        if kind_byte not in (_IPV4, _IPV6, _NAMED):
            raise ValueError("address type")
        size = 4 if kind_byte == _IPV4 else 16
        data = raw[at + 1:at + 1 + size]
        port = int.from_bytes(raw[at + 1 + size:at + 3 + size], "big")
        if len(data) != size or at + 3 + size > len(raw):
            raise ValueError("cut")
        at += 3 + size
        if kind_byte == _NAMED:
            h = data.hex()
            address = f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}.local"
        else:
            address = str(ipaddress.ip_address(data))
        candidates.append((address, port))
    if at != len(raw):
        raise ValueError("trailing bytes")
    found = Pairing(kind, token, texts[0], texts[1], fingerprint, tuple(candidates))
    _check(found)
    return found


def sdp_of(p: Pairing, session: int = 1) -> str:
    """The session description a browser takes as the remote side: one data channel (SCTP over
    DTLS over ICE), the code's checked pieces and nothing else."""
    _check(p)
    lines = [
        "v=0",
        f"o=- {session} 2 IN IP4 127.0.0.1",
        "s=-",
        "t=0 0",
        "a=group:BUNDLE 0",
        "a=msid-semantic: WMS",
        "m=application 9 UDP/DTLS/SCTP webrtc-datachannel",
        "c=IN IP4 0.0.0.0",
    ]
    for i, (address, port) in enumerate(p.candidates):
        lines.append(f"a=candidate:{i + 1} 1 udp {2122260223 - i * 256} {address} {port} typ host generation 0")
    lines += [
        f"a=ice-ufrag:{p.ufrag}",
        f"a=ice-pwd:{p.pwd}",
        "a=ice-options:trickle",
        "a=fingerprint:sha-256 " + ":".join(f"{b:02X}" for b in p.fingerprint),
        f"a=setup:{'actpass' if p.kind == 'offer' else 'active'}",
        "a=mid:0",
        "a=sctp-port:5000",
        "a=max-message-size:262144",
    ]
    return "\r\n".join(lines) + "\r\n"


def same_network(offer: Pairing, answer: Pairing) -> bool | None:
    """Whether the two phones seem to share a network: True when an IPv4 address of each is in one
    /24 (a home or venue Wi-Fi, a phone's hotspot), False when both name IPv4 addresses and no two
    share one, None when it cannot be told (only hidden .local names or IPv6 on a side)."""
    def nets(p: Pairing) -> set[ipaddress.IPv4Network] | None:
        found = set()
        for address, _ in p.candidates:
            try:
                ip = ipaddress.ip_address(address)
            except ValueError:
                continue  # a hidden .local name
            if ip.version != 4:
                continue
            found.add(ipaddress.IPv4Network(f"{ip}/24", strict=False))
        return found or None

    ours, theirs = nets(offer), nets(answer)
    if ours is None or theirs is None:
        return None
    return bool(ours & theirs)


def join_link(base: str, p: Pairing) -> str:
    """An offer as a link to this site's join step (what the QR code holds: a phone's own camera
    opens it too)."""
    return base + JOIN_FRAGMENT + pack(p)
