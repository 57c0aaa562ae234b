"""A campaign of seed 001: the experience snowball (001.10 q5).

"A Character's combat score consists of ... the number of combats this character has
survived" (001.2): a fighter who survives a fight is one point better in the next.  And
"skill points are accumulated through combat": the seed gives neither how many points a
combat earns nor what a skill level costs, so the growth of skill is a reading
(``skill_growth``): ``"every"`` [DEFAULT] a skill level (up to master, 5) for each
``skill_every`` fights survived, 10 by default, the rate that makes Bruggish, a veteran
(level 3) after 30 combats, an unskilled novice grown (001.11 #1); ``"none"``: combats only,
skill as it starts (the campaign before issue 24).  Each level adds the ability the weapon
type assigns it (``level_abilities``).  A career here is a run of fights against the same kind of foe (a fresh novice, say, or a
peer who has survived as many fights); the career ends with the first fight the fighter
does not win -- a loss, or a draw (both fell together, or no decision by the round cap),
the DEFAULT reading of "survived".  Health is whole again at the start of each fight.

Careers are exchangeable, so the survivors of fight ``k`` are the winners among the fights
of the careers still running: each fight of the campaign is one kernel run over the
survivors (its own stream under the seed), and the survival curve comes with Wilson
intervals on the number of careers.  ``method="exact"`` multiplies the exact win
probabilities of the plain duels instead.

Command line: ``balance campaign crt --a novice --b novice --fights 20 -n 20000 --seed 1``
(:func:`run` is its body).
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import numpy as np

from ... import stats
from ...errors import SpecError
from ...random import root_entropy
from ..base import Side
from .rules import Combatant, Rules, combat_score

__all__ = ["career", "career_length", "check_career", "run", "skill_after", "summary"]

METHODS = ("simulate", "exact")
SKILL_GROWTH = ("every", "none")
"""Readings of "skill points are accumulated through combat" (see the module's text)."""
SKILL_EVERY = 10
"""DEFAULT fights survived per skill level: Bruggish, veteran (3) after 30 combats."""


def skill_after(start: int, survived: int, growth: str = "every",
                every: int = SKILL_EVERY) -> int:
    """Skill level of a fighter who started at ``start`` after ``survived`` fights of his
    career: one level per ``every`` fights under ``"every"``, up to master (5)."""
    if growth == "none":
        return start
    return max(start, min(5, start + survived // every))


def career_length(table: Any) -> tuple[float, float, float]:
    """Mean fights won over the career's first ``len(table)`` fights, with its 95% interval
    (the normal interval of the mean of the careers' lengths, whose distribution the
    survival curve gives: a career ends at fight k with probability alive(k-1) - alive(k))."""
    alive = [1.0, *(float(a) for a in table["alive"])]
    probs = [alive[j] - alive[j + 1] for j in range(len(alive) - 1)] + [alive[-1]]
    mean = sum(j * p for j, p in enumerate(probs))
    var = sum((j - mean) ** 2 * p for j, p in enumerate(probs))
    careers = table.attrs.get("careers")
    if table.attrs.get("method") == "exact" or not careers:
        return mean, mean, mean
    half = 1.959964 * (var / careers) ** 0.5
    return mean, mean - half, mean + half


def check_career(method: str, fights: Any, n: Any, skill_growth: str, skill_every: Any
                  ) -> None:
    """One line naming the argument of :func:`career` that is out of its range."""
    def whole(value: Any, low: int, high: int | None) -> bool:
        return (not isinstance(value, bool) and isinstance(value, int) and value >= low
                and (high is None or value <= high))

    if method not in METHODS:
        raise SpecError(f"campaign method must be one of {', '.join(METHODS)}, got {method!r}")
    if not whole(fights, 1, 1000):
        raise SpecError(f"campaign fights must be a whole number in 1..1000, got {fights!r}")
    if not whole(n, 1, None):
        raise SpecError(f"campaign n must be a whole number >= 1, got {n!r}")
    if skill_growth not in SKILL_GROWTH:
        raise SpecError(f"campaign skill_growth must be one of {', '.join(SKILL_GROWTH)}, got "
                        f"{skill_growth!r}")
    if not whole(skill_every, 1, 1000):
        raise SpecError(f"campaign skill_every must be a whole number in 1..1000, got "
                        f"{skill_every!r}")


def _matchup_at(fighter: Combatant, side_b: Side, k: int, peers: bool, skill_growth: str,
                skill_every: int) -> tuple[Combatant, Side]:
    """The fighter going into fight ``k + 1`` (``k`` fights survived) and his foes (grown
    alike when they are his ``peers``)."""
    me = dataclasses.replace(fighter, combats=fighter.combats + k, skill=skill_after(
        fighter.skill, k, skill_growth, skill_every))
    them = tuple(dataclasses.replace(f, combats=me.combats, skill=skill_after(
        f.skill, k, skill_growth, skill_every)) if peers else f for f in side_b)
    return me, them


def _fought(crt: Any, rules: Rules, me: Combatant, them: Side, fought: int, entropy: int,
            k: int) -> int:
    """How many of the ``fought`` careers still running win fight ``k + 1``."""
    from ... import engine

    if not fought:
        return 0
    tally = engine.run(crt, rules, (me,), them, entropy=entropy, n=fought, key=("campaign", k))
    return int(tally.wins[1])


def _simulated_rates(fought: int, won: int, n: int, confidence: float) -> dict[str, Any]:
    """A simulated fight's row: careers fought and won, the chance to win it and the share
    of the ``n`` careers still running, each with its Wilson interval."""
    p_low, p_high = stats.wilson(won, fought, confidence) if fought else (np.nan, np.nan)
    a_low, a_high = stats.wilson(won, n, confidence)
    return dict(fought=fought, won=won, p_win=won / fought if fought else np.nan,
                p_win_low=float(p_low), p_win_high=float(p_high), alive=won / n,
                alive_low=float(a_low), alive_high=float(a_high))


def career(rules: Rules, fighter: Combatant, foes: Side | Combatant, /, *, fights: int,
           n: int = 10_000, seed: int | None = None, peers: bool = False,
           method: str = "simulate", confidence: float = 0.95, skill_growth: str = "every",
           skill_every: int = SKILL_EVERY) -> Any:
    """The survival curve of ``fighter`` over a career of ``fights`` fights.

    Parameters
    ----------
    rules
        The rules of every fight.
    fighter
        The fighter whose career it is; his ``combats`` grow by one per fight survived.
    foes
        The side he faces in each fight (a combatant or a tuple of them), fresh each time.
    fights
        Length of the career to follow.
    n
        Careers simulated (``method="simulate"``).
    seed
        Seed of the run (``None``: fresh entropy, recorded in ``DataFrame.attrs``).
    peers
        The foes have survived as many combats as the fighter (each foe's ``combats`` is
        set to his): the snowball against equals in experience, not against novices.
    method
        ``"simulate"`` (the kernel over the surviving careers) or ``"exact"`` (the plain
        duel's exact solver: one against one, ``extraordinary=false``).
    confidence
        Of the Wilson intervals.
    skill_growth, skill_every
        How skill grows (:func:`skill_after`): a level per ``skill_every`` fights survived
        (``"every"``, DEFAULT), or not at all (``"none"``); peers grow alike.

    Returns
    -------
    pandas.DataFrame
        One row per fight: ``fight`` (1, 2, ...), ``combats``, ``skill`` and ``score`` of the fighter
        going in, ``advantage`` over the (first) foe, ``fought`` and ``won`` (careers),
        ``p_win`` (the chance to win this fight, having survived the ones before) with
        ``p_win_low`` / ``p_win_high``, and ``alive`` (the share of careers still running
        after it) with ``alive_low`` / ``alive_high``.  ``attrs`` hold the seed, method,
        entropy, readings and policies.
    """
    import pandas as pd

    check_career(method, fights, n, skill_growth, skill_every)
    side_b: Side = (foes,) if isinstance(foes, Combatant) else tuple(foes)
    from . import CRT

    crt = CRT()
    crt.check_sides(rules, (fighter,), side_b)
    entropy = root_entropy(seed) if method == "simulate" else None
    rows = []
    alive = n
    survival = 1.0
    for k in range(fights):
        me, them = _matchup_at(fighter, side_b, k, peers, skill_growth, skill_every)
        score = combat_score(me, rules)
        row: dict[str, Any] = {"fight": k + 1, "combats": me.combats, "skill": me.skill,
                               "score": score,
                               "advantage": score - combat_score(them[0], rules)}
        if method == "exact":
            p_win = crt.exact(rules, (me,), them).a_win
            survival *= p_win
            row.update(fought=np.nan, won=np.nan, p_win=p_win, p_win_low=p_win,
                       p_win_high=p_win, alive=survival, alive_low=survival,
                       alive_high=survival)
        else:
            assert entropy is not None
            fought = alive
            alive = _fought(crt, rules, me, them, fought, entropy, k)
            row.update(_simulated_rates(fought, alive, n, confidence))
        rows.append(row)
    table = pd.DataFrame(rows)
    growth = (f"skill_growth=every [DEFAULT]: a skill level per {skill_every} fights survived"
              if skill_growth == "every" else "skill_growth=none [DEFAULT alternative]: "
              "combats only")
    table.attrs.update(seed=seed, entropy=entropy, method=method, careers=n, peers=peers,
                       confidence=confidence, skill_growth=skill_growth,
                       skill_every=skill_every,
                       assumptions=[*crt.assumptions(rules, (fighter,), side_b), growth],
                       policies=list(crt.policies(rules, (fighter,), side_b)))
    return table


SURE = 0.9
"""The win chance a survivor is "all but sure" of: :func:`summary` names the first fight whose
interval's low end reaches it."""


def summary(table: Any, fighter: str, foes: str) -> str:
    """The career in a sentence, every number from ``table`` (:func:`career`): the fights
    he wins on average, the share of careers that survive the first fight and the tenth,
    and the first fight a survivor is all but sure to win (:data:`SURE`, read at the
    interval's low end so a lucky estimate is not taken) with the share that gets there."""
    from ...labels import rate_with_interval

    exact = table.attrs.get("method") == "exact"

    def alive(k: int) -> str:
        row = table.iloc[k - 1]
        return rate_with_interval(row.alive, row.alive_low, row.alive_high, exact=exact)

    mean, low, high = career_length(table)
    fights = len(table)
    held = f"{mean:.2f}" + ("" if exact else f" [{low:.2f}, {high:.2f}]")
    text = (f"{fighter[:1].upper()}{fighter[1:]} against {foes}, fresh each fight, wins {held} of his first {fights} "
            f"fights on average; {alive(1)} of careers survive the first fight"
            + (f" and {alive(10)} the first ten" if fights >= 10 else ""))
    sure = table[table["p_win_low"] >= SURE]
    if not len(sure):
        return text + (f"; at none of the first {fights} fights is his chance "
                       + (f"{100 * SURE:.0f}% or more." if exact else
                          f"surely {100 * SURE:.0f}% or more (the intervals' low ends)."))
    first = sure.iloc[0]
    k = int(first.fight)
    text += (f"; a survivor's chance is first {'' if exact else 'surely '}"
             f"{100 * SURE:.0f}% or more at fight {k} (advantage {int(first.advantage):+d}, "
             f"skill {int(first.skill)})")
    if k > 1:
        text += f", and {alive(k - 1)} of careers get so far"
    return text + "."


# --- command line ---------------------------------------------------------------------------


def run(args: Any) -> int:
    """``balance campaign crt``: print a career's survival and skill, fight by fight."""
    from . import CRT

    crt = CRT()
    overrides = {}
    for item in args.rule:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise SpecError(f"--rule expects NAME=VALUE, got {item!r}")
        overrides[name.strip()] = value
    rules = crt.rules(overrides)
    table = career(rules, crt.combatant(args.a), crt.side(args.b), fights=args.fights,
                   n=args.n, seed=args.seed, peers=args.peers,
                   method="exact" if args.exact else "simulate",
                   skill_growth=args.skill_growth, skill_every=args.skill_every)
    mean, low, high = career_length(table)
    if args.json:
        print(json.dumps({"attrs": dict(table.attrs),
                          "fights_won": {"mean": mean, "low": low, "high": high},
                          "rows": json.loads(table.to_json(orient="records"))}))
        return 0
    how = ("exact" if args.exact
           else f"{args.n:,} careers, entropy {table.attrs['entropy']} (pass it as --seed)")
    print(f"crt campaign: {args.a} against {' + '.join(args.b)}, {how}")
    print(f"  {table.attrs['assumptions'][-1]}")
    for row in table.itertuples(index=False):
        print(f"  fight {row.fight:3d}  combats {row.combats:3d}  skill {row.skill}"
              f"  advantage {row.advantage:+4d}  wins {100 * row.p_win:6.2f}%"
              f" [{100 * row.p_win_low:.2f}%, {100 * row.p_win_high:.2f}%]"
              f"  alive after {100 * row.alive:7.3f}%"
              f" [{100 * row.alive_low:.3f}%, {100 * row.alive_high:.3f}%]")
    print(f"  fights won, of the first {args.fights}: mean {mean:.2f}"
          + ("" if args.exact else f" [{low:.2f}, {high:.2f}]"))
    print(f"  {summary(table, args.a, ' + '.join(args.b))}")
    return 0
