"""One-line rows: each sentence reads as the table the long form writes, and a sentence
that fits no form is one line naming the forms."""

from __future__ import annotations

import pytest

from balance.errors import SpecError
from balance.language import LanguageError
from balance.language.lines import effect_table, modifier_table

from .test_rows import VOCABULARY


@pytest.mark.parametrize(("line", "table"), [
    ("+1 to attack when target.armour_rank >= 3",
     {"amount": 1, "to": "attack", "when": "target.armour_rank >= 3"}),
    ("-1 to parry", {"amount": -1, "to": "parry"}),
    ("1d4 to damage when round == 1 and target.shield != \"none\"",
     {"amount": "1d4", "to": "damage", "when": "round == 1 and target.shield != \"none\""}),
    ("self.wounds // 2 to initiative", {"amount": "self.wounds // 2", "to": "initiative"}),
])
def test_modifier_lines_read_as_their_tables(line: str, table: dict) -> None:
    assert modifier_table(line, where="m") == table
    assert VOCABULARY.modifier(line, where="m") == VOCABULARY.modifier(table, where="m")


@pytest.mark.parametrize(("line", "table"), [
    ("on success inflict entangled for 1d3 rounds when target.size <= 2",
     {"on": "success", "inflict": "entangled", "rounds": "1d3", "when": "target.size <= 2"}),
    ("on hit inflict slowed on self until removed",
     {"on": "hit", "inflict": "slowed", "who": "self"}),
    ("on hit inflict slowed for 1 round", {"on": "hit", "inflict": "slowed", "rounds": 1}),
    ("on hit spend 1 ammunition", {"on": "hit", "spend": "ammunition", "amount": 1}),
    ("on miss spend ammunition by target",
     {"on": "miss", "spend": "ammunition", "who": "target"}),
    ("on hit set target.stance to guarded",
     {"on": "hit", "set": "stance", "who": "target", "value": "guarded"}),
    ("on hit set self.bonus to 2 when round == 1",
     {"on": "hit", "set": "bonus", "who": "self", "value": 2, "when": "round == 1"}),
])
def test_effect_lines_read_as_their_tables(line: str, table: dict) -> None:
    assert effect_table(line, where="e") == table
    assert VOCABULARY.effect(line, where="e") == VOCABULARY.effect(table, where="e")


def test_a_single_line_is_a_list_of_one_row() -> None:
    assert VOCABULARY.modifiers("+1 to attack", where="w") == (
        VOCABULARY.modifier({"to": "attack", "amount": 1}, where="w[0]"),)


@pytest.mark.parametrize(("line", "reader", "needle"), [
    ("+1 attack", "modifier", "AMOUNT to TARGET"),
    ("on hit entangle slowed", "effect", "on OUTCOME inflict"),
    ("on hit set stance guarded", "effect", "on OUTCOME set"),
])
def test_a_line_that_fits_no_form_names_the_forms(line: str, reader: str, needle: str) -> None:
    with pytest.raises(SpecError) as err:
        getattr(VOCABULARY, reader)(line, where="weapons.pick.modifiers[0]")
    message = str(err.value)
    assert "\n" not in message and needle in message and "weapons.pick.modifiers[0]" in message


def test_the_parts_of_a_line_are_checked_as_the_table_is() -> None:
    with pytest.raises(SpecError, match="attak"):
        VOCABULARY.modifier("+1 to attak", where="m")
    with pytest.raises(LanguageError, match="column"):
        VOCABULARY.modifier("+1 to attack when target.armor_rank >= 3", where="m")
