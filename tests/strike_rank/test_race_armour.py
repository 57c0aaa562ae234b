"""The race model under ``armour_block_success="double_armour"`` (000.10): a held Armour
block lets the blow through at double armour, as the reference and the kernel play it, so
best play weighs blocking by the rule in force (the model had played every held block as
absorbed)."""

from __future__ import annotations

import numpy as np
import pytest

from balance.fields import Table
from balance.rulesets.strike_rank import policy, race
from balance.rulesets.strike_rank.presets import STYLE_PRESETS
from balance.rulesets.strike_rank.rules import Rules


@pytest.fixture(autouse=True)
def _fresh() -> object:  # the store is off for the suite (tests/conftest.py)
    race.clear_caches()
    yield
    race.clear_caches()


@pytest.mark.parametrize("damage", [-2, 0, 3, 6])
def test_a_blow_on_the_armour_is_a_hit_of_no_blocks_at_twice_the_armour(damage: int) -> None:
    armour = STYLE_PRESETS["knight"].armour
    doubled = Table({where: 2 * ai for where, ai in armour.items()})
    for rules in (Rules(), Rules(armour_mode="roll_reduction")):
        on_armour = race._wound(rules, "damage", 0, armour, (3, 4), damage, race.ON_ARMOUR,
                                False)
        assert on_armour == race._wound(rules, "damage", 0, doubled, (3, 4), damage, 0, False)
        assert on_armour != race._wound(rules, "damage", 0, armour, (3, 4), damage, 0, False)


def _tables(rules: Rules, a: str, b: str) -> list[tuple[tuple[float, ...], ...]]:
    return list(policy.race_tables(rules, (STYLE_PRESETS[a],), (STYLE_PRESETS[b],)).values())


def test_a_held_block_lets_the_blow_through_under_double_armour() -> None:
    # The Gladiator blocks without penalty, and with a blow's -10 on its own parries it
    # blocks the Knight: under double_armour each held block still wounds it, so the
    # Knight's scores against a Gladiator who blows rise; where nobody blocks they stay.
    absorb = _tables(Rules(), "knight", "gladiator")
    double = _tables(Rules(armour_block_success="double_armour"), "knight", "gladiator")
    knight_first = 0  # the table with the Knight as fighter 0
    for before, after in zip(absorb[knight_first], double[knight_first], strict=True):
        assert after[2] > before[2]  # against the Gladiator's blow
        # against its thrust the Gladiator parries; the Knight's own held blocks (after a
        # failed parry) let through blows its armour, counted twice, stops: the same race
        assert after[0] == pytest.approx(before[0], abs=1e-12)
    # nobody but the Knight blocks, and its armour counted twice stops every blow that
    # reaches it after a failed parry: nothing moves but rounding
    np.testing.assert_allclose(
        _tables(Rules(armour_block_success="double_armour"), "knight", "skirmisher"),
        _tables(Rules(), "knight", "skirmisher"), rtol=0, atol=1e-12)
