"""The Python API a notebook user calls: ``duel``, ``exact``, ``fight``, ``get``.

>>> import balance
>>> s = balance.duel("crt", "bruggish", ["watchman"] * 3, n=100_000, seed=1)
>>> s.a_win, s.a_win_ci                                   # doctest: +SKIP
>>> s.to_frame()                                          # doctest: +SKIP
"""

from __future__ import annotations

import functools
import platform
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from ._version import __version__
from .engine import DEFAULT_CHUNK_SIZE, run
from .errors import SpecError
from .fields import plain
from .outcomes import Outcome, Probabilities
from .random import as_generator, root_entropy
from .resolving import get, matchup  # here for best play too, which the API runs
from .results import Summary, Tally
from .rulesets.base import Log, Ruleset

if TYPE_CHECKING:
    from .analysis.bestplay import BestPlay

__all__ = ["METHODS", "PLAYS", "best_play", "duel", "exact", "fight", "get", "matchup", "solve", "versions"]

DEFAULT_N = 100_000
PLAYS: tuple[str, ...] = ("default", "best")
"""How fighters choose: their policies as given, or best play (each side's policies chosen
as a zero-sum game; see :func:`best_play`)."""
METHODS: tuple[str, ...] = ("simulate", "exact")
"""How a matchup is answered: Monte Carlo (:func:`duel`) or the exact solver (:func:`exact`)."""


def check_play(play: str) -> None:
    if play not in PLAYS:
        raise SpecError(f"play must be one of {', '.join(PLAYS)}, got {play!r}")


def versions() -> dict[str, str]:
    """Versions of what the numbers depend on: balance, Python and the numerical libraries
    (numpy for the kernels, scipy for the solvers, pandas for the tables and analyses).
    Read from the installed package metadata, so nothing is imported for it."""
    out = {"balance": __version__, "numpy": np.__version__}
    for name in ("scipy", "pandas"):
        out[name] = _installed(name)
    out["python"] = platform.python_version()
    return out


@functools.cache
def _installed(name: str) -> str:
    """The installed version of package ``name`` (read once a process: the metadata scan
    costs a millisecond or two, and a process runs the code it imported)."""
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"


def duel(ruleset: str | Ruleset, a: Any, b: Any, /, *, rules: Any = None,
         n: int | None = None, precision: float | None = None, seed: int | None = None,
         chunk_size: int | None = None, confidence: float = 0.95, play: str = "default",
         draw_worth: float = 0.5, on_chunk: Callable[[Tally], None] | None = None,
         allow_import: bool = False, **rule_overrides: Any) -> Summary | BestPlay:
    """Simulate fights between side ``a`` and side ``b`` and summarise them.

    Parameters
    ----------
    ruleset
        Registry name (``"crt"``, ``"strike-rank"``, ``"zones"``, ``"pool"``), installed
        entry point, ruleset object, or ``"package.module:OBJECT"`` with ``allow_import``.
    a, b
        Each a combatant (preset name, ``"preset,field=value"`` spec, mapping of fields or
        combatant object) or a list of them for a group.
    rules
        A ``Rules`` object or a mapping of parameter overrides; ``**rule_overrides`` adds
        more.
    n
        Fights to run (default 100 000, or the cap when ``precision`` is given).  Under
        best play: fights per profile pair.
    precision
        Stop once every rate's 95% interval half-width is at most this.  Under best play:
        the value's half-width (default 0.01).
    seed
        Root seed; ``None`` draws fresh entropy, which is recorded in ``meta["entropy"]``.
    chunk_size
        Fights per kernel call; part of what makes a run reproducible.
    confidence
        Level of the reported intervals.
    play
        ``"default"`` (the policies as given) or ``"best"``: each side's policies chosen
        by Monte Carlo best play (:func:`best_play` with ``method="simulate"``).
    draw_worth
        Under best play: what a draw is worth to A (A maximises win + this x draw).
    on_chunk
        Called with the running tally after every chunk (a progress display; the policies
        as given only).
    allow_import
        Whether a ``"package.module:OBJECT"`` ruleset may be imported (that runs its code;
        without it such a path is refused, as ``--allow-import`` on the command line).

    Returns
    -------
    Summary
        Rates with intervals; ``.to_frame()`` for a table.  Under best play a
        :class:`~balance.analysis.bestplay.BestPlay`.
    """
    check_play(play)
    if play == "best":
        from .analysis.bestplay import CHUNK_SIZE, DEFAULT_PRECISION

        if n is None and precision is None:
            precision = DEFAULT_PRECISION
        return best_play(ruleset, a, b, rules=rules, method="simulate", n=n,
                         precision=precision, seed=seed, chunk_size=chunk_size or CHUNK_SIZE,
                         confidence=confidence, draw_worth=draw_worth,
                         allow_import=allow_import, **rule_overrides)
    chunk_size = chunk_size or DEFAULT_CHUNK_SIZE
    rs, rules_obj, side_a, side_b = matchup(ruleset, a, b, rules, allow_import=allow_import,
                                            **rule_overrides)
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
          play: str = "default", draw_worth: float = 0.5, allow_import: bool = False,
          **rule_overrides: Any) -> Probabilities | BestPlay:
    """The exact win / loss / draw probabilities, where the ruleset can solve the matchup.

    ``play="best"``: exact best play instead (:func:`best_play` with ``method="exact"``):
    the ruleset's state-by-state solver, else the matrix game of exact profile payoffs.

    ``allow_import``: as :func:`duel`.

    Raises :class:`~balance.errors.IntractableError` (a ``SpecError``) where it cannot.
    """
    check_play(play)
    if play == "best":
        return best_play(ruleset, a, b, rules=rules, method="exact", draw_worth=draw_worth,
                         allow_import=allow_import, **rule_overrides)
    rs, rules_obj, side_a, side_b = matchup(ruleset, a, b, rules, allow_import=allow_import,
                                            **rule_overrides)
    return solve(rs, rules_obj, side_a, side_b)


def best_play(ruleset: str | Ruleset, a: Any, b: Any, /, *, allow_import: bool = False,
              **options: Any) -> BestPlay:
    """Best play of side ``a`` against side ``b``: each side's policies chosen to do its
    best against the other's, a zero-sum game (exact where a solver reaches, else Monte
    Carlo over the policy profiles).  See :func:`balance.analysis.bestplay.best_play` for
    the options (``rules``, ``draw_worth``, ``method``, ``space``, ``search``,
    ``precision``, ``n``, ``seed``, ``allow_import``, ...)."""
    from .analysis import bestplay

    return bestplay.best_play(ruleset, a, b, allow_import=allow_import, **options)


def solve(rs: Ruleset, rules: Any, side_a: tuple[Any, ...], side_b: tuple[Any, ...]
          ) -> Probabilities:
    """``rs.exact`` on validated objects, with the readings and policies it rests on."""
    import dataclasses

    answer = rs.exact(rules, side_a, side_b)
    return dataclasses.replace(answer, assumptions=rs.assumptions(rules, side_a, side_b),
                               policies=rs.policies(rules, side_a, side_b))


def fight(ruleset: str | Ruleset, a: Any, b: Any, /, *, rules: Any = None,
          seed: int | None = None, log: Log | None = print, allow_import: bool = False,
          **rule_overrides: Any) -> Outcome:
    """One fight by the scalar reference implementation, narrated roll by roll to ``log``
    (``allow_import``: as :func:`duel`)."""
    rs, rules_obj, side_a, side_b = matchup(ruleset, a, b, rules, allow_import=allow_import,
                                            **rule_overrides)
    return rs.fight(rules_obj, side_a, side_b, rng=as_generator(seed), log=log)


def plain_fields(obj: Any) -> dict[str, Any]:
    """A dataclass instance's fields as JSON-ready values."""
    import dataclasses

    return {f.name: plain(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
