"""The rules language in zones: weapon rows with modifiers and effects.

Kernel against reference in distribution on fights whose rows fire (the same method and
threshold as ``test_agreement_skirmish``: every p-value above 1e-3, a false alarm rate of
0.1% each for a correct kernel; fixed seeds), exact against kernel where the exact chain
covers the rows, and what each row does, one behaviour a test.
"""

from __future__ import annotations

import numpy as np
import pytest

from balance.errors import SpecError
from balance.rulesets.zones.rules import Combatant, Rules

from .conftest import ZONES, compare

BOLA = {"like": "thrown", "damage": 1, "ammunition": 3,
        "effects": [{"on": "success", "inflict": "entangled", "rounds": "1d3"},
                    {"on": "attack", "spend": "ammunition"}],
        "modifiers": [{"to": "attack", "amount": 1, "when": "target.moved"}]}
FROST = {"like": "spell", "damage": 2,
         "effects": [{"on": "hit", "inflict": "slowed", "when": "target.speed >= 2"}]}
PICK = {"like": "one_handed",
        "modifiers": [{"to": "attack", "amount": 1, "when": "target.armour >= 2"},
                      {"to": "damage", "amount": "1d3 - 1", "when": "target.entangled"},
                      {"to": "defence", "amount": -1, "when": "attack_number == 1"}]}
NET = {"like": "light",
       "effects": [{"on": "critical", "inflict": "entangled"},
                   {"on": "miss", "inflict": "slowed", "who": "self", "rounds": 1}]}
BOOTS = {"like": "unarmed", "damage": 2,
         "modifiers": [{"to": "movement", "amount": -1, "when": "round <= 2"},
                       {"to": "attack", "amount": "2 if foes_engaged >= 2 else 0"}]}
JAVELINS = {"like": "thrown", "ammunition": 2, "effects": ["on attack spend 1 ammunition"]
            if False else [{"on": "attack", "spend": "ammunition"}],
            "modifiers": [{"to": "defence", "amount": 1, "when": "distance >= 1"}]}
WEAPONS = {"bola": BOLA, "frost": FROST, "pick": PICK, "net": NET, "boots": BOOTS,
           "javelins": JAVELINS,
           "blast": {"effects": [{"on": "success", "inflict": "slowed", "rounds": "1d2"}]}}
RULES = dict(weapons=WEAPONS)

VARIANTS = {
    # a bola skirmisher that runs out and closes in; a pick that bites the entangled
    "bola duel": (Rules(initial_gap="medium", **RULES),
                  (Combatant(name="hunter", ranged="bola", policy="skirmish", agility=3,
                             keep_distance=1),),
                  (Combatant(name="raider", weapon="pick", armour=2),)),
    # frost slows the fast, a net entangles on a critical and slows its wielder on a miss,
    # boots are quick on the first rounds, javelins run out and guard at range
    "frost and nets": (Rules(battlefield="line", initial_gap="long", **RULES),
                       (Combatant(name="mage", ranged="frost", policy="hold", agility=3,
                                  melee_first=False),
                        Combatant(name="netter", weapon="net", speed=3),
                        Combatant(name="thrower", ranged="javelins", policy="skirmish",
                                  agility=2)),
                       (Combatant(name="runner", weapon="boots", speed=3),
                        Combatant(name="brute", weapon="pick", might=2, armour=2, speed=1),
                        Combatant(name="archer", ranged="short_bow", policy="hold"))),
    # held ground with rows on the free Strikes; a blast that slows a whole zone
    "held gate": (Rules(battlefield="line", initial_gap="short", **RULES),
                  (Combatant(name="h1", zone="centre", policy="hold", weapon="net",
                             max_attacks=1),
                   Combatant(name="h2", zone="centre", policy="hold", weapon="pick",
                             max_attacks=1, shield=True),
                   Combatant(name="bomber", zone="west", ranged="blast", policy="hold",
                             area_allies="accept", priority=2)),
                  tuple(Combatant(name=f"r{k}", target="priority", disengage=k % 2 == 0,
                                  weapon="boots" if k else "light") for k in range(3))),
}


@pytest.mark.parametrize("name", list(VARIANTS))
def test_kernel_matches_reference_with_rows(name):
    p = compare(*VARIANTS[name], 1500, seed=71)
    assert min(p) > 1e-3, p  # false alarm 0.1% per p-value for a correct kernel


# --- exact ---------------------------------------------------------------------------------------
DUEL_WEAPONS = {
    "pick": PICK,
    "maul": {"like": "two_handed",
             "modifiers": [{"to": "attack", "amount": 2, "when": "round == 1"},
                           {"to": "attack", "amount": "d3 - 2", "when": "attack_number >= 2"},
                           {"to": "defence", "amount": 1, "when": "self.defending"},
                           {"to": "damage", "amount": -1, "when": "target.shield"}],
             "effects": [{"on": "success", "inflict": "slowed", "rounds": 2}]},
}
EXACT_DUELS = {
    "pick against a shield": (Rules(initial_gap="contact", weapons=DUEL_WEAPONS),
                              Combatant(weapon="pick", might=2, max_attacks=3),
                              Combatant(weapon="maul", shield=True, armour=2)),
    "maul's first round": (Rules(initial_gap="contact", weapons=DUEL_WEAPONS, first_side="a",
                                 max_rounds=12),
                           Combatant(weapon="maul", steady=1),
                           Combatant(weapon="pick", armour=3, entangled=True)),
}


@pytest.mark.parametrize("name", list(EXACT_DUELS))
def test_kernel_matches_the_exact_duel_with_rows(name):
    from balance.rulesets.zones.exact import rounds_distribution
    from balance.stats import gof_pvalue

    from .conftest import joint_counts, kernel_sample

    rules, a, b = EXACT_DUELS[name]
    assert ZONES.exact_check(rules, (a,), (b,)) is None
    exact = rounds_distribution(rules, (a,), (b,))
    out = kernel_sample(rules, (a,), (b,), 200_000, seed=81)
    observed = joint_counts(out.winner, out.rounds, rules.max_rounds)
    assert gof_pvalue(observed, exact.reshape(-1)) > 1e-3  # false alarm 0.1%


def test_rows_change_the_exact_answer():
    rules, a, b = EXACT_DUELS["pick against a shield"]
    plain = Rules(initial_gap="contact")
    with_rows = ZONES.exact(rules, (a,), (b,))
    without = ZONES.exact(plain, (Combatant(might=2, max_attacks=3),),
                          (Combatant(weapon="two_handed", shield=True, armour=2),))
    assert abs(with_rows.a_win - without.a_win) > 0.01


@pytest.mark.parametrize(("row", "name"), [
    ({"to": "attack", "amount": 1, "when": "self.wounds > 0"}, "self.wounds"),
    ({"to": "damage", "amount": "target.hp // 4"}, "target.hp"),
])
def test_exact_refuses_rows_it_cannot_hold_naming_row_and_name(row, name):
    rules = Rules(initial_gap="contact", weapons={"one_handed": {"modifiers": [row]}})
    why = ZONES.exact_check(rules, (Combatant(),), (Combatant(),))
    assert why is not None and "weapons.one_handed.modifiers[0]" in why and name in why
    assert "\n" not in why


def test_exact_takes_rows_the_duel_never_reads():
    # an effect's condition and a movement row reading hit points: nobody moves in the
    # duel and no modifier reads the Slowed it inflicts
    rules = Rules(initial_gap="contact", weapons={"one_handed": {
        "effects": "on hit inflict slowed when target.hp < 6",
        "modifiers": "-1 to movement when self.wounds > 2"}})
    assert ZONES.exact_check(rules, (Combatant(),), (Combatant(),)) is None
    plain = ZONES.exact(Rules(initial_gap="contact"), (Combatant(),), (Combatant(),))
    assert ZONES.exact(rules, (Combatant(),), (Combatant(),)).a_win == plain.a_win


def test_exact_refuses_a_condition_read_where_a_row_inflicts_it():
    weapons = {"net": NET, "pick": PICK}
    rules = Rules(initial_gap="contact", weapons=weapons)
    why = ZONES.exact_check(rules, (Combatant(weapon="net"),), (Combatant(weapon="pick"),))
    assert why is not None and "weapons.pick.modifiers[1]" in why and "target.entangled" in why


def test_best_play_refuses_round_and_ammunition():
    rules, a, b = EXACT_DUELS["maul's first round"]
    with pytest.raises(SpecError, match=r"weapons\.maul\.modifiers\[0\] reads round"):
        ZONES.exact_best_play(rules, (a,), (b,))
    rules = Rules(initial_gap="contact", weapons={"bola": BOLA})
    with pytest.raises(SpecError, match=r"weapons\.bola carries ammunition"):
        ZONES.exact_best_play(rules, (Combatant(ranged="bola"),), (Combatant(),))


# --- what each row does ---------------------------------------------------------------------------
def both_ways(rules, a, b, n=400, seed=5):
    """Kernel and reference outcomes of the same matchup."""
    from .conftest import kernel_sample, reference_sample

    return kernel_sample(rules, (a,), (b,), n, seed), reference_sample(rules, (a,), (b,), 60,
                                                                       seed + 1)


DUD = {"like": "thrown", "damage": 0}      # a throw that never hurts: only its rows count
THROWER = Combatant(name="thrower", ranged="dud", agility=4, policy="skirmish")
HOLDER = Combatant(name="holder", policy="hold", max_attacks=1)


def test_a_fighter_out_of_ammunition_closes_in():
    # harmless throws at a foe who holds its zone: without a limit the thrower keeps its
    # distance to the round cap; with one throw it runs out, closes in and fights it out
    endless = Rules(initial_gap="medium", max_rounds=30, weapons={"dud": DUD})
    one = Rules(initial_gap="medium", max_rounds=30, weapons={"dud": {
        **DUD, "ammunition": 1, "effects": "on attack spend 1 ammunition"}})
    for out in both_ways(endless, THROWER, HOLDER):
        assert (out.cause == 2).all()                    # max_rounds, every fight
    for out in both_ways(one, THROWER, HOLDER):
        assert (out.cause == 0).mean() > 0.95            # down: it came to blows


def test_entangled_holds_a_runner_until_it_tears_free_or_its_rounds_run_out():
    raider = Combatant(name="raider")
    hunter = Combatant(name="hunter", ranged="dud", agility=4, policy="hold", spare="pass")
    for rounds, drawn in (("", True), (" for 1 rounds", False)):
        rules = Rules(initial_gap="medium", max_rounds=20, entangle_save=30, weapons={
            "dud": {**DUD, "ammunition": 1, "effects": [
                f"on attack inflict entangled{rounds}", "on attack spend 1 ammunition"]}})
        for out in both_ways(rules, hunter, raider):
            # one throw: entangled for good (the save needs 30), the raider never arrives;
            # for one of its activations, it does
            assert ((out.winner == 0).all()) == drawn, (rounds, np.bincount(out.winner))


def test_slowed_doubles_a_band_in_the_log():
    from balance.rulesets.zones.reference import fight

    rules = Rules(initial_gap="long", first_side="a", weapons={
        "frost": {"like": "spell", "range": "long",
                  "effects": "on attack inflict slowed when target.speed >= 2"}})
    lines: list[str] = []
    fight(rules, (Combatant(ranged="frost", policy="hold"),), (Combatant(name="runner"),),
          rng=np.random.default_rng(4), log=lines.append)
    text = "\n".join(lines)
    assert "frost: slowed on target until removed when target.speed >= 2" in text
    assert "(band, 1/4 Moves)" in text


def test_rows_that_do_nothing_cost_nothing_and_change_nothing():
    a, b = (Combatant(ranged="thrown", policy="skirmish"),), (Combatant(),)
    plain = ZONES.simulate(Rules(), a, b, n=5000, rng=np.random.default_rng(9))
    empty = Rules(weapons={"thrown": {}, "club": {"like": "light"}})
    assert not empty.has_rows
    same = ZONES.simulate(empty, a, b, n=5000, rng=np.random.default_rng(9))
    assert (plain.winner == same.winner).all() and (plain.rounds == same.rounds).all()


def test_a_new_weapon_is_like_its_built_in_with_its_own_columns():
    rules = Rules(weapons={"bola": BOLA, "frost": FROST})
    bola = rules.weapon_row("bola")
    assert (bola.kind, bola.damage, bola.band, bola.ammunition) == ("ranged", 1, "short", 3)
    assert rules.reach("frost") == 1 and not rules.reloads("bola")
    assert rules.weapon_names("ranged")[-2:] == ("bola", "frost")
    with pytest.raises(SpecError, match="'sling' is not a ranged weapon"):
        ZONES.check_sides(rules, (Combatant(ranged="sling"),), (Combatant(),))


def test_the_vocabulary_is_in_describe_and_knows_new_weapons():
    described = ZONES.describe()["language"]
    assert {"attack", "defence", "damage", "movement"} == set(described["targets"])
    assert {"attack", "miss", "partial", "hit", "success", "critical"} == set(
        described["outcomes"])
    assert set(described["conditions"]) == {"slowed", "entangled"}
    names = Rules(weapons={"bola": BOLA}).vocabulary().names
    assert "bola" in names["target.ranged"].choices


@pytest.mark.parametrize("document", ["docs/zones.md", "docs/rules-language.md"])
def test_the_documented_names_are_the_vocabulary(document):
    from pathlib import Path

    from balance.rulesets.zones.weapons import markdown

    text = (Path(__file__).resolve().parents[2] / document).read_text()
    begin, end = "<!-- zones names: begin -->\n", "<!-- zones names: end -->"
    assert text[text.index(begin) + len(begin):text.index(end)] == markdown()
