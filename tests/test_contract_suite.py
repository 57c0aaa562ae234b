"""The ruleset contract, run over every registered ruleset and the test rulesets
(`balance.testing.check_ruleset`, one test per check)."""

from __future__ import annotations

import pytest

from balance.rulesets import RULESETS, resolve
from balance.testing import ruleset_checks

from .sweep.helpers import COIN

SUBJECTS = [*sorted(RULESETS), COIN]


# checks of about 10 CPU seconds or more (40,000 kernel fights against 1,500 reference ones
# per bench case; 200,000 fights against pool's exact game)
SLOW = {"strike-rank-kernel_matches_reference", "pool-exact_matches_kernel"}


def _params() -> list:
    out = []
    for subject in SUBJECTS:
        rs = resolve(subject, allow_import=True)
        for name, check in ruleset_checks(rs):
            key = f"{rs.name}-{name}"
            out.append(pytest.param(subject, check, id=key,
                                    marks=[pytest.mark.slow] if key in SLOW else []))
    return out


@pytest.mark.parametrize(("subject", "check"), _params())
def test_contract(subject: str, check) -> None:
    check(resolve(subject, allow_import=True))
