"""An independent oracle for the rules language: random well-typed expressions, each drawn
together with a plain Python function computing it.

The text and the function are built side by side from the same draws, never by reading the
text back, so a test comparing the compiled expression with the function checks the parser,
the checker and both evaluators against Python's own operators.  Every compound part is
parenthesised (precedence has its own tests); each function evaluates its parts in the order
they are written, so the dice it is handed (``rolls``, one sum per dice term in reading
order) line up with the text.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
from hypothesis import strategies as st

from balance.language import Name, Names

SHIELDS = ("none", "buckler", "target", "kite")
STANCES = ("aggressive", "defensive", "none")
INT_NAMES = {"self.wounds": (0, 10), "target.armour_rank": (0, 6), "round": (1, 50),
             "foes_engaged": (0, 4), "self.edge": (-5, 5)}
STR_NAMES = {"target.shield": SHIELDS, "self.stance": STANCES, "target.stance": STANCES}
BOOL_NAMES = ("mounted", "self.prone")

NAMES = Names(
    {k: Name(int, range=r, doc=f"{k} for the tests") for k, r in INT_NAMES.items()}
    | {k: Name(str, choices=c) for k, c in STR_NAMES.items()}
    | {k: Name(bool) for k in BOOL_NAMES})

Fn = Callable[[dict[str, Any], Iterator[int]], Any]
"""``fn(env, rolls)``: the value for one fight (words for str names), dice from ``rolls``."""


@dataclass(frozen=True)
class Drawn:
    text: str
    fn: Fn
    dice: tuple[tuple[int, int], ...]  # (count, sides) of each dice term, in reading order


def _lit(text: str, value: Any) -> Drawn:
    return Drawn(text, lambda env, rolls: value, ())


def _name(name: str) -> Drawn:
    return Drawn(name, lambda env, rolls: env[name], ())


def _join(parts: list[Drawn], text: str, combine: Callable[..., Any]) -> Drawn:
    def fn(env: dict[str, Any], rolls: Iterator[int]) -> Any:
        values = [p.fn(env, rolls) for p in parts]  # in reading order: no short circuit
        return combine(*values)

    return Drawn(text, fn, tuple(d for p in parts for d in p.dice))


DICE = [(1, 2), (1, 3), (1, 4), (2, 3), (1, 6)]


def _dice(count: int, sides: int, spelled: str) -> Drawn:
    return Drawn(spelled, lambda env, rolls: next(rolls), ((count, sides),))


@st.composite
def ints(draw: st.DrawFn, depth: int = 3, dice: bool = False) -> Drawn:
    kinds = ["literal", "name"] + (["dice"] if dice else [])
    if depth > 0:
        kinds += ["neg", "arith", "floordiv", "minmax", "if"]
    kind = draw(st.sampled_from(kinds))
    if kind == "literal":
        value = draw(st.integers(-20, 20))
        return _lit(str(value) if value >= 0 else f"({value})", value)
    if kind == "name":
        return _name(draw(st.sampled_from(sorted(INT_NAMES))))
    if kind == "dice":
        count, sides = draw(st.sampled_from(DICE))
        spelled = draw(st.sampled_from([f"{count}d{sides}"] + ([f"d{sides}"] if count == 1
                                                                else [])))
        return _dice(count, sides, spelled)
    sub = ints(depth - 1, dice)
    if kind == "neg":
        a = draw(sub)
        return _join([a], f"(-{a.text})", lambda x: -x)
    if kind == "arith":
        a, b = draw(sub), draw(sub)
        op = draw(st.sampled_from(["+", "-", "*"]))
        combine = {"+": lambda x, y: x + y, "-": lambda x, y: x - y, "*": lambda x, y: x * y}[op]
        return _join([a, b], f"({a.text} {op} {b.text})", combine)
    if kind == "floordiv":
        a, divisor = draw(sub), draw(st.integers(1, 7))
        return _join([a], f"({a.text} // {divisor})", lambda x: x // divisor)
    if kind == "minmax":
        parts = draw(st.lists(sub, min_size=1, max_size=3))
        function = draw(st.sampled_from(["min", "max"]))
        pick = min if function == "min" else max
        return _join(parts, f"{function}({', '.join(p.text for p in parts)})",
                     lambda *xs: pick(xs))
    then, condition, otherwise = draw(sub), draw(bools(depth - 1, dice)), draw(sub)
    return _join([then, condition, otherwise],
                 f"({then.text} if {condition.text} else {otherwise.text})",
                 lambda t, c, o: t if c else o)


COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}


@st.composite
def bools(draw: st.DrawFn, depth: int = 3, dice: bool = False) -> Drawn:
    kinds = ["literal", "name", "words", "compare"]
    if depth > 0:
        kinds += ["chain", "not", "logic", "member", "if"]
    kind = draw(st.sampled_from(kinds))
    sub_int = ints(max(depth - 1, 0), dice)
    if kind == "literal":
        value = draw(st.booleans())
        return _lit("true" if value else "false", value)
    if kind == "name":
        return _name(draw(st.sampled_from(BOOL_NAMES)))
    if kind == "words":
        return draw(_words())
    if kind == "compare":
        a, b = draw(sub_int), draw(sub_int)
        op = draw(st.sampled_from(sorted(COMPARE)))
        return _join([a, b], f"({a.text} {op} {b.text})", COMPARE[op])
    sub = bools(depth - 1, dice)
    if kind == "chain":
        parts = draw(st.lists(sub_int, min_size=3, max_size=4))
        ops = [draw(st.sampled_from(sorted(COMPARE))) for _ in parts[1:]]
        text = parts[0].text + "".join(f" {op} {p.text}" for op, p in zip(ops, parts[1:],
                                                                          strict=True))
        return _join(parts, f"({text})", lambda *xs: all(
            COMPARE[op](a, b) for op, a, b in zip(ops, xs, xs[1:], strict=False)))
    if kind == "not":
        a = draw(sub)
        return _join([a], f"(not {a.text})", lambda x: not x)
    if kind == "logic":
        parts = draw(st.lists(sub, min_size=2, max_size=3))
        op = draw(st.sampled_from(["and", "or"]))
        pick = all if op == "and" else any
        return _join(parts, "(" + f" {op} ".join(p.text for p in parts) + ")",
                     lambda *xs: pick(xs))
    if kind == "member":
        a = draw(sub_int)
        items = draw(st.lists(st.integers(-5, 12), min_size=1, max_size=4))
        negate = draw(st.booleans())
        listed = ", ".join(map(str, items))
        return _join([a], f"({a.text} {'not in' if negate else 'in'} ({listed}))",
                     lambda x: (x in items) != negate)
    then, condition, otherwise = draw(sub), draw(sub), draw(sub)
    return _join([then, condition, otherwise],
                 f"({then.text} if {condition.text} else {otherwise.text})",
                 lambda t, c, o: t if c else o)


@st.composite
def _words(draw: st.DrawFn) -> Drawn:
    """A comparison of a str name with a word, another str name of its kind, or a list."""
    name = draw(st.sampled_from(sorted(STR_NAMES)))
    choices = STR_NAMES[name]
    shape = draw(st.sampled_from(["word", "name", "member"]))
    op = draw(st.sampled_from(["==", "!="]))
    quote = draw(st.sampled_from(['"', "'"]))
    if shape == "word":
        word = draw(st.sampled_from(choices))
        a, b = _name(name), _lit(f"{quote}{word}{quote}", word)
        if draw(st.booleans()):
            a, b = b, a
        return _join([a, b], f"({a.text} {op} {b.text})", COMPARE[op])
    if shape == "name":
        other = draw(st.sampled_from([k for k, c in STR_NAMES.items() if c == choices]))
        return _join([_name(name), _name(other)], f"({name} {op} {other})", COMPARE[op])
    items = draw(st.lists(st.sampled_from(choices), min_size=1, max_size=3))
    negate = draw(st.booleans())
    listed = ", ".join(f"{quote}{w}{quote}" for w in items)
    return _join([_name(name)], f"({name} {'not in' if negate else 'in'} ({listed}))",
                 lambda x: (x in items) != negate)


# --- environments -------------------------------------------------------------------------------
def environment(seed: int, n: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A batch environment (arrays of assorted integer dtypes, some names scalars, str names
    as codes) and the same fights one by one as the oracle reads them (words)."""
    rng = np.random.default_rng(seed)
    batch: dict[str, Any] = {}
    for name, (low, high) in INT_NAMES.items():
        values = rng.integers(low, high + 1, size=n)
        batch[name] = (int(values[0]) if rng.random() < 0.2
                       else values.astype(rng.choice(["int8", "int16", "int64"])))
    for name, choices in STR_NAMES.items():
        codes = rng.integers(0, len(choices), size=n)
        batch[name] = int(codes[0]) if rng.random() < 0.2 else codes.astype(np.int8)
    for name in BOOL_NAMES:
        flags = rng.random(n) < 0.5
        batch[name] = bool(flags[0]) if rng.random() < 0.2 else flags
    fights = []
    for i in range(n):
        fight = {}
        for name, value in batch.items():
            v = value[i].item() if isinstance(value, np.ndarray) else value
            fight[name] = STR_NAMES[name][v] if name in STR_NAMES else v
        fights.append(fight)
    return batch, fights
