"""Modifiers and effects: read from TOML with errors naming the key path, summed and fired
over batches, narrated for one fight, and exact where a solver needs them."""

from __future__ import annotations

import itertools
import pickle
import tomllib
from fractions import Fraction

import numpy as np
import pytest

from balance.errors import SpecError
from balance.language import (
    Effect,
    LanguageError,
    Modifier,
    Name,
    Names,
    Vocabulary,
    compile_amount,
    fire,
    names_used,
    narrate_total,
    total,
)
from balance.language.rows import total_distribution

NAMES = Names({
    "target.armour_rank": Name(int, range=(0, 6), doc="the target's Armour Rank"),
    "target.shield": Name(str, choices=("none", "buckler", "kite")),
    "target.size": Name(int, range=(1, 4)),
    "self.wounds": Name(int, range=(0, 10)),
    "round": Name(int, range=(1, 100)),
    "foes_engaged": Name(int, range=(0, 6)),
    "self.two_handed": Name(bool),
})
VOCABULARY = Vocabulary(
    NAMES,
    targets={"attack": "to hit", "parry": "to parry", "damage": "damage dealt",
             "initiative": "Strike Rank"},
    outcomes=("hit", "miss", "success"),
    conditions=("entangled", "slowed"),
    resources=("ammunition",),
    states={"stance": Name(str, choices=("open", "guarded")), "bonus": Name(int, range=(0, 3)),
            "prone": Name(bool)},
)

WAR_PICK = """
[[weapons.war_pick.modifiers]]
to = "attack"
amount = 1
when = "target.armour_rank >= 3"
name = "war pick"

[[weapons.war_pick.modifiers]]
to = "damage"
amount = "1d4"
when = 'target.shield != "none" and round == 1'
name = "first strike past the shield"

[[weapons.war_pick.modifiers]]
to = "parry"
amount = -1
"""


def _war_pick() -> tuple[Modifier, ...]:
    data = tomllib.loads(WAR_PICK)["weapons"]["war_pick"]["modifiers"]
    return VOCABULARY.modifiers(data, where="weapons.war_pick.modifiers")


def test_modifiers_read_from_toml():
    pick, strike, parry = _war_pick()
    assert pick.to == "attack" and pick.amount.constant == 1 and pick.name == "war pick"
    assert pick.when.names_used == ("target.armour_rank",)
    assert strike.amount.has_dice and strike.amount.range == (1, 4)
    assert parry.when is None and parry.name == "weapons.war_pick.modifiers[2]"
    assert pick.label() == "war pick +1 to attack"
    assert strike.label() == "first strike past the shield +(1d4) to damage"
    # written back, read again: the same rows
    again = VOCABULARY.modifiers([m.as_toml() for m in (pick, strike, parry)],
                                 where="weapons.war_pick.modifiers")
    assert again == (pick, strike, parry)
    assert pickle.loads(pickle.dumps(again)) == again


def test_total_sums_the_modifiers_on_a_target_over_a_batch():
    rows = _war_pick()
    n = 8
    armour = np.array([0, 3, 4, 6, 1, 3, 2, 5], dtype=np.int8)
    shield = NAMES.encode("target.shield", ["none", "kite", "none", "buckler"] * 2)
    env = {"target.armour_rank": armour, "target.shield": shield,
           "round": np.array([1, 1, 2, 1, 1, 2, 1, 1])}
    attack = total(rows, "attack", env)
    assert attack.value.tolist() == (armour >= 3).astype(int).tolist()
    (fired,) = attack.fired
    assert fired.row is rows[0] and fired.mask.tolist() == (armour >= 3).tolist()
    assert total(rows, "parry", env).value.tolist() == [-1] * n
    damage = total(rows, "damage", env, np.random.default_rng(1))
    strikes = (shield != 0) & (env["round"] == 1)
    assert (damage.value[~strikes] == 0).all()
    assert ((damage.value[strikes] >= 1) & (damage.value[strikes] <= 4)).all()
    assert damage.fired[0].mask.tolist() == strikes.tolist()
    assert total(rows, "initiative", env).value.tolist() == [0] * n
    assert total((), "attack", {}, n=3).value.tolist() == [0, 0, 0]


def test_one_fight_names_each_modifier_that_fired_and_why():
    rows = _war_pick()
    fight = {"target.armour_rank": 4, "target.shield": "kite", "round": 1}
    value, lines = narrate_total(rows, "attack", fight)
    assert value == 1
    assert lines == ["war pick +1 to attack when target.armour_rank >= 3 "
                     "(target.armour_rank is 4)"]
    value, lines = narrate_total(rows, "damage", fight, np.random.default_rng(2))
    (line,) = lines
    assert line.startswith(f"first strike past the shield +{value} to damage (1d4 rolled "
                           f"{value}) when ")
    assert line.endswith('(target.shield is "kite"; round is 1)')
    assert narrate_total(rows, "attack", {**fight, "target.armour_rank": 2}) == (0, [])
    assert narrate_total(rows, "parry", fight) == (-1, ["weapons.war_pick.modifiers[2] -1 "
                                                        "to parry"])


def test_total_distribution_is_exact():
    rows = _war_pick()
    fight = {"target.armour_rank": 4, "target.shield": "kite", "round": 1}
    assert total_distribution(rows, "attack", fight) == {1: 1}
    assert total_distribution(rows, "damage", fight) == {k: Fraction(1, 4) for k in (1, 2, 3, 4)}
    assert total_distribution(rows, "damage", {**fight, "round": 2}) == {0: 1}
    # dice in the condition and the amount, and two rows: by enumeration
    two = VOCABULARY.modifiers([{"to": "damage", "amount": "d3", "when": "d6 >= 5"},
                                {"to": "damage", "amount": 2, "when": "d2 == 1"}])
    want: dict[int, Fraction] = {}
    for a, c1, b in itertools.product(range(1, 4), range(1, 7), range(1, 3)):
        value = (a if c1 >= 5 else 0) + (2 if b == 1 else 0)
        want[value] = want.get(value, Fraction(0)) + Fraction(1, 3 * 6 * 2)
    assert total_distribution(two, "damage", {}) == dict(sorted(want.items()))


BOLA = """
[[weapons.bola.effects]]
on = "success"
inflict = "entangled"
rounds = "1d3"
when = "target.size <= 2"
name = "bola"

[[weapons.bola.effects]]
on = "hit"
inflict = "slowed"

[[weapons.bola.effects]]
on = "success"
spend = "ammunition"

[[weapons.bola.effects]]
on = "hit"
set = "stance"
value = "guarded"
who = "self"

[[weapons.bola.effects]]
on = "hit"
set = "bonus"
value = "min(3, foes_engaged)"
who = "target"

[[weapons.bola.effects]]
on = "miss"
set = "prone"
value = "round > 1"
who = "self"
"""


def _bola() -> tuple[Effect, ...]:
    data = tomllib.loads(BOLA)["weapons"]["bola"]["effects"]
    return VOCABULARY.effects(data, where="weapons.bola.effects")


def test_effects_read_from_toml():
    entangle, slow, spend, stance, bonus, prone = _bola()
    assert (entangle.action, entangle.subject, entangle.who) == ("inflict", "entangled", "target")
    assert entangle.rounds.range == (1, 3)
    assert slow.rounds is None and slow.sentence() == "slowed on target until removed"
    assert (spend.action, spend.who, spend.amount.constant) == ("spend", "self", 1)
    assert stance.value == "guarded" and stance.sentence() == 'self\'s stance set to "guarded"'
    assert bonus.value.range == (0, 3) and prone.value.purpose == "condition"
    again = VOCABULARY.effects([e.as_toml() for e in _bola()], where="weapons.bola.effects")
    assert again == _bola()
    assert pickle.loads(pickle.dumps(again)) == again


def test_fire_gives_each_effects_fights_and_quantities():
    rows = _bola()
    size = np.array([1, 2, 3, 4, 1, 1])
    outcomes = {"success": np.array([True, True, True, False, False, True]),
                "hit": np.array([True, False, True, False, True, False])}
    env = {"target.size": size, "foes_engaged": np.array([0, 1, 2, 3, 4, 5]), "round": 2}
    fired = fire(rows, outcomes, env, np.random.default_rng(4))
    by_row = {f.row.name: f for f in fired}
    assert [f.row for f in fired] == list(rows[:5])  # nothing hangs on "miss" here
    entangle = by_row["bola"]
    assert entangle.mask.tolist() == [True, True, False, False, False, True]
    assert ((entangle.quantity >= 1) & (entangle.quantity <= 3)).all()
    assert by_row["weapons.bola.effects[1]"].quantity is None  # until removed
    assert by_row["weapons.bola.effects[2]"].quantity.tolist() == [1] * 6
    assert by_row["weapons.bola.effects[3]"].quantity.tolist() == [1] * 6  # code of guarded
    assert by_row["weapons.bola.effects[4]"].quantity.tolist() == [0, 1, 2, 3, 3, 3]
    missed = fire(rows, {"miss": np.array([True, False])}, {"round": np.array([1, 2])})
    assert [f.quantity.tolist() for f in missed] == [[0, 1]]  # prone: round > 1


def test_one_fight_narrates_an_effect():
    entangle, slow, spend, _, bonus, _ = _bola()
    rounds, line = entangle.read({"target.size": 1}, np.random.default_rng(0))
    assert 1 <= rounds <= 3
    assert line == (f"bola: entangled on target for {rounds} rounds (1d3 rolled {rounds}) "
                    "when target.size <= 2 (target.size is 1)")
    assert entangle.read({"target.size": 3}, np.random.default_rng(0)) == (None, None)
    assert slow.read({}) == (None, "weapons.bola.effects[1]: slowed on target until removed")
    assert spend.read({})[1] == "weapons.bola.effects[2]: self spends 1 ammunition"
    assert bonus.read({"foes_engaged": 5}) == (
        3, "weapons.bola.effects[4]: target's bonus set to 3 (foes_engaged is 5)")


def test_names_used_gathers_every_row():
    assert names_used(_war_pick()) == ("target.armour_rank", "target.shield", "round")
    assert names_used(_bola(), compile_amount("self.wounds", NAMES)) == (
        "target.size", "foes_engaged", "round", "self.wounds")


# --- refusals, each naming its key path ----------------------------------------------------------
ROW_ERRORS = [
    ("modifier", {"to": "atack", "amount": 1},
     "m.to: must be one of attack, parry, damage, initiative, got 'atack' (did you mean "
     "'attack'?)"),
    ("modifier", {"amount": 1}, "m.to: is missing"),
    ("modifier", {"to": "attack"}, "m.amount: is missing"),
    ("modifier", {"to": "attack", "amount": 1, "whn": "true"}, "m.whn: unknown key 'whn' "
     "(did you mean 'when'?); allowed: to, amount, when, name"),
    ("modifier", {"to": "attack", "amount": 1, "when": "target.armor_rank >= 3"},
     "m.when: in \"target.armor_rank >= 3\", column 1: unknown name 'target.armor_rank'"),
    ("modifier", {"to": "attack", "amount": "1 +", "when": "true"},
     'm.amount: in "1 +", column 4: the expression ends too soon'),
    ("modifier", {"to": "attack", "amount": 1.5}, "m.amount: in \"1.5\": an amount must be a "
     "whole number or a string, got float"),
    ("modifier", {"to": "attack", "amount": "round > 2"}, "m.amount: in \"round > 2\", "
     "column 1: an amount must be a whole number"),
    ("modifier", ["to", "attack"], "m: must be a table with keys to, amount, when, name"),
    ("effect", {"on": "hit"}, "e: an effect does exactly one of inflict, spend, set; this one "
     "has none"),
    ("effect", {"on": "hit", "inflict": "slowed", "spend": "ammunition"},
     "e: an effect does exactly one of inflict, spend, set; this one has inflict and spend"),
    ("effect", {"on": "parried", "inflict": "slowed"}, "e.on: must be one of hit, miss, "
     "success, got 'parried'"),
    ("effect", {"on": "hit", "inflict": "entangld"}, "e.inflict: must be one of entangled, "
     "slowed, got 'entangld' (did you mean 'entangled'?)"),
    ("effect", {"on": "hit", "inflict": "slowed", "rounds": 0}, "e.rounds: in \"0\": rounds "
     "must be 1..10_000 in every fight, and this can be 0..0"),
    ("effect", {"on": "hit", "inflict": "slowed", "rounds": "d6 - 3"}, "this can be -2..3"),
    ("effect", {"on": "hit", "inflict": "slowed", "amount": 2}, "e.amount: 'amount' goes with "
     "'spend', and this effect is 'inflict'"),
    ("effect", {"on": "hit", "spend": "arrows"}, "e.spend: must be one of ammunition"),
    ("effect", {"on": "hit", "set": "stance", "value": "open"}, "e.who: is missing: whose "
     "state is set, self or target?"),
    ("effect", {"on": "hit", "set": "stance", "who": "self"}, "e.value: 'set' needs a value: "
     'one of "open", "guarded"'),
    ("effect", {"on": "hit", "set": "stance", "who": "self", "value": "shut"},
     "e.value: must be one of open, guarded, got 'shut'"),
    ("effect", {"on": "hit", "set": "bonus", "who": "self", "value": "foes_engaged"},
     "e.value: in \"foes_engaged\": bonus is a whole number 0..3, and this can be 0..6"),
    ("effect", {"on": "hit", "set": "prone", "who": "self", "value": 1},
     "e.value: in \"1\": a condition must be true, false or a string, got int"),
    ("effect", {"on": "hit", "inflict": "slowed", "who": "ally"}, "e.who: must be one of "
     "self, target, got 'ally'"),
]


@pytest.mark.parametrize(("kind", "data", "message"), ROW_ERRORS)
def test_bad_rows_are_one_line_naming_the_key_path(kind, data, message):
    read = VOCABULARY.modifier if kind == "modifier" else VOCABULARY.effect
    with pytest.raises(SpecError) as caught:
        read(data, where=kind[0])
    assert "\n" not in str(caught.value)
    assert message in str(caught.value), str(caught.value)


def test_a_language_error_in_a_list_names_the_row():
    data = tomllib.loads(WAR_PICK.replace(">= 3", ">= 'x'"))["weapons"]["war_pick"]["modifiers"]
    with pytest.raises(LanguageError) as caught:
        VOCABULARY.modifiers(data, where="weapons.war_pick.modifiers")
    assert str(caught.value).startswith("weapons.war_pick.modifiers[0].when: in ")
    assert caught.value.where == "weapons.war_pick.modifiers[0].when"
    with pytest.raises(SpecError, match=r"must be an array of tables \(\[\[w\]\]\)"):
        VOCABULARY.modifiers({"to": "attack"}, where="w")


def test_an_effect_made_in_python_still_does_one_thing():
    with pytest.raises(SpecError, match="exactly one of"):
        Effect(on="hit")
    with pytest.raises(SpecError, match="has inflict and set"):
        Effect(on="hit", inflict="slowed", set="prone")


def test_the_vocabulary_describes_itself():
    info = VOCABULARY.describe()
    assert info["targets"]["initiative"] == "Strike Rank"
    assert info["outcomes"] == {"hit": "", "miss": "", "success": ""}
    assert [s["name"] for s in info["states"]] == ["stance", "bonus", "prone"]
    assert info["names"][0] == {"name": "target.armour_rank", "kind": "int",
                                "allowed": "a whole number 0..6",
                                "doc": "the target's Armour Rank", "tag": ""}
    assert hash(VOCABULARY) == hash(Vocabulary(**{
        k: getattr(VOCABULARY, k) for k in ("names", "targets", "outcomes", "conditions",
                                            "resources", "states", "roles")}))


def test_the_vocabulary_prints_for_show():
    lines = VOCABULARY.lines()
    assert lines[0].startswith("Names conditions and amounts may read")
    assert "  target.armour_rank: a whole number 0..6  the target's Armour Rank" in lines
    assert "  initiative: Strike Rank" in lines and "  ammunition" in lines
    assert lines[-4:] == ["States effects set (set = ..., value = ...)",
                          '  stance: one of "open", "guarded"', "  bonus: a whole number 0..3",
                          "  prone: true or false"]


def test_a_ruleset_declares_its_vocabulary_through_one_hook():
    import json

    from balance import RULESETS
    from balance.rulesets.base import Ruleset

    assert Ruleset.vocabulary(RULESETS["crt"]) is None  # the default: no words
    crt = RULESETS["crt"]
    for name in RULESETS:  # every built-in declares its words, and describe() carries them
        assert RULESETS[name].describe()["language"] == RULESETS[name].vocabulary().describe()

    class WithWords(type(crt)):  # type: ignore[misc]
        def vocabulary(self):
            return VOCABULARY

    info = WithWords().describe()
    assert info["language"] == VOCABULARY.describe()
    json.dumps(info, default=str)


@pytest.mark.parametrize("row,said", [
    ({"on": "hit", "spend": "ammunition"}, "this ruleset has no resources to spend, got "
                                           "'ammunition'"),
    ({"on": "hit", "set": "stance", "value": "open", "who": "self"},
     "this ruleset has no states to set, got 'stance'"),
    ({"on": "hit", "inflict": "entangled"}, "this ruleset has no conditions to inflict, got "
                                            "'entangled'"),
])
def test_an_effect_on_what_the_ruleset_lacks_says_it_has_none(row, said):
    bare = Vocabulary(NAMES, targets={"attack": "to hit"}, outcomes=("hit",))
    with pytest.raises(SpecError) as caught:
        bare.effect(row, where="weapons.x.effects[0]")
    message = str(caught.value)
    assert said in message and "must be one of" not in message
    assert "weapons.x.effects[0]" in message and "\n" not in message
