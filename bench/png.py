"""A minimal pure-Python PNG bar chart (used when matplotlib is not installed).

Grouped bars on a log scale, drawn from the 1x line (up for a speedup, down for
a slowdown), gridlines at powers of ten, a legend, and labels in a built-in 3x5
pixel font.  The PNG is written with :mod:`zlib` only.
"""

from __future__ import annotations

import math
import struct
import zlib
from collections.abc import Sequence
from pathlib import Path

RGB = tuple[int, int, int]

_FONT: dict[str, tuple[str, ...]] = {
    "A": (".#.", "#.#", "###", "#.#", "#.#"), "B": ("##.", "#.#", "##.", "#.#", "##."),
    "C": (".##", "#..", "#..", "#..", ".##"), "D": ("##.", "#.#", "#.#", "#.#", "##."),
    "E": ("###", "#..", "##.", "#..", "###"), "F": ("###", "#..", "##.", "#..", "#.."),
    "G": (".##", "#..", "#.#", "#.#", ".##"), "H": ("#.#", "#.#", "###", "#.#", "#.#"),
    "I": ("###", ".#.", ".#.", ".#.", "###"), "J": ("..#", "..#", "..#", "#.#", ".#."),
    "K": ("#.#", "#.#", "##.", "#.#", "#.#"), "L": ("#..", "#..", "#..", "#..", "###"),
    "M": ("#.#", "###", "###", "#.#", "#.#"), "N": ("##.", "#.#", "#.#", "#.#", "#.#"),
    "O": (".#.", "#.#", "#.#", "#.#", ".#."), "P": ("##.", "#.#", "##.", "#..", "#.."),
    "Q": (".#.", "#.#", "#.#", "##.", ".##"), "R": ("##.", "#.#", "##.", "#.#", "#.#"),
    "S": (".##", "#..", ".#.", "..#", "##."), "T": ("###", ".#.", ".#.", ".#.", ".#."),
    "U": ("#.#", "#.#", "#.#", "#.#", "###"), "V": ("#.#", "#.#", "#.#", "#.#", ".#."),
    "W": ("#.#", "#.#", "###", "###", "#.#"), "X": ("#.#", "#.#", ".#.", "#.#", "#.#"),
    "Y": ("#.#", "#.#", ".#.", ".#.", ".#."), "Z": ("###", "..#", ".#.", "#..", "###"),
    "0": ("###", "#.#", "#.#", "#.#", "###"), "1": (".#.", "##.", ".#.", ".#.", "###"),
    "2": ("##.", "..#", ".#.", "#..", "###"), "3": ("##.", "..#", ".#.", "..#", "##."),
    "4": ("#.#", "#.#", "###", "..#", "..#"), "5": ("###", "#..", "##.", "..#", "##."),
    "6": (".##", "#..", "###", "#.#", "###"), "7": ("###", "..#", ".#.", ".#.", ".#."),
    "8": ("###", "#.#", "###", "#.#", "###"), "9": ("###", "#.#", "###", "..#", "##."),
    "-": ("...", "...", "###", "...", "..."), ".": ("...", "...", "...", "...", ".#."),
    " ": ("...", "...", "...", "...", "..."), "(": (".#.", "#..", "#..", "#..", ".#."),
    ")": (".#.", "..#", "..#", "..#", ".#."), "/": ("..#", "..#", ".#.", "#..", "#.."),
    "_": ("...", "...", "...", "...", "###"), "=": ("...", "###", "...", "###", "..."),
    ":": ("...", ".#.", "...", ".#.", "..."), ",": ("...", "...", "...", ".#.", "#.."),
    "%": ("#.#", "..#", ".#.", "#..", "#.#"), ">": ("#..", ".#.", "..#", ".#.", "#.."),
}

PALETTE: tuple[RGB, ...] = ((31, 119, 180), (255, 127, 14), (44, 160, 44), (214, 39, 40),
                            (148, 103, 189), (140, 86, 75), (227, 119, 194))
WHITE, BLACK, GREY = (255, 255, 255), (0, 0, 0), (200, 200, 200)


class Canvas:
    """An RGB pixel buffer with rectangles and bitmap text."""

    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.pixels = bytearray(WHITE * (width * height))

    def rect(self, x0: int, y0: int, x1: int, y1: int, color: RGB) -> None:
        """Fill ``[x0, x1) x [y0, y1)`` (clipped; corners in any order)."""
        x0, x1 = sorted((max(0, min(x0, self.width)), max(0, min(x1, self.width))))
        y0, y1 = sorted((max(0, min(y0, self.height)), max(0, min(y1, self.height))))
        row = bytes(color) * (x1 - x0)
        for y in range(y0, y1):
            start = 3 * (y * self.width + x0)
            self.pixels[start:start + len(row)] = row

    def text(self, x: int, y: int, s: str, color: RGB = BLACK, scale: int = 2,
             vertical: bool = False) -> None:
        """Draw ``s`` with its top-left at (x, y); ``vertical`` reads bottom to top."""
        step = 4 * scale
        for n, ch in enumerate(s.upper()):
            glyph = _FONT.get(ch, _FONT["."])
            for gy, line in enumerate(glyph):
                for gx, bit in enumerate(line):
                    if bit != "#":
                        continue
                    if vertical:  # rotated 90 degrees counter-clockwise
                        px, py = x + gy * scale, y - n * step - gx * scale
                    else:
                        px, py = x + n * step + gx * scale, y + gy * scale
                    self.rect(px, py, px + scale, py + scale, color)

    def png(self) -> bytes:
        raw = b"".join(b"\x00" + bytes(self.pixels[3 * self.width * y:3 * self.width * (y + 1)])
                       for y in range(self.height))

        def chunk(kind: bytes, data: bytes) -> bytes:
            return (struct.pack(">I", len(data)) + kind + data
                    + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

        header = struct.pack(">IIBBBBB", self.width, self.height, 8, 2, 0, 0, 0)
        return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
                + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def _text_width(s: str, scale: int = 2) -> int:
    return 4 * scale * len(s)


def bar_chart(path: Path, groups: Sequence[str],
              series: Sequence[tuple[str, Sequence[float | None]]], title: str) -> None:
    """Write a grouped, log-scale bar chart of ratios (1 = the baseline) as a PNG."""
    values = [v for _, vs in series for v in vs if v]
    lo = 10 ** math.floor(math.log10(min(values + [1.0]) * 0.999))
    hi = 10 ** math.ceil(math.log10(max(values + [1.0]) * 1.001))
    if hi <= lo:
        hi = lo * 10
    bar_w, gap = 7, 10
    group_w = bar_w * len(series) + gap
    label_h = max((_text_width(g) for g in groups), default=0) + 10
    left, top, plot_h = 70, 40 + 14 * len(series), 320
    legend_w = max((_text_width(n) for n, _ in series), default=0) + 24
    width = max(left + group_w * len(groups) + 20, left + _text_width(title) + 10,
                left + legend_w + 10)
    height = top + plot_h + label_h
    c = Canvas(width, height)
    c.text(left, 10, title)

    def y_of(v: float) -> int:
        frac = (math.log10(v) - math.log10(lo)) / (math.log10(hi) - math.log10(lo))
        return top + plot_h - round(frac * plot_h)

    for e in range(round(math.log10(lo)), round(math.log10(hi)) + 1):
        y = y_of(10.0**e)
        c.rect(left, y, width - 10, y + 1, GREY if e else BLACK)
        c.text(4, y - 5, f"{10.0**e:g}X")
    c.rect(left - 1, top, left, top + plot_h + 1, BLACK)
    base = y_of(1.0)
    for k, (name, vs) in enumerate(series):
        color = PALETTE[k % len(PALETTE)]
        c.rect(left, 28 + 14 * k, left + 10, 38 + 14 * k, color)
        c.text(left + 14, 28 + 14 * k, name)
        for g, v in enumerate(vs):
            if not v:
                continue
            x = left + 4 + g * group_w + k * bar_w
            c.rect(x, base, x + bar_w - 1, y_of(min(max(v, lo), hi)), color)
    for g, name in enumerate(groups):
        x = left + 4 + g * group_w + (group_w - gap) // 2 - 5
        c.text(x, top + plot_h + 6 + _text_width(name), name, vertical=True)
    path.write_bytes(c.png())
