"""Experiment specs: every kind of bad input is reported with its place and what is allowed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from balance.errors import SpecError
from balance.experiments import expand, load_spec

from .helpers import COIN, make_spec


def _fail(write_spec: Any, spec: dict[str, Any]) -> str:
    path = write_spec(spec)
    with pytest.raises(SpecError) as info:
        load_spec(path)
    message = str(info.value)
    assert message.startswith(f"{path}: "), message
    return message[len(str(path)) + 2:]


AXES = make_spec()["grid"]["axes"]

BAD = [
    # (what is wrong, the spec, the place, words of the message)
    ("unknown top key", make_spec(figths=3), "figths", "unknown key 'figths'; allowed: description, question, notes, ruleset"),
    ("unknown run key", make_spec(run={"fightz": 3}), "run.fightz", "allowed: fights, precision"),
    ("missing ruleset", {k: v for k, v in make_spec().items() if k != "ruleset"}, "ruleset",
     "missing"),
    ("unknown ruleset", make_spec(ruleset="cart"), "ruleset", "unknown ruleset 'cart'"),
    ("import not allowed", make_spec(ruleset="tests.sweep.nothing:X"), "ruleset",
     "would import and run the Python module 'tests.sweep.nothing'; allow it with "
     "--allow-import"),
    ("missing side", {k: v for k, v in make_spec().items() if k != "b"}, "b",
     "missing: give side B"),
    ("unknown preset", make_spec(a=[{"preset": "lucki"}]), "a[0].preset",
     "unknown coin preset 'lucki' (did you mean 'lucky'?); presets: fair, lucky"),
    ("unknown field", make_spec(a=[{"preset": "fair", "lvl": 2}]), "a[0].lvl",
     "unknown coin combatant field 'lvl' (did you mean 'level'?); allowed: name, bias, level"),
    ("out of range field", make_spec(b=[{"bias": 1.5}]), "b[0].bias",
     "'bias' must be in 0..1, got 1.5"),
    ("string for a number", make_spec(a=[{"level": "3"}]), "a[0].level",
     "must be a whole number, got the string '3'"),
    ("side too large", make_spec(a=["fair", "fair", "fair"]), "a", "coin allows 1..2 per side"),
    ("bad rule value", make_spec(rules={"target": 9}), "rules.target", "must be in 1..5, got 9"),
    ("unknown rule", make_spec(rules={"targt": 2}), "rules.targt",
     "unknown coin rules field 'targt'"),
    ("rule list length", make_spec(rules={"handicap": [0.1]}), "rules.handicap",
     "'handicap' must be a list of 2 numbers"),
    ("bad combine", make_spec(combine="cross"), "grid.combine",
     "must be one of product, zip, got 'cross'"),
    ("axes not a list", make_spec(axes={"field": "a.0.level"}), "grid.axes",
     "must be a list of tables"),
    ("axis without values", make_spec(axes=[{"field": "a.0.level"}]), "grid.axes[0]",
     "missing 'values'"),
    ("unknown axis key", make_spec(axes=[{"field": "a.0.level", "values": [1], "step": 1}]),
     "grid.axes[0].step", "allowed: field, values"),
    ("unknown axis field", make_spec(axes=[{"field": "a.0.lvl", "values": [1]}]),
     "grid.axes[0].field", "unknown coin combatant field 'lvl' (did you mean 'level'?); allowed: preset, name"),
    ("unknown axis rule", make_spec(axes=[{"field": "rules.turns", "values": [1]}]),
     "grid.axes[0].field", "unknown coin rule parameter 'turns'; allowed: max_rounds"),
    ("member out of side", make_spec(axes=[{"field": "b.1.bias", "values": [0.1]}]),
     "grid.axes[0].field", "side B has 1 combatant(s)"),
    ("bad field form", make_spec(axes=[{"field": "c.0.bias", "values": [0.1]}]),
     "grid.axes[0].field", "is not a field to sweep"),
    ("value out of range", make_spec(axes=[AXES[0], {"field": "b.0.bias",
                                                      "values": [0.2, 0.4, 0.6, 1.2]}]),
     "grid.axes[1].values[3]", "coin combatant field 'bias' must be in 0..1"),
    ("value of wrong type", make_spec(axes=[{"field": "a.0.level", "values": [1, "two"]}]),
     "grid.axes[0].values[1]", "must be a whole number, got the string 'two'"),
    ("float for an int", make_spec(axes=[{"field": "a.0.level", "values": [1, 2.5]}]),
     "grid.axes[0].values[1]", "must be an integer"),
    ("unknown preset value", make_spec(axes=[{"field": "a.0.preset", "values": ["fair", "pr0"]}]),
     "grid.axes[0].values[1]", "unknown coin preset 'pr0'"),
    ("bad rule axis value", make_spec(axes=[{"field": "rules.max_rounds", "values": [5, 0]}]),
     "grid.axes[0].values[1]", "'max_rounds' must be in 1..1000, got 0"),
    ("duplicate value", make_spec(axes=[{"field": "a.0.level", "values": [1, 2, 1]}]),
     "grid.axes[0].values[2]", "already value [0]"),
    ("duplicate axis", make_spec(axes=[AXES[0], AXES[0]]), "grid.axes[1].field",
     "already swept by grid.axes[0]"),
    ("empty values", make_spec(axes=[{"field": "a.0.level", "values": []}]),
     "grid.axes[0].values", "at least one value"),
    ("range without stop", make_spec(axes=[{"field": "a.0.level", "values": {"start": 1}}]),
     "grid.axes[0].values", "stop is missing"),
    ("range bad step", make_spec(axes=[{"field": "a.0.level",
                                        "values": {"start": 3, "stop": 1, "step": 1}}]),
     "grid.axes[0].values.step", "must be non-zero and lead from start 3 to stop 1"),
    ("range unknown key", make_spec(axes=[{"field": "a.0.level",
                                           "values": {"start": 0, "stop": 3, "by": 1}}]),
     "grid.axes[0].values.by", "allowed: start, stop, step"),
    ("fights zero", make_spec(run={"fights": 0}), "run.fights", "whole number 1..1_000_000_000"),
    ("fights text", make_spec(run={"fights": "many"}), "run.fights", "got the string 'many'"),
    ("precision too big", make_spec(run={"precision": 0.7}), "run.precision",
     "strictly between 0 and 0.5"),
    ("negative seed", make_spec(run={"seed": -1}), "run.seed", "whole number 0 or more"),
    ("bad table format", make_spec(outputs={"tables": ["xlsx"]}), "outputs.tables[0]",
     "one of parquet, csv"),
    ("plot of a non-axis", make_spec(outputs={"plots": [{"kind": "heatmap", "x": "a.0.level",
                                                         "y": "b.0.level"}]}),
     "outputs.plots[0].y", "must be a swept axis"),
    ("plot kind", make_spec(outputs={"plots": [{"kind": "pie", "x": "a.0.level"}]}),
     "outputs.plots[0].kind", "one of heatmap, curves, matchup"),
    ("plot hides an axis", make_spec(outputs={"plots": [{"kind": "curves", "x": "a.0.level"}]}),
     "outputs.plots[0]", "b.0.bias also varies: draw it (x, y or by) or pick one value with "
                         "where"),
    ("plot where of a non-axis",
     make_spec(outputs={"plots": [{"kind": "curves", "x": "a.0.level",
                                   "where": {"rules": {"target": 1}}}]}),
     "outputs.plots[0].where.rules.target", "must be a swept axis"),
    ("plot where of a missing value",
     make_spec(outputs={"plots": [{"kind": "curves", "x": "a.0.level",
                                   "where": {"b.0.bias": 0.4}}]}),
     "outputs.plots[0].where.b.0.bias", "0.4 is not one of the axis's values: 0.3, 0.5, 0.7"),
]


@pytest.mark.parametrize(("spec", "place", "words"), [case[1:] for case in BAD],
                         ids=[case[0] for case in BAD])
def test_bad_spec_names_its_place(write_spec: Any, spec: dict[str, Any], place: str,
                                  words: str) -> None:
    message = _fail(write_spec, spec)
    assert message.startswith(f"{place}: ") or message.startswith(f"{place} "), message
    assert words in message, message


def test_zip_lengths_message(write_spec: Any) -> None:
    spec = make_spec(combine="zip", axes=[{"field": "a.0.level", "values": [0, 1, 2]},
                                         {"field": "b.0.bias", "values": [0.3, 0.5]}])
    message = _fail(write_spec, spec)
    assert message == ("grid.axes[1].values: combine = \"zip\" needs axes of equal length: "
                       "grid.axes[0] has 3 values, this one 2")


def test_cell_rejected_by_ruleset_names_the_cell(write_spec: Any) -> None:
    # Each value is fine alone; the cell whose side B has one tosser cannot take b.1.bias.
    spec = make_spec(axes=[{"field": "b", "values": [["fair", "fair"], "fair"]},
                           {"field": "b.1.bias", "values": [0.2]}])
    del spec["b"]
    path = write_spec(spec)
    loaded = load_spec(path)
    with pytest.raises(SpecError) as info:
        expand(loaded)
    assert str(info.value) == (f"{path}: grid: cell b=fair, b.1.bias=0.2: b.1.bias: side B "
                               "has 1 combatant(s) in this cell")


def test_not_toml(tmp_path: Path) -> None:
    path = tmp_path / "broken.toml"
    path.write_text("ruleset = \n", encoding="utf-8")
    with pytest.raises(SpecError, match=r"broken\.toml: not valid TOML: .*line 1"):
        load_spec(path)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(SpecError, match="does not exist"):
        load_spec(tmp_path / "nope.toml")


def test_ranges_expand_inclusively() -> None:
    spec = load_spec(make_spec(axes=[
        {"field": "a.0.level", "values": {"start": 0, "stop": 5, "step": 2}},
        {"field": "b.0.bias", "values": {"start": 0.1, "stop": 0.3, "step": 0.1}},
        {"field": "rules.max_rounds", "values": {"start": 10, "stop": 1, "step": -3}},
    ]))
    assert [ax.values for ax in spec.axes] == [(0, 2, 4), (0.1, 0.2, 0.3), (10, 7, 4, 1)]
    assert spec.n_cells == 3 * 3 * 4


def test_sweepable_fields() -> None:
    spec = load_spec(make_spec(
        a=["fair", {"preset": "lucky", "call": "tails"}],
        axes=[{"field": "a.*.level", "values": [0, 1]},
              {"field": "a.1.preset", "values": ["lucky", "pro"]},
              {"field": "rules.handicap", "values": [[0.0, 0.0], [0.1, -0.1]]},
              {"field": "b", "values": ["fair", ["hopeless", "hopeless"]]}]))
    assert spec.axis_fields == ("a.*.level", "a.1.preset", "rules.handicap", "b")
    assert spec.axes[2].values == ((0.0, 0.0), (0.1, -0.1))
    assert [ax.member for ax in spec.axes] == ["*", 1, None, None]


def test_plot_where_on_a_member_beside_a_whole_side_axis(write_spec: Any) -> None:
    # TOML makes {a = {0 = {level = 2}}} of `where = { a.0.level = 2, b = "fair" }`; with a
    # whole-side axis "a" beside "a.0.level" the table must still be read as a path.
    axes = [{"field": "a", "values": ["fair", "lucky"]},
            {"field": "a.0.level", "values": [0, 2]}, {"field": "b.0.bias", "values": [0.3]}]
    plot = {"kind": "curves", "x": "b.0.bias", "where": {"a": {"0": {"level": 2}}}}
    spec = load_spec(write_spec(make_spec(axes=axes, outputs={"plots": [
        {**plot, "by": "a"}]})))
    assert dict(spec.plots[0].where) == {"a.0.level": 2}
    whole = {"kind": "curves", "x": "b.0.bias", "by": "a.0.level", "where": {"a": "lucky"}}
    spec = load_spec(write_spec(make_spec(axes=axes, outputs={"plots": [whole]})))
    assert dict(spec.plots[0].where) == {"a": "lucky"}


def test_spec_defaults() -> None:
    spec = load_spec({"ruleset": COIN, "a": "fair", "b": "lucky"})
    assert (spec.fights, spec.precision, spec.seed, spec.n_cells) == (100_000, None, None, 1)
    assert spec.tables == ("parquet", "csv")
    precise = load_spec({"ruleset": COIN, "a": "fair", "b": "lucky",
                         "run": {"precision": 0.01}})
    assert precise.fights is None and precise.cap == 1_000_000_000


def test_spec_round_trips_through_its_dict(write_spec: Any) -> None:
    spec = load_spec(write_spec(make_spec(rules={"target": 2}, question="Which coin?",
                                          outputs={"plots": [{"kind": "heatmap",
                                                              "x": "b.0.bias",
                                                              "y": "a.0.level"}]})))
    again = load_spec(spec.to_dict())
    assert again == spec
    assert load_spec(again.to_dict()).to_dict() == spec.to_dict()


def test_spec_is_frozen() -> None:
    spec = load_spec(make_spec())
    with pytest.raises(AttributeError):
        spec.fights = 3  # type: ignore[misc]
    with pytest.raises(TypeError):
        spec.rules["target"] = 2  # type: ignore[index]


def test_plot_where_names_a_member_field_of_a_swept_side(write_spec: Any) -> None:
    # TOML reads `where = { a.0.level = 2 }` as {"a": {"0": {"level": 2}}}; with the whole
    # side "a" swept too, that is still the axis a.0.level, not a value of "a".
    plot = {"kind": "curves", "x": "b.0.bias", "by": "a", "where": {"a": {"0": {"level": 2}}}}
    spec = load_spec(write_spec(make_spec(
        axes=[{"field": "a", "values": ["fair", "lucky"]},
              {"field": "a.0.level", "values": [0, 2]},
              {"field": "b.0.bias", "values": [0.3, 0.5]}],
        outputs={"plots": [plot]})))
    assert dict(spec.plots[0].where) == {"a.0.level": 2}
    table_value = {"kind": "curves", "x": "b.0.bias", "by": "a.0.level",
                   "where": {"a": {"preset": "fair"}}}  # a whole-side value given as a table
    with pytest.raises(SpecError, match="is not one of the axis's values"):
        load_spec(make_spec(axes=[{"field": "a", "values": ["fair", "lucky"]},
                                  {"field": "a.0.level", "values": [0, 2]},
                                  {"field": "b.0.bias", "values": [0.3, 0.5]}],
                            outputs={"plots": [table_value]}))


def test_a_table_rule_may_be_given_as_the_rulesets_text(write_spec: Any) -> None:
    # zones reads a battlefield given as a preset map's name; a table written as text is
    # left to the ruleset, which still names the place of a bad one.
    spec = {"ruleset": "zones", "description": "zones maps", "rules": {"initial_gap": "short"},
            "a": [{}], "b": [{}],
            "grid": {"axes": [{"field": "rules.battlefield", "values": ["line", "loop"]}]},
            "run": {"fights": 100, "seed": 1}}
    cells = expand(load_spec(write_spec(spec)))
    assert [c.rules.battlefield["name"] for c in cells] == ["line", "loop"]
    spec["rules"]["battlefield"] = "line"
    spec["grid"]["axes"] = [{"field": "a.0.might", "values": [1, 2]}]
    assert expand(load_spec(write_spec(spec)))[0].rules.battlefield["name"] == "line"
    spec["rules"]["weapon_damage"] = "x"
    with pytest.raises(SpecError, match=r"rules\.weapon_damage: .*table written key:value"):
        load_spec(write_spec(spec))


def test_an_allowed_import_that_fails_is_one_line() -> None:
    with pytest.raises(SpecError, match=r"^ruleset: cannot import ruleset 'tests.sweep.nothing:X'"):
        load_spec(make_spec(ruleset="tests.sweep.nothing:X"), allow_import=True)
