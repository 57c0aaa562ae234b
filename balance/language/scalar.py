"""One fight at a time: the value of a checked tree, its narration, its exact distribution
and the interval of values it can take.

These walk the tree in plain Python.  One function, :func:`apply`, gives what every node
does to its parts' values, so the reading for the combat log and the exact distribution
cannot disagree about the rules; the vectorised form (:mod:`balance.language.vector`) is a
separate implementation, tested against an independent oracle.

Strings are words here (``"buckler"``), never codes.
"""

from __future__ import annotations

import functools
import itertools
import math
import operator
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

import numpy as np

from .syntax import (
    Arith,
    Bool,
    Call,
    Compare,
    Dice,
    IfElse,
    Int,
    Logic,
    Member,
    Neg,
    Node,
    Not,
    Pool,
    Ref,
    Str,
    children,
)

__all__ = ["Distribution", "apply", "bounds", "constant_value", "distribution", "read",
           "show_value"]

Value = int | bool | str
Distribution = dict[Any, Fraction]
"""Exact probabilities of each value (each above zero, summing to 1), sorted by value."""

COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
    ">": operator.gt, ">=": operator.ge,
}
ARITH: dict[str, Callable[[int, int], int]] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "//": operator.floordiv,
}


def apply(node: Node, parts: tuple[Any, ...]) -> Any:
    """The value of ``node`` given the values of its :func:`~.syntax.children` (leaves:
    literals only; names and dice are read by the callers)."""
    if isinstance(node, Int | Str | Bool):
        return node.value
    if isinstance(node, Neg):
        return -parts[0]
    if isinstance(node, Not):
        return not parts[0]
    if isinstance(node, Arith):
        return ARITH[node.op](parts[0], parts[1])
    if isinstance(node, Logic):
        return all(parts) if node.op == "and" else any(parts)
    if isinstance(node, Compare):
        return all(COMPARE[op](a, b) for op, a, b in zip(node.ops, parts, parts[1:], strict=False))
    if isinstance(node, Member):
        return (parts[0] in parts[1:]) != node.negate
    if isinstance(node, Call):
        return min(parts) if node.function == "min" else max(parts)
    if isinstance(node, IfElse):
        then, condition, otherwise = parts
        return then if condition else otherwise
    raise TypeError(f"no value for {type(node).__name__}")  # Ref and Dice: read by callers


def constant_value(node: Node) -> Any:
    """The value of a tree that reads no names and rolls no dice."""
    return apply(node, tuple(constant_value(c) for c in children(node)))


# --- one fight, narrated -----------------------------------------------------------------------
def read(node: Node, values: Mapping[str, Any], rng: np.random.Generator | None,
         facts: list[str]) -> Any:
    """The value of ``node`` for one fight; each name read (``x is 4``) and each dice roll
    (``2d6 rolled 3+5=8``) is appended to ``facts`` once, in reading order."""
    if isinstance(node, Ref):
        value = values[node.name]
        fact = f"{node.name} is {show_value(value)}"
        if fact not in facts:
            facts.append(fact)
        return value
    if isinstance(node, Dice):
        if rng is None:
            raise ValueError(f"{node.text} rolls dice: pass rng (a numpy Generator)")
        faces = [int(f) for f in rng.integers(1, node.sides + 1, size=node.count)]
        total = sum(faces)
        facts.append(f"{node.text} rolled "
                     + (f"{'+'.join(map(str, faces))}=" if node.count > 1 else "") + str(total))
        return total
    if isinstance(node, Pool):
        return _read_pool(node, read(node.count, values, rng, facts), rng, facts)
    return apply(node, tuple(read(c, values, rng, facts) for c in children(node)))


def _read_pool(node: Pool, count: int, rng: np.random.Generator | None,
               facts: list[str]) -> int:
    """Roll a pool die by die (explosions included) and say what it showed."""
    from .syntax import MAX_EXPLOSIONS

    if rng is None:
        raise ValueError("successes(...) rolls dice: pass rng (a numpy Generator)")
    faces: list[str] = []
    total = 0
    for _ in range(max(0, count)):
        chain = 0
        while True:
            face = int(rng.integers(1, node.sides + 1))
            total += face >= node.at_least
            explodes = bool(node.explode) and face >= node.explode and chain < MAX_EXPLOSIONS
            faces.append(f"{face}!" if explodes else str(face))
            if not explodes:
                break
            chain += 1
    facts.append(f"{max(0, count)}d{node.sides} rolled {' '.join(faces) or 'nothing'}: "
                 f"{total} at {node.at_least}+")
    return total


def show_value(value: Any) -> str:
    """A value as the language writes it: ``true``, ``"buckler"``, ``4``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    return str(value)


# --- exact distribution ----------------------------------------------------------------------------
def distribution(node: Node, values: Mapping[str, Any]) -> Distribution:
    """The exact distribution of ``node`` for one fight.

    Every dice term is its own independent roll and appears once in the tree, so the parts
    of a node are independent and its distribution is the image of their product: exact, by
    enumeration of the parts' (already merged) supports -- no Monte Carlo, no floats.
    """
    from ..dice import pmf

    if isinstance(node, Ref):
        return {values[node.name]: Fraction(1)}
    if isinstance(node, Dice):
        return dict(pmf(node.count, node.sides))
    if isinstance(node, Pool):
        return _pool_distribution(node, distribution(node.count, values))
    parts = [distribution(c, values) for c in children(node)]
    out: dict[Any, Fraction] = {}
    for combination in itertools.product(*(d.items() for d in parts)):
        value = apply(node, tuple(v for v, _ in combination))
        p = math.prod((q for _, q in combination), start=Fraction(1))
        out[value] = out.get(value, Fraction(0)) + p
    return dict(sorted(out.items()))


def _pool_distribution(node: Pool, counts: Distribution) -> Distribution:
    out: dict[Any, Fraction] = {}
    for count, p in counts.items():
        for successes, q in pool_pmf(max(0, count), node.sides, node.at_least,
                                     node.explode).items():
            out[successes] = out.get(successes, Fraction(0)) + p * q
    return dict(sorted(out.items()))


@functools.cache
def die_successes(sides: int, at_least: int, explode: int) -> dict[int, Fraction]:
    """Exact distribution of the successes one pool die scores, its explosions included
    (at most ``MAX_EXPLOSIONS`` in a row)."""
    from .syntax import MAX_EXPLOSIONS

    one = Fraction(1, sides)
    law: dict[int, Fraction] = {0: Fraction(1)}  # after the last allowed explosion: none
    for left in range(MAX_EXPLOSIONS + 1):
        step: dict[int, Fraction] = {}
        for face in range(1, sides + 1):
            hit = int(face >= at_least)
            more = law if explode and face >= explode and left > 0 else {0: Fraction(1)}
            for k, p in more.items():
                step[hit + k] = step.get(hit + k, Fraction(0)) + one * p
        law = step
    return dict(sorted(law.items()))


@functools.cache
def pool_pmf(count: int, sides: int, at_least: int, explode: int) -> dict[int, Fraction]:
    """Exact distribution of the successes of ``count`` pool dice."""
    out: dict[int, Fraction] = {0: Fraction(1)}
    one = die_successes(sides, at_least, explode)
    for _ in range(count):
        step: dict[int, Fraction] = {}
        for a, p in out.items():
            for b, q in one.items():
                step[a + b] = step.get(a + b, Fraction(0)) + p * q
        out = step
    return dict(sorted(out.items()))


# --- bounds --------------------------------------------------------------------------------------
Interval = tuple[float, float]  # ends may be +-inf (a name declared without a range)


def bounds(node: Node, ranges: Mapping[str, tuple[int | None, int | None] | None]) -> Interval:
    """Lowest and highest value an int tree can take, given each name's declared range."""
    if isinstance(node, Int):
        return (node.value, node.value)
    if isinstance(node, Ref):
        declared_low, declared_high = ranges.get(node.name) or (None, None)
        return (-math.inf if declared_low is None else declared_low,
                math.inf if declared_high is None else declared_high)
    if isinstance(node, Dice):
        return (node.count, node.count * node.sides)
    if isinstance(node, Pool):
        from .syntax import MAX_EXPLOSIONS

        high = bounds(node.count, ranges)[1]
        per_die = 1 + (MAX_EXPLOSIONS if node.explode else 0)
        return (0, high * per_die if high > 0 else 0)
    if isinstance(node, Neg):
        low, high = bounds(node.operand, ranges)
        return (-high, -low)
    if isinstance(node, Arith):
        return _arith_bounds(node, bounds(node.left, ranges), bounds(node.right, ranges))
    if isinstance(node, Call):
        parts = [bounds(a, ranges) for a in node.args]
        pick = min if node.function == "min" else max
        return (pick(p[0] for p in parts), pick(p[1] for p in parts))
    if isinstance(node, IfElse):
        a, b = bounds(node.then, ranges), bounds(node.otherwise, ranges)
        return (min(a[0], b[0]), max(a[1], b[1]))
    raise TypeError(f"{type(node).__name__} is not a whole number")


def _arith_bounds(node: Arith, left: Interval, right: Interval) -> Interval:
    if node.op == "+":
        return (left[0] + right[0], left[1] + right[1])
    if node.op == "-":
        return (left[0] - right[1], left[1] - right[0])
    if node.op == "//":  # the divisor is a positive constant (the checker makes sure)
        divisor = right[0]
        return tuple(e if math.isinf(e) else e // divisor for e in left)  # type: ignore[return-value]
    ends = [_times(a, b) for a in left for b in right]
    return (min(ends), max(ends))


def _times(a: float, b: float) -> float:
    return 0 if a == 0 or b == 0 else a * b  # 0 x inf is 0 here: a zero end is a zero factor
