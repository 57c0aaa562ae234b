"""Zone maps (seed 002.1): named zones, adjacency, GM tags, and the two band tracks.

A battlefield is 2-5 named zones (one is allowed, an open field) joined by adjacency, plus
the open ground each side crosses before the lines meet.  Following the digest (002.7.1),
the band gap is not zone distance: each side's open ground is a track of three band
positions (short, medium, long) hanging off that side's *front* zone.  Together they make
one small graph of **locations**:

* ``0 .. Z-1``        the zones;
* ``Z + k - 1``       side A's open ground, ``k`` bands out from ``front_a`` (k = 1..3);
* ``Z + 3 + k - 1``   side B's open ground, ``k`` bands out from ``front_b``.

Two combatants in one location are engaged.  A step between zones is an in-fray *shift*
(1 Move); a step along a band track, including the step into or out of the front zone, is a
*band* (2 Moves).  Range is the number of steps between locations (002.8 ``range_steps``:
"distance = remaining gap bands, or zone distance after contact").

A map travels inside the rules as a :class:`~balance.fields.Table` (so rules stay
hashable and picklable); :func:`compile_map` turns it into the arrays the kernel and the
reference share.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from ...errors import SpecError
from ...fields import Table

__all__ = ["BANDS", "MAPS", "MAP_KEYS", "UNREACHABLE", "ZONE_TAGS", "CompiledMap", "compile_map",
           "map_table"]

BANDS = 3
"""Band positions on each side's open ground: short 1, medium 2, long 3 (002.1)."""

BAND_NAMES = {1: "short", 2: "medium", 3: "long"}

ZONE_TAGS = ("commanding", "cover", "chokepoint", "hazard", "impassable", "obscured")
"""GM tags on a zone (002.1, 002.3): higher ground, cover (shots only), a chokepoint cap (0 =
none; 1 or 2 may fight there), a caltrops-type hazard, impassable (nobody enters or crosses
it: a blocked zone to put between you and a pursuer) and obscured (smoke, darkness: no shot
into, out of or across it; "sight is the GM's call")."""

UNREACHABLE = 127
"""Steps between locations with no path (movement) or no line of sight (range)."""

MAP_KEYS = ("name", "description", "zones", "adjacent", "blocked", "front_a", "front_b",
            "approach_a", "approach_b")

# --- preset maps -------------------------------------------------------------------------
# Zones are written {name, and any of commanding / cover / chokepoint / hazard}.  "front_a"
# and "front_b" are the zones each side's open ground leads into.

MAPS: dict[str, dict[str, Any]] = {
    "field": {
        "description": "one open zone; the sides start a band gap apart (the plain duel)",
        "zones": [{"name": "field"}],
        "adjacent": [],
        "front_a": "field", "front_b": "field",
        "approach_a": "A's open ground", "approach_b": "B's open ground",
    },
    "gate": {
        "description": "seed 002.6: the approach (B's open ground) - gate - keep-yard",
        "zones": [{"name": "keep-yard"}, {"name": "gate"}],
        "adjacent": [["keep-yard", "gate"]],
        "front_a": "keep-yard", "front_b": "gate",
        "approach_a": "the keep", "approach_b": "the approach",
    },
    "line": {
        "description": "three zones in a line (002.9 'line of 3')",
        "zones": [{"name": "west"}, {"name": "centre"}, {"name": "east"}],
        "adjacent": [["west", "centre"], ["centre", "east"]],
        "front_a": "west", "front_b": "east",
        "approach_a": "the western fields", "approach_b": "the eastern fields",
    },
    "loop": {
        "description": "four zones in a loop (002.9 'loop of 4')",
        "zones": [{"name": "north"}, {"name": "east"}, {"name": "south"}, {"name": "west"}],
        "adjacent": [["north", "east"], ["east", "south"], ["south", "west"], ["west", "north"]],
        "front_a": "west", "front_b": "east",
        "approach_a": "the western fields", "approach_b": "the eastern fields",
    },
    "chokepoint": {
        "description": "hall - door (chokepoint: 1 a side may fight there) - yard",
        "zones": [{"name": "hall"}, {"name": "door", "chokepoint": 1}, {"name": "yard"}],
        "adjacent": [["hall", "door"], ["door", "yard"]],
        "front_a": "hall", "front_b": "yard",
        "approach_a": "the inner keep", "approach_b": "the courtyard",
    },
    "hall": {
        "description": "hall - door - yard, the door uncapped (the chokepoint map without "
                       "its cap: the baseline of holding a door)",
        "zones": [{"name": "hall"}, {"name": "door"}, {"name": "yard"}],
        "adjacent": [["hall", "door"], ["door", "yard"]],
        "front_a": "hall", "front_b": "yard",
        "approach_a": "the inner keep", "approach_b": "the courtyard",
    },
    "ruins": {
        "description": "a ruined keep: yard - arch - tower (commanding) - garden (smoke: "
                       "obscured), the garden's gate to the yard barred (blocked: no way "
                       "through), and a burning hall (impassable) between yard and tower",
        "zones": [{"name": "yard"}, {"name": "arch"}, {"name": "tower", "commanding": True},
                  {"name": "garden", "obscured": True}, {"name": "hall", "impassable": True}],
        "adjacent": [["yard", "arch"], ["arch", "tower"], ["tower", "garden"],
                     ["garden", "yard"], ["yard", "hall"], ["hall", "tower"]],
        "blocked": [["yard", "garden"]],
        "front_a": "tower", "front_b": "yard",
        "approach_a": "the keep's far side", "approach_b": "the road",
    },
    "hill": {
        "description": "a commanding hilltop above a field strewn with caltrops, and a copse "
                       "(cover)",
        "zones": [{"name": "hilltop", "commanding": True}, {"name": "slope", "hazard": True},
                  {"name": "copse", "cover": True}],
        "adjacent": [["hilltop", "slope"], ["slope", "copse"], ["hilltop", "copse"]],
        "front_a": "hilltop", "front_b": "slope",
        "approach_a": "the far side of the hill", "approach_b": "the lowland",
    },
}


def _fail(message: str) -> SpecError:
    return SpecError(f"zones rules field 'battlefield': {message}")


def _zone_entry(raw: Any) -> dict[str, Any]:
    if isinstance(raw, str):
        raw = {"name": raw}
    if not isinstance(raw, Mapping):
        raise _fail(f"each zone is a name or a table {{name, {', '.join(ZONE_TAGS)}}}, "
                    f"got {raw!r}")
    unknown = set(raw) - {"name", *ZONE_TAGS}
    if unknown:
        raise _fail(f"unknown zone key(s) {', '.join(sorted(unknown))}; allowed: name, "
                    + ", ".join(ZONE_TAGS))
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip():
        raise _fail(f"a zone needs a non-empty name, got {name!r}")
    entry: dict[str, Any] = {"name": name.strip()}
    for tag in ("commanding", "cover", "hazard", "impassable", "obscured"):
        value = raw.get(tag, False)
        if not isinstance(value, bool):
            raise _fail(f"zone {name!r} tag '{tag}' must be true or false, got {value!r}")
        entry[tag] = value
    cap = raw.get("chokepoint", 0)
    if isinstance(cap, bool) or not isinstance(cap, int) or not 0 <= cap <= 6:
        raise _fail(f"zone {name!r} 'chokepoint' is how many of a side may fight there "
                    f"(0 = no cap, 1..6), got {cap!r}")
    entry["chokepoint"] = cap
    return entry


def map_table(spec: Any) -> Table:
    """Normalise a map (a preset name, a mapping or a Table) to the canonical Table.

    Raises :class:`SpecError` naming the problem: unknown preset, unknown key, a zone
    named twice, adjacency to an unknown zone, a disconnected map, a bad front.
    """
    if isinstance(spec, str):
        key = spec.strip()
        if key not in MAPS:
            raise SpecError(f"unknown zones battlefield {spec!r}; presets: " + ", ".join(MAPS)
                            + " (or a [battlefield] table in a scenario file)")
        raw: Mapping[str, Any] = {"name": key, **MAPS[key]}
    elif isinstance(spec, Mapping):
        raw = spec
    else:
        raise _fail(f"must be a preset name or a table, got {type(spec).__name__}")
    unknown = set(raw) - set(MAP_KEYS)
    if unknown:
        raise _fail(f"unknown key(s) {', '.join(sorted(unknown))}; allowed: "
                    + ", ".join(MAP_KEYS))
    zones_raw = raw.get("zones")
    if not isinstance(zones_raw, list | tuple) or not 1 <= len(zones_raw) <= 5:
        raise _fail("'zones' must list 1 to 5 zones (002.1: two to five named regions; one "
                    f"for an open field), got {zones_raw!r}")
    zones = [_zone_entry(z) for z in zones_raw]
    names = [z["name"] for z in zones]
    if len(set(names)) != len(names):
        raise _fail(f"zone names must be distinct, got {names}")
    adjacent = []
    for pair in raw.get("adjacent", ()):
        if not isinstance(pair, list | tuple) or len(pair) != 2:
            raise _fail(f"'adjacent' lists pairs of zone names, got {pair!r}")
        for z in pair:
            if z not in names:
                raise _fail(f"adjacency names unknown zone {z!r}; zones: {', '.join(names)}")
        if pair[0] == pair[1]:
            raise _fail(f"a zone cannot be adjacent to itself ({pair[0]!r})")
        adjacent.append(tuple(sorted(pair, key=names.index)))
    blocked = []
    for pair in raw.get("blocked", ()):
        if not isinstance(pair, list | tuple) or len(pair) != 2:
            raise _fail(f"'blocked' lists pairs of adjacent zones, got {pair!r}")
        pair = tuple(sorted(pair, key=lambda z: names.index(z) if z in names else -1))
        if pair not in adjacent:
            raise _fail(f"'blocked' names {list(pair)!r}, not a pair of adjacent zones")
        blocked.append(pair)
    fronts = {}
    for key in ("front_a", "front_b"):
        value = raw.get(key, names[0] if key == "front_a" else names[-1])
        if value not in names:
            raise _fail(f"'{key}' must be one of the zones ({', '.join(names)}), got {value!r}")
        if zones[names.index(value)]["impassable"]:
            raise _fail(f"'{key}' {value!r} is impassable: a side's open ground must lead "
                        "into a zone it can enter")
        fronts[key] = value
    table = {
        "name": str(raw.get("name", "custom")),
        "description": str(raw.get("description", "")),
        "zones": zones,
        "adjacent": sorted(set(adjacent), key=lambda p: (names.index(p[0]), names.index(p[1]))),
        "blocked": sorted(set(blocked), key=lambda p: (names.index(p[0]), names.index(p[1]))),
        **fronts,
        "approach_a": str(raw.get("approach_a", "A's open ground")),
        "approach_b": str(raw.get("approach_b", "B's open ground")),
    }
    out = Table(table)
    _connected(out)
    return out


def _connected(table: Table) -> None:
    names = [z["name"] for z in table["zones"]]
    seen = {names[0]}
    frontier = [names[0]]
    while frontier:
        here = frontier.pop()
        for a, b in table["adjacent"]:
            for u, v in ((a, b), (b, a)):
                if u == here and v not in seen:
                    seen.add(v)
                    frontier.append(v)
    if len(seen) != len(names):
        missing = [n for n in names if n not in seen]
        raise _fail(f"the zones must be connected; {', '.join(missing)} cannot be reached")


@dataclass(frozen=True, eq=False)
class CompiledMap:
    """The location graph of a map, as small arrays shared by kernel and reference.

    Attributes
    ----------
    n_zones, n_locations
        ``Z`` and ``L = Z + 6``.
    names
        Display name of every location (``"gate"``, ``"the approach, medium band out"``).
    distance
        int8 ``(L, L)``: Moves-worth of steps between locations by the paths one may walk
        (no blocked link, no impassable zone); :data:`UNREACHABLE` if there is none.
    sight
        int8 ``(L, L)``: steps between locations by the lines one may shoot along (the
        range of 002.8): every link, blocked or not, through no obscured zone, and none into
        or out of one (a shot within one zone is point-blank); :data:`UNREACHABLE` if none.
    next_step
        int8 ``(L, L)``: the neighbour of ``u`` on a shortest walkable path to ``v`` (``u``
        if equal or unreachable; ties go to the lowest location index).
    band_step
        bool ``(L, L)``: the step ``u -> v`` crosses a band (else it is an in-fray shift).
    retreat
        int8 ``(2, L)``: the step from ``u`` toward side A's / B's own rear (its long band),
        ``-1`` at the rear itself.
    commanding, cover, hazard
        bool ``(L,)`` tags (open ground has none).
    chokepoint
        int8 ``(L,)``: fighters a side may have in melee there per round, 0 = no cap.
    """

    table: Table
    n_zones: int
    n_locations: int
    names: tuple[str, ...]
    distance: np.ndarray
    sight: np.ndarray
    next_step: np.ndarray
    band_step: np.ndarray
    retreat: np.ndarray
    commanding: np.ndarray
    cover: np.ndarray
    hazard: np.ndarray
    chokepoint: np.ndarray

    def zone_index(self, name: str) -> int:
        return [z["name"] for z in self.table["zones"]].index(name)

    def band_location(self, side: int, bands: int) -> int:
        """Location ``bands`` out on side ``side``'s (0 = A, 1 = B) open ground; 0 = front."""
        if bands == 0:
            return self.zone_index(self.table["front_a" if side == 0 else "front_b"])
        return self.n_zones + BANDS * side + bands - 1

    def is_open_ground(self, loc: int) -> bool:
        return loc >= self.n_zones

    @property
    def zone_names(self) -> tuple[str, ...]:
        return tuple(z["name"] for z in self.table["zones"])


def _steps(n: int, edges: list[tuple[int, int]]) -> np.ndarray:
    """Breadth-first steps between every pair of ``n`` locations over ``edges``."""
    neighbours: list[list[int]] = [[] for _ in range(n)]
    for u, v in edges:
        neighbours[u].append(v)
        neighbours[v].append(u)
    dist = np.full((n, n), UNREACHABLE, np.int16)
    for src in range(n):
        dist[src, src] = 0
        frontier = [src]
        while frontier:
            nxt = []
            for u in frontier:
                for v in neighbours[u]:
                    if dist[src, v] == UNREACHABLE:
                        dist[src, v] = dist[src, u] + 1
                        nxt.append(v)
            frontier = nxt
    return dist


@lru_cache(maxsize=64)
def compile_map(table: Table) -> CompiledMap:
    """Build the location graph of a normalised map table (see the module docstring)."""
    zones = table["zones"]
    names_z = [z["name"] for z in zones]
    n_z = len(zones)
    n_loc = n_z + 2 * BANDS
    edges: list[tuple[int, int, bool]] = []
    for a, b in table["adjacent"]:
        edges.append((names_z.index(a), names_z.index(b), False))
    for side, front in ((0, table["front_a"]), (1, table["front_b"])):
        prev = names_z.index(front)
        for k in range(1, BANDS + 1):
            loc = n_z + BANDS * side + k - 1
            edges.append((prev, loc, True))
            prev = loc
    band = np.zeros((n_loc, n_loc), bool)
    for u, v, is_band in edges:
        band[u, v] = band[v, u] = is_band
    impassable = [bool(z["impassable"]) for z in zones] + [False] * 2 * BANDS
    obscured = [bool(z["obscured"]) for z in zones] + [False] * 2 * BANDS
    walls = {(names_z.index(a), names_z.index(b)) for a, b in table.get("blocked", ())}
    walk = [(u, v) for u, v, _ in edges if not (impassable[u] or impassable[v])
            and (min(u, v), max(u, v)) not in walls]
    dist = _steps(n_loc, walk)
    # a line of sight runs along any link but through no obscured zone (002.1)
    sight = _steps(n_loc, [(u, v) for u, v, _ in edges
                           if not (obscured[u] or obscured[v])])
    for u in range(n_loc):
        if obscured[u]:
            sight[u, :] = sight[:, u] = UNREACHABLE
            sight[u, u] = 0
    neighbours: list[list[int]] = [[] for _ in range(n_loc)]
    for u, v in walk:
        neighbours[u].append(v)
        neighbours[v].append(u)
    for nb in neighbours:
        nb.sort()
    step = np.zeros((n_loc, n_loc), np.int8)
    for u in range(n_loc):
        for v in range(n_loc):
            if u == v or dist[u, v] == UNREACHABLE:
                step[u, v] = u
            else:
                step[u, v] = next(w for w in neighbours[u] if dist[w, v] == dist[u, v] - 1)
    rear = (n_z + BANDS - 1, n_z + 2 * BANDS - 1)
    retreat = np.array([[-1 if u == rear[s] or dist[u, rear[s]] == UNREACHABLE
                         else step[u, rear[s]] for u in range(n_loc)] for s in range(2)],
                       np.int8)
    names = list(names_z)
    for key in ("approach_a", "approach_b"):
        for k in range(1, BANDS + 1):
            names.append(f"{table[key]}, {BAND_NAMES[k]} band out")

    def tag(name: str) -> np.ndarray:
        return np.array([bool(z[name]) for z in zones] + [False] * 2 * BANDS)

    choke = np.array([int(z["chokepoint"]) for z in zones] + [0] * 2 * BANDS, np.int8)
    arrays = [dist.astype(np.int8), sight.astype(np.int8), step, band, retreat,
              tag("commanding"), tag("cover"), tag("hazard"), choke]
    for a in arrays:
        a.setflags(write=False)
    return CompiledMap(table, n_z, n_loc, tuple(names), *arrays)
