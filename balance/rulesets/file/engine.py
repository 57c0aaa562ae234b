"""One round of a ruleset file, played over a :class:`~.batch.Batch`, written once.

The kernel runs it with a :class:`~.batch.Sampler` (dice drawn, whole batches of fights
per NumPy operation) and the exact solver with an :class:`~.batch.Enumerator` (dice
branched on, every row weighted by its exact probability).  The scalar reference
(:mod:`.reference`) is a separate reading of the same rules, one fight in plain Python.

A round (``docs/ruleset-file.md``, "How a round is played"):

1. values with ``reset = "round"`` go back to their start;
2. simultaneous: both fighters make their choices, then each action is resolved for both
   at once (rolls first, then outcomes, then every change together); sequential: the
   first fighter takes its whole turn (``reset = "turn"`` values, its choices, its
   actions), then the other, if the fight is still on;
3. after every repetition of an action the ``out`` condition is checked: one fighter out
   is a win for the other, both a draw (cause ``down``);
4. at the end of the round, ``draw_when`` (read from A's side) ends the fight as a draw.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...language import Expression, compile_amount
from ...outcomes import Winner
from .batch import VIEW_A, VIEW_BOTH, VIEW_MOVER, Batch, View, rows_alike
from .schema import Action, StateVar, System

__all__ = ["Engine", "fixed_values"]


def _names(*expressions: Any) -> frozenset[str]:
    from ...language import names_used

    return frozenset(names_used(*expressions))

Backend = Any  # Sampler | Enumerator


def fixed_values(system: System, rules: Any, a: Any, b: Any) -> tuple[dict[str, np.ndarray],
                                                                     dict[str, Any]]:
    """The values fixed for a fight: each fighter's stats and derived values, ``(2,)``
    arrays (A, B; words as codes), and the rule parameters (scalars)."""
    rule_values: dict[str, Any] = {}
    for stat in system.rules:
        value = getattr(rules, stat.name)
        rule_values[stat.name] = stat.choices.index(value) if stat.kind == "str" else value
    fixed: dict[str, np.ndarray] = {}
    for stat in system.fighter:
        values = [getattr(a, stat.name), getattr(b, stat.name)]
        if stat.kind == "str":
            values = [stat.choices.index(v) for v in values]
        fixed[stat.name] = np.array(values, dtype=bool if stat.kind == "bool" else np.int64)
    for item in system.derived:
        env: dict[str, Any] = {}
        for name in item.expression.names_used:
            role, dot, field = name.partition(".")
            if not dot:
                env[name] = rule_values[name]
            else:
                pair = fixed[field]
                env[name] = pair if role == "self" else pair[::-1]
        fixed[item.name] = item.expression.evaluate(env, None, n=2)
    return fixed, rule_values


class Engine:
    """Plays a :class:`~.schema.System`'s rounds over batches (see the module docstring)."""

    def __init__(self, system: System) -> None:
        self.system = system
        self.ranges = {s.name: s.range for s in system.state if s.range is not None}
        self.causes = system.causes
        self.coin = compile_amount("d2", system.names)
        self.sequential = system.order.kind == "sequential"
        self.turn_resets = tuple(s for s in system.state if s.reset == "turn")
        self.round_resets = tuple(s for s in system.state if s.reset == "round")
        self.damage_modifiers = tuple(m for m in system.modifiers if m.to == "damage")
        self.reads: dict[str, tuple[str, ...]] = {}
        self.kept: dict[str, tuple[str, ...]] = {}
        self.spent: dict[str, tuple[str, ...]] = {}
        for action in system.actions:
            self._plan(action)
        self.self_read = frozenset(
            c.name for c in system.choices
            if c.name in {n.partition(".")[2] for n in _names(*(w for _, w in c.policy))})
        self.dead_choices: dict[str, tuple[str, ...]] = {}
        for i, action in enumerate(system.actions):
            self.dead_choices[action.name] = self._dead_choices(i)

    def _dead_choices(self, index: int) -> tuple[str, ...]:
        """The choices nothing reads once action ``index`` is resolved (its damage and
        effects, the later actions, the end): the exact solver forgets them there, so
        rows that differ only in them merge."""
        from ...language import names_used

        action = self.system.actions[index]
        later: list[Any] = [*(getattr(o, k) for o in action.outcomes
                              for k in ("damage", "self_damage") if getattr(o, k) is not None),
                            *(e for o in action.outcomes for e in o.effects),
                            *self.damage_modifiers, self.system.end.out, self.system.end.draw_when]
        for other in self.system.actions[index + 1:]:
            later += [other.when, other.times, other.roll, other.against,
                      *(e for _, e in other.lets), *other.outcomes,
                      *(m for m in self.system.modifiers if m.to == other.name)]
            later += [e for o in other.outcomes for e in (o.when, o.damage, o.self_damage, *o.effects)]
        fields = {n.partition(".")[2] for n in names_used(*[e for e in later
                                                              if e is not None and not
                                                              hasattr(e, "outcomes")])}
        return tuple(c.name for c in self.system.choices if c.name not in fields)

    def _plan(self, action: Action) -> None:
        """What an action's resolution reads (fighter values), and which of its own values
        (roll, margin, lets) its damage and effects read later."""
        from ...language import names_used

        own = ("roll", "margin", *(name for name, _ in action.lets))
        early = [action.roll, action.against, *(e for _, e in action.lets),
                 *(o.when for o in action.outcomes if o.when is not None),
                 *(m for m in self.system.modifiers if m.to == action.name)]
        late = [*(getattr(o, k) for o in action.outcomes for k in ("damage", "self_damage")
                  if getattr(o, k) is not None),
                *(e for o in action.outcomes for e in o.effects), *self.damage_modifiers]
        fields = {n.partition(".")[2] for n in names_used(*[e for e in early if e is not None])}
        self.reads[action.name] = tuple(sorted(f for f in fields if f and f not in own))
        read_late = {n.partition(".")[2] for n in names_used(*late)}
        self.kept[action.name] = tuple(k for k in own if k in read_late)
        self.spent[action.name] = own

    # --- a fight's start ----------------------------------------------------------------------
    def start(self, batch: Batch, backend: Backend) -> None:
        """Every fight of ``batch`` at its start: state values at their start, nobody out."""
        batch.fight["live"] = np.ones(batch.m, bool)
        batch.fight["winner"] = np.zeros(batch.m, np.int8)
        batch.fight["cause"] = np.zeros(batch.m, np.int8)
        for var in self.system.state:
            self._reset(batch, backend, var, VIEW_BOTH)
        if self.sequential and self.system.order.first == "random":  # once a fight
            heads = backend.coin(batch, np.ones(batch.m, bool))
            batch.fight["first"] = heads.astype(np.int8)

    def _reset(self, batch: Batch, backend: Backend, var: StateVar, view: View) -> None:
        live = self._live(batch, view)
        values = backend.evaluate(var.start, batch, view, live)
        batch.put(var.name, self._clamp(var.name, values), view, self._live(batch, view),
                  dtype=self._dtype(var))

    def _dtype(self, var: StateVar) -> Any:
        return bool if var.kind == "bool" else np.int64

    def _clamp(self, name: str, values: np.ndarray) -> np.ndarray:
        bounds = self.ranges.get(name)
        return values if bounds is None else np.clip(values, bounds[0], bounds[1])

    def _live(self, batch: Batch, view: View) -> np.ndarray:
        live = batch.fight["live"]
        return np.concatenate([live, live]) if view.kind == "both" else live

    # --- a round ----------------------------------------------------------------------------
    def play_round(self, batch: Batch, backend: Backend, round_no: int) -> None:
        """Play round ``round_no`` of every live fight of ``batch``."""
        self.begin_round(batch, backend, round_no)
        if self.sequential:
            self.play_turn(batch, backend, 0)
            self.play_turn(batch, backend, 1)
        else:
            self.play_both(batch, backend)
        self.end_round(batch, backend)

    def begin_round(self, batch: Batch, backend: Backend, round_no: int) -> None:
        """What happens before anyone acts: ``reset = "round"`` values go back to their
        start and, in a sequential round, who goes first is settled."""
        batch.scalars["round"] = round_no
        for var in self.round_resets:
            self._reset(batch, backend, var, VIEW_BOTH)
        if self.sequential:
            self.order(batch, backend)

    def play_both(self, batch: Batch, backend: Backend, *, choose: bool = True) -> None:
        """A simultaneous round's play: both choose (unless ``choose`` is false: the
        choices are in the batch already), then every action by both at once."""
        if choose:
            self.choose(batch, backend, VIEW_BOTH)
        for action in self.system.actions:
            self.act(batch, backend, action, VIEW_BOTH)

    def play_turn(self, batch: Batch, backend: Backend, turn: int, *,
                  choose: bool = True) -> None:
        """Turn ``turn`` (0: the first fighter's, 1: the other's) of a sequential round."""
        first = batch.fight["round_first"]
        batch.fight["mover"] = (first if turn == 0 else 1 - first).astype(np.int8)
        for var in self.turn_resets:
            self._reset(batch, backend, var, VIEW_MOVER)
        if choose:
            self.choose(batch, backend, VIEW_MOVER)
        for action in self.system.actions:
            self.act(batch, backend, action, VIEW_MOVER)

    def order(self, batch: Batch, backend: Backend) -> None:
        """Who takes the first turn of this round: ``fight["round_first"]`` (0 A, 1 B)."""
        order = self.system.order
        if order.first in ("a", "b"):
            batch.fight["round_first"] = np.full(batch.m, "ab".index(order.first), np.int8)
            return
        if order.first == "random":
            batch.fight["round_first"] = batch.fight["first"].copy()
            return
        assert order.initiative is not None
        if backend.weighted:  # the exact chance B goes first: two branches, not one a roll
            above, equal = backend.contest(order.initiative, batch)
            tie = {"random": 0.5, "b": 1.0}.get(order.ties, 0.0)
            b_first = backend.chance(batch, np.clip(above + tie * equal, 0.0, 1.0))
            batch.fight["round_first"] = b_first.astype(np.int8)
            return
        live = self._live(batch, VIEW_BOTH)
        batch.put("_initiative", backend.evaluate(order.initiative, batch, VIEW_BOTH, live),
                  VIEW_BOTH)
        score = batch.state["_initiative"]
        first = np.where(score[1] > score[0], 1, 0).astype(np.int8)
        tied = (score[0] == score[1]) & batch.fight["live"]
        if order.ties == "random":
            heads = backend.coin(batch, tied)
            score = batch.state["_initiative"]
            first = np.where(score[1] > score[0], 1, 0).astype(np.int8)
            first[heads] = 1
        elif order.ties == "b":
            first[tied] = 1
        batch.fight["round_first"] = first
        del batch.state["_initiative"]

    def end_round(self, batch: Batch, backend: Backend) -> None:
        """A round's end: ``draw_when``, and what the round alone needed is forgotten."""
        draw_when = self.system.end.draw_when
        if draw_when is not None:
            held = backend.evaluate(draw_when, batch, VIEW_A) & batch.fight["live"]
            self._finish(batch, held, np.int8(Winner.DRAW), self.causes.index(
                self.system.end.draw_cause))
        # merged after the last action (draw_when only finishes rows): the drop decides
        batch.drop([choice.name for choice in self.system.choices],
                   fight=("mover", "round_first"))

    # --- choices -----------------------------------------------------------------------------
    def choose(self, batch: Batch, backend: Backend, view: View) -> None:
        """Each choice by its policy: the first (option, condition) pair that holds."""
        if not backend.weighted:
            self._choose_drawn(batch, backend, view)
            return
        for choice in self.system.choices:
            default = choice.options.index(choice.default)
            batch.put(choice.name, np.full(view.size(batch.m), default, np.int8), view,
                      fill=default, dtype=np.int8)
            for pick, when in reversed(choice.policy):
                held = backend.evaluate(when, batch, view, self._live(batch, view))
                current = batch.own(choice.name, view)
                batch.put(choice.name, np.where(held, choice.options.index(pick), current)
                          .astype(np.int8), view, dtype=np.int8)

    def _choose_drawn(self, batch: Batch, backend: Backend, view: View) -> None:
        """:meth:`choose` for a kernel's batch (its rows never move during an evaluation):
        each choice built in one array and stored once, unless its own conditions read it."""
        for choice in self.system.choices:
            chosen = np.full(view.size(batch.m), choice.options.index(choice.default), np.int8)
            reread = choice.name in self.self_read
            if reread:
                batch.put(choice.name, chosen, view, fill=chosen[0] if len(chosen) else 0,
                          dtype=np.int8)
            for pick, when in reversed(choice.policy):
                held = backend.evaluate(when, batch, view)
                np.copyto(chosen, np.int8(choice.options.index(pick)), where=held)
                if reread:
                    batch.put(choice.name, chosen, view, dtype=np.int8)
            batch.put(choice.name, chosen, view, dtype=np.int8)

    # --- actions -----------------------------------------------------------------------------
    def act(self, batch: Batch, backend: Backend, action: Action, view: View) -> None:
        """Every repetition of ``action`` by the actors of ``view``."""
        live = self._live(batch, view)
        acts = live.copy()
        if action.when is not None:
            acts &= backend.evaluate(action.when, batch, view, live)
            acts &= self._live(batch, view)
        if not backend.weighted and action.times.constant is not None:
            self._act_drawn(batch, backend, action, view, acts, int(action.times.constant))
            return
        batch.put("_acts", acts, view, dtype=bool)
        times = backend.evaluate(action.times, batch, view, batch.own("_acts", view))
        batch.put("_times", times, view, batch.own("_acts", view), dtype=np.int64)
        high = (action.times.range or (1, 1))[1] or 0
        for attempt in range(1, int(high) + 1):
            going = (batch.own("_acts", view) & (batch.own("_times", view) >= attempt)
                     & self._live(batch, view))
            if not going.any():
                break
            batch.scalars["attempt"] = attempt
            batch.put("_going", going, view, dtype=bool)
            self.attempt(batch, backend, action, view)
            self.check_out(batch, backend)
        # merged after the last attempt (check_out only finishes rows): the drop decides
        batch.drop(("_acts", "_times", "_going"))

    def _act_drawn(self, batch: Batch, backend: Backend, action: Action, view: View,
                   acts: np.ndarray, times: int) -> None:
        """:meth:`act` for a kernel's batch and a fixed number of repetitions: who acts
        kept in a local array (its rows never move), nothing stored but who is going."""
        for attempt in range(1, times + 1):
            going = acts & self._live(batch, view)
            if not going.any():
                break
            batch.scalars["attempt"] = attempt
            batch.put("_going", going, view, dtype=bool)
            self.attempt(batch, backend, action, view)
            self.check_out(batch, backend)
        batch.state.pop("_going", None)

    def going(self, batch: Batch, view: View) -> np.ndarray:
        return batch.own("_going", view) & self._live(batch, view)

    def attempt(self, batch: Batch, backend: Backend, action: Action, view: View) -> None:
        """One repetition: the roll, the lets, the outcome, and what it does."""
        if backend.weighted:
            self.resolve_grouped(batch, backend, action, view)
            if not self.sequential:  # a sequential turn keeps them: the next may read them
                for name in self.dead_choices[action.name]:
                    batch.state.pop(name, None)
            batch.merge()
        else:
            self.resolve(batch, backend, action, view)
        self.damage(batch, backend, action, view)
        self.effects(batch, backend, action, view)
        for name in ("_outcome", *self.spent[action.name]):
            batch.state.pop(name, None)
        batch.merge()

    def resolve(self, batch: Batch, backend: Backend, action: Action, view: View) -> None:
        """The roll, the lets and the outcome (``_outcome``) of every actor going."""
        self.roll(batch, backend, action, view)
        for name, expression in action.lets:
            values = backend.evaluate(expression, batch, view, self.going(batch, view))
            batch.put(name, values, view, self.going(batch, view), dtype=values.dtype)
        self.outcome(batch, backend, action, view)

    def resolve_grouped(self, batch: Batch, backend: Backend, action: Action,
                        view: View) -> None:
        """:meth:`resolve` for a weighted batch, once per distinct set of the values it
        reads (rows of many states share them: the roll's branches are worked out once
        and joined back), keeping only the outcome and what damage and effects read."""
        state_keys = [k for k in self.reads[action.name] if k in batch.state] + ["_going"]
        fight_keys = ["live"] + ([view.kind] if view.kind in batch.fight else [])
        columns = [batch.state[k].astype(np.int64) for k in state_keys]
        columns += [batch.fight[k].astype(np.int64)[None, :] for k in fight_keys]
        first, inverse, count = rows_alike(np.concatenate(columns, axis=0))
        sub = Batch(count, batch.fixed, batch.rules, batch.names, weighted=True)
        sub.scalars = dict(batch.scalars)
        sub.state = {k: v[:, first] for k, v in batch.state.items()}
        sub.fight = {k: v[first] for k, v in batch.fight.items()}
        sub.fight["_group"] = np.arange(count)
        self.resolve(sub, backend, action, view)
        outputs = ["_outcome", *self.kept[action.name]]
        sub.state = {k: v for k, v in sub.state.items() if k in outputs}
        sub.fight = {"_group": sub.fight["_group"]}
        sub.merge()
        group = sub.fight["_group"]
        order = np.argsort(group, kind="stable")
        sizes = np.bincount(group, minlength=count)
        starts = np.cumsum(sizes) - sizes
        repeats = sizes[inverse]
        rows = np.repeat(np.arange(batch.m), repeats)
        offsets = np.arange(len(rows)) - np.repeat(np.cumsum(repeats) - repeats, repeats)
        picked = order[starts[inverse][rows] + offsets]
        batch.take(rows)
        assert batch.weight is not None and sub.weight is not None
        batch.weight = batch.weight * sub.weight[picked]
        for key in outputs:
            batch.state[key] = sub.state[key][:, picked]

    def roll(self, batch: Batch, backend: Backend, action: Action, view: View) -> None:
        if action.roll is None:
            return
        total = backend.evaluate(action.roll, batch, view, self.going(batch, view))
        batch.put("roll", total, view, self.going(batch, view), dtype=np.int64)
        for modifier in self.system.modifiers:
            if modifier.to == action.name:
                self.add(batch, backend, "roll", modifier.amount, modifier.when, view,
                         self.going(batch, view))
        if action.against is not None:
            against = backend.evaluate(action.against, batch, view, self.going(batch, view))
            total = batch.own("roll", view)
            batch.put("margin", total - against, view, self.going(batch, view), dtype=np.int64)

    def add(self, batch: Batch, backend: Backend, name: str, amount: Expression,
            when: Expression | None, view: View, mask: np.ndarray) -> None:
        """``name += amount`` for the actors of ``view`` where ``mask`` and ``when``."""
        batch.put("_mask", mask, view, dtype=bool)
        if when is not None:
            held = backend.evaluate(when, batch, view, batch.own("_mask", view))
            batch.put("_mask", batch.own("_mask", view) & held, view, dtype=bool)
        values = backend.evaluate(amount, batch, view, batch.own("_mask", view))
        where = batch.own("_mask", view)
        batch.put(name, batch.own(name, view) + np.where(where, values, 0), view,
                  dtype=np.int64)
        del batch.state["_mask"]

    def outcome(self, batch: Batch, backend: Backend, action: Action, view: View) -> None:
        """The first outcome whose condition holds (-1: none) as ``_outcome``."""
        if not backend.weighted:  # rows never move: one array, stored once
            code = np.full(view.size(batch.m), -1, np.int8)
            going = self.going(batch, view)
            for k in range(len(action.outcomes) - 1, -1, -1):
                when = action.outcomes[k].when
                held = going if when is None else going & backend.evaluate(when, batch, view)
                np.copyto(code, np.int8(k), where=held)
            batch.put("_outcome", code, view, dtype=np.int8)
            return
        batch.put("_outcome", np.full(view.size(batch.m), -1, np.int8), view, fill=-1,
                  dtype=np.int8)
        for k in range(len(action.outcomes) - 1, -1, -1):
            when = action.outcomes[k].when
            going = self.going(batch, view)
            held = going if when is None else going & backend.evaluate(when, batch, view, going)
            current = batch.own("_outcome", view)
            batch.put("_outcome", np.where(held, k, current).astype(np.int8), view,
                      dtype=np.int8)

    def _where_outcome(self, batch: Batch, view: View, ks: Sequence[int]) -> np.ndarray:
        code = batch.own("_outcome", view)
        mask = np.zeros(code.shape, bool)
        for k in ks:
            mask |= code == k
        return mask & self.going(batch, view)

    def damage(self, batch: Batch, backend: Backend, action: Action, view: View) -> None:
        """``damage`` (to the target, with the damage modifiers) and ``self_damage``."""
        health = self.system.end.health
        for key, who in (("damage", "target"), ("self_damage", "self")):
            ks = [k for k, o in enumerate(action.outcomes) if getattr(o, key) is not None]
            if not ks:
                continue
            if not backend.weighted:
                self._damage_drawn(batch, backend, action, view, key, who, ks)
                continue
            batch.put("_dealt", np.zeros(view.size(batch.m), np.int64), view, dtype=np.int64)
            for k in ks:
                self.add(batch, backend, "_dealt", getattr(action.outcomes[k], key), None,
                         view, self._where_outcome(batch, view, [k]))
            if key == "damage":
                for modifier in self.damage_modifiers:
                    self.add(batch, backend, "_dealt", modifier.amount, modifier.when, view,
                             self._where_outcome(batch, view, ks))
            dealt = np.maximum(batch.own("_dealt", view), 0)
            self.change(batch, view, health, who, -dealt, self._where_outcome(batch, view, ks),
                        "add")
            del batch.state["_dealt"]

    def _damage_drawn(self, batch: Batch, backend: Backend, action: Action, view: View,
                      key: str, who: str, ks: Sequence[int]) -> None:
        """:meth:`damage` of one kind for a kernel's batch: the same evaluations in the
        same order (each over the rows it concerns), summed in one local array instead of
        a stored value."""
        code = batch.own("_outcome", view)
        going = self.going(batch, view)
        dealt = np.zeros(view.size(batch.m), np.int64)
        hit = np.zeros(view.size(batch.m), bool)
        for k in ks:
            mask = (code == k) & going
            dealt += backend.evaluate(getattr(action.outcomes[k], key), batch, view, mask) * mask
            hit |= mask
        if key == "damage":
            for modifier in self.damage_modifiers:
                mask = hit
                if modifier.when is not None:
                    mask = hit & backend.evaluate(modifier.when, batch, view, hit)
                dealt += backend.evaluate(modifier.amount, batch, view, mask) * mask
        np.maximum(dealt, 0, out=dealt)
        np.negative(dealt, out=dealt)  # 0 wherever nothing hit: no mask needed
        self.change(batch, view, self.system.end.health, who, dealt,
                    None if view.kind == "both" else hit, "add")

    def effects(self, batch: Batch, backend: Backend, action: Action, view: View) -> None:
        """Each outcome's effects: ``set`` a state value or ``spend`` from one."""
        for k, outcome in enumerate(action.outcomes):
            for effect in outcome.effects:
                batch.put("_fires", self._where_outcome(batch, view, [k]), view, dtype=bool)
                if effect.when is not None:
                    held = backend.evaluate(effect.when, batch, view, batch.own("_fires", view))
                    batch.put("_fires", batch.own("_fires", view) & held, view, dtype=bool)
                quantity = effect.quantity
                if isinstance(quantity, str):
                    values = np.full(view.size(batch.m), effect.choices.index(quantity))
                else:
                    assert quantity is not None
                    values = backend.evaluate(quantity, batch, view, batch.own("_fires", view))
                fires = batch.own("_fires", view)
                if effect.action == "spend":
                    self.change(batch, view, effect.spend, effect.who, -values, fires, "add")
                else:
                    self.change(batch, view, effect.set, effect.who, values, fires, "set")
                del batch.state["_fires"]

    def change(self, batch: Batch, view: View, name: str, who: str, values: np.ndarray,
               mask: np.ndarray | None, op: str) -> None:
        """Add ``values`` to (or set) the state value ``name`` of ``who`` (``self`` or
        ``target`` of each actor) where ``mask``; kept in its range.  (``mask`` ``None``
        with ``add``: ``values`` are 0 wherever nothing changes.)"""
        grid = batch.state[name]
        values = np.asarray(values)
        if mask is None:
            assert op == "add" and view.kind == "both" and values.ndim
            vals = values.reshape(2, batch.m)
            new = grid + (vals[::-1] if who == "target" else vals)
        elif view.kind == "both":
            vals = values.reshape(2, batch.m) if values.ndim else np.full((2, batch.m), values)
            where = mask.reshape(2, batch.m)
            if who == "target":
                vals, where = vals[::-1], where[::-1]
            new = grid.astype(np.result_type(grid, vals))  # a copy, wide enough
            if op == "add":
                np.add(new, vals, out=new, where=where)
            else:
                np.copyto(new, vals, where=where)
        else:
            side = batch.fight[view.kind] if who == "self" else 1 - batch.fight[view.kind]
            rows = np.arange(batch.m)
            old = grid[side, rows]
            new = grid.copy()
            new[side, rows] = (old + np.where(mask, values, 0) if op == "add"
                               else np.where(mask, values, old))
        bounds = self.ranges.get(name)
        if bounds is not None:
            np.clip(new, bounds[0], bounds[1], out=new)
        batch.state[name] = new.astype(grid.dtype, copy=False)

    # --- the end ---------------------------------------------------------------------------------
    def check_out(self, batch: Batch, backend: Backend) -> None:
        out = backend.evaluate(self.system.end.out, batch, VIEW_BOTH).reshape(2, batch.m)
        live = batch.fight["live"]
        out_a, out_b = out[0] & live, out[1] & live
        ended = out_a | out_b
        if not ended.any():
            return
        winner = np.where(out_b & ~out_a, np.int8(Winner.A),
                          np.where(out_a & ~out_b, np.int8(Winner.B), np.int8(Winner.DRAW)))
        self._finish(batch, ended, winner, self.causes.index("down"))

    def _finish(self, batch: Batch, ended: np.ndarray, winner: Any, cause: int) -> None:
        if not ended.any():
            return
        batch.fight["winner"] = np.where(ended, winner, batch.fight["winner"]).astype(
            np.int8, copy=False)
        batch.fight["cause"] = np.where(ended, np.int8(cause), batch.fight["cause"]).astype(
            np.int8, copy=False)
        batch.fight["live"] = batch.fight["live"] & ~ended
