"""Declaring names: what a name may be called, its type, its words as codes, and the
environments the compiled expressions take (arrays, scalars, codes, words)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from balance.errors import SpecError
from balance.language import Name, Names, compile_amount, compile_condition

SHIELD = Name(str, choices=("none", "buckler", "kite"), doc="the shield carried", tag="TEXT")
NAMES = Names({"self.wounds": Name(int, range=(0, 10)), "target.shield": SHIELD,
               "mounted": Name("bool"), "round": Name(int, range=(1, None))})


@pytest.mark.parametrize(("key", "message"), [
    ("self..wounds", "cannot be a name"),
    ("1st", "cannot be a name"),
    ("_hidden", "cannot be a name"),
    ("self.__class__", "cannot be a name"),
    ("self wounds", "cannot be a name"),
    ("and", "'and' is a word of the rules language"),
    ("min.x", "'min' is a word of the rules language"),
    ("d6", "'d6' reads as dice"),
    ("d20.bonus", "'d20' reads as dice"),
    (3, "cannot be a name"),
])
def test_bad_names_are_refused(key, message):
    with pytest.raises(SpecError, match=message):
        Names({key: Name(int)})


@pytest.mark.parametrize(("args", "message"), [
    ({"kind": float}, "kind must be one of int, bool, str"),
    ({"kind": "integer"}, "kind must be one of int, bool, str"),
    ({"kind": int, "range": (5, 1)}, "low end 5 is above its high end 1"),
    ({"kind": int, "range": (0.5, 1)}, "must be whole numbers or None"),
    ({"kind": bool, "range": (0, 1)}, "a range is for int names only"),
    ({"kind": str}, "needs its choices"),
    ({"kind": str, "choices": ("a", "a")}, "repeat a word"),
    ({"kind": int, "choices": ("a",)}, "choices are for str names only"),
    ({"kind": int, "tag": "MAYBE"}, "tag must be one of TEXT, SRC, AMBIG, DEFAULT"),
])
def test_bad_declarations_are_refused(args, message):
    with pytest.raises(SpecError, match=message):
        Name(**args)


def test_words_travel_as_codes():
    assert SHIELD.code("kite") == 2 and SHIELD.decode(1) == "buckler"
    codes = NAMES.encode("target.shield", ["kite", "none", "kite"])
    assert codes.tolist() == [2, 0, 2] and codes.dtype == np.int8
    with pytest.raises(SpecError, match=r"'kit' is not one of one of \"none\", \"buckler\", "
                                        r"\"kite\" \(did you mean 'kite'\?\)"):
        SHIELD.code("kit")
    with pytest.raises(SpecError, match=r"'self\.wounds' is int, not str"):
        NAMES.encode("self.wounds", ["a"])
    with pytest.raises(SpecError, match=r"unknown name 'target\.sheild'.*did you mean "
                                        r"'target\.shield'"):
        NAMES.encode("target.sheild", ["a"])


def test_names_are_immutable_hashable_picklable_and_merge():
    again = pickle.loads(pickle.dumps(NAMES))
    assert again == NAMES and hash(again) == hash(NAMES)
    with pytest.raises(TypeError):
        NAMES["x"] = Name(int)  # type: ignore[index]
    merged = NAMES | {"foes_engaged": Name(int, range=(0, 6))}
    assert list(merged)[-1] == "foes_engaged" and len(merged) == len(NAMES) + 1
    with pytest.raises(SpecError, match="'mounted' is declared twice, differently"):
        NAMES | {"mounted": Name(int)}
    fighters = Names.for_fighters({"wounds": Name(int, range=(0, 10))})
    assert list(fighters) == ["self.wounds", "target.wounds"]


def test_names_read_from_toml_and_write_back():
    data = NAMES.as_toml()
    data["round"]["range"] = [1, 100]  # TOML has no None: both ends of a range are numbers
    read = Names.from_toml(data)
    assert read["target.shield"] == SHIELD and read["round"].range == (1, 100)
    with pytest.raises(SpecError, match=r"names.x.kind: must be one of int, bool, str, got 'float'"):
        Names.from_toml({"x": {"kind": "float"}})
    with pytest.raises(SpecError, match=r"names.x.rnage: unknown key 'rnage' \(did you mean "
                                        r"'range'\?\)"):
        Names.from_toml({"x": {"kind": "int", "rnage": [0, 1]}})
    with pytest.raises(SpecError, match=r"names.x: a range is \[low, high\]"):
        Names.from_toml({"x": {"kind": "int", "range": [0]}})


def test_a_listing_for_show_and_the_docs():
    rows = NAMES.describe()
    assert rows[1] == {"name": "target.shield", "kind": "str",
                       "allowed": 'one of "none", "buckler", "kite"',
                       "doc": "the shield carried", "tag": "TEXT"}
    assert rows[3]["allowed"] == "a whole number from 1"
    table = NAMES.markdown().splitlines()
    assert table[0] == "| name | type | values | meaning | tag |"
    assert table[3] == ('| `target.shield` | str | one of "none", "buckler", "kite" | '
                        "the shield carried | TEXT |")


# --- environments -------------------------------------------------------------------------------
def test_an_environment_takes_arrays_scalars_codes_and_words():
    condition = compile_condition("target.shield != 'none' and self.wounds < 3", NAMES)
    shield = NAMES.encode("target.shield", ["none", "kite", "buckler", "kite"])
    wounds = np.array([0, 1, 5, 2], dtype=np.uint8)
    want = [False, True, False, True]
    assert condition.evaluate({"target.shield": shield, "self.wounds": wounds}).tolist() == want
    # words instead of codes (slower, same answer); lists as arrays
    words = ["none", "kite", "buckler", "kite"]
    assert condition.evaluate({"target.shield": np.array(words),
                               "self.wounds": list(wounds)}).tolist() == want
    # scalars broadcast; the batch length comes from any array in the environment
    assert condition.evaluate({"target.shield": "kite", "self.wounds": 1,
                               "other": np.zeros(3)}).tolist() == [True] * 3
    assert condition.evaluate({"target.shield": 1, "self.wounds": 9}, n=2).tolist() == [False] * 2
    # bools may come as 0/1
    assert compile_condition("mounted", NAMES).evaluate(
        {"mounted": np.array([0, 2, 1])}).tolist() == [False, True, True]


def test_arithmetic_on_narrow_integers_does_not_wrap():
    amount = compile_amount("self.wounds * 100 + self.wounds * self.wounds * 1000", NAMES)
    wounds = np.array([10, 9], dtype=np.int8)
    assert amount.evaluate({"self.wounds": wounds}).tolist() == [101000, 81900]
    assert compile_amount("-self.wounds", NAMES).evaluate(
        {"self.wounds": np.array([10], dtype=np.uint8)}).tolist() == [-10]


def test_the_result_is_a_new_array():
    wounds = np.array([1, 2, 3], dtype=np.int64)
    got = compile_amount("self.wounds", NAMES).evaluate({"self.wounds": wounds})
    got[0] = 99
    assert wounds[0] == 1
    flags = np.array([True, False])
    held = compile_condition("mounted", NAMES).evaluate({"mounted": flags})
    held[1] = True
    assert not flags[1]


@pytest.mark.parametrize(("env", "error", "message"), [
    ({}, KeyError, "reads 'self.wounds', which the environment lacks"),
    ({"self.wounds": np.zeros((2, 2), dtype=int)}, ValueError, "a 1-d array"),
    ({"self.wounds": np.zeros(3, dtype=int), "round": np.ones(4, dtype=int)}, ValueError,
     "round holds 4 values for a batch of 3 fights"),
    ({"self.wounds": 1, "round": 1}, ValueError, "every value is a scalar; pass n"),
    ({"self.wounds": np.zeros(2), "round": 1}, TypeError, "must be integers"),
])
def test_a_bad_environment_is_a_clear_programming_error(env, error, message):
    with pytest.raises(error, match=message):
        compile_amount("self.wounds + round", NAMES).evaluate(env)


def test_one_fight_reads_codes_or_words():
    condition = compile_condition("target.shield == 'kite'", NAMES)
    assert condition.read({"target.shield": 2}).value is True
    assert condition.narrate({"target.shield": np.int8(2)}) == \
        "target.shield == 'kite' (target.shield is \"kite\")"
    with pytest.raises(SpecError, match="'kit' is not one of"):
        condition.read({"target.shield": "kit"})


def test_a_value_handed_through_is_copied():
    wounds = np.array([1, 2, 3], dtype=np.int64)
    for text in ("self.wounds", "+self.wounds", "min(self.wounds)", "max((self.wounds))"):
        got = compile_amount(text, NAMES).evaluate({"self.wounds": wounds})
        got[0] = 99
        assert wounds[0] == 1, text
