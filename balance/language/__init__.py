"""The rules language: conditions, amounts, modifiers and effects a designer writes as text.

Conventions, stated once:

* A ruleset declares the **names** its expressions may read (:class:`Names` of
  :class:`Name`: ``int`` with a range, ``bool``, or ``str`` with its choices).  An
  expression is parsed (lark, LALR), checked against them and compiled to NumPy once:
  :func:`compile_condition` gives true or false per fight, :func:`compile_amount` a whole
  number per fight (dice such as ``2d6+1`` included).  Nothing is ever ``eval``-ed.
* Every mistake is a :class:`LanguageError` (a :class:`~balance.errors.SpecError`: one line,
  exit status 2 on the command line) naming the text, the 1-based column and what is
  allowed there.
* :meth:`Expression.evaluate` takes an environment ``name -> array along axis 0`` (one
  entry per fight; scalars broadcast; words as integer codes) and a ``numpy`` Generator for
  dice; :meth:`Expression.read` and :meth:`~Expression.narrate` take one fight's values for
  the combat log, :meth:`~Expression.distribution` gives its exact distribution.
* Rows: a :class:`Modifier` adds an amount to a target (``attack``, ``damage``, ...) when a
  condition holds; an :class:`Effect` inflicts a condition, spends a resource or sets a state
  on an outcome.  A ruleset's :class:`Vocabulary` says which targets, outcomes, conditions,
  resources and states its rows may name, and reads rows from TOML tables.

The grammar and every rule are in ``docs/rules-language.md``.
"""

from __future__ import annotations

from .errors import LanguageError
from .expression import (
    Expression,
    Reading,
    UnknownRead,
    compile_amount,
    compile_condition,
    compile_expression,
)
from .names import KINDS, Name, Names
from .rows import (
    Effect,
    Firing,
    Modifier,
    Total,
    Vocabulary,
    fire,
    names_used,
    narrate_total,
    total,
)

__all__ = [
    "KINDS",
    "Effect",
    "Expression",
    "Firing",
    "LanguageError",
    "Modifier",
    "Name",
    "Names",
    "Reading",
    "Total",
    "UnknownRead",
    "Vocabulary",
    "compile_amount",
    "compile_condition",
    "compile_expression",
    "fire",
    "names_used",
    "narrate_total",
    "total",
]
