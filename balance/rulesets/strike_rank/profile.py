"""What a fighter brings to a fight before any die is rolled: its static modifiers.

A :class:`Profile` is computed once per combatant per matchup from the combatant, the rules
and (for pair-dependent modifiers such as the Hunter's) the opponent.  Each total is a list
of labelled parts, so the scalar reference can narrate "30 skill +5 long sword parry +5
alone (solo) ..." and the kernel can sum the same parts into lookup tables.  Parts that
change during a fight (situation, wounds, the cumulative defence penalty, berserk, the
swing / blow penalty) are added by the reference and the kernel themselves.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from ...errors import SpecError
from ...language import Modifier
from . import rules as R
from . import tables as T
from .conditions import DUEL_SITUATION, DYNAMIC_FIELDS, fighter_values
from .rules import Combatant, Rules

Part = tuple[str, int]
Parts = list[Part]

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
    second: Profile | None = None
    """The same fighter in its second style: each roll is made in the better one (5.6)."""
    unarmed: Profile | None = None
    """The same fighter with its unarmed move, for ``when_disarmed="fight_unarmed"``."""
    skill_label: str = "skill"
    committed: str | None = None
    """``style_mix="per_fight"``: the style every roll of the fight is made in."""
    fixed: tuple[tuple[str, int], ...] = ()
    """Situation names fixed in this matchup (a duel's head counts), for the rules
    language: a modifier reading only fixed names is folded into the parts."""

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
    def mobile(self) -> bool:
        """Moving tasks (dodges) on the style skill: the Swashbuckler's mobility, lost in
        armour of Armour Rank > 2 (5.6; rule mobility_task)."""
        return (self.style.has("mobility") and self.rules.mobility_task == "dodge_on_skill"
                and R.armour_rank(self.c, self.rules) <= 2)

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

    def _attack_parts(self, target: Profile) -> Parts:
        c = self.c
        out: Parts = [(self.skill_label, c.skill)]
        if self.weapon_mod:
            out.append((f"{c.style} with {self.weapon.name}", self.weapon_mod))
        return out + self._attack_mods(target) + self.static_parts("attack", target)

    def _missile_parts(self, target: Profile) -> Parts:
        """A shot: skill, the style's missile modifier, the aim bonus (000.7, 000.10)."""
        c = self.c
        assert self.missile is not None
        out: Parts = [(self.skill_label, c.skill)]
        if self.missile_mod:
            out.append((f"{c.style} with {self.missile.name}", self.missile_mod))
        if self.aim_bonus:
            out.append((f"aimed x{c.aim_actions}", self.aim_bonus))
        return (out + self._attack_mods(target)
                + self.static_parts("attack", target, weapon=False, missile=True))

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

    def _parry_parts(self, attacker: Profile, defence: int) -> Parts:
        c, rules = self.c, self.rules
        use_weapon = defence in (WEAPON_PARRY, BOTH_PARRY)
        use_shield = uses_shield(defence)
        out: Parts = [(self.skill_label, c.skill)]
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
        return out + self.static_parts("parry", attacker, weapon=use_weapon)

    def _dodge_parts(self, attacker: Profile, half: bool = False, situation: Sequence[Part] = ()
                    ) -> Parts:
        """A Dodge's fixed parts with the ``situation`` parts (alone, wounded, ...); at half
        skill when dodged behind: the Dodge skill halved (``half_skill_mode="skill_only"``)
        or the whole, situation and wounds included (``"with_mods"``)."""
        c, rules = self.c, self.rules
        base, label = c.dodge, "dodge"
        if self.mobile and c.skill > c.dodge:  # a moving task on the style skill (5.6)
            base, label = c.skill, f"{c.style} skill (mobility)"
        skill = base // 2 if half and rules.half_skill_mode == "skill_only" else base
        out: Parts = [(label + (" at half skill" if skill != base else ""), skill)]
        if (rules.knight_unarmoured_scope == "all" and self.style.has("heavy_armour")
                and not self.knight_armoured):
            out.append((f"{c.style} out of heavy armour", -5))
        if self.has_shield and rules.shield_penalty_scope == "all_rolls" and self.shield_mod:
            out.append((f"style with {c.shield} shield", self.shield_mod))
        out += self.static_parts("dodge", attacker)
        return _halved(out + list(situation), half and rules.half_skill_mode == "with_mods")

    def _block_parts(self, attacker: Profile, half: bool = False, situation: Sequence[Part] = ()
                    ) -> Parts:
        """An Armour block's fixed parts with the ``situation`` parts, halved as
        :meth:`dodge_parts` says when dodged behind."""
        c, rules = self.c, self.rules
        skill = c.skill // 2 if half and rules.half_skill_mode == "skill_only" else c.skill
        out: Parts = [(self.skill_label + (" at half" if skill != c.skill else ""), skill),
                      (f"torso armour {c.armour['torso']}",
                       rules.armour_block_ai_mult * c.armour["torso"])]
        free = self.style.has("free_armour_block") or self.knight_armoured
        if not free and rules.armour_block_base_penalty:
            out.append(("armour block", rules.armour_block_base_penalty))
        out += [p for p in self._skill_mods(attacker)
                if not p[0].endswith(" out of heavy armour")
                or rules.knight_unarmoured_scope == "all"]
        out += self.static_parts("armour_block", attacker)
        return _halved(out + list(situation), half and rules.half_skill_mode == "with_mods")

    # --- each roll in the better of the fighter's styles (5.6: styles may be mixed) -------
    def _best(self, parts: Callable[[Profile], Parts]) -> Parts:
        return parts(self.chosen(parts))

    def chosen(self, parts: Callable[[Profile], Parts]) -> Profile:
        """The style profile a roll is made in: the one whose static total is higher (its
        per-fight modifiers then apply, 5.6: styles may be mixed)."""
        if self.second is None:
            return self
        if self.committed is not None:  # style_mix="per_fight"
            return self.second if self.committed == self.second.c.style else self
        if total(parts(self.second)) > total(parts(self)):
            return self.second
        return self

    @property
    def weapon_skill(self) -> int:
        """Attack skill with its weapon, foe aside: the skill, the style's weapon modifier
        and its modifiers that read no foe (``style_mix="per_fight"`` ranks styles by it)."""
        mods = [v for label, v in self._attack_mods(self) if not label.endswith(" vs animal")]
        return self.c.skill + self.weapon_mod + sum(mods)

    def attack_parts(self, target: Profile) -> Parts:
        return self._best(lambda p: p._attack_parts(target))

    def missile_parts(self, target: Profile) -> Parts:
        return self._best(lambda p: p._missile_parts(target))

    def parry_parts(self, attacker: Profile, defence: int) -> Parts:
        return self._best(lambda p: p._parry_parts(attacker, defence))

    def dodge_parts(self, attacker: Profile, half: bool = False,
                    situation: Sequence[Part] = ()) -> Parts:
        return self._best(lambda p: p._dodge_parts(attacker, half, situation))

    def block_parts(self, attacker: Profile, half: bool = False,
                    situation: Sequence[Part] = ()) -> Parts:
        return self._best(lambda p: p._block_parts(attacker, half, situation))

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

    # --- rows in the rules language (conditions.py) ------------------------------------
    @cached_property
    def values(self) -> dict[str, Any]:
        """The fighter's fixed fields as the language reads them."""
        return fighter_values(self)

    @cached_property
    def static_names(self) -> frozenset[str]:
        """Names fixed in this matchup: both fighters' attributes, the fixed situation."""
        fields = [f for f in self.values if f not in DYNAMIC_FIELDS]
        return frozenset([f"self.{f}" for f in fields] + [f"target.{f}" for f in fields]
                         + [k for k, _ in self.fixed])

    def env(self, other: Profile | None) -> dict[str, Any]:
        """The fixed names of ``self`` against ``other`` (``None``: no target names)."""
        out = {f"self.{k}": v for k, v in self.values.items()}
        if other is not None:
            out.update({f"target.{k}": v for k, v in other.values.items()})
        out.update(self.fixed)
        return out

    def is_static(self, m: Modifier) -> bool:
        """Whether ``m`` reads only fixed names and rolls no dice (then it is folded)."""
        from ...language import names_used

        dice = m.amount.has_dice or (m.when is not None and m.when.has_dice)
        return not dice and set(names_used(m)) <= self.static_names

    def rows(self, to: str, *, weapon: bool = True, missile: bool = False,
             style: bool = True) -> tuple[Modifier, ...]:
        """The modifiers on ``to`` of the rows a roll sees: the weapon's (or the missile
        weapon's) and the style's."""
        rules = self.rules
        out: tuple[Modifier, ...] = ()
        if weapon:
            out += rules.language("weapons", self.weapon.name).on(to)
        if missile and self.missile is not None:
            out += rules.language("missile_weapons", self.missile.name).on(to)
        if style:
            out += rules.language("styles", self.c.style).on(to)
        return out

    def static_parts(self, to: str, other: Profile | None, **which: bool) -> Parts:
        """The static modifiers on ``to`` that hold against ``other``, as labelled parts
        (``war pick when target.armour_rank >= 3 (target.armour_rank is 4)``)."""
        rows = [m for m in self.rows(to, **which) if self.is_static(m)]
        if not rows:
            return []
        env = self.env(other)
        out: Parts = []
        for m in rows:
            amount, line = m.read(env)
            if line is not None and amount:
                out.append((_label(m, env), amount))
        return out

    def dynamic_rows(self, to: str, **which: bool) -> tuple[Modifier, ...]:
        """The modifiers on ``to`` evaluated per fight (each roll, or each round)."""
        return tuple(m for m in self.rows(to, **which) if not self.is_static(m))

    def damage_parts(self, target: Profile, *, missile: bool = False) -> Parts:
        """Static modifiers to the damage of a hit on ``target`` (the weapon in hand, or
        the missile weapon, and the style)."""
        return self.static_parts("damage", target, weapon=not missile, missile=missile)

    @cached_property
    def strike_rank_mod(self) -> int:
        """Static modifiers to the Strike Rank (no target names: see conditions.py)."""
        return total(self.static_parts("strike_rank", None))


def _label(m: Modifier, env: Mapping[str, Any]) -> str:
    """A folded modifier's label in a sum: its name and why it holds."""
    if m.when is None:
        return m.name
    return f"{m.name} when {m.when.narrate(env)}"


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


_TABLE_OF = {"style": "styles", "second_style": "styles", "weapon": "weapons",
             "specialist_weapon": "weapons", "missile": "missile_weapons"}


def profile(c: Combatant, rules: Rules, slot: int = 0, side: int = 0, index: int = 0,
            fixed: tuple[tuple[str, int], ...] = ()) -> Profile:
    """The static profile of ``c``, or :class:`SpecError` if it cannot fight so equipped."""
    for field, name, table in (("style", c.style, rules.styles),
                               ("second_style", c.second_style, {"none": 0, **rules.styles}),
                               ("weapon", c.weapon, rules.weapons),
                               ("specialist_weapon", c.specialist_weapon, rules.weapons),
                               ("missile", c.missile, {"none": 0, **rules.missile_weapons})):
        if name not in table:
            raise SpecError(f"strike-rank combatant field '{field}' must be a row of rules "
                            f"'{_TABLE_OF[field]}'"
                            f" ({', '.join(table)}), got {name!r}")
    problem = R.wield_problem(c, rules) or R.missile_problem(c, rules)
    if problem:
        raise SpecError(problem)
    weapon = rules.weapon(c.weapon)
    style = rules.style(c.style)
    if c.untrained:
        if not style.has("natural"):
            raise SpecError(f"{c.name}: only a style everyone can perform (Brawling, "
                            f"Skirmisher) is fought untrained, not {c.style} (field "
                            "'untrained', 5.6)")
        c = dataclasses.replace(c, skill=0)  # the natural skill is rolled each fight
    dice, flat = R.initiative_index(c.dexterity, rules.block_rounding)
    types = R.attack_types(c, rules)
    if not types:
        raise SpecError(f"{c.name}: the {weapon.name} allows no attack type")
    if c.attack_policy != "best" and T.ATTACK_TYPES.index(c.attack_policy) not in types:
        raise SpecError(f"{c.name}: attack_policy {c.attack_policy!r} is impossible with a "
                        f"{weapon.name}; allowed: "
                        + ", ".join(T.ATTACK_TYPES[t] for t in types) + ", best")
    second = unarmed = None
    label = "skill"
    if c.second_style != "none":
        if c.untrained:
            raise SpecError(f"{c.name}: an untrained fighter (field 'untrained') knows no "
                            "second style")
        if c.second_style == c.style:
            raise SpecError(f"{c.name}: field 'second_style' names its first style {c.style!r}")
        label = f"{c.style} skill"
        second = profile(dataclasses.replace(c, style=c.second_style, skill=c.second_skill,
                                             second_style="none", untrained=False,
                                             when_disarmed="recover"),
                         rules, slot, side, index, fixed)
        second = dataclasses.replace(second, skill_label=f"{c.second_style} skill")
    if c.when_disarmed == "fight_unarmed":
        move = rules.weapon(c.unarmed_move) if c.unarmed_move in rules.weapons else None
        if move is None or move.kind != "unarmed":
            raise SpecError("strike-rank combatant field 'unarmed_move' must be an unarmed "
                            "row of rules 'weapons' ("
                            + ", ".join(n for n, w in rules.weapons.items()
                                        if w["kind"] == "unarmed") + f"), got {c.unarmed_move!r}")
        unarmed = profile(dataclasses.replace(c, weapon=c.unarmed_move, attack_policy="best",
                                              when_disarmed="recover"), rules, slot, side, index,
                          fixed)
    out = Profile(
        c=c, rules=rules, style=style, slot=slot, side=side, second=second, unarmed=unarmed,
        skill_label=label, fixed=fixed,
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
    if second is not None and rules.style_mix == "per_fight":
        # one style the whole fight, unarmed too: the better with its weapon (first on a tie)
        committed = c.second_style if second.weapon_skill > out.weapon_skill else c.style
        out = dataclasses.replace(out, committed=committed, unarmed=None if unarmed is None
                                  else dataclasses.replace(unarmed, committed=committed))
    return out


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
    fixed = matchup_fixed(side_a, side_b)
    for side, members in enumerate((side_a, side_b)):
        for i, c in enumerate(members):
            out.append(profile(c, rules, len(out), side, i, fixed))
    return out


def matchup_fixed(side_a: Sequence[object], side_b: Sequence[object]
                  ) -> tuple[tuple[str, int], ...]:
    """Situation names fixed in a matchup: a duel's head counts (none in a group fight)."""
    return tuple(DUEL_SITUATION.items()) if len(side_a) == len(side_b) == 1 else ()


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
