"""Checking a tree against the names a ruleset declares: every name known, every part of
the right type, every word one of its name's choices.

:func:`check` returns the same tree with each node's ``type`` set (``int``, ``bool`` or
``str``); every refusal is a :class:`LanguageError` pointing at the column of the part that
is wrong and saying what is allowed there.
"""

from __future__ import annotations

import dataclasses

from ..errors import did_you_mean
from .errors import LanguageError
from .names import Name, Names, kind_words
from .scalar import constant_value, show_value
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
    walk,
)

__all__ = ["check", "is_constant"]

ORDERING = ("<", "<=", ">", ">=")


def is_constant(node: Node) -> bool:
    """Whether a tree reads no names and rolls no dice."""
    return not any(isinstance(n, Ref | Dice | Pool) for n in walk(node))


class _Checker:
    def __init__(self, text: str, names: Names) -> None:
        self.text = text
        self.names = names

    def fail(self, node: Node, reason: str) -> LanguageError:
        return LanguageError(self.text, node.column, reason)

    def typed(self, node: Node, kind: str, **parts: object) -> Node:
        return dataclasses.replace(node, type=kind, **parts)  # type: ignore[arg-type]

    # --- one rule per kind of node -------------------------------------------------------------
    def check(self, node: Node) -> Node:
        if isinstance(node, Int | Dice):
            return self.typed(node, "int")
        if isinstance(node, Str):
            return self.typed(node, "str")
        if isinstance(node, Bool):
            return self.typed(node, "bool")
        if isinstance(node, Ref):
            return self.ref(node)
        if isinstance(node, Neg):
            return self.typed(node, "int", operand=self.expect(node.operand, "int", "'-'"))
        if isinstance(node, Not):
            return self.typed(node, "bool", operand=self.expect(node.operand, "bool", "'not'"))
        if isinstance(node, Arith):
            return self.arith(node)
        if isinstance(node, Logic):
            return self.typed(node, "bool", operands=tuple(
                self.expect(o, "bool", f"'{node.op}'") for o in node.operands))
        if isinstance(node, Compare):
            return self.compare(node)
        if isinstance(node, Member):
            return self.member(node)
        if isinstance(node, Call):
            return self.typed(node, "int", args=tuple(
                self.expect(a, "int", f"{node.function}(...)") for a in node.args))
        if isinstance(node, IfElse):
            return self.if_else(node)
        if isinstance(node, Pool):
            return self.pool(node)
        raise TypeError(f"unknown node {node!r}")

    def expect(self, node: Node, kind: str, what: str) -> Node:
        checked = self.check(node)
        if checked.type != kind:
            raise self.fail(node, f"{what} needs {kind_words(kind)} here, "
                                  f"and {self.describe(checked)}")
        return checked

    def describe(self, node: Node) -> str:
        """How an error names a part: ``target.shield is one of "none", ...``, ``3 is a
        whole number``."""
        if isinstance(node, Ref):
            return f"{node.name} is {self.names[node.name].allowed()}"
        if isinstance(node, Bool):
            return f"{show_value(node.value)} is a truth value"
        if isinstance(node, Int | Str):
            return f"{show_value(node.value)} is {kind_words(node.type)}"
        if isinstance(node, Dice):
            return f"{node.text} is a whole number (dice)"
        return f"the part at column {node.column} is {kind_words(node.type)}"

    def noun(self, node: Node) -> str:
        """A part named with its type: ``target.shield (one of "none", ...)``, ``3 (a whole
        number)``."""
        if isinstance(node, Ref):
            return f"{node.name} ({self.names[node.name].allowed()})"
        if isinstance(node, Int | Str | Bool):
            return f"{show_value(node.value)} ({kind_words(node.type)})"
        if isinstance(node, Dice):
            return f"{node.text} (a whole number)"
        return f"the part at column {node.column} ({kind_words(node.type)})"

    def ref(self, node: Ref) -> Node:
        if node.name not in self.names:
            raise self.fail(node, f"unknown name {node.name!r}"
                                  f"{did_you_mean(node.name, self.names)}; "
                                  f"names: {self.names.listing()}")
        return self.typed(node, self.names[node.name].kind)

    def arith(self, node: Arith) -> Node:
        left = self.expect(node.left, "int", f"'{node.op}'")
        right = self.expect(node.right, "int", f"'{node.op}'")
        if node.op == "//":
            if not is_constant(right):
                raise self.fail(right, "'//' divides by a fixed number (2, 3, ...), "
                                       "not by a name or dice")
            if constant_value(right) <= 0:
                raise self.fail(right, f"'//' divides by a positive number, "
                                       f"not {constant_value(right)}")
        return self.typed(node, "int", left=left, right=right)

    def pool(self, node: Pool) -> Node:
        from .scalar import bounds
        from .syntax import MAX_POOL

        count = self.expect(node.count, "int", "successes(...)")
        high = bounds(count, {k: n.range for k, n in self.names.items()})[1]
        if high > MAX_POOL:
            what = "it" if not isinstance(count, Ref) else count.name
            raise self.fail(node.count, f"successes(...) rolls at most {MAX_POOL} dice, and "
                                        f"{what} can be more (give its name a range)")
        return self.typed(node, "int", count=count)

    def if_else(self, node: IfElse) -> Node:
        condition = self.expect(node.condition, "bool", "'if'")
        then = self.check(node.then)
        if then.type == "str":
            raise self.fail(node.then, "'if ... else' chooses between numbers or between "
                                       f"conditions, and {self.describe(then)}")
        otherwise = self.check(node.otherwise)
        if otherwise.type != then.type:
            raise self.fail(node.otherwise, "the value after 'else' must be of the kind "
                                            f"before 'if' ({kind_words(then.type)}), and "
                                            f"{self.describe(otherwise)}")
        return self.typed(node, then.type, then=then, condition=condition, otherwise=otherwise)

    # --- comparisons -----------------------------------------------------------------------
    def compare(self, node: Compare) -> Node:
        operands = tuple(self.check(o) for o in node.operands)
        for op, left, right in zip(node.ops, operands, operands[1:], strict=False):
            self.comparable(op, left, right)
        return self.typed(node, "bool", operands=operands)

    def comparable(self, op: str, left: Node, right: Node) -> None:
        if left.type != right.type:
            raise self.fail(left, f"cannot compare {self.noun(left)} "
                                  f"with {self.noun(right)}")
        if left.type != "int" and op in ORDERING:
            raise self.fail(left, f"{op} orders numbers; {self.noun(left)} can only be "
                                  "compared with == or !=")
        if left.type == "str":
            self.same_words(left, right)

    def same_words(self, left: Node, right: Node) -> None:
        """A word compared with a str name must be one of its choices; two str names must
        share their choices (their codes then mean the same words)."""
        if isinstance(left, Ref) and isinstance(right, Ref):
            a, b = self.names[left.name], self.names[right.name]
            if a.choices != b.choices:
                raise self.fail(left, f"{left.name} and {right.name} hold different words "
                                      "and cannot be compared")
        elif isinstance(left, Ref) and isinstance(right, Str):
            self.word(right, left.name, self.names[left.name])
        elif isinstance(right, Ref) and isinstance(left, Str):
            self.word(left, right.name, self.names[right.name])

    def word(self, literal: Str, name: str, declared: Name) -> None:
        if literal.value not in declared.choices:
            raise self.fail(literal, f"{name} is never {show_value(literal.value)}"
                                     f"{did_you_mean(literal.value, declared.choices)}; "
                                     f"it is {declared.allowed()}")

    def member(self, node: Member) -> Node:
        operand = self.check(node.operand)
        if operand.type == "bool":
            raise self.fail(node.operand, "'in' looks for a number or a word in a list, and "
                                          f"{self.describe(operand)}")
        items = tuple(self.check(i) for i in node.items)
        for item in items:
            if item.type != operand.type:
                raise self.fail(item, f"the list holds {self.noun(item)}, but "
                                      f"{self.describe(operand)}")
            if isinstance(operand, Ref) and isinstance(item, Str):
                self.word(item, operand.name, self.names[operand.name])
        return self.typed(node, "bool", operand=operand, items=items)


def check(tree: Node, names: Names, text: str) -> Node:
    """``tree`` with every node typed, or the :class:`LanguageError` of its first mistake."""
    return _Checker(text, names).check(tree)
