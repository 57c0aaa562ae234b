"""One-line forms of modifier and effect rows, for the command line and short TOML.

A rulebook line reads as one sentence, so a row may too::

    "+1 to attack when target.armour_rank >= 3"
    "-1 to parry"
    "1d6 to damage when round == 1"
    "on success inflict entangled for 1d3 rounds when target.size <= 2"
    "on hit inflict slowed on self until removed"
    "on attack spend 1 ammunition"
    "on hit set target.stance to prone"

Each sentence becomes the same table the long form writes (``{to, amount, when}`` or
``{on, inflict, rounds, who, when}``...), which the :class:`~balance.language.Vocabulary`
then reads and checks like any other: a sentence is only a way of writing the table.  The
split is by the form's own words (``to``, ``when``, ``on``, ``inflict``, ``for ... rounds``,
``spend``, ``by``, ``set``), which no expression may use as a name.
"""

from __future__ import annotations

import re
from typing import Any

from ..errors import SpecError

__all__ = ["EFFECT_FORMS", "MODIFIER_FORM", "effect_table", "modifier_table"]

MODIFIER_FORM = "'AMOUNT to TARGET' or 'AMOUNT to TARGET when CONDITION'"
EFFECT_FORMS = ("'on OUTCOME inflict CONDITION [on WHO] [for ROUNDS rounds | until removed]', "
                "'on OUTCOME spend [AMOUNT] RESOURCE [by WHO]' or "
                "'on OUTCOME set WHO.STATE to VALUE', each optionally ending 'when CONDITION'")

_WORD = r"[A-Za-z_][A-Za-z0-9_]*"
_WHEN = re.compile(r"\s+when\s+(?P<when>\S.*)$", re.DOTALL)
_MODIFIER = re.compile(rf"^\s*(?P<amount>\S.*?)\s+to\s+(?P<to>{_WORD})\s*$", re.DOTALL)
_EFFECT = re.compile(rf"^\s*on\s+(?P<on>{_WORD})\s+(?P<action>inflict|spend|set)\s+(?P<rest>.*)$",
                     re.DOTALL)
_INFLICT = re.compile(rf"^(?P<inflict>{_WORD})(?:\s+on\s+(?P<who>{_WORD}))?"
                      rf"(?:\s+for\s+(?P<rounds>\S.*?)\s+rounds?|\s+(?P<until>until\s+removed))?"
                      r"\s*$", re.DOTALL)
_SPEND = re.compile(rf"^(?:(?P<amount>\S.*?)\s+)?(?P<spend>{_WORD})\s*$", re.DOTALL)
_BY = re.compile(rf"\s+by\s+(?P<who>{_WORD})\s*$")
_SET = re.compile(rf"^(?:(?P<who>{_WORD})\.)?(?P<set>{_WORD})\s+to\s+(?P<value>\S.*?)\s*$",
                  re.DOTALL)


def _split_when(text: str) -> tuple[str, dict[str, str]]:
    found = _WHEN.search(text)
    if found is None:
        return text, {}
    return text[:found.start()], {"when": found["when"].strip()}


def _number(text: str) -> Any:
    """A plain whole number as itself (so the table is what TOML would hold), else text."""
    return int(text) if re.fullmatch(r"[+-]?\d+", text.strip()) else text.strip()


def modifier_table(text: str, *, where: str) -> dict[str, Any]:
    """The table a one-line modifier stands for: ``"+1 to attack when X"`` ->
    ``{"amount": 1, "to": "attack", "when": "X"}``."""
    head, table = _split_when(text)
    found = _MODIFIER.match(head)
    if found is None:
        raise SpecError(f"a modifier written as one line is {MODIFIER_FORM}, got {text!r}",
                        where=where)
    return {"amount": _number(found["amount"]), "to": found["to"], **table}


def effect_table(text: str, *, where: str) -> dict[str, Any]:
    """The table a one-line effect stands for: ``"on success inflict entangled for 2
    rounds"`` -> ``{"on": "success", "inflict": "entangled", "rounds": 2}``."""
    head, table = _split_when(text)
    found = _EFFECT.match(head)
    part = None
    if found is not None:
        rest = found["rest"].strip()
        if found["action"] == "spend" and (by := _BY.search(rest)) is not None:
            rest, table["who"] = rest[:by.start()], by["who"]  # "spend 1 arrow by self"
        pattern = {"inflict": _INFLICT, "spend": _SPEND, "set": _SET}[found["action"]]
        part = pattern.match(rest)
    if found is None or part is None:
        raise SpecError(f"an effect written as one line is {EFFECT_FORMS}; got {text!r}",
                        where=where)
    out: dict[str, Any] = {"on": found["on"], **table}
    for key, value in part.groupdict().items():
        if value is None or key == "until":
            continue
        out[key] = _number(value) if key in ("rounds", "amount", "value") else value
    return out
