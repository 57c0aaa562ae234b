"""What a fighter brings to a fight before any die is rolled: its static modifiers.

A :class:`Profile` is computed once per combatant per matchup from the combatant, the rules
and (for pair-dependent modifiers such as the Hunter's) the opponent.  Each total is a list
of labelled parts, so the scalar reference can narrate "30 skill +5 long sword parry +5
alone (solo) ..." and the kernel can sum the same parts into lookup tables.  Parts that
change during a fight (situation, wounds, the cumulative defence penalty, berserk, the
swing / blow penalty) are added by the reference and the kernel themselves.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ...errors import SpecError
from . import rules as R
from . import tables as T
from .rules import Combatant, Rules

Parts = list[tuple[str, int]]

WEAPON_PARRY, SHIELD_PARRY, DODGE, BLOCK, BOTH_PARRY = range(5)
DEFENCE_NAMES: tuple[str, ...] = ("parry", "shield parry", "dodge", "armour block",
                                  "weapon and shield parry")
PARRIES = frozenset({WEAPON_PARRY, SHIELD_PARRY, BOTH_PARRY})


def uses_shield(defence: int) -> bool:
    """Whether a defence of this kind is made with the shield."""
    return defence in (SHIELD_PARRY, BOTH_PARRY)


def choose_defence(policy: str, options: dict[int, int]) -> tuple[int | None, int]:
    """(kind, total) of the defence chosen among ``options`` (kind -> total).

    ``best``: the highest total, ties in the order parry, shield parry, dodge, block;
    ``parry`` / ``dodge`` / ``armour_block``: that kind if allowed, else the best;
    ``none``: no defence.  Kind ``None`` (total -1000): undefended.
    """
    if policy == "none" or not options:
        return None, -1000
    preferred = {"parry": (WEAPON_PARRY, SHIELD_PARRY, BOTH_PARRY), "dodge": (DODGE,),
                 "armour_block": (BLOCK,)}.get(policy, ())
    pool = {k: v for k, v in options.items() if k in preferred} or options
    kind = max(sorted(pool), key=lambda k: pool[k])
    return kind, pool[kind]


@dataclass(frozen=True)
class Profile:
    """Static facts and modifiers of one combatant in one matchup."""

    c: Combatant
    rules: Rules
    style: R.Style
    slot: int
    side: int
    label: str
    weapon: T.Weapon
    actions: int
    dice: int
    flat: int
    thresholds: tuple[int, int, int]
    death: tuple[int, int]
    solo: bool
    group: bool
    can_berserk: bool
    knight_armoured: bool
    weapon_mod: int
    shield_mod: int
    types: tuple[int, ...]
    riposte_damage: int | None
    missile: T.Missile | None = None  # with shots to fire (range phase)
    missile_mod: int = 0
    aim_bonus: int = 0

    @property
    def shot_cost(self) -> int:
        """Range actions per shot after the first: reloads, then aims (000.10)."""
        return (self.missile.reload if self.missile else 0) + self.c.aim_actions

    @property
    def has_shield(self) -> bool:
        return self.c.shield != "none"

    @property
    def shield_opponents(self) -> int:
        return T.SHIELDS[self.c.shield].opponents

    @property
    def can_weapon_parry(self) -> bool:
        return self.weapon.parry is not None

    @property
    def can_block(self) -> bool:
        return self.c.armour["torso"] >= 1

    @property
    def knight_double(self) -> bool:
        """Knight in heavy armour who parries, then Armour blocks if the parry fails."""
        return self.knight_armoured and self.c.knight_double and self.can_block

    @property
    def defence_preference(self) -> str:
        """The defence policy in force: a double-defending Knight on ``best`` parries
        first (parry then block beats either alone)."""
        if self.knight_double and self.c.defence_policy == "best":
            return "parry"
        return self.c.defence_policy

    @property
    def shieldman_shield(self) -> bool:
        """The Shieldman's -2 step and shield riposte are in force (5.6 Shieldman)."""
        return self.style.has("shield_step") and self.has_shield

    @property
    def aim_shift(self) -> int:
        """Shift on the Hit Distribution table (5.6 Archer / Bladesman: aim high or low)."""
        return self.c.aim_shift if self.style.aim_doubled else 0

    def step(self, defence: int) -> int:
        """Cumulative defence step for a move of kind ``defence`` (000.5, Shieldman -2)."""
        if self.shieldman_shield and (self.rules.shieldman_step_scope == "all_with_shield"
                                      or uses_shield(defence)):
            return T.SHIELDMAN_STEP
        return T.DEFENCE_STEP

    # --- static parts -------------------------------------------------------------------
    def _skill_mods(self, other: Profile) -> Parts:
        """Modifiers to everything rolled on the style skill (attack, parry, armour block)."""
        c, rules, style = self.c, self.rules, self.style
        out: Parts = []
        if style.skill_mod:
            out.append((f"{c.style} style", style.skill_mod))
        if style.has("heavy_armour") and not self.knight_armoured:
            out.append((f"{c.style} out of heavy armour", -5))
        if style.has("armour_rank_limit") and R.armour_rank(c, rules) > 2:
            out.append((f"{c.style} in armour rank > 2", -5))
        if style.has("shield_step") and not self.has_shield and not self.weapon.two_handed:
            out.append((f"{c.style} without a shield", -5))
        if style.has("hunter") and other.c.animal:
            out.append((f"{c.style} vs animal", 10))
        if self.has_shield and rules.shield_penalty_scope == "all_rolls" and self.shield_mod:
            out.append((f"style with {c.shield} shield", self.shield_mod))
        return out

    def attack_parts(self, target: Profile) -> Parts:
        c = self.c
        out: Parts = [("skill", c.skill)]
        if self.weapon_mod:
            out.append((f"{c.style} with {self.weapon.name}", self.weapon_mod))
        return out + self._attack_mods(target)

    def missile_parts(self, target: Profile) -> Parts:
        """A shot: skill, the style's missile modifier, the aim bonus (000.7, 000.10)."""
        c = self.c
        assert self.missile is not None
        out: Parts = [("skill", c.skill)]
        if self.missile_mod:
            out.append((f"{c.style} with {self.missile.name}", self.missile_mod))
        if self.aim_bonus:
            out.append((f"aimed x{c.aim_actions}", self.aim_bonus))
        return out + self._attack_mods(target)

    def _attack_mods(self, target: Profile) -> Parts:
        c, rules = self.c, self.rules
        out = self._skill_mods(target)
        if self.style.has("horseman") and not c.mounted:
            out.append((f"{c.style} dismounted", -10))
        if c.mounted and not self.style.has("horseman") and rules.mounted_penalty:
            out.append(("mounted, not a horseman", rules.mounted_penalty))
        if c.compat_mod:
            out.append(("style compatibility", c.compat_mod))
        return out

    def parry_parts(self, attacker: Profile, defence: int) -> Parts:
        c, rules = self.c, self.rules
        use_weapon = defence in (WEAPON_PARRY, BOTH_PARRY)
        use_shield = uses_shield(defence)
        out: Parts = [("skill", c.skill)]
        if use_weapon:
            out.append((f"{self.weapon.name} parry", int(self.weapon.parry or 0)))
            if self.weapon_mod:
                out.append((f"{c.style} with {self.weapon.name}", self.weapon_mod))
        if use_shield:
            out.append((f"{c.shield} shield parry", R.shield_parry_bonus(c)))
            if self.shield_mod and rules.shield_penalty_scope == "shield_parries":
                out.append((f"{c.style} with {c.shield} shield", self.shield_mod))
        out += self._skill_mods(attacker)
        if self.style.has("hunter") and attacker.c.animal:
            out.append((f"{c.style} parrying an animal",
                        -10 if rules.hunter_parry_mode == "net_zero" else -20))
        return out

    def dodge_parts(self, attacker: Profile, half: bool = False) -> Parts:
        c, rules = self.c, self.rules
        skill = c.dodge // 2 if half and rules.half_skill_mode == "skill_only" else c.dodge
        out: Parts = [("dodge" + (" at half skill" if skill != c.dodge else ""), skill)]
        if (rules.knight_unarmoured_scope == "all" and self.style.has("heavy_armour")
                and not self.knight_armoured):
            out.append((f"{c.style} out of heavy armour", -5))
        if self.has_shield and rules.shield_penalty_scope == "all_rolls" and self.shield_mod:
            out.append((f"style with {c.shield} shield", self.shield_mod))
        return _halved(out, half and rules.half_skill_mode == "with_mods")

    def block_parts(self, attacker: Profile, half: bool = False) -> Parts:
        c, rules = self.c, self.rules
        skill = c.skill // 2 if half and rules.half_skill_mode == "skill_only" else c.skill
        out: Parts = [("skill" + (" at half" if skill != c.skill else ""), skill),
                      (f"torso armour {c.armour['torso']}",
                       rules.armour_block_ai_mult * c.armour["torso"])]
        free = self.style.has("free_armour_block") or self.knight_armoured
        if not free and rules.armour_block_base_penalty:
            out.append(("armour block", rules.armour_block_base_penalty))
        out += [p for p in self._skill_mods(attacker)
                if not p[0].endswith(" out of heavy armour")
                or rules.knight_unarmoured_scope == "all"]
        return _halved(out, half and rules.half_skill_mode == "with_mods")

    def berserker_parts(self, berserk: bool, defence: int) -> Parts:
        """The Berserker's defence modifiers: -5 on every defensive move in normal mode;
        berserk: parry -10, Armour block -20 (no Dodge), in whatever style (5.6)."""
        normal: Parts = ([(f"{self.c.style} style", -5)] if self.style.has("berserker")
                         else [])
        if not berserk:
            return normal
        if self.rules.berserk_replaces_normal:
            normal = []
        if defence == BLOCK:
            return [("berserk", -20), *normal]
        if defence in PARRIES:
            return [("berserk", -10), *normal]
        return normal

    def attack_total(self, target: Profile) -> int:
        return total(self.attack_parts(target))


def _halved(parts: Parts, halve: bool) -> Parts:
    if not halve:
        return parts
    return [("half of " + " ".join(f"{v:+d}" for _, v in parts), total(parts) // 2)]


def total(parts: Parts) -> int:
    return sum(v for _, v in parts)


def describe(parts: Parts) -> str:
    """``30 skill +5 long sword parry``: a sum a designer can follow."""
    if not parts:
        return "0"
    first, rest = parts[0], parts[1:]
    text = f"{first[1]} {first[0]}"
    for label, value in rest:
        text += f" {value:+d} {label}"
    return text


def profile(c: Combatant, rules: Rules, slot: int = 0, side: int = 0, index: int = 0
            ) -> Profile:
    """The static profile of ``c``, or :class:`SpecError` if it cannot fight so equipped."""
    for field, name, table in (("style", c.style, rules.styles),
                               ("weapon", c.weapon, rules.weapons),
                               ("specialist_weapon", c.specialist_weapon, rules.weapons),
                               ("missile", c.missile, {"none": 0, **rules.missile_weapons})):
        if name not in table:
            raise SpecError(f"strike-rank combatant field '{field}' must be a row of rules "
                            f"'{'styles' if field == 'style' else 'missile_weapons' if field == 'missile' else 'weapons'}'"
                            f" ({', '.join(table)}), got {name!r}")
    problem = R.wield_problem(c, rules) or R.missile_problem(c, rules)
    if problem:
        raise SpecError(problem)
    weapon = rules.weapon(c.weapon)
    style = rules.style(c.style)
    dice, flat = R.initiative_index(c.dexterity, rules.block_rounding)
    types = R.attack_types(c, rules)
    if not types:
        raise SpecError(f"{c.name}: the {weapon.name} allows no attack type")
    if c.attack_policy != "best" and T.ATTACK_TYPES.index(c.attack_policy) not in types:
        raise SpecError(f"{c.name}: attack_policy {c.attack_policy!r} is impossible with a "
                        f"{weapon.name}; allowed: "
                        + ", ".join(T.ATTACK_TYPES[t] for t in types) + ", best")
    return Profile(
        c=c, rules=rules, style=style, slot=slot, side=side,
        label=f"{c.name} [{'AB'[side]}{index + 1}]",
        weapon=weapon, actions=R.actions(c.agility, rules.block_rounding), dice=dice,
        flat=flat, thresholds=R.stage_thresholds(c.endurance, rules),
        death=R.death_ranks(c.endurance), solo=style.group == "solo",
        group=style.group == "group", can_berserk=style.has("berserker") or c.berserker,
        knight_armoured=style.has("heavy_armour") and R.heavy_armour(c),
        weapon_mod=R.style_weapon_mod(c, rules), shield_mod=R.style_shield_mod(c, rules),
        types=types, riposte_damage=R.riposte_damage(c, rules),
        missile=rules.missile(c.missile) if c.missile != "none" and c.missiles else None,
        missile_mod=R.style_missile_mod(c, rules) if c.missile != "none" else 0,
        aim_bonus=R.aim_bonus(c, rules))


def range_phase(ps: Sequence[Profile]) -> int:
    """Range rounds this matchup plays: ``range_rounds`` if anyone has shots and nobody is
    surprised (an ambush starts in contact), else 0 (000.10 DEFAULT)."""
    if not ps or any(p.c.surprised for p in ps) or not any(p.missile for p in ps):
        return 0
    return ps[0].rules.range_rounds


def profiles(rules: Rules, side_a: Sequence[Combatant], side_b: Sequence[Combatant]
             ) -> list[Profile]:
    """Profiles of both sides, slots numbered A first."""
    out: list[Profile] = []
    for side, members in enumerate((side_a, side_b)):
        for i, c in enumerate(members):
            out.append(profile(c, rules, len(out), side, i))
    return out


# --- situation: who else is standing (000.7) ---------------------------------------------------


def side_leader(ps: Sequence[Profile], alive: Sequence[bool], side: int) -> int | None:
    """Slot of the living group-style leader of ``side`` (designated first, else, with
    ``auto_leader``, the first living group-style member), or ``None``."""
    members = [p for p in ps if p.side == side and alive[p.slot] and p.group]
    for p in members:
        if p.c.leader:
            return p.slot
    if members and ps[0].rules.auto_leader:
        return members[0].slot
    return None


def outnumbered(ps: Sequence[Profile], alive: Sequence[bool], i: int) -> bool:
    """Footpad's 'outnumbered' (rule outnumbered_mode)."""
    me = ps[i]
    foes = sum(1 for p in ps if p.side != me.side and alive[p.slot])
    if me.rules.outnumbered_mode == "two_foes":
        return foes >= 2
    return foes > sum(1 for p in ps if p.side == me.side and alive[p.slot])


def situation_parts(ps: Sequence[Profile], alive: Sequence[bool], i: int
                    ) -> tuple[Parts, Parts]:
    """Modifiers from the fighter's company: (to the style skill, to Dodge).

    Solo styles +5 alone (Dodge too), -10 ranked; group styles -5 alone, +rank bonus
    ranked, the leader's Task Assist; Footpad -5 outnumbered (5.6, 000.7).
    """
    me = ps[i]
    rules = me.rules
    allies = [p for p in ps if p.side == me.side and p.slot != i and alive[p.slot]]
    skill: Parts = []
    dodge: Parts = []
    if me.solo:
        if not allies:
            skill.append(("alone (solo style)", 5))
            dodge.append(("alone (solo style)", 5))
        elif me.c.formation == "ranked":
            skill.append(("ranked (solo style)", -10))
            dodge.append(("ranked (solo style)", -10))
    if me.group:
        if not allies:
            skill.append(("alone (group style)", -5))
            if rules.group_alone_penalty_dodge:
                dodge.append(("alone (group style)", -5))
        else:
            if me.c.formation == "ranked" and rules.rank_bonus_group:
                skill.append(("ranked (group style)", rules.rank_bonus_group))
            leader = side_leader(ps, alive, me.side)
            if leader is not None and leader != i and rules.task_assist_bonus:
                skill.append(("leader's Task Assist", rules.task_assist_bonus))
            if leader is None and me.style.has("leaderless") and rules.legionnaire_leaderless:
                skill.append((f"{me.c.style} without a leader", rules.legionnaire_leaderless))
    if me.style.has("footpad") and outnumbered(ps, alive, i):
        skill.append((f"{me.c.style} outnumbered", -5))
    return skill, dodge
