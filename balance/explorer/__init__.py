"""The interactive explorer: change a stat or a rule, see the odds move.

``balance.explore()`` (in a notebook) and ``balance explore`` (a local web page) show an
ipywidgets panel for any ruleset: controls generated from the ruleset's field metadata for
both sides and the rule parameters; the answer as a control moves (exact where the solver
covers the matchup, Monte Carlo within a time budget otherwise, refined while idle) with
the fight-length distribution and the readings and policies it rests on; a compare mode on
common random numbers; a matchup matrix of presets whose cells narrate a fight; and "save as
experiment", which writes the question as a ``balance sweep`` TOML spec.

The logic is plain Python (:mod:`.question`, :mod:`.compute`) and is tested without a
browser; ipywidgets is imported only when a panel is built, so ``import balance`` never
needs it.
"""

from __future__ import annotations

from typing import Any

from .compute import CHUNK, Answer, Comparison, answer, compare
from .question import Control, Member, Question, controls, to_spec, to_toml

__all__ = ["CHUNK", "Answer", "Comparison", "Control", "Member", "Question", "answer",
           "compare", "controls", "explore", "to_spec", "to_toml"]


def explore(ruleset: str = "crt", a: Any = None, b: Any = None, /, *,
            rules: Any = None, seed: int = 1, background: bool = True,
            allow_import: bool = False, **options: Any) -> Any:
    """An interactive panel exploring one matchup of ``ruleset`` (needs ipywidgets:
    ``make explore`` in the checkout, or ``pip install -e '.[explore]'`` there).

    Parameters
    ----------
    ruleset
        Registry name (or installed entry point), or ``"package.module:OBJECT"`` with
        ``allow_import``.
    a, b
        Starting sides: a preset name or a list of them (default: the first two presets).
    rules
        Starting rule overrides (a mapping).
    seed
        Root seed of every Monte Carlo answer (``balance duel --seed`` reproduces them).
    background
        Answer in a background thread and refine while idle (the live panel); ``False``
        answers each change before returning (scripts and tests).
    allow_import
        Whether a ``"package.module:OBJECT"`` ruleset may be imported (that runs its code;
        without it such a path is refused, as by :func:`balance.duel`).
    **options
        Passed to :class:`balance.explorer.panel.Explorer` (``budget``, ``refine_s``,
        ``experiments``: the folder "save as experiment" writes to).

    Returns
    -------
    Explorer
        Displays as the panel; its ``controls``, ``answer`` and methods drive it from code.
    """
    from ..rulesets import resolve

    resolve(ruleset, allow_import=allow_import)  # refused here, before ipywidgets is needed
    try:
        from .panel import Explorer
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("balance.explore needs ipywidgets: make explore (pip install -e "
                          "'.[explore]' in the balance checkout)") from exc
    return Explorer(ruleset, a, b, rules=rules, seed=seed, background=background,
                    allow_import=allow_import, **options)
