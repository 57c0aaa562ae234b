"""The scalar reference: one fight of seed 001, in plain Python, optionally narrated.

This is the executable reading of the rules (``../shared/rules/001-crt.md``).  The
vectorised kernel must agree with it in distribution; tests check that they do.

A round (001.4): every exchange's participants roll 2d6 under their cups; each declares
whether he diverts his attack to defence (001.5); the rolls are read on the Combat Results
Table for each fighter's own advantage, with the Extraordinary tables on 2 and 12 (001.6);
then every stroke's damage, armour and shield apply simultaneously, and anyone at health
<= 0 is out.  A fighter facing 2 or 3 foes fights one exchange against each, at the
aggregate difference against the highest-scoring foe and at zero against the others (001.7).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...language import Effect, narrate_total
from ...outcomes import EndCauses, Outcome
from ...results import Winner
from ..base import Log
from .language import house_rules, scalar_env
from .rules import (
    Combatant,
    Rules,
    ambush_result,
    band,
    combat_score,
    needed,
    scores,
    starting_health,
)

__all__ = ["CAUSES", "fight"]

CAUSES = EndCauses("down", "extraordinary", "surrender", "broke", "mishap", "max_rounds")
"""End causes.  ``down``: struck down by ordinary strokes; ``extraordinary``: struck down in a
round where the strokes of table results (Extraordinary Success strokes, EF 11, EF 12, the
extra exchanges and rerolls they grant) decided it -- without their damage he would still
stand; ``surrender`` (ES 11), ``broke`` (ES 12), ``mishap`` (EF 2-4; ES 2 under
``foe_slain``).  When several fighters fall in the deciding round, the fight's cause is the
latest in this order among the losing side's fallen, so "decided by mishap" is counted
whenever a mishap took part.  The kernel stores these codes."""

_PRIORITY = {cause: i for i, cause in enumerate(CAUSES)}
_UNTIL_REMOVED = 32_767  # rounds of a condition inflicted until removed (the kernel's too)


class _Fighter:
    """One combatant's state during a fight."""

    def __init__(self, c: Combatant, side: int, index: int, rules: Rules) -> None:
        self.c = c
        self.side = side
        self.index = index
        self.health = starting_health(c, rules)
        self.weapon = c.weapon_type
        self.shield = c.shield
        self.forced = False  # this round he may only defend (EF 5, EF 9)
        self.defend_only = 0  # house-rule effects: rounds left he may only defend
        self.out: str | None = None
        self.fell = -1  # the round he went out in
        self.label = f"{c.name} [{'AB'[side]}{index + 1}]"

    @property
    def standing(self) -> bool:
        return self.out is None


@dataclass(frozen=True)
class _Now:
    """A fighter as the round found him (what the house rules read)."""

    c: Combatant
    weapon: str
    shield: str
    health: int


@dataclass
class _Exchange:
    x: _Fighter
    y: _Fighter
    adv_x: int
    adv_y: int


@dataclass
class _Entry:
    """One fighter's roll in one exchange."""

    fighter: _Fighter
    foe: _Fighter
    adv: int
    roll: int
    divert: bool
    hit: bool = False
    success: bool = False


@dataclass
class _Stroke:
    attacker: _Fighter
    target: _Fighter
    deflectable: bool = True  # not an ES stroke, an unaware target's, or a 12 (001.9)
    twelve: bool = False  # a natural 12 landing without the ES table (narration only)
    maximum: bool = False  # ES 6
    through: _Fighter | None = None  # ES 9: half the damage to this companion
    self_inflicted: bool = False  # EF 11
    from_table: bool = False  # made by a table result: a kill it decides is "extraordinary"
    opening: bool = False  # a total surprise's stroke (001.3): not an exchange's wound


@dataclass
class _Effects:
    strokes: list[_Stroke] = field(default_factory=list)
    nullify_all: set[int] = field(default_factory=set)  # ids of fighters saved by ES 7
    unarm: list[_Fighter] = field(default_factory=list)
    lose_shield: list[_Fighter] = field(default_factory=list)
    forced_next: list[_Fighter] = field(default_factory=list)
    out: dict[int, tuple[_Fighter, str]] = field(default_factory=dict)
    rerolls: list[tuple[_Fighter, _Fighter]] = field(default_factory=list)
    take: list[tuple[_Fighter, str]] = field(default_factory=list)  # EF 8: (foe, weapon)

    def take_out(self, f: _Fighter, cause: str) -> None:
        """Mark ``f`` out at the end of the round; the higher-priority cause wins."""
        old = self.out.get(id(f))
        if old is None or _PRIORITY[cause] > _PRIORITY[old[1]]:
            self.out[id(f)] = (f, cause)


def _table_result(method: Callable[..., bool]) -> Callable[..., bool]:
    """Mark the strokes a table roll adds (``from_table``), however deep its chain goes."""
    @functools.wraps(method)
    def resolve(self: Any, p: Any, q: Any, adv: int, chain: int, effects: _Effects,
                *args: Any, **kwargs: Any) -> bool:
        start = len(effects.strokes)
        try:
            return method(self, p, q, adv, chain, effects, *args, **kwargs)
        finally:
            for stroke in effects.strokes[start:]:
                stroke.from_table = True
    return resolve


class _Fight:
    def __init__(self, rules: Rules, side_a: Sequence[Combatant], side_b: Sequence[Combatant],
                 rng: np.random.Generator, log: Log | None) -> None:
        self.rules = rules
        self.rng = rng
        self.log = log
        self.sides = [[_Fighter(c, 0, i, rules) for i, c in enumerate(side_a)],
                      [_Fighter(c, 1, i, rules) for i, c in enumerate(side_b)]]
        self.opponents: dict[int, list[_Fighter]] = {}
        self.round_number = 0
        self.exchanges: list[_Exchange] = []
        self.house = house_rules(rules)
        self.round_health: dict[int, int] = {}  # health at the start of the round

    # --- small helpers ---------------------------------------------------------------------
    def say(self, text: str) -> None:
        if self.log is not None:
            self.log(text)

    def d6(self) -> int:
        return int(self.rng.integers(1, 7))

    def two_d6(self) -> int:
        return self.d6() + self.d6()

    def score(self, f: _Fighter) -> int:
        return combat_score(f.c, self.rules, f.weapon)

    def standing(self, side: int) -> list[_Fighter]:
        return [f for f in self.sides[side] if f.standing]

    # --- engagement (001.7) ----------------------------------------------------------------
    # --- house rules (balance.rulesets.house) ------------------------------------------------
    def env(self, names: Sequence[str], me: _Fighter, foe: _Fighter) -> dict[str, Any]:
        """The values of ``names`` for ``me`` facing ``foe``, as they stood at the start of
        the round."""
        def now(f: _Fighter) -> _Now:
            return _Now(f.c, f.weapon, f.shield, self.round_health.get(id(f), f.health))

        return scalar_env(names, now(me), now(foe), self.rules, round_number=self.round_number,
                          foes_engaged=len(self.opponents.get(id(me), ())) or 1)

    def modifiers(self, to: str, me: _Fighter, foe: _Fighter) -> int:
        """The house rules' modifiers on ``to`` for ``me`` against ``foe``, each that fired
        narrated with why."""
        rows = self.house.on(to)
        if not rows:
            return 0
        value, lines = narrate_total(rows, to, self.env(self.house.names, me, foe), self.rng)
        for line in lines:
            self.say(f"    {me.label}: {line}")
        return value

    # --- engagement (001.7) ----------------------------------------------------------------
    def engage(self, bonus: tuple[int, int] = (0, 0)) -> list[_Exchange]:
        """Form this round's exchanges from the standing fighters (see :meth:`pair`).

        The house rules' score modifiers are read for each fighter against the foe he
        faces first as the scores before them pair the fighters; the exchanges are then
        formed again with the modified scores."""
        extra = {id(f): bonus[f.side] for side in self.sides for f in side}
        if not self.house.on("score"):
            return self.pair(extra)
        self.pair(extra, quiet=True)
        first = {id(f): foes[0] for side in self.sides for f in side
                 if (foes := self.opponents.get(id(f)))}
        for side in self.sides:
            for f in side:
                if id(f) in first:
                    extra[id(f)] += self.modifiers("score", f, first[id(f)])
        return self.pair(extra)

    def pair(self, extra: dict[int, int], quiet: bool = False) -> list[_Exchange]:
        """Form this round's exchanges from the standing fighters, each fighter's score
        raised by ``extra[id(fighter)]``.

        Equal numbers pair off by score.  Otherwise each fighter of the smaller side faces
        up to ``max_foes`` of the larger, dealt out in score order; he fights the first at
        his score minus their aggregate and the rest at zero (``multi_zero_mode``).  Foes
        beyond the cap wait and step in when one falls (engagements re-form each round).
        """
        def score(f: _Fighter) -> int:
            return self.score(f) + extra[id(f)]

        def ranked(side: int) -> list[_Fighter]:
            return sorted(self.standing(side), key=lambda f: (-score(f), f.index))

        a, b = ranked(0), ranked(1)
        self.opponents = {id(f): [] for f in a + b}
        exchanges = []
        if len(a) == len(b):
            for x, y in zip(a, b, strict=True):
                d = score(x) - score(y)
                exchanges.append(_Exchange(x, y, d, -d))
                self.opponents[id(x)].append(y)
                self.opponents[id(y)].append(x)
        else:
            lone, pack = (a, b) if len(a) < len(b) else (b, a)
            groups: dict[int, list[_Fighter]] = {id(f): [] for f in lone}
            reach = self.rules.max_foes * len(lone)
            for j, foe in enumerate(pack[:reach]):
                groups[id(lone[j % len(lone)])].append(foe)
            if pack[reach:] and not quiet:  # a crowd: the rest wait their turn
                self.say("  waiting their turn: " + ", ".join(f.label for f in pack[reach:]))
            for x in lone:
                foes = groups[id(x)]
                aggregate = sum(score(f) for f in foes)
                d = score(x) - aggregate
                for k, foe in enumerate(foes):
                    if k == 0:
                        adv_x, adv_y = d, -d
                    else:
                        adv_x = 0
                        adv_y = 0 if self.rules.multi_zero_mode == "symmetric" else -d
                    exchanges.append(_Exchange(x, foe, adv_x, adv_y))
                    self.opponents[id(x)].append(foe)
                    self.opponents[id(foe)].append(x)
        self.exchanges = exchanges
        return exchanges

    def other_foes(self, p: _Fighter, q: _Fighter) -> list[_Fighter]:
        return [f for f in self.opponents.get(id(p), []) if f is not q and f.standing]

    def band_against(self, p: _Fighter, q: _Fighter) -> int:
        for ex in self.exchanges:
            if ex.x is p and ex.y is q:
                return ex.adv_x
            if ex.y is p and ex.x is q:
                return ex.adv_y
        return 0

    # --- diversion policy (001.5) ---------------------------------------------------------
    def diverts(self, f: _Fighter, adv: int) -> bool:
        policy = f.c.divert
        if f.forced:
            return True
        if policy == "always":
            return True
        if policy == "if_deficit":
            return adv < 0
        if policy in ("below_health", "reactive"):  # reactive answers: see exchange_round
            return f.health <= f.c.divert_health
        if policy == "random":
            return bool(self.rng.random() < f.c.divert_p)
        if policy == "by_band":
            return bool(self.rng.random() < f.c.divert_by_band[band(adv, self.rules)])
        return False

    def stroke(self, p: _Fighter, q: _Fighter, roll: int) -> _Stroke:
        """A stroke scored by ``roll`` and read without the ES table: a 12 is still a 12,
        which no shield deflects (001.9) unless ``shield_stops_12``."""
        if roll == 12 and not self.rules.shield_stops_12:
            return _Stroke(p, q, deflectable=False, twelve=True)
        return _Stroke(p, q)

    # --- the extraordinary tables (001.6) ----------------------------------------------------
    def attack(self, p: _Fighter, q: _Fighter, adv: int, roll: int, chain: int,
               effects: _Effects) -> bool:
        """Resolve ``p``'s attacking roll on ``q``; True if a stroke lands (before shields)."""
        tables = self.rules.extraordinary
        if roll == 2:
            if tables and chain < self.rules.max_table_chain:
                return self.failure(p, q, adv, chain + 1, effects)
            return False
        if roll == 12 and tables and chain < self.rules.max_table_chain:
            return self.success(p, q, adv, chain + 1, effects)
        if scores(adv, roll, self.rules):
            effects.strokes.append(self.stroke(p, q, roll))
            return True
        return False

    @_table_result
    def failure(self, p: _Fighter, q: _Fighter, adv: int, chain: int, effects: _Effects,
                suppress_own: bool = False) -> bool:
        """Roll on the Extraordinary Failure table for ``p``; True if a stroke lands on ``q``.

        ``suppress_own``: ``p`` diverted, so his strokes on ``q`` (EF 12) do not land.
        """
        roll = self.two_d6()
        effect = self.rules.ef_table[str(roll)]
        self.say(f"    {p.label}: Extraordinary Failure, table roll {roll}: {effect}")
        if effect in ("slain", "unconscious", "maimed"):
            effects.take_out(p, "mishap")
        elif effect == "tripped":
            effects.forced_next.append(p)
        elif effect == "shattered":
            which = self.d6()
            if which <= 3 and p.shield != "none":
                self.say(f"    (d6 {which}) {p.label}'s shield shatters")
                effects.lose_shield.append(p)
            elif which <= 3 and self.rules.ef6_no_shield == "nothing":
                self.say(f"    (d6 {which}) no shield to shatter")
            else:
                self.say(f"    (d6 {which}) {p.label}'s weapon shatters")
                effects.unarm.append(p)
        elif effect == "foe_reroll":
            effects.rerolls.append((p, q))
        elif effect == "stripped":
            effects.unarm.append(p)
            if self.rules.ef8 == "foe_takes_it" and p.weapon != "unarmed":  # "they have it"
                effects.take.append((q, p.weapon))
        elif effect == "dropped":
            if self.rules.ef9 == "lose_next_attack":
                effects.forced_next.append(p)
        elif effect == "struck_self":
            effects.strokes.append(_Stroke(p, p, self_inflicted=True))
        elif effect == "won_through":
            if chain < self.rules.max_table_chain:
                return self.success(p, q, adv, chain + 1, effects, suppress_own)
            if suppress_own:
                return False
            effects.strokes.append(_Stroke(p, q))
            return True
        return False

    @_table_result
    def success(self, p: _Fighter, q: _Fighter, adv: int, chain: int, effects: _Effects,
                suppress_own: bool = False) -> bool:
        rules = self.rules
        roll = self.two_d6()
        effect = rules.es_table[str(roll)]
        self.say(f"    {p.label}: Extraordinary Success, table roll {roll}: {effect}")
        strokes: list[_Stroke] = []
        others = self.other_foes(p, q)
        if effect == "devil":
            if rules.es2_mode == "roller_fails":
                if chain < rules.max_table_chain:
                    return self.failure(p, q, adv, chain + 1, effects, suppress_own)
                return False
            if rules.es2_mode == "foe_slain":
                effects.take_out(q, "mishap")
                return False
            strokes.append(_Stroke(p, q, deflectable=False))
            if chain < rules.max_table_chain:
                self.failure(q, p, -adv, chain + 1, effects)
        elif effect == "extra_exchange":
            strokes.append(_Stroke(p, q, deflectable=False))
            if others:
                other = others[0]
                self.say(f"    {p.label} also fights {other.label}, who strikes back")
                r_p, r_o = self.two_d6(), self.two_d6()
                self.say(f"    extra exchange: {p.label} rolls {r_p}, {other.label} rolls {r_o}")
                self.attack(p, other, self.band_against(p, other), r_p, chain, effects)
                self.attack(other, p, self.band_against(other, p), r_o, chain, effects)
        elif effect == "extra_stroke":
            strokes.append(_Stroke(p, q, deflectable=False))
            if others:
                effects.strokes.append(_Stroke(p, others[0]))
        elif effect == "two_extra_attacks":
            strokes.append(_Stroke(p, q, deflectable=False))
            for other in others[:2]:
                r = self.two_d6()
                band = self.band_against(p, other)
                hit = r != 2 and scores(band, r, rules)
                self.say(f"    {p.label} attacks {other.label} too: rolls {r} "
                         f"(needs {_need_text(band, rules)}): {'stroke' if hit else 'miss'}")
                if hit:
                    effects.strokes.append(self.stroke(p, other, r))
        elif effect == "max_damage_stuck":
            strokes.append(_Stroke(p, q, deflectable=False, maximum=True))
            effects.unarm.append(p)
        elif effect == "slip_saves":
            effects.nullify_all.add(id(p))
            if rules.es7_own_stroke:
                strokes.append(_Stroke(p, q, deflectable=False))
        elif effect == "two_strokes":
            strokes += [_Stroke(p, q, deflectable=False), _Stroke(p, q, deflectable=False)]
        elif effect == "strike_through":
            strokes.append(_Stroke(p, q, deflectable=False,
                                   through=others[0] if others else None))
        elif effect == "stroke":
            strokes.append(_Stroke(p, q, deflectable=False))
        elif effect == "disarm":
            strokes.append(_Stroke(p, q, deflectable=False))
            effects.unarm.append(q)
        elif effect == "break_weapon":
            if p.c.es11 == "surrender":  # the roller's choice
                effects.take_out(q, "surrender")
            else:
                strokes.append(_Stroke(p, q, deflectable=False))
                effects.unarm.append(q)
        elif effect == "enemy_breaks":
            effects.take_out(q, "broke")
            if (q.c.leader and len(self.standing(q.side)) > 1
                    and self.rng.random() < rules.leader_break_p):
                self.say(f"    {q.label} was their leader: the whole side breaks")
                for f in self.standing(q.side):
                    effects.take_out(f, "broke")
        if suppress_own:
            strokes = [s for s in strokes if s.target is not q]
        effects.strokes += strokes
        return any(s.target is q for s in strokes)

    # --- one round --------------------------------------------------------------------------
    def exchange_round(self, exchanges: list[_Exchange], actors: set[int] | None,
                       divert_allowed: bool = True) -> _Effects:
        """Roll, declare and resolve every exchange; return the effects to apply.

        ``actors`` limits who rolls (one-sided ambush exchanges); ``None`` means everyone.
        """
        rules = self.rules
        effects = _Effects()
        entries: list[_Entry] = []
        for ex in exchanges:
            for p, q, adv in ((ex.x, ex.y, ex.adv_x), (ex.y, ex.x, ex.adv_y)):
                if actors is not None and id(p) not in actors:
                    continue
                roll = self.two_d6()
                divert = divert_allowed and self.diverts(p, adv)
                entries.append(_Entry(p, q, adv, roll, divert))
        # A reactive fighter with the advantage declares second (001.5) and answers the
        # deficit side's public declaration: it diverts only against an attack.
        for e in entries:
            if e.divert and e.fighter.c.divert == "reactive" and e.adv > 0 \
                    and not e.fighter.forced and rules.declarations == "deficit_first":
                answered = next((x for x in entries
                                 if x.fighter is e.foe and x.foe is e.fighter), None)
                if answered is not None and answered.divert:
                    e.divert = False
        # Declarations, narrated in their order: the deficit side first, then the
        # advantaged (whose `reactive` answer was settled just above); at zero both write
        # theirs down.
        for ex in exchanges:
            mine = [e for e in entries if e.fighter in (ex.x, ex.y) and e.foe in (ex.x, ex.y)]
            parts = []
            for e in sorted(mine, key=lambda e: e.adv):
                act = " diverts to defence" if e.divert else ""
                forced = " (may only defend)" if e.fighter.forced else ""
                parts.append(f"{e.fighter.label} {e.adv:+d} needs {_need_text(e.adv, rules)}, "
                             f"rolls {e.roll}{act}{forced}")
            if parts:
                self.say("  " + "; ".join(parts))
        for e in entries:
            if e.divert:
                e.success = e.roll == 12 or (e.roll != 2 and scores(e.adv, e.roll, rules))

        def protected(p: _Fighter, q: _Fighter) -> bool:
            return any(e.divert and e.success and e.fighter is p
                       and (e.foe is q or rules.divert_scope == "all") for e in entries)

        for e in entries:
            p, q = e.fighter, e.foe
            if e.divert:
                if e.roll == 2 and rules.extraordinary and rules.max_table_chain > 0:
                    self.failure(p, q, e.adv, 1, effects, suppress_own=True)
                elif e.roll == 12 and rules.divert_12_es and rules.extraordinary \
                        and rules.max_table_chain > 0:
                    self.success(p, q, e.adv, 1, effects, suppress_own=True)
                if e.success:
                    self.say(f"    {p.label}'s diversion holds")
                continue
            if protected(q, p):
                if e.roll == 12:
                    self.say(f"    {p.label}'s 12 lands as an ordinary stroke through the diversion")
                    effects.strokes.append(_Stroke(p, q))
                    e.hit = True
                elif e.roll == 2 and rules.extraordinary and rules.max_table_chain > 0:
                    self.failure(p, q, e.adv, 1, effects)
                continue
            e.hit = self.attack(p, q, e.adv, e.roll, 0, effects)
        # EF 7: "if your foe missed, they get a reroll"; the new roll stands.
        granted = len(effects.strokes)
        for roller, foe in effects.rerolls:
            for e in entries:
                if e.fighter is foe and e.foe is roller and not e.divert and not e.hit:
                    e.roll = self.two_d6()
                    self.say(f"    {foe.label} rerolls: {e.roll}")
                    if protected(roller, foe):
                        if e.roll == 12:
                            effects.strokes.append(_Stroke(foe, roller))
                            e.hit = True
                        continue
                    e.hit = self.attack(foe, roller, e.adv, e.roll, 0, effects)
        for stroke in effects.strokes[granted:]:
            stroke.from_table = True
        return effects

    def damage(self, stroke: _Stroke) -> int:
        """Damage of one stroke after shield and armour (001.9)."""
        rules, att, tgt = self.rules, stroke.attacker, stroke.target
        die = rules.damage_die if stroke.maximum else int(self.rng.integers(1, rules.damage_die + 1))
        bonus = self.modifiers("damage", att, tgt)
        raw = max(rules.min_damage, die + rules.weapon_damage_mod[att.weapon] + bonus)
        block = rules.shield_block[tgt.shield]
        if block and stroke.twelve:
            self.say(f"    {tgt.label}'s {tgt.shield} shield cannot deflect a 12")
        elif block and stroke.deflectable and not stroke.self_inflicted:
            deflect = self.d6()
            if deflect <= block:
                self.say(f"    {tgt.label}'s {tgt.shield} deflects the stroke (d6 {deflect} <= {block})")
                return 0
        return max(0, raw - rules.armour_points[tgt.c.armour])

    def apply(self, effects: _Effects) -> None:
        """Apply a round's effects simultaneously."""
        table_damage: dict[int, int] = {}  # damage each fighter took from table results
        self.round_health = {id(f): f.health for side in self.sides for f in side}
        pending: list[tuple[_Fighter, Effect, Any]] = []  # house-rule effects of wounds
        for stroke in effects.strokes:
            if id(stroke.target) in effects.nullify_all and not stroke.self_inflicted:
                self.say(f"    {stroke.target.label} slips and falls: "
                         f"{stroke.attacker.label}'s stroke is nullified")
                continue
            dealt = self.damage(stroke)
            before = stroke.target.health
            stroke.target.health -= dealt
            if stroke.from_table:
                table_damage[id(stroke.target)] = table_damage.get(id(stroke.target), 0) + dealt
            who = "strikes himself" if stroke.self_inflicted else f"strikes {stroke.target.label}"
            self.say(f"    {stroke.attacker.label} {who} for {dealt} "
                     f"(health {before} -> {stroke.target.health})")
            if dealt and self.house.effects and not (stroke.from_table or stroke.opening
                                                     or stroke.self_inflicted):
                pending += self.wound(stroke.attacker, stroke.target)
            if stroke.through is not None and stroke.through.standing and dealt // 2:
                other = stroke.through
                other.health -= dealt // 2
                table_damage[id(other)] = table_damage.get(id(other), 0) + dealt // 2
                self.say(f"    ... and strikes through into {other.label} for {dealt // 2} "
                         f"(health {other.health + dealt // 2} -> {other.health})")
        for f in effects.unarm:
            if f.weapon != "unarmed":
                self.say(f"    {f.label} is now unarmed")
            f.weapon = "unarmed"
        for f, kind in effects.take:  # EF 8: he has the weapon; he wields it if it is better
            name = kind.replace("_", "-")
            if combat_score(f.c, self.rules, kind) > self.score(f):
                self.say(f"    {f.label} takes up the stripped {name} weapon "
                         f"(score {self.score(f)} -> {combat_score(f.c, self.rules, kind)})")
                f.weapon = kind
            else:
                self.say(f"    {f.label} has the stripped {name} weapon but keeps his own")
        for f in effects.lose_shield:
            f.shield = "none"
        for side in self.sides:
            for f in side:
                f.forced = False
        for f in effects.forced_next:
            f.forced = True
        if self.house.effects:
            self.take_hold(pending)
        for f, cause in effects.out.values():
            if f.standing:
                f.out = cause
                f.fell = self.round_number
                self.say(f"    {f.label} is out ({cause})")
        for side in self.sides:
            for f in side:
                if f.standing and f.health <= 0:
                    decided = f.health + table_damage.get(id(f), 0) > 0
                    f.out = "extraordinary" if decided else "down"
                    f.fell = self.round_number
                    self.say(f"    {f.label} is down"
                             + (" (an extraordinary result decided it)" if decided else ""))
        self.round_health = {}

    def wound(self, p: _Fighter, q: _Fighter) -> list[tuple[_Fighter, Effect, Any]]:
        """The house rules' effects on ``p``'s stroke wounding ``q``, each that fired
        narrated with why: (whom, the effect, its rounds or value) to take hold at the
        round's end."""
        env = self.env(self.house.names, p, q)
        out = []
        for effect in self.house.effects:
            quantity, line = effect.read(env, self.rng)
            if line is None:
                continue
            who = p if effect.who == "self" else q
            self.say(f"    {p.label}: {line} ({who.label})")
            out.append((who, effect, quantity))
        return out

    def take_hold(self, pending: list[tuple[_Fighter, Effect, Any]]) -> None:
        """The round's end for the house rules' effects: a round of ``defend_only`` passes,
        then what this round's wounds inflicted and set takes hold, in order."""
        for side in self.sides:
            for f in side:
                f.defend_only = max(0, f.defend_only - 1)
        order = {id(e): i for i, e in enumerate(self.house.effects)}
        # row by row, as the kernel sets them (a later row's shield wins, whoever struck)
        for f, effect, quantity in sorted(pending, key=lambda p: order[id(p[1])]):
            if effect.subject == "defend_only":
                f.defend_only = max(f.defend_only, _UNTIL_REMOVED if quantity is None
                                    else int(quantity))
            else:  # shield
                f.shield = str(quantity)
        for side in self.sides:
            for f in side:
                f.forced = f.forced or f.defend_only > 0

    # --- the opening (001.3) ---------------------------------------------------------------
    def ambush(self) -> None:
        rules = self.rules
        init = 0 if rules.ambush == "a" else 1
        skills = [f.c.ambush for f in self.sides[init]]
        skill = max(skills) if rules.ambush_skill == "best" else skills[0]
        die = self.d6()
        result = ambush_result(die + skill, rules)
        self.say(f"Ambush by side {'AB'[init]}: d6 {die} + skill {skill} = {die + skill}: {result}")
        target_side = 1 - init
        if result == "none":
            return
        if result in ("warned", "brief", "surprise"):
            if result == "warned":
                self.say("  the enemy is warned and gains a free attack")
                exchanges, actors = self.engage(), {id(f) for f in self.sides[target_side]}
            else:
                bonus = int(rules.ambush_bonus[result])
                self.say(f"  hand-to-hand attacks at combat score +{bonus}, one-sided")
                exchanges = self.engage(bonus=(bonus, 0) if init == 0 else (0, bonus))
                actors = {id(f) for f in self.sides[init]}
            if not rules.ambush_tables:
                self.rules = _without_tables(rules)
            effects = self.exchange_round(exchanges, actors, divert_allowed=False)
            self.rules = rules
        else:  # total surprise: every attacker rolls 2d6; all but a 2 damage the target
            self.engage()
            effects = _Effects()
            for f in self.standing(init):
                foes = self.opponents.get(id(f), [])
                if not foes:
                    continue
                roll = self.two_d6()
                self.say(f"  {f.label} rolls {roll}")
                if roll != 2:
                    # the target is unaware: no shield deflects it (DEFAULT)
                    effects.strokes.append(_Stroke(f, foes[0], deflectable=False, opening=True))
                if roll == 12 and len(foes) > 1:
                    effects.strokes.append(_Stroke(f, foes[1], deflectable=False, opening=True))
                elif roll == 12 and rules.total_surprise_12 == "twice_if_alone":
                    self.say(f"  a 12 with no second foe: {f.label} strikes twice")
                    effects.strokes.append(_Stroke(f, foes[0], deflectable=False, opening=True))
        self.apply(effects)

    # --- the whole fight --------------------------------------------------------------------
    def result(self) -> tuple[Winner, str] | None:
        """``(winner, cause)`` once a side has nobody standing, else ``None``."""
        a, b = self.standing(0), self.standing(1)
        if a and b:
            return None
        if not a and not b:
            winner, losers = Winner.DRAW, self.sides[0] + self.sides[1]
        elif not a:
            winner, losers = Winner.B, self.sides[0]
        else:
            winner, losers = Winner.A, self.sides[1]
        causes = [f.out for f in losers if f.out and f.fell == self.round_number]
        return winner, max(causes, key=_PRIORITY.__getitem__) if causes else "down"

    def run(self) -> Outcome:
        for side in self.sides:
            for f in side:
                self.say(f"{f.label}: score {self.score(f)}, health {f.health}, "
                         f"{f.weapon.replace('_', '-')} weapon, armour {f.c.armour}, "
                         f"shield {f.shield}, diversion policy {f.c.divert}")
        if self.rules.ambush != "none":
            self.ambush()
            done = self.result()
            if done:
                return Outcome(done[0], 0, done[1])
        for rnd in range(1, self.rules.max_rounds + 1):
            self.round_number = rnd
            self.say(f"Round {rnd}")
            effects = self.exchange_round(self.engage(), None)
            self.apply(effects)
            done = self.result()
            if done:
                return Outcome(done[0], rnd, done[1])
        self.say(f"No decision after {self.rules.max_rounds} rounds: a draw")
        return Outcome(Winner.DRAW, self.rules.max_rounds, "max_rounds")


def _need_text(adv: int, rules: Rules) -> str:
    if adv == 0:
        return f"{rules.band_needed['zero']} or 12"
    return f"{needed(adv, rules)}+"


def _without_tables(rules: Rules) -> Rules:
    import dataclasses

    return dataclasses.replace(rules, extraordinary=False)


def fight(rules: Rules, side_a: Sequence[Combatant], side_b: Sequence[Combatant], /, *,
          rng: np.random.Generator, log: Log | None = None) -> Outcome:
    """Fight one battle of seed 001 by the reference rules.

    Parameters
    ----------
    rules
        The rule parameters.
    side_a, side_b
        The combatants of each side (1 to 3).
    rng
        Source of every die roll.
    log
        Called with one line of narration per event, if given.

    Returns
    -------
    Outcome
        Winner, rounds fought (0 if the ambush decided it) and the end cause.
    """
    return _Fight(rules, side_a, side_b, rng, log).run()
