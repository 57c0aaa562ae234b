"""Make the race model's pinned figures (run once, on the code the pins guard).

``python -m tests.strike_rank.race_fixture scores``: prints the score tables of
:data:`CASES` as Python literals (pasted into ``test_race_cache.py``);
``python -m tests.strike_rank.race_fixture choices``: writes ``race_choices.json``, the
best-type table of every matchup of the 19 style presets (both seats) under default rules.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from balance.rulesets.strike_rank.presets import EXAMPLE_PRESETS, STYLE_PRESETS
from balance.rulesets.strike_rank.rules import Rules

CHOICES = Path(__file__).with_name("race_choices.json")

FIGHTERS = {**STYLE_PRESETS, **EXAMPLE_PRESETS}

CASES: dict[str, tuple[dict[str, object], str, str, tuple[int, int],
                       tuple[tuple[int, int], tuple[int, int]], tuple[int, int], int,
                       tuple[tuple[str, int], ...]]] = {
    # name: (rules fields, fighter 0, fighter 1, slots, sits, incoming, ranged, fixed)
    "knight-gladiator": ({}, "knight", "gladiator", (0, 1), ((0, 0), (0, 0)), (1, 1), 0, ()),
    "gladiator-knight": ({}, "gladiator", "knight", (1, 0), ((0, 0), (0, 0)), (1, 1), 0, ()),
    "archer-skirmisher-range": ({}, "archer", "skirmisher", (0, 1), ((0, 0), (0, 0)), (1, 1),
                                2, ()),
    "specialist-berserker": ({}, "specialist", "berserker", (0, 1), ((0, 0), (0, 0)), (1, 1),
                             0, ()),
    "tough-wolf-big": ({}, "tough_end32", "wolf", (0, 1), ((0, 0), (0, 0)), (1, 1), 0, ()),
    "assassin-footpad": ({}, "assassin", "footpad", (0, 1), ((0, 0), (0, 0)), (1, 1), 0, ()),
    "hunter-poleaxeman": ({}, "hunter", "poleaxeman", (0, 1), ((0, 0), (0, 0)), (1, 1), 0, ()),
    "slot-tiebreak-01": ({"sr_tiebreak": ("agility",)}, "skirmisher", "footpad", (0, 1),
                         ((0, 0), (0, 0)), (1, 1), 0, ()),
    "slot-tiebreak-10": ({"sr_tiebreak": ("agility",)}, "skirmisher", "footpad", (1, 0),
                         ((0, 0), (0, 0)), (1, 1), 0, ()),
    "group-legionnaire-berserker": ({}, "legionnaire", "berserker", (0, 2), ((5, 5), (0, 0)),
                                    (1, 2), 0, ()),
    "group-duel-fixed": ({}, "footpad", "assassin", (0, 1), ((0, 0), (0, 0)), (1, 1), 0,
                         (("foes_engaged", 1), ("foes_standing", 1), ("allies_standing", 0))),
    "variant-rules": ({"tie_rule": "add_d20", "attack_penalty_scope": "after_attack",
                       "overpower_strict": True, "attacks_per_round": 2,
                       "swing_penalty_armour_block": True},
                      "skirmisher", "swashbuckler", (0, 1), ((0, 0), (0, 0)), (1, 1), 0, ()),
    # the shapes of round the lazy batches and shared plans must get right (pinned from the
    # code before them, 5d45dcb): a Knight's parry-then-block against three attacks a round,
    "group-knight-takes-three": ({}, "knight", "legionnaire", (0, 1), ((0, 0), (0, 0)),
                                 (3, 1), 0, ()),
    # and two each, with overpower strict and re-rolled ties; two against two, two attacks
    # a round, the swing penalty after the attack
    "group-knight-two-attacks": ({"attacks_per_round": 2, "tie_rule": "add_d20",
                                  "overpower_strict": True},
                                 "knight", "legionnaire", (0, 1), ((0, 0), (0, 0)), (3, 1),
                                 0, ()),
    "group-two-on-two-after-attack": ({"attacks_per_round": 2,
                                       "attack_penalty_scope": "after_attack"},
                                      "shieldman", "legionnaire", (0, 1), ((0, 0), (0, 0)),
                                      (2, 2), 0, ()),
    # three range rounds with a side-mate shooting; a chain above MATRIX_STATES
    "group-range": ({}, "bladesman", "footpad", (0, 1), ((0, 0), (0, 0)), (2, 1), 3, ()),
    "group-big-two-attacks": ({"attacks_per_round": 2, "attack_penalty_scope": "after_attack"},
                              "tough_end32", "berserker", (0, 1), ((0, 0), (0, 0)), (2, 1), 0,
                              ()),
}


def case_scores(name: str) -> tuple[tuple[float, ...], ...]:
    from balance.rulesets.strike_rank.profile import profile
    from balance.rulesets.strike_rank.race import race_scores

    fields, a, b, slots, sits, incoming, ranged, fixed = CASES[name]
    rules = Rules(**fields)  # type: ignore[arg-type]
    c0, c1 = FIGHTERS[a], FIGHTERS[b]
    return race_scores(rules, c0, c1, slots, sits, incoming, profile(c0, rules).types,
                       profile(c1, rules).types, ranged, fixed)


def choices() -> dict[str, list[list[list[int]]]]:
    from balance.rulesets.strike_rank.policy import matchup_setup

    rules = Rules()
    return {f"{a} v {b}": [list(map(list, row)) for row in
                           matchup_setup(rules, (STYLE_PRESETS[a],), (STYLE_PRESETS[b],))[2]]
            for a in sorted(STYLE_PRESETS) for b in sorted(STYLE_PRESETS)}


def main(what: str) -> None:
    if what == "scores":
        print("PINNED: dict[str, tuple[tuple[float, ...], ...]] = {")
        for name in CASES:
            print(f'    "{name}": (')
            for row in case_scores(name):
                print("        (" + ", ".join(map(repr, row)) + ("," if len(row) == 1 else "")
                      + "),")
            print("    ),")
        print("}")
    else:
        CHOICES.write_text(json.dumps(choices(), indent=None, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
