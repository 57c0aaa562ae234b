"""Expand a :class:`~balance.experiments.spec.Spec` into cells, each with a stable key.

A cell is one matchup of the sweep: the rules and both sides with the cell's axis values
applied, built and checked through the ruleset (``Ruleset.rules``, ``.side``,
``.check_sides``).  Its **key** is a hash of its canonical parameter JSON -- the ruleset
name and every field of the rules and of each combatant, with sorted keys -- never its
position in the grid.  The random streams of a cell's chunk ``i`` are
``SeedSequence(entropy, spawn_key=("common", i))`` on common streams (the default; every
cell's fight ``j`` on the same numbers) or ``SeedSequence(entropy, spawn_key=(cell key,
i))`` with ``streams = "independent"`` (the runner's ``_stream_key``), so either way a cell's
numbers do not change when the grid grows, shrinks or is reordered, and two experiments
that simulate the same matchup under the same seed get the same numbers.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import SpecError
from ..fields import Table, plain
from ..labels import display
from ..reading import SIDES, member_fields
from ..rulesets.base import Ruleset, Side

if TYPE_CHECKING:  # the spec reads a [tune] table by expanding a one-cell grid of it
    from .spec import Axis, Spec

__all__ = ["Cell", "canonical", "cell_key", "combinations", "expand", "grid_of", "place"]


@dataclass(frozen=True)
class Cell:
    """One matchup of a sweep.

    Attributes
    ----------
    index
        Position in this grid (for display only; nothing depends on it).
    params
        Axis field -> value, in axis order (plain, frozen values).
    key
        Stable identity: a hash of :func:`canonical` (32 hex digits).
    rules, side_a, side_b
        The validated ruleset objects the cell simulates.
    """

    index: int
    params: Table
    key: str
    rules: Any
    side_a: Side
    side_b: Side


def _fields(obj: Any) -> dict[str, Any]:
    return {f.name: plain(getattr(obj, f.name)) for f in dataclasses.fields(obj)}


def canonical(ruleset: str, rules: Any, side_a: Side, side_b: Side) -> str:
    """The canonical JSON of a matchup: every field, sorted keys, no whitespace."""
    return _canonical(ruleset, _fields(rules), [_fields(c) for c in side_a],
                      [_fields(c) for c in side_b])


def _canonical(ruleset: str, rules: Any, side_a: Any, side_b: Any) -> str:
    """:func:`canonical` of the fields already made plain."""
    data = {"ruleset": ruleset, "rules": rules, "a": side_a, "b": side_b}
    return _json(data)


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True,
                      allow_nan=False)


def _joined(ruleset: str, rules: str, side_a: str, side_b: str) -> str:
    """:func:`_canonical` from its parts' JSON texts (``_json`` of each): an object's
    text is its members' texts joined in sorted key order, so this is the same string."""
    return f'{{"a":{side_a},"b":{side_b},"rules":{rules},"ruleset":{_json(ruleset)}}}'


def _hashed(text: str) -> str:
    return hashlib.blake2b(text.encode("ascii"), digest_size=16).hexdigest()


def cell_key(ruleset: str, rules: Any, side_a: Side, side_b: Side) -> str:
    """The stable key of a matchup: BLAKE2b-128 of :func:`canonical`, as hex."""
    return _hashed(canonical(ruleset, rules, side_a, side_b))


def combinations(spec: Spec) -> Iterator[tuple[Any, ...]]:
    """The axis-value tuples of the grid, in order (first axis slowest under product)."""
    if not spec.axes:
        yield ()
        return
    values = [axis.values for axis in spec.axes]
    if spec.combine == "zip":
        yield from zip(*values, strict=True)
    else:
        yield from itertools.product(*values)


def place(spec: Spec, params: Mapping[str, Any]) -> str:
    """Where a cell is, for messages: ``"x.toml: grid: cell a.0.skill=3, rules.map=[0,-2]"``."""
    origin = f"{spec.source}: grid" if spec.source else "grid"
    if not params:
        return origin
    return f"{origin}: cell " + ", ".join(f"{name}={display(v, name)}"
                                          for name, v in params.items())


def _side_members(spec: Spec, label: str, overrides: list[tuple[Axis, Any]]
                  ) -> list[dict[str, Any]]:
    base = getattr(spec, label)
    for axis, value in overrides:
        if axis.target == label and axis.member is None:
            base = (value,) if isinstance(value, str | Mapping) else value
    members = [member_fields(m) for m in base]
    # Presets first, so a swept field applies on top of a swept preset.
    ordered = sorted((ov for ov in overrides if ov[0].target == label and ov[0].member is not None),
                     key=lambda ov: ov[0].name != "preset")
    for axis, value in ordered:
        if axis.member == "*":
            targets = range(len(members))
        else:
            index = int(axis.member)  # type: ignore[arg-type]
            if index >= len(members):
                raise SpecError(f"{axis.field}: side {label.upper()} has {len(members)} "
                                "combatant(s) in this cell")
            targets = range(index, index + 1)
        name = str(axis.name)  # "preset": a new preset under the member's own fields
        for k in targets:
            members[k] = {**members[k], name: value}
    return members


def expand(spec: Spec, ruleset: Ruleset | None = None) -> tuple[Cell, ...]:
    """Build and check every cell of ``spec``.

    ``ruleset`` is the spec's ruleset, resolved by the caller; without it the spec's is
    looked up again, which an import path passes only if this process imported it already
    (as :func:`~balance.experiments.spec.load_spec` does when allowed).

    Raises
    ------
    SpecError
        Naming the cell (its axis values) that the ruleset rejects, e.g. a side too large.
    """
    rs = ruleset if ruleset is not None else spec.ruleset_object()
    cells = []
    rules_cache: dict[Any, Any] = {}
    # A grid repeats its rules and sides many times (a 20 x 20 sweep has 40 sides): each
    # distinct one is built, checked and made plain once.  Keyed by the repr of what it is
    # built from, so 1, 1.0 and True stay apart.
    sides_cache: dict[str, tuple[Side, str]] = {}
    rules_text: dict[int, str] = {}
    # What each part of a cell is built from: the values of the axes aimed at it.  Equal
    # (by repr) values build the same part, so a part is looked up by them first.
    targets = [ax.target for ax in spec.axes]
    parts: dict[tuple[str, str], Any] = {}

    def part(target: str, combo: Sequence[Any], build: Callable[..., Any], *args: Any
             ) -> Any:
        spot = (target, repr([v for v, t in zip(combo, targets, strict=True) if t == target]))
        if spot not in parts:
            parts[spot] = build(*args)
        return parts[spot]

    def build_rules(pairs: list[tuple[Axis, Any]]) -> Any:
        overrides: dict[str, Any] = dict(spec.rules)
        overrides.update((str(ax.name), v) for ax, v in pairs if ax.target == "rules")
        frozen = Table(overrides)
        if frozen not in rules_cache:
            rules_cache[frozen] = rs.rules(dict(overrides))
        return rules_cache[frozen]

    def build_side(label: str, pairs: list[tuple[Axis, Any]]) -> tuple[Side, str]:
        return _side(rs, _side_members(spec, label, pairs), sides_cache)

    for index, combo in enumerate(combinations(spec)):
        pairs = list(zip(spec.axes, combo, strict=True))
        try:
            rules = part("rules", combo, build_rules, pairs)
            sides = [part(label, combo, build_side, label, pairs) for label in SIDES]
            rs.check_sides(rules, sides[0][0], sides[1][0])
        except SpecError as exc:
            where = place(spec, {ax.field: v for ax, v in pairs})
            raise SpecError(exc.reason, where=where) from None
        if id(rules) not in rules_text:
            rules_text[id(rules)] = _json(_fields(rules))
        key = _hashed(_joined(rs.name, rules_text[id(rules)], sides[0][1], sides[1][1]))
        params = Table([(ax.field, v) for ax, v in pairs])
        cells.append(Cell(index, params, key, rules, sides[0][0], sides[1][0]))
    return tuple(cells)


def grid_of(spec: Spec) -> str:
    """What :func:`expand` reads of ``spec`` (its rules, sides, combine and axes), as text:
    two specs with the same text expand to the same cells under the same ruleset object.
    (``repr`` of the spec's frozen plain values keeps 1, 1.0 and True apart.)"""
    return repr((spec.rules, spec.a, spec.b, spec.combine, spec.axes))


def _side(rs: Ruleset, members: list[dict[str, Any]],
          cache: dict[str, tuple[Side, str]]) -> tuple[Side, str]:
    """The side ``members`` make and its canonical JSON text (its combatants' plain
    fields), built once per distinct ``members``."""
    spot = repr(members)
    if spot not in cache:
        side = rs.side(members)
        cache[spot] = (side, _json([_fields(c) for c in side]))
    return cache[spot]
