"""Reading an expression: the grammar (lark, LALR) and the tree it gives.

The tree is plain frozen dataclasses (:class:`Node` and its kinds), every node carrying the
1-based column where it starts, so the checker can point at the part that is wrong.  Lark
is imported on the first parse, not with the package.

Nothing here evaluates anything: a name is a token, a call can only be ``min`` or ``max``,
and any other text (an attribute trick, ``__import__(...)``, a lambda) fails to parse.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

from .errors import LanguageError, one_line

__all__ = [
    "Arith",
    "Bool",
    "Call",
    "Compare",
    "Dice",
    "IfElse",
    "Int",
    "Logic",
    "Member",
    "Neg",
    "Node",
    "Not",
    "Pool",
    "Ref",
    "Str",
    "parse",
]

MAX_LITERAL = 2**31 - 1
MAX_DICE = 100  # dice in one term
MAX_SIDES = 1000
MAX_EXPLOSIONS = 10
"""A die of a pool explodes at most this many times in a row (the eleventh extra die counts
but rolls no more): it keeps a pool's distribution finite, hence exact."""
MAX_POOL = 100
"""Most dice a pool rolls before explosions (a count above it is refused by its range)."""

# The grammar in lark's EBNF.  Precedence, loosest first: `a if c else b`, `or`, `and`,
# `not`, comparisons (chained as in Python) and `in`, `+ -`, `* //`, unary `- +`, atoms.
# DICE outranks INT and NAME so `2d6` is one token, and needs no letter or digit after it
# so `d6x` is a name (then unknown) rather than dice followed by `x`.
GRAMMAR = r"""
?start: expr

?expr: or_test
     | or_test "if" or_test "else" expr       -> if_else

?or_test: and_test
        | or_test "or" and_test               -> or_
?and_test: not_test
         | and_test "and" not_test            -> and_
?not_test: comparison
         | "not" not_test                     -> not_

?comparison: sum
           | sum (COMPARE sum)+               -> compare
           | sum "in" "(" items ")"           -> member
           | sum "not" "in" "(" items ")"     -> not_member
items: item ("," item)* ","?
?item: SIGNED_INT -> integer
     | STRING     -> string
     | TRUE       -> true
     | FALSE      -> false

?sum: product
    | sum ADD product                         -> arith
?product: unary
        | product MUL unary                   -> arith
?unary: atom
      | ADD unary                             -> sign

?atom: INT                                    -> integer
     | DICE                                   -> dice
     | STRING                                 -> string
     | TRUE                                   -> true
     | FALSE                                  -> false
     | NAME                                   -> ref
     | (MIN | MAX) "(" expr ("," expr)* ")"   -> call
     | SUCCESSES "(" expr "," INT "," INT ("," INT)? ")" -> pool
     | "(" expr ")"

TRUE: "true"
FALSE: "false"
MIN: "min"
MAX: "max"
SUCCESSES: "successes"
COMPARE: "==" | "!=" | "<=" | ">=" | "<" | ">"
ADD: "+" | "-"
MUL: "*" | "//"
DICE.2: /[0-9]*d([0-9]+|%)(?![A-Za-z0-9_])/
INT: /[0-9]+/
SIGNED_INT: /[+-]?[0-9]+/
NAME: /[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)*/
STRING: /"[^"\n]*"/ | /'[^'\n]*'/

%ignore " "+
"""


# --- the tree ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Node:
    """A part of an expression; ``column`` is 1-based, ``type`` is set by the checker."""

    column: int
    type: str = field(default="", kw_only=True, compare=False)


@dataclass(frozen=True)
class Int(Node):
    value: int


@dataclass(frozen=True)
class Str(Node):
    value: str


@dataclass(frozen=True)
class Bool(Node):
    value: bool


@dataclass(frozen=True)
class Ref(Node):
    """A declared name, ``self.wounds``."""

    name: str


@dataclass(frozen=True)
class Dice(Node):
    """``count`` dice of ``sides`` sides, summed; ``text`` as written (``2d6``, ``d%``)."""

    count: int
    sides: int
    text: str


@dataclass(frozen=True)
class Pool(Node):
    """``successes(count, sides, at_least[, explode])``: roll ``count`` dice of ``sides``
    sides and count those showing ``at_least`` or more; a die showing ``explode`` or more
    (0: none) rolls one more die, which counts and may explode in turn, at most
    :data:`MAX_EXPLOSIONS` times in a row.  ``count`` is any whole number (below 0: none)."""

    count: Node
    sides: int
    at_least: int
    explode: int
    text: str


@dataclass(frozen=True)
class Neg(Node):
    operand: Node


@dataclass(frozen=True)
class Not(Node):
    operand: Node


@dataclass(frozen=True)
class Arith(Node):
    """``left op right`` for op in ``+ - * //``."""

    op: str
    left: Node
    right: Node


@dataclass(frozen=True)
class Logic(Node):
    """``and`` / ``or`` over two or more operands."""

    op: str
    operands: tuple[Node, ...]


@dataclass(frozen=True)
class Compare(Node):
    """``a op1 b op2 c ...``: each middle operand is read once, as in Python."""

    operands: tuple[Node, ...]
    ops: tuple[str, ...]


@dataclass(frozen=True)
class Member(Node):
    """``operand in (items)`` / ``not in``; the items are literals."""

    operand: Node
    items: tuple[Node, ...]
    negate: bool


@dataclass(frozen=True)
class Call(Node):
    """``min(...)`` / ``max(...)``."""

    function: str
    args: tuple[Node, ...]


@dataclass(frozen=True)
class IfElse(Node):
    """``then if condition else otherwise``."""

    then: Node
    condition: Node
    otherwise: Node


def children(node: Node) -> tuple[Node, ...]:
    """The direct parts of a node, in reading order."""
    if isinstance(node, Neg | Not):
        return (node.operand,)
    if isinstance(node, Arith):
        return (node.left, node.right)
    if isinstance(node, Logic | Compare):
        return node.operands
    if isinstance(node, Member):
        return (node.operand, *node.items)
    if isinstance(node, Call):
        return node.args
    if isinstance(node, Pool):
        return (node.count,)
    if isinstance(node, IfElse):
        return (node.then, node.condition, node.otherwise)
    return ()


def walk(node: Node) -> list[Node]:
    """Every node of the tree, parents before their parts."""
    out = [node]
    for child in children(node):
        out.extend(walk(child))
    return out


# --- parsing ------------------------------------------------------------------------------------
@functools.cache
def _parser() -> Any:
    import lark  # here, not at import: `import balance` stays fast

    parser = lark.Lark(GRAMMAR, parser="lalr", propagate_positions=True,
                       maybe_placeholders=False)
    return parser, _builder(lark)


def parse(text: str) -> Node:
    """The tree of ``text``, or a :class:`LanguageError` naming the column that cannot be
    read and what could stand there."""
    if not isinstance(text, str):
        raise LanguageError(str(text), None, "an expression must be a string")
    flat = one_line(text)
    if not flat.strip():
        raise LanguageError(text, None, "the expression is empty")
    import lark

    try:
        parser, build = _parser()
        tree = build.transform(parser.parse(flat))
    except lark.exceptions.VisitError as exc:  # a literal out of bounds, from the builder
        if isinstance(exc.orig_exc, LanguageError):
            raise LanguageError(text, exc.orig_exc.column, exc.orig_exc.detail) from None
        raise
    except lark.exceptions.UnexpectedInput as exc:
        raise _syntax_error(text, flat, exc) from None
    return tree


_TERMINAL_WORDS = {
    "INT": "a number", "SIGNED_INT": "a number", "DICE": "dice", "STRING": "a string",
    "NAME": "a name", "MIN": "min", "MAX": "max", "LPAR": "'('", "RPAR": "')'", "COMMA": "','",
    "COMPARE": "a comparison", "ADD": "'+' or '-'", "MUL": "'*' or '//'",
    "IF": "'if'", "ELSE": "'else'", "AND": "'and'", "OR": "'or'", "NOT": "'not'",
    "IN": "'in'", "TRUE": "true", "FALSE": "false", "$END": "the end",
}
# What designers coming from other languages write, and what this one spells instead.
_HINTS = {
    "=": "compare with ==", "&": "write 'and'", "|": "write 'or'", "!": "write 'not' or !=",
    "/": "divide with // (rounding down)", "%": "there is no %; d% is a d100",
    "[": "list choices in parentheses: x in (1, 2)", ".": "only the listed names can be read",
    "_": "names start with a letter",
}


def _expected(tokens: Any) -> str:
    words = sorted({_TERMINAL_WORDS.get(t, t.lower()) for t in tokens})
    return ", ".join(words)


def _syntax_error(text: str, flat: str, exc: Any) -> LanguageError:
    import lark

    column = getattr(exc, "column", None)
    if not isinstance(column, int) or column < 1:  # at the end of the text
        column = len(flat.rstrip()) + 1
    if isinstance(exc, lark.exceptions.UnexpectedCharacters):
        char = flat[column - 1]
        hint = _HINTS.get(char)
        if hint is None and (char == "=" or flat[column - 1:column + 1] in ("&&", "||")):
            hint = _HINTS[char]
        reason = f"cannot read {char!r}" + (f" ({hint})" if hint else "")
        expected = getattr(exc, "allowed", None)
    elif isinstance(exc, lark.exceptions.UnexpectedEOF) or (
            isinstance(exc, lark.exceptions.UnexpectedToken) and exc.token.type == "$END"):
        reason = "the expression ends too soon"
        column = len(flat.rstrip()) + 1
        expected = getattr(exc, "expected", None)
    else:
        token = exc.token
        word = _TERMINAL_WORDS.get(token.type, token.type.lower())
        reason = word + ("" if word.startswith("'") else f" {str(token)!r}") + " cannot stand here"
        if token.type == "LPAR" and flat[:column - 1].rstrip()[-1:].isalnum():
            reason += " (only min(...) and max(...) can be called)"
        expected = exc.expected
    if expected:
        reason += f"; expected {_expected(expected)}"
    return LanguageError(text, column, reason)


def _builder(lark: Any) -> Any:
    """The lark Transformer that builds :class:`Node` trees (made once, lark imported)."""

    def col(meta_or_token: Any) -> int:
        return int(meta_or_token.column)

    @lark.v_args(meta=True)
    class Build(lark.Transformer):
        def integer(self, meta: Any, children: list[Any]) -> Node:
            token = children[0]
            value = int(str(token))
            if abs(value) > MAX_LITERAL:
                raise LanguageError("", col(token), f"the number {token} is too large "
                                                    f"(at most {MAX_LITERAL:_})")
            return Int(col(token), value)

        def string(self, meta: Any, children: list[Any]) -> Node:
            return Str(col(children[0]), str(children[0])[1:-1])

        def true(self, meta: Any, children: list[Any]) -> Node:
            return Bool(col(children[0]), True)

        def false(self, meta: Any, children: list[Any]) -> Node:
            return Bool(col(children[0]), False)

        def ref(self, meta: Any, children: list[Any]) -> Node:
            return Ref(col(children[0]), str(children[0]))

        def dice(self, meta: Any, children: list[Any]) -> Node:
            token = children[0]
            return _dice(str(token), col(token))

        def sign(self, meta: Any, children: list[Any]) -> Node:
            op, operand = children
            return Neg(col(op), operand) if str(op) == "-" else operand

        def arith(self, meta: Any, children: list[Any]) -> Node:
            left, op, right = children
            return Arith(meta.column, str(op), left, right)

        def compare(self, meta: Any, children: list[Any]) -> Node:
            return Compare(meta.column, tuple(children[0::2]), tuple(map(str, children[1::2])))

        def member(self, meta: Any, children: list[Any]) -> Node:
            return Member(meta.column, children[0], tuple(children[1]), False)

        def not_member(self, meta: Any, children: list[Any]) -> Node:
            return Member(meta.column, children[0], tuple(children[1]), True)

        def items(self, meta: Any, children: list[Any]) -> list[Node]:
            return list(children)

        def not_(self, meta: Any, children: list[Any]) -> Node:
            return Not(meta.column, children[0])

        def and_(self, meta: Any, children: list[Any]) -> Node:
            return _logic("and", meta.column, children)

        def or_(self, meta: Any, children: list[Any]) -> Node:
            return _logic("or", meta.column, children)

        def call(self, meta: Any, children: list[Any]) -> Node:
            return Call(meta.column, str(children[0]), tuple(children[1:]))

        def pool(self, meta: Any, children: list[Any]) -> Node:
            count, *numbers = children[1:]
            return _pool(meta.column, count, [(int(str(t)), col(t)) for t in numbers])

        def if_else(self, meta: Any, children: list[Any]) -> Node:
            then, condition, otherwise = children
            return IfElse(meta.column, then, condition, otherwise)

    return Build()


def _logic(op: str, column: int, parts: list[Node]) -> Logic:
    """``a and b and c`` as one node with three operands (flattening the left nesting)."""
    left, right = parts
    if isinstance(left, Logic) and left.op == op:
        return Logic(column, op, (*left.operands, right))
    return Logic(column, op, (left, right))


def _pool(column: int, count: Node, numbers: list[tuple[int, int]]) -> Pool:
    (sides, at_sides), (at_least, at_least_column) = numbers[:2]
    explode, explode_column = numbers[2] if len(numbers) > 2 else (0, 0)
    if not 2 <= sides <= MAX_SIDES:
        raise LanguageError("", at_sides, f"successes(...): a die's sides must be 2..{MAX_SIDES}")
    if not 1 <= at_least <= sides:
        raise LanguageError("", at_least_column, f"successes(...): the face that succeeds must "
                                                 f"be 1..{sides}")
    if len(numbers) > 2 and not 2 <= explode <= sides:
        raise LanguageError("", explode_column, f"successes(...): the face that explodes must "
                                                f"be 2..{sides} (a die exploding on 1 would "
                                                "never stop)")
    text = f"successes(..., {sides}, {at_least}" + (f", {explode})" if explode else ")")
    return Pool(column, count, sides, at_least, explode, text)


def _dice(text: str, column: int) -> Dice:
    count_text, sides_text = text.split("d")
    count = int(count_text) if count_text else 1
    sides = 100 if sides_text == "%" else int(sides_text)
    if not 1 <= count <= MAX_DICE:
        raise LanguageError("", column, f"{text}: the number of dice must be 1..{MAX_DICE}")
    if not 1 <= sides <= MAX_SIDES:
        raise LanguageError("", column, f"{text}: a die's sides must be 1..{MAX_SIDES}")
    return Dice(column, count, sides, text)
