"""How the figures quoted in ``docs/strike-rank.md`` are computed (used by its test).

A figure comes from a ``balance duel`` call (:func:`duel`: the same numbers as the command
line with ``-n`` and ``--seed``) or from one cell of an experiment in ``experiments/``
(:func:`cell`: the same numbers as ``balance sweep`` gives for that cell, chunks and seed
included).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import balance
from balance import engine
from balance.experiments import expand, load_spec
from balance.experiments.runner import _stream_key
from balance.results import Summary

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "strike-rank.md"


def duel(a: Any, b: Any, n: int, seed: int, **rules: Any) -> Summary:
    """``balance duel strike-rank --a A --b B -n N --seed SEED --rule ...``."""
    return balance.duel("strike-rank", a, b, n=n, seed=seed, **rules)


def cell(experiment: str, **where: Any) -> Summary:
    """The cell of ``experiments/<experiment>.toml`` whose swept values are ``where``
    (axis fields with ``.`` written ``__``: ``a__0__agility=16``)."""
    spec = load_spec(ROOT / "experiments" / f"{experiment}.toml")
    wanted = {k.replace("__", "."): _frozen(v) for k, v in where.items()}
    found = [c for c in expand(spec)
             if all(_frozen(c.params.get(k)) == v for k, v in wanted.items())]
    if len(found) != 1:
        raise LookupError(f"{experiment}: {len(found)} cells match {wanted}")
    c = found[0]
    rs = balance.get(spec.ruleset)
    tally = engine.run(rs, c.rules, c.side_a, c.side_b, entropy=spec.seed, n=spec.fights,
                       key=_stream_key(spec, c), chunk_size=spec.chunk_size)
    return Summary(rs.name, tally, spec.confidence)


def _frozen(value: Any) -> Any:
    if isinstance(value, list | tuple):
        return tuple(_frozen(v) for v in value)
    return value
