"""The batch's shortcuts keep its answers: dice drawn for a sparse mask's rows only, a
condition its fixed values settle left unbranched, and a drop that merges only when the
dropped values differed."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from balance.language import compile_amount, compile_condition
from balance.rulesets import resolve
from balance.rulesets.file.batch import _DISTRIBUTIONS, VIEW_BOTH, Batch, Enumerator, Sampler

CRT = resolve(Path(__file__).resolve().parents[2] / "examples" / "rulesets" / "crt-plain.toml")
NAMES = CRT.system.names
FIXED = {"score": np.array([10, 10]), "divert": np.array([0, 0]),
         "divert_percent": np.array([50, 50])}


def _batch(m: int, *, weighted: bool) -> Batch:
    batch = Batch(m, FIXED, {}, NAMES, weighted=weighted)
    batch.state["health"] = np.stack([np.arange(m) % 7, np.arange(m) % 5]).astype(np.int64)
    return batch


def test_a_sparse_mask_draws_dice_for_its_rows_alone() -> None:
    batch = _batch(1000, weighted=False)
    mask = np.zeros(2000, bool)
    mask[::10] = True  # a tenth of the rows
    values = Sampler(np.random.default_rng(5)).evaluate(compile_amount("1d6", NAMES), batch,
                                                        VIEW_BOTH, mask)
    assert values.shape == (2000,) and (values[~mask] == 0).all()
    assert values[mask].min() >= 1 and values[mask].max() <= 6
    assert len(np.unique(values[mask])) == 6


def test_a_condition_its_fixed_values_settle_is_not_branched_on() -> None:
    batch = _batch(30, weighted=True)
    settled = compile_condition("self.divert == 'random' and d100 <= self.divert_percent + 0",
                                NAMES)
    held = Enumerator().evaluate(settled, batch, VIEW_BOTH)
    assert batch.m == 30 and not held.any() and (batch.weight == 1).all()
    assert settled not in _DISTRIBUTIONS  # no exact law worked out: nothing was branched
    rolled = compile_condition("d100 <= self.divert_percent", NAMES)
    Enumerator().evaluate(rolled, batch, VIEW_BOTH)
    assert batch.m == 4 * 30 and np.isclose(batch.weight.sum(), 30)  # A's 2 values x B's


def test_a_drop_merges_only_rows_the_dropped_values_told_apart() -> None:
    batch = _batch(4, weighted=True)
    batch.state["health"] = np.array([[3, 3, 2, 2], [1, 1, 1, 1]])
    batch.state["_flag"] = np.array([[0, 1, 0, 1], [0, 0, 0, 0]])
    batch.state["_same"] = np.zeros((2, 4), np.int64)
    batch.drop(("_same",))
    assert batch.m == 4 and "_same" not in batch.state
    batch.drop(("_flag",))
    assert batch.m == 2 and sorted(batch.state["health"][0].tolist()) == [2, 3]
    assert (batch.weight == 2).all()


def test_a_contest_is_the_exact_chance_without_branching() -> None:
    d20 = resolve(Path(__file__).resolve().parents[2] / "examples" / "rulesets"
                  / "d20-armour-class.toml")
    fixed = {"dexterity": np.array([4, 1])}
    batch = Batch(3, fixed, {}, d20.system.names, weighted=True)
    above, equal = Enumerator().contest(d20.system.order.initiative, batch)
    # B (d20 + 1) above A (d20 + 4): B's die 4 to 19 more than A's, 16 + 15 + ... + 1 ways
    # in 400; equal: exactly 3 more, 17 ways
    assert batch.m == 3 and np.allclose(above, 136 / 400) and np.allclose(equal, 17 / 400)
    happened = Enumerator().chance(batch, np.array([0.25, 0.0, 1.0]))
    assert happened.tolist() == [False, True, False, True]  # chance 0 and 1: one row each
    assert np.allclose(batch.weight, [0.75, 0.25, 1.0, 1.0])
