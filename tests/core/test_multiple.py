"""The multiple-comparison procedures of balance.stats: hand-computed examples, SciPy's
Benjamini-Hochberg where it has one, and the normal p-value's agreement with the 95% rule."""

from __future__ import annotations

import numpy as np
import pytest

from balance import stats


def test_holm_on_a_hand_computed_example():
    # m = 4; sorted 0.01, 0.02, 0.03, 0.04 times 4, 3, 2, 1 = 0.04, 0.06, 0.06, 0.04, made
    # non-decreasing: 0.04, 0.06, 0.06, 0.06; returned in the input's order
    p = [0.03, 0.01, 0.04, 0.02]
    assert stats.holm(p) == pytest.approx([0.06, 0.04, 0.06, 0.06])
    # capped at 1; ties keep their order
    assert stats.holm([0.5, 0.5, 0.9]) == pytest.approx([1.0, 1.0, 1.0])
    assert stats.holm([0.001, 0.2]) == pytest.approx([0.002, 0.2])
    assert stats.holm([]).size == 0


def test_benjamini_hochberg_on_a_hand_computed_example_and_against_scipy():
    # m = 5; sorted 0.005, 0.01, 0.03, 0.04, 0.2 times 5/1, 5/2, 5/3, 5/4, 5/5 = 0.025,
    # 0.025, 0.05, 0.05, 0.2; non-decreasing from the top down already
    p = [0.04, 0.005, 0.2, 0.01, 0.03]
    assert stats.benjamini_hochberg(p) == pytest.approx([0.05, 0.025, 0.2, 0.025, 0.05])
    # a later smaller product lowers the earlier ones: 0.02*3/1=0.06, 0.03*3/2=0.045, 0.03
    assert stats.benjamini_hochberg([0.02, 0.03, 0.03]) == pytest.approx([0.03, 0.03, 0.03])
    from scipy.stats import false_discovery_control

    rng = np.random.default_rng(20)
    for size in (1, 7, 361):
        raw = rng.uniform(size=size) ** 3
        assert stats.benjamini_hochberg(raw) == pytest.approx(
            false_discovery_control(raw, method="bh"), abs=1e-12)


def test_holm_controls_what_bonferroni_does_and_rejects_at_least_as_much():
    rng = np.random.default_rng(7)
    raw = rng.uniform(size=50) ** 4
    adjusted = stats.holm(raw)
    assert np.all(adjusted <= np.minimum(50 * raw, 1.0) + 1e-15)
    assert np.all(adjusted >= raw)


def test_the_normal_p_value_agrees_with_the_95_percent_interval():
    z = stats.z_value(0.95)
    # an interval touching zero: p = 0.05 exactly; clear of the margin 0.02 by a hair: < 0.05
    assert stats.normal_pvalue(z * 0.01, 0.01) == pytest.approx(0.05)
    assert stats.normal_pvalue(0.02 + z * 0.01 + 1e-9, 0.01, 0.02) < 0.05
    assert stats.normal_pvalue(-(0.02 + z * 0.01 - 1e-6), 0.01, 0.02) > 0.05
    # exact differences: beyond or not
    assert stats.normal_pvalue([0.03, 0.01, -0.03], 0.0, 0.02).tolist() == [0.0, 1.0, 0.0]
    # inside the margin by far: 1
    assert float(stats.normal_pvalue(0.0, 0.01, 0.05)) == pytest.approx(1.0)


def test_a_family_claims_and_sizes_its_differences_at_the_procedure_s_levels():
    from balance.analysis.verdict import Family

    diff, se = np.array([0.05, 0.001, -0.03]), np.array([0.01, 0.01, 0.01])
    holm = Family("holm", diff, se)
    # p: 5.7e-7, 0.92, 0.0027; Holm multiplies them by 3, 1, 2
    assert holm.claimed().tolist() == [True, False, True]
    z = [stats.z_value(1 - a) for a in (0.05 / 3, 0.05, 0.05 / 2)]
    assert holm.halves() == pytest.approx(np.array(z) * se)
    bh = Family("bh", diff, se)
    z = [stats.z_value(1 - a) for a in (0.05 / 3, 0.05, 0.05 * 2 / 3)]
    assert bh.halves() == pytest.approx(np.array(z) * se)
    assert bh.foot() == ("differences claimed at Benjamini-Hochberg 5% false discovery rate "
                         "over 3 comparisons")
    # exact: every difference beyond the margin, none inside it
    exact = Family("holm", np.array([0.03, 0.01]), np.zeros(2), 0.02)
    assert exact.claimed().tolist() == [True, False]
