"""The ruleset contract, run over every registered ruleset and the test rulesets
(`balance.testing.check_ruleset`, one test per check)."""

from __future__ import annotations

import pytest

from balance.rulesets import RULESETS, resolve
from balance.testing import ruleset_checks

from .sweep.helpers import COIN

SUBJECTS = [*sorted(RULESETS), COIN]

# Checks that take long on this 2-core machine (still run by `make test`): strike-rank's
# every-field check sets up some 370 matchups, each with its race model (~45 s CPU).
SLOW = {("strike-rank", "every_field_matters")}


@pytest.mark.parametrize(("subject", "check"), [
    pytest.param(subject, check, id=f"{resolve(subject, allow_import=True).name}-{name}",
                 marks=[pytest.mark.slow] * ((resolve(subject, allow_import=True).name, name)
                                             in SLOW))
    for subject in SUBJECTS for name, check in ruleset_checks(resolve(subject, allow_import=True))
])
def test_contract(subject: str, check) -> None:
    check(resolve(subject, allow_import=True))
