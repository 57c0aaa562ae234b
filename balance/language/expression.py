"""A compiled expression: parsed and checked once, evaluated over whole batches of fights.

>>> from balance.language import Name, Names, compile_condition
>>> names = Names({"target.armour_rank": Name(int, range=(0, 6))})
>>> heavy = compile_condition("target.armour_rank >= 3", names)
>>> heavy.evaluate({"target.armour_rank": np.array([1, 3, 5])})
array([False,  True,  True])
>>> heavy.narrate({"target.armour_rank": 4})
'target.armour_rank >= 3 (target.armour_rank is 4)'
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from fractions import Fraction
from typing import Any, Literal, TypeAlias

import numpy as np

from .check import check, is_constant
from .errors import LanguageError
from .names import Names, kind_words
from .scalar import Distribution, bounds, constant_value, distribution, read
from .syntax import Dice, Node, Pool, Ref, parse, walk
from .vector import Compiled, vectorise

__all__ = ["Expression", "Reading", "UnknownRead", "compile_amount", "compile_condition",
           "compile_expression"]

Purpose: TypeAlias = Literal["condition", "amount"]
_TYPE_OF: dict[str, str] = {"condition": "bool", "amount": "int"}
_DTYPE: dict[str, Any] = {"condition": np.bool_, "amount": np.int64}


class Reading:
    """One fight's value of an expression and the facts it read (``x is 4``, ``2d6 rolled
    3+5=8``), for a combat log."""

    __slots__ = ("facts", "text", "value")

    def __init__(self, value: Any, text: str, facts: tuple[str, ...]) -> None:
        self.value = value
        self.text = text
        self.facts = facts

    def __repr__(self) -> str:
        return f"Reading({self.value!r}, {str(self)!r})"

    def __str__(self) -> str:
        """``text (facts)``, and ``= value`` for a number that is not written in the text."""
        out = self.text + (f" ({'; '.join(self.facts)})" if self.facts else "")
        if not isinstance(self.value, bool) and self.facts:
            out += f" = {self.value}"
        return out


class UnknownRead(LookupError):
    """An evaluation read a name passed as unknown (:meth:`Expression.evaluate`'s
    ``unknown``); ``name`` is the one it read."""

    def __init__(self, name: str) -> None:
        super().__init__(f"reads {name}, whose value is not given")
        self.name = name


class _Unknown:
    """Stands for the value of a name not given: every use raises :class:`UnknownRead`,
    so only an evaluation that never needs it (``False and x``, a branch not taken) ends."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def _read(self, *args: Any, **kwargs: Any) -> Any:
        raise UnknownRead(self.name)

    __array_ufunc__ = __array_function__ = __array__ = _read
    __bool__ = __int__ = __index__ = __float__ = __neg__ = __invert__ = _read
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _read
    __floordiv__ = __rfloordiv__ = __and__ = __rand__ = __or__ = __ror__ = _read
    __lt__ = __le__ = __gt__ = __ge__ = __eq__ = __ne__ = _read
    __hash__ = None  # type: ignore[assignment]


class Expression:
    """A condition (true or false per fight) or an amount (a whole number per fight).

    Made by :func:`compile_condition` / :func:`compile_amount`; immutable, hashable (by
    its text, purpose and names) and picklable (it is compiled again on unpickling), so it
    can sit in a frozen rules dataclass and travel to worker processes.

    Attributes
    ----------
    text
        As written.
    purpose
        ``"condition"`` or ``"amount"``.
    names_used
        The declared names it reads, in order of first appearance.
    has_dice
        Whether it rolls dice (then :meth:`evaluate` needs ``rng``).
    constant
        Its value if it reads no names and rolls no dice, else ``None``.
    range
        For an amount: ``(low, high)`` it can take given the names' declared ranges
        (``None`` for an unbounded end); for a condition ``None``.
    """

    __slots__ = ("_compiled", "_tree", "constant", "has_dice", "names", "names_used",
                 "purpose", "range", "text")
    text: str
    names: Names
    purpose: Purpose
    names_used: tuple[str, ...]
    has_dice: bool
    constant: Any
    range: tuple[int | None, int | None] | None
    _tree: Node
    _compiled: Compiled

    def __init__(self, text: str, names: Names, purpose: Purpose) -> None:
        tree = _checked(text, names, purpose)
        used = tuple(dict.fromkeys(n.name for n in walk(tree) if isinstance(n, Ref)))
        object.__setattr__(self, "text", text)
        object.__setattr__(self, "names", names)
        object.__setattr__(self, "purpose", purpose)
        object.__setattr__(self, "_tree", tree)
        object.__setattr__(self, "names_used", used)
        object.__setattr__(self, "has_dice", any(isinstance(n, Dice | Pool) for n in walk(tree)))
        object.__setattr__(self, "constant", constant_value(tree) if is_constant(tree) else None)
        object.__setattr__(self, "range", _range(tree, names) if purpose == "amount" else None)
        object.__setattr__(self, "_compiled", vectorise(tree, names))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"an Expression is immutable; cannot set {name!r}")

    def __reduce__(self) -> tuple[Any, ...]:  # compiled again (once a process) on unpickling
        return (_cached, (self.text, self.names, self.purpose))

    def __copy__(self) -> Expression:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Expression:  # immutable: itself
        return self

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Expression) and self.text == other.text
                and self.purpose == other.purpose and self.names == other.names)

    def __hash__(self) -> int:
        return hash((self.text, self.purpose, self.names))

    def __repr__(self) -> str:
        return f"<{self.purpose} {self.text!r}>"

    def __str__(self) -> str:
        return self.text

    # --- a batch of fights --------------------------------------------------------------------
    def evaluate(self, env: Mapping[str, Any], rng: np.random.Generator | None = None, *,
                 n: int | None = None, unknown: frozenset[str] = frozenset()) -> np.ndarray:
        """The value for every fight of a batch: a bool mask (condition) or int64 array.

        Parameters
        ----------
        env
            Each name in :attr:`names_used` -> a 1-d array, one entry per fight, or a scalar
            holding for every fight.  ``str`` names take integer codes
            (:meth:`Names.encode`); a word or an array of words is encoded here, slower.
        rng
            Needed when :attr:`has_dice`: each dice term is one vectorised draw from it.
        n
            The number of fights; by default the length of the arrays in ``env`` (those the
            expression reads first, else any), so needed only when all are scalars.
        unknown
            Names whose values are not given (left out of ``env``): an evaluation that
            needs one raises :class:`UnknownRead`; one the other values settle without it
            (``False and x``) does not.

        Returns
        -------
        numpy.ndarray
            Shape ``(n,)``, ``bool`` or ``int64``; a new array, never one of ``env``'s.
        """
        values, n = _prepare(self, env, n, unknown)
        result = self._compiled(values, rng, n)
        dtype = _DTYPE[self.purpose]
        if (isinstance(result, np.ndarray) and result.dtype == dtype and result.shape == (n,)
                and not any(result is v for v in values.values())):
            return result  # computed here, so new (a bare name, min(x), hand back env's own)
        out = np.empty(n, dtype=dtype)
        out[...] = result
        return out

    # --- one fight ------------------------------------------------------------------------
    def read(self, env: Mapping[str, Any], rng: np.random.Generator | None = None) -> Reading:
        """The value for one fight (scalars in ``env``; words or codes for ``str`` names),
        with the facts it rests on, for a narrated log."""
        facts: list[str] = []
        value = read(self._tree, _one_fight(self, env), rng, facts)
        return Reading(value, self.text, tuple(facts))

    def narrate(self, env: Mapping[str, Any], rng: np.random.Generator | None = None) -> str:
        """A short reading for a combat log: ``target.armour_rank >= 3 (target.armour_rank
        is 4)``; an amount that reads names or dice ends with ``= value``."""
        return str(self.read(env, rng))

    def distribution(self, env: Mapping[str, Any]) -> Distribution:
        """Exact probabilities of each value for one fight (``Fraction``, summing to 1):
        ``{True: p, False: 1 - p}`` for a condition (a value of probability zero left out)."""
        return distribution(self._tree, _one_fight(self, env))

    def probability(self, env: Mapping[str, Any]) -> Fraction:
        """For a condition: the exact probability that it holds in this fight."""
        if self.purpose != "condition":
            raise TypeError(f"{self!r} is an amount; use distribution()")
        return self.distribution(env).get(True, Fraction(0))


# --- compiling ----------------------------------------------------------------------------------
@functools.lru_cache(maxsize=1024)
def _cached(text: str, names: Names, purpose: Purpose) -> Expression:
    return Expression(text, names, purpose)


def compile_expression(text: str | int | bool, names: Names, purpose: Purpose, *,
                       where: str | None = None) -> Expression:
    """``text`` parsed, checked against ``names`` and compiled, once (cached by text, names
    and purpose).  An int (amount) or bool (condition) is taken as its literal.

    Raises
    ------
    LanguageError
        Naming ``where`` (a key path, if given), the text, the column and what is allowed.
    """
    if purpose not in _TYPE_OF:
        raise ValueError(f"purpose must be 'condition' or 'amount', got {purpose!r}")
    if not isinstance(names, Names):
        names = Names(names)
    text = _literal_text(text, purpose, where)
    try:
        return _cached(text, names, purpose)
    except LanguageError as exc:
        raise exc.at(where) from None


def compile_condition(text: str | bool, names: Names, *, where: str | None = None) -> Expression:
    """A condition: true or false per fight (see :func:`compile_expression`)."""
    return compile_expression(text, names, "condition", where=where)


def compile_amount(text: str | int, names: Names, *, where: str | None = None) -> Expression:
    """An amount: a whole number per fight (see :func:`compile_expression`)."""
    return compile_expression(text, names, "amount", where=where)


def _literal_text(text: Any, purpose: str, where: str | None) -> str:
    if isinstance(text, str):
        return text
    if purpose == "amount" and isinstance(text, int | np.integer) and not isinstance(text, bool):
        return str(int(text))
    if purpose == "condition" and isinstance(text, bool | np.bool_):
        return "true" if text else "false"
    want = "a whole number or a string" if purpose == "amount" else "true, false or a string"
    article = "an" if purpose == "amount" else "a"
    raise LanguageError(str(text), None, f"{article} {purpose} must be {want}, got "
                                         f"{type(text).__name__}", where=where)


def _checked(text: str, names: Names, purpose: Purpose) -> Node:
    tree = check(parse(text), names, text)
    want = _TYPE_OF[purpose]
    if tree.type != want:
        raise LanguageError(text, 1, f"{'a' if purpose == 'condition' else 'an'} {purpose} "
                                     f"must be {kind_words(want)}, and this is "
                                     f"{kind_words(tree.type)}")
    return tree


def _range(tree: Node, names: Names) -> tuple[int | None, int | None]:
    low, high = bounds(tree, {k: n.range for k, n in names.items()})
    return (None if low == -np.inf else int(low), None if high == np.inf else int(high))


# --- environments -------------------------------------------------------------------------------
def _missing(expression: Expression, name: str) -> KeyError:
    return KeyError(f"{expression.text!r} reads {name!r}, which the environment lacks")


def _prepare(expression: Expression, env: Mapping[str, Any], n: int | None,
             unknown: frozenset[str] = frozenset()) -> tuple[dict[str, Any], int]:
    """The values an expression reads, each a 1-d array of the batch length or a Python
    scalar (bools as bool, words as codes; an unknown name's stand-in), and that length."""
    values: dict[str, Any] = {}
    for name in expression.names_used:
        if name in unknown:
            values[name] = _Unknown(name)
            continue
        if name not in env:
            raise _missing(expression, name)
        value = env[name]
        declared = expression.names[name]
        if isinstance(value, np.ndarray | list | tuple):
            value = np.asarray(value)
            if value.ndim == 0:
                value = value.item()
            elif value.ndim != 1:
                raise ValueError(f"{name}: a 1-d array (one value per fight) or a scalar, "
                                 f"got shape {value.shape}")
            elif n is None:
                n = len(value)
            elif len(value) != n:
                raise ValueError(f"{name} holds {len(value)} values for a batch of {n} fights")
        values[name] = _as_kind(value, declared.kind, declared)
    if n is None:  # the names it reads are scalars: the batch is as long as the others
        n = next((len(v) for v in env.values() if isinstance(v, np.ndarray) and v.ndim == 1),
                 None)
    if n is None:
        raise ValueError(f"{expression.text!r}: every value is a scalar; pass n (the number "
                         "of fights)")
    return values, n


def _as_kind(value: Any, kind: str, declared: Any) -> Any:
    if isinstance(value, np.ndarray):
        if kind == "str" and value.dtype.kind in "UO":
            return declared.encode(value)
        if kind == "bool" and value.dtype != np.bool_:
            return value != 0
        if kind != "bool" and value.dtype.kind not in "iu":
            raise TypeError(f"values of a {kind} name must be integers "
                            f"(codes for words), got dtype {value.dtype}")
        return value
    if kind == "str" and isinstance(value, str):
        return declared.code(value)
    return bool(value) if kind == "bool" else int(value)


def _one_fight(expression: Expression, env: Mapping[str, Any]) -> dict[str, Any]:
    """One fight's values as the scalar reader takes them: Python ints and bools, words."""
    values: dict[str, Any] = {}
    for name in expression.names_used:
        if name not in env:
            raise _missing(expression, name)
        value = env[name]
        if isinstance(value, np.ndarray | np.generic):
            value = value.item()
        declared = expression.names[name]
        if declared.kind == "str":
            values[name] = declared.decode(declared.code(value) if isinstance(value, str)
                                           else value)
        else:
            values[name] = bool(value) if declared.kind == "bool" else int(value)
    return values

