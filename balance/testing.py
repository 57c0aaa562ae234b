"""Testing rulesets: the contract as an executable suite, and the helpers behind it.

:func:`check_ruleset` is the ruleset contract (``DESIGN.md``) as a test suite, in the manner
of scikit-learn's ``check_estimator``: run it over any ruleset -- a built-in, a plugin, the
one ``balance new ruleset`` wrote -- and it checks field validation and bad input,
determinism, chunk composition, the kernel against the scalar reference in distribution,
the exact solver against the kernel where one exists, the narrated log, the policy space
and the bench cases.  :func:`ruleset_checks` yields the same checks one by one, for
``pytest.mark.parametrize``.

Like ``numpy.testing``, this module is for test suites (ours and those of anyone adding a
ruleset); nothing in the package imports it.

Statistical checks use fixed seeds and thresholds set in advance: each rejects a correct
ruleset with probability at most :data:`ALPHA` (p-value threshold 1e-4), and a pass is
repeatable because the seeds are fixed.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np

__all__ = [
    "ALPHA",
    "ROUND_EDGES",
    "ScriptedRng",
    "categories",
    "check_ruleset",
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
    yield "kernel_matches_reference", check_kernel_matches_reference
    yield "exact_matches_kernel", check_exact_matches_kernel
    yield "narrated_log", check_narrated_log
    yield "bench_cases", check_bench_cases


def check_ruleset(ruleset: Any) -> None:
    """Run every contract check on ``ruleset`` (a ruleset object or name); raise
    ``AssertionError`` at the first failure, naming the check."""
    from .rulesets import resolve

    rs = resolve(ruleset, allow_import=True)
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
