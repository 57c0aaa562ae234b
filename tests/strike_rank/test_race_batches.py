"""The race model's lazy batches give what the dense batch gives, bit for bit.

A round is played on the basis of the joint wound states; :class:`~.race._Scaled` and
:class:`~.race._Still` keep that batch as the entries that are not zero until it is spread
out.  Each operation on them is checked against the same operation on the dense array
(sizes 4 x 3, so that an axis mixed up shows), then whole rounds of preset fighters against
the round on the dense basis, and the chain of round matrices against the chain played
round by round.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest

from balance.rulesets.strike_rank.race import Batch, _dense, _move, _plus, _Scaled, _Still

N0, N1 = 4, 3
RNG = np.random.default_rng(23)


def _op(attacker: int) -> np.ndarray:
    """A stacked hit operator of ``attacker`` (:class:`~.race._Fused`), some entries 0."""
    n_att, n_def = (N0, N1) if attacker == 0 else (N1, N0)
    op = RNG.random((n_att, n_def + 1, n_def))
    return np.where(RNG.random(op.shape) < 0.3, 0.0, op)


def _grid() -> np.ndarray:
    return RNG.random((N0, N1, 1))


def _moved(V: Batch, di: int) -> tuple[np.ndarray, np.ndarray]:
    """``V`` moved by a fresh operator of attacker ``1 - di`` as the lazy form does it
    and as the dense array does it: (lazy made dense, dense), outs compared."""
    op = _op(1 - di)
    out_lazy, out_dense = np.zeros(N0 * N1), np.zeros(N0 * N1)
    lazy = _move(V, op, di, out_lazy)
    dense = _move(_dense(V), op, di, out_dense)
    assert np.array_equal(out_lazy, out_dense)
    return _dense(lazy), _dense(dense)


def _own(V: Batch) -> Batch:
    """``V`` as a round's own (:func:`~.race._plus` adds into arrays in place)."""
    return V.copy() if isinstance(V, np.ndarray) else V


def test_a_scaled_basis_is_the_scaled_identity() -> None:
    s = RNG.random((N0, N1))
    dense = _dense(_Scaled(s))
    assert dense.shape == (N0, N1, N0 * N1)
    assert np.array_equal(dense.reshape(N0 * N1, -1), np.diag(s.ravel()))
    assert np.array_equal(_dense(_Scaled(s) * (g := _grid())), dense * g)


@pytest.mark.parametrize("di", [0, 1])
def test_a_hit_on_a_scaled_basis_leaves_the_attacker_still(di: int) -> None:
    V = _Scaled(RNG.random((N0, N1)))
    op = _op(1 - di)
    lazy = _move(V, op, di, np.zeros(N0 * N1))
    assert isinstance(lazy, _Still) and lazy.f == 1 - di
    got, want = _moved(V, di)
    assert np.array_equal(got, want)


@pytest.mark.parametrize("f", [0, 1])
@pytest.mark.parametrize("di", [0, 1])
def test_a_still_batch_moved_either_way_scaled_and_added(f: int, di: int) -> None:
    V = _move(_Scaled(RNG.random((N0, N1))), _op(f), 1 - f, np.zeros(N0 * N1))
    assert isinstance(V, _Still) and V.f == f
    got, want = _moved(V, di)
    assert np.array_equal(got, want)
    g = _grid()
    assert np.array_equal(_dense(V * g), _dense(V) * g)


def test_sums_of_every_pair_of_forms() -> None:
    scaled = _Scaled(RNG.random((N0, N1)))
    forms: list[Batch] = [scaled, scaled * _grid(),
             _move(scaled, _op(0), 1, np.zeros(N0 * N1)),
             _move(scaled, _op(1), 0, np.zeros(N0 * N1))]
    forms.append(_move(forms[2], _op(1), 0, np.zeros(N0 * N1)))  # dense
    for a in forms:
        for b in forms:
            want = _dense(a) + _dense(b)
            assert np.array_equal(_dense(_plus(_own(a), _own(b))), want)


# --- whole rounds and whole chains --------------------------------------------------------

ROUNDS: dict[str, tuple[Any, ...]] = {
    # (rules fields, fighter 0, fighter 1, attacks each takes a round, range rounds); a
    # fighter a preset's name, or (name, fields changed)
    "knight-takes-three": ({}, "knight", "legionnaire", (3, 1), 0),
    "side-mates-both-ways-two-attacks-after-attack": (
        {"attacks_per_round": 2, "attack_penalty_scope": "after_attack"},
        "knight", ("legionnaire", {"endurance": 20}), (3, 2), 0),  # 12 x 18 states
    "ripostes-past-the-chain-re-rolled-ties": (
        {"max_riposte_depth": 50, "tie_rule": "add_d20", "overpower_strict": True},
        "swashbuckler", "footpad", (1, 1), 0),
    "berserk-side-mates-range": ({}, "spearman", "berserk_gladiator", (2, 1), 2),
}
"""Rounds the pins reach only in part: side-mates' attacks (clones) with a Knight's
parry-then-block or several attacks a round, chains of ripostes cut at ``MAX_CHAIN``,
fighters of different wound tracks."""


def _racing(name: str) -> tuple[Any, ...]:
    """(model, slots, types of 0, types of 1) of a :data:`ROUNDS` case, its own model."""
    from balance.rulesets.strike_rank import race
    from balance.rulesets.strike_rank.presets import EXAMPLE_PRESETS, STYLE_PRESETS
    from balance.rulesets.strike_rank.profile import profile
    from balance.rulesets.strike_rank.rules import Rules

    fields, a, b, incoming, ranged = ROUNDS[name]
    rules = Rules(**fields)
    presets = {**STYLE_PRESETS, **EXAMPLE_PRESETS}
    c0, c1 = (presets[x] if isinstance(x, str) else dataclasses.replace(presets[x[0]], **x[1])
              for x in (a, b))
    model = race._Model(rules, c0, c1, ((0, 0), (0, 0)), incoming, ranged, ())
    return model, (0, 1), profile(c0, rules).types, profile(c1, rules).types


@pytest.mark.parametrize("name", sorted(ROUNDS))
def test_a_round_on_the_lazy_basis_is_the_round_on_the_dense_basis(name: str) -> None:
    # every branch of every exchange, riposte chains and side-mates' attacks included,
    # summed by defence counts whatever forms meet: the round matrix the chain is built
    # from, bit for bit
    from balance.rulesets.strike_rank import race

    model, _, types0, types1 = _racing(name)
    n0, n1 = len(model.flags[0]), len(model.flags[1])
    for t0 in types0:
        for t1 in types1:
            racers = tuple(race._Racer(p, s[0], s[1], f, t, k) for p, s, f, t, k in zip(
                model.ps, model.sits, model.flags, (t0, t1), model.incoming, strict=True))
            step = race._Round(racers, model.incoming, {}, model.directions)  # type: ignore[arg-type]
            for first in (0, 1):
                lazy, lazy_out = step.run(_Scaled(np.ones((n0, n1))), first)
                dense, dense_out = step.run(np.eye(n0 * n1).reshape(n0, n1, -1), first)
                assert np.array_equal(lazy, dense) and np.array_equal(lazy_out, dense_out)


@pytest.mark.parametrize("name", sorted(ROUNDS))
def test_a_chain_of_round_matrices_scores_as_the_chain_played_round_by_round(
        name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # the two round matrices, mixed once the chance of acting first is constant, against
    # the distribution carried round by round (the path of chains above MATRIX_STATES)
    from balance.rulesets.strike_rank import race

    model, slots, types0, types1 = _racing(name)
    pairs = [(t0, t1, model.firsts(slots, t0, t1)) for t0 in types0 for t1 in types1]
    matrix = [model.score(t0, t1, firsts, {}) for t0, t1, firsts in pairs]
    monkeypatch.setattr(race, "MATRIX_STATES", 0)
    plain, *_ = _racing(name)
    by_round = [plain.score(t0, t1, firsts, {}) for t0, t1, firsts in pairs]
    assert matrix == pytest.approx(by_round, abs=1e-12, rel=0)
    assert max(matrix) - min(matrix) > 0.05  # races that differ, not all near-certain
