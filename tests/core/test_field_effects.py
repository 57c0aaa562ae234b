"""`balance.testing.check_every_field_matters`: every rule parameter and combatant field
changes some result where it should; the exceptions are declared with their reasons, and
the check catches a field that does nothing, an inert declaration that is wrong and a
witness that shows nothing."""

from __future__ import annotations

import pytest

from balance.rulesets import resolve
from balance.rulesets.base import Witness
from balance.testing import check_every_field_matters, field_effects

from ..sweep.helpers import COIN


def coin():
    return resolve(COIN, allow_import=True)


def test_coin_passes_and_says_where_each_field_matters() -> None:
    effects = {e.field: e for e in field_effects(coin())}
    assert set(effects) == {"combatant.name", "combatant.bias", "combatant.level",
                            "combatant.call", "rules.max_rounds", "rules.target",
                            "rules.handicap"}
    assert effects["combatant.name"].inert == "display name"
    assert effects["combatant.name"].changed is None and effects["combatant.name"].tried > 0
    assert effects["combatant.call"].by_witness
    assert effects["combatant.call"].changed.startswith("witness a biased tosser: call='tails'")
    assert effects["rules.target"].changed.startswith("fair: target=")
    check_every_field_matters(coin())


def test_a_field_that_changes_nothing_fails() -> None:
    # without its witness, call changes nothing between two fair tossers
    with pytest.raises(AssertionError, match=r"combatant.call changed nothing in \d+ variants"):
        check_every_field_matters(coin(), witnesses=())


def test_a_field_declared_inert_that_matters_fails() -> None:
    with pytest.raises(AssertionError, match=r"combatant.bias is declared inert .* but "
                                             r"changes results: fair: bias="):
        check_every_field_matters(coin(), inert={"name": "display name",
                                                 "bias": "wrongly said inert"})


def test_a_witness_that_shows_nothing_fails() -> None:
    idle = Witness("call", ("tails",), "fair", "fair", why="two fair tossers")
    with pytest.raises(AssertionError, match="its witness two fair tossers changed nothing"):
        check_every_field_matters(coin(), witnesses=[idle])


@pytest.mark.parametrize(("inert", "witnesses", "message"), [
    ({"nonesuch": "why"}, (), "names 'nonesuch', which is no combatant field"),
    ({"name": " "}, (), "inert field combatant.name: give the reason"),
    ({"call": "x"}, [Witness("call", ("tails",), "lucky", "fair")], "declared inert and has"),
    ({}, [Witness("call", ("tails",), "lucky", "fair", side="c")], "side must be a, b or ab"),
    ({}, [Witness("call", ("tails",), "nobody", "fair")], "is not a valid matchup"),
])
def test_bad_declarations_are_named(inert, witnesses, message) -> None:
    with pytest.raises(AssertionError, match=message):
        check_every_field_matters(coin(), inert=inert, witnesses=witnesses)


def test_fields_limits_the_answer() -> None:
    assert [e.field for e in field_effects(coin(), fields=["bias", "rules.target"])] == [
        "combatant.bias", "rules.target"]
