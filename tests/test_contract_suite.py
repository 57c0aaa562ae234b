"""The ruleset contract, run over every registered ruleset and the test rulesets
(`balance.testing.check_ruleset`, one test per check)."""

from __future__ import annotations

import pytest

from balance.rulesets import RULESETS, resolve
from balance.testing import ruleset_checks

from .sweep.helpers import COIN

SUBJECTS = [*sorted(RULESETS), COIN]


@pytest.mark.parametrize(("subject", "check"), [
    pytest.param(subject, check, id=f"{resolve(subject, allow_import=True).name}-{name}")
    for subject in SUBJECTS for name, check in ruleset_checks(resolve(subject, allow_import=True))
])
def test_contract(subject: str, check) -> None:
    check(resolve(subject, allow_import=True))
