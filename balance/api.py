"""The Python API a notebook user calls: ``duel``, ``exact``, ``fight``, ``get``.

>>> import balance
>>> s = balance.duel("crt", "bruggish", ["watchman"] * 3, n=100_000, seed=1)
>>> s.a_win, s.a_win_ci                                   # doctest: +SKIP
>>> s.to_frame()                                          # doctest: +SKIP
"""

from __future__ import annotations

import platform
import time
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from ._version import __version__
from .engine import DEFAULT_CHUNK_SIZE, run
from .errors import SpecError
from .fields import plain
from .outcomes import Outcome, Probabilities
from .random import as_generator, root_entropy
from .results import Summary, Tally
from .rulesets import resolve
from .rulesets.base import Log, Ruleset

__all__ = ["duel", "exact", "fight", "get", "matchup", "solve", "versions"]

DEFAULT_N = 100_000


def get(ruleset: str | Ruleset) -> Ruleset:
    """The ruleset ``ruleset`` names: a built-in or installed name, or a
    ``"package.module:OBJECT"`` path (imported: in Python you asked for it), or the object."""
    return resolve(ruleset, allow_import=True)


def versions() -> dict[str, str]:
    """Versions of what the numbers depend on: balance, Python and the numerical libraries
    (numpy for the kernels, scipy for the solvers, pandas for the tables and analyses).
    Read from the installed package metadata, so nothing is imported for it."""
    from importlib import metadata

    out = {"balance": __version__, "numpy": np.__version__}
    for name in ("scipy", "pandas"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    out["python"] = platform.python_version()
    return out


def matchup(ruleset: str | Ruleset, a: Any, b: Any, rules: Any = None,
            **rule_overrides: Any) -> tuple[Ruleset, Any, tuple[Any, ...], tuple[Any, ...]]:
    """Resolve a ruleset name, rules and two sides to validated objects."""
    rs = get(ruleset)
    if isinstance(rules, rs.Rules):
        rules_obj = rs.rules(rules, **rule_overrides)
    elif rules is None or isinstance(rules, Mapping):
        overrides: dict[str, Any] = dict(rules or {})
        rules_obj = rs.rules({**overrides, **rule_overrides})
    else:
        raise SpecError(f"rules must be a {rs.name} Rules object or a mapping of overrides")
    side_a, side_b = rs.side(a), rs.side(b)
    rs.check_sides(rules_obj, side_a, side_b)
    return rs, rules_obj, side_a, side_b


def duel(ruleset: str | Ruleset, a: Any, b: Any, /, *, rules: Any = None,
         n: int | None = None, precision: float | None = None, seed: int | None = None,
         chunk_size: int = DEFAULT_CHUNK_SIZE, confidence: float = 0.95,
         on_chunk: Callable[[Tally], None] | None = None, **rule_overrides: Any) -> Summary:
    """Simulate fights between side ``a`` and side ``b`` and summarise them.

    Parameters
    ----------
    ruleset
        Registry name (``"crt"``, ``"strike-rank"``, ``"zones"``, ``"pool"``) or object.
    a, b
        Each a combatant (preset name, ``"preset,field=value"`` spec, mapping of fields or
        combatant object) or a list of them for a group.
    rules
        A ``Rules`` object or a mapping of parameter overrides; ``**rule_overrides`` adds
        more.
    n
        Fights to run (default 100 000, or the cap when ``precision`` is given).
    precision
        Stop once every rate's 95% interval half-width is at most this.
    seed
        Root seed; ``None`` draws fresh entropy, which is recorded in ``meta["entropy"]``.
    chunk_size
        Fights per kernel call; part of what makes a run reproducible.
    confidence
        Level of the reported intervals.
    on_chunk
        Called with the running :class:`~balance.results.Tally` after every chunk
        (progress reporting).

    Returns
    -------
    Summary
        Rates with intervals; ``.to_frame()`` for a table.
    """
    rs, rules_obj, side_a, side_b = matchup(ruleset, a, b, rules, **rule_overrides)
    if n is None and precision is None:
        n = DEFAULT_N
    entropy = root_entropy(seed)
    start = time.perf_counter()
    tally = run(rs, rules_obj, side_a, side_b, entropy=entropy, n=n, precision=precision,
                chunk_size=chunk_size, confidence=confidence, on_chunk=on_chunk)
    elapsed = time.perf_counter() - start
    meta = {"seed": seed, "entropy": entropy, "chunk_size": chunk_size, "precision": precision,
            "elapsed_s": elapsed, "fights_per_s": tally.n / elapsed if elapsed else None,
            "side_a": [plain_fields(c) for c in side_a], "side_b": [plain_fields(c) for c in side_b],
            "rules": plain_fields(rules_obj), "versions": versions()}
    return Summary(rs.name, tally, confidence, meta, rs.assumptions(rules_obj, side_a, side_b),
                   rs.policies(rules_obj, side_a, side_b))


def exact(ruleset: str | Ruleset, a: Any, b: Any, /, *, rules: Any = None,
          **rule_overrides: Any) -> Probabilities:
    """The exact win / loss / draw probabilities, where the ruleset can solve the matchup.

    Raises :class:`~balance.errors.IntractableError` (a ``SpecError``) where it cannot.
    """
    rs, rules_obj, side_a, side_b = matchup(ruleset, a, b, rules, **rule_overrides)
    return solve(rs, rules_obj, side_a, side_b)


def solve(rs: Ruleset, rules: Any, side_a: tuple[Any, ...], side_b: tuple[Any, ...]
          ) -> Probabilities:
    """``rs.exact`` on validated objects, with the readings and policies it rests on."""
    import dataclasses

    answer = rs.exact(rules, side_a, side_b)
    return dataclasses.replace(answer, assumptions=rs.assumptions(rules, side_a, side_b),
                               policies=rs.policies(rules, side_a, side_b))


def fight(ruleset: str | Ruleset, a: Any, b: Any, /, *, rules: Any = None,
          seed: int | None = None, log: Log | None = print, **rule_overrides: Any) -> Outcome:
    """One fight by the scalar reference implementation, narrated roll by roll to ``log``."""
    rs, rules_obj, side_a, side_b = matchup(ruleset, a, b, rules, **rule_overrides)
    return rs.fight(rules_obj, side_a, side_b, rng=as_generator(seed), log=log)


def plain_fields(obj: Any) -> dict[str, Any]:
    """A dataclass instance's fields as JSON-ready values."""
    import dataclasses

    return {f.name: plain(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
