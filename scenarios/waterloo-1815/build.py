#!/usr/bin/env python3
"""Build scenarios/waterloo-1815/scenario.json from the human-editable source.

The source files next to this script:

  meta.txt     name, description, the Time Record
  crt.txt      the Combat Results Table (a reconstruction, see docs/waterloo-1815.md)
  map.txt      a picture of the board, one line per row: '.' clear, 'w' woods, '#' partial
  slopes.txt   slope squares and their high sides
  rivers.txt   each river as a chain of adjacent river squares
  roads.txt    each road as a path of adjacent squares
  places.txt   towns, entries (clockwise), exits, and the rulebook's not-river / not-woods lists
  zones.txt    the set-up zones
  units.csv    every counter: values, set-up square or arrival
  command.txt  the formations of the order of battle and the commanders of team play

Usage:
  python3 build.py           validate the source and write scenario.json
  python3 build.py --check   validate and compare with the committed scenario.json
                             (exit 1 when the source is invalid or the file differs)
  python3 build.py --render  print the board with roads, rivers and towns, for people

Every problem is reported as "file:line: what is wrong". Standard library only; the
output depends on the source alone (byte for byte).
"""

import csv
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "scenario.json")

# --------------------------------------------------------------------------------------
# The grid (docs/waterloo-board.md section 1; common/rulesets/waterloo/waterloo_grid.c)

NROWS = 49          # A..WW; row 0 is the partial row north of A
NCOLS = 57
DIRS = {"NE": (-1, 0), "E": (0, -1), "SE": (1, -1), "SW": (1, 0), "W": (0, 1), "NW": (-1, 1)}
DIR_ORDER = ["NE", "E", "SE", "SW", "W", "NW"]


def row_name(r):
    if r == 0:
        return "0"
    if r <= 26:
        return chr(ord("A") + r - 1)
    return chr(ord("A") + r - 27) * 2


ROW_BY_NAME = {row_name(r): r for r in range(0, NROWS + 1)}
SQ_RE = re.compile(r"^(0|[A-Za-z]|([A-Za-z])\2)-([1-9][0-9]?)$")


def parse_sq(text):
    """(row, col) of a square name, or None."""
    m = SQ_RE.match(text.strip())
    if not m:
        return None
    r = ROW_BY_NAME.get(m.group(1).upper())
    c = int(m.group(3))
    if r is None or not 1 <= c <= NCOLS:
        return None
    return (r, c)


def sq_name(s):
    return "%s-%d" % (row_name(s[0]), s[1])


def xpos(s):
    """Half-hex widths from the east edge."""
    return 2 * s[1] + s[0] - 51


def playable(s):
    return 1 <= s[0] <= NROWS and 1 <= s[1] <= NCOLS and 1 <= xpos(s) <= 65


def partial(s):
    r, c = s
    if not 1 <= c <= NCOLS:
        return False
    if r == 0:
        return playable((1, c)) or (c > 1 and playable((1, c - 1)))
    if not 1 <= r <= NROWS:
        return False
    return r % 2 == 1 and xpos(s) in (0, 66)


def on_board(s):
    return playable(s) or partial(s)


def neighbour(s, d):
    dr, dc = DIRS[d]
    return (s[0] + dr, s[1] + dc)


def neighbours(s):
    return [neighbour(s, d) for d in DIR_ORDER]


def adjacent(a, b):
    return (b[0] - a[0], b[1] - a[1]) in DIRS.values()


def edge_position(s):
    """Position along the board edge, clockwise from the north-west corner:
    north edge west to east, east edge north to south, west edge south to north
    (the loader's definition of "clockwise")."""
    r, c = s
    if r == 0:
        return (0, -xpos(s))
    if xpos(s) == 0:
        return (1, r)
    return (2, -r)


# --------------------------------------------------------------------------------------
# Errors


class Problems:
    def __init__(self):
        self.items = []

    def add(self, where, msg):
        self.items.append("%s: %s" % (where, msg))


P = Problems()


def where(fname, lineno):
    return "%s:%d" % (fname, lineno)


def read_text(fname):
    """The text of a source file, or "" (and a problem) when it cannot be read."""
    try:
        with open(os.path.join(HERE, fname), encoding="utf-8", newline="") as f:
            return f.read()
    except (OSError, UnicodeDecodeError) as e:
        P.add(fname, "cannot read: %s" % e)
        return ""


def source_lines(fname):
    """(lineno, text) of the non-blank, non-comment lines of a source file."""
    out = []
    for i, line in enumerate(read_text(fname).split("\n"), 1):
        text = line.rstrip("\r")
        if "#" in text:
            text = text[: text.index("#")]
        if text.strip():
            out.append((i, text.rstrip()))
    return out


def expand(item, at, level="board"):
    """Squares of one list item: a square or a same-row range "B-41..B-45"."""
    item = item.strip()
    if ".." in item:
        a, b = item.split("..", 1)
        sa, sb = parse_sq(a), parse_sq(b)
        if sa is None or sb is None or sa[0] != sb[0]:
            P.add(at, "'%s' is not a range of squares on one row" % item)
            return []
        step = 1 if sb[1] >= sa[1] else -1
        squares = [(sa[0], c) for c in range(sa[1], sb[1] + step, step)]
    else:
        s = parse_sq(item)
        if s is None:
            P.add(at, "'%s' is not a square name" % item)
            return []
        squares = [s]
    for s in squares:
        if level == "playable" and not playable(s):
            P.add(at, "%s is not a playable square" % sq_name(s))
        elif level == "board" and not on_board(s):
            P.add(at, "%s is not on the board" % sq_name(s))
    return squares


def square_items(text):
    return [t for t in re.split(r"[\s,]+", text.strip()) if t]


# --------------------------------------------------------------------------------------
# Readers. Each returns plain data, remembering the source line of every item.


def read_meta():
    meta = {"description": [], "days": [], "times": []}
    for ln, text in source_lines("meta.txt"):
        at = where("meta.txt", ln)
        if ":" not in text:
            P.add(at, "expected 'key: value'")
            continue
        key, value = text.split(":", 1)
        key, value = key.strip(), value.strip()
        if key == "description":
            meta["description"].append(value)
        elif key in ("days", "times"):
            meta[key] += square_items(value)
        elif key in ("name", "ruleset"):
            meta[key] = value
        else:
            P.add(at, "unknown key '%s'" % key)
    meta["description"] = " ".join(meta["description"])
    for d in meta["days"]:
        if not re.match(r"^\d{4}-\d\d-\d\d$", d):
            P.add("meta.txt", "day '%s' is not YYYY-MM-DD" % d)
    for t in meta["times"]:
        if not re.match(r"^\d\d:\d\d$", t):
            P.add("meta.txt", "time '%s' is not HH:MM" % t)
    if meta["days"] != sorted(meta["days"]) or meta["times"] != sorted(meta["times"]):
        P.add("meta.txt", "days and times must be in order")
    for k in ("name", "ruleset"):
        if not meta.get(k):
            P.add("meta.txt", "'%s' is missing" % k)
    return meta


CRT_COLUMNS = ["1-6", "1-5", "1-4", "1-3", "1-2", "1-1", "2-1", "3-1", "4-1", "5-1", "6-1"]
CRT_CODES = {"AE", "DE", "AB2", "DB2", "EX"}


def read_crt():
    crt = {"reconstruction": None, "rows": []}
    for ln, text in source_lines("crt.txt"):
        at = where("crt.txt", ln)
        words = text.split()
        if words[0] == "reconstruction:":
            if words[1:] not in (["true"], ["false"]):
                P.add(at, "reconstruction must be true or false")
            crt["reconstruction"] = words[1:] == ["true"]
        elif words[0] == "odds":
            if words[1:] != CRT_COLUMNS:
                P.add(at, "the columns must be exactly %s" % " ".join(CRT_COLUMNS))
        elif words[0].isdigit():
            if int(words[0]) != len(crt["rows"]) + 1:
                P.add(at, "die rolls must be listed 1 to 6 in order")
            codes = words[1:]
            if len(codes) != 11:
                P.add(at, "%d results, expected 11" % len(codes))
            for code in codes:
                if code not in CRT_CODES:
                    P.add(at, "unknown result '%s' (AE, DE, AB2, DB2, EX)" % code)
            crt["rows"].append(codes)
        else:
            P.add(at, "expected 'reconstruction: true', the 'odds' line or a die roll row")
    if len(crt["rows"]) != 6:
        P.add("crt.txt", "%d die rows, expected 6" % len(crt["rows"]))
    if crt["reconstruction"] is None:
        P.add("crt.txt", "say 'reconstruction: true' (or false for the printed card)")
    return crt


MAP_LABEL = 4   # "WW |" : the picture starts after the first '|'


def read_map():
    """Woods squares from the picture, in reading order (north to south, west to east)."""
    woods = []
    seen_rows = set()
    lines = read_text("map.txt").split("\n")
    for ln, line in enumerate(lines, 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        at = where("map.txt", ln)
        if "|" not in line:
            P.add(at, "expected '<row> |<picture>|'")
            continue
        label, rest = line.split("|", 1)
        label = label.strip()
        if label not in ROW_BY_NAME:
            P.add(at, "unknown row '%s'" % label)
            continue
        r = ROW_BY_NAME[label]
        if r in seen_rows:
            P.add(at, "row %s given twice" % label)
        seen_rows.add(r)
        picture = rest.split("|", 1)[0]
        for p in range(0, 67):
            ch = picture[p] if p < len(picture) else " "
            x = 66 - p
            c2 = x + 51 - r
            s = (r, c2 // 2) if c2 % 2 == 0 else None
            if s is not None and not 1 <= s[1] <= NCOLS:
                s = None
            if s is None or not on_board(s):
                if ch != " ":
                    P.add(at, "column %d: '%s' where there is no square" % (p + 1, ch))
                continue
            if partial(s):
                if ch != "#":
                    P.add(at, "%s is a partial edge square: draw it as '#'" % sq_name(s))
                continue
            if ch == "w":
                woods.append(s)
            elif ch != ".":
                P.add(at, "%s: '%s' is not '.' (clear) or 'w' (woods)" % (sq_name(s), ch))
    for r in range(0, NROWS + 1):
        if r not in seen_rows:
            P.add("map.txt", "row %s is missing" % row_name(r))
    return woods


def read_slopes():
    slopes = []
    seen = {}
    for ln, text in source_lines("slopes.txt"):
        at = where("slopes.txt", ln)
        words = text.split()
        if len(words) < 2:
            P.add(at, "expected '<square> <high sides...>'")
            continue
        sqs = expand(words[0], at)
        high = [w.upper() for w in words[1:]]
        for h in high:
            if h not in DIRS:
                P.add(at, "'%s' is not a direction (NE E SE SW W NW)" % h)
        high = [h for h in DIR_ORDER if h in high]
        for s in sqs:
            if s in seen:
                P.add(at, "%s is already a slope (line %d)" % (sq_name(s), seen[s]))
                continue
            seen[s] = ln
            slopes.append({"at": s, "high": high, "line": ln})
    return slopes


def read_paths(fname, kinds):
    """Blocks '<kind> <name>' followed by lines of squares (ranges allowed)."""
    items = []
    cur = None
    for ln, text in source_lines(fname):
        at = where(fname, ln)
        words = text.split(None, 1)
        if words[0] in kinds:
            if len(words) < 2 or not words[1].strip():
                P.add(at, "'%s' needs a name" % words[0])
                continue
            cur = {"kind": words[0], "name": words[1].strip(), "line": ln, "squares": [],
                   "lines": []}
            items.append(cur)
            continue
        if cur is None:
            P.add(at, "squares before the first '%s' line" % "/".join(kinds))
            continue
        for item in square_items(text):
            for s in expand(item, at):
                cur["squares"].append(s)
                cur["lines"].append(ln)
    return items


def read_places():
    places = {"town": [], "entry": [], "exits": [], "not_river": [], "not_woods": []}
    for ln, text in source_lines("places.txt"):
        at = where("places.txt", ln)
        words = text.split()
        key = words[0]
        if key in ("town", "entry"):
            if len(words) < 3:
                P.add(at, "expected '%s <square> <name>'" % key)
                continue
            s = parse_sq(words[1])
            if s is None:
                P.add(at, "'%s' is not a square name" % words[1])
                continue
            places[key].append({"at": s, "name": " ".join(words[2:]), "line": ln})
        elif key in ("exits", "not_river", "not_woods"):
            level = "playable" if key == "exits" else "board"
            for item in words[1:]:
                for s in expand(item, at, level):
                    places[key].append((s, ln))
        else:
            P.add(at, "unknown line kind '%s' (town, entry, exits, not_river, not_woods)" % key)
    return places


ZONE_KEYS = ("french", "allied", "prussian", "anglo-allied")


def read_zones():
    """The zones by key: "french", and either "allied" (one zone for the side) or
    "prussian" and "anglo-allied" (one a nation; docs/scenario-format.md)."""
    zones = {}
    for ln, text in source_lines("zones.txt"):
        at = where("zones.txt", ln)
        words = text.split()
        key = words[0].rstrip(":")
        if key not in ZONE_KEYS or not words[0].endswith(":"):
            P.add(at, "expected 'french:', 'prussian:', 'anglo-allied:' or 'allied:'")
            continue
        for item in words[1:]:
            sqs = expand(item, at, "playable")
            zones.setdefault(key, []).append({"text": item.upper(), "squares": sqs, "line": ln})
    if "allied" in zones and ("prussian" in zones or "anglo-allied" in zones):
        P.add("zones.txt", "give 'allied:' or 'prussian:' and 'anglo-allied:', not both")
    if ("prussian" in zones) != ("anglo-allied" in zones):
        P.add("zones.txt", "give both 'prussian:' and 'anglo-allied:', or neither")
    return zones


def zone_of(u, zones):
    """The zone key a unit of units.csv sets up in."""
    if u["side"] == "allied" and "allied" not in zones:
        return u["nation"]
    return u["side"]


UNIT_FIELDS = ["id", "name", "side", "nation", "type", "size", "combat", "move", "at",
               "arrive_turn", "entry", "team_hq", "formation"]
SIDES = {"french", "allied"}
NATIONS = {"french": "french", "prussian": "allied", "anglo-allied": "allied"}
TYPES = ["infantry", "cavalry", "artillery", "horse_artillery", "hq"]
SIZES = {"XXXX", "XXX", "XX", "X", "III", "II", "I"}
ID_RE = re.compile(r"^[A-Za-z0-9_.-]{1,23}$")


def read_units():
    units = []
    lines = list(enumerate(read_text("units.csv").split("\n"), 1))
    data = [(i, l) for i, l in lines if l.strip() and not l.lstrip().startswith("#")]
    if not data:
        P.add("units.csv", "empty")
        return units
    header_ln, header = data[0]
    fields = next(csv.reader([header]))
    fields = [h.strip() for h in fields]
    if fields != UNIT_FIELDS:
        P.add(where("units.csv", header_ln), "the header must be: %s" % ",".join(UNIT_FIELDS))
        return units
    for ln, line in data[1:]:
        at = where("units.csv", ln)
        row = [v.strip() for v in next(csv.reader([line]))]
        if len(row) != len(fields):
            P.add(at, "%d fields, expected %d" % (len(row), len(fields)))
            continue
        u = dict(zip(fields, row))
        u["line"] = ln
        if not ID_RE.match(u["id"]):
            P.add(at, "id '%s': 1..23 letters, digits, '-', '_', '.'" % u["id"])
        if not 1 <= len(u["name"].encode("utf-8")) <= 47:
            P.add(at, "name must be 1..47 bytes")
        if u["side"] not in SIDES:
            P.add(at, "side '%s' is not french or allied" % u["side"])
        if u["nation"] not in NATIONS:
            P.add(at, "nation '%s' is not french, prussian or anglo-allied" % u["nation"])
        elif NATIONS[u["nation"]] != u["side"]:
            P.add(at, "nation %s is not on the %s side" % (u["nation"], u["side"]))
        if u["type"] not in TYPES:
            P.add(at, "type '%s' is not one of %s" % (u["type"], ", ".join(TYPES)))
        if u["size"] and u["size"] not in SIZES:
            P.add(at, "size '%s' is not one of %s" % (u["size"], " ".join(sorted(SIZES))))
        for k, lo, hi in (("combat", 0, 15), ("move", 1, 12)):
            try:
                u[k] = int(u[k])
            except ValueError:
                P.add(at, "%s '%s' is not a whole number" % (k, u[k]))
                u[k] = 0
                continue
            if not lo <= u[k] <= hi:
                P.add(at, "%s %d is outside %d..%d" % (k, u[k], lo, hi))
        if u["type"] == "hq" and u["combat"] != 0:
            P.add(at, "an HQ unit has combat factor 0")
        if u["type"] != "hq" and u["combat"] == 0:
            P.add(at, "a combat unit needs a combat factor of 1 or more")
        if u["team_hq"] not in ("", "yes"):
            P.add(at, "team_hq is 'yes' or empty")
        u["team_hq"] = u["team_hq"] == "yes"
        if u["team_hq"] and u["type"] != "hq":
            P.add(at, "only HQ units can be team HQs")
        if u["at"] and (u["arrive_turn"] or u["entry"]):
            P.add(at, "give either a set-up square ('at') or an arrival (arrive_turn, entry)")
        elif u["at"]:
            s = parse_sq(u["at"])
            if s is None or not playable(s):
                P.add(at, "set-up square '%s' is not a playable square" % u["at"])
                s = None
            u["at"] = s
        else:
            u["at"] = None
            if not u["arrive_turn"] or not u["entry"]:
                P.add(at, "no set-up square and no arrival (arrive_turn and entry)")
            try:
                u["arrive_turn"] = int(u["arrive_turn"] or 0)
            except ValueError:
                P.add(at, "arrive_turn '%s' is not a whole number" % u["arrive_turn"])
                u["arrive_turn"] = 0
        units.append(u)
    return units


FORMATION_ID_RE = re.compile(r"^[A-Za-z0-9_.-]{1,23}$")


def read_command():
    """command.txt: formations (id, name, parent or side, hq) and the commanders."""
    cmd = {"formations": [], "commanders": {}}
    for ln, text in source_lines("command.txt"):
        at = where("command.txt", ln)
        words = text.split(None, 1)
        if words[0] == "formation" and len(words) == 2:
            parts = [p.strip() for p in words[1].split("|")]
            if len(parts) != 4:
                P.add(at, "expected 'formation ID | NAME | PARENT | HQ'")
                continue
            fid, name, parent, hq = parts
            if not FORMATION_ID_RE.match(fid):
                P.add(at, "formation id '%s': 1..23 letters, digits, '-', '_', '.'" % fid)
            if any(f["id"] == fid for f in cmd["formations"]):
                P.add(at, "formation '%s' is listed twice" % fid)
            if any(f["name"] == name for f in cmd["formations"]):
                P.add(at, "formation name '%s' is used twice" % name)
            if parent in SIDES:
                side, parent = parent, None
            else:
                up = [f for f in cmd["formations"] if f["id"] == parent]
                if not up:
                    P.add(at, "parent '%s' is neither a side nor a formation listed above" % parent)
                    side = None
                else:
                    side = up[0]["side"]
            cmd["formations"].append({"id": fid, "name": name, "side": side, "parent": parent,
                                      "hq": None if hq == "-" else hq, "line": ln})
        elif words[0] == "commanders" and len(words) == 2:
            m = re.match(r"^([0-9]+)\s+(french|allied):\s*(.*)$", words[1])
            if not m:
                P.add(at, "expected 'commanders N SIDE: HQ ...'")
                continue
            n, side, hqs = int(m.group(1)), m.group(2), m.group(3).split()
            if not 2 <= n <= 4 or len(hqs) != n:
                P.add(at, "commanders %d: name %d HQ units (2..4 a side)" % (n, n))
            if (n, side) in cmd["commanders"]:
                P.add(at, "commanders %d %s: given twice" % (n, side))
            cmd["commanders"][(n, side)] = {"hqs": hqs, "line": ln}
        else:
            P.add(at, "expected 'formation ...' or 'commanders ...'")
    return cmd


def commander_of(u, n, cmd, units_by_id, formation_by_name):
    """The index of the commander of unit u among the n commanders of its side."""
    hqs = cmd["commanders"].get((n, u["side"]), {"hqs": []})["hqs"]
    f = formation_by_name.get(u["formation"])
    by_id = {x["id"]: x for x in cmd["formations"]}
    while f is not None:
        if f["hq"] in hqs:
            return hqs.index(f["hq"])
        f = by_id.get(f["parent"])
    return 0


def check_command(units, cmd):
    units_by_id = {u["id"]: u for u in units}
    formation_by_name = {f["name"]: f for f in cmd["formations"]}
    for f in cmd["formations"]:
        at = where("command.txt", f["line"])
        hq = units_by_id.get(f["hq"]) if f["hq"] else None
        if f["hq"] and (hq is None or hq["type"] != "hq" or hq["side"] != f["side"]):
            P.add(at, "%s: HQ '%s' is not an HQ unit of the %s side" % (f["id"], f["hq"], f["side"]))
        if hq is not None and hq["formation"] != f["name"]:
            P.add(at, "%s: its HQ %s stands in formation '%s' (units.csv), not in the one it "
                  "heads" % (f["id"], f["hq"], hq["formation"]))
    for u in units:
        f = formation_by_name.get(u["formation"])
        if f is None:
            P.add(where("units.csv", u["line"]), "formation '%s' is not in command.txt" % u["formation"])
        elif f["side"] != u["side"]:
            P.add(where("units.csv", u["line"]), "formation '%s' is of the other side" % u["formation"])
    sizes = sorted({n for n, _ in cmd["commanders"]})
    if sizes != list(range(2, 2 + len(sizes))):
        P.add("command.txt", "commanders: give 2, then 3, ... a side without gaps")
    for (n, side), c in cmd["commanders"].items():
        at = where("command.txt", c["line"])
        if (n, "french" if side == "allied" else "allied") not in cmd["commanders"]:
            P.add(at, "commanders %d: both sides need their commanders" % n)
        for k, h in enumerate(c["hqs"]):
            hq = units_by_id.get(h)
            if hq is None or hq["type"] != "hq" or hq["side"] != side:
                P.add(at, "%s is not an HQ unit of the %s side" % (h, side))
            elif commander_of(hq, n, cmd, units_by_id, formation_by_name) != k:
                P.add(at, "%s would not command his own HQ" % h)
            elif k > 0 and not any(f["hq"] == h for f in cmd["formations"]):
                P.add(at, "%s heads no formation" % h)


# --------------------------------------------------------------------------------------
# Checks of the source as a whole


def check_map(woods, slopes, rivers, roads, places):
    board = {}
    woods_set = set(woods)
    river_of = {}
    for rv in rivers:
        if len(rv["squares"]) < 2:
            P.add(where("rivers.txt", rv["line"]), "river %s needs at least two squares" % rv["name"])
        for i, s in enumerate(rv["squares"]):
            at = where("rivers.txt", rv["lines"][i])
            if not playable(s):
                P.add(at, "river %s: %s is not a playable square" % (rv["name"], sq_name(s)))
            if s in river_of and river_of[s] != rv["name"]:
                P.add(at, "river %s: %s is already on the %s" % (rv["name"], sq_name(s), river_of[s]))
            if s in river_of and river_of[s] == rv["name"]:
                P.add(at, "river %s: %s is listed twice" % (rv["name"], sq_name(s)))
            river_of[s] = rv["name"]
            if i and not adjacent(rv["squares"][i - 1], s):
                P.add(at, "river %s: %s and %s are not adjacent (a river is a chain of squares)"
                      % (rv["name"], sq_name(rv["squares"][i - 1]), sq_name(s)))
    names = set()
    entry_squares = {e["at"]: e for e in places["entry"]}
    road_sides = {}
    for rd in roads:
        at0 = where("roads.txt", rd["line"])
        if rd["name"] in names:
            P.add(at0, "road name '%s' used twice" % rd["name"])
        names.add(rd["name"])
        sq = rd["squares"]
        if len(sq) < 2:
            P.add(at0, "road %s needs at least two squares" % rd["name"])
            continue
        for i, s in enumerate(sq):
            at = where("roads.txt", rd["lines"][i])
            end = i in (0, len(sq) - 1)
            if partial(s):
                if not end:
                    P.add(at, "road %s: the partial square %s is not at an end of the road"
                          % (rd["name"], sq_name(s)))
                elif s not in entry_squares:
                    P.add(at, "road %s leaves the board at %s, which is not an entry (places.txt)"
                          % (rd["name"], sq_name(s)))
            elif not playable(s):
                P.add(at, "road %s: %s is not on the board" % (rd["name"], sq_name(s)))
            if i:
                p = sq[i - 1]
                if not adjacent(p, s):
                    P.add(at, "road %s: %s and %s are not adjacent" % (rd["name"], sq_name(p), sq_name(s)))
                    continue
                key = frozenset((p, s))
                if key in road_sides and road_sides[key][0] == rd["name"]:
                    P.add(at, "road %s runs twice between %s and %s" % (rd["name"], sq_name(p), sq_name(s)))
                road_sides.setdefault(key, (rd["name"], rd["kind"]))
                if rd["kind"] == "primary":
                    road_sides[key] = (rd["name"], rd["kind"])
                if partial(p) and partial(s):
                    P.add(at, "road %s runs between two partial squares" % rd["name"])
    for e in places["entry"]:
        at = where("places.txt", e["line"])
        if not partial(e["at"]):
            P.add(at, "entry %s: %s is not a partial edge square" % (e["name"], sq_name(e["at"])))
        if not any(e["at"] in (rd["squares"][0], rd["squares"][-1]) for rd in roads):
            P.add(at, "entry %s: no road runs into %s" % (e["name"], sq_name(e["at"])))
    # clockwise: the edge positions may fall back only once going round the list
    pos = [edge_position(e["at"]) for e in places["entry"]]
    falls = sum(1 for i in range(len(pos)) if pos[i] < pos[i - 1])
    if len(pos) > 2 and falls > 1:
        P.add("places.txt", "entries are not listed clockwise around the board "
              "(north edge west to east, east edge north to south, west edge south to north)")
    for key, what, feature in (("not_river", "river", river_of), ("not_woods", "woods", woods_set)):
        for s, ln in places[key]:
            if s in feature:
                P.add(where("places.txt", ln), "%s is a %s square, but the rules say it is not"
                      % (sq_name(s), what))
    town_names = {}
    town_squares = {}
    for t in places["town"]:
        at = where("places.txt", t["line"])
        if not playable(t["at"]):
            P.add(at, "town %s: %s is not a playable square" % (t["name"], sq_name(t["at"])))
        if t["name"] in town_names:
            P.add(at, "town %s is listed twice" % t["name"])
        if t["at"] in town_squares:
            P.add(at, "town %s: %s already holds %s" % (t["name"], sq_name(t["at"]), town_squares[t["at"]]))
        town_names[t["name"]] = t["at"]
        town_squares[t["at"]] = t["name"]
    for e in places["entry"]:
        if not 1 <= len(e["name"].encode()) <= 47:
            P.add(where("places.txt", e["line"]), "entry names are 1..47 bytes")
    for t in places["town"]:
        if not 1 <= len(t["name"].encode()) <= 47:
            P.add(where("places.txt", t["line"]), "town names are 1..47 bytes")
    for s in woods:
        if not playable(s):
            P.add("map.txt", "woods on %s, which is not playable" % sq_name(s))
    for sl in slopes:
        at = where("slopes.txt", sl["line"])
        if not playable(sl["at"]):
            P.add(at, "slope %s is not a playable square" % sq_name(sl["at"]))
        for h in sl["high"]:
            if not on_board(neighbour(sl["at"], h)):
                P.add(at, "slope %s: the high side %s faces off the board" % (sq_name(sl["at"]), h))
    limits = (("roads", roads, 64), ("rivers", rivers, 16), ("towns", places["town"], 96),
              ("entries", places["entry"], 16))
    for what, lst, n in limits:
        if len(lst) > n:
            P.add("source", "%d %s, at most %d" % (len(lst), what, n))
    board["river_of"] = river_of
    board["road_sides"] = road_sides
    board["towns"] = town_names
    board["entries"] = {e["name"]: e["at"] for e in places["entry"]}
    board["woods"] = woods_set
    return board


def road_squares(board, kind=None):
    out = set()
    for key, (_, k) in board["road_sides"].items():
        if kind is None or k == kind:
            out |= key
    return out


def road_connected(board, a, b):
    """a and b joined through road hexsides."""
    adj = {}
    for key in board["road_sides"]:
        p, q = tuple(key)
        adj.setdefault(p, set()).add(q)
        adj.setdefault(q, set()).add(p)
    seen, todo = {a}, [a]
    while todo:
        s = todo.pop()
        for n in adj.get(s, ()):
            if n not in seen:
                seen.add(n)
                todo.append(n)
    return b in seen


# The rulebook's fixed facts (waterloo-rulebook.txt, "Mapboard", "Prepare for Play",
# "Order of Appearance", the Appendix; docs/waterloo-board.md section 2).
# They hold for the printed board, so they hold for any correct source.
FIXED_TOWNS = {"Waterloo": "E-43", "Nivelles": "V-38", "Quatre Bras": "X-27", "Fleurus": "JJ-13"}
FLEURUS_ROAD = ["TT-15", "SS-15", "RR-15", "RR-14", "QQ-15", "PP-15", "OO-16", "PP-14", "PP-13",
                "JJ-13"]
FLEURUS_ROAD_ON = ["OO-13", "NN-13", "MM-13", "LL-13", "KK-13"]     # PP-13 .. JJ-13
PRIMARY_SQUARES = ["LL-21", "TT-16", "UU-15"]
PRIMARY_TOWNS = ["Nivelles", "Gosselies", "Charleroi"]
NOT_PRIMARY_TOWNS = ["Genappe", "Marchienne-au-Pont"]
BRIDGES = ["UU-9", "UU-15", "UU-19", "D-27", "C-27"]
NOT_RIVER = ["Y-13", "Y-14", "Y-16", "Y-17", "X-19", "N-21", "A-32", "S-25", "S-38", "V-38", "A-56"]
NOT_WOODS = ["T-20", "I-23", "B-37", "B-39", "E-44"]
ENTRIES = {"Braine-le-Comte": "U-48", "Hal": "C-57", "Brussels": "0-46"}
EXITS = ["A-%d" % c for c in range(39, 46)]
# Prussian set-up: row EE or north of it, on or east of Y-26 Z-25 AA-25 BB-24 CC-24 DD-23 EE-23
# (x <= 26 on odd rows, x <= 25 on even rows: a due-north line).
PRUSSIAN_ROWS = 31


def prussian_setup_ok(s):
    return s[0] <= PRUSSIAN_ROWS and xpos(s) <= 26


# Overall Strength Comparisons (the rulebook's chart).
STRENGTH = {
    "french": {"infantry": 20, "cavalry": 14, "artillery": 6, "horse_artillery": 10, "hq": 13,
               "units": 63, "factors": 193},
    "allied": {"infantry": 32, "cavalry": 22, "artillery": 14, "horse_artillery": 10, "hq": 14,
               "units": 92, "factors": 237},
}


def check_facts(board, places):
    fx = "rulebook fact"
    towns = board["towns"]
    for name, sq in FIXED_TOWNS.items():
        if towns.get(name) != parse_sq(sq):
            P.add(fx, "%s must be the town on %s" % (name, sq))
    roads = road_squares(board)
    prim = road_squares(board, "primary")
    for sq in FLEURUS_ROAD:
        if parse_sq(sq) not in roads:
            P.add(fx, "the Charleroi-Fleurus road includes %s" % sq)
        elif not road_connected(board, parse_sq(FLEURUS_ROAD[0]), parse_sq(sq)):
            P.add(fx, "%s is not joined by road to %s" % (sq, FLEURUS_ROAD[0]))
    for sq in PRIMARY_SQUARES:
        if parse_sq(sq) not in prim:
            P.add(fx, "a primary road runs into %s" % sq)
    for name in PRIMARY_TOWNS:
        if name not in towns or towns[name] not in prim:
            P.add(fx, "%s is on a primary road" % name)
    for name in NOT_PRIMARY_TOWNS:
        if name not in towns or towns[name] in prim:
            P.add(fx, "%s is a town and not on a primary road" % name)
    for sq in BRIDGES:
        s = parse_sq(sq)
        if s not in board["river_of"] or s not in roads:
            P.add(fx, "%s is a bridge: a river square a road runs through" % sq)
    for key, want in (("not_river", NOT_RIVER), ("not_woods", NOT_WOODS)):
        have = sorted(sq_name(s) for s, _ in places[key])
        if have != sorted(want):
            P.add(fx, "%s must list exactly %s" % (key, " ".join(want)))
    for name, sq in ENTRIES.items():
        if board["entries"].get(name) != parse_sq(sq):
            P.add(fx, "the %s entry is %s" % (name, sq))
    if sorted(sq_name(s) for s, _ in places["exits"]) != sorted(EXITS):
        P.add(fx, "the French exits are A-39..A-45")
    for a, b in (("A-39", None), ("A-45", "0-46")):
        sa = parse_sq(a)
        north = [k for k in board["road_sides"] if sa in k and any(s[0] == 0 for s in k)]
        if not north or (b and frozenset((sa, parse_sq(b))) not in board["road_sides"]):
            P.add(fx, "a road leaves the board northward at %s%s" % (a, (" into " + b) if b else ""))


def check_zones(zones, board, units):
    """The rulebook's set-up areas: the Prussian zone inside the line; the French zone the
    Charleroi-Fleurus road and, beyond it, only squares the default set-up uses."""
    for z in zones.get("prussian", []):
        for s in z["squares"]:
            if not prussian_setup_ok(s):
                P.add(where("zones.txt", z["line"]), "%s is west of or south of the Prussian "
                      "line Y-26 .. EE-23 (rulebook)" % sq_name(s))
    french = set(s for z in zones.get("french", []) for s in z["squares"])
    # "... PP-13, and the road to and including JJ-13": the road runs straight along
    # column 13 from PP-13 to JJ-13 (roads.txt)
    road = set(parse_sq(sq) for sq in FLEURUS_ROAD + FLEURUS_ROAD_ON)
    for sq in FLEURUS_ROAD_ON:
        if parse_sq(sq) not in road_squares(board):
            P.add("roads.txt", "the road to JJ-13 runs through %s" % sq)
    for s in sorted(road):
        if s not in french:
            P.add("zones.txt", "the French zone must hold the Charleroi-Fleurus road square %s "
                  "(rulebook)" % sq_name(s))
    used = set(u["at"] for u in units if u["side"] == "french" and u["at"] is not None)
    for z in zones.get("french", []):
        for s in z["squares"]:
            if s not in road and s not in used:
                P.add(where("zones.txt", z["line"]), "%s is neither on the Charleroi-Fleurus "
                      "road nor a French set-up square of units.csv: keep the French zone as "
                      "small as the default set-up requires" % sq_name(s))


def check_units(units, zones, board, meta, places):
    ids = {}
    nturns = len(meta["days"]) * len(meta["times"])
    zone_sq = {key: set(s for z in zones[key] for s in z["squares"]) for key in zones}
    stacks = {}
    for u in units:
        at = where("units.csv", u["line"])
        if u["id"] in ids:
            P.add(at, "id %s already used on line %d" % (u["id"], ids[u["id"]]))
        ids[u["id"]] = u["line"]
        if u["at"] is not None:
            if u["at"] not in zone_sq.get(zone_of(u, zones), set()):
                P.add(at, "%s sets up on %s, outside the %s set-up zone"
                      % (u["id"], sq_name(u["at"]), zone_of(u, zones)))
            if u["nation"] == "prussian" and not prussian_setup_ok(u["at"]):
                P.add(at, "%s: Prussians set up on row EE or north, on or east of the line "
                      "Y-26 .. EE-23 (rulebook)" % u["id"])
            stacks.setdefault(u["at"], []).append(u)
        elif u["arrive_turn"] or u["entry"]:
            if u["side"] != "allied":
                P.add(at, "only allied units arrive; the French set up every unit")
            if not 1 <= u["arrive_turn"] <= nturns:
                P.add(at, "arrive_turn %s is outside 1..%d" % (u["arrive_turn"], nturns))
            if u["entry"] not in board["entries"]:
                P.add(at, "entry '%s' is not an entry of places.txt" % u["entry"])
    for s, us in stacks.items():
        total = sum(u["combat"] for u in us)
        line = min(u["line"] for u in us)
        if total > 15:
            P.add(where("units.csv", line), "set-up: %d combat factors on %s (over the 15 limit): %s"
                  % (total, sq_name(s), " ".join(u["id"] for u in us)))
        if len(set(u["side"] for u in us)) > 1:
            P.add(where("units.csv", line), "set-up: both sides on %s" % sq_name(s))
    # zones of control: a combat unit controls the six squares around it
    for s, us in stacks.items():
        for n in neighbours(s):
            for v in stacks.get(n, []):
                for u in us:
                    if u["side"] != v["side"] and v["type"] != "hq":
                        P.add(where("units.csv", u["line"]),
                              "set-up: %s on %s is in the zone of control of %s on %s"
                              % (u["id"], sq_name(s), v["id"], sq_name(n)))
    for side, want in STRENGTH.items():
        mine = [u for u in units if u["side"] == side]
        for t in TYPES:
            n = sum(1 for u in mine if u["type"] == t)
            if n != want[t]:
                P.add("units.csv", "%s: %d %s units, the rulebook's chart says %d" % (side, n, t, want[t]))
        if len(mine) != want["units"]:
            P.add("units.csv", "%s: %d units, the rulebook's chart says %d" % (side, len(mine), want["units"]))
        f = sum(u["combat"] for u in mine)
        if f != want["factors"]:
            P.add("units.csv", "%s: %d combat factors, the rulebook's chart says %d" % (side, f, want["factors"]))
    for u in units:
        want_team = u["type"] == "hq" and u["name"] not in ("Napoleon", "Wellington", "Blucher")
        if u["team_hq"] != want_team:
            P.add(where("units.csv", u["line"]), "only Napoleon, Wellington and Blucher are "
                  "two-player HQs; every other HQ is a team HQ (rulebook)")
    # rulebook: Jerome is a 6-4 infantry division; Wissel arrives 09:00 16 June, the rest of
    # the Hanoverian Reserve Corps 07:00 18 June
    times = [(d, t) for d in meta["days"] for t in meta["times"]]

    def turn_of(day, time):
        return times.index((day, time)) + 1 if (day, time) in times else None

    for u in units:
        at = where("units.csv", u["line"])
        if u["name"] == "Jerome" and (u["type"], u["combat"], u["move"]) != ("infantry", 6, 4):
            P.add(at, "Jerome is a 6-4 infantry unit (rulebook)")
        if u["formation"] == "Hanoverian Reserve Corps":
            want = turn_of("1815-06-16", "09:00") if u["name"] == "Wissel" else turn_of("1815-06-18", "07:00")
            if u["at"] is not None or u["arrive_turn"] != want:
                P.add(at, "%s arrives on turn %s (Order of Appearance)" % (u["id"], want))


# --------------------------------------------------------------------------------------
# Output


def emit(v, indent=0, used=0):
    """JSON, one space of indent a level. A unit (an object of scalars and one small
    object) stays on one line; so does any list or object that fits in 100 columns,
    counting `used` for the key before it. A long list of scalars is filled line by line."""
    one = json.dumps(v, ensure_ascii=False, separators=(", ", ": "))
    if not isinstance(v, (list, dict)) or indent + used + len(one) <= 100:
        return one
    if isinstance(v, dict) and all(not isinstance(x, list) for x in v.values()):
        return one
    pad = " " * (indent + 1)
    if isinstance(v, dict):
        parts = []
        for k, x in v.items():
            key = json.dumps(k) + ": "
            parts.append(pad + key + emit(x, indent + 1, len(key)))
        return "{\n" + ",\n".join(parts) + "\n" + " " * indent + "}"
    if all(not isinstance(x, (list, dict)) for x in v):
        lines, cur = [], []
        for x in v:
            s = json.dumps(x, ensure_ascii=False)
            if cur and len(pad) + len(", ".join(cur + [s])) > 100:
                lines.append(", ".join(cur))
                cur = []
            cur.append(s)
        lines.append(", ".join(cur))
        return "[\n" + ",\n".join(pad + l for l in lines) + "\n" + " " * indent + "]"
    return "[\n" + ",\n".join(pad + emit(x, indent + 1) for x in v) + "\n" + " " * indent + "]"


def build():
    meta = read_meta()
    crt = read_crt()
    woods = read_map()
    slopes = read_slopes()
    rivers = read_paths("rivers.txt", ("river",))
    roads = read_paths("roads.txt", ("primary", "secondary"))
    places = read_places()
    zones = read_zones()
    units = read_units()
    cmd = read_command()
    board = check_map(woods, slopes, rivers, roads, places)
    check_facts(board, places)
    check_units(units, zones, board, meta, places)
    check_zones(zones, board, units)
    check_command(units, cmd)
    formation_id = {f["name"]: f["id"] for f in cmd["formations"]}

    def names(sqs):
        return [sq_name(s) for s in sqs]

    doc = {
        "warroom": "scenario",
        "version": 1,
        "name": meta.get("name", ""),
        "ruleset": meta.get("ruleset", ""),
        "description": meta["description"],
        "map": {
            "woods": names(woods),
            "slopes": [{"at": sq_name(s["at"]), "high": s["high"]} for s in slopes],
            "rivers": [{"name": r["name"], "squares": names(r["squares"])} for r in rivers],
            "roads": [{"name": r["name"], "kind": r["kind"], "path": names(r["squares"])}
                      for r in roads],
            "towns": [{"name": t["name"], "at": sq_name(t["at"])} for t in places["town"]],
            "entries": [{"name": e["name"], "at": sq_name(e["at"])} for e in places["entry"]],
            "exits": [sq_name(s) for s, _ in places["exits"]],
            "not_river": [sq_name(s) for s, _ in places["not_river"]],
            "not_woods": [sq_name(s) for s, _ in places["not_woods"]],
        },
        "crt": {"reconstruction": bool(crt["reconstruction"]), "columns": CRT_COLUMNS,
                "rows": crt["rows"]},
        "formations": [],
        "units": [],
        "commanders": [],
        "time_record": {"days": meta["days"], "times": meta["times"]},
        "setup_zones": {key: [z["text"] for z in zones[key]] for key in ZONE_KEYS
                        if key in zones},
    }
    for u in units:
        o = {"id": u["id"], "name": u["name"], "side": u["side"], "nation": u["nation"],
             "type": u["type"]}
        if u["size"]:
            o["size"] = u["size"]
        o["combat"] = u["combat"]
        o["move"] = u["move"]
        if u["at"] is not None:
            o["at"] = sq_name(u["at"])
        else:
            o["arrive"] = {"turn": u["arrive_turn"], "entry": u["entry"]}
        if u["team_hq"]:
            o["team_hq"] = True
        if u["formation"] in formation_id:
            o["formation"] = formation_id[u["formation"]]
        doc["units"].append(o)
    for f in cmd["formations"]:
        o = {"id": f["id"], "name": f["name"]}
        if f["parent"] is None:
            o["side"] = f["side"]
        else:
            o["parent"] = f["parent"]
        if f["hq"]:
            o["hq"] = f["hq"]
        doc["formations"].append(o)
    for n in sorted({n for n, _ in cmd["commanders"]}):
        doc["commanders"].append({side: cmd["commanders"].get((n, side), {"hqs": []})["hqs"]
                                  for side in ("french", "allied")})
    text = emit(doc) + "\n"
    return text, doc, board, units, rivers, roads, slopes


def summary(doc, units):
    out = []
    for side in ("french", "allied"):
        mine = [u for u in units if u["side"] == side]
        counts = " ".join("%s %d" % (t, sum(1 for u in mine if u["type"] == t)) for t in TYPES)
        setup = [u for u in mine if u["at"] is not None]
        out.append("%-6s %d units, %d combat factors (%s); %d set up (%d factors), %d arrive"
                   % (side, len(mine), sum(u["combat"] for u in mine), counts, len(setup),
                      sum(u["combat"] for u in setup), len(mine) - len(setup)))
    m = doc["map"]
    out.append("map: %d woods, %d slopes, %d rivers, %d roads, %d towns, %d entries, %d turns"
               % (len(m["woods"]), len(m["slopes"]), len(m["rivers"]), len(m["roads"]),
                  len(m["towns"]), len(m["entries"]),
                  len(doc["time_record"]["days"]) * len(doc["time_record"]["times"])))
    return "\n".join(out)


def render(doc, board, slopes):
    """The board for people: '=' primary road, '-' secondary, '~' river, '*' bridge,
    'w' woods, '^' slope, 'T' town, '#' partial, 'E' entry."""
    prim = road_squares(board, "primary")
    sec = road_squares(board)
    slope_sq = set(s["at"] for s in slopes)
    towns = set(board["towns"].values())
    entries = set(board["entries"].values())
    lines = []
    for r in range(0, NROWS + 1):
        row = [" "] * 67
        for c in range(1, NCOLS + 1):
            s = (r, c)
            if not on_board(s):
                continue
            p = 66 - xpos(s)
            ch = "."
            if partial(s):
                ch = "E" if s in entries else "#"
            elif s in towns:
                ch = "T"
            elif s in board["river_of"] and s in sec:
                ch = "*"
            elif s in board["river_of"]:
                ch = "~"
            elif s in prim:
                ch = "="
            elif s in sec:
                ch = "-"
            elif s in board["woods"]:
                ch = "w"
            elif s in slope_sq:
                ch = "^"
            row[p] = ch
        lines.append("%-3s|%s|" % (row_name(r), "".join(row)))
    return "\n".join(lines)


def main(argv):
    mode = argv[1] if len(argv) > 1 else ""
    if mode not in ("", "--check", "--render"):
        print("usage: build.py [--check | --render]", file=sys.stderr)
        return 2
    text, doc, board, units, rivers, roads, slopes = build()
    if P.items:
        for p in P.items:
            print("waterloo-1815: " + p, file=sys.stderr)
        print("waterloo-1815: %d problem(s); scenario.json not written" % len(P.items),
              file=sys.stderr)
        return 1
    if mode == "--render":
        print(render(doc, board, slopes))
        return 0
    if mode == "--check":
        try:
            with open(OUT, encoding="utf-8") as f:
                old = f.read()
        except OSError:
            old = None
        if old != text:
            print("waterloo-1815: scenario.json is not what build.py makes from the source; "
                  "run python3 scenarios/waterloo-1815/build.py and commit the result",
                  file=sys.stderr)
            return 1
        print("waterloo-1815: scenario.json is up to date")
        print(summary(doc, units))
        return 0
    with open(OUT, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    print("waterloo-1815: wrote scenario.json")
    print(summary(doc, units))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
