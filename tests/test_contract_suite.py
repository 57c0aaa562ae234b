"""The ruleset contract, run over every registered ruleset and the test rulesets
(`balance.testing.check_ruleset`, one test per check)."""

from __future__ import annotations

import pytest

from balance.rulesets import RULESETS, resolve
from balance.testing import ruleset_checks

from .sweep.helpers import COIN

SUBJECTS = [*sorted(RULESETS), COIN]

# Checks that take long (still run by `make test`): strike-rank's every-field check sets up
# some 370 matchups, each with its race model (~45 s CPU); strike-rank's kernel against
# reference (40,000 kernel fights against 1,500 reference ones per bench case, ~11 s) and
# pool's exact game against 200,000 kernel fights (~9 s).
SLOW = {("strike-rank", "every_field_matters"), ("strike-rank", "kernel_matches_reference"),
        ("pool", "exact_matches_kernel")}


@pytest.mark.parametrize(("subject", "check"), [
    pytest.param(subject, check, id=f"{resolve(subject, allow_import=True).name}-{name}",
                 marks=[pytest.mark.slow] * ((resolve(subject, allow_import=True).name, name)
                                             in SLOW))
    for subject in SUBJECTS for name, check in ruleset_checks(resolve(subject, allow_import=True))
])
def test_contract(subject: str, check) -> None:
    check(resolve(subject, allow_import=True))
