"""A campaign of seed 001: the experience snowball (001.10 q5).

"A Character's combat score consists of ... the number of combats this character has
survived" (001.2): a fighter who survives a fight is one point better in the next.  A
career here is a run of fights against the same kind of foe (a fresh novice, say, or a
peer who has survived as many fights); the career ends with the first fight the fighter
does not win -- a loss, or a draw (both fell together, or no decision by the round cap),
the DEFAULT reading of "survived".  Health is whole again at the start of each fight.

Careers are exchangeable, so the survivors of fight ``k`` are the winners among the fights
of the careers still running: each fight of the campaign is one kernel run over the
survivors (its own stream under the seed), and the survival curve comes with Wilson
intervals on the number of careers.  ``method="exact"`` multiplies the exact win
probabilities of the plain duels instead.

Command line (a thin part at the bottom)::

    python -m balance.rulesets.crt.campaign --a novice --b novice --fights 20 -n 20000 --seed 1
"""

from __future__ import annotations

import dataclasses
import json
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

from ... import stats
from ...errors import SpecError
from ...random import root_entropy
from ..base import Side
from .rules import Combatant, Rules, combat_score

__all__ = ["career", "main"]

METHODS = ("simulate", "exact")


def career(rules: Rules, fighter: Combatant, foes: Side | Combatant, /, *, fights: int,
           n: int = 10_000, seed: int | None = None, peers: bool = False,
           method: str = "simulate", confidence: float = 0.95) -> Any:
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

    Returns
    -------
    pandas.DataFrame
        One row per fight: ``fight`` (1, 2, ...), ``combats`` and ``score`` of the fighter
        going in, ``advantage`` over the (first) foe, ``fought`` and ``won`` (careers),
        ``p_win`` (the chance to win this fight, having survived the ones before) with
        ``p_win_low`` / ``p_win_high``, and ``alive`` (the share of careers still running
        after it) with ``alive_low`` / ``alive_high``.  ``attrs`` hold the seed, method,
        entropy, readings and policies.
    """
    import pandas as pd

    from ... import engine

    if method not in METHODS:
        raise SpecError(f"campaign method must be one of {', '.join(METHODS)}, got {method!r}")
    if isinstance(fights, bool) or not isinstance(fights, int) or not 1 <= fights <= 1000:
        raise SpecError(f"campaign fights must be a whole number in 1..1000, got {fights!r}")
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise SpecError(f"campaign n must be a whole number >= 1, got {n!r}")
    side_b: Side = (foes,) if isinstance(foes, Combatant) else tuple(foes)
    from . import CRT

    crt = CRT()
    crt.check_sides(rules, (fighter,), side_b)
    entropy = root_entropy(seed) if method == "simulate" else None
    rows = []
    alive = n
    survival = 1.0
    for k in range(fights):
        me = dataclasses.replace(fighter, combats=fighter.combats + k)
        them = tuple(dataclasses.replace(f, combats=me.combats) if peers else f for f in side_b)
        score = combat_score(me, rules)
        row: dict[str, Any] = {"fight": k + 1, "combats": me.combats, "score": score,
                               "advantage": score - combat_score(them[0], rules)}
        if method == "exact":
            p_win = crt.exact(rules, (me,), them).a_win
            survival *= p_win
            row.update(fought=np.nan, won=np.nan, p_win=p_win, p_win_low=p_win,
                       p_win_high=p_win, alive=survival, alive_low=survival,
                       alive_high=survival)
        else:
            fought = alive
            won = 0
            if fought:
                assert entropy is not None
                tally = engine.run(crt, rules, (me,), them, entropy=entropy, n=fought,
                                   key=("campaign", k))
                won = int(tally.wins[1])
            alive = won
            p_low, p_high = (stats.wilson(won, fought, confidence) if fought
                             else (np.nan, np.nan))
            a_low, a_high = stats.wilson(alive, n, confidence)
            row.update(fought=fought, won=won, p_win=won / fought if fought else np.nan,
                       p_win_low=float(p_low), p_win_high=float(p_high), alive=alive / n,
                       alive_low=float(a_low), alive_high=float(a_high))
        rows.append(row)
    table = pd.DataFrame(rows)
    table.attrs.update(seed=seed, entropy=entropy, method=method, careers=n, peers=peers,
                       confidence=confidence,
                       assumptions=list(crt.assumptions(rules, (fighter,), side_b)),
                       policies=list(crt.policies(rules, (fighter,), side_b)))
    return table


# --- command line ---------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m balance.rulesets.crt.campaign``: print a career's survival curve."""
    from ...cli import _Parser, _positive_int
    from . import CRT

    parser = _Parser(
        prog="python -m balance.rulesets.crt.campaign",
        description="crt campaign: the survival curve of a fighter over a career (001.10 q5)")
    parser.add_argument("--a", required=True, metavar="SPEC", help="the fighter")
    parser.add_argument("--b", action="append", required=True, metavar="SPEC",
                        help="a foe he faces in each fight (repeat for a side)")
    parser.add_argument("--fights", type=_positive_int, default=20)
    parser.add_argument("-n", type=_positive_int, default=10_000, help="careers simulated")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--peers", action="store_true",
                        help="the foes have survived as many combats as the fighter")
    parser.add_argument("--exact", action="store_true",
                        help="exact win probabilities of the plain duel")
    parser.add_argument("--rule", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    crt = CRT()
    try:
        overrides = {}
        for item in args.rule:
            name, sep, value = item.partition("=")
            if not sep or not name.strip():
                raise SpecError(f"--rule expects NAME=VALUE, got {item!r}")
            overrides[name.strip()] = value
        rules = crt.rules(overrides)
        table = career(rules, crt.combatant(args.a), crt.side(args.b), fights=args.fights,
                       n=args.n, seed=args.seed, peers=args.peers,
                       method="exact" if args.exact else "simulate")
    except SpecError as exc:
        print(f"balance: error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({"attrs": {k: v for k, v in table.attrs.items()},
                          "rows": json.loads(table.to_json(orient="records"))}))
        return 0
    how = ("exact" if args.exact
           else f"{args.n:,} careers, entropy {table.attrs['entropy']} (pass it as --seed)")
    print(f"crt campaign: {args.a} against {' + '.join(args.b)}, {how}")
    for row in table.itertuples(index=False):
        print(f"  fight {row.fight:3d}  combats {row.combats:3d}  advantage {row.advantage:+4d}"
              f"  wins {100 * row.p_win:6.2f}%  alive after {100 * row.alive:7.3f}%"
              f" [{100 * row.alive_low:.3f}%, {100 * row.alive_high:.3f}%]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
