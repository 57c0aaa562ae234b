"""Errors raised for bad input.

Every error a user can cause by what they type derives from :class:`SpecError`, a
``ValueError`` whose message names the field (or file place) that was wrong and what is
allowed.  The command line turns it into one line on stderr and exit status 2.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["Interrupted", "IntractableError", "SpecError", "did_you_mean"]


class SpecError(ValueError):
    """Bad input: an unknown name, a wrong type, a value out of range, a malformed file.

    Parameters
    ----------
    message
        One sentence naming what was wrong and what is allowed.
    where
        Optional place of the error (``"a.0.agility"``, ``"experiments/x.toml: grid.axes[1]"``),
        prefixed to the message.
    """

    def __init__(self, message: str, *, where: str | None = None) -> None:
        self.where = where
        self.reason = message
        super().__init__(f"{where}: {message}" if where else message)


class IntractableError(SpecError):
    """An exact solution was asked for a configuration the solver cannot handle."""


def did_you_mean(name: object, choices: Iterable[object]) -> str:
    """``" (did you mean 'x'?)"`` naming the allowed names closest to a mistyped ``name``
    (``difflib`` similarity at least 0.6, at most three), or ``""`` when none is close."""
    import difflib

    text = str(name)
    names = [str(c) for c in choices]
    close = difflib.get_close_matches(text, names, n=3, cutoff=0.6)
    if not close:  # a different case or separator is still the same name to a reader
        folded = {n.lower().replace("-", "_"): n for n in names}
        close = [folded[k] for k in difflib.get_close_matches(
            text.lower().replace("-", "_"), list(folded), n=3, cutoff=0.6)]
    if not close:
        return ""
    return " (did you mean " + " or ".join(repr(c) for c in close) + "?)"


class Interrupted(KeyboardInterrupt):
    """A run stopped by a signal: Ctrl-C (``SIGINT``) or ``SIGTERM`` (what ``timeout`` and
    batch schedulers send), handled alike.  ``signum`` is the signal; the command line exits
    with ``128 + signum`` (130 for Ctrl-C, 143 for ``SIGTERM``)."""

    def __init__(self, signum: int = 2) -> None:
        super().__init__(f"stopped by signal {signum}")
        self.signum = signum
