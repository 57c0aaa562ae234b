"""Seed 003 (the diceless "Courts" system of *Worlds Within Worlds*) as data: tables, fields,
and the small pure formulas every implementation shares.

Every table cites the seed text or the digest entry (``../shared/rules/003-pool.md``) it
comes from.  Tags: TEXT (the seed says it), SRC (the identified source), AMBIG (a chosen
reading), DEFAULT (a gap filled).

Vocabulary used throughout the package
--------------------------------------
* **base attack** of a fighter: Co-ordination + Combat + Misc (+ ``status_in_checks`` x
  Status); **base defence**: Fortitude + Combat + Misc (+ the same Status term) (003.2).
* **lead** of an exchange: base attack of the attacker - base defence of the defender.  An
  attack hits iff ``lead + a - d (+ dice difference) > 0``: the attack must *beat* the
  defence, equal is a miss (003.2, SRC basics page).
* **health** of a fighter: its Wound Points plus its armour's Wound Points.  Damage comes off
  the armour first (003.2), so the pair (armour WP, WP) is always determined by health:
  armour WP = max(0, health - full WP), WP = min(health, full WP).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from ...errors import SpecError
from ...fields import Table, check_fields, param
from ...language import Name, Names, Vocabulary
from ..house import house_rules_param, read

__all__ = [
    "ARMOUR_WP",
    "BID_PROTOCOLS",
    "POOL_POLICIES",
    "RANDOMISERS",
    "STAT_RANGES",
    "TURN_POLICIES",
    "WEAPON_DAMAGE",
    "Combatant",
    "Profile",
    "Rules",
    "apply_damage",
    "can_possibly_hit",
    "check_stats",
    "combat_pool",
    "die_range",
    "failure_damage",
    "hits",
    "keeps_guard",
    "margin_bonus",
    "may_aid",
    "order_groups",
    "profile",
    "strength_modifier",
    "turn_value",
    "vocabulary",
]

# 003.4 "Weapon damage" [DEFAULT]: the seed says damage is fixed by weapon type (003.2) but
# gives no values.  Unarmed may be 0 (003.3 #6), leaving only the strength modifier.
WEAPON_DAMAGE = {"unarmed": 0, "knife": 2, "sword": 3, "axe": 3, "mace": 3, "spear": 3,
                 "two_handed": 5, "bow": 3}

# 003.4 "Armour WP" [DEFAULT]: armour is an extra Wound Point buffer, no per-hit reduction.
ARMOUR_WP = {"none": 0, "light": 4, "medium": 8, "heavy": 12}

# 003.4 "Stat scales" [DEFAULT]: Co, Fort, Int 1-10 (human average 4); Combat 0-6; Status 0-5.
STAT_RANGES = {"coordination": "1..10", "intellect": "1..10", "fortitude": "1..10",
               "combat": "0..6", "status": "0..5"}

# 003.3 #2: when pool spending is declared.
BID_PROTOCOLS = ("sealed", "attacker_first", "defender_first")

# 003.4 "Pool-spending policy" [DEFAULT], plus the solver's equilibrium.  Every policy reads
# the base values and the pools only; it does not anticipate the randomiser's dice.
#   minimal_sure_hit  attacking: spend exactly enough to beat the defence even if the
#                     defender spends all it has left (or, told the defender's bid, enough
#                     to beat that); 0 if that is unaffordable or unnecessary.  Defending:
#                     the mirror, exactly enough to block the attacker's best (or told)
#                     attack, else 0.
#   all_in_first      spend the whole remaining pool on every check (so: all on the first).
#   save_for_defence  never spend on attack; defending, spend what it takes to block the
#                     attacker's best attack, as much of it as the pool allows (told the
#                     attack: exactly enough if affordable, else nothing).
#   random_mixed      spend a uniformly random amount from 0 to the remaining pool.
#   equilibrium       sample the bid from the exact solver's equilibrium strategy in the
#                     current state (informed bidders use the solver's best response).
POOL_POLICIES = ("minimal_sure_hit", "all_in_first", "save_for_defence", "random_mixed",
                 "equilibrium")

# 003.2 step 3 "the first character to act should then declare what they are doing and the
# ST will determine if it is appropriate and how that action is to be resolved": turns that
# are not attacks [DEFAULT readings, with the rules' full_defence_bonus and aid_bonus].
# "Cannot hit" is "cannot possibly hit": base attack + aid held + whole pool + best die
# (+ house rules at their best) does not beat the target's base defence + full defence +
# worst die.  Aid goes to the soonest ally (after the aider, so before the aider's next
# turn) who will attack on its next turn, as its policy reads the fight now (counting the
# aid); with no such ally none is given.  Aid lapses at the end of the aided ally's turn.
#   attack               attack the target every turn (the seed's "usually"); but under
#                        margin_failure_damage, where it cannot hit (a miss can only cost
#                        it), aid an ally who will attack, else declare full defence
#   attack_always        attack the target every turn, whatever a miss costs (the exact
#                        game's turn)
#   defend_if_no_hit     full defence (no attack; + full_defence_bonus to every defence
#                        until its next turn) when it cannot hit its target
#   aid_if_no_hit        aid (no attack; the ally gets + aid_bonus on its next attack) when
#                        it cannot hit its target and an ally will attack (else as attack)
#   full_defence         full defence every turn
#   aid                  aid every turn while an ally will attack (else as attack)
TURN_POLICIES = ("attack", "attack_always", "defend_if_no_hit", "aid_if_no_hit",
                 "full_defence", "aid")


def may_aid(turn_policy: str, rules: Rules) -> bool:
    """Whether a fighter of this ``turn_policy`` may aid an ally (the stalemate test counts
    the aid a standing ally may still give)."""
    return (turn_policy in ("aid", "aid_if_no_hit")
            or (turn_policy == "attack" and rules.margin_failure_damage))


def keeps_guard(turn_policy: str, rules: Rules, side_policies: Sequence[str]) -> bool:
    """Whether a fighter of this ``turn_policy`` in full defence declares it again on its
    next turn whenever nobody can hit (so the stalemate test counts full_defence_bonus):
    always for full_defence and defend_if_no_hit; under margin_failure_damage also for the
    policies that decline a hopeless attack, unless an ally who always attacks could take
    its aid instead (``side_policies``: the turn policies of its side)."""
    if turn_policy in ("full_defence", "defend_if_no_hit"):
        return True
    return (rules.margin_failure_damage and turn_policy in ("attack", "aid", "aid_if_no_hit")
            and "attack_always" not in side_policies)


# 003.4 "Randomness for Monte Carlo": optional house-rule randomiser, one die on every check.
RANDOMISERS = ("1d6", "1d10")

STATS = ("coordination", "intellect", "fortitude", "combat", "status")


@dataclass(frozen=True, kw_only=True)
class Combatant:
    """One fighter of seed 003."""

    _owner: ClassVar[str] = "pool combatant"

    name: str = param("fighter", tag="TEXT", doc="display name in logs and tables")
    coordination: int = param(4, tag="DEFAULT", low=0, high=99,
                              doc="Co-ordination: Turn Value, pool, attack, strength "
                                  "modifier (003.1; scale 1-10, average 4 by stat_ranges)")
    intellect: int = param(4, tag="DEFAULT", low=0, high=99,
                           doc="Intellect: only feeds the Combat Pool (003.1; scale 1-10)")
    fortitude: int = param(4, tag="DEFAULT", low=0, high=99,
                           doc="Fortitude: defence, and Wound Points by wp_per_fortitude "
                               "(003.1; scale 1-10)")
    combat: int = param(2, tag="DEFAULT", low=0, high=99,
                        doc="the catch-all Combat ability: attack, defence, tie-break "
                            "(003.1; scale 0-6)")
    status: int = param(0, tag="DEFAULT", low=0, high=99,
                        doc="Status: subtracted from Turn Value, lower wins ties (003.1; "
                            "scale 0-5); in checks only by status_in_checks")
    misc_turn: int = param(0, tag="TEXT", low=-99, high=99,
                           doc="Misc modifier to Turn Value (Talents, Abilities, Resources, "
                               "ST fiat; 003.2)")
    misc_attack: int = param(0, tag="TEXT", low=-99, high=99,
                             doc="Misc modifier to the attack check (003.2)")
    misc_defence: int = param(0, tag="TEXT", low=-99, high=99,
                              doc="Misc modifier to the defence check (003.2)")
    weapon: str = param("sword", tag="DEFAULT", choices=tuple(WEAPON_DAMAGE),
                        doc="weapon type; its damage is the rules' weapon_damage table "
                            "(003.4)")
    armour: str = param("none", tag="DEFAULT", choices=tuple(ARMOUR_WP),
                        doc="armour; its Wound Points are the rules' armour_wp table (003.4)")
    wound_points: int | None = param(None, tag="DEFAULT", low=1, high=999,
                                     doc="starting Wound Points; none = wp_per_fortitude x "
                                         "Fortitude (003.4 wp_formula)")
    pool_policy: str = param("minimal_sure_hit", tag="DEFAULT", choices=POOL_POLICIES,
                             doc="how this fighter spends its Combat Pool in Monte Carlo and "
                                 "the reference (003.4); exact plays the equilibrium unless "
                                 "exact_play=policies", policy=True)

    # best play searches turn_policy over its choices (the exact game holds every kind of
    # turn, issue 24); withdraw_at is a threshold in a fighter's own Wound Points, searched
    # only when a search names values (exact best play over the states chooses withdrawal
    # state by state anyway)
    turn_policy: str = param("attack", tag="DEFAULT", choices=TURN_POLICIES,
                             doc="what this fighter declares on its turn: attack (but not "
                                 "a hopeless attack a miss makes costly), attack_always, or "
                                 "full defence / aid, always or when it cannot possibly hit "
                                 "its target (003.2 step 3)", policy=True)
    withdraw_at: int = param(0, tag="DEFAULT", low=0, high=999,
                             doc="withdraw from the fight (its turn, instead of acting) once "
                                 "its WP are at or below this; 0 = never (003.2 step 3)",
                             policy=True, search=())

    def __post_init__(self) -> None:
        check_fields(self)


def _check_range_text(text: str) -> tuple[int, int] | None:
    low, sep, high = str(text).partition("..")
    try:
        lo, hi = int(low), int(high)
    except ValueError:
        return None
    return (lo, hi) if sep and lo <= hi else None


@dataclass(frozen=True, kw_only=True)
class Rules:
    """The rule parameters of seed 003, each with its provenance tag."""

    _owner: ClassVar[str] = "pool rules"

    bid_protocol: str = param("sealed", tag="AMBIG", choices=BID_PROTOCOLS,
                              doc="when pool spending is declared: both in secret (sealed), "
                                  "the attacker first, or the defender first (003.3 #2)")
    str_mod_stat: str = param("coordination", tag="AMBIG",
                              choices=("coordination", "fortitude", "intellect", "combat"),
                              doc="stat behind the damage 'strength' modifier; the seed says "
                                  "Co-ordination (003.3 #1)")
    str_mod_divisor: int = param(3, tag="TEXT", low=1, high=20,
                                 doc="strength modifier = floor(stat / this) (003.2)")
    tv_final_tiebreak: str = param("random", tag="DEFAULT", choices=("random", "listed"),
                                   doc="Turn Value ties left after Co, Combat and Status: a "
                                       "seeded coin, or the listed order (side A first) (003.3 #3)")
    status_in_checks: int = param(0, tag="DEFAULT", low=-5, high=5,
                                  doc="Status points added (per point) to attack and defence "
                                      "checks; 0 = Status only in Turn Value (003.3 #5)")
    margin_damage: bool = param(False, tag="DEFAULT",
                                doc="a hit deals + floor(margin / 2) extra damage (003.4, "
                                    "the seed's optional margin rule)")
    margin_failure_damage: bool = param(False, tag="DEFAULT",
                                        doc="a miss by a margin of failure m (defence - "
                                            "attack) deals floor(m / 2) damage to the "
                                            "attacker: the seed's note on the margin of "
                                            "failure (003.2)")
    full_defence_bonus: int = param(2, tag="DEFAULT", low=0, high=20,
                                    doc="full defence: added to every defence of the fighter "
                                        "until its next turn (turn_policy; 003.2 step 3)")
    aid_bonus: int = param(2, tag="DEFAULT", low=0, high=20,
                           doc="aid: added to the aided ally's next attack (turn_policy; "
                               "003.2 step 3)")
    randomiser: str | None = param(None, tag="DEFAULT", choices=RANDOMISERS,
                                   doc="house-rule randomiser: one die added to every check "
                                       "(none = canon, diceless) (003.4)")
    wp_per_fortitude: int = param(3, tag="DEFAULT", low=1, high=50,
                                  doc="Wound Points = this x Fortitude unless the fighter "
                                      "sets wound_points (003.4 wp_formula)")
    down_at: int = param(0, tag="DEFAULT", low=0, high=50,
                         doc="a fighter whose WP fall to this or below is out of the fight "
                             "(003.4)")
    weapon_damage: Table = param(
        WEAPON_DAMAGE, tag="DEFAULT", low=0, high=50, doc="fixed damage by weapon type (003.4)")
    armour_wp: Table = param(
        ARMOUR_WP, tag="DEFAULT", low=0, high=100,
        doc="the armour's own Wound Points, a buffer taken first (003.4)")
    stat_ranges: Table = param(
        STAT_RANGES, tag="DEFAULT",
        doc="allowed stat values, 'low..high' per stat (003.4 stat scales)")
    stalemate_rounds: int = param(2, tag="DEFAULT", low=1, high=100,
                                  doc="draw once nobody can possibly hit (base + pool + best "
                                      "die <= opposing base + worst die) for this many full "
                                      "rounds (003.4)")
    max_rounds: int = param(50, tag="DEFAULT", low=1, high=10_000,
                            doc="rounds after which the fight is a draw (003.4)")
    target_policy: str = param("lowest_wp", tag="DEFAULT", choices=("lowest_wp", "first"),
                               doc="whom an attacker in a group fight strikes: the living foe "
                                   "with the fewest WP, or the first listed (003.4)", policy=True)
    draw_worth: float = param(0.5, tag="DEFAULT", low=0.0, high=1.0,
                              doc="exact solver's objective: side A maximises P(A wins) + "
                                  "this x P(draw); 0.5 is maximising P(A) - P(B)")
    exact_play: str = param("equilibrium", tag="DEFAULT", choices=("equilibrium", "policies"),
                            doc="what `exact` computes: the game's equilibrium (pool_policy "
                                "ignored) or the exact outcome of every pool_policy")
    # pool has no content rows to hang a modifier on (weapon and armour tables of one
    # number each): a designer's mechanics are rows of their own (balance.rulesets.house)
    house_rules: Table = house_rules_param("pool", "attack, defence, damage",
                                               "hit, miss")

    def __post_init__(self) -> None:
        check_fields(self)
        if self.house_rules:  # compiled now: a mistake is refused before any fight runs
            read(vocabulary(), self.house_rules)
        if set(self.stat_ranges) != set(STATS):
            raise SpecError(f"pool rules field 'stat_ranges' needs the keys {', '.join(STATS)}")
        for stat, text in self.stat_ranges.items():
            if _check_range_text(text) is None:
                raise SpecError(f"pool rules field 'stat_ranges.{stat}' must be 'low..high' "
                                f"with integers low <= high, got {text!r}")

    def stat_range(self, stat: str) -> tuple[int, int]:
        """The inclusive range allowed for ``stat``."""
        bounds = _check_range_text(self.stat_ranges[stat])
        assert bounds is not None
        return bounds

    @property
    def die_sides(self) -> int:
        """Sides of the randomiser die (0: no randomiser)."""
        return 0 if self.randomiser is None else int(self.randomiser.removeprefix("1d"))


def check_stats(c: Combatant, rules: Rules, where: str) -> None:
    """Raise :class:`SpecError` if a stat of ``c`` is outside ``rules.stat_ranges``."""
    for stat in STATS:
        lo, hi = rules.stat_range(stat)
        value = getattr(c, stat)
        if not lo <= value <= hi:
            raise SpecError(f"{where}: pool combatant field '{stat}' must be in {lo}..{hi} "
                            f"(rules stat_ranges), got {value}")


# --- the seed's formulas ---------------------------------------------------------------------


def turn_value(c: Combatant) -> int:
    """Turn Value = Co-ordination - Status + Misc (003.2)."""
    return c.coordination - c.status + c.misc_turn


def combat_pool(c: Combatant) -> int:
    """Combat Pool = floor((Co-ordination + Intellect) / 2), for the whole fight (003.2)."""
    return (c.coordination + c.intellect) // 2


def strength_modifier(c: Combatant, rules: Rules) -> int:
    """The damage 'strength' modifier: floor(Co-ordination / 3) as written (003.2, 003.3 #1)."""
    return getattr(c, rules.str_mod_stat) // rules.str_mod_divisor


def hits(attack: int, defence: int) -> bool:
    """The attacker must *beat* the defence; equal is a miss (003.2, SRC basics)."""
    return attack > defence


def apply_damage(armour_wp: int, wound_points: int, damage: int) -> tuple[int, int]:
    """Take ``damage`` from the armour's Wound Points first, the overflow from the wearer's.

    Returns the new ``(armour_wp, wound_points)`` (003.2, 003.3 #7).
    """
    absorbed = min(armour_wp, damage)
    return armour_wp - absorbed, wound_points - (damage - absorbed)


def order_key(c: Combatant) -> tuple[int, int, int, int]:
    """Sort key of the turn order: higher TV, then higher Co, higher Combat, lower Status."""
    return (-turn_value(c), -c.coordination, -c.combat, c.status)


def order_groups(fighters: tuple[Combatant, ...]) -> list[list[int]]:
    """Indices of ``fighters`` in turn order, grouped where every tie-break is equal (003.2).

    A group of more than one is ordered by ``tv_final_tiebreak`` (the ST's call).
    """
    keys = sorted(range(len(fighters)), key=lambda i: (order_key(fighters[i]), i))
    groups: list[list[int]] = []
    for i in keys:
        if groups and order_key(fighters[groups[-1][0]]) == order_key(fighters[i]):
            groups[-1].append(i)
        else:
            groups.append([i])
    return groups


@dataclass(frozen=True)
class Profile:
    """The numbers one fighter brings to a fight under given rules (all implementations
    read these, so the formulas live in one place)."""

    name: str
    side: int
    """0 for side A, 1 for side B."""
    attack: int
    """base attack: Co + Combat + Misc (+ Status term)."""
    defence: int
    """base defence: Fort + Combat + Misc (+ Status term)."""
    pool: int
    wound_points: int
    armour_wp: int
    damage: int
    """damage of a hit before the margin option: weapon + strength modifier."""
    policy: str
    turn_policy: str = "attack"
    withdraw_at: int = 0

    @property
    def health(self) -> int:
        """Wound Points plus the armour's: the track damage comes off (003.2)."""
        return self.wound_points + self.armour_wp


def profile(c: Combatant, rules: Rules, side: int) -> Profile:
    """The :class:`Profile` of ``c`` fighting for ``side`` (0 = A, 1 = B)."""
    status = rules.status_in_checks * c.status
    wp = c.wound_points if c.wound_points is not None else rules.wp_per_fortitude * c.fortitude
    return Profile(
        name=c.name, side=side,
        attack=c.coordination + c.combat + c.misc_attack + status,
        defence=c.fortitude + c.combat + c.misc_defence + status,
        pool=combat_pool(c), wound_points=wp, armour_wp=int(rules.armour_wp[c.armour]),
        damage=int(rules.weapon_damage[c.weapon]) + strength_modifier(c, rules),
        policy=c.pool_policy, turn_policy=c.turn_policy, withdraw_at=c.withdraw_at)


def margin_bonus(rules: Rules, margin: Any) -> Any:
    """Extra damage of a hit by ``margin`` under the margin option: floor(margin / 2)."""
    return margin // 2 if rules.margin_damage else 0


def failure_damage(rules: Rules, margin: Any) -> Any:
    """Damage the attacker takes from a miss by ``margin`` (defence - attack >= 0) under
    ``margin_failure_damage``: floor(margin / 2) (003.2's note: "the margin of success or
    failure may have repercussions on strike resolution")."""
    return margin // 2 if rules.margin_failure_damage else 0


def die_range(rules: Rules) -> tuple[int, int]:
    """Lowest and highest roll of the randomiser die, (0, 0) without one."""
    sides = rules.die_sides
    return (1, sides) if sides else (0, 0)


def can_possibly_hit(attacker: Profile, pool: int, defender: Profile, rules: Rules) -> bool:
    """Whether ``attacker`` with ``pool`` left could beat ``defender``'s base defence at all.

    The stalemate test of 003.4: base + remaining pool (+ the best die) must exceed the
    opposing base (+ the worst die); the defender's own pool is not counted.
    """
    low, high = die_range(rules)
    return attacker.attack + pool + high > defender.defence + low


# --- the rules language: what house rules may read and change (issue 21) -----------
MAX_WP = 50 * 99
"""The most Wound Points a fighter can have (wp_per_fortitude up to 50, Fortitude to 99)."""

FIGHTER_NAMES: dict[str, Name] = {
    **{stat: Name(int, range=(0, 99), tag="TEXT", doc=f"{stat.replace('_', '-')} (003.1)")
       for stat in STATS},
    "weapon": Name(str, choices=tuple(WEAPON_DAMAGE), tag="DEFAULT", doc="weapon type"),
    "armour": Name(str, choices=tuple(ARMOUR_WP), tag="DEFAULT", doc="armour worn"),
    "wound_points": Name(int, range=(1, MAX_WP), tag="TEXT",
                         doc="Wound Points now (above down_at: the fighter stands)"),
    "max_wound_points": Name(int, range=(1, MAX_WP), tag="DEFAULT",
                             doc="Wound Points at the start (003.4 wp_formula)"),
    "armour_wp": Name(int, range=(0, 100), tag="TEXT", doc="the armour's Wound Points now"),
    "pool": Name(int, range=(0, 99), tag="TEXT", doc="Combat Pool points left (003.2)"),
    "max_pool": Name(int, range=(0, 99), tag="TEXT",
                     doc="Combat Pool at the start: floor((Co + Int) / 2) (003.2)"),
}
SITUATION_NAMES: dict[str, Name] = {
    "round": Name(int, range=(1, 10_000), tag="TEXT", doc="the round, from 1"),
    "foes_standing": Name(int, range=(1, 6), tag="TEXT",
                          doc="foes of the fighter still in the fight (1 in a duel)"),
    "allies_standing": Name(int, range=(0, 5), tag="TEXT",
                            doc="the fighter's allies still in the fight (0 in a duel)"),
}
TARGETS = {"attack": "the attack check: Co + Combat + Misc (003.2)",
           "defence": "the defence check: Fort + Combat + Misc (003.2)",
           "damage": "a hit's damage: weapon + strength modifier (003.2), at least 0"}
STATE_NAMES = frozenset({"wound_points", "armour_wp", "pool"})
"""Fighter names a fight changes (the exact game's state holds them)."""

OUTCOMES = {"hit": "the attack beat the defence (003.2), after its damage; self is the "
                   "attacker, target the defender",
            "miss": "the attack did not beat the defence, after any margin-of-failure "
                    "damage; self is the attacker, target the defender"}
STATES = {"pool": Name(int, range=(0, 99), tag="TEXT",
                       doc="Combat Pool points left (a value of 0 drains it)"),
          "armour_wp": Name(int, range=(0, 100), tag="TEXT",
                            doc="the armour's Wound Points left (0: the armour is spent)")}
"""What an effect may set (``set = ...``): the fight's own state, as a fighter's names
read it."""


@functools.cache
def vocabulary() -> Vocabulary:
    """pool's vocabulary (built once)."""
    names = Names.for_fighters(FIGHTER_NAMES) | Names(SITUATION_NAMES)
    return Vocabulary(names, targets=TARGETS, outcomes=OUTCOMES, states=STATES)
