"""The scalar reference: one fight of seed 000, in plain Python, optionally narrated.

This is the executable reading of the rules (``../shared/rules/000-strike-rank.md``); the
vectorised kernel must agree with it in distribution, and tests check that it does.

A fight (000.2): an optional ambush (5.21 default); then rounds.  Each round every fighter
rolls its Initiative Index (Index Resolution; only 5s and 6s carry over), adds its Actions
to get its Strike Rank, picks a target and commits an attack type; fighters act in
descending Strike Rank (ties: ``sr_tiebreak``).  An attack is skill + d20 against the
defender's chosen parry, dodge or Armour block + d20, the attack hitting only if strictly
higher (``tie_rule``).  Hits roll 2d6 + the weapon's damage modifier on the Wound Matrix,
shifted by overpower blocks and the berserk / assassin rank bonuses, reduced by armour;
head and torso wounds may kill outright, limb wounds of MM destroy the limb, and wound
points fill the three-stage wound code.  A parry by 20 or more gives a riposte (or a
disarm at 30), a dodge by 20 gets the dodger behind its attacker.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...language import Effect, Modifier
from ...outcomes import EndCauses, Outcome
from ...results import Winner
from ..base import Log
from . import rules as R
from . import tables as T
from .policy import matchup_setup
from .profile import (
    BLOCK,
    BOTH_PARRY,
    DEFENCE_NAMES,
    DODGE,
    PARRIES,
    SHIELD_PARRY,
    WEAPON_PARRY,
    Parts,
    Profile,
    choose_defence,
    describe,
    range_phase,
    situation_parts,
    total,
    uses_shield,
)
from .rules import Combatant, Rules

__all__ = ["CAUSES", "effect_rows", "fight"]

CAUSES = EndCauses("killed", "unconscious", "instant_death", "limb_destroyed",
                   "knocked_out", "max_rounds")
"""End causes: how the last fighter of the losing side went out (or the round cap)."""

TYPE_VERBS = ("thrusts", "swings", "strikes a blow")


class _Fighter:
    """One combatant's state during a fight."""

    def __init__(self, p: Profile) -> None:
        self.p = p
        self.slot = p.slot
        self.side = p.side
        self.points = 0
        self.out: str | None = None
        self.dice = p.dice
        self.kept_faces: list[int] | None = None  # carry_mode="keep"
        self.strike_rank = 0
        self.remaining = 0  # action_economy="budget"
        self.tie_key = 0.0
        self.acted = False
        self.n_def = 0
        self.attack_type: int | None = None
        self.disarmed = False
        self.berserk = False
        self.behind: int | None = None  # slot of the foe this fighter got behind
        self.behind_until = 0
        self.shield_foes: set[int] = set()
        self.target: int | None = None
        self.crippled: set[str] = set()
        self.surprised = p.c.surprised
        self.natural = 0  # an untrained fighter's natural skill, rolled each fight
        self.ammo = p.c.missiles if p.missile else 0
        self.ready = p.missile.reload if p.missile else 0  # loaded at the start

    def __str__(self) -> str:
        return self.p.label

    @property
    def wounded(self) -> bool:
        return self.points >= self.p.thresholds[0]

    @property
    def remaining_capacity(self) -> int:
        return self.p.thresholds[1] - self.points


class _Fight:
    def __init__(self, rules: Rules, side_a: Sequence[Combatant], side_b: Sequence[Combatant],
                 rng: np.random.Generator, log: Log | None) -> None:
        self.rules = rules
        self.rng = rng
        self.log = log
        self.ps, _, self.best = matchup_setup(rules, tuple(side_a), tuple(side_b))
        self.fs = [_Fighter(p) for p in self.ps]
        self.range = range_phase(self.ps)
        self.round = 0
        self.winner: Winner | None = None
        self.cause = "max_rounds"

    # --- dice and narration -------------------------------------------------------------
    def d(self, sides: int) -> int:
        return int(self.rng.integers(1, sides + 1))

    def say(self, text: str) -> None:
        if self.log is not None:
            self.log(text)

    # --- who is standing -------------------------------------------------------------------
    @property
    def alive(self) -> list[bool]:
        return [f.out is None for f in self.fs]

    def foes(self, f: _Fighter) -> list[_Fighter]:
        """The living foes ``f`` can reach: those in their side's front rank."""
        return [g for g in self.fs if g.side != f.side and g.out is None and self.in_front(g)]

    def in_front(self, g: _Fighter) -> bool:
        """Whether ``g`` stands in its side's front rank: loose, or among the first
        ``rank_frontage`` living ranked fighters of its side (5.25 DEFAULT)."""
        if g.p.c.formation != "ranked":
            return True
        ahead = sum(1 for h in self.fs if h.side == g.side and h.out is None
                    and h.p.c.formation == "ranked" and h.slot < g.slot)
        return ahead < self.rules.rank_frontage

    def reaches_from_behind(self, g: _Fighter) -> bool:
        size = g.p.weapon.size
        return size is not None and size >= self.rules.rank_reach

    def pick_target(self, f: _Fighter, among: list[_Fighter] | None = None) -> _Fighter | None:
        """A living foe by ``f``'s target policy (000.10)."""
        cands = self.foes(f) if among is None else among
        if not cands:
            return None
        policy = f.p.c.target_policy
        if policy == "random" or len(cands) == 1:
            return cands[int(self.rng.integers(len(cands)))]
        sign = 1 if policy == "weakest" else -1
        return min(cands, key=lambda g: (sign * g.remaining_capacity, sign * g.p.c.skill, g.slot))

    def current_target(self, f: _Fighter) -> _Fighter | None:
        """``f``'s target, re-picked if it has fallen (``None``: no foe left)."""
        t = self.fs[f.target] if f.target is not None else None
        if t is None or t.out is not None:
            t = self.pick_target(f)
            if t is not None:
                f.target = t.slot
        return t

    # --- the fight ------------------------------------------------------------------------
    def run(self) -> Outcome:
        rules = self.rules
        n, sides, plus = R.natural_dice(rules.untrained_skill)
        for f in self.fs:
            if f.p.c.untrained:
                f.natural = sum(self.d(sides) for _ in range(n)) + plus
                self.say(f"{f} fights {f.p.c.style} untrained: natural skill "
                         f"{rules.untrained_skill} -> {f.natural}")
        for f in self.fs:
            if f.p.can_berserk and f.p.c.berserk_trigger == "start":
                f.berserk = True
                self.say(f"{f} starts the fight berserk (damage +1 rank; no Dodge, parry -10, "
                         "Armour block -20)")
        self.round = 1
        if rules.ambush_rules == "free_attack" and any(f.surprised for f in self.fs):
            self.ambush()
        while self.winner is None:
            if self.round > rules.max_rounds:
                self.say(f"== {rules.max_rounds} rounds without a decision: a draw")
                return Outcome(Winner.DRAW, rules.max_rounds, "max_rounds")
            self.play_round()
            if self.winner is None:
                self.round += 1
        return Outcome(self.winner, self.round, self.cause)

    def ambush(self) -> None:
        """5.21 default: each fighter not surprised makes one free, undefended attack on a
        surprised foe; its target counts as surprised for that attack."""
        self.say("Ambush! Surprised: " + ", ".join(str(f) for f in self.fs if f.surprised))
        for f in self.fs:
            if f.surprised or f.out is not None or self.winner is not None:
                continue
            cands = [g for g in self.foes(f) if g.surprised]
            t = self.pick_target(f, cands)
            if t is None:
                continue
            f.target = t.slot
            attack_type = self.best[f.slot][t.slot][0]
            self.attack(f, t, int(f.p.weapon.damage(attack_type)),  # type: ignore[arg-type]
                        verb=self.verb(f, attack_type), depth=0, undefended=True)
        for f in self.fs:
            f.surprised = False

    def play_round(self) -> None:
        rules = self.rules
        if self.round <= self.range:
            self.range_round()
            return
        if self.log is not None:
            self.say(f"Round {self.round}")
        living = [f for f in self.fs if f.out is None]
        for f in living:
            self.roll_initiative(f)
        self.commit(living)
        if rules.action_economy == "budget":
            self.budget_round(living)
        else:
            order = sorted(living, key=self.order_key, reverse=True)
            self.say_order(order)
            order = self.hold(order)
            for _ in range(rules.attacks_per_round):
                for f in order:
                    if self.winner is not None:
                        return
                    self.act(f)
        if self.winner is None:
            self.end_round()

    def commit(self, living: list[_Fighter]) -> None:
        rules = self.rules
        # targets and attack types are committed at the start of the round (000.4)
        for f in living:
            t = self.fs[f.target] if f.target is not None else None
            if t is None or t.out is not None or f.p.c.target_policy != "random":
                t = self.pick_target(f)
                f.target = None if t is None else t.slot
        for f in living:
            f.attack_type = None if f.disarmed else self.best[f.slot][f.target][0]  # type: ignore[index]
            if "random" in rules.sr_tiebreak:
                f.tie_key = float(self.rng.random())

    # --- the range phase (000.10 DEFAULT) ---------------------------------------------------
    def range_round(self) -> None:
        """A round before the sides close: in Strike Rank order each fighter with shots
        reloads, aims or shoots (one range action each); the others close in."""
        left = self.range - self.round
        if self.log is not None:
            self.say(f"Round {self.round} (range: the sides close "
                     + (f"in {left} more round{'s' if left > 1 else ''})" if left
                        else "after this round)"))
        living = [f for f in self.fs if f.out is None]
        if self.round == 1:
            for f in living:
                if f.ammo == 0:
                    self.say(f"  {f} has nothing to shoot and closes in")
        for f in living:
            self.roll_initiative(f)
        self.commit(living)
        order = sorted(living, key=self.order_key, reverse=True)
        self.say_order(order)
        for f in order:
            if self.winner is not None:
                return
            self.shoot(f)
        if self.winner is None:
            self.end_round()
            if not left:
                self.say("  the sides close: melee from the next round, shooters fight with "
                         "their weapon in hand")

    def shoot(self, f: _Fighter) -> None:
        """One range action: reload, aim, or a shot (skill + d20 against Dodge or shield
        parry + d20; no riposte or getting behind at range)."""
        p = f.p
        if f.out is not None or p.missile is None or f.ammo <= 0:
            return
        if "weapon_arm" in f.crippled:
            self.say(f"  {f} cannot shoot with a destroyed weapon arm")
            return
        t = self.current_target(f)
        if t is None:
            return
        m = p.missile
        if f.ready < p.shot_cost:
            f.ready += 1
            if f.ready <= m.reload:
                self.say(f"  {f} reloads its {m.name} ({f.ready}/{m.reload})")
            else:
                self.say(f"  {f} aims at {t} ({f.ready - m.reload}/{p.c.aim_actions})")
            return
        f.ready = 0
        f.ammo -= 1
        skill_sit, _ = self.dynamic_skill_parts(f)
        chosen = p.chosen(lambda q: q._missile_parts(t.p))
        a_parts = (p.missile_parts(t.p) + skill_sit + self.lang_parts(
            chosen.dynamic_rows("attack", weapon=False, missile=True), f, t, chosen))
        a_roll = self.d(20)
        a_total = total(a_parts) + a_roll
        verb = "throws" if m.thrown else "shoots"
        if self.log is not None:
            self.say(f"  {f} {verb} its {m.name} at {t} ({f.ammo} left): {describe(a_parts)} "
                     f"+ d20 {a_roll} = {a_total}")
        options = self.missile_defences(t, f)
        kind, _ = choose_defence(t.p.defence_preference, {k: total(v) for k, v in options.items()})
        if kind is None:
            self.say(f"    {t} makes no defence: hit")
            self.wound(f, t, m.damage, blocks=0, missile=True)
            self.fire_effects("hit", f, t, chosen, missile=True)
            return
        d_parts = options[kind]
        d_roll = self.d(20)
        d_total = total(d_parts) + d_roll
        t.n_def += 1
        margin = self.opposed(a_total, d_total)
        if self.log is not None:
            self.say(f"    {t} {DEFENCE_NAMES[kind]}: {describe(d_parts)} + d20 {d_roll} = "
                     f"{d_total}: " + (f"hit by {margin}" if margin > 0 else
                                       f"{'parried' if kind in PARRIES else 'avoided'} by {-margin}"))
        if margin > 0:
            self.wound(f, t, m.damage, blocks=R.overpower_blocks(margin, self.rules.overpower_strict),
                       missile=True)
            self.fire_effects("hit", f, t, chosen, missile=True)
        else:
            self.fire_effects("miss", f, t, chosen, missile=True)

    def missile_defences(self, dfn: _Fighter, att: _Fighter) -> dict[int, Parts]:
        """Defences against a shot: Dodge or a shield parry (the weapon too with
        ``missile_weapon_parry``), with the cumulative penalty and berserk modifiers."""
        p = dfn.p
        skill_sit, dodge_sit = self.dynamic_skill_parts(dfn)
        cumulative: dict[int, Parts] = {}
        for kind in (WEAPON_PARRY, SHIELD_PARRY, DODGE):
            cumulative[kind] = [(f"after {dfn.n_def} defence{'s' if dfn.n_def > 1 else ''}",
                                 R.defence_penalty(dfn.n_def, p.step(kind)))] if dfn.n_def else []
        options: dict[int, Parts] = {}
        kinds = []
        if (self.rules.missile_weapon_parry and p.can_weapon_parry and not dfn.disarmed
                and "weapon_arm" not in dfn.crippled):
            kinds.append(WEAPON_PARRY)
        if p.has_shield and "off_arm" not in dfn.crippled:
            kinds.append(SHIELD_PARRY)
        for kind in kinds:
            options[kind] = (p.parry_parts(att.p, kind) + skill_sit
                             + self.defence_mods(dfn, att, kind) + cumulative[kind]
                             + p.berserker_parts(dfn.berserk, kind))
        if not dfn.berserk and "leg" not in dfn.crippled:
            options[DODGE] = (p.dodge_parts(att.p) + dodge_sit + self.defence_mods(dfn, att, DODGE)
                              + cumulative[DODGE] + p.berserker_parts(dfn.berserk, DODGE))
        return options

    def roll_initiative(self, f: _Fighter) -> None:
        """Index Resolution of the fighter's initiative dice; 5s and 6s carry over (5.3)."""
        p = f.p
        if self.rules.carry_mode == "keep" and f.kept_faces is not None:
            faces = f.kept_faces
            bonus, _ = R.index_resolution(faces)
            how = f"kept dice {faces}"
        else:
            faces = [self.d(6) for _ in range(f.dice)]
            bonus, kept = R.index_resolution(faces)
            f.dice = kept
            if self.rules.carry_mode == "keep":
                f.kept_faces = [x for x in faces if x >= 5]
            how = f"{len(faces)}d6 {faces}" if faces else "no dice"
        mods = p.static_parts("strike_rank", None) + self.lang_parts(
            p.dynamic_rows("strike_rank"), f, None, p)
        f.strike_rank = p.actions + p.flat + bonus + total(mods)
        if self.log is not None:
            extra = "".join(f" {v:+d} {label}" for label, v in mods)
            self.say(f"  {f}: {p.actions} Actions, initiative {how} -> +{bonus}, flat +{p.flat}"
                     f"{extra}: Strike Rank {f.strike_rank}"
                     + (f"; {f.dice} dice carry over" if self.rules.carry_mode == "reroll"
                        else ""))

    def cost(self, f: _Fighter) -> int:
        """Action cost of ``f``'s attack this round (a thrust while recovering a weapon)."""
        return R.action_cost(f.p.c, f.attack_type or 0, self.rules)

    def budget_cost(self, f: _Fighter) -> int:
        return R.budget_cost(f.p.c, f.attack_type or 0, self.rules)

    def say_order(self, order: list[_Fighter]) -> None:
        """The acting order, with the action costs that broke Strike Rank ties."""
        if self.log is None:
            return
        ranks = [f.strike_rank for f in order]
        tied = {r for r in ranks if ranks.count(r) > 1}
        by_cost = "action_cost" in self.rules.sr_tiebreak
        self.say("  order: " + ", ".join(
            f"{f} ({f.strike_rank}" + (f", action cost {self.cost(f)})"
                                       if by_cost and f.strike_rank in tied else ")")
            for f in order))

    def order_key(self, f: _Fighter, strike_rank: int | None = None) -> tuple[float, ...]:
        """Higher acts first: Strike Rank, then the tie-breaks of ``sr_tiebreak`` (000.2.4),
        then side A before side B and lower slots first."""
        key: list[float] = [f.strike_rank if strike_rank is None else strike_rank]
        for tb in self.rules.sr_tiebreak:
            if tb == "action_cost":
                key.append(-self.cost(f))
            elif tb == "dex":
                key.append(f.p.c.dexterity)
            elif tb == "agility":
                key.append(f.p.c.agility)
            else:
                key.append(f.tie_key)
        key.append(-f.slot)
        return tuple(key)

    def hold(self, order: list[_Fighter]) -> list[_Fighter]:
        """Holding (5.2 steps 2-3): a fighter on ``hold_policy="react"`` whose target acts
        later (and is not itself holding) waits until the target declares, then acts just
        before it, knowing its declared attack type.  Holders waiting for the same fighter
        act in Strike Rank order.  Returns the order in which they act."""
        n = len(order)
        pos = {f.slot: k for k, f in enumerate(order)}
        holding: dict[int, _Fighter] = {}  # holder slot -> the fighter it waits for
        for f in reversed(order):  # a target acts later, so its status is known first
            t = self.fs[f.target] if f.target is not None else None
            if (f.p.c.hold_policy == "react" and t is not None and t.out is None
                    and f.attack_type is not None and pos[t.slot] > pos[f.slot]
                    and t.slot not in holding):
                holding[f.slot] = t
        if not holding:
            return order

        def key(f: _Fighter) -> int:
            t = holding.get(f.slot)
            return pos[f.slot] * (n + 1) + n if t is None else pos[t.slot] * (n + 1) + pos[f.slot]

        for f in order:
            t = holding.get(f.slot)
            if t is None:
                continue
            known = ("recovers its weapon" if t.attack_type is None
                     else TYPE_VERBS[t.attack_type])
            if t.attack_type is not None:
                f.attack_type = self.best[f.slot][t.slot][t.attack_type + 1]
            self.say(f"  {f} holds until {t} declares ({known}), then acts before it")
        order = sorted(order, key=key)
        self.say_order(order)
        return order

    def budget_round(self, living: list[_Fighter]) -> None:
        """``action_economy="budget"``: the highest remaining Strike Rank acts, paying the
        attack's action cost, until nobody can pay (experimental, 000.2.4)."""
        for f in living:
            f.remaining = f.strike_rank
        while self.winner is None:
            cands = [f for f in self.fs if f.out is None and f.remaining >= self.budget_cost(f)]
            if not cands:
                return
            f = max(cands, key=lambda g: self.order_key(g, g.remaining))
            f.remaining -= self.budget_cost(f)
            self.act(f)

    def end_round(self) -> None:
        for f in self.fs:
            f.n_def = 0
            f.acted = False
            f.shield_foes.clear()
            if (f.behind is not None and self.rules.behind_duration == "next_round"
                    and self.round >= f.behind_until):
                f.behind = None
        if self.rules.ambush_rules == "first_round" and self.round == 1:
            for f in self.fs:
                f.surprised = False

    # --- actions -------------------------------------------------------------------------------
    def act(self, f: _Fighter) -> None:
        if f.out is not None or self.winner is not None:
            return
        if f.surprised:
            self.say(f"  {f} is surprised and cannot act this round")
            return
        if "weapon_arm" in f.crippled:
            self.say(f"  {f} cannot attack with a destroyed weapon arm")
            return
        if f.disarmed and f.p.unarmed is None:
            f.disarmed = False
            self.say(f"  {f} spends the action recovering its weapon")
            return
        if not self.in_front(f) and (f.disarmed or not self.reaches_from_behind(f)):
            self.say(f"  {f} waits in the second rank")
            return
        t = self.current_target(f)
        if t is None:
            return
        if f.disarmed:  # fights on unarmed (when_disarmed="fight_unarmed"): a thrust
            move = f.p.unarmed
            assert move is not None
            f.acted = True
            self.attack(f, t, int(move.weapon.damage(move.types[0])),  # type: ignore[arg-type]
                        verb=f"{TYPE_VERBS[move.types[0]]} with its {move.weapon.name} "
                             "(disarmed)", depth=0, profile=move)
            return
        f.acted = True
        behind = f.behind == t.slot
        if behind:
            f.behind = None
        attack_type = f.attack_type if f.attack_type is not None else 0
        self.attack(f, t, int(f.p.weapon.damage(attack_type)),  # type: ignore[arg-type]
                    verb=self.verb(f, attack_type), depth=0, behind=behind)

    @staticmethod
    def verb(f: _Fighter, attack_type: int) -> str:
        """``thrusts with its long sword``: the attack type and the weapon (or move)."""
        return f"{TYPE_VERBS[attack_type]} with its {f.p.weapon.name}"

    def dynamic_skill_parts(self, f: _Fighter) -> tuple[Parts, Parts]:
        """Situation and wound modifiers now: (on style-skill rolls, on Dodge)."""
        skill, dodge = situation_parts(self.ps, self.alive, f.slot)
        if f.p.c.untrained:
            skill = [("natural skill", f.natural), *skill]
        if f.wounded and self.rules.wounded_penalty:
            skill = [*skill, ("wounded", self.rules.wounded_penalty)]
            dodge = [*dodge, ("wounded", self.rules.wounded_penalty)]
        return skill, dodge

    def defence_options(self, dfn: _Fighter, att: _Fighter, *, no_parry: bool,
                        behind: bool) -> dict[int, Parts]:
        """The defences ``dfn`` may make against ``att`` now, with their parts."""
        rules, p = self.rules, dfn.p
        skill_sit, dodge_sit = self.dynamic_skill_parts(dfn)
        own: Parts = []
        if dfn.attack_type and (rules.attack_penalty_scope == "whole_round" or dfn.acted):
            own = [(f"own {T.ATTACK_TYPES[dfn.attack_type]} this round",
                    T.OWN_DEFENCE_PENALTY[dfn.attack_type])]

        def cumulative(kind: int) -> Parts:
            if not dfn.n_def:
                return []
            return [(f"after {dfn.n_def} defence{'s' if dfn.n_def > 1 else ''}",
                     R.defence_penalty(dfn.n_def, p.step(kind)))]

        def parts(kind: int, base: Parts, situated: bool = False) -> Parts:
            extra = [] if situated else skill_sit + self.defence_mods(dfn, att, kind)
            penalty = own if kind != BLOCK or rules.swing_penalty_armour_block else []
            return base + extra + penalty + cumulative(kind) + p.berserker_parts(dfn.berserk, kind)

        options: dict[int, Parts] = {}
        if not behind and not no_parry:
            weapon_ok = p.can_weapon_parry and not dfn.disarmed and "weapon_arm" not in dfn.crippled
            shield_ok = (p.has_shield and "off_arm" not in dfn.crippled
                         and (att.slot in dfn.shield_foes
                              or len(dfn.shield_foes) < p.shield_opponents))
            if weapon_ok:
                options[WEAPON_PARRY] = parts(WEAPON_PARRY, p.parry_parts(att.p, WEAPON_PARRY))
            if shield_ok:
                options[SHIELD_PARRY] = parts(SHIELD_PARRY, p.parry_parts(att.p, SHIELD_PARRY))
            if weapon_ok and shield_ok and rules.parry_bonus_mode == "sum":
                options[BOTH_PARRY] = parts(BOTH_PARRY, p.parry_parts(att.p, BOTH_PARRY))
        if not dfn.berserk and "leg" not in dfn.crippled:
            dodge = dodge_sit + self.defence_mods(dfn, att, DODGE)
            options[DODGE] = parts(DODGE, p.dodge_parts(att.p, behind, dodge), situated=True)
        if p.can_block:
            block_sit = skill_sit
            if behind and rules.half_skill_mode == "skill_only" and p.c.untrained:
                # at half skill: the natural skill is the skill, halved like a trained one
                block_sit = [("natural skill at half", v // 2) if label == "natural skill"
                             else (label, v) for label, v in skill_sit]
            block_sit = block_sit + self.defence_mods(dfn, att, BLOCK)
            options[BLOCK] = parts(BLOCK, p.block_parts(att.p, behind, block_sit), situated=True)
        return options

    def count_defence(self, dfn: _Fighter, att: _Fighter, kind: int) -> None:
        dfn.n_def += 1
        if uses_shield(kind):
            dfn.shield_foes.add(att.slot)

    def opposed(self, a_total: int, d_total: int) -> int:
        """Margin of attack over defence, with ``tie_rule="add_d20"`` re-rolling ties."""
        margin = a_total - d_total
        while margin == 0 and self.rules.tie_rule == "add_d20":
            x, y = self.d(20), self.d(20)
            margin += x - y
            self.say(f"    tie: both add a d20 ({x} vs {y}): margin {margin:+d}")
        return margin

    def attack(self, att: _Fighter, dfn: _Fighter, damage: int, *, verb: str, depth: int,
               behind: bool = False, no_parry: bool = False, undefended: bool = False,
               profile: Profile | None = None) -> None:
        """One attack of ``att`` on ``dfn`` and everything it sets off (000.3-000.6)."""
        rules = self.rules
        surprised = dfn.surprised
        prof = profile or att.p
        chosen = prof.chosen(lambda q: q._attack_parts(dfn.p))
        if undefended or (surprised and rules.ambush_rules == "first_round"):
            self.say(f"  {att} {verb} at {dfn}, who cannot defend: hit")
            self.wound(att, dfn, damage, blocks=0, source=prof)
            self.fire_effects("hit", att, dfn, chosen)
            return
        skill_sit, _ = self.dynamic_skill_parts(att)
        a_parts = (prof.attack_parts(dfn.p) + skill_sit
                   + self.lang_parts(chosen.dynamic_rows("attack"), att, dfn, chosen))
        a_roll = self.d(20)
        a_total = total(a_parts) + a_roll
        note = " from behind" if behind else ""
        if self.log is not None:
            self.say(f"  {att} {verb} at {dfn}{note}: {describe(a_parts)} + d20 {a_roll} = {a_total}")
        options = self.defence_options(dfn, att, no_parry=no_parry, behind=behind)
        kind, _ = choose_defence(dfn.p.defence_preference,
                                 {k: total(v) for k, v in options.items()})
        if kind is None:
            self.say(f"    {dfn} makes no defence: hit")
            self.wound(att, dfn, damage, blocks=0, source=prof)
            self.fire_effects("hit", att, dfn, chosen)
            return
        d_parts = options[kind]
        d_roll = self.d(20)
        d_total = total(d_parts) + d_roll
        self.count_defence(dfn, att, kind)
        margin = self.opposed(a_total, d_total)
        if self.log is not None:
            self.say(f"    {dfn} {DEFENCE_NAMES[kind]}: {describe(d_parts)} + d20 {d_roll} = "
                     f"{d_total}: " + (f"hit by {margin}" if margin > 0 else
                                       f"{'parried' if kind in PARRIES else 'avoided'} by {-margin}"))
        if margin > 0 and kind in PARRIES and dfn.p.knight_double:
            b_parts = self.defence_options(dfn, att, no_parry=True, behind=False)[BLOCK]
            b_roll = self.d(20)
            b_total = total(b_parts) + b_roll
            self.count_defence(dfn, att, BLOCK)
            kind = BLOCK
            margin = self.opposed(a_total, b_total)
            if self.log is not None:
                self.say(f"    then Armour block: {describe(b_parts)} + d20 {b_roll} = {b_total}: "
                         + (f"hit by {margin}" if margin > 0 else f"blocked by {-margin}"))
        if margin > 0:
            self.wound(att, dfn, damage, blocks=R.overpower_blocks(margin, rules.overpower_strict),
                       source=prof)
            self.fire_effects("hit", att, dfn, chosen)
            return
        self.fire_effects("miss", att, dfn, chosen)
        if kind == BLOCK and rules.armour_block_success == "double_armour":
            self.say("    the blow lands on the armour, which counts double")
            self.wound(att, dfn, damage, blocks=0, armour_mult=2, source=prof)
            return
        won_by = -margin
        if kind in PARRIES and R.reaches(won_by, T.OVERPOWER_BLOCK, rules.overpower_strict):
            self.parry_overpower(dfn, att, kind, won_by, depth)
        elif kind == DODGE and R.reaches(won_by, T.OVERPOWER_BLOCK, rules.overpower_strict):
            dfn.behind = att.slot
            dfn.behind_until = self.round + 1
            self.say(f"    {dfn} dodges behind {att}: its next attack on {att} can only be "
                     "dodged or Armour blocked, at half skill")

    def parry_overpower(self, dfn: _Fighter, att: _Fighter, kind: int, won_by: int,
                        depth: int) -> None:
        """A parry by 20+: riposte, shield riposte or (at 30+) disarm (5.5, 5.6 Shieldman)."""
        rules = self.rules
        policy = dfn.p.c.riposte_policy
        if policy == "never" or dfn.disarmed or "weapon_arm" in dfn.crippled:
            return
        if (policy == "disarm" and rules.disarm_effect != "none" and not att.disarmed
                and R.reaches(won_by, T.DISARM_MARGIN, rules.overpower_strict)):
            att.disarmed = True
            self.say(f"    {dfn} disarms {att}")
            return
        if dfn.p.riposte_damage is None:
            return
        if depth >= rules.max_riposte_depth:
            self.say("    (riposte chain at its cap)")
            return
        if uses_shield(kind) and dfn.p.shieldman_shield and rules.shield_riposte:
            self.say(f"    shield riposte: {att}'s weapon is held away by the shield")
            self.attack(dfn, att, dfn.p.riposte_damage, verb="shield-ripostes", depth=depth + 1,
                        no_parry=True)
        else:
            self.attack(dfn, att, dfn.p.riposte_damage, verb="ripostes", depth=depth + 1)

    # --- the rules language: per-fight modifiers and effects (conditions.py) -----------------
    def head_counts(self, f: _Fighter) -> dict[str, int]:
        """``foes_engaged``, ``foes_standing`` and ``allies_standing`` for ``f`` now."""
        foes = [g for g in self.fs if g.side != f.side and g.out is None]
        return {"foes_engaged": sum(1 for g in foes if g.target == f.slot),
                "foes_standing": len(foes),
                "allies_standing": sum(1 for g in self.fs if g.side == f.side and g is not f
                                       and g.out is None)}

    def lang_env(self, f: _Fighter, t: _Fighter | None, prof: Profile) -> dict[str, object]:
        """Every name a row of ``prof`` (``f``'s) may read against ``t`` now."""
        env = prof.env(None if t is None else t.p)
        for role, g in (("self", f), ("target", t)):
            if g is not None:
                env.update({f"{role}.wounds": g.points, f"{role}.wounded": g.wounded,
                            f"{role}.berserk": g.berserk})
        env["round"] = self.round
        if not prof.fixed:
            env.update(self.head_counts(f))
        return env

    def lang_parts(self, rows: Sequence[Modifier], f: _Fighter, t: _Fighter | None,
                   prof: Profile) -> Parts:
        """The per-fight modifiers ``rows`` that apply now, as labelled parts naming why."""
        if not rows:
            return []
        env = self.lang_env(f, t, prof)
        out: Parts = []
        for m in rows:
            amount, line = m.read(env, self.rng)
            if line is not None:
                out.append((line.replace(f" {amount:+d} to {m.to}", "", 1), amount))
        return out

    def defence_mods(self, dfn: _Fighter, att: _Fighter, kind: int) -> Parts:
        """Per-fight modifiers to ``dfn``'s defence of ``kind`` against ``att``: the rows of
        the style the defence is made in, and the weapon's unless it is a shield parry."""
        p = dfn.p
        if kind in PARRIES:
            q = p.chosen(lambda x: x._parry_parts(att.p, kind))
            rows = q.dynamic_rows("parry", weapon=kind != SHIELD_PARRY)
        elif kind == DODGE:
            q = p.chosen(lambda x: x._dodge_parts(att.p))
            rows = q.dynamic_rows("dodge")
        else:
            q = p.chosen(lambda x: x._block_parts(att.p))
            rows = q.dynamic_rows("armour_block")
        return self.lang_parts(rows, dfn, att, q)

    def fire_effects(self, outcome: str, att: _Fighter, dfn: _Fighter, prof: Profile, *,
                     missile: bool = False) -> None:
        """The effects on ``outcome`` of the rows of the attack ``att`` made with ``prof``
        (its weapon's or missile weapon's, and its style's), each read in the state before
        any of them applies; an effect on a fighter already out does nothing."""
        effects = [e for e in effect_rows(prof, missile) if e.on == outcome]
        if not effects or self.winner is not None:
            return
        env = self.lang_env(att, dfn, prof)
        for effect in effects:
            who = att if effect.who == "self" else dfn
            _, line = effect.read(env, self.rng)
            if line is None or who.out is not None:
                continue
            if effect.inflict == "disarmed":
                if self.rules.disarm_effect == "none":
                    self.say(f"    {line} (disarm_effect is none: no effect)")
                    continue
                who.disarmed = True
            else:
                who.berserk = True
            self.say(f"    {line}")

    # --- wounds -----------------------------------------------------------------------------------
    def wound(self, att: _Fighter, dfn: _Fighter, damage: int, *, blocks: int,
              armour_mult: int = 1, source: Profile | None = None, missile: bool = False) -> None:
        """Resolve a hit: location, Wound Matrix, rank shifts, armour, death, wound code.
        ``source``: the profile the hit was made with (default the fighter's own; its
        unarmed move's when it fights unarmed); ``missile``: a shot."""
        rules = self.rules
        src = source or att.p
        mods = src.damage_parts(dfn.p, missile=missile) + self.lang_parts(
            src.dynamic_rows("damage", weapon=not missile, missile=missile), att, dfn, src)
        if mods:
            damage += total(mods)
            self.say("    damage" + "".join(f" {v:+d} {label}" for label, v in mods))
        location, shift, disarm = R.spend_overpower(blocks, att.p.c.overpower_policy, rules,
                                                    disarmed=dfn.disarmed)
        bought = []
        if location is not None:
            bought.append("a called shot to the head")
        if disarm:
            bought.append("a disarm")
        elif blocks and att.p.c.overpower_policy == "disarm" and dfn.disarmed:
            bought.append(f"(no disarm: {dfn} is disarmed already)")
        if shift:
            bought.append(f"+{shift} rank")
        if blocks:
            self.say(f"    overpowered by {blocks} block{'s' if blocks > 1 else ''} of 20: "
                     + (", ".join(bought) or "nothing on the menu"))
        if att.berserk:
            shift += 1
        if att.p.style.has("assassin") and dfn.surprised:
            shift += 1
        if location is None:
            aim = att.p.aim_shift
            face = self.d(20)
            location = R.hit_location(face, rules.hit_table, aim)
            where = f"d20 {face}{f' {aim:+d} aim' if aim else ''} -> {T.LOCATIONS[location]}"
        else:
            where = T.LOCATIONS[location]
        a, b = self.d(6), self.d(6)
        roll = a + b + damage
        ai = dfn.p.c.armour[T.ARMOUR_GROUPS[T.LOCATION_GROUP[location]]] * armour_mult
        if rules.rank_shift_mode == "roll_plus_3":
            roll += 3 * shift
            shift = 0
        if rules.armour_mode == "roll_reduction":
            rank = R.wound_rank(roll - rules.armour_roll_per_ai * ai, rules.block_rounding) + shift
        else:
            rank = R.wound_rank(roll, rules.block_rounding) + shift - ai
        text = (f"    wound: {where}; 2d6 ({a}+{b}) {damage:+d} = {roll}"
                + (f", {shift:+d} rank" if shift else "") + (f", armour {ai}" if ai else ""))
        if rank < 0:
            self.say(text + ": no wound")
            self.after_hit(dfn, disarm, wounded=False)
            return
        if self.log is not None:
            self.say(text + f": {R.rank_name(rank)}")
        if (rules.ko_rules and att.p.c.knockout and location == T.HEAD
                and rank + att.p.style.has("footpad") >= T.S and rank < dfn.p.death[0]):
            self.put_out(dfn, "knocked_out", f"{dfn} is knocked out")
            return
        if location == T.HEAD and rank >= dfn.p.death[0]:
            self.put_out(dfn, "instant_death", f"{dfn} is killed outright (head)")
            return
        if location in T.TORSO_LOCATIONS and rank >= dfn.p.death[1]:
            self.put_out(dfn, "instant_death", f"{dfn} is killed outright (torso)")
            return
        if location in T.LIMB_LOCATIONS and rank >= T.LIMB_DESTROYED_RANK:
            if rules.limb_destroyed == "out":
                self.put_out(dfn, "limb_destroyed", f"{dfn}'s {T.LOCATIONS[location]} is "
                             "destroyed: out of the fight")
                return
            limb = {T.WEAPON_ARM: "weapon_arm", T.OFF_ARM: "off_arm"}.get(location, "leg")
            dfn.crippled.add(limb)
            self.say(f"    {dfn}'s {T.LOCATIONS[location]} is destroyed")
        was_wounded = dfn.wounded
        dfn.points += R.rank_points(rank, rules.rank_ratio, rules.f_points)
        w, u, k = dfn.p.thresholds
        state = ("killed" if dfn.points >= k else "unconscious" if dfn.points >= u
                 else "wounded" if dfn.points >= w else "standing")
        if self.log is not None:
            self.say(f"    {dfn}: {dfn.points} wound points (wounded {w}, unconscious {u}, "
                     f"killed {k}): {state}")
        if dfn.points >= k:
            self.put_out(dfn, "killed", f"{dfn} is killed")
            return
        if dfn.points >= u:
            self.put_out(dfn, "unconscious", f"{dfn} falls unconscious")
            return
        if dfn.wounded and not was_wounded and rules.wounded_penalty:
            self.say(f"    {dfn} is wounded: {rules.wounded_penalty} to all combat rolls")
        self.after_hit(dfn, disarm, wounded=True)

    def after_hit(self, dfn: _Fighter, disarm: bool, *, wounded: bool) -> None:
        """A hit the victim stays up after: an overpower disarm, the berserk trigger."""
        if disarm:
            dfn.disarmed = True
            self.say(f"    {dfn} is disarmed")
        if (wounded and dfn.p.can_berserk and not dfn.berserk
                and dfn.p.c.berserk_trigger == "on_first_wound"):
            dfn.berserk = True
            self.say(f"    {dfn} goes berserk")

    def put_out(self, f: _Fighter, cause: str, text: str) -> None:
        f.out = cause
        self.say(f"    {text}")
        for side in (0, 1):
            if not any(g.out is None for g in self.fs if g.side == side):
                self.winner = Winner.B if side == 0 else Winner.A
                self.cause = cause


def fight(rules: Rules, side_a: Sequence[Combatant], side_b: Sequence[Combatant], *,
          rng: np.random.Generator, log: Log | None = None) -> Outcome:
    """One fight of ``side_a`` against ``side_b``, narrated roll by roll to ``log``."""
    return _Fight(rules, side_a, side_b, rng, log).run()



def effect_rows(prof: Profile, missile: bool = False) -> tuple[Effect, ...]:
    """The effects of an attack made with ``prof``: its weapon's (or missile weapon's) row
    and its style's row."""
    rules = prof.rules
    if missile:
        own = rules.language("missile_weapons", prof.missile.name) if prof.missile else None
    else:
        own = rules.language("weapons", prof.weapon.name)
    return (own.effects if own else ()) + rules.language("styles", prof.c.style).effects
