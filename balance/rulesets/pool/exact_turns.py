"""Turns that are not attacks in the exact game (issue 24): full defence, aid, withdrawal.

A fighter's turn is one of a few *kinds*, coded as one integer per state: ``j >= 0``
attacks fighter ``j``; :data:`DEFEND` declares full defence (``full_defence_bonus`` to
every defence until its next turn); :data:`WITHDRAW` leaves the fight (its health index
becomes 0, "out": a side that has all left loses); ``aid_kind(g)`` aids ally ``g``
(``aid_bonus`` on its next attack).  The core holds what these leave behind: a *guard* bit
per fighter who may declare full defence and an *aid* count per fighter who may be aided
(:class:`Flags`), so the game stays Markov.

With the fighters' own ``turn_policy`` / ``withdraw_at`` (:func:`fixed_kinds`) the kind of
every state is the kernel's decision read from the state (``kernel._Fights.turn`` and
``other_turn``: a hopeless attack declined under ``margin_failure_damage``, aid to the
soonest ally who will attack, withdrawal at or below ``withdraw_at``).  Under best play
(:func:`options`) the actor's side chooses among every kind, state by state.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .rules import Profile, Rules, die_range, keeps_guard, may_aid

if TYPE_CHECKING:
    from .exact import Space, TurnOrder

DEFEND, WITHDRAW = -1, -2
"""Kinds of turn that are not attacks (an attack on ``j`` is ``j``; aid to ``g``:
:func:`aid_kind`)."""


def aid_kind(g: int) -> int:
    """The kind of a turn that aids ally ``g``."""
    return -3 - g


def aided_ally(kind: int) -> int:
    """The ally an aid turn of this ``kind`` helps."""
    return -3 - kind


KIND_CLASSES = ("attack", "full defence", "aid", "withdrawal")


def kind_class(kind: int) -> str:
    """The class of a kind of turn: one of :data:`KIND_CLASSES`."""
    if kind >= 0:
        return "attack"
    return {DEFEND: "full defence", WITHDRAW: "withdrawal"}.get(kind, "aid")


def describe(kind: int, names: Sequence[str]) -> str:
    """``"attacks B"``, ``"full defence"``, ``"aids A2"``, ``"withdraws"``."""
    if kind >= 0:
        return f"attacks {names[kind]}"
    if kind == DEFEND:
        return "full defence"
    if kind == WITHDRAW:
        return "withdraws"
    return f"aids {names[aided_ally(kind)]}"


@dataclass(frozen=True)
class Flags:
    """Which fighters the core gives a guard bit and an aid count, and how it reads them.

    ``guard[f]``: ``f`` may declare full defence (and the bonus is not 0); ``helpers[f]``:
    the allies who may aid ``f`` (its aid count runs 0..len); ``choose``: best play (every
    kind open to every fighter)."""

    guard: tuple[bool, ...]
    helpers: tuple[tuple[int, ...], ...]
    choose: bool

    @classmethod
    def of(cls, rules: Rules, profiles: Sequence[Profile], choose: bool, house_high: int = 0
           ) -> Flags:
        """The flags the fight can raise: under best play every one; under fixed policies
        only those a fighter's policy can declare in some state (:func:`_hopeless`)."""
        k = len(profiles)
        if choose:
            mates = [tuple(g for g in range(k) if g != f and profiles[g].side == p.side)
                     for f, p in enumerate(profiles)]
            return cls(tuple(bool(rules.full_defence_bonus) for _ in profiles),
                       tuple(m if rules.aid_bonus else () for m in mates), True)
        hopeless = _hopeless(rules, profiles, house_high)
        mfd = rules.margin_failure_damage
        gives = [p.turn_policy == "aid" or (hopeless[f] and (
            p.turn_policy == "aid_if_no_hit" or (mfd and p.turn_policy == "attack")))
            for f, p in enumerate(profiles)]
        guard: list[bool] = []
        helpers: list[tuple[int, ...]] = []
        for f, p in enumerate(profiles):
            guard.append(bool(rules.full_defence_bonus) and _may_defend(rules, p, hopeless[f]))
            takes = p.turn_policy not in ("full_defence", "aid")
            givers = tuple(g for g in range(k) if g != f and profiles[g].side == p.side
                           and gives[g])
            helpers.append(givers if rules.aid_bonus and takes else ())
        return cls(tuple(guard), tuple(helpers), False)

    def dims(self) -> list[int]:
        """The sizes of the flag dimensions of the core (after health and pools)."""
        return ([2 for g in self.guard if g] + [len(h) + 1 for h in self.helpers if h])


def _may_defend(rules: Rules, p: Profile, hopeless: bool) -> bool:
    """Whether a fighter of ``p``'s turn policy can declare full defence, given whether it
    can ever face a target it cannot hit."""
    policy = p.turn_policy
    return policy == "full_defence" or (hopeless and (
        policy == "defend_if_no_hit"
        or (rules.margin_failure_damage and policy in ("attack", "aid", "aid_if_no_hit"))))


def _hopeless(rules: Rules, profiles: Sequence[Profile], house_high: int) -> list[bool]:
    """Per fighter: whether some state can leave it unable to hit some foe (no pool, no
    aid, the house rules at their best for it, the foe in full defence where the foe may
    declare it): a fixed point, since a foe's full defence can make a fighter hopeless."""
    low, high = die_range(rules)
    k = len(profiles)
    hopeless = [False] * k
    while True:
        guard = [_may_defend(rules, p, hopeless[f]) for f, p in enumerate(profiles)]
        new = [any(p.attack + high + house_high
                   <= q.defence + low + rules.full_defence_bonus * guard[j]
                   for j, q in enumerate(profiles) if q.side != p.side)
               for p in profiles]
        if new == hopeless:
            return hopeless
        hopeless = new


# --- the stalemate test with the flags --------------------------------------------------------


def can_hit(space: Space) -> np.ndarray:
    """Per core: someone can still possibly hit (the kernel's ``threat``: every defence
    that applies and every aid that may come counted).  Under best play a guard may be
    dropped and every ally may aid, so only the aid is counted."""
    rules, flags = space.rules, space.flags
    low, high = die_range(rules)
    alive = space.h_idx > 0
    policies = [p.turn_policy for p in space.profiles]
    out = np.zeros(space.n_cores, bool)
    every = np.arange(space.n_cores)
    for i, j in space.pairs:
        if not flags.choose and policies[i] == "full_defence":
            continue  # it never attacks
        helpers = [g for g in range(space.k) if g != i and space.side[g] == space.side[i]
                   and (flags.choose or may_aid(policies[g], rules))] if rules.aid_bonus else []
        aid = (space.aided[:, i].astype(np.int64) * rules.aid_bonus
               + rules.aid_bonus * alive[:, helpers].sum(axis=1))
        mates = [policies[g] for g in range(space.k) if space.side[g] == space.side[j]]
        kept = not flags.choose and keeps_guard(policies[j], rules, mates)
        guard = space.guard[:, j].astype(np.int64) * rules.full_defence_bonus if kept else 0
        reach = (space.profiles[i].attack + space.pools[:, i].astype(np.int64) + aid + high
                 - space.profiles[j].defence - guard - low)
        if space.house.modifiers:  # 003.4's test with the house rules' lead
            reach = reach + space.terms(i, j, every)[0]
        out |= alive[:, i] & alive[:, j] & (reach > 0)
    return out


# --- the kinds of turn --------------------------------------------------------------------------


def reach(space: Space, f: int, targets: np.ndarray, cores: np.ndarray, extra: int = 0
          ) -> np.ndarray:
    """How far ``f``'s best attack (aid held + ``extra``, whole pool, best die, house rules)
    beats each target's defence (full defence, worst die); <= 0: it cannot possibly hit
    (``kernel._Fights.reach``)."""
    rules = space.rules
    low, high = die_range(rules)
    t = np.maximum(targets, 0)
    guard = space.guard[cores, t].astype(np.int64) * rules.full_defence_bonus
    out = (space.profiles[f].attack + space.aided[cores, f].astype(np.int64) * rules.aid_bonus
           + extra + space.pools[cores, f] + high - space.defence[t] - guard - low)
    if space.house.modifiers:
        lead = np.zeros(len(cores), np.int64)
        for j in np.unique(t):
            pick = t == j
            lead[pick] = space.terms(f, int(j), cores[pick])[0]
        out = out + lead
    return out


def will_attack(space: Space, g: int, cores: np.ndarray) -> np.ndarray:
    """Whether ``g`` will attack on its next turn, as its policy reads the core now with an
    aid counted (``kernel._Fights.will_attack``)."""
    p, rules = space.profiles[g], space.rules
    able = space.h_idx[cores, g] > 0
    if p.withdraw_at:
        able &= space.wp_at[g][space.h_idx[cores, g]] > p.withdraw_at
    if p.turn_policy in ("full_defence", "aid"):
        return np.zeros(len(cores), bool)
    if p.turn_policy == "attack_always" or (p.turn_policy == "attack"
                                            and not rules.margin_failure_damage):
        return able
    targets = space.targets(g, cores)
    return able & (reach(space, g, targets, cores, rules.aid_bonus) > 0)


def recipient(space: Space, turns: TurnOrder, f: int, cores: np.ndarray) -> np.ndarray:
    """The ally ``f``'s aid goes to (-1: none): the soonest after ``f`` in the turn order
    who will attack on its next turn (``kernel._Fights.recipient``)."""
    order = list(turns.order)
    k = len(order)
    ally = np.full(len(cores), -1)
    mates = [g for g in order if g != f and space.side[g] == space.side[f]]
    for g in sorted(mates, key=lambda g: (order.index(g) - order.index(f)) % k, reverse=True):
        ally = np.where(will_attack(space, g, cores), g, ally)
    return ally


def fixed_kinds(space: Space, turns: TurnOrder, actor: int, cores: np.ndarray) -> np.ndarray:
    """The kind of ``actor``'s turn in each core under its own ``turn_policy`` and
    ``withdraw_at`` (``kernel._Fights.turn`` / ``other_turn``)."""
    p, rules = space.profiles[actor], space.rules
    kinds = space.targets(actor, cores).astype(np.int64)
    policy = p.turn_policy
    if policy != "attack_always" and (policy != "attack" or rules.margin_failure_damage):
        hopeless = reach(space, actor, kinds, cores) <= 0
        declines = hopeless & rules.margin_failure_damage
        if policy == "full_defence":
            defend = np.ones(len(cores), bool)
        elif policy == "defend_if_no_hit":
            defend = hopeless
        else:
            wants = (np.ones(len(cores), bool) if policy == "aid"
                     else hopeless if policy == "aid_if_no_hit" else declines)
            ally = np.full(len(cores), -1)
            if wants.any():
                ally[wants] = recipient(space, turns, actor, cores[wants])
            helps = ally >= 0
            kinds[helps] = -3 - ally[helps]
            defend = declines & ~helps
        kinds[defend] = DEFEND
    if p.withdraw_at:
        kinds[space.wp_at[actor][space.h_idx[cores, actor]] <= p.withdraw_at] = WITHDRAW
    return kinds


def options(space: Space, turns: TurnOrder, actor: int, cores: np.ndarray
            ) -> list[tuple[int, np.ndarray]]:
    """``(kind, positions in cores)`` of every turn ``actor`` may take, attacks first:
    its fixed kinds, or (best play) an attack on its target, full defence, aid to each
    standing ally, and withdrawal."""
    if not space.flags.choose:
        kinds = fixed_kinds(space, turns, actor, cores)
        order = sorted(np.unique(kinds).tolist(), key=lambda c: (c < 0, -c))
        return [(int(c), np.flatnonzero(kinds == c)) for c in order]
    targets = space.targets(actor, cores)
    every = np.arange(len(cores))
    out = [(int(j), np.flatnonzero(targets == j)) for j in np.unique(targets)]
    out.append((DEFEND, every))
    for g in range(space.k):
        if g != actor and space.side[g] == space.side[actor]:
            standing = np.flatnonzero(space.h_idx[cores, g] > 0)
            if len(standing):
                out.append((aid_kind(g), standing))
    out.append((WITHDRAW, every))
    return out


def idle_successors(space: Space, turns: TurnOrder, actor: int, kind: int,
                    cores: np.ndarray) -> np.ndarray:
    """The flat successor state of a turn that is not an attack (``+ k * n_cores`` where
    it starts a new round): the actor's guard and aid held lapse, then its declaration."""
    core = cleared(space, actor, cores)
    mask = space.alive_masks(cores)
    if kind == DEFEND:
        # the flags hold every full defence the policies can declare (Flags.of)
        assert space.flags.guard[actor] or not space.rules.full_defence_bonus
        core = core + space.g_stride[actor]
    elif kind == WITHDRAW:
        core = core - space.h_idx[cores, actor].astype(np.int64) * space.h_stride[actor]
        mask = mask & ~(1 << actor)
    else:
        g = aided_ally(kind)
        assert actor in space.flags.helpers[g] or not space.rules.aid_bonus
        if space.flags.helpers[g]:  # at most one aid from each helper before g acts (a
            # count at its top is a core no fight reaches: it keeps the count)
            room = space.aided[cores, g] < len(space.flags.helpers[g])
            core = core + np.where(room, space.a_stride[g], 0)
    nxt = turns.following[actor, mask]
    wrap = turns.wraps[actor, mask]
    return (nxt * space.n_cores + core + wrap * (space.k * space.n_cores)
            - next_guard(space, cores, nxt, wrap))


def next_guard(space: Space, cores: np.ndarray, nxt: np.ndarray, wrap: np.ndarray
               ) -> np.ndarray:
    """What clears the next actor's own guard from the successor's index (canonical states,
    ``Space.canon``), within the round; a turn into a new round keeps it (the stalemate test
    at the start of the round counts it)."""
    guard = space.guard[cores, nxt].astype(np.int64) * space.g_stride[nxt]
    return np.where(wrap, 0, guard)


def cleared(space: Space, actor: int, cores: np.ndarray) -> np.ndarray:
    """``cores`` with the actor's guard and aid held cleared (its turn has come)."""
    return (cores.astype(np.int64)
            - space.guard[cores, actor].astype(np.int64) * space.g_stride[actor]
            - space.aided[cores, actor].astype(np.int64) * space.a_stride[actor])


def bonus(space: Space, actor: int, target: int, cores: np.ndarray) -> np.ndarray:
    """What the turns add to the lead of ``actor``'s attack on ``target``: its aid held,
    less the target's full defence."""
    rules = space.rules
    return (space.aided[cores, actor].astype(np.int64) * rules.aid_bonus
            - space.guard[cores, target].astype(np.int64) * rules.full_defence_bonus)
