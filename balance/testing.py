"""Testing rulesets: the contract as an executable suite, and the helpers behind it.

:func:`check_ruleset` is the ruleset contract (``DESIGN.md``) as a test suite, in the manner
of scikit-learn's ``check_estimator``: run it over any ruleset -- a built-in, a plugin, the
one ``balance new ruleset`` wrote -- and it checks field validation and bad input,
determinism, chunk composition, the kernel against the scalar reference in distribution,
the exact solver against the kernel where one exists, the narrated log, the policy space,
the bench cases, and that every field changes some result where it should.
:func:`ruleset_checks` yields the same checks one by one, for ``pytest.mark.parametrize``.

Like ``numpy.testing``, this module is for test suites (ours and those of anyone adding a
ruleset); nothing in the package imports it.

Statistical checks use fixed seeds and thresholds set in advance: each rejects a correct
ruleset with probability at most :data:`ALPHA` (p-value threshold 1e-4), and a pass is
repeatable because the seeds are fixed.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import types
import typing
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

__all__ = [
    "ALPHA",
    "ROUND_EDGES",
    "FieldEffect",
    "ScriptedRng",
    "categories",
    "check_every_field_matters",
    "check_ruleset",
    "field_effects",
    "kernel_counts",
    "reference_counts",
    "reference_outcomes",
    "ruleset_checks",
]


class ScriptedRng:
    """A stand-in for ``numpy.random.Generator`` that replays scripted dice.

    ``integers(low, high)`` pops the next scripted value (checked to lie in
    ``[low, high)``); ``random()`` pops a float.  Used to drive the scalar references
    through the digests' worked examples roll by roll.
    """

    def __init__(self, values: Iterable[float]) -> None:
        self.values = list(values)

    def integers(self, low: int, high: int | None = None, size: Any = None,
                 dtype: Any = None) -> Any:
        assert size is None, "scripted rolls are scalar"
        if high is None:
            low, high = 0, low
        value = self.values.pop(0)
        assert low <= value < high, f"scripted value {value} outside [{low}, {high})"
        return value

    def random(self, size: Any = None) -> Any:
        assert size is None
        return self.values.pop(0)

    @property
    def exhausted(self) -> bool:
        return not self.values


ROUND_EDGES = (1, 2, 3, 4, 6, 8, 11, 15, 20, 30, 50)


def categories(winner: Any, cause: Any, rounds: Any, edges: tuple[int, ...] = ROUND_EDGES
               ) -> np.ndarray:
    """One category code per fight: (winner, end cause, fight-length bucket)."""
    bucket = np.digitize(np.asarray(rounds), edges)
    return (np.asarray(winner, np.int64) * 16 + np.asarray(cause)) * 16 + bucket


def reference_outcomes(ruleset: Any, rules: Any, side_a: Any, side_b: Any, n: int,
                       rng: np.random.Generator) -> Any:
    """``n`` fights of the scalar reference stacked as the kernel's
    :class:`~balance.outcomes.Outcomes` (end causes as codes, each extra as an array), so
    the two are compared field by field."""
    from .outcomes import Outcomes

    results = [ruleset.fight(rules, side_a, side_b, rng=rng) for _ in range(n)]
    names = sorted({key for r in results for key in r.extras})
    return Outcomes(winner=np.array([int(r.winner) for r in results], np.int8),
                    rounds=np.array([r.rounds for r in results], np.int64),
                    cause=np.array([ruleset.causes.index(r.cause) for r in results], np.int8),
                    causes=ruleset.causes,
                    extras={k: np.array([r.extras.get(k, 0) for r in results]) for k in names})


def _counts(out: Any) -> np.ndarray:
    return np.bincount(categories(out.winner, out.cause, out.rounds), minlength=3 * 256)


def kernel_counts(ruleset: Any, rules: Any, side_a: Any, side_b: Any, n: int, seed: int
                  ) -> np.ndarray:
    """Category counts (:func:`categories`) of ``n`` kernel fights."""
    return _counts(ruleset.simulate(rules, side_a, side_b, n=n, rng=np.random.default_rng(seed)))


def reference_counts(ruleset: Any, rules: Any, side_a: Any, side_b: Any, n: int, seed: int
                     ) -> np.ndarray:
    """Category counts (:func:`categories`) of ``n`` reference fights."""
    return _counts(reference_outcomes(ruleset, rules, side_a, side_b, n,
                                      np.random.default_rng(seed)))


# --- the contract as a test suite ------------------------------------------------------------

ALPHA = 1e-4
"""p-value threshold of the statistical checks: a correct ruleset fails one with at most this
probability (the seeds are fixed, so a pass is repeatable)."""

Check = Callable[[Any], None]


def ruleset_checks(ruleset: Any) -> Iterator[tuple[str, Check]]:
    """The contract checks, as ``(name, check)`` pairs; ``check(ruleset)`` raises
    ``AssertionError`` naming what is wrong."""
    yield "identity", check_identity
    yield "fields_validate_bad_input", check_fields_validate
    yield "presets_and_scenarios", check_presets_and_scenarios
    yield "policy_space", check_policy_space
    yield "kernel_shape_and_determinism", check_kernel_determinism
    yield "chunk_composition", check_chunk_composition
    yield "batch_invariance", check_batch_invariance
    yield "kernel_matches_reference", check_kernel_matches_reference
    yield "exact_matches_kernel", check_exact_matches_kernel
    yield "narrated_log", check_narrated_log
    yield "bench_cases", check_bench_cases
    yield "every_field_matters", check_every_field_matters


def check_ruleset(ruleset: Any, *, allow_import: bool = False) -> None:
    """Run every contract check on ``ruleset`` (a ruleset object or name, or a
    ``"package.module:OBJECT"`` path with ``allow_import=True``); raise ``AssertionError``
    at the first failure, naming the check."""
    from .rulesets import resolve

    rs = resolve(ruleset, allow_import=allow_import)
    for name, check in ruleset_checks(rs):
        try:
            check(rs)
        except AssertionError as exc:
            raise AssertionError(f"{rs.name}: check {name} failed: {exc}") from exc


def _matchups(rs: Any) -> list[tuple[str, Any, tuple[Any, ...], tuple[Any, ...]]]:
    """Matchups to check on: the bench cases, else the first presets, else defaults."""
    cases = [(c.name, c.rules, tuple(c.side_a), tuple(c.side_b)) for c in rs.bench_cases()]
    if cases:
        return cases
    presets = list(rs.presets.values())
    a = presets[0] if presets else rs.Combatant()
    b = presets[-1] if presets else rs.Combatant()
    return [("default", rs.Rules(), (a,), (b,))]


def check_identity(rs: Any) -> None:
    from .outcomes import EndCauses

    for attr in ("name", "title", "Combatant", "Rules", "causes"):
        assert hasattr(rs, attr), f"the ruleset has no {attr}"
    assert isinstance(rs.name, str) and rs.name, "name must be a non-empty string"
    assert isinstance(rs.causes, EndCauses), "causes must be an EndCauses"
    assert "max_rounds" in rs.causes, "causes must name max_rounds (the round cap)"
    for cls in (rs.Combatant, rs.Rules):
        assert isinstance(cls, type) and dataclasses.is_dataclass(cls), \
            f"{cls!r} must be a dataclass"
        params: Any = getattr(cls, "__dataclass_params__")  # noqa: B009  (not typed)
        assert params.frozen, f"{cls.__name__} must be frozen"
        for f in dataclasses.fields(cls):
            if f.name.startswith("_"):
                continue
            assert "tag" in f.metadata, f"{cls.__name__}.{f.name} is not declared with param()"
    assert isinstance(rs.max_side, int) and rs.max_side >= 1
    json.dumps(rs.describe(), default=str)


def _bad_values(info: Any, default: Any) -> list[Any]:
    """Values that field ``info`` must refuse."""
    bad: list[Any] = [object()]
    if isinstance(default, bool):
        bad.append("maybe")
    elif isinstance(default, int | float) and not isinstance(default, bool):
        bad.append("many")
        if info.allowed and ".." in info.allowed:
            low, high = info.allowed.split("..")
            if low not in ("-inf", ""):
                bad.append(float(low) - 1 if isinstance(default, float) else int(float(low)) - 1)
            if high not in ("inf", ""):
                bad.append(float(high) + 1 if isinstance(default, float) else int(float(high)) + 1)
        if isinstance(default, float):
            bad.append(math.nan)
    elif isinstance(default, str) and " | " in info.allowed:
        bad.append("no-such-choice")
    return bad


def check_fields_validate(rs: Any) -> None:
    from .errors import SpecError
    from .fields import build, describe_fields

    for cls, make in ((rs.Combatant, rs.combatant), (rs.Rules, rs.rules)):
        make()  # the defaults are valid
        for info in describe_fields(cls):
            default = getattr(cls(), info.name)
            for value in _bad_values(info, default):
                try:
                    build(cls, {info.name: value})
                except SpecError as exc:
                    message = str(exc)
                    assert info.name in message, (f"{cls.__name__}.{info.name}={value!r}: the "
                                                  f"error does not name the field: {message}")
                    assert "\n" not in message, f"{info.name}: the error is not one line"
                else:
                    raise AssertionError(f"{cls.__name__}.{info.name} accepted {value!r} "
                                         f"(allowed: {info.allowed})")
    try:
        build(rs.Combatant, {"no_such_field_xyz": 1})
    except SpecError as exc:
        assert "no_such_field_xyz" in str(exc)
    else:
        raise AssertionError("an unknown combatant field was accepted")


def check_presets_and_scenarios(rs: Any) -> None:
    for name, c in rs.presets.items():
        assert isinstance(c, rs.Combatant), f"preset {name} is not a {rs.name} combatant"
        assert rs.combatant(name) == c
    for sc in rs.scenarios.values():
        rules = rs.rules(sc.rules)
        rs.check_sides(rules, tuple(sc.side_a), tuple(sc.side_b))


def check_policy_space(rs: Any) -> None:
    from .fields import describe_fields

    for policy in rs.policy_space():
        assert policy.scope in ("combatant", "rules"), policy
        owner = rs.Combatant if policy.scope == "combatant" else rs.Rules
        assert policy.name in {f.name for f in describe_fields(owner)}, \
            f"policy {policy.name} is not a field of {owner.__name__}"
        # an empty search is a policy declared but not searched unless a search names it
        # (pool's turn_policy: the exact game plays attack turns only); otherwise a choice
        assert len(policy.values) != 1, f"policy {policy.name} offers a single value to try"
        if not policy.values:
            md = {f.name: f.metadata for f in dataclasses.fields(owner)}[policy.name]
            assert md.get("choices") or None not in (md.get("low"), md.get("high")), \
                f"policy {policy.name} has no values to try and no choices or bounds"
        for value in policy.values:
            if policy.scope == "combatant":
                rs.combatant(None, **{policy.name: value})
            else:
                rs.rules(**{policy.name: value})
    for _, rules, side_a, side_b in _matchups(rs):
        for item in rs.policies(rules, side_a, side_b):
            assert isinstance(item, str) and item, "a policy disclosure must be a string"
        for item in rs.assumptions(rules, side_a, side_b):
            assert item.endswith(("[DEFAULT]", "[AMBIG]")), item


def check_kernel_determinism(rs: Any) -> None:
    from .outcomes import Outcomes

    for name, rules, side_a, side_b in _matchups(rs):
        one = rs.simulate(rules, side_a, side_b, n=500, rng=np.random.default_rng(1))
        two = rs.simulate(rules, side_a, side_b, n=500, rng=np.random.default_rng(1))
        assert isinstance(one, Outcomes), f"{name}: simulate must return Outcomes"
        assert len(one) == 500 and one.rounds.shape == one.cause.shape == (500,), name
        assert set(np.unique(one.winner)) <= {0, 1, 2}, f"{name}: winner codes outside 0..2"
        assert tuple(one.causes) == tuple(rs.causes), f"{name}: Outcomes.causes is not causes"
        assert one.cause.min() >= 0 and one.cause.max() < len(rs.causes), f"{name}: cause codes"
        assert one.rounds.min() >= 1, f"{name}: a fight of no round"
        for field_name in ("winner", "rounds", "cause"):
            assert np.array_equal(getattr(one, field_name), getattr(two, field_name)), \
                f"{name}: the same seed gave different {field_name}"
        assert len(rs.simulate(rules, side_a, side_b, n=1, rng=np.random.default_rng(2))) == 1


def check_chunk_composition(rs: Any) -> None:
    from .engine import run, run_chunk

    name, rules, side_a, side_b = _matchups(rs)[0]
    whole = run(rs, rules, side_a, side_b, entropy=7, n=2500, chunk_size=1000)
    parts = [run_chunk(rs, rules, side_a, side_b, size=size, entropy=7, index=i)
             for i, size in enumerate((1000, 1000, 500))]
    total = parts[2] + parts[0] + parts[1]  # in any order
    assert total == whole, f"{name}: chunks do not add up to the run"
    assert whole.n == 2500


def check_batch_invariance(rs: Any, *, n: int = 600) -> None:
    """Each segment's fights end the same way alone as in a batch with every other matchup
    (two chunks of each, in a shuffled order): :mod:`balance.batching`'s invariant."""
    from .batching import Segment, SegmentedRng

    segments = [Segment(rules, side_a, side_b, n + 37 * index, (name,), index)
                for name, rules, side_a, side_b in _matchups(rs) for index in (0, 1)]
    order = np.random.default_rng(5).permutation(len(segments))
    groups: dict[Any, list[Segment]] = {}
    for i in order:
        groups.setdefault(rs.batch_key(segments[i]), []).append(segments[i])
    for batch in groups.values():
        together = rs.simulate_segments(batch, SegmentedRng.of(batch, 11))
        for segment, joint in zip(batch, together, strict=True):
            alone = rs.simulate_segments([segment], SegmentedRng.of([segment], 11))[0]
            where = f"{segment.key[0]} chunk {segment.index} among {len(batch)} segments"
            assert len(joint) == segment.n, f"{where}: {len(joint)} fights, not {segment.n}"
            for field_name in ("winner", "rounds", "cause"):
                assert np.array_equal(getattr(alone, field_name), getattr(joint, field_name)), \
                    f"{where}: {field_name} differs from the segment alone"
            direct = rs.simulate(segment.rules, segment.side_a, segment.side_b, n=segment.n,
                                 rng=segment.stream(11))
            assert np.array_equal(alone.winner, direct.winner), \
                f"{where}: simulate and a batch of one differ"


def check_kernel_matches_reference(rs: Any, *, n_kernel: int = 40_000,
                                   n_reference: int = 1500) -> None:
    from .stats import chi2_homogeneity

    for name, rules, side_a, side_b in _matchups(rs):
        kernel = kernel_counts(rs, rules, side_a, side_b, n_kernel, seed=101)
        reference = reference_counts(rs, rules, side_a, side_b, n_reference, seed=202)
        p = chi2_homogeneity(kernel, reference)
        assert p > ALPHA, (f"{name}: kernel and reference differ in distribution (winner, "
                           f"cause, length): chi-square p = {p:.2e}")


def check_exact_matches_kernel(rs: Any, *, n: int = 200_000) -> None:
    from .errors import SpecError
    from .stats import gof_pvalue

    for name, rules, side_a, side_b in _matchups(rs):
        if rs.exact_check(rules, side_a, side_b):
            continue
        try:
            exact = rs.exact(rules, side_a, side_b)
        except SpecError:
            continue
        if exact.strategy is not None:  # it solved the game: not the kernel's fixed play
            continue
        total = exact.a_win + exact.b_win + exact.draw
        assert abs(total - 1) < 1e-9, f"{name}: exact probabilities sum to {total}"
        out = rs.simulate(rules, side_a, side_b, n=n, rng=np.random.default_rng(303))
        counts = np.bincount(out.winner, minlength=3)
        p = gof_pvalue(counts, np.array([exact.draw, exact.a_win, exact.b_win]))
        assert p > ALPHA, f"{name}: kernel against exact solver: chi-square p = {p:.2e}"


def check_narrated_log(rs: Any) -> None:
    name, rules, side_a, side_b = _matchups(rs)[0]
    lines: list[str] = []
    told = rs.fight(rules, side_a, side_b, rng=np.random.default_rng(5), log=lines.append)
    quiet = rs.fight(rules, side_a, side_b, rng=np.random.default_rng(5))
    assert lines and all(isinstance(line, str) for line in lines), f"{name}: nothing narrated"
    assert (told.winner, told.rounds, told.cause) == (quiet.winner, quiet.rounds, quiet.cause), \
        f"{name}: narrating changed the fight"
    assert told.cause in rs.causes, f"{name}: unknown end cause {told.cause!r}"


def check_bench_cases(rs: Any) -> None:
    names = [c.name for c in rs.bench_cases()]
    assert len(names) == len(set(names)), "bench case names repeat"
    extra = rs.bench_extra_cases()
    assert not set(names) & set(extra), "bench extra cases reuse a bench case name"
    for case in rs.bench_cases():
        rs.check_sides(case.rules, tuple(case.side_a), tuple(case.side_b))


# --- every field changes some result ----------------------------------------------------------

FIELD_FIGHTS = 500
"""Fights per matchup in :func:`check_every_field_matters`: common random numbers (the same
seed for the matchup and its variant) make any difference visible in a few hundred."""
FIELD_SEED = 11
MAX_ALTERNATIVES = 12
"""Alternative values the generic search tries per field (declared witnesses: all theirs)."""
FIRST_PASS = 3
"""The generic search tries this many alternatives in every matchup before the rest."""
SMALL_MATCHUP = 6
"""Matchups of more combatants are searched last, and a field declared inert is confirmed
in the smaller ones only: a new matchup costs its setup, which grows fast with the sides
(strike-rank's 6 v 6 takes seconds)."""


@dataclasses.dataclass(frozen=True)
class FieldEffect:
    """What :func:`field_effects` found for one field.

    ``field`` is ``"combatant.NAME"`` or ``"rules.NAME"``; ``changed`` says where a changed
    value changed some outcome (``None``: nowhere tried); ``by_witness`` whether a declared
    witness showed it; ``inert`` the declared reason, if any; ``failed_witnesses`` the
    declared witnesses that changed nothing; ``tried`` the variants run.
    """

    field: str
    policy: bool
    changed: str | None
    by_witness: bool = False
    inert: str | None = None
    failed_witnesses: tuple[str, ...] = ()
    tried: int = 0


class _Case:
    """One matchup; its baseline outcomes (kernel, and exact where asked) are computed the
    first time a variant is compared with them."""

    def __init__(self, rs: Any, name: str, rules: Any, side_a: Iterable[Any],
                 side_b: Iterable[Any], n: int, seed: int) -> None:
        self.rs, self.name, self.rules, self.n, self.seed = rs, name, rules, n, seed
        self.sides = (tuple(side_a), tuple(side_b))
        self._kernel: dict[str, np.ndarray] | None = None
        self._exact: Any = None

    def same_matchup(self, other: _Case) -> bool:
        return self.rules == other.rules and self.sides == other.sides

    def kernel(self, rules: Any, side_a: tuple[Any, ...], side_b: tuple[Any, ...]
               ) -> dict[str, np.ndarray]:
        """Every per-fight result: winner, rounds, cause and the extras."""
        out = self.rs.simulate(rules, side_a, side_b, n=self.n,
                               rng=np.random.default_rng(self.seed))
        return {"winner": np.asarray(out.winner), "rounds": np.asarray(out.rounds),
                "cause": np.asarray(out.cause),
                **{f"extra {k}": np.asarray(v) for k, v in out.extras.items()}}

    def exact_baseline(self) -> Any:
        """The exact answer of the matchup, or ``None`` where the solver does not answer."""
        from .errors import SpecError

        if self._exact is None:
            self._exact = False
            if self.rs.exact_check(self.rules, *self.sides) is None:
                with contextlib.suppress(SpecError):
                    self._exact = self.rs.exact(self.rules, *self.sides)
        return self._exact or None

    def differs(self, rules: Any, side_a: tuple[Any, ...], side_b: tuple[Any, ...], *,
                exact: bool) -> bool | None:
        """Whether the variant changes an outcome; ``None`` where it cannot run."""
        from .errors import SpecError

        try:
            self.rs.check_sides(rules, side_a, side_b)
            if exact:
                base = self.exact_baseline()
                if base is None or self.rs.exact_check(rules, side_a, side_b) is not None:
                    return None
                return _probabilities_differ(base, self.rs.exact(rules, side_a, side_b))
            if self._kernel is None:
                self._kernel = self.kernel(self.rules, *self.sides)
            outcomes = self.kernel(rules, side_a, side_b)
        except SpecError:
            return None
        return (outcomes.keys() != self._kernel.keys()
                or not all(np.array_equal(x, outcomes[k]) for k, x in self._kernel.items()))


def _probabilities_differ(one: Any, two: Any) -> bool:
    pairs = [(one.a_win, two.a_win), (one.b_win, two.b_win), (one.draw, two.draw)]
    if one.mean_rounds is not None and two.mean_rounds is not None:
        pairs.append((one.mean_rounds, two.mean_rounds))
    return any(abs(x - y) > 1e-12 for x, y in pairs)


def _field_keys(rs: Any) -> dict[str, tuple[type, dataclasses.Field[Any]]]:
    """``"combatant.NAME"`` / ``"rules.NAME"`` -> (class, field) of every declared field."""
    out = {}
    for scope, cls in (("combatant", rs.Combatant), ("rules", rs.Rules)):
        for f in dataclasses.fields(cls):
            if "tag" in f.metadata:
                out[f"{scope}.{f.name}"] = (cls, f)
    return out


def _resolve_key(keys: Iterable[str], name: str, where: str) -> str:
    keys = list(keys)
    if name in keys:
        return name
    found = [k for k in keys if k.split(".", 1)[1] == name]
    assert found, f"{where} names {name!r}, which is no combatant field or rule parameter"
    assert len(found) == 1, (f"{where} names {name!r}, a combatant field and a rule "
                             f"parameter: write {' or '.join(repr(k) for k in found)}")
    return found[0]


def _numbers(default: Any, low: Any, high: Any, kind: type) -> list[Any]:
    """Bounds and neighbours of a number (``default`` may be ``None``)."""
    values: list[Any] = [v for v in (low, high) if v is not None]
    if default is None:
        if low is not None and high is not None:
            values.append((low + high) / 2)
        values.append(0)
    else:
        step = (high - low) / 10 if kind is float and None not in (low, high) else 1
        values += [default - step, default + step, default - 2 * step, default + 2 * step]
    out: list[Any] = []
    for v in values:
        v = min(max(v, low if low is not None else v), high if high is not None else v)
        v = float(v) if kind is float else round(v)
        if v not in out:
            out.append(v)
    return out


def _shift(value: Any, step: int) -> Any:
    """Every number of a (nested) table or tuple moved by ``step``; the rest kept."""
    from .fields import Table

    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int | float):
        return value + step
    if isinstance(value, tuple):
        return tuple(_shift(v, step) for v in value)
    if isinstance(value, Mapping):
        return Table({k: _shift(v, step) for k, v in value.items()})
    return value


def _entry_variants(value: Any, md: Mapping[str, Any], top: bool) -> list[Any]:
    """Alternatives for one entry of a table (``top``: the field's own bounds apply)."""
    from .fields import Table

    if isinstance(value, bool):
        return [not value]
    if isinstance(value, int | float):
        low, high = (md.get("low"), md.get("high")) if top else (None, None)
        kind = float if isinstance(value, float) else int
        return [v for v in _numbers(value, low, high, kind) if v != value][:4]
    if isinstance(value, str):
        choices = md.get("choices") if top else None
        return [c for c in choices or () if c != value][:3]
    out: list[Any]
    if isinstance(value, tuple):
        out = [tuple(reversed(value))] if len(set(value)) > 1 else []
        return [*out, value[:-1]] if value else out
    if isinstance(value, Mapping):
        out = [_shift(value, 1), _shift(value, -1)]
        for key, entry in value.items():
            out += [Table({**value, key: v}) for v in _entry_variants(entry, md, False)[:2]]
        return out
    return []


def _table_variants(table: Any, md: Mapping[str, Any]) -> list[Any]:
    """Alternatives for a table: every number moved, the entries rotated among the keys,
    then one entry at a time."""
    from .fields import Table

    out = [_shift(table, 1), _shift(table, -1)]
    keys = list(table)
    entries = [table[k] for k in keys]
    if len(keys) > 1 and len(set(map(repr, entries))) > 1:
        out.append(Table(dict(zip(keys, entries[1:] + entries[:1], strict=True))))
    for key in keys:
        out += [table.replace(**{key: v}) for v in _entry_variants(table[key], md, True)]
    return out


def _alternatives(f: dataclasses.Field[Any], tp: Any, seen: Sequence[Any]) -> list[Any]:
    """Values to try for field ``f`` of type ``tp``: the other choices, the other bool,
    bounds and neighbours of numbers, tables and tuples changed, values seen elsewhere."""
    from .fields import Table

    md = f.metadata
    default: Any = f.default
    origin = typing.get_origin(tp)
    optional = False
    if origin in (types.UnionType, typing.Union):
        optional = True
        tp = next(a for a in typing.get_args(tp) if a is not type(None))
        origin = typing.get_origin(tp)
    out: list[Any] = []
    if tp is bool:
        out = [True, False]
    elif md.get("choices") and origin is not tuple and tp is not Table:
        out = list(md["choices"])
    elif tp in (int, float):
        out = _numbers(default, md.get("low"), md.get("high"), tp)
    elif origin is tuple:
        item = typing.get_args(tp)[0]
        if len(set(default)) > 1:
            out.append(tuple(reversed(default)))
        out += [default[:i] + default[i + 1:] for i in range(len(default))]
        out += [(*default, c) for c in md.get("choices") or () if c not in default]
        if item in (int, float):
            out += [_shift(default, 1), _shift(default, -1)]
            for i, v in enumerate(default):
                out += [(*default[:i], w, *default[i + 1:])
                        for w in _numbers(v, md.get("low"), md.get("high"), item) if w != v]
    elif tp is Table or origin is Table or isinstance(default, Mapping):
        out = _table_variants(default, md)
    out += [v for v in seen if v not in out]
    if optional and default is not None:
        out.insert(0, None)
    unique: list[Any] = []
    for v in out:
        if v != default and v not in unique:
            unique.append(v)
    return unique


def _seen_values(rs: Any, cases: Sequence[_Case]) -> dict[str, list[Any]]:
    """Every value a field takes in the presets, the scenarios and the matchups."""
    seen: dict[str, list[Any]] = {}

    def note(key: str, value: Any) -> None:
        bucket = seen.setdefault(key, [])
        if value not in bucket:
            bucket.append(value)

    combatants = list(rs.presets.values())
    for case in cases:
        combatants += [*case.sides[0], *case.sides[1]]
        for f in dataclasses.fields(case.rules):
            note(f"rules.{f.name}", getattr(case.rules, f.name))
    for c in combatants:
        for f in dataclasses.fields(c):
            note(f"combatant.{f.name}", getattr(c, f.name))
    return seen


def _variants(case: _Case, key: str, value: Any, sides: Sequence[str]
              ) -> Iterator[tuple[str, Any, tuple[Any, ...], tuple[Any, ...]]]:
    """(how, rules, side A, side B) with field ``key`` set to ``value``: in the rules, or
    for a combatant field on every combatant of each side in ``sides`` in turn (``"a"``,
    ``"b"``, or ``"ab"`` for both at once); variants equal to the matchup are left out, and
    so are values the field refuses.  Values may be written as on the command line."""
    from .errors import SpecError
    from .fields import build

    scope, name = key.split(".", 1)
    try:
        if scope == "rules":
            rules = build(type(case.rules), {name: value}, base=case.rules)
            if rules != case.rules:
                yield "", rules, case.sides[0], case.sides[1]
            return
        for label in sides:
            pair = tuple(tuple(build(type(c), {name: value}, base=c) for c in side)
                         if which in label else side
                         for which, side in zip("ab", case.sides, strict=True))
            if pair != case.sides:
                where = "both sides" if label == "ab" else f"side {label}"
                yield f" on {where}", case.rules, pair[0], pair[1]
    except SpecError:
        return


def _search(cases: Iterable[_Case], key: str, values: Sequence[Any], sides: Sequence[str],
            *, exact: bool) -> tuple[str | None, int]:
    """Where setting ``key`` to one of ``values`` changes an outcome, and the variants run."""
    tried = 0
    for case in cases:
        for value in values:
            for how, rules, side_a, side_b in _variants(case, key, value, sides):
                try:
                    differs = case.differs(rules, side_a, side_b, exact=exact)
                except Exception as exc:
                    raise AssertionError(f"{case.name}: {key}={value!r}{how}: "
                                         f"{'exact' if exact else 'simulate'} raised "
                                         f"{exc!r}") from exc
                tried += differs is not None
                if differs:
                    name, shown = key.split(".", 1)[1], repr(value)
                    shown = shown if len(shown) <= 80 else shown[:77] + "..."
                    return (f"{case.name}: {name}={shown}{how} "
                            f"({'exact' if exact else 'kernel'})"), tried
    return None, tried


def _cases(rs: Any, n: int, seed: int) -> list[_Case]:
    """The bench cases and scenarios (else a default matchup), each matchup once, the
    smallest first (fewest combatants; ties in declaration order)."""
    found: list[_Case] = []
    matchups = [(c.name, c.rules, c.side_a, c.side_b) for c in rs.bench_cases()]
    matchups += [(f"scenario {name}", rs.rules(sc.rules), sc.side_a, sc.side_b)
                 for name, sc in rs.scenarios.items()]
    for name, rules, side_a, side_b in matchups or _matchups(rs):
        case = _Case(rs, name, rules, side_a, side_b, n, seed)
        if not any(case.same_matchup(other) for other in found):
            found.append(case)
    return sorted(found, key=_size)


def _in_play(case: _Case, key: str, default: Any) -> bool:
    """Whether the matchup holds field ``key`` at another value than ``default``."""
    scope, name = key.split(".", 1)
    if scope == "rules":
        return bool(getattr(case.rules, name) != default)
    return any(getattr(c, name) != default for side in case.sides for c in side)


def _size(case: _Case) -> int:
    return len(case.sides[0]) + len(case.sides[1])


def _witness_case(rs: Any, w: Any, key: str, n: int, seed: int) -> _Case:
    try:
        rules = w.rules if isinstance(w.rules, rs.Rules) else rs.rules(w.rules)
        side_a, side_b = rs.side(w.side_a), rs.side(w.side_b)
        rs.check_sides(rules, side_a, side_b)
        return _Case(rs, f"witness {w.why or key}", rules, side_a, side_b, n, seed)
    except Exception as exc:
        raise AssertionError(f"the witness of {key} ({w.why}) is not a valid matchup: "
                             f"{exc}") from exc


def _field_effects(rs: Any, n: int, seed: int, witnesses: Sequence[Any],
                   inert: Mapping[str, str], fields: Iterable[str] | None
                   ) -> Iterator[FieldEffect]:
    keys = _field_keys(rs)
    declared_inert = {_resolve_key(keys, k, "inert_fields"): why for k, why in inert.items()}
    for key, why in declared_inert.items():
        assert isinstance(why, str) and why.strip(), f"inert field {key}: give the reason"
    by_key: dict[str, list[Any]] = {}
    for w in witnesses:
        key = _resolve_key(keys, w.field, f"a witness ({w.why or w.field})")
        assert key not in declared_inert, f"{key} is declared inert and has a witness"
        assert w.side in ("a", "b", "ab"), f"a witness of {key}: side must be a, b or ab"
        by_key.setdefault(key, []).append(w)
    wanted = None if fields is None else {_resolve_key(keys, k, "fields") for k in fields}
    cases = _cases(rs, n, seed)
    small = [c for c in cases if _size(c) <= SMALL_MATCHUP] or cases[:1]
    seen = _seen_values(rs, cases)
    hints: dict[type, dict[str, Any]] = {}
    defaults: dict[type, Any] = {}
    known_cases = list(cases)
    for key, (cls, f) in keys.items():
        if wanted is not None and key not in wanted:
            continue
        tp = hints.setdefault(cls, typing.get_type_hints(cls))[f.name]
        values = _alternatives(f, tp, seen.get(key, []))
        policy = bool(f.metadata.get("policy"))
        if key in declared_inert:
            # each matchup with one alternative, in turn, on both sides at once
            changed, tried = None, 0
            for i, case in enumerate(small):
                if changed is None and values:
                    changed, more = _search([case], key, [values[i % len(values)]], ("ab",),
                                            exact=False)
                    tried += more
            yield FieldEffect(key, policy, changed, inert=declared_inert[key], tried=tried)
            continue
        changed, by_witness, failed, tried = None, False, [], 0
        for w in by_key.get(key, []):
            case = _witness_case(rs, w, key, n, seed)
            # a matchup met before keeps its baseline (named by this witness)
            known = next((c for c in known_cases if c.same_matchup(case)), None)
            if known is None:
                known_cases.append(case)
            else:
                case._kernel, case._exact = known._kernel, known._exact
            found, more = _search([case], key, w.values, (w.side,), exact=False)
            tried += more
            if found is None:
                found, more = _search([case], key, w.values, (w.side,), exact=True)
                tried += more
            if found is None:
                failed.append(case.name)
            elif changed is None:
                changed, by_witness = found, True
        if changed is None:
            # matchups where the field is not at its default first; a few values in every
            # matchup before the rest
            default = getattr(defaults.setdefault(cls, cls()), f.name)
            ordered = sorted(small, key=lambda c: not _in_play(c, key, default))
            values = values[:MAX_ALTERNATIVES]
            large = [c for c in cases if c not in small]
            for pool, batch in ((ordered, values[:FIRST_PASS]), (ordered, values[FIRST_PASS:]),
                                (large, values)):
                if changed is None:
                    changed, more = _search(pool, key, batch, ("a", "b"), exact=False)
                    tried += more
        yield FieldEffect(key, policy, changed, by_witness, None, tuple(failed), tried)


def field_effects(ruleset: Any, *, n: int = FIELD_FIGHTS, seed: int = FIELD_SEED,
                  witnesses: Sequence[Any] | None = None,
                  inert: Mapping[str, str] | None = None,
                  fields: Iterable[str] | None = None, allow_import: bool = False
                  ) -> list[FieldEffect]:
    """For every combatant field and rule parameter (policies too), whether changing it
    changes some outcome (``ruleset``: an object, a name, or a ``"package.module:OBJECT"``
    path with ``allow_import=True``).

    A field's declared witnesses
    (:meth:`~balance.rulesets.base.Ruleset.field_witnesses`; ``witnesses`` replaces them)
    are tried first, each value in turn, through the kernel and then, where the solver
    answers, the exact solver.  Where no witness shows an effect, the generic search tries
    alternative values (the other choices, the other bool, bounds and neighbours of
    numbers, tables and tuples changed, values the presets and scenarios hold), on every
    combatant of side A then of side B for a combatant field, in the ruleset's bench cases
    and scenarios through the kernel: those that hold the field at another value than its
    default first, then the smallest first; :data:`FIRST_PASS` values in every matchup
    before the rest, and matchups of more than :data:`SMALL_MATCHUP` combatants last.  A
    variant runs ``n`` kernel fights with the matchup's seed (common random numbers: an
    inert change gives identical winner, rounds, cause and extras arrays).  A field declared
    inert (:meth:`~balance.rulesets.base.Ruleset.inert_fields`; ``inert`` replaces them) is
    set on both sides at once in every bench case and scenario of at most
    :data:`SMALL_MATCHUP` combatants, to one of its alternatives in turn, to confirm it.
    ``fields`` limits the answer to those fields.
    """
    from .rulesets import resolve

    rs = resolve(ruleset, allow_import=allow_import)
    return list(_field_effects(
        rs, n, seed, tuple(rs.field_witnesses() if witnesses is None else witnesses),
        dict(rs.inert_fields() if inert is None else inert), fields))


def check_every_field_matters(rs: Any, *, witnesses: Sequence[Any] | None = None,
                              inert: Mapping[str, str] | None = None,
                              n: int = FIELD_FIGHTS) -> None:
    """Every combatant field and rule parameter (policies too) changes some outcome in some
    matchup (:func:`field_effects`), but for those the ruleset declares inert, with their
    reasons; a field declared inert changes nothing, and every declared witness shows its
    field at work."""
    problems = []
    for effect in field_effects(rs, n=n, witnesses=witnesses, inert=inert):
        if effect.inert is not None and effect.changed is not None:
            problems.append(f"{effect.field} is declared inert ({effect.inert}) but changes "
                            f"results: {effect.changed}")
        elif effect.inert is None and effect.changed is None:
            problems.append(f"{effect.field} changed nothing in {effect.tried} variants "
                            "(declare a witness where it must, or declare it inert with the "
                            "reason)")
        for name in effect.failed_witnesses:
            problems.append(f"{effect.field}: its {name} changed nothing")
    assert not problems, "; ".join(problems)
