#!/usr/bin/env python3
"""Checks the screenshots of the real-window scripts (Python 3 standard library only).

Usage: check_screenshot.py DEMO.png   (tests/scripts/demo.txt; reads DEMO.json next to it)
       check_screenshot.py --lab DIR  (tests/scripts/search.txt and tutorial.txt, run in DIR)
       check_screenshot.py --crowd DIR  (tests/scripts/crowd.txt, run in DIR)
       check_screenshot.py --maps DIR  (tests/scripts/maps.txt, run in DIR)
       check_screenshot.py --fit DIR  (tests/scripts/fit.txt, run in DIR)

The app writes the layout — where cell (0, 0) is in the image and how many pixels a cell is —
when it takes the screenshot, so these checks need no knowledge of the camera. The cells below
follow from assets/maps/default.map and the script: the script walls off the upper gap of the
first long wall at (13, 9), so the route must use the lower gap (13, 22), and the goal room's
only door is (31, 25).
"""

import json
import os
import struct
import sys
import zlib

PATH_CELLS = [(13, 22), (31, 25)]          # forced route cells: amber path dot
WALL_CELLS = [(13, 9), (6, 24), (2, 24)]   # painted by the script: slate wall
START = (4, 20)                            # placed with the S key
GOAL = (37, 24)                            # the goal marker was dragged here


def read_png(path):
    """Decodes an 8-bit RGB or RGBA PNG into (width, height, rows of (r, g, b))."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path} is not a PNG")
    pos, idat, header = 8, b"", None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    width, height, depth, color, _, _, interlace = header
    if depth != 8 or color not in (2, 6) or interlace:
        raise ValueError(f"unsupported PNG: depth {depth}, colour type {color}, interlace {interlace}")
    bpp = 3 if color == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(height):
        kind = raw[i]
        line = bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if kind == 1:
                line[x] = (line[x] + a) & 255
            elif kind == 2:
                line[x] = (line[x] + b) & 255
            elif kind == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[x] = (line[x] + pred) & 255
        rows.append([tuple(line[x:x + 3]) for x in range(0, stride, bpp)])
        prev = line
    return width, height, rows


class Shot:
    def __init__(self, png_path):
        self.width, self.height, self.rows = read_png(png_path)
        with open(png_path.rsplit(".", 1)[0] + ".json") as f:
            self.layout = json.load(f)
        self.step = self.layout["cell_pixels"]
        self.x0, self.y0 = self.layout["cell0_center"]

    def centre(self, cell):
        return self.x0 + cell[0] * self.step, self.y0 + cell[1] * self.step

    def pixels(self, cell, fraction):
        """Pixels in the middle `fraction` of a cell's box."""
        cx, cy = self.centre(cell)
        half = self.step * fraction / 2
        out = []
        for y in range(int(cy - half + 0.5), int(cy + half + 0.5)):
            for x in range(int(cx - half + 0.5), int(cx + half + 0.5)):
                if 0 <= x < self.width and 0 <= y < self.height:
                    out.append(self.rows[y][x])
        return out

    def corner_mean(self, cell):
        """Mean colour of a small box in a cell's top-left corner, clear of centred text."""
        cx, cy = self.centre(cell)
        x0, y0 = int(cx - self.step * 0.42), int(cy - self.step * 0.42)
        size = max(1, int(self.step * 0.12))
        px = [self.rows[y][x] for y in range(y0, y0 + size) for x in range(x0, x0 + size)
              if 0 <= x < self.width and 0 <= y < self.height] or [(0, 0, 0)]
        return tuple(sum(p[i] for p in px) / len(px) for i in range(3))

    def mean(self, cell, fraction=0.15):
        px = self.pixels(cell, fraction) or [(0, 0, 0)]
        return tuple(sum(p[i] for p in px) / len(px) for i in range(3))


def is_path(rgb):      # the amber dot of the path tile (#f2a93b)
    r, g, b = rgb
    return r > 200 and 130 < g < 200 and b < 110


def is_wall(rgb):      # slate brick (#3b4250)
    r, g, b = rgb
    return max(r, g, b) < 110 and b >= r


def is_unit(rgb):      # violet shell (#9b5de5)
    r, g, b = rgb
    return 110 < r < 200 and g < 140 and b > 180


def is_start(rgb):     # green start marker (#2fb36b)
    r, g, b = rgb
    return g > 140 and r < 110 and b < 150


def is_heat_near(rgb):  # the goal end of the heat scale: yellow
    r, g, b = rgb
    return r > 180 and g > 170 and b < 120


def is_heat_far(rgb):   # the far end of the heat scale: slate blue
    r, g, b = rgb
    return b > r + 20 and r < 130


def check_lab(folder):
    """The search lab: the replay paused mid-way, the race table, the flow-field views."""
    failures = []

    def check(ok, message):
        print(("ok   " if ok else "FAIL ") + message)
        if not ok:
            failures.append(message)

    anim = Shot(f"{folder}/animation.png")
    a = anim.layout["animation"]
    check(0 < a["applied"] < a["total"] and a["paused"],
          f"the replay is paused mid-way: {a['applied']} of {a['total']} events")
    banner = ui_rects(anim, "Replay banner")
    check(len(banner) == 1 and inside(anim, banner[0][1]) and has_text(anim, banner[0][1]),
          f"the pause is shown over the map: {banner}")
    units = anim.layout["units"]
    check(len(units) == 1 and tuple(units[0]["cell"]) == tuple(anim.layout["start"]),
          f"the unit waits on the start during the replay: {units}")

    race = Shot(f"{folder}/race.png")
    check(race.layout["race_rows"] == 8, f"the race table has 8 rows: {race.layout['race_rows']}")
    a = race.layout["animation"]
    check(a["applied"] == a["total"], "Esc skipped the replay to its end")

    flow = Shot(f"{folder}/flow.png")
    check(flow.layout["flow_field"], "the flow-field view is on")
    near, far = flow.mean((35, 26), 0.3), flow.mean((2, 20), 0.3)  # (2, 28) is under the notices
    check(is_heat_near(near), f"heat next to the goal is yellow: rgb {tuple(round(c) for c in near)}")
    check(is_heat_far(far), f"heat far from the goal is blue: rgb {tuple(round(c) for c in far)}")

    tutorial = Shot(f"{folder}/tutorial-flow.png")
    check(tutorial.layout["map"] == {"width": 10, "height": 10}, "the tutorial map is shown")
    check(tutorial.step > 40, f"its cells are big enough for numbers ({tutorial.step:.1f} px)")
    near = tutorial.corner_mean((6, 4))
    check(is_heat_near(near), f"heat next to the tutorial's goal is yellow: rgb {tuple(round(c) for c in near)}")
    if failures:
        sys.exit(f"{len(failures)} lab screenshot check(s) failed")


def check_crowd(folder):
    """Crowds (tests/scripts/crowd.txt): brushes painted terrain, 300 units walk to the goal."""
    shot = Shot(os.path.join(folder, "crowd.png"))
    failures = []

    def check(ok, message):
        print(("ok   " if ok else "FAIL ") + message)
        if not ok:
            failures.append(message)

    units = shot.layout["units"]
    check(len(units) == 301, f"the lab unit plus 3 x 100 spawned units: {len(units)}")
    check(all(u["status"] in ("walking", "arrived") for u in units), "every unit has a route")
    mud, grass, water = shot.mean((20, 19), 0.5), shot.mean((30, 2), 0.5), shot.mean((5, 24), 0.5)
    check(mud[1] > mud[2] + 20 and sum(mud) < 450, f"mud painted at (20,19): {mud}")
    check(grass[1] > grass[0] + 30 and grass[1] > grass[2] + 30 and sum(grass) >= 400, f"grass at (30,2): {grass}")
    # The shallows brush: pale, never the deep blue of the maps' water class.
    check(sum(water) > 520 and water[2] < water[0] + 40, f"shallows painted at (5,24), pale: {water}")
    def sprite_near(u, r=4):
        # Crowded units overlap and the lab unit may cover one: look a few pixels around the centre.
        cx, cy = round(u["pixel"][0]), round(u["pixel"][1])
        return any(rgb[2] > rgb[0] + 60 and rgb[2] > rgb[1] + 60
                   for y in range(max(0, cy - r), min(shot.height, cy + r + 1))
                   for x in range(max(0, cx - r), min(shot.width, cx + r + 1))
                   for rgb in [shot.rows[y][x]])

    drawn = sum(1 for u in units[1:] if sprite_near(u))
    check(drawn >= 0.75 * (len(units) - 1), f"crowd sprites are drawn where the units are: {drawn}/{len(units) - 1}")
    if failures:
        sys.exit(f"{len(failures)} crowd screenshot check(s) failed")


def check_maps(folder):
    """Maps at run time (tests/scripts/maps.txt): ] opened the tutorial map, Shift+R a maze."""
    failures = []

    def check(ok, message):
        print(("ok   " if ok else "FAIL ") + message)
        if not ok:
            failures.append(message)

    nxt = Shot(os.path.join(folder, "maps-next.png"))
    check(nxt.layout["map"] == {"width": 10, "height": 10}, f"] opened the 10x10 tutorial map: {nxt.layout['map']}")
    check(tuple(nxt.layout["start"]) == (1, 1), f"with its own start S at (1, 1): {nxt.layout['start']}")
    for cell in [(4, 1), (4, 5), (5, 6)]:     # the tutorial's walls (assets/maps/tutorial.txt)
        rgb = nxt.mean(cell, 0.5)
        check(is_wall(rgb), f"tutorial wall drawn at {cell}: rgb {tuple(round(c) for c in rgb)}")
    rgb = nxt.mean((0, 9), 0.5)
    check(not is_wall(rgb), f"tutorial floor at (0, 9): rgb {tuple(round(c) for c in rgb)}")

    maze = Shot(os.path.join(folder, "maze.png"))
    check(maze.layout["map"] == {"width": 40, "height": 30}, f"the maze has the built-in map's size: {maze.layout['map']}")
    # Corridors one cell wide on a pitch of two: where two wall lines cross, (odd, odd), is always
    # wall; the maze's cells, (even, even), are always open.
    crossings = [(x, y) for x in range(1, 39, 6) for y in range(1, 29, 6)]
    walls = sum(is_wall(maze.mean(c, 0.5)) for c in crossings)
    check(walls == len(crossings), f"maze wall crossings drawn as walls: {walls}/{len(crossings)}")
    rooms = [(x, y) for x in range(0, 38, 6) for y in range(0, 28, 6)]
    open_cells = sum(not is_wall(maze.mean(c, 0.5)) for c in rooms)
    check(open_cells == len(rooms), f"maze cells drawn open: {open_cells}/{len(rooms)}")
    path = maze.layout["path"]
    check(len(path) > 20, f"a route through the maze was planned: {len(path)} cells")
    if failures:
        sys.exit(f"{len(failures)} maps screenshot check(s) failed")


def ui_rects(shot, prefix):
    """The rectangles [left, top, right, bottom] of the UI nodes whose name starts with `prefix`."""
    return [(box["name"], box["rect"]) for box in shot.layout["ui"] if box["name"].startswith(prefix)]


def inside(shot, rect):
    left, top, right, bottom = rect
    return left >= -0.5 and top >= -0.5 and right <= shot.width + 0.5 and bottom <= shot.height + 0.5


def has_text(shot, rect):
    """Whether the rectangle holds both a dark box background and bright glyph pixels."""
    left, top, right, bottom = (int(round(v)) for v in rect)
    px = [shot.rows[y][x] for y in range(max(0, top), min(shot.height, bottom))
          for x in range(max(0, left), min(shot.width, right))]
    bright = sum(1 for p in px if max(p) > 100)
    dark = sum(1 for p in px if max(p) < 60)
    return bright > 10 and dark > 10


def check_fit(folder):
    """tests/scripts/fit.txt: at 1280x720 and 1024x600 the race table's last line, a notice, the
    panel's last row and the help overlay's last line all lie inside the window, and are drawn."""
    failures = []

    def check(ok, message):
        print(("ok   " if ok else "FAIL ") + message)
        if not ok:
            failures.append(message)

    for size, (width, height) in (("1280", (1280, 720)), ("1024", (1024, 600))):
        race = Shot(os.path.join(folder, f"fit-race-{size}.png"))
        check((race.width, race.height) == (width, height), f"the window is {width}x{height}: {race.width}x{race.height}")
        lines = sorted(ui_rects(race, "Race line "), key=lambda item: int(item[0].split()[-1]))
        check(len(lines) == 10, f"{size}: the race table has its header, 8 rows and the footer: {len(lines)} lines")
        if lines:
            name, rect = lines[-1]
            check(inside(race, rect), f"{size}: the race table's last line is inside the window: {rect}")
            check(has_text(race, rect), f"{size}: the race table's last line is drawn")
            name, rect = lines[-2]
            check(inside(race, rect) and has_text(race, rect), f"{size}: the race table's last row is drawn: {rect}")
        notices = ui_rects(race, "Notice ")
        check(len(notices) >= 1, f"{size}: a notice is shown: {[n for n, _ in notices]}")
        for name, rect in notices:
            check(inside(race, rect), f"{size}: {name} is inside the window: {rect}")
            check(has_text(race, rect), f"{size}: {name} is drawn")
        rows = ui_rects(race, "Panel: view row")
        check(len(rows) == 1 and inside(race, rows[0][1]), f"{size}: the panel's last row is inside the window: {rows}")

        helpshot = Shot(os.path.join(folder, f"fit-help-{size}.png"))
        parts = ui_rects(helpshot, "Help")
        names = sorted(n for n, _ in parts)
        check(names == ["Help", "Help column 0", "Help column 1", "Help footer"], f"{size}: the help is shown: {names}")
        for name, rect in parts:
            check(inside(helpshot, rect), f"{size}: {name} is inside the window: {rect}")
        footer = [rect for name, rect in parts if name == "Help footer"]
        check(bool(footer) and has_text(helpshot, footer[0]), f"{size}: the help's last line is drawn")
    if failures:
        sys.exit(f"{len(failures)} fit screenshot check(s) failed")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--fit":
        check_fit(sys.argv[2])
        return
    if len(sys.argv) == 3 and sys.argv[1] == "--maps":
        check_maps(sys.argv[2])
        return
    if len(sys.argv) == 3 and sys.argv[1] == "--lab":
        check_lab(sys.argv[2])
        return
    if len(sys.argv) == 3 and sys.argv[1] == "--crowd":
        check_crowd(sys.argv[2])
        return
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    shot = Shot(sys.argv[1])
    layout = shot.layout
    failures = []

    def check(ok, message):
        print(("ok   " if ok else "FAIL ") + message)
        if not ok:
            failures.append(message)

    check(layout["map"] == {"width": 40, "height": 30}, f"the built-in 40x30 map is shown: {layout['map']}")
    check(shot.step > 8, f"cells are visible ({shot.step:.1f} px each)")
    check(tuple(layout["start"]) == START, f"S put the start at {START}: {layout['start']}")
    check(tuple(layout["goal"]) == GOAL, f"the goal marker was dragged to {GOAL}: {layout['goal']}")
    units = layout["units"]
    check(len(units) == 1 and units[0]["status"] == "arrived" and tuple(units[0]["cell"]) == GOAL,
          f"the unit arrived at the goal: {units}")
    for cell in PATH_CELLS:
        rgb = shot.mean(cell)
        check(is_path(rgb), f"path tint at {cell}: rgb {tuple(round(c) for c in rgb)}")
    for cell in WALL_CELLS:
        rgb = shot.mean(cell, 0.5)
        check(is_wall(rgb), f"painted wall at {cell}: rgb {tuple(round(c) for c in rgb)}")
    goal_px = shot.pixels(GOAL, 0.9)
    share = sum(map(is_unit, goal_px)) / max(1, len(goal_px))
    check(share > 0.2, f"the unit is drawn on the goal cell ({share:.0%} of its pixels are unit violet)")
    start_px = shot.pixels(START, 0.9)
    share = sum(map(is_start, start_px)) / max(1, len(start_px))
    check(share > 0.2, f"the start marker is drawn at {START} ({share:.0%} green)")
    if failures:
        sys.exit(f"{len(failures)} screenshot check(s) failed")


if __name__ == "__main__":
    main()
