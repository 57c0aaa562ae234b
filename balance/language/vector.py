"""A checked tree compiled to NumPy: one closure per node, each taking the whole batch.

Fights run along axis 0.  A name's value is an array with one entry per fight, or a scalar
that holds for every fight; closures pass scalars through as scalars, so an expression over
scalars costs nothing per fight until the result is broadcast at the end.  Dice draw one
array per dice term (:func:`balance.dice.nd`), never a Python loop over fights.

Integer names may arrive in any integer dtype (kernels keep ``int8`` state); arithmetic
widens its operands to ``int64`` first, comparisons leave them as they are (NumPy compares
mixed integer types and Python ints exactly).  ``str`` names arrive as codes.  ``and`` /
``or`` / ``not`` are ``&`` / ``|`` / ``~`` on bool arrays: NumPy runs them several times
faster than ``logical_and`` and friends, with the same values on booleans.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from .check import is_constant
from .names import Names
from .scalar import constant_value
from .syntax import (
    Arith,
    Call,
    Compare,
    Dice,
    IfElse,
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

__all__ = ["Compiled", "vectorise"]

Compiled = Callable[[Mapping[str, Any], Any, int], Any]
"""``f(values, rng, n)``: the node's value over ``n`` fights (an array or a scalar)."""

_COMPARE: dict[str, Callable[[Any, Any], Any]] = {
    "==": np.equal, "!=": np.not_equal, "<": np.less, "<=": np.less_equal,
    ">": np.greater, ">=": np.greater_equal,
}
_ARITH: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "//": operator.floordiv,
}


def _wide(x: Any) -> Any:
    """``x`` as int64 if it is a narrower integer array (arithmetic must not wrap)."""
    if isinstance(x, np.ndarray) and x.dtype != np.int64:
        return x.astype(np.int64)
    return x


def _not(x: Any) -> Any:
    """Logical not of a bool array (``~``) or a scalar (``~True`` would be -2)."""
    return ~x if isinstance(x, np.ndarray) else not x


def vectorise(node: Node, names: Names) -> Compiled:
    """The closure computing a checked ``node`` over a batch of fights."""
    if is_constant(node):  # folded once here, not once per batch
        value = constant_value(node)
        return lambda values, rng, n: value
    if isinstance(node, Ref):
        name = node.name
        return lambda values, rng, n: values[name]
    if isinstance(node, Dice):
        return _dice(node)
    if isinstance(node, Pool):
        return _pool(node, vectorise(node.count, names))
    if isinstance(node, Compare):
        return _compare(node, names)
    if isinstance(node, Member):
        return _member(node, names)
    parts = [vectorise(c, names) for c in children(node)]
    if isinstance(node, Neg):
        (operand,) = parts
        return lambda values, rng, n: -_wide(operand(values, rng, n))
    if isinstance(node, Not):
        (operand,) = parts
        return lambda values, rng, n: _not(operand(values, rng, n))
    if isinstance(node, Arith):
        return _binary(_ARITH[node.op], parts, widen=True)
    if isinstance(node, Logic):
        return _logic(np.bitwise_and if node.op == "and" else np.bitwise_or, parts)
    if isinstance(node, Call):
        return _fold(np.minimum if node.function == "min" else np.maximum, parts, widen=True)
    if isinstance(node, IfElse):
        return _if_else(node, parts)
    raise TypeError(f"cannot vectorise {type(node).__name__}")


def _dice(node: Dice) -> Compiled:
    from ..dice import WordDice, nd

    count, sides, text = node.count, node.sides, node.text

    def roll(values: Mapping[str, Any], rng: Any, n: int) -> Any:
        if rng is None:
            raise ValueError(f"{text} rolls dice: pass rng (a numpy Generator)")
        if isinstance(rng, WordDice):  # a kernel's cheaper source of the same dice
            return rng.nd(count, sides, n)
        return nd(count, sides, n, rng=rng)

    return roll


def _pool(node: Pool, count: Compiled) -> Compiled:
    """A pool over a batch: every fight's dice drawn at once (as many columns as the
    largest count), and each explosion a further draw for the dice that exploded."""
    from .syntax import MAX_EXPLOSIONS, MAX_POOL

    sides, at_least, explode = node.sides, node.at_least, node.explode

    def roll(values: Mapping[str, Any], rng: Any, n: int) -> Any:
        if rng is None:
            raise ValueError("successes(...) rolls dice: pass rng (a numpy Generator)")
        counts = np.clip(np.broadcast_to(np.asarray(count(values, rng, n)), (n,)), 0, MAX_POOL)
        width = int(counts.max()) if n else 0
        faces = rng.integers(1, sides + 1, size=(n, width), dtype=np.int16)
        rolled = np.arange(width)[None, :] < counts[:, None]
        total = ((faces >= at_least) & rolled).sum(axis=1, dtype=np.int64)
        if explode:
            live = ((faces >= explode) & rolled).sum(axis=1)
            for _ in range(MAX_EXPLOSIONS):
                if not live.any():
                    break
                width = int(live.max())
                faces = rng.integers(1, sides + 1, size=(n, width), dtype=np.int16)
                rolled = np.arange(width)[None, :] < live[:, None]
                total += ((faces >= at_least) & rolled).sum(axis=1)
                live = ((faces >= explode) & rolled).sum(axis=1)
        return total

    return roll


def _binary(op: Callable[[Any, Any], Any], parts: list[Compiled], *, widen: bool) -> Compiled:
    left, right = parts
    if widen:
        return lambda values, rng, n: op(_wide(left(values, rng, n)), _wide(right(values, rng, n)))
    return lambda values, rng, n: op(left(values, rng, n), right(values, rng, n))


def _fold(op: Callable[[Any, Any], Any], parts: list[Compiled], *, widen: bool) -> Compiled:
    if len(parts) == 1:
        (only,) = parts
        return lambda values, rng, n: _wide(only(values, rng, n)) if widen else only(values, rng, n)
    if len(parts) == 2:
        return _binary(op, parts, widen=widen)
    wrap = _wide if widen else (lambda x: x)

    def fold(values: Mapping[str, Any], rng: Any, n: int) -> Any:
        return functools.reduce(op, [wrap(p(values, rng, n)) for p in parts])

    return fold


def _logic(op: Any, parts: list[Compiled]) -> Compiled:
    """``and`` / ``or``: each part computed in turn and folded into the first array the
    fold owns, in place -- one live temporary instead of one per part (fewer fresh pages
    for the allocator to fault in, which costs more than the operation itself).  A scalar
    that settles the whole (``False and ...``, ``True or ...``: a condition on a value
    fixed for the batch) stops the fold, so the parts after it, their dice included, are
    not computed for a batch that cannot use them."""

    settled = op is np.bitwise_or  # the scalar that decides the whole: True for or, False for and

    def fold(values: Mapping[str, Any], rng: Any, n: int) -> Any:
        result = parts[0](values, rng, n)
        owned = False
        for part in parts[1:]:
            if not isinstance(result, np.ndarray) and bool(result) is settled:
                return result  # a scalar already decides it (a policy for another setting)
            x = part(values, rng, n)
            if owned:
                op(result, x, out=result)
            else:
                result = op(result, x)
                owned = isinstance(result, np.ndarray)
        return result

    return fold


def _if_else(node: IfElse, parts: list[Compiled]) -> Compiled:
    then, condition, otherwise = parts
    wrap = _wide if node.type == "int" else (lambda x: x)

    def choose(values: Mapping[str, Any], rng: Any, n: int) -> Any:
        # Both branches are computed for the whole batch (their dice rolled for every fight)
        # and the condition picks per fight: one array operation instead of a split batch.
        # A condition fixed for the batch (a scalar) computes only the branch it picks.
        held = condition(values, rng, n)
        if not isinstance(held, np.ndarray):
            return wrap((then if held else otherwise)(values, rng, n))
        return np.where(held, wrap(then(values, rng, n)), wrap(otherwise(values, rng, n)))

    return choose


# --- comparisons: words become codes -----------------------------------------------------------
_VALUE = object()  # marks an operand whose value is computed, not a word


def _word(node: Node, partner: Node, names: Names) -> Any:
    """A word as its pair compares it: the code of the str name beside it, or the word
    itself beside another word; :data:`_VALUE` for any operand that is not a word."""
    if not isinstance(node, Str):
        return _VALUE
    return names[partner.name].code(node.value) if isinstance(partner, Ref) else node.value


def _compare(node: Compare, names: Names) -> Compiled:
    operands = node.operands
    computed = [None if isinstance(o, Str) else vectorise(o, names) for o in operands]
    # each pair's operands: a word is a constant per pair (its code depends on its partner)
    pairs = [(_COMPARE[op], _word(a, b, names), _word(b, a, names))
             for op, a, b in zip(node.ops, operands, operands[1:], strict=False)]
    if len(pairs) == 1:
        op, word_a, word_b = pairs[0]
        left = computed[0] or (lambda values, rng, n: word_a)
        right = computed[1] or (lambda values, rng, n: word_b)
        return lambda values, rng, n: op(left(values, rng, n), right(values, rng, n))

    def chain(values: Mapping[str, Any], rng: Any, n: int) -> Any:
        got = [f(values, rng, n) if f is not None else None for f in computed]  # once each
        result: Any = True
        for k, (op, word_a, word_b) in enumerate(pairs):
            a = got[k] if word_a is _VALUE else word_a
            b = got[k + 1] if word_b is _VALUE else word_b
            result = result & op(a, b)
        return result

    return chain


def _member(node: Member, names: Names) -> Compiled:
    operand = vectorise(node.operand, names)
    if isinstance(node.operand, Ref) and node.operand.type == "str":
        declared = names[node.operand.name]
        items = tuple(dict.fromkeys(declared.code(i.value) for i in node.items))  # type: ignore[attr-defined]
    else:
        items = tuple(dict.fromkeys(i.value for i in node.items))  # type: ignore[attr-defined]
    negate = node.negate

    def member(values: Mapping[str, Any], rng: Any, n: int) -> Any:
        x = operand(values, rng, n)
        # A short list: one comparison per item beats np.isin's sort.
        found = functools.reduce(operator.or_, [np.equal(x, item) for item in items])
        return _not(found) if negate else found

    return member
