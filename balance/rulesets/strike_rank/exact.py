"""Exact distributions of seed 000's dice layer.

A whole strike-rank fight has no exact solution here (initiative carry-over, per-round
defence counters, riposte chains, wound points and situational modifiers make the state
space too large), so :func:`unsupported` always answers.  What *is* exact, and what the
tests compare the kernel's and the reference's samplers against, is the dice layer:

* :func:`initiative_bonus_pmf` -- the Index Resolution bonus of ``n`` dice (000.2.3);
* :func:`opposed_margin_pmf` and :func:`opposed_table` -- the d20-against-d20 margin and
  its hit / tie / overpower probabilities for a fixed-part difference (000.3);
* :func:`wound_rank_pmf` -- the rank of one hit on the Wound Matrix by damage modifier
  (000.8.4).

The ``best`` attack-type policy plays a simplified duel out exactly over the wound states
(:mod:`.race`); it is a model for a decision, not an answer for a fight.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

from ...dice import Pmf, die, index_resolution_pmf, pmf
from . import rules as R
from . import tables as T
from .rules import Rules

__all__ = [
    "carried_dice_pmf",
    "initiative_bonus_pmf",
    "opposed_margin_pmf",
    "opposed_table",
    "p_hit",
    "unsupported",
    "wound_rank_pmf",
]


def unsupported(rules: Rules, side_a: object, side_b: object) -> str:
    """Why no exact answer exists (always, for whole fights)."""
    return ("whole fights are not solved exactly (initiative carry-over, riposte chains and "
            "wound points make the state space too large); use `balance duel` for Monte "
            "Carlo estimates; the dice layer's exact distributions are in "
            "balance.rulesets.strike_rank.exact")


def initiative_bonus_pmf(n_dice: int, flat: int = 0) -> Pmf:
    """Round-1 initiative bonus of an index ``n_dice + flat`` (000.2.3)."""
    return index_resolution_pmf(n_dice) + flat


def carried_dice_pmf(n_dice: int) -> Pmf:
    """Dice kept for the next round: Binomial(n_dice, 1/3) (only 5s and 6s carry)."""
    kept = die(6).map(lambda face: int(face >= 5))
    out = Pmf({0: 1})
    for _ in range(n_dice):
        out = out + kept
    return out


@lru_cache(maxsize=512)
def opposed_margin_pmf(delta: int = 0) -> Pmf:
    """Margin ``delta + X - Y`` of two independent d20s (000.3)."""
    return die(20) + die(20).map(lambda y: -y) + delta


@lru_cache(maxsize=512)
def opposed_table(delta: int, strict: bool = False) -> dict[str, Fraction]:
    """Hit, tie and overpower probabilities at fixed-part difference ``delta`` (000.3).

    ``hit``: margin > 0; ``tie``: margin 0; ``overpower``: the attacker wins by 20 or
    more; ``riposte``: the defender wins by 20 or more; ``disarm``: by 30 or more.
    """
    m = opposed_margin_pmf(delta)
    return {
        "hit": m.probability(lambda x: x > 0),
        "tie": m[0],
        "overpower": m.probability(lambda x: R.reaches(x, T.OVERPOWER_BLOCK, strict)),
        "riposte": m.probability(lambda x: R.reaches(-x, T.OVERPOWER_BLOCK, strict)),
        "disarm": m.probability(lambda x: R.reaches(-x, T.DISARM_MARGIN, strict)),
    }


@lru_cache(maxsize=1024)
def p_hit(delta: int, tie_rule: str = "defender") -> Fraction:
    """Probability that an attack hits at fixed-part difference ``delta``.

    With ``add_d20`` a tie is re-rolled with a fresh d20 each, which is symmetric, so a
    tie becomes a hit half the time.
    """
    t = opposed_table(delta)
    return t["hit"] + (t["tie"] / 2 if tie_rule == "add_d20" else 0)


def wound_rank_pmf(mod: int, rounding: str = "ceil") -> Pmf:
    """Rank (0 F, 1 L, 2 S, 3 M, 4 MM, ...) of ``2d6 + mod`` on the Wound Matrix."""
    return (pmf(2, 6) + mod).map(lambda roll: R.wound_rank(roll, rounding))


@lru_cache(maxsize=64)
def location_pmf(rules: Rules, shift: int = 0) -> Pmf:
    """Location index of one hit (Table 28 default, shifted by aim)."""
    return die(20).map(lambda face: R.hit_location(face, rules.hit_table, shift))
