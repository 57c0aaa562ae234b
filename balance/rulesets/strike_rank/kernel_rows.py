"""The kernel's side of the rules language: per-fight modifiers and effects over a batch.

Static rows (conditions on names fixed in the matchup) are folded into the profiles'
parts and so into the kernel's lookup tables (:mod:`.profile`); what is left here are the
rows that read per-fight state (``round``, ``self.wounds``, a group fight's head counts,
...) or roll dice.  :func:`build` collects them once per matchup into :class:`Dynamic`,
keyed by what they change (``attack``, ``parry0``, ``damage``, ``hit``, ...), each a tuple
of :class:`RowSet`: the rows one slot applies against some of its foes.  A matchup whose
rows are all static has no :class:`Dynamic` and the kernel does no per-round work.

Each evaluation builds only the names the rows read (``language.names_used``), as arrays
over the batch (or scalars when one value holds for every fight), and sums the rows with
:func:`balance.language.total` (effects: :func:`balance.language.fire`) over the whole
batch; the result counts only in the lanes where the slot acts against one of the row
set's foes (a mask), like every other update of the kernel.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ...language import Effect, Firing, Modifier, Names, fire, names_used, total
from .conditions import DYNAMIC_FIELDS, SITUATION
from .profile import BOTH_PARRY, DODGE, SHIELD_PARRY, WEAPON_PARRY, Profile
from .reference import effect_rows

if TYPE_CHECKING:
    from .kernel import _Kernel, _Lanes, _Who

__all__ = ["Dynamic", "RowSet", "build", "defence_key"]

PARRY_KEYS = {WEAPON_PARRY: "parry0", SHIELD_PARRY: "parry1", BOTH_PARRY: "parry4"}


def defence_key(kind: int) -> str:
    """The key of the rows on a defence of ``kind``."""
    return PARRY_KEYS.get(kind) or ("dodge" if kind == DODGE else "armour_block")


@dataclass(frozen=True)
class RowSet:
    """Rows of slot ``slot`` applied against the foes ``others`` (``()``: no target)."""

    slot: int
    others: tuple[int, ...]
    values: tuple[tuple[str, Any], ...]  # the acting profile's fixed fields (codes)
    rows: tuple[Modifier | Effect, ...]
    everyone: bool  # ``others`` are all the slot's foes: no mask on the foe needed

    @property
    def names(self) -> tuple[str, ...]:
        return names_used(self.rows)


@dataclass(frozen=True, eq=False)
class Dynamic:
    """The per-fight rows of one matchup and the fixed values their names read."""

    sets: Mapping[str, tuple[RowSet, ...]]
    target_values: tuple[dict[str, Any], ...]  # by slot: fixed fields as ``target.`` (codes)
    wounded_at: tuple[int, ...]
    foes: tuple[tuple[int, ...], ...]
    allies: tuple[tuple[int, ...], ...]
    inflicts: frozenset[str]  # conditions the effects may inflict

    def __contains__(self, key: str) -> bool:
        return key in self.sets

    # --- evaluation --------------------------------------------------------------------
    def total(self, k: _Kernel, lanes: _Lanes, key: str, who: _Who, other: _Who | None
              ) -> np.ndarray | None:
        """The rows of ``key`` summed per lane for ``who`` acting against ``other``
        (int16; ``None``: no rows)."""
        sets = self.sets.get(key)
        if not sets:
            return None
        out = np.zeros(lanes.n_fights, np.int16)
        for rs in sets:
            env = self.env(k, lanes, rs, other)
            to = rs.rows[0].to  # type: ignore[union-attr]
            value = total(rs.rows, to, env, k.gen, n=lanes.n_fights).value  # type: ignore[arg-type]
            out += (value * self.mask(rs, who, other)).astype(np.int16)
        return out

    def slot_total(self, k: _Kernel, lanes: _Lanes, key: str, slot: int) -> np.ndarray | None:
        """The rows of ``key`` that read no foe (``strike_rank``) for ``slot`` per lane."""
        out = None
        for rs in self.sets.get(key, ()):
            if rs.slot == slot:
                env = self.env(k, lanes, rs, None)
                value = total(rs.rows, rs.rows[0].to, env, k.gen,  # type: ignore[arg-type, union-attr]
                              n=lanes.n_fights).value.astype(np.int16)
                out = value if out is None else out + value
        return out

    def fire(self, k: _Kernel, lanes: _Lanes, key: str, hit: np.ndarray, who: _Who,
             other: _Who) -> None:
        """The effects of ``key`` (``hit``, ``miss``, ...) in the lanes ``hit``: each read
        in the state before any of them applies (as the reference does)."""
        sets = self.sets.get(key)
        if not sets or not hit.any():
            return
        firings: list[Firing] = []
        for rs in sets:
            mask = hit & self.mask(rs, who, other)
            if not mask.any():
                continue
            env = self.env(k, lanes, rs, other)
            outcome = rs.rows[0].on  # type: ignore[union-attr]
            firings += fire(rs.rows, {outcome: mask}, env, k.gen,  # type: ignore[arg-type]
                            n=lanes.n_fights)
        for row, mask, _ in firings:
            effect = row
            assert isinstance(effect, Effect)
            whom = who if effect.who == "self" else other
            if effect.inflict == "disarmed" and lanes.disarmed is not None:
                k.setv(lanes.disarmed, whom, 1, mask)
            elif effect.inflict == "berserk" and lanes.berserk is not None:
                k.setv(lanes.berserk, whom, 1, mask)

    @staticmethod
    def mask(rs: RowSet, who: _Who, other: _Who | None) -> np.ndarray:
        hot = who.hot[rs.slot]
        if rs.everyone or other is None:
            return hot
        foe = other.hot[rs.others[0]]
        for o in rs.others[1:]:
            foe = foe | other.hot[o]
        return hot & foe

    def env(self, k: _Kernel, lanes: _Lanes, rs: RowSet, other: _Who | None
            ) -> dict[str, Any]:
        """Each name ``rs`` reads: a scalar where it is one value for the whole batch, else
        an array over the batch (``other`` gives each lane's foe)."""
        env: dict[str, Any] = {}
        values = dict(rs.values)
        for name in rs.names:
            role, _, field = name.partition(".")
            if name in SITUATION:
                env[name] = self.situation(k, lanes, rs.slot, name)
            elif role == "self":
                env[name] = (self.state(lanes, field, rs.slot) if field in DYNAMIC_FIELDS
                             else values[field])
            else:
                assert other is not None, "strike_rank rows read no target names"
                env[name] = self.target(k, lanes, field, rs, other)
        return env

    def state(self, lanes: _Lanes, field: str, slot: int) -> Any:
        if field == "wounds":
            return lanes.wound_points[slot]
        if field == "wounded":
            return lanes.wound_points[slot] >= self.wounded_at[slot]
        return lanes.berserk[slot] if lanes.berserk is not None else False

    def target(self, k: _Kernel, lanes: _Lanes, field: str, rs: RowSet, other: _Who) -> Any:
        if len(rs.others) == 1:
            o = rs.others[0]
            if field in DYNAMIC_FIELDS:
                return self.state(lanes, field, o)
            return self.target_values[o][field]
        if field in DYNAMIC_FIELDS:
            return k.sel([np.asarray(self.state(lanes, field, j), np.int32)
                          * np.ones(lanes.n_fights, np.int32)
                          for j in range(k.n_slots)], other)
        table = np.asarray([self.target_values[j].get(field, 0) for j in range(k.n_slots)],
                           np.int16)
        return table.take(other.idx)

    def situation(self, k: _Kernel, lanes: _Lanes, slot: int, name: str) -> Any:
        if name == "round":
            return lanes.round
        if name == "foes_standing":
            return sum(lanes.standing[j].astype(np.int16) for j in self.foes[slot])
        if name == "allies_standing":
            return sum((lanes.standing[j].astype(np.int16) for j in self.allies[slot]),
                       np.zeros(lanes.n_fights, np.int16))
        engaged = np.zeros(lanes.n_fights, np.int16)  # foes_engaged
        for j in self.foes[slot]:
            engaged += (lanes.standing[j] != 0) & (lanes.target[j] == slot)
        return engaged


# --- building ------------------------------------------------------------------------------
Chooser = Callable[[Profile, Profile], tuple[Profile, tuple[Modifier | Effect, ...]]]


def _choosers(ps: Sequence[Profile]) -> dict[str, Chooser]:
    """Key -> (for an acting profile and its foe: the profile whose rows apply, the rows)."""

    def attack(p: Profile, q: Profile) -> tuple[Profile, tuple[Modifier | Effect, ...]]:
        x = p.chosen(lambda y: y._attack_parts(q))
        return x, x.dynamic_rows("attack")

    def unarmed(p: Profile, q: Profile) -> tuple[Profile, tuple[Modifier | Effect, ...]]:
        return attack(p.unarmed, q) if p.unarmed is not None else (p, ())

    def shot(p: Profile, q: Profile) -> tuple[Profile, tuple[Modifier | Effect, ...]]:
        if p.missile is None:
            return p, ()
        x = p.chosen(lambda y: y._missile_parts(q))
        return x, x.dynamic_rows("attack", weapon=False, missile=True)

    def parry(kind: int) -> Chooser:
        def rows(p: Profile, q: Profile) -> tuple[Profile, tuple[Modifier | Effect, ...]]:
            x = p.chosen(lambda y: y._parry_parts(q, kind))
            return x, x.dynamic_rows("parry", weapon=kind != SHIELD_PARRY)
        return rows

    def dodge(p: Profile, q: Profile) -> tuple[Profile, tuple[Modifier | Effect, ...]]:
        x = p.chosen(lambda y: y._dodge_parts(q))
        return x, x.dynamic_rows("dodge")

    def block(p: Profile, q: Profile) -> tuple[Profile, tuple[Modifier | Effect, ...]]:
        x = p.chosen(lambda y: y._block_parts(q))
        return x, x.dynamic_rows("armour_block")

    def damage(p: Profile, q: Profile) -> tuple[Profile, tuple[Modifier | Effect, ...]]:
        return p, p.dynamic_rows("damage")

    def unarmed_damage(p: Profile, q: Profile) -> tuple[Profile, tuple[Modifier | Effect, ...]]:
        return damage(p.unarmed, q) if p.unarmed is not None else (p, ())

    def shot_damage(p: Profile, q: Profile) -> tuple[Profile, tuple[Modifier | Effect, ...]]:
        return p, p.dynamic_rows("damage", weapon=False, missile=True)

    def effects(kind: Chooser, outcome: str, missile: bool = False) -> Chooser:
        def rows(p: Profile, q: Profile) -> tuple[Profile, tuple[Modifier | Effect, ...]]:
            x, _ = kind(p, q)
            return x, tuple(e for e in effect_rows(x, missile) if e.on == outcome)
        return rows

    out: dict[str, Chooser] = {
        "attack": attack, "unarmed_attack": unarmed, "shot": shot,
        "dodge": dodge, "armour_block": block, "damage": damage,
        "unarmed_damage": unarmed_damage, "shot_damage": shot_damage,
    }
    out.update({key: parry(kind) for kind, key in PARRY_KEYS.items()})
    for outcome in ("hit", "miss"):
        out[outcome] = effects(attack, outcome)
        out[f"unarmed_{outcome}"] = effects(unarmed, outcome)
        out[f"shot_{outcome}"] = effects(shot, outcome, missile=True)
    return out


def _codes(values: Mapping[str, Any], names: Names, role: str) -> dict[str, Any]:
    """Fixed fields with words as their codes (the kernel's arrays hold codes)."""
    out = {}
    for field, value in values.items():
        name = names[f"{role}.{field}"]
        out[field] = name.code(value) if name.kind == "str" else value
    return out


def build(ps: Sequence[Profile]) -> Dynamic | None:
    """The per-fight rows of a matchup, or ``None`` if it has none (every row static)."""
    rules = ps[0].rules
    if not rules.has_language:
        return None
    names = rules.vocabulary().names
    sets: dict[str, tuple[RowSet, ...]] = {}
    for key, choose in _choosers(ps).items():
        found: list[RowSet] = []
        for p in ps:
            foes = [q for q in ps if q.side != p.side]
            groups: dict[tuple[Any, ...], list[int]] = {}
            for q in foes:
                x, rows = choose(p, q)
                if rows:
                    values = tuple(_codes(x.values, names, "self").items())
                    groups.setdefault((values, rows), []).append(q.slot)
            for (values, rows), others in groups.items():
                found.append(RowSet(p.slot, tuple(others), values, rows,
                                    len(others) == len(foes)))
        if found:
            sets[key] = tuple(found)
    strike = [RowSet(p.slot, (), tuple(_codes(p.values, names, "self").items()), rows, True)
              for p in ps if (rows := p.dynamic_rows("strike_rank"))]
    if strike:
        sets["strike_rank"] = tuple(strike)
    if not sets:
        return None
    inflicts = frozenset(e.inflict for rsets in sets.values() for rs in rsets for e in rs.rows
                         if isinstance(e, Effect))
    return Dynamic(
        sets=sets,
        target_values=tuple(_codes(p.values, names, "target") for p in ps),
        wounded_at=tuple(p.thresholds[0] for p in ps),
        foes=tuple(tuple(q.slot for q in ps if q.side != p.side) for p in ps),
        allies=tuple(tuple(q.slot for q in ps if q.side == p.side and q is not p) for p in ps),
        inflicts=inflicts)


def damage_range(dyn: Dynamic | None) -> tuple[int, int] | None:
    """Lowest and highest the per-fight damage rows can add to a hit (``None``:
    unbounded, so the kernel's wound table cannot cover it)."""
    if dyn is None:
        return (0, 0)
    low = high = 0
    for key in ("damage", "unarmed_damage", "shot_damage"):
        lows, highs = [0], [0]
        for rs in dyn.sets.get(key, ()):
            lo = hi = 0
            for m in rs.rows:
                a, b = m.amount.range or (None, None)  # type: ignore[union-attr]
                if a is None or b is None:
                    return None
                lo += min(a, 0)
                hi += max(b, 0)
            lows.append(lo)
            highs.append(hi)
        low, high = min(low, min(lows)), max(high, max(highs))
    return low, high
