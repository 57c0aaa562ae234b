"""Experiment specs: a TOML file (or the same structure as a mapping) -> a frozen :class:`Spec`.

An experiment is a question written as data::

    description = "skill level x combats survived against a veteran"
    question = "How much is a skill level worth against combats survived?"
    notes = "Look for the band edges and the zero band on the diagonal."   # optional
    ruleset = "crt"                       # a registry name, a ruleset file ("my-rules.toml",
                                          # beside this file), or "package.module:OBJECT"
    # streams = "independent"             # default "common": every cell's fight j on the
                                          # same random numbers (see below)

    [rules]                               # rule overrides (see `balance show RULESET`)
    extraordinary = true

    [[a]]                                 # side A: one table (or preset string) per combatant
    preset = "bruggish"
    [[b]]
    preset = "watchman"

    [grid]
    combine = "product"                   # or "zip": the i-th values of every axis together

    [[grid.axes]]
    field = "a.0.skill"                   # a.<i>.<field>, a.*.<field>, a.<i>.preset,
    values = [0, 1, 2, 3, 4, 5]           # rules.<parameter>, or a / b (a whole side)

    [[grid.axes]]
    field = "a.0.combats"
    values = { start = 0, stop = 50, step = 5 }   # inclusive of stop

    [run]
    # method = "exact"                    # solve each cell exactly (ruleset.exact) instead
    # play = "best"                       # best play: each cell's policies chosen as a game
    # draw_worth = 0.5                    # (best play) what a draw is worth to side A
    fights = 100_000                      # per cell; with precision, the cap
    # precision = 0.01                    # or: stop at this 95% interval half-width
    seed = 2024                           # omitted: fresh entropy, recorded in meta.json
    chunk_size = 262144
    confidence = 0.95

    [outputs]
    tables = ["parquet", "csv"]
    [[outputs.plots]]
    kind = "heatmap"                      # heatmap | curves | matchup
    x = "a.0.combats"
    y = "a.0.skill"
    value = "a_win"                       # or score (a draw counts half), draw, mean_rounds

    [labels]                              # optional: how tables and figures name things
    "a.0.combats" = "challenger's combats survived"
    [labels.values."a.0.skill"]           # ... and the values of an axis
    "0" = "unskilled"

    [verdict]                             # optional: the verdict that opens the report
    margin = 0.05                         # "balanced": expected scores within 50% +/- this
    # worth_margin = 0.02                 # an option is worth taking past this (points/100)
    # dominated_sure = 0.95               # dominated in at least this share of replicates
    # staircase_share = 0.8               # a staircase: this share of the change in a fifth
                                          # of the steps (see balance.analysis.verdict)
    # negligible_exchange = 0.1           # an exchange rate under this is "almost nothing"
    # value = "score"                     # what a grid's verdict reads: a_win or score (a
                                          # draw counts half); default a_win unless it never
                                          # moves while draws do
    sensitivity = true                    # recompute its key answer under each alternative
                                          # DEFAULT / AMBIG reading and policy
    focus = "max_attacks=3"               # the option the question is about (a value of an
                                          # axis): its comparison is the key answer

    [[tune]]                              # optional: "what would make it fair" in the report
    knob = "a.0.combats"                  # the value of this field that makes the spec's
    # target = 0.5                        # matchup (a, b, rules; `where` fixes other fields)
    # metric = "score"                    # even: see balance.analysis.tune; or, with
    # where = { "a.0.skill" = 2 }         # entrants = [...] and a bare field name, handicaps
                                          # that bring a round robin within margin of 50%

    [campaign]                            # optional, crt: side A's fighter's career against
    fights = 30                           # side B, fresh each fight ("A career" in the
    # careers = 10_000                    # report, the verdict's last sentence); peers,
                                          # skill_growth, skill_every as balance campaign

With ``method = "exact"`` each cell is solved by the ruleset's exact solver instead of
simulated; ``fights``, ``precision``, ``chunk_size`` and ``confidence`` do not apply and
are rejected.

With ``play = "best"`` each cell is played under best play
(:mod:`balance.analysis.bestplay`): each side's policies chosen to do its best against the
other's, a zero-sum game -- by Monte Carlo over the policy profiles (``fights`` is then the
fights per profile pair, ``precision`` the value's target half-width, 0.01 when neither is
given, ``chunk_size`` 1000 unless given) or, with ``method = "exact"``, exactly.  The cell's
value, its interval and each side's equilibrium policy become columns; ``draw_worth`` (0..1,
default 0.5) is what a draw is worth to side A.

``streams`` says which random numbers the cells see.  ``"common"`` (the default): chunk
``i`` of every cell is drawn from the same stream, ``stream(entropy, "common", i)``, so two
variants of a matchup play their ``j``-th fights from the same numbers (common random
numbers) and a difference between two cells has the error of its paired fights, usually
far smaller than the two cells' errors together (:mod:`balance.experiments.paired`).
``"independent"``: chunk ``i`` of a cell is drawn from ``stream(entropy, cell key, i)``, each
cell on its own numbers, as ``balance.engine.run(..., key=(cell key,))`` plays it alone.

Everything is validated before any work starts: unknown keys, wrong types, values out of
range, unknown presets and fields.  Each error is a :class:`~balance.errors.SpecError`
naming its place in the file (``experiments/x.toml: grid.axes[1].values[3]: ...``) and what
is allowed.  Combatant and rule values are checked by the ruleset itself
(``Ruleset.combatant`` / ``.rules``), so a sweep accepts exactly what ``balance duel``
accepts.
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..api import METHODS, PLAYS
from ..engine import DEFAULT_CHUNK_SIZE, MAX_FIGHTS
from ..errors import SpecError, did_you_mean
from ..fields import Table, plain, read_toml
from ..random import STREAMS
from ..reading import (
    SIDES,
    Reader,
    field_path,
    field_types,
    join,
    member_fields,
    reason,
    show,
)
from ..rulesets import RULESETS, resolve
from ..rulesets.base import Ruleset

__all__ = [
    "BEST_PLOT_VALUES",
    "COMBINE",
    "EXACT_PLOT_VALUES",
    "PLOT_KINDS",
    "PLOT_VALUES",
    "TABLE_FORMATS",
    "Axis",
    "PlotSpec",
    "Spec",
    "load_spec",
    "resolve_ruleset",
]

COMBINE: tuple[str, ...] = ("product", "zip")
TABLE_FORMATS: tuple[str, ...] = ("parquet", "csv")
PLOT_KINDS: tuple[str, ...] = ("heatmap", "curves", "matchup")
PLOT_VALUES: tuple[str, ...] = ("a_win", "b_win", "draw", "score", "value", "default_value",
                                "mean_rounds", "rounds_q10",
                                "rounds_q50", "rounds_q90")
EXACT_PLOT_VALUES: tuple[str, ...] = ("a_win", "b_win", "draw", "score", "mean_rounds")
BEST_PLOT_VALUES: tuple[str, ...] = ("value", "default_value", "a_win", "b_win", "draw",
                                     "score")
"""What a best-play run's table has to draw: the value, the value with the policies as
given, and the equilibrium's rates."""
"""What an exact run's table has to draw: rates and the mean length, no quantiles."""
SAMPLING_KEYS: tuple[str, ...] = ("fights", "precision", "chunk_size", "confidence")
"""[run] keys of a simulated run only."""
DEFAULT_FIGHTS = 100_000
MAX_CELLS = 1_000_000

_TOP_KEYS = ("description", "question", "notes", "ruleset", "presets", "rules", "a", "b",
             "grid", "run", "outputs", "tune", "labels", "verdict", "streams", "campaign")
LABELLED = ("a_win", "b_win", "draw", "score", "value", "default_value", "mean_rounds",
            "rounds_q10", "rounds_q50", "rounds_q90", "n")
"""Columns besides the axes that ``[labels]`` may name."""
_VERDICT_KEYS = ("margin", "sensitivity", "focus", "value", "worth_margin", "dominated_sure",
                 "staircase_share", "negligible_exchange")
VERDICT_VALUES: tuple[str, ...] = ("a_win", "score")
"""What a grid's verdict may read (``[verdict] value``): A's win rate or expected score."""
VERDICT_THRESHOLDS: dict[str, tuple[float, float]] = {
    "margin": (0.0, 0.5), "worth_margin": (0.0, 0.5), "dominated_sure": (0.5, 1.0),
    "staircase_share": (0.2, 1.0), "negligible_exchange": (0.0, 1.0)}
"""The thresholds ``[verdict]`` may set (see :mod:`balance.analysis.verdict`), each strictly
inside its range but for the share and the certainty, which may be 1."""
_GRID_KEYS = ("combine", "axes")
_AXIS_KEYS = ("field", "values")
_RANGE_KEYS = ("start", "stop", "step")
_RUN_KEYS = ("fights", "precision", "seed", "chunk_size", "confidence", "method", "play",
             "draw_worth")
_OUTPUT_KEYS = ("tables", "plots")
_PLOT_KEYS = ("kind", "x", "y", "value", "by", "where")
_TUNE_KEYS = ("knob", "target", "metric", "method", "precision", "bounds", "draw_worth",
              "seed", "where", "entrants", "margin", "fights")
_TUNE_MATCHUP_KEYS = ("target", "metric", "where")
"""[tune] keys of a matchup tuning only (a round robin, ``entrants``, aims at 50% for all)."""
_TUNE_ROUND_ROBIN_KEYS = ("margin", "fights")


# --- the frozen spec --------------------------------------------------------------------------


@dataclass(frozen=True)
class Axis:
    """One swept dimension: a field path and its values (plain, frozen)."""

    field: str
    values: tuple[Any, ...]

    @property
    def target(self) -> str:
        """``"rules"``, ``"a"`` or ``"b"``."""
        return self.field.split(".", 1)[0]

    @property
    def member(self) -> int | str | None:
        """Index of the combatant (``"*"``: all of them); ``None`` for rules and sides."""
        parts = self.field.split(".")
        if parts[0] == "rules" or len(parts) == 1:
            return None
        return "*" if parts[1] == "*" else int(parts[1])

    @property
    def name(self) -> str | None:
        """The field or rule parameter swept (``"preset"`` for presets); ``None`` for sides."""
        parts = self.field.split(".")
        return parts[-1] if len(parts) > 1 else None


@dataclass(frozen=True)
class PlotSpec:
    """A figure to draw at the end of the run (see :mod:`balance.plots`)."""

    kind: str
    x: str
    y: str | None = None
    value: str = "a_win"
    by: str | None = None
    where: Table = field(default_factory=Table)
    """Axis field -> the one value of it to draw (for axes the figure does not show)."""


@dataclass(frozen=True)
class Spec:
    """A validated experiment: what to simulate, over which grid, how many fights.

    Build one with :func:`load_spec`.  Values are frozen (tuples, :class:`Table`); the spec
    is the same whether it came from a TOML file or from its :meth:`to_dict` form.
    """

    ruleset: str
    a: tuple[Any, ...] | None
    b: tuple[Any, ...] | None
    rules: Table = field(default_factory=Table)
    axes: tuple[Axis, ...] = ()
    combine: str = "product"
    fights: int | None = DEFAULT_FIGHTS
    precision: float | None = None
    seed: int | None = None
    chunk_size: int = DEFAULT_CHUNK_SIZE
    confidence: float = 0.95
    tables: tuple[str, ...] = TABLE_FORMATS
    plots: tuple[PlotSpec, ...] = ()
    method: str = "simulate"
    """``"simulate"`` (Monte Carlo) or ``"exact"`` (each cell by ``ruleset.exact``)."""
    tune: tuple[Table, ...] = ()
    """``[[tune]]`` tables: knobs whose fair values the report states
    (:func:`balance.experiments.tuning.from_spec`)."""
    campaign: Table = field(default_factory=Table)
    """``[campaign]`` (crt): side A's fighter's career against side B, fresh each fight,
    whose survival the report and the verdict state (:func:`campaign_of`)."""
    play: str = "default"
    """``"default"`` (the policies as given) or ``"best"`` (best play, each cell a game)."""
    draw_worth: float = 0.5
    """Best play: what a draw is worth to side A."""
    description: str = ""
    question: str = ""
    """The designer's question, in a sentence (reports open with it)."""
    notes: str = ""
    """What to look for in the answer (reports print it under the question)."""
    labels: Table = field(default_factory=Table)
    """Display labels: column -> label, and ``values``: column -> (value text -> label)."""
    verdict: Table = field(default_factory=Table)
    """Verdict options: ``margin`` (balanced within 50% +/- it), ``sensitivity`` (bool)."""
    streams: str = "common"
    """``"common"`` (every cell's chunk ``i`` on the same stream) or ``"independent"``
    (each cell on streams keyed by the cell), see :data:`STREAMS`."""
    source: str | None = field(default=None, compare=False)
    """Where the spec came from (a path), for messages; not part of the experiment."""
    presets: Table = field(default_factory=Table)
    """Named combatants of this experiment (``[presets.NAME]`` tables), usable wherever a
    preset name is."""

    def ruleset_object(self, *, allow_import: bool = False) -> Ruleset:
        """The ruleset, with this experiment's own presets."""
        rs = resolve(self.ruleset, allow_import=allow_import)
        return rs.with_presets(self.presets) if self.presets else rs

    @property
    def cap(self) -> int:
        """Most fights any cell runs (0 for an exact run)."""
        if self.method == "exact":
            return 0
        return self.fights if self.fights is not None else MAX_FIGHTS

    @property
    def axis_fields(self) -> tuple[str, ...]:
        return tuple(axis.field for axis in self.axes)

    @property
    def n_cells(self) -> int:
        if not self.axes:
            return 1
        if self.combine == "zip":
            return len(self.axes[0].values)
        return math.prod(len(axis.values) for axis in self.axes)

    def to_dict(self) -> dict[str, Any]:
        """The spec as plain data in the TOML file's shape (``load_spec`` reads it back)."""
        out: dict[str, Any] = {"ruleset": self.ruleset}
        for key in ("description", "question", "notes"):
            if getattr(self, key):
                out[key] = getattr(self, key)
        if self.streams != "common":
            out["streams"] = self.streams
        if self.presets:
            out["presets"] = plain(self.presets)
        if self.rules:
            out["rules"] = plain(self.rules)
        for label in SIDES:
            side = getattr(self, label)
            if side is not None:
                out[label] = plain(side)
        out["grid"] = {"combine": self.combine,
                       "axes": [{"field": ax.field, "values": plain(ax.values)}
                                for ax in self.axes]}
        run: dict[str, Any]
        if self.method == "exact":
            run = {"method": "exact"}
        else:
            run = {"chunk_size": self.chunk_size, "confidence": self.confidence}
            for key in ("fights", "precision"):
                if getattr(self, key) is not None:
                    run[key] = getattr(self, key)
        if self.play != "default":
            run.update({"play": self.play, "draw_worth": self.draw_worth})
        if self.seed is not None:
            run["seed"] = self.seed
        out["run"] = run
        out["outputs"] = {"tables": list(self.tables),
                          "plots": [_plot_dict(p) for p in self.plots]}
        if self.tune:
            out["tune"] = [plain(entry) for entry in self.tune]
        for key in ("labels", "verdict", "campaign"):
            if getattr(self, key):
                out[key] = plain(getattr(self, key))
        return out


# --- rulesets by name or import path -----------------------------------------------------------


def resolve_ruleset(ref: str, *, allow_import: bool = False) -> Ruleset:
    """The ruleset named ``ref`` (see :func:`balance.rulesets.resolve`)."""
    return resolve(ref, allow_import=allow_import)


# --- reading ------------------------------------------------------------------------------------
# The reader with places, field paths and combatant specs are balance.reading's (a tuning
# knob is a field path too), imported above under this module's own names.


def load_spec(source: str | Path | Mapping[str, Any], *, name: str | None = None,
              allow_import: bool = False, play: str | None = None) -> Spec:
    """Read and validate an experiment from a TOML file or its mapping form.

    Parameters
    ----------
    source
        Path of a ``.toml`` file, or the same structure as a mapping (e.g.
        :meth:`Spec.to_dict` of another spec).
    name
        How errors refer to a mapping source (a file is named by its path).
    allow_import
        Whether a ``ruleset = "package.module:OBJECT"`` may be imported (it runs that
        module's code; see :func:`balance.rulesets.resolve`).
    play
        Overrides ``[run] play`` (``balance sweep --play best``): the experiment as if it
        said so (``"default"`` also drops a ``draw_worth``).

    Raises
    ------
    SpecError
        At the first problem, naming its place and what is allowed.
    """
    if isinstance(source, Mapping):
        data, origin = source, name
    else:
        origin = str(source)
        data = read_toml(source, "experiment file")
    if play is not None:
        if play not in PLAYS:
            raise SpecError(f"play must be one of {', '.join(PLAYS)}, got {play!r}")
        run = dict(data.get("run", {})) if isinstance(data.get("run", {}), Mapping) else {}
        run["play"] = play
        if play == "default":
            run.pop("draw_worth", None)
        data = {**data, "run": run}
    try:
        return _parse(data, Reader(origin), allow_import)
    except RecursionError:
        raise SpecError(f"{origin or 'spec'}: nested too deeply (values within each other "
                        "hundreds of levels down); an experiment is a few levels deep") \
            from None


def _beside(ref: str, source: str | None) -> str:
    """A ruleset file named relative to the experiment file, as an absolute path (the
    spec, its saved copy and every worker then name the same file)."""
    from ..rulesets.file import is_ruleset_file

    if not is_ruleset_file(ref) or Path(ref).is_absolute():
        return ref
    base = Path(source).parent if source and Path(source).is_file() else Path.cwd()
    return str((base / ref).resolve())


def _parse(data: Mapping[str, Any], r: Reader, allow_import: bool = False) -> Spec:
    """A spec read in named steps, each checking its part and naming the place of the
    first thing wrong: the ruleset with the spec's presets, the sides and the grid, the
    run, the outputs, the ``[[tune]]`` tables, the labels, the campaign and the verdict."""
    r.table(data, "", _TOP_KEYS)
    ref, rs, presets = _parse_ruleset(data, r, allow_import)
    rules = _parse_rules(rs, data.get("rules", {}), r)
    sides, axes, combine = _parse_sides_and_grid(rs, data, rules, r)
    run = _parse_run(r.table(data.get("run", {}), "run", _RUN_KEYS), r)
    tables, plots = _parse_outputs(data, axes, run["play"], run["method"], r)
    raw_tune = data.get("tune", [])
    tune = _parse_tunes(rs, raw_tune, r)
    spec = Spec(ruleset=ref, a=sides["a"], b=sides["b"], rules=rules, axes=axes,
                combine=combine, **run, tables=tables, plots=plots, tune=tune,
                streams=r.text(data.get("streams", "common"), "streams", STREAMS),
                description=r.text(data.get("description", ""), "description", lines=True),
                question=r.text(data.get("question", ""), "question", lines=True),
                notes=r.text(data.get("notes", ""), "notes", lines=True), source=r.source,
                presets=Table(presets),
                labels=Table(_parse_labels(data.get("labels", {}), axes, r)),
                verdict=Table(_parse_verdict(data.get("verdict", {}), axes, r)),
                campaign=Table(_parse_campaign(rs, data.get("campaign"), sides, r)))
    if spec.n_cells > MAX_CELLS:
        raise r.fail("grid", f"{spec.n_cells:,} cells; at most {MAX_CELLS:,} are allowed")
    for i, entry in enumerate(spec.tune):
        if "entrants" not in entry:  # the matchup it tunes must build: both sides, `where`
            place = f"tune[{i}]" if isinstance(raw_tune, list) else "tune"
            r.ruled(place, _check_tuned, rs, spec, entry)
    return spec


def _parse_ruleset(data: Mapping[str, Any], r: Reader, allow_import: bool
                   ) -> tuple[str, Ruleset, Any]:
    """The ruleset's reference (a path beside the spec where it is a file), the ruleset
    with the spec's own ``[presets]``, and those presets."""
    if "ruleset" not in data:
        raise r.fail("ruleset", "missing: name the ruleset (" + ", ".join(RULESETS) + ")")
    ref = _beside(r.text(data["ruleset"], "ruleset"), r.source)
    rs = r.ruled("ruleset", lambda ref: resolve(ref, allow_import=allow_import), ref)
    presets = data.get("presets", {})
    if not isinstance(presets, Mapping):
        raise r.fail("presets", "must be a table of [presets.NAME] combatant tables, got "
                                + show(presets))
    if presets:
        try:
            rs = rs.with_presets(presets, where="presets")
        except SpecError as exc:
            raise r.fail(exc.where or "presets", exc.reason) from None
    return ref, rs, presets


def _parse_sides_and_grid(rs: Ruleset, data: Mapping[str, Any], rules: Any, r: Reader
                          ) -> tuple[dict[str, tuple[Any, ...] | None], tuple[Axis, ...], str]:
    """Sides A and B (``None`` where an axis sweeps the whole side), the grid's axes (no
    field swept twice, equal lengths under ``zip``) and how they combine."""
    grid = r.table(data.get("grid", {}), "grid", _GRID_KEYS)
    combine = r.text(grid.get("combine", "product"), "grid.combine", COMBINE)
    raw_axes = grid.get("axes", [])
    if not isinstance(raw_axes, list):
        raise r.fail("grid.axes", f"must be a list of tables ([[grid.axes]]), got {show(raw_axes)}")
    swept_sides = {ax.get("field") for ax in raw_axes if isinstance(ax, Mapping)} & set(SIDES)
    sides: dict[str, tuple[Any, ...] | None] = {}
    for label in SIDES:
        if label not in data:
            if label not in swept_sides:
                raise r.fail(label, f"missing: give side {label.upper()} ([[{label}]] tables or "
                                    f"preset names), or sweep it with an axis field = \"{label}\"")
            sides[label] = None
            continue
        sides[label] = _parse_side(rs, data[label], label, r)
    axes = tuple(_parse_axis(rs, raw, i, rules, sides, r) for i, raw in enumerate(raw_axes))
    seen: dict[str, int] = {}
    for i, axis in enumerate(axes):
        if axis.field in seen:
            raise r.fail(f"grid.axes[{i}].field", f"{axis.field!r} is already swept by "
                                                  f"grid.axes[{seen[axis.field]}]")
        seen[axis.field] = i
    if combine == "zip" and axes:
        for i, axis in enumerate(axes[1:], 1):
            if len(axis.values) != len(axes[0].values):
                raise r.fail(f"grid.axes[{i}].values", f"combine = \"zip\" needs axes of equal "
                                                       f"length: grid.axes[0] has "
                                                       f"{len(axes[0].values)} values, this one "
                                                       f"{len(axis.values)}")
    return sides, axes, combine


def _parse_run(run: Mapping[str, Any], r: Reader) -> dict[str, Any]:
    """``[run]``: the method and play, and how much to sample (fights or a precision, the
    seed, the chunk size, the confidence), as the :class:`Spec` fields of those names."""
    method = r.text(run.get("method", "simulate"), "run.method", METHODS)
    if method == "exact":
        for key in SAMPLING_KEYS:
            if key in run:
                raise r.fail(f"run.{key}", "an exact run solves every cell instead of "
                                           f"sampling it, so {key!r} does not apply: remove "
                                           "it, or set method = \"simulate\"")
    play = r.text(run.get("play", "default"), "run.play", PLAYS)
    draw_worth = 0.5
    if "draw_worth" in run:
        if play != "best":
            raise r.fail("run.draw_worth", "applies to best play only: set play = \"best\", "
                                           "or remove it")
        value = run["draw_worth"]
        if isinstance(value, bool) or not isinstance(value, int | float) \
                or not 0 <= value <= 1:
            raise r.fail("run.draw_worth", f"must be a number in 0..1, got {show(value)}")
        draw_worth = float(value)
    precision = None
    if "precision" in run:
        precision = r.number(run["precision"], "run.precision", 0.0, 0.5)
    fights: int | None = DEFAULT_FIGHTS if precision is None and method == "simulate" \
        else None
    if play == "best" and method == "simulate" and "fights" not in run and precision is None:
        from ..analysis.bestplay import DEFAULT_PRECISION

        fights, precision = None, DEFAULT_PRECISION  # best play aims at the value's interval
    if "fights" in run:
        fights = r.integer(run["fights"], "run.fights", 1, MAX_FIGHTS)
    default_chunk = DEFAULT_CHUNK_SIZE
    if play == "best":
        from ..analysis.bestplay import CHUNK_SIZE as default_chunk
    return {"method": method, "play": play, "draw_worth": draw_worth, "fights": fights,
            "precision": precision,
            "seed": r.integer(run["seed"], "run.seed", 0) if "seed" in run else None,
            "chunk_size": r.integer(run.get("chunk_size", default_chunk), "run.chunk_size", 1,
                                    1 << 24),
            "confidence": r.number(run.get("confidence", 0.95), "run.confidence", 0.0, 1.0)}


def _parse_outputs(data: Mapping[str, Any], axes: tuple[Axis, ...], play: str, method: str,
                   r: Reader) -> tuple[tuple[str, ...], tuple[PlotSpec, ...]]:
    """``[outputs]``: the table formats, and the plots, each drawing a value the run's
    table has (a best-play, exact or simulated run's)."""
    outputs = r.table(data.get("outputs", {}), "outputs", _OUTPUT_KEYS)
    tables = outputs.get("tables", list(TABLE_FORMATS))
    if not isinstance(tables, list) or not tables:
        raise r.fail("outputs.tables", "must be a non-empty list from: "
                                       + ", ".join(TABLE_FORMATS))
    for i, fmt in enumerate(tables):
        r.text(fmt, f"outputs.tables[{i}]", TABLE_FORMATS)
    raw_plots = outputs.get("plots", [])
    if not isinstance(raw_plots, list):
        raise r.fail("outputs.plots", "must be a list of tables ([[outputs.plots]])")
    plots = tuple(_parse_plot(raw, f"outputs.plots[{i}]", axes, r)
                  for i, raw in enumerate(raw_plots))
    for i, plot in enumerate(plots):
        key, drawn = (("y", plot.y) if plot.kind == "curves" and plot.y
                      else ("value", plot.value))
        allowed = ("play = \"best\"", BEST_PLOT_VALUES) if play == "best" else (
            "an exact run", EXACT_PLOT_VALUES) if method == "exact" else (
            "a simulated run", tuple(v for v in PLOT_VALUES if "value" not in v))
        if drawn not in allowed[1]:
            raise r.fail(f"outputs.plots[{i}].{key}", f"{allowed[0]} has no {drawn} to draw: "
                                                      "it draws one of " + ", ".join(allowed[1]))
    return tuple(dict.fromkeys(tables)), plots


def _parse_tunes(rs: Ruleset, raw_tune: Any, r: Reader) -> tuple[Table, ...]:
    """``[tune]`` (one table) or ``[[tune]]`` (a list of them), each checked."""
    tune_tables = [raw_tune] if isinstance(raw_tune, Mapping) else raw_tune
    if not isinstance(tune_tables, list):
        raise r.fail("tune", "must be a table ([tune]) or a list of tables ([[tune]])")
    return tuple(_parse_tune(rs, raw, f"tune[{i}]" if isinstance(raw_tune, list) else "tune",
                             r) for i, raw in enumerate(tune_tables))


def _parse_verdict(raw: Any, axes: Sequence[Axis], r: Reader) -> dict[str, Any]:
    """``[verdict]``: thresholds in their ranges, the value read, the focus (a value of an
    axis) and whether to run the sensitivity pass."""
    verdict = r.table(raw, "verdict", _VERDICT_KEYS)
    for key, (low, high) in VERDICT_THRESHOLDS.items():
        if key not in verdict:
            continue
        given = verdict[key]
        if high < 1.0:
            r.number(given, f"verdict.{key}", low, high)
        elif not (isinstance(given, int | float) and not isinstance(given, bool)
                  and math.isfinite(given) and low < given <= high):
            raise r.fail(f"verdict.{key}", f"must be a number above {low:g} and at most "
                                           f"{high:g}, got {show(given)}")
    if "value" in verdict:
        r.text(verdict["value"], "verdict.value", VERDICT_VALUES)
        if verdict["value"] not in VERDICT_VALUES:
            raise r.fail("verdict.value", f"must be one of {', '.join(VERDICT_VALUES)}, got "
                                          f"{show(verdict['value'])}")
    if "focus" in verdict:
        from ..labels import display

        shown = [str(display(v, a.field)) for a in axes for v in a.values]
        text = r.text(verdict["focus"], "verdict.focus")
        if text not in shown:
            raise r.fail("verdict.focus", f"not a value of any axis{did_you_mean(text, shown)}")
    if "sensitivity" in verdict and not isinstance(verdict["sensitivity"], bool):
        raise r.fail("verdict.sensitivity", f"must be true or false, got "
                                            f"{show(verdict['sensitivity'])}")
    return dict(verdict)


def _parse_labels(raw: Any, axes: Sequence[Axis], r: Reader) -> dict[str, Any]:
    """``[labels]``: a label for an axis or a result column, and ``[labels.values."<axis>"]``
    a label for some of that axis's values (written as the table shows them)."""
    from ..labels import display

    if not isinstance(raw, Mapping):
        raise r.fail("labels", f"must be a table of labels, got {show(raw)}")
    fields = [axis.field for axis in axes]
    known = [*fields, *LABELLED]
    out: dict[str, Any] = {}
    for key, value in raw.items():
        place = join("labels", key)
        if key == "values":
            if not isinstance(value, Mapping):
                raise r.fail(place, "must be a table: [labels.values.\"<axis>\"]")
            values: dict[str, dict[str, str]] = {}
            for column, names in value.items():
                cplace = join(place, column)
                if column not in fields:
                    raise r.fail(cplace, f"not a swept axis{did_you_mean(column, fields)}; "
                                         "axes: " + (", ".join(fields) or "none"))
                if not isinstance(names, Mapping):
                    raise r.fail(cplace, "must be a table of value = \"label\"")
                axis = axes[fields.index(column)]
                shown = [str(display(v, column)) for v in axis.values]
                for text, label in names.items():
                    if text not in shown:
                        raise r.fail(join(cplace, text),
                                     f"not a value of the axis{did_you_mean(text, shown)}; "
                                     "values: " + ", ".join(shown))
                    r.text(label, join(cplace, text))
                values[column] = {str(k): str(v) for k, v in names.items()}
            out["values"] = values
            continue
        if key not in known:
            raise r.fail(place, f"not an axis or result column{did_you_mean(key, known)}; "
                                "labels name: " + ", ".join(known))
        out[key] = r.text(value, place)
    return out


# --- rules and sides -----------------------------------------------------------------------------


def _check_toml_type(cls: type, name: str, value: Any, place: str, r: Reader) -> None:
    """Reject a TOML string where the field wants a number, flag, list or table.

    ``build`` parses strings (so the command line can pass text); a TOML file has real types,
    and ``skill = "3"`` is a mistake worth reporting.
    """
    types_ = field_types(cls)
    if name not in types_ or not isinstance(value, str):
        return
    tp = types_[name]
    optional = False
    if typing.get_origin(tp) in (types.UnionType, typing.Union):
        args = typing.get_args(tp)
        optional = type(None) in args
        tp = next(a for a in args if a is not type(None))
    if tp is str or tp is Table:  # a table's text is the ruleset's to read (a zones map name)
        return
    if optional and value.strip().lower() == "none":
        return
    kind = {int: "a whole number", float: "a number", bool: "true or false"}.get(
        tp, "a list" if typing.get_origin(tp) is tuple else "a table")
    owner = getattr(cls, "_owner", cls.__name__)
    raise r.fail(place, f"{owner} field {name!r} must be {kind}"
                        + (" (or \"none\")" if optional else "")
                        + f", got the string {value!r}; write it without quotes")


def _parse_rules(rs: Ruleset, raw: Any, r: Reader) -> Table:
    if not isinstance(raw, Mapping):
        raise r.fail("rules", f"must be a table of rule overrides, got {show(raw)}")
    for name, value in raw.items():
        _check_toml_type(rs.Rules, name, value, f"rules.{name}", r)
    try:
        rs.rules(dict(raw))
    except SpecError as exc:
        for name, value in raw.items():  # locate the parameter at fault
            try:
                rs.rules({name: value})
            except SpecError as inner:  # a key path inside it (weapons.bola.effects[0])
                inside = inner.where is not None and inner.where.split(".")[0] == name
                raise r.fail(f"rules.{inner.where}" if inside else f"rules.{name}",
                             reason(inner)) from None
        raise r.fail("rules", reason(exc)) from None
    return Table(raw)


def _check_member(rs: Ruleset, member: Any, place: str, r: Reader) -> None:
    if isinstance(member, str):
        r.ruled(place, rs.combatant, member)
        return
    if not isinstance(member, Mapping):
        raise r.fail(place, "a combatant is a preset name or a table of fields (with an "
                            f"optional preset), got {show(member)}")
    if "preset" in member:
        preset = r.text(member["preset"], join(place, "preset"))
        r.ruled(join(place, "preset"), rs.preset, preset)
    for name, value in member.items():
        if name != "preset":
            _check_toml_type(rs.Combatant, name, value, join(place, name), r)
    try:
        rs.combatant(dict(member))
    except SpecError as exc:
        base = {"preset": member["preset"]} if "preset" in member else {}
        for name, value in member.items():
            if name != "preset":
                r.ruled(join(place, name), rs.combatant, {**base, name: value})
        raise r.fail(place, reason(exc)) from None


def _parse_side(rs: Ruleset, raw: Any, place: str, r: Reader) -> tuple[Any, ...]:
    members = [raw] if isinstance(raw, str | Mapping) else raw
    if not isinstance(members, list) or not members:
        raise r.fail(place, "a side is a preset name, a table of fields, or a non-empty list "
                            f"of them, got {show(raw)}")
    for i, member in enumerate(members):
        _check_member(rs, member, f"{place}[{i}]", r)
    if len(members) > rs.max_side:
        raise r.fail(place, f"{len(members)} combatants; {rs.name} allows 1..{rs.max_side} "
                            "per side")
    return tuple(Table(m) if isinstance(m, Mapping) else m for m in members)


# --- axes --------------------------------------------------------------------------------------


def _expand_range(raw: Mapping[str, Any], place: str, r: Reader) -> list[Any]:
    r.table(raw, place, _RANGE_KEYS)
    for key in ("start", "stop"):
        if key not in raw:
            raise r.fail(place, f"a range needs start and stop (inclusive), and may give step; "
                                f"{key} is missing")
    start, stop, step = raw["start"], raw["stop"], raw.get("step", 1)
    for key, value in (("start", start), ("stop", stop), ("step", step)):
        if isinstance(value, bool) or not isinstance(value, int | float) \
                or not math.isfinite(value):
            raise r.fail(join(place, key), f"must be a number, got {show(value)}")
    if step == 0 or (stop - start) / step < 0:
        raise r.fail(join(place, "step"), f"must be non-zero and lead from start {start} to "
                                           f"stop {stop}, got {step}")
    count = math.floor((stop - start) / step + 1e-9) + 1
    if count > MAX_CELLS:
        raise r.fail(place, f"{count:,} values; at most {MAX_CELLS:,} are allowed")
    if all(isinstance(v, int) for v in (start, stop, step)):
        return [start + i * step for i in range(count)]
    # Float ranges: start + i * step, rounded to the step's decimals so 0.1 + 0.2 is 0.3.
    decimals = max(_decimals(start), _decimals(step), 0)
    return [round(start + i * step, decimals + 1) if decimals < 15 else start + i * step
            for i in range(count)]


def _decimals(x: float) -> int:
    text = repr(float(x))
    if "e" in text:
        return 15
    return len(text.split(".")[1].rstrip("0")) if "." in text else 0


def _parse_axis(rs: Ruleset, raw: Any, i: int, rules: Table,
                sides: Mapping[str, tuple[Any, ...] | None], r: Reader) -> Axis:
    place = f"grid.axes[{i}]"
    r.table(raw, place, _AXIS_KEYS)
    for key in _AXIS_KEYS:
        if key not in raw:
            raise r.fail(place, f"missing {key!r}: an axis is {{field = \"...\", values = "
                                "[...] or {start, stop, step}}")
    path = field_path(raw["field"], f"{place}.field", rs, sides, r)
    values_place = f"{place}.values"
    raw_values = raw["values"]
    if isinstance(raw_values, Mapping):
        values = _expand_range(raw_values, values_place, r)
    elif isinstance(raw_values, list):
        values = list(raw_values)
    else:
        raise r.fail(values_place, "must be a list of values or a range {start, stop, step}, "
                                   f"got {show(raw_values)}")
    if not values:
        raise r.fail(values_place, "must hold at least one value")
    axis = Axis(path, ())
    frozen: list[Any] = []
    for j, value in enumerate(values):
        vplace = f"{values_place}[{j}]"
        _check_value(rs, axis, value, vplace, rules, sides, r)
        item = Table(value) if isinstance(value, Mapping) else _freeze_list(value)
        if item in frozen:
            raise r.fail(vplace, f"{_show_value(value)} is already value "
                                 f"[{frozen.index(item)}] of this axis")
        frozen.append(item)
    return Axis(path, tuple(frozen))


def _freeze_list(value: Any) -> Any:
    if isinstance(value, list | tuple):
        return tuple(_freeze_list(v) for v in value)
    if isinstance(value, Mapping):
        return Table(value)
    return value


def _show_value(value: Any) -> str:
    return repr(plain(value))


def _check_value(rs: Ruleset, axis: Axis, value: Any, place: str, rules: Table,
                 sides: Mapping[str, tuple[Any, ...] | None], r: Reader) -> None:
    """Check one axis value by building what it changes, on the spec's base."""
    if axis.target == "rules":
        name = axis.name
        assert name is not None
        _check_toml_type(rs.Rules, name, value, place, r)
        r.ruled(place, rs.rules, {**rules, name: value})
        return
    if axis.member is None:  # a whole side
        _parse_side(rs, value, place, r)
        return
    name = axis.name
    assert name is not None
    if name == "preset":
        preset = r.text(value, place)
        r.ruled(place, rs.preset, preset)
        return
    _check_toml_type(rs.Combatant, name, value, place, r)
    side = sides.get(axis.target)
    if side is None:  # the side itself is swept: check the value on a default combatant
        r.ruled(place, rs.combatant, {name: value})
        return
    member = axis.member
    indices = range(len(side)) if member == "*" else [int(member or 0)]
    for k in indices:
        r.ruled(place, rs.combatant, {**member_fields(side[k]), name: value})


# --- what would make it fair ------------------------------------------------------------------------


def _parse_tune(rs: Ruleset, raw: Any, place: str, r: Reader) -> Table:
    """One ``[tune]`` table, checked; its values plain (see :mod:`balance.analysis.tune`)."""
    from ..analysis import tune as tuning

    r.table(raw, place, _TUNE_KEYS)
    if "knob" not in raw:
        raise r.fail(place, "missing 'knob': the field to tune, e.g. knob = \"b.0.combats\"")
    knob = r.text(raw["knob"], f"{place}.knob")
    round_robin = "entrants" in raw
    for key in _TUNE_MATCHUP_KEYS if round_robin else _TUNE_ROUND_ROBIN_KEYS:
        if key in raw:
            raise r.fail(f"{place}.{key}", (
                f"{key!r} belongs to a matchup tuning (no entrants); a round robin brings "
                "every expected score to 50%" if round_robin else
                f"{key!r} belongs to a round robin of handicaps: give entrants = [...]"))
    if "metric" in raw:
        r.text(raw["metric"], f"{place}.metric", tuning.METRICS)
    if "method" in raw:
        r.text(raw["method"], f"{place}.method", METHODS)
    if "target" in raw:
        r.number(raw["target"], f"{place}.target", 0.0, 1.0)
    if "margin" in raw:
        r.number(raw["margin"], f"{place}.margin", 0.0, 0.5)
    if "draw_worth" in raw:
        value = raw["draw_worth"]
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
            raise r.fail(f"{place}.draw_worth", f"must be a number in 0..1, got {show(value)}")
    if "seed" in raw:
        r.integer(raw["seed"], f"{place}.seed", 0)
    if "fights" in raw:
        r.integer(raw["fights"], f"{place}.fights", 1, MAX_FIGHTS)
    bounds = raw.get("bounds")
    if bounds is not None and (not isinstance(bounds, list) or len(bounds) != 2):
        raise r.fail(f"{place}.bounds", f"must be [low, high], got {show(bounds)}")
    if round_robin:
        entrants = raw["entrants"]
        if not isinstance(entrants, list) or len(entrants) < 2:
            raise r.fail(f"{place}.entrants", "must list at least two preset names")
        for j, name in enumerate(entrants):
            r.ruled(f"{place}.entrants[{j}]", rs.preset, r.text(name, f"{place}.entrants[{j}]"))
        if "." in knob or knob not in tuning._numeric_fields(rs.Combatant):
            raise r.fail(f"{place}.knob", "a round robin tunes one combatant field of every "
                                          "entrant: one of " + ", ".join(
                                              tuning._numeric_fields(rs.Combatant)))
        r.ruled(f"{place}.bounds", lambda: tuning.parse_knob(rs, f"a.0.{knob}", bounds=bounds))
    else:
        r.ruled(f"{place}.knob", lambda: tuning.parse_knob(rs, knob, bounds=bounds))
        where = raw.get("where", {})
        if not isinstance(where, Mapping):
            raise r.fail(f"{place}.where", "must be a table: field = the value it takes")
        for key, value in _flatten(where, ()).items():
            wplace = f"{place}.where.{key}"
            field_path(key, wplace, rs, {}, r)
            if key in (knob, f"rules.{knob}"):
                raise r.fail(wplace, "is the knob being tuned")
            if isinstance(value, Mapping | list) and key not in SIDES:
                raise r.fail(wplace, f"must be one value, got {show(value)}")
    if "precision" in raw:
        value = raw["precision"]
        if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
            raise r.fail(f"{place}.precision", "must be a positive half-width in the knob's "
                                               f"units, got {show(value)}")
    return Table(raw)


def _check_tuned(rs: Ruleset, spec: Spec, entry: Mapping[str, Any]) -> None:
    from ..analysis.tune import knob_for

    cell = tuned_cell(spec, entry)
    knob_for(rs, cell.rules, cell.side_a, cell.side_b, entry["knob"], entry.get("bounds"))


CAMPAIGN_KEYS = ("fights", "careers", "peers", "skill_growth", "skill_every")
"""Keys of a ``[campaign]`` table (crt's :func:`balance.rulesets.crt.campaign.career`)."""


def _parse_campaign(rs: Ruleset, raw: Any, sides: Mapping[str, Any], r: Reader
                    ) -> dict[str, Any]:
    """``[campaign]``: a crt career of side A's one fighter against side B, checked as
    :func:`balance.rulesets.crt.campaign.career` checks its arguments."""
    if raw is None:
        return {}
    r.table(raw, "campaign", CAMPAIGN_KEYS)
    if type(rs).career is Ruleset.career:
        raise r.fail("campaign", f"only a ruleset whose fighters grow by surviving follows "
                                 f"careers (crt); this spec's ruleset is {rs.name!r}")
    if sides["a"] is None or len(sides["a"]) != 1 or sides["b"] is None:
        raise r.fail("campaign", "a career is side A's one fighter against side B, both given "
                                 "in the spec (not swept)")
    from ..rulesets.crt.campaign import SKILL_EVERY, SKILL_GROWTH

    out = {"fights": r.integer(raw.get("fights", 20), "campaign.fights", 1, 1000),
           "careers": r.integer(raw.get("careers", 10_000), "campaign.careers", 1,
                                MAX_FIGHTS),
           "peers": raw.get("peers", False),
           "skill_growth": r.text(raw.get("skill_growth", "every"), "campaign.skill_growth",
                                  SKILL_GROWTH),
           "skill_every": r.integer(raw.get("skill_every", SKILL_EVERY),
                                    "campaign.skill_every", 1, 1000)}
    if not isinstance(out["peers"], bool):
        raise r.fail("campaign.peers", f"must be true or false, got {show(out['peers'])}")
    return out


def campaign_of(spec: Spec, entropy: int | None, *, allow_import: bool = False) -> Any:
    """The career a spec's ``[campaign]`` asks for (``None`` where it has none): its table
    (:func:`balance.rulesets.crt.campaign.career`), on the spec's rules and sides, seeded by
    the spec's seed, else ``entropy`` (a run's), so a report says the same each time."""
    if not spec.campaign:
        return None
    cell = tuned_cell(spec, {})
    seed = spec.seed if spec.seed is not None else entropy
    c = spec.campaign
    return spec.ruleset_object(allow_import=allow_import).career(
        cell.rules, cell.side_a[0], cell.side_b, fights=c["fights"], n=c["careers"],
        seed=seed, peers=c["peers"], skill_growth=c["skill_growth"],
        skill_every=c["skill_every"])


def tuned_cell(spec: Spec, entry: Mapping[str, Any]) -> Any:
    """The matchup a ``[tune]`` table tunes: the spec's rules and sides with its ``where``
    values applied, built and checked as a one-cell grid."""
    from .grid import expand

    where = _flatten(dict(entry.get("where", {})), ())
    for label in SIDES:
        if getattr(spec, label) is None and label not in where:
            raise SpecError(f"side {label.upper()} is swept; name the one to tune with "
                            f"where = {{ {label} = \"preset\" }}")
    axes = tuple(Axis(key, (_freeze_list(value),)) for key, value in where.items())
    return expand(dataclasses.replace(spec, axes=axes, combine="product"))[0]


# --- outputs -------------------------------------------------------------------------------------


def _plot_dict(plot: PlotSpec) -> dict[str, Any]:
    out = {"kind": plot.kind, "x": plot.x, "y": plot.y, "value": plot.value, "by": plot.by,
           "where": plain(plot.where) if plot.where else None}
    return {k: v for k, v in out.items() if v is not None}


def _flatten(table: Mapping[str, Any], fields: Sequence[str], prefix: str = "") -> dict[str, Any]:
    """``{rules = {map = 1}}`` (what TOML makes of ``rules.map = 1``) -> ``{"rules.map": 1}``;
    a table stays whole where its path is one of ``fields`` (a table-valued axis)."""
    out: dict[str, Any] = {}
    for key, value in table.items():
        path = f"{prefix}{key}"
        if isinstance(value, Mapping):
            inner = _flatten(value, fields, path + ".")
            # A swept whole side ("a") still lets `a.0.might = 1` name its own axis.
            if path not in fields or (inner and all(k in fields for k in inner)):
                out.update(inner)
                continue
        out[path] = value
    return out


def _parse_plot(raw: Any, place: str, axes: tuple[Axis, ...], r: Reader) -> PlotSpec:
    r.table(raw, place, _PLOT_KEYS)
    fields = tuple(axis.field for axis in axes)
    kind = r.text(raw.get("kind"), f"{place}.kind", PLOT_KINDS)
    if "x" not in raw:
        raise r.fail(place, "missing 'x': the swept axis across the figure")
    names: dict[str, str | None] = {}
    for key in ("x", "y", "by"):
        if key not in raw:
            names[key] = None
            continue
        if key == "y" and kind == "curves":
            names[key] = r.text(raw[key], f"{place}.y", PLOT_VALUES)
            continue
        names[key] = r.text(raw[key], f"{place}.{key}")
        if names[key] not in fields:
            raise r.fail(f"{place}.{key}", f"must be a swept axis ({', '.join(fields) or 'none'}), "
                                           f"got {names[key]!r}")
    if kind != "curves" and names["y"] is None:
        raise r.fail(place, f"a {kind} needs 'y': a second swept axis")
    value = r.text(raw.get("value", "score" if kind == "matchup" else "a_win"),
                   f"{place}.value", PLOT_VALUES)
    raw_where = raw.get("where", {})
    if not isinstance(raw_where, Mapping):
        raise r.fail(f"{place}.where", "must be a table: axis field = the value to draw")
    where = _flatten(raw_where, fields)
    by_field = {axis.field: axis for axis in axes}
    for key, chosen in where.items():
        if key not in by_field:
            raise r.fail(f"{place}.where.{key}", f"must be a swept axis ({', '.join(fields)})")
        if _freeze_list(chosen) not in by_field[key].values:
            raise r.fail(f"{place}.where.{key}", f"{_show_value(chosen)} is not one of the "
                                                 "axis's values: " + ", ".join(
                                                     _show_value(v) for v in by_field[key].values))
    shown = {names["x"], names["by"] if kind == "curves" else names["y"]}
    for axis in axes:
        if len(axis.values) > 1 and axis.field not in shown and axis.field not in where:
            raise r.fail(place, f"{axis.field} also varies: draw it (x, y or by) or pick one "
                                f"value with where = {{ \"{axis.field}\" = ... }}")
    return PlotSpec(kind, names["x"] or "", names["y"], value, names["by"],
                    Table({k: _freeze_list(v) for k, v in where.items()}))
