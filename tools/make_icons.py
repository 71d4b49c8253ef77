"""Draw Roundkeeper's icons (a d20 outline on the app's dark colour) as PNGs, standard library only.

Run once when the design changes: python3 tools/make_icons.py (writes static/icons/).
"""

from __future__ import annotations

import math
import struct
import zlib
from pathlib import Path

BG = (20, 22, 28)
GOLD = (242, 184, 75)
OUT = Path(__file__).resolve().parent.parent / "static" / "icons"


def png(width: int, pixels: list[bytes]) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    raw = b"".join(b"\0" + row for row in pixels)
    header = struct.pack(">IIBBBBB", width, width, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


def hexagon(cx: float, cy: float, r: float) -> list[tuple[float, float]]:
    return [(cx + r * math.sin(math.pi / 3 * i), cy - r * math.cos(math.pi / 3 * i)) for i in range(6)]


def seg_dist(px: float, py: float, a: tuple[float, float], b: tuple[float, float]) -> float:
    ax, ay = a
    bx, by = b
    dx, dy = bx - ax, by - ay
    t = max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)))
    return math.hypot(px - ax - t * dx, py - ay - t * dy)


def draw(size: int, scale: float) -> bytes:
    c = size / 2
    hexa = hexagon(c, c, size * 0.40 * scale)
    tri = [hexa[0], hexa[2], hexa[4]]
    tri = [(c + (x - c) * 0.55, c + (y - c) * 0.55 + size * 0.03 * scale) for x, y in [hexa[0], hexa[2], hexa[4]]]
    segments = [(hexa[i], hexa[(i + 1) % 6]) for i in range(6)]
    segments += [(tri[i], tri[(i + 1) % 3]) for i in range(3)]
    segments += [(hexa[0], tri[0]), (hexa[2], tri[1]), (hexa[4], tri[2])]
    segments += [(hexa[1], tri[0]), (hexa[1], tri[1]), (hexa[3], tri[1]), (hexa[3], tri[2]), (hexa[5], tri[2]), (hexa[5], tri[0])]
    width = size * 0.028 * scale
    rows = []
    for y in range(size):
        row = bytearray()
        for x in range(size):
            d = min(seg_dist(x + 0.5, y + 0.5, a, b) for a, b in segments)
            alpha = max(0.0, min(1.0, width - d + 0.5))
            row += bytes(round(BG[i] + (GOLD[i] - BG[i]) * alpha) for i in range(3))
        rows.append(bytes(row))
    return png(size, rows)


if __name__ == "__main__":
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "icon-192.png").write_bytes(draw(192, 1.0))
    (OUT / "icon-512.png").write_bytes(draw(512, 1.0))
    (OUT / "maskable-512.png").write_bytes(draw(512, 0.72))  # inside the maskable safe zone
    (OUT / "apple-touch-icon.png").write_bytes(draw(180, 0.85))
