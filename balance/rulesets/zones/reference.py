"""The scalar reference of seed 002: one fight in plain Python, optionally narrated.

This is the executable reading of the rules (see ``rules.py`` for every parameter and the
digest ``002-zones.md``).  A round is every standing combatant activating once, in the
order fixed at the start (002.7.11); an activation is ``actions_per_activation`` actions,
each chosen afresh by the combatant's policy:

* **advance**: pick the best foe (target rule) among those it may strike here or may
  close on (only those here, if any, without ``leave_engaged``); strike it if it is here,
  otherwise step toward it.
* **hold**: strike a foe here, else shoot, else the spare action (Defend: hold ground).
* **skirmish** (needs a ranged weapon): break away when engaged (or when a foe is within
  ``keep_distance``), shoot what is in reach, else close in.
* **guard**: strike a foe here; else go to the ward's zone if a foe is there; else hold.

A melee plan is ``steady`` Steady actions (while one action is left to attack), then up
to ``max_attacks`` Strikes, then the spare action (Defend at most ``defends`` times an
activation, then pass); a ranged plan adds Reload.  Before a Move
that would leave a zone where a foe is holding ground, a combatant with ``disengage``
spends a Maneuver to Disengage (it needs the action for the Move too).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...language.rows import Modifier, narrate_total
from ...outcomes import EndCauses, Outcome
from ...results import Winner
from ..base import Log
from .maps import UNREACHABLE, CompiledMap, compile_map
from .rules import (
    CATEGORIES,
    Combatant,
    Rules,
    activation_order,
    category,
    damage,
    melee_damage,
    start_location,
    starting_hp,
    total_defence,
)
from .weapons import MAX_DISTANCE, UNTIL_REMOVED, WeaponRow

__all__ = ["fight"]

CAUSES = EndCauses("down", "stalemate", "max_rounds")


@dataclass
class _Fighter:
    """One combatant's state during a fight."""

    c: Combatant
    index: int
    side: int
    hp: int
    max_hp: int
    loc: int
    entangled: bool
    progress: int = 0          # Moves spent toward the step to ``moving_to``
    moving_to: int = -1
    moved: bool = False        # spent a Move since its last activation began
    hold: int = 0              # Defend actions left to answer leavers with free Strikes
    defending: bool = False    # +Defence vs melee until its next activation
    struck: set[int] = field(default_factory=set)  # leavers struck this holding period
    free_strikes: int = 0      # free Strikes made this holding period (free_strike_map)
    fled: bool = False         # broke away from an engagement (pursuit, 002.3)
    loaded: bool = True
    hazard_moves: int = 0      # Moves owed to picking clear of a hazard (002.2)
    start_loc: int = 0         # location at the start of the round (higher ground)
    pressers: set[int] = field(default_factory=set)  # melee attackers this round (002.4)
    saves: tuple[int, int] = (0, 0)
    slowed: bool = False
    # activations a condition has left (UNTIL_REMOVED: until its save, or all fight)
    left: dict[str, int] = field(default_factory=dict)
    ammunition: int | None = None  # of its ranged weapon; None: never runs out

    @property
    def up(self) -> bool:
        return self.hp > 0

    @property
    def name(self) -> str:
        return self.c.name


@dataclass
class _Activation:
    """What one activation has done so far."""

    actions: int
    attacks: int = 0
    steadies: int = 0
    steady: int = 0
    charge: bool = False
    disengaged: bool = False
    free_shift: bool = True
    defends: int = 0


class _Fight:
    def __init__(self, rules: Rules, side_a: Sequence[Combatant], side_b: Sequence[Combatant],
                 rng: np.random.Generator, log: Log | None) -> None:
        self.rules = rules
        self.rng = rng
        self.log = log
        self.map: CompiledMap = compile_map(rules.battlefield)
        self.fighters: list[_Fighter] = []
        for side, members in enumerate((side_a, side_b)):
            for c in members:
                loc = start_location(c, side, rules, self.map)
                hp = starting_hp(c, rules)
                ranged = rules.weapon_row(c.ranged) if c.ranged != "none" else None
                self.fighters.append(_Fighter(
                    c, len(self.fighters), side, hp, hp, loc, c.entangled, start_loc=loc,
                    slowed=c.slowed,
                    left={"entangled": UNTIL_REMOVED if c.entangled else 0,
                          "slowed": UNTIL_REMOVED if c.slowed else 0},
                    ammunition=None if ranged is None else ranged.ammunition))
        self.side_a, self.side_b = tuple(side_a), tuple(side_b)
        self.round = 0
        self.choke: dict[tuple[int, int], set[int]] = {}
        self.active_round = False
        self.ended: str | None = None

    # --- narration and dice ------------------------------------------------------------
    def say(self, text: str) -> None:
        if self.log is not None:
            self.log(text)

    def roll3d6(self) -> int:
        return int(self.rng.integers(1, 7, size=3).sum())

    def where(self, f: _Fighter) -> str:
        return self.map.names[f.loc]

    # --- geometry ---------------------------------------------------------------------
    def dist(self, u: int, v: int) -> int:
        """Steps of the walkable path (UNREACHABLE: none)."""
        return int(self.map.distance[u, v])

    def sight(self, u: int, v: int) -> int:
        """Steps of the line of sight, the range of a shot (UNREACHABLE: none)."""
        return int(self.map.sight[u, v])

    def foes(self, f: _Fighter) -> list[_Fighter]:
        return [g for g in self.fighters if g.side != f.side and g.up]

    def at(self, loc: int, side: int) -> list[_Fighter]:
        return [g for g in self.fighters if g.side == side and g.up and g.loc == loc]

    def step_cost(self, f: _Fighter, u: int, v: int, say: bool = False) -> int:
        """Moves a step from ``u`` to ``v`` costs ``f`` (002.2), with its weapons' movement
        modifiers (at least 1) before Slowed multiplies it; ``say``: narrate the rows."""
        r = self.rules
        if self.map.band_step[u, v]:
            cost = r.band_cost
        else:
            cost = r.shift_cost
            if r.shift_speed_rule == "speed1_shift_costs_2" and f.c.speed == 1:
                cost *= 2
        rows = self.carried(f, "movement")
        if rows:
            extra, lines = narrate_total(rows, "movement", self.env(f, None), self.rng)
            cost = max(1, cost + extra)
            for line in lines if say else ():
                self.say(f"    {line}")
        return cost * (r.slowed_factor if f.slowed else 1)

    # --- the rules language ------------------------------------------------------------
    def carried(self, f: _Fighter, to: str) -> tuple[Modifier, ...]:
        """``f``'s modifiers on ``to`` from both its weapons (defence, movement)."""
        rows = self.rules.weapon_row(f.c.weapon).mods(to)
        if self.armed(f):
            rows += self.rules.weapon_row(f.c.ranged).mods(to)
        return rows

    def armed(self, f: _Fighter) -> bool:
        """Whether ``f`` has a ranged weapon with ammunition left."""
        return f.c.ranged != "none" and (f.ammunition is None or f.ammunition > 0)

    def env(self, f: _Fighter, t: _Fighter | None, number: int = 1) -> dict[str, Any]:
        """Every name a row may read, for ``f`` (self) facing ``t`` (target; None: a step)."""
        out: dict[str, Any] = {"round": self.round, "attack_number": number}
        for role, g in (("self", f), ("target", t)):
            if g is None:
                continue
            c, loc = g.c, g.loc
            out.update({f"{role}.hp": g.hp, f"{role}.wounds": g.max_hp - g.hp,
                        f"{role}.might": c.might, f"{role}.agility": c.agility,
                        f"{role}.defence": total_defence(c, self.rules),
                        f"{role}.armour": c.armour, f"{role}.speed": c.speed,
                        f"{role}.shield": c.shield, f"{role}.large": c.large,
                        f"{role}.weapon": c.weapon,
                        f"{role}.ranged": c.ranged if self.armed(g) else "none",
                        f"{role}.slowed": g.slowed, f"{role}.entangled": g.entangled,
                        f"{role}.defending": g.defending, f"{role}.moved": g.moved,
                        f"{role}.cover": bool(self.map.cover[loc]),
                        f"{role}.commanding": bool(self.map.commanding[loc]),
                        f"{role}.hazard": bool(self.map.hazard[loc]),
                        f"{role}.chokepoint": bool(self.map.chokepoint[loc])})
        if t is not None:
            out["distance"] = min(self.sight(f.loc, t.loc), MAX_DISTANCE)
        out["foes_engaged"] = len(self.at(f.loc, 1 - f.side))
        out["allies_engaged"] = len(self.at(f.loc, f.side)) - (1 if f.up else 0)
        out["foes_standing"] = len(self.foes(f))
        out["allies_standing"] = sum(g.up for g in self.fighters
                                     if g.side == f.side and g is not f)
        return out

    def row_mods(self, f: _Fighter, t: _Fighter, row: WeaponRow | None, number: int
                 ) -> tuple[list[tuple[str, int]], int, int]:
        """The rows' attack modifiers (named, for the roll's line), the defender's Defence
        modifiers and the damage modifier of ``f``'s attack on ``t`` with ``row``."""
        if row is None:
            return [], 0, 0
        env = self.env(f, t, number)
        attack, lines = narrate_total(row.mods("attack"), "attack", env, self.rng)
        damage, more = narrate_total(row.mods("damage"), "damage", env, self.rng)
        defence, guard = 0, list[str]()
        rows = self.carried(t, "defence")
        if rows:
            defence, guard = narrate_total(rows, "defence", self.env(t, f, number), self.rng)
        for line in (*lines, *guard, *more):
            self.say(f"    {line}")
        return ([(row.name, attack)] if attack else []), defence, damage

    def fire(self, f: _Fighter, t: _Fighter, row: WeaponRow | None, number: int,
             cat: int) -> None:
        """The effects of ``row`` on the outcome ``cat`` of ``f``'s attack on ``t``."""
        if row is None or not row.effects:
            return
        happened = {"attack": True, "miss": cat == 0, "partial": cat == 1, "hit": cat >= 1,
                    "success": cat >= 2, "critical": cat == 3}
        env = self.env(f, t, number)
        for effect in row.effects:
            if not happened[effect.on]:
                continue
            quantity, line = effect.read(env, self.rng)
            if line is None:
                continue
            who = f if effect.who == "self" else t
            if effect.spend:
                if f.ammunition is not None:
                    f.ammunition = max(0, f.ammunition - int(quantity))
                    line += f"; {f.ammunition} left"
            elif who.up:
                rounds = UNTIL_REMOVED if quantity is None else int(quantity)
                who.left[effect.inflict] = max(who.left.get(effect.inflict, 0), rounds)
                setattr(who, effect.inflict, True)
            self.say(f"    {line}")
            if effect.spend and f.ammunition == 0:
                self.say(f"    {f.name} is out of ammunition: no more {f.c.ranged}")

    def wear_off(self, f: _Fighter) -> None:
        """A condition inflicted for some rounds counts down at the end of each of the
        sufferer's activations [DEFAULT]."""
        for condition, left in f.left.items():
            if 0 < left < UNTIL_REMOVED:
                f.left[condition] = left - 1
                if left == 1 and getattr(f, condition):
                    setattr(f, condition, False)
                    self.say(f"  {f.name} is no longer {condition.capitalize()}")

    # --- choices -------------------------------------------------------------------------
    def key(self, f: _Fighter, t: _Fighter) -> tuple[int, ...]:
        d = self.dist(f.loc, t.loc)
        if f.c.target == "weakest":
            return (t.hp, d, t.index)
        if f.c.target == "priority":
            return (-t.c.priority, d, t.index)
        return (d, t.index)

    def frontage(self, t: _Fighter) -> int:
        return self.rules.frontage_large if t.c.large else self.rules.frontage

    def choke_set(self, loc: int, side: int) -> set[int]:
        key = (loc, side if self.rules.chokepoint_scope == "per_side" else -1)
        return self.choke.setdefault(key, set())

    def strikable(self, f: _Fighter, t: _Fighter) -> bool:
        if not (t.up and t.loc == f.loc):
            return False
        if f.index not in t.pressers and len(t.pressers) >= self.frontage(t):
            return False
        cap = int(self.map.chokepoint[f.loc])
        if cap:
            fighters = self.choke_set(f.loc, f.side)
            if f.index not in fighters and len(fighters) >= cap:
                return False
        return True

    def approachable(self, f: _Fighter, t: _Fighter) -> bool:
        """Whether ``f`` may close on ``t``: a walkable path (002.3: a blocked zone put
        between them stops a pursuit), and not a foe that broke away and outruns it."""
        if self.dist(f.loc, t.loc) >= UNREACHABLE:
            return False
        return not (self.rules.pursuit == "speed" and t.fled and t.c.speed > f.c.speed)

    def shootable(self, f: _Fighter, t: _Fighter) -> bool:
        reach = self.rules.reach(f.c.ranged) + (1 if f.c.long_shots else 0)
        if not (t.up and self.sight(f.loc, t.loc) <= reach):
            return False
        if self.rules.is_area(f.c.ranged) and f.c.area_allies == "avoid" \
                and self.rules.area_friendly_fire:
            return not (f.loc == t.loc or self.at(t.loc, f.side))  # no ally (or itself) hit
        return True

    def best(self, f: _Fighter, candidates: list[_Fighter],
             long_last: bool = False) -> _Fighter | None:
        if not candidates:
            return None
        if long_last:
            reach = self.rules.reach(f.c.ranged)
            return min(candidates, key=lambda t: (self.sight(f.loc, t.loc) > reach,
                                                  *self.key(f, t)))
        return min(candidates, key=lambda t: self.key(f, t))

    def threatened_leaving(self, f: _Fighter) -> bool:
        return any(h.hold > 0 and f.index not in h.struck
                   for h in self.at(f.loc, 1 - f.side))

    def free_move(self, f: _Fighter, act: _Activation, nxt: int) -> bool:
        return (self.rules.shift_speed_rule == "speed2_first_shift_free" and f.c.speed >= 2
                and act.free_shift and not self.map.band_step[f.loc, nxt])

    def toward(self, f: _Fighter, act: _Activation, dest: int) -> tuple | None:
        """A Move (or the Disengage before it) toward ``dest``; None if it cannot go now."""
        if f.entangled:
            return ("escape",)
        nxt = int(self.map.next_step[f.loc, dest])
        cost = self.step_cost(f, f.loc, nxt)
        progress = f.progress if f.moving_to == nxt else 0
        if (progress + 1 >= cost and f.c.disengage and not act.disengaged
                and self.threatened_leaving(f)):
            need = 1 + (0 if self.free_move(f, act, nxt) else 1)
            return ("disengage",) if act.actions >= need else None
        return ("move", nxt)

    def in_reach_of_step(self, f: _Fighter, act: _Activation, dest: int) -> bool:
        """Whether the actions left this activation finish the next step toward ``dest``."""
        nxt = int(self.map.next_step[f.loc, dest])
        progress = f.progress if f.moving_to == nxt else 0
        free = 1 if self.free_move(f, act, nxt) else 0
        return progress + act.actions + free >= self.step_cost(f, f.loc, nxt)

    def melee_plan(self, f: _Fighter, act: _Activation, t: _Fighter) -> tuple:
        if act.attacks == 0 and act.steadies < f.c.steady and act.actions >= 2:
            return ("steady",)
        if act.attacks < f.c.max_attacks:
            return ("strike", t)
        return ("spare",)

    def ranged_plan(self, f: _Fighter, act: _Activation, t: _Fighter) -> tuple:
        if self.rules.reloads(f.c.ranged) and not f.loaded:
            return ("reload",)
        if act.attacks == 0 and act.steadies < f.c.steady and act.actions >= 2:
            return ("steady",)
        if act.attacks < f.c.max_attacks:
            return ("shoot", t)
        return ("spare",)

    def hold_choice(self, f: _Fighter, act: _Activation) -> tuple:
        """Strike a foe here, else shoot (the other way round without ``melee_first``)."""
        foes = self.foes(f)
        strike = self.best(f, [g for g in foes if self.strikable(f, g)])
        shot = None
        if self.armed(f):
            shot = self.best(f, [g for g in foes if self.shootable(f, g)], long_last=True)
        if strike is not None and (f.c.melee_first or shot is None):
            return self.melee_plan(f, act, strike)
        if shot is not None:
            return self.ranged_plan(f, act, shot)
        return ("spare",)

    def decide(self, f: _Fighter, act: _Activation) -> tuple:
        policy = f.c.policy
        if policy == "skirmish" and not self.armed(f):
            policy = "advance"  # a skirmisher out of shots closes in [DEFAULT]
        foes = self.foes(f)
        if policy == "guard":
            ward = self.ward(f)
            if ward is None:
                policy = "hold"
            else:
                t = self.best(f, [g for g in foes if self.strikable(f, g)])
                if t is not None:
                    return self.melee_plan(f, act, t)
                if (f.loc != ward.loc and self.at(ward.loc, 1 - f.side)
                        and self.dist(f.loc, ward.loc) < UNREACHABLE):
                    move = self.toward(f, act, ward.loc)
                    if move is not None:
                        return move
                return self.hold_choice(f, act)
        if policy == "hold":
            return self.hold_choice(f, act)
        if policy == "skirmish":
            rear = int(self.map.retreat[f.side, f.loc])
            can_retreat = rear >= 0 and not self.at(rear, 1 - f.side)
            near = min(self.dist(f.loc, g.loc) for g in foes)
            if near <= f.c.keep_distance or near == 0:
                if can_retreat:
                    move = self.toward(f, act, rear)
                    if move is not None:
                        return move
                if near == 0:
                    return self.hold_choice(f, act)
            t = self.best(f, [g for g in foes if self.shootable(f, g)], long_last=True)
            if t is not None:
                return self.ranged_plan(f, act, t)
            # nothing in reach: close in on the best foe
        candidates = [g for g in foes if g.loc == f.loc and self.strikable(f, g)]
        if not candidates and any(g.loc == f.loc for g in foes):
            # foes here, none it may strike: the frontage is full (002.4: "wait for an
            # opening next round, turn on a different enemy, or strike from range")
            capped = self.best(f, [g for g in foes if g.loc == f.loc])
            if f.c.frontage_full == "shoot" and self.armed(f) and capped is not None:
                return self.ranged_plan(f, act, capped)
            if f.c.frontage_full == "wait":
                return ("spare",)
        if f.c.leave_engaged or not candidates:
            candidates += [g for g in foes if g.loc != f.loc and self.approachable(f, g)]
        t = self.best(f, candidates)
        if t is None:
            return ("spare",)
        if t.loc == f.loc:
            return self.melee_plan(f, act, t)
        if (f.c.advance_fire and self.armed(f) and not f.entangled
                and not self.in_reach_of_step(f, act, t.loc)):
            # the next step cannot be finished this activation: shoot rather than bank
            shot = self.best(f, [g for g in foes if self.shootable(f, g)], long_last=True)
            if shot is not None:
                plan = self.ranged_plan(f, act, shot)
                if plan[0] != "spare":
                    return plan
        move = self.toward(f, act, t.loc)
        if move is not None:
            return move
        t = self.best(f, [g for g in foes if self.strikable(f, g)])
        return self.melee_plan(f, act, t) if t is not None else ("spare",)

    def ward(self, f: _Fighter) -> _Fighter | None:
        for g in self.fighters:
            if g.side == f.side and g is not f and g.c.name == f.c.guard:
                return g if g.up else None
        return None

    # --- attacks ----------------------------------------------------------------------
    def resolve(self, f: _Fighter, t: _Fighter, attribute: tuple[str, int],
                mods: list[tuple[str, int]], defence: int, weapon_damage: int,
                row: WeaponRow | None = None, number: int = 1) -> None:
        """``f``'s attack on ``t`` with the weapon ``row`` (its modifiers and effects),
        attack ``number`` of its activation (or of its free Strikes)."""
        extra, guard, more = self.row_mods(f, t, row, number)
        mods = mods + extra
        defence += guard
        roll = self.roll3d6()
        total = roll + attribute[1] + sum(m for _, m in mods) - defence
        cat = category(total, self.rules.ladder)
        dmg = damage(cat, max(0, weapon_damage + more), t.c.armour, self.rules)
        t.hp = max(0, t.hp - dmg)
        parts = "".join(f" {'+' if m >= 0 else '-'} {name} {abs(m)}" for name, m in mods if m)
        self.say(f"    3d6 {roll} + {attribute[0]} {attribute[1]}{parts} - Defence {defence}"
                 f" = {total}: {CATEGORIES[cat]}, {dmg} damage; {t.name} {t.hp}/{t.max_hp} HP")
        self.fire(f, t, row, number, cat)
        if not t.up:
            self.say(f"    {t.name} is Down")
            self.check_end()

    def melee_mods(self, f: _Fighter, t: _Fighter) -> list[tuple[str, int]]:
        r = self.rules
        mods = []
        if r.outnumber_scope == "zone" and (len(self.at(f.loc, f.side))
                                            > len(self.at(f.loc, t.side))):
            mods.append(("outnumbering", r.outnumber_bonus))
        if self.map.commanding[f.loc] and (r.higher_ground == "any_from_commanding" or (
                f.start_loc == f.loc and t.start_loc != f.loc)):
            mods.append(("higher ground", r.higher_ground_bonus))
        return mods

    def defence_vs_melee(self, t: _Fighter) -> int:
        return total_defence(t.c, self.rules) + (self.rules.defend_defence_bonus
                                                 if t.defending else 0)

    def strike(self, f: _Fighter, act: _Activation, t: _Fighter) -> None:
        r = self.rules
        number = act.attacks + 1
        mods = [("MAP", r.attack_penalty(act.attacks))]
        if act.steady:
            mods.append(("Steady", act.steady))
        if act.charge:
            mods.append(("charge", r.charge_bonus))
            if r.charge_scope == "first_strike":
                act.charge = False
        mods += self.melee_mods(f, t)
        t.pressers.add(f.index)
        if self.map.chokepoint[f.loc]:
            self.choke_set(f.loc, f.side).add(f.index)
        act.attacks += 1
        act.steady = 0
        self.say(f"  {f.name} strikes {t.name} in {self.where(f)}")
        self.resolve(f, t, ("Might", f.c.might), mods, self.defence_vs_melee(t),
                     melee_damage(f.c, r), r.weapon_row(f.c.weapon), number)

    def shot_mods(self, f: _Fighter, act: _Activation, t: _Fighter, d: int
                  ) -> list[tuple[str, int]]:
        """Modifiers of a shot by ``f`` at ``t``, ``d`` steps away (002.1, 002.5)."""
        r = self.rules
        mods = [("MAP", r.attack_penalty(act.attacks))]
        if act.steady:
            mods.append(("Steady", act.steady))
        penalties = []
        if d == r.reach(f.c.ranged) + 1:
            penalties.append(("long shot", r.long_shot_penalty))
        if self.map.cover[t.loc] and (t.loc != f.loc or r.cover_same_zone):
            penalties.append(("cover", r.cover_penalty))
        if t.moved:
            penalties.append(("target moved", r.moved_target_penalty))
        if r.penalty_stacking == "worst" and penalties:
            penalties = [min(penalties, key=lambda p: p[1])]
        mods += penalties
        if self.map.commanding[f.loc] and (r.higher_ground == "any_from_commanding"
                                           or t.loc != f.loc):
            mods.append(("higher ground", r.higher_ground_bonus))
        return mods

    def shoot(self, f: _Fighter, act: _Activation, t: _Fighter) -> None:
        r = self.rules
        d = self.sight(f.loc, t.loc)
        area = r.is_area(f.c.ranged)
        number = act.attacks + 1
        # an area effect hits everyone in the zone, one roll each (002.1); a shot, one foe
        targets = ([g for g in self.fighters if g.up and g.loc == t.loc
                    and (g.side != f.side or r.area_friendly_fire)] if area else [t])
        mods = {g.index: self.shot_mods(f, act, g, d) for g in targets}
        if r.reloads(f.c.ranged):
            f.loaded = False
        act.attacks += 1
        act.steady = 0
        away = f"{d} step{'s' if d != 1 else ''} away"
        if area:
            self.say(f"  {f.name} looses a {f.c.ranged} on {self.where(t)}, {away}: "
                     + ", ".join(g.name for g in targets))
        else:
            self.say(f"  {f.name} shoots ({f.c.ranged}) at {t.name} in {self.where(t)}, {away}")
        for g in targets:
            if self.ended:
                break
            self.resolve(f, g, ("Agility", f.c.agility), mods[g.index], total_defence(g.c, r),
                         r.ranged_damage(f.c.ranged), r.weapon_row(f.c.ranged), number)

    def free_strike(self, h: _Fighter, f: _Fighter) -> None:
        """Holder ``h`` strikes the leaver ``f`` (002.3)."""
        r = self.rules
        mods = []
        if r.free_strike_map:
            mods.append(("MAP", r.attack_penalty(h.free_strikes)))
        mods += self.melee_mods(h, f)
        h.hold -= 1
        h.struck.add(f.index)
        h.free_strikes += 1
        number = h.free_strikes
        if r.free_strike_frontage:
            f.pressers.add(h.index)
        self.say(f"  {h.name} holds its ground: a free Strike at {f.name} breaking away")
        self.resolve(h, f, ("Might", h.c.might), mods, self.defence_vs_melee(f),
                     melee_damage(h.c, r), r.weapon_row(h.c.weapon), number)

    # --- movement ------------------------------------------------------------------------
    def move(self, f: _Fighter, act: _Activation, nxt: int) -> None:
        free = self.free_move(f, act, nxt)
        if free:
            act.free_shift = False
        else:
            act.actions -= 1
        f.progress = (f.progress if f.moving_to == nxt else 0) + 1
        f.moving_to = nxt
        f.moved = True
        cost = self.step_cost(f, f.loc, nxt, say=True)
        kind = "band" if self.map.band_step[f.loc, nxt] else "shift"
        if f.progress < cost:
            self.say(f"  {f.name} Moves toward {self.map.names[nxt]} ({kind}, "
                     f"{f.progress}/{cost} Moves{' (free)' if free else ''})")
            return
        self.say(f"  {f.name} Moves: {self.where(f)} -> {self.map.names[nxt]} ({kind}, "
                 f"{cost} Move{'s' if cost != 1 else ''}{', one free' if free else ''})")
        old = f.loc
        if not act.disengaged:
            for h in self.at(old, 1 - f.side):
                if h.hold > 0 and f.index not in h.struck:
                    if r_frontage_blocks(self, h, f):
                        continue
                    self.free_strike(h, f)
                    if not f.up or self.ended:
                        return
                    if self.rules.hold_strikes == "per_leave":
                        break
        if self.at(old, 1 - f.side):
            f.fled = True
        f.loc = nxt
        f.progress, f.moving_to = 0, -1
        if self.map.hazard[nxt] and self.rules.hazard_cost:
            f.hazard_moves = self.rules.hazard_cost
            self.say(f"    {f.name} runs into the hazard in {self.where(f)}")
        foes_here = self.at(nxt, 1 - f.side)
        if foes_here and (self.map.band_step[old, nxt] or self.rules.charge_on_shift):
            act.charge = True
            self.say(f"    contact: {f.name} closes into {', '.join(g.name for g in foes_here)}")

    # --- the round ------------------------------------------------------------------------
    def activate(self, f: _Fighter) -> None:
        r = self.rules
        f.moved = False
        f.hold = 0
        f.defending = False
        f.struck = set()
        f.free_strikes = 0
        f.fled = False
        act = _Activation(actions=r.actions_per_activation)
        where = self.where(f)
        self.say(f" {f.name} ({'AB'[f.side]}, {f.hp}/{f.max_hp} HP) activates in {where}"
                 + (" with a banked Move" if f.progress else ""))
        if f.hazard_moves:
            lost = min(f.hazard_moves, act.actions)
            act.actions -= lost
            f.hazard_moves = 0
            f.moved = f.moved or r.hazard_is_move
            self.active_round = True
            self.say(f"  {f.name} spends {lost} Move picking clear of the hazard")
        while act.actions > 0 and f.up and not self.ended:
            choice = self.decide(f, act)
            kind = choice[0]
            if kind == "move":
                self.active_round = True
                self.move(f, act, choice[1])
                continue
            act.actions -= 1
            if kind == "spare":
                kind = f.c.spare
                if kind == "defend" and act.defends >= f.c.defends:
                    kind = "pass"
            if kind == "defend":
                act.defends += 1
                f.hold += 1
                f.defending = True
                self.say(f"  {f.name} Defends, holding its ground ({f.hold})")
                continue
            if kind == "pass":
                self.say(f"  {f.name} waits")
                continue
            self.active_round = True
            if kind == "strike":
                self.strike(f, act, choice[1])
            elif kind == "shoot":
                self.shoot(f, act, choice[1])
            elif kind == "steady":
                act.steadies += 1
                act.steady = min(act.steady + r.steady_bonus, r.steady_max)
                self.say(f"  {f.name} Steadies (+{act.steady} to the next attack)")
            elif kind == "reload":
                f.loaded = True
                self.say(f"  {f.name} Reloads")
            elif kind == "disengage":
                act.disengaged = True
                self.say(f"  {f.name} Disengages (Maneuver)")
            elif kind == "escape":
                roll = self.roll3d6()
                ok = roll + f.c.might >= r.entangle_save
                self.say(f"  {f.name} fights the snare: 3d6 {roll} + Might {f.c.might} "
                         f"{'>=' if ok else '<'} {r.entangle_save}: "
                         f"{'tears free' if ok else 'still Entangled'}")
                f.entangled = not ok
                if ok:
                    f.left["entangled"] = 0
            else:  # pragma: no cover - a policy bug
                raise AssertionError(kind)
        f.progress = min(f.progress, r.bank_limit)
        self.wear_off(f)

    def check_end(self) -> None:
        for side in (0, 1):
            if not any(g.up for g in self.fighters if g.side == side):
                self.ended = "down"

    def death_saves(self, f: _Fighter) -> None:
        r = self.rules
        ok, bad = f.saves
        if max(ok, bad) >= r.death_save_count:
            return
        roll = self.roll3d6()
        ok, bad = (ok + 1, bad) if roll >= r.death_save_target else (ok, bad + 1)
        f.saves = (ok, bad)
        state = ("stable" if ok >= r.death_save_count else "dead"
                 if bad >= r.death_save_count else f"{ok} up, {bad} down")
        self.say(f" {f.name} (Down) death save: 3d6 {roll}: {state}")

    def run(self) -> Outcome:
        r = self.rules
        first = (int(self.rng.integers(0, 2)) if r.first_side == "random"
                 else "ab".index(r.first_side))
        order = activation_order(r, self.side_a, self.side_b, first)
        self.say(f"zones on {r.battlefield['name']}: side {'AB'[first]} acts first; order "
                 + ", ".join(self.fighters[i].name for i in order))
        for f in self.fighters:
            self.say(f"  {f.name} ({'AB'[f.side]}) starts in {self.where(f)}")
        idle_rounds = 0
        while self.round < r.max_rounds:
            self.round += 1
            self.say(f"Round {self.round}")
            self.choke = {}
            for f in self.fighters:
                f.pressers = set()
                f.start_loc = f.loc
            self.active_round = False
            for i in order:
                f = self.fighters[i]
                if f.up:
                    self.activate(f)
                elif r.death_saves:
                    self.death_saves(f)
                if self.ended:
                    break
            if self.ended:
                break
            idle_rounds = 0 if self.active_round else idle_rounds + 1
            if idle_rounds >= 2:
                self.ended = "stalemate"
                self.say("Two rounds pass with nobody able to act: a stalemate")
                break
        cause = self.ended or "max_rounds"
        up = [sum(g.up for g in self.fighters if g.side == s) for s in (0, 1)]
        winner = Winner.DRAW
        if cause == "down":
            winner = Winner.A if up[0] else Winner.B
        extras: dict[str, float] = {"a_standing": up[0], "b_standing": up[1]}
        if r.death_saves:
            dead = [0, 0]
            for f in self.fighters:
                if not f.up:
                    while max(f.saves) < r.death_save_count:
                        self.death_saves(f)
                    dead[f.side] += f.saves[1] >= r.death_save_count
            extras.update(a_dead=dead[0], b_dead=dead[1])
        return Outcome(winner, self.round, cause, extras)


def r_frontage_blocks(fight: _Fight, h: _Fighter, f: _Fighter) -> bool:
    """Under ``free_strike_frontage`` a holder may not strike a leaver already pressed by a
    full frontage of others (002.7.9)."""
    return (fight.rules.free_strike_frontage and h.index not in f.pressers
            and len(f.pressers) >= fight.frontage(f))


def fight(rules: Rules, side_a: Sequence[Combatant], side_b: Sequence[Combatant], *,
          rng: np.random.Generator, log: Log | None = None) -> Outcome:
    """One fight of side A against side B by the reference reading, narrated to ``log``."""
    return _Fight(rules, side_a, side_b, rng, log).run()
