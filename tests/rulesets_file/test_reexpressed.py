"""Proof by re-expression: crt's plain duel and zones' contact duel written as ruleset
files answer exactly what the built-in solvers answer (to 1e-12), and crt's best play as
a file is the built-in best play."""

from __future__ import annotations

from pathlib import Path

import pytest

from balance.rulesets import resolve
from balance.rulesets.crt.rules import combat_score, starting_health
from balance.rulesets.zones.rules import starting_hp

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "rulesets"
TOLERANCE = 1e-12

CRT = resolve("crt")
CRT_FILE = resolve(EXAMPLES / "crt-plain.toml")
CRT_RULES = CRT.rules(extraordinary=False)
ZONES = resolve("zones")
ZONES_FILE = resolve(EXAMPLES / "zones-contact.toml")
ZONES_RULES = ZONES.rules(initial_gap="contact")


def crt_as_file(c):
    """A built-in crt combatant as the file's fighter: its combat score and health."""
    return CRT_FILE.combatant(None, name=c.name, score=combat_score(c, CRT_RULES),
                              toughness=starting_health(c, CRT_RULES), divert=c.divert,
                              divert_health=c.divert_health,
                              divert_percent=round(100 * c.divert_p))


def zones_as_file(c):
    return ZONES_FILE.combatant(None, name=c.name, might=c.might, defence=c.defence,
                                shield=c.shield, armour=c.armour,
                                max_hp=starting_hp(c, ZONES_RULES), weapon=c.weapon,
                                max_attacks=c.max_attacks, steady=c.steady, spare=c.spare)


def same(built_in, written) -> None:
    for key in ("a_win", "b_win", "draw", "mean_rounds"):
        assert abs(getattr(built_in, key) - getattr(written, key)) <= TOLERANCE, key


CRT_MATCHUPS = [
    ("duelist", "duelist"), ("novice", "veteran"), ("skilled", "expert"), ("master", "novice"),
    ("watchman", "novice"), ("superior", "expert"),
    ({"preset": "duelist", "divert": "below_health"}, "duelist"),
    ({"preset": "novice", "divert": "always"}, "skilled"),
    ({"preset": "novice", "divert": "if_deficit"}, "veteran"),
    ({"preset": "duelist", "divert": "random", "divert_p": 0.25}, "duelist"),
    ({"agility": 12, "toughness": 14},
     {"agility": 9, "toughness": 12, "divert": "below_health", "divert_health": 5}),
]


@pytest.mark.parametrize(("a", "b"), CRT_MATCHUPS, ids=[str(i) for i in range(len(CRT_MATCHUPS))])
def test_crt_plain_duel_as_a_file_is_exactly_the_built_in(a, b) -> None:
    side_a, side_b = (CRT.combatant(a),), (CRT.combatant(b),)
    same(CRT.exact(CRT_RULES, side_a, side_b),
         CRT_FILE.exact(CRT_FILE.rules(), (crt_as_file(side_a[0]),), (crt_as_file(side_b[0]),)))


@pytest.mark.parametrize("declarations", ["deficit_first", "secret"])
@pytest.mark.parametrize(("a", "b"), [("duelist", "duelist"), ("novice", "veteran"),
                                      ("watchman", "novice"),
                                      ({"agility": 12, "toughness": 14},
                                       {"agility": 9, "toughness": 12})])
def test_crt_best_play_as_a_file_is_the_built_in_best_play(a, b, declarations) -> None:
    side_a, side_b = (CRT.combatant(a),), (CRT.combatant(b),)
    built_in = CRT.exact_best_play(CRT.rules(CRT_RULES, declarations=declarations),
                                   side_a, side_b)
    written = CRT_FILE.exact_best_play(CRT_FILE.rules(declarations=declarations),
                                       (crt_as_file(side_a[0]),), (crt_as_file(side_b[0]),))
    same(built_in, written)
    assert abs(built_in.details["value"] - written.details["value"]) <= TOLERANCE
    assert written.strategy is not None and len(written.strategy) == written.details["states"]


ZONES_MATCHUPS = [
    ({}, {}),
    ({"might": 3, "weapon": "two_handed"}, {"defence": 2, "shield": True, "armour": 2}),
    ({"max_attacks": 3}, {"steady": 1}),
    ({"steady": 2, "max_attacks": 1}, {"spare": "pass"}),
    ({"might": 2, "armour": 3, "hp": 20}, {"might": 4, "weapon": "light", "max_attacks": 3}),
    ({"weapon": "unarmed", "might": 4}, {"defence": 4}),
    ({"max_attacks": 1, "spare": "defend"}, {"max_attacks": 1, "spare": "pass"}),
    ({"steady": 1, "max_attacks": 2}, {"steady": 2, "max_attacks": 1, "shield": True}),
    ({"hp": 5}, {"hp": 30, "might": 0}),
    ({"might": 2, "defence": 3, "armour": 0}, {"might": 2, "defence": 0, "armour": 3}),
]


@pytest.mark.parametrize(("a", "b"), ZONES_MATCHUPS,
                         ids=[str(i) for i in range(len(ZONES_MATCHUPS))])
def test_zones_contact_duel_as_a_file_is_exactly_the_built_in(a, b) -> None:
    side_a, side_b = (ZONES.combatant(None, **a),), (ZONES.combatant(None, **b),)
    same(ZONES.exact(ZONES_RULES, side_a, side_b),
         ZONES_FILE.exact(ZONES_FILE.rules(), (zones_as_file(side_a[0]),),
                          (zones_as_file(side_b[0]),)))


ZONES_BEST_PLAY = [m for m in ZONES_MATCHUPS if "hp" not in m[0] and "hp" not in m[1]]


@pytest.mark.parametrize(("a", "b"), ZONES_BEST_PLAY,
                         ids=[str(i) for i in range(len(ZONES_BEST_PLAY))])
def test_zones_best_play_as_a_file_is_the_built_in_best_play(a, b) -> None:
    # the file's plan choice holds the built-in's plans but those a Defend beats (a plan
    # ending in Steady or Wait where Defend would do), so the game's value is the same; its
    # sequential turns (who opens drawn once a fight) are the built-in's activations
    side_a, side_b = (ZONES.combatant(None, **a),), (ZONES.combatant(None, **b),)
    built_in = ZONES.exact_best_play(ZONES_RULES, side_a, side_b)
    written = ZONES_FILE.exact_best_play(ZONES_FILE.rules(), (zones_as_file(side_a[0]),),
                                         (zones_as_file(side_b[0]),))
    assert abs(built_in.details["value"] - written.details["value"]) <= TOLERANCE
    for key in ("a_win", "b_win", "draw"):
        assert abs(getattr(built_in, key) - getattr(written, key)) <= 1e-9, key
