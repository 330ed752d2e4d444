#!/usr/bin/env python3
"""Generate tilepath's tileset and unit sprite (Python 3 standard library only).

Writes, next to this script's parent folder:
  assets/tiles.png  one row of 32x32 tiles, in this order (the app's `TileLook` indices):
                    0 floor, 1 wall, 2 start, 3 goal, 4 path, 5 visited, 6 frontier,
                    7 grass, 8 mud, 9 water, 10 trees, 11 shallows
                    (start, goal, path, visited and frontier are drawn over the terrain, so
                    they are partly transparent)
  assets/unit.png   one row of 32x32 frames of a top-down unit facing right (+x):
                    frame 0 stands, frames 0..4 loop as the walk cycle

Run: python3 assets/tools/make_tiles.py   (deterministic: same bytes every run)
"""

import os
import random
import struct
import zlib

TILE = 32
HERE = os.path.dirname(os.path.abspath(__file__))
ASSETS = os.path.dirname(HERE)


class Canvas:
    """An RGBA image with straight (non-premultiplied) alpha and "over" blending."""

    def __init__(self, width, height):
        self.width = width
        self.height = height
        self.px = [[0, 0, 0, 0] for _ in range(width * height)]

    def blend(self, x, y, rgb, alpha):
        """Composite colour `rgb` with opacity `alpha` (0..1) over pixel (x, y)."""
        if not (0 <= x < self.width and 0 <= y < self.height) or alpha <= 0:
            return
        dst = self.px[y * self.width + x]
        da = dst[3] / 255.0
        out_a = alpha + da * (1 - alpha)
        for i in range(3):
            c = (rgb[i] * alpha + dst[i] * da * (1 - alpha)) / out_a
            dst[i] = int(round(c))
        dst[3] = int(round(out_a * 255))

    def rect(self, x0, y0, x1, y1, rgb, alpha=1.0):
        """Fill the half-open pixel rectangle [x0, x1) x [y0, y1)."""
        for y in range(y0, y1):
            for x in range(x0, x1):
                self.blend(x, y, rgb, alpha)

    def shape(self, inside, box, rgb, alpha=1.0, samples=4):
        """Fill where `inside(fx, fy)` holds, anti-aliased by supersampling each pixel."""
        x0, y0, x1, y1 = box
        n = samples * samples
        for y in range(max(0, y0), min(self.height, y1)):
            for x in range(max(0, x0), min(self.width, x1)):
                hits = 0
                for sy in range(samples):
                    for sx in range(samples):
                        if inside(x + (sx + 0.5) / samples, y + (sy + 0.5) / samples):
                            hits += 1
                if hits:
                    self.blend(x, y, rgb, alpha * hits / n)

    def ellipse(self, cx, cy, rx, ry, rgb, alpha=1.0):
        box = (int(cx - rx) - 1, int(cy - ry) - 1, int(cx + rx) + 2, int(cy + ry) + 2)
        self.shape(lambda fx, fy: ((fx - cx) / rx) ** 2 + ((fy - cy) / ry) ** 2 <= 1.0,
                   box, rgb, alpha)

    def circle(self, cx, cy, r, rgb, alpha=1.0):
        self.ellipse(cx, cy, r, r, rgb, alpha)

    def ring(self, cx, cy, r_out, r_in, rgb, alpha=1.0):
        box = (int(cx - r_out) - 1, int(cy - r_out) - 1, int(cx + r_out) + 2, int(cy + r_out) + 2)

        def inside(fx, fy):
            d2 = (fx - cx) ** 2 + (fy - cy) ** 2
            return r_in * r_in <= d2 <= r_out * r_out

        self.shape(inside, box, rgb, alpha)

    def polygon(self, points, rgb, alpha=1.0):
        xs = [p[0] for p in points]
        ys = [p[1] for p in points]
        box = (int(min(xs)) - 1, int(min(ys)) - 1, int(max(xs)) + 2, int(max(ys)) + 2)

        def inside(fx, fy):
            # even-odd rule
            result = False
            j = len(points) - 1
            for i, (xi, yi) in enumerate(points):
                xj, yj = points[j]
                if (yi > fy) != (yj > fy) and fx < (xj - xi) * (fy - yi) / (yj - yi) + xi:
                    result = not result
                j = i
            return result

        self.shape(inside, box, rgb, alpha)

    def png(self):
        """Encode as an 8-bit RGBA PNG."""
        raw = bytearray()
        for y in range(self.height):
            raw.append(0)  # filter type: none
            for x in range(self.width):
                raw.extend(self.px[y * self.width + x])

        def chunk(kind, data):
            body = kind + data
            return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

        header = struct.pack(">IIBBBBB", self.width, self.height, 8, 6, 0, 0, 0)
        return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
                + chunk(b"IDAT", zlib.compress(bytes(raw), 9)) + chunk(b"IEND", b""))


def hexrgb(text):
    text = text.lstrip("#")
    return tuple(int(text[i:i + 2], 16) for i in (0, 2, 4))


def shade(rgb, delta):
    return tuple(max(0, min(255, c + delta)) for c in rgb)


def noisy_fill(cv, ox, base, spread, rng):
    """Fill a tile with `base` plus a little per-pixel brightness noise."""
    for y in range(TILE):
        for x in range(TILE):
            cv.blend(ox + x, y, shade(base, rng.randint(-spread, spread)), 1.0)


def grid_edge(cv, ox, rgb, alpha):
    """A one-pixel line on the right and bottom edges: neighbouring tiles read as a grid."""
    cv.rect(ox + TILE - 1, 0, ox + TILE, TILE, rgb, alpha)
    cv.rect(ox, TILE - 1, ox + TILE - 1, TILE, rgb, alpha)


def draw_floor(cv, ox, rng):
    noisy_fill(cv, ox, hexrgb("#ebe6da"), 3, rng)
    grid_edge(cv, ox, hexrgb("#b9b09c"), 0.55)


def draw_wall(cv, ox, rng):
    base = hexrgb("#3b4250")
    noisy_fill(cv, ox, base, 3, rng)
    mortar = hexrgb("#272c36")
    light = hexrgb("#566077")
    # two rows of bricks per half tile, offset every other row
    for row in range(4):
        y0 = row * 8
        cv.rect(ox, y0 + 7, ox + TILE, y0 + 8, mortar)
        cv.rect(ox, y0, ox + TILE, y0 + 1, light, 0.5)
        offset = 0 if row % 2 == 0 else 8
        for bx in range(offset, TILE + 16, 16):
            cv.rect(ox + (bx % TILE), y0, ox + (bx % TILE) + 1, y0 + 7, mortar)


def draw_start(cv, ox, _rng):
    c = ox + TILE / 2
    cv.circle(c, 16, 13, hexrgb("#0f5132"), 0.9)
    cv.circle(c, 16, 11.5, hexrgb("#2fb36b"))
    cv.ring(c, 16, 8, 6, hexrgb("#ffffff"), 0.95)
    cv.circle(c, 16, 3, hexrgb("#ffffff"))


def draw_goal(cv, ox, _rng):
    c = ox + TILE / 2
    cv.circle(c, 16, 13, hexrgb("#6b1016"), 0.9)
    cv.circle(c, 16, 11.5, hexrgb("#e0484f"))
    cv.ring(c, 16, 8.5, 6, hexrgb("#ffffff"), 0.95)
    cv.circle(c, 16, 3.5, hexrgb("#6b1016"))


def draw_path(cv, ox, _rng):
    amber = hexrgb("#f2a93b")
    cv.rect(ox, 0, ox + TILE, TILE, amber, 0.38)
    cv.circle(ox + TILE / 2, 16, 6, hexrgb("#b86e0c"))
    cv.circle(ox + TILE / 2, 16, 4.8, amber)


def draw_visited(cv, ox, _rng):
    cv.rect(ox, 0, ox + TILE, TILE, hexrgb("#5b9bd5"), 0.35)
    cv.ring(ox + TILE / 2, 16, 3, 1.5, hexrgb("#2f6fa8"), 0.6)


def draw_frontier(cv, ox, _rng):
    green = hexrgb("#57c46a")
    cv.rect(ox, 0, ox + TILE, TILE, green, 0.40)
    cv.rect(ox + 1, 1, ox + TILE - 1, 3, shade(green, -50), 0.7)
    cv.rect(ox + 1, TILE - 3, ox + TILE - 1, TILE - 1, shade(green, -50), 0.7)
    cv.rect(ox + 1, 3, ox + 3, TILE - 3, shade(green, -50), 0.7)
    cv.rect(ox + TILE - 3, 3, ox + TILE - 1, TILE - 3, shade(green, -50), 0.7)


def draw_grass(cv, ox, rng):
    noisy_fill(cv, ox, hexrgb("#8dc26a"), 4, rng)
    for _ in range(26):
        x = rng.randrange(1, TILE - 2)
        y = rng.randrange(3, TILE - 1)
        blade = hexrgb("#5f9a45") if rng.random() < 0.6 else hexrgb("#b2dc8a")
        cv.rect(ox + x, y - 2, ox + x + 1, y + 1, blade, 0.9)
    grid_edge(cv, ox, hexrgb("#5f8a48"), 0.45)


def draw_mud(cv, ox, rng):
    noisy_fill(cv, ox, hexrgb("#8a6a48"), 4, rng)
    for _ in range(7):
        cx = ox + rng.uniform(4, TILE - 4)
        cy = rng.uniform(4, TILE - 4)
        cv.ellipse(cx, cy, rng.uniform(2.5, 5), rng.uniform(1.5, 3), hexrgb("#6b5035"), 0.8)
    for _ in range(4):
        cv.circle(ox + rng.uniform(3, TILE - 3), rng.uniform(3, TILE - 3), 1.2,
                  hexrgb("#ad8a63"), 0.9)
    grid_edge(cv, ox, hexrgb("#5c4630"), 0.45)


def draw_water(cv, ox, rng):
    noisy_fill(cv, ox, hexrgb("#3f86c4"), 3, rng)
    crest = hexrgb("#8cc4ec")
    for row, y in enumerate((7, 17, 27)):
        shift = 0 if row % 2 == 0 else 8
        for x in range(TILE):
            # a gentle zigzag wave, 16 px long
            phase = (x + shift) % 16
            dy = phase // 4 if phase < 8 else (16 - phase) // 4
            cv.blend(ox + x, y - dy, crest, 0.75 if 2 < phase < 14 else 0.35)
    grid_edge(cv, ox, hexrgb("#2c6596"), 0.45)


def draw_shallows(cv, ox, rng):
    # The brush's slow ground: pale sandy shallows with a light ripple, so it never reads as the
    # deep blue water class of the Moving AI maps (which only connects to water).
    noisy_fill(cv, ox, hexrgb("#b9d9c9"), 4, rng)
    for _ in range(9):
        cv.circle(ox + rng.uniform(3, TILE - 3), rng.uniform(3, TILE - 3), 1.3, hexrgb("#d9c89a"), 0.9)
    ripple = hexrgb("#6fb1b8")
    for y in (10, 23):
        for x in range(4, TILE - 4):
            phase = (x + y) % 8
            dy = 1 if phase < 4 else 0
            cv.blend(ox + x, y - dy, ripple, 0.7)
    grid_edge(cv, ox, hexrgb("#7fa899"), 0.45)


def draw_trees(cv, ox, rng):
    noisy_fill(cv, ox, hexrgb("#4f7f3c"), 4, rng)
    # three round canopies with a shadow and a highlight, seen from above
    for cx, cy, r in ((9.5, 10, 7), (22.5, 12, 7.5), (15, 23, 7)):
        cv.circle(ox + cx + 1.5, cy + 1.5, r, hexrgb("#233d1b"), 0.6)
        cv.circle(ox + cx, cy, r, hexrgb("#2f6b2a"))
        cv.circle(ox + cx - r * 0.3, cy - r * 0.3, r * 0.45, hexrgb("#4f9a43"), 0.8)
    grid_edge(cv, ox, hexrgb("#2e4a24"), 0.45)


TILES = [draw_floor, draw_wall, draw_start, draw_goal, draw_path, draw_visited,
         draw_frontier, draw_grass, draw_mud, draw_water, draw_trees, draw_shallows]

UNIT_FRAMES = 4
# Leg swing per frame, in pixels along the heading (+x): stand, step, stand, other step.
LEG_SWING = [0, 3, 0, -3]


def draw_unit_frame(cv, ox, frame):
    """A top-down round walker facing +x: six legs, a violet shell, a visor at the front."""
    cx, cy = ox + 16, 16
    leg = hexrgb("#2b1846")
    swing = LEG_SWING[frame]
    for i, lx in enumerate((-6, 0, 6)):
        # alternate tripods, like an insect: legs 0 and 2 on one side move with leg 1 opposite
        s = swing if i % 2 == 0 else -swing
        for side in (-1, 1):
            ss = s * side
            x = cx + lx + ss
            cv.polygon([(cx + lx - 1.2, cy), (cx + lx + 1.2, cy),
                        (x + 1.2, cy + side * 13), (x - 1.2, cy + side * 13)], leg)
    cv.ellipse(cx + 0.5, cy + 1.2, 12, 10.5, hexrgb("#000000"), 0.25)  # shadow
    cv.ellipse(cx, cy, 12, 10.5, hexrgb("#3b2066"))
    cv.ellipse(cx, cy, 10.8, 9.3, hexrgb("#9b5de5"))
    cv.ellipse(cx - 2.5, cy - 3, 5, 3, hexrgb("#c9a3f5"), 0.7)  # highlight
    # visor: a bright band on the front (right) side, so the heading is obvious
    cv.polygon([(cx + 4, cy - 6), (cx + 10.5, cy - 3), (cx + 10.5, cy + 3), (cx + 4, cy + 6)],
               hexrgb("#1d1035"))
    cv.polygon([(cx + 5.2, cy - 4.4), (cx + 9.4, cy - 2.3), (cx + 9.4, cy + 2.3),
                (cx + 5.2, cy + 4.4)], hexrgb("#5ef2e4"))


def write(path, canvas):
    data = canvas.png()
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)
    print(f"wrote {os.path.relpath(path)} ({canvas.width}x{canvas.height}, {len(data)} bytes)")


def main():
    tiles = Canvas(TILE * len(TILES), TILE)
    for i, draw in enumerate(TILES):
        draw(tiles, i * TILE, random.Random(1000 + i))
    write(os.path.join(ASSETS, "tiles.png"), tiles)

    unit = Canvas(TILE * UNIT_FRAMES, TILE)
    for frame in range(UNIT_FRAMES):
        draw_unit_frame(unit, frame * TILE, frame)
    write(os.path.join(ASSETS, "unit.png"), unit)


if __name__ == "__main__":
    main()
