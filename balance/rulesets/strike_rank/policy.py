"""The ``best`` attack-type policy, fixed per matchup and shared by reference and kernel.

For each attacker ``i`` and each foe ``j`` the race model (:mod:`.race`) scores every pair
of attack types the two may use (``P(win) + P(draw) / 2`` of the fight as a Markov chain
over both wound tracks).  ``i`` then plays:

* against a foe with a fixed type, the type with the best score against it;
* against a foe that also plays ``best``, the type whose worst score over the foe's types
  is best (a pure security strategy), so that in the model ``best`` does at least as well
  as any fixed type does against the foe's best answer to it;
* with ``hold_policy="react"``, once the foe has declared, the best answer to its type.

Ties go to the faster type (thrust, then swing, then blow).  The table is computed once
per matchup, so the reference and the kernel play the same policy.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from . import tables as T
from .profile import Profile, choose_defence, profiles, range_phase, situation_parts, total
from .race import best_response, race_scores, security_choice
from .rules import Combatant, Rules, natural_skill_mean

__all__ = ["UNKNOWN", "best_type_table", "choose_defence", "incoming_attacks",
           "matchup_setup", "race_tables"]

UNKNOWN = 0
"""Index of 'target's declared type unknown' in the last axis of :func:`best_type_table`."""


@lru_cache(maxsize=256)
def matchup_setup(rules: Rules, side_a: tuple[Combatant, ...], side_b: tuple[Combatant, ...]
                  ) -> tuple[tuple[Profile, ...], tuple[tuple[int, int], ...],
                             tuple[tuple[tuple[int, ...], ...], ...]]:
    """Profiles, starting situations (skill, dodge) and the best-type table of a matchup,
    computed once and shared by the reference and the kernel."""
    ps, sits = _start(rules, side_a, side_b)
    table = best_type_table(ps, sits)
    return ps, tuple(sits), tuple(tuple(tuple(row) for row in t) for t in table)


def race_tables(rules: Rules, side_a: tuple[Combatant, ...], side_b: tuple[Combatant, ...]
                ) -> dict[RaceKey, tuple[tuple[float, ...], ...]]:
    """The race model's score tables :func:`matchup_setup` reads, by
    :func:`.race.race_scores`'s arguments: made in a run's parent and handed to its workers
    (:func:`.race.adopt`), so that no worker computes them again."""
    ps, sits = _start(rules, side_a, side_b)
    return {key: race_scores(*key) for _, _, key in _race_keys(ps, sits)}


def _start(rules: Rules, side_a: tuple[Combatant, ...], side_b: tuple[Combatant, ...]
           ) -> tuple[tuple[Profile, ...], list[tuple[int, int]]]:
    """Profiles and starting situations (skill, dodge) of a matchup."""
    ps = tuple(profiles(rules, side_a, side_b))
    everyone = [True] * len(ps)
    sits = []
    for i in range(len(ps)):
        skill, dodge = situation_parts(ps, everyone, i)
        # the race model takes an untrained fighter's natural skill at its mean
        natural = round(natural_skill_mean(rules)) if ps[i].c.untrained else 0
        sits.append((total(skill) + natural, total(dodge)))
    return ps, sits


def incoming_attacks(ps: Sequence[Profile], i: int) -> int:
    """Attacks fighter ``i`` takes a round in the race model: its foes shared among its
    side, rounded (at least 1)."""
    side = ps[i].side
    foes = sum(1 for p in ps if p.side != side)
    friends = sum(1 for p in ps if p.side == side)
    return max(1, int(foes / friends + 0.5))


def _types(p: Profile) -> tuple[int, ...]:
    if p.c.attack_policy == "best":
        return p.types
    return (T.ATTACK_TYPES.index(p.c.attack_policy),)


def best_type_table(ps: Sequence[Profile], sits: Sequence[tuple[int, int]]
                    ) -> list[list[list[int]]]:
    """``table[i][j][k]``: the attack type (0..2) ``i`` makes on ``j`` knowing ``j``
    declared type ``k - 1`` (``k = 0``: unknown).  Fixed-policy fighters get their type."""
    n = len(ps)
    table = [[[0] * 4 for _ in range(n)] for _ in range(n)]
    for i, att in enumerate(ps):
        for j, tgt in enumerate(ps):
            if att.side != tgt.side and len(_types(att)) == 1:
                table[i][j] = [_types(att)[0]] * 4
    for i, j, key in _race_keys(ps, sits):
        mine, theirs = _types(ps[i]), _types(ps[j])
        scores = race_scores(*key)
        if len(theirs) == 1:
            table[i][j][UNKNOWN] = mine[best_response(scores, 0)]
        else:
            table[i][j][UNKNOWN] = mine[security_choice(scores)]
        for k in range(1, 4):
            known = k - 1
            table[i][j][k] = (mine[best_response(scores, theirs.index(known))]
                              if known in theirs else table[i][j][UNKNOWN])
    return table


RaceKey = tuple[Any, ...]
"""The arguments of one :func:`.race.race_scores` call, in order."""


def _race_keys(ps: Sequence[Profile], sits: Sequence[tuple[int, int]]
               ) -> list[tuple[int, int, RaceKey]]:
    """(attacker, target, race_scores arguments) of every attacker playing ``best`` and
    every foe."""
    ranged = range_phase(ps)
    out = []
    for i, att in enumerate(ps):
        for j, tgt in enumerate(ps):
            mine, theirs = _types(att), _types(tgt)
            if att.side == tgt.side or len(mine) == 1:
                continue
            out.append((i, j, (att.rules, att.c, tgt.c, (att.slot, tgt.slot),
                               (sits[i], sits[j]),
                               (incoming_attacks(ps, i), incoming_attacks(ps, j)),
                               mine, theirs, ranged, att.fixed)))
    return out
