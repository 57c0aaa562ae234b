"""The race model's lazy batches give what the dense batch gives, bit for bit.

A round is played on the basis of the joint wound states; :class:`~.race._Scaled` and
:class:`~.race._Still` keep that batch as the entries that are not zero until it is spread
out.  Each operation on them is checked against the same operation on the dense array
(sizes 4 x 3, so that an axis mixed up shows).
"""

from __future__ import annotations

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
