"""House rules: named rows of modifiers and effects held by one rule parameter.

A ruleset whose content has no rows of its own to hang a modifier on (crt's weapons are
three types, pool's tables map a name to one number) takes the designer's mechanics in one
rule parameter, ``house_rules``: a table of named rows, each with the two columns every
content row has in the rules language (``modifiers`` and ``effects``) and a ``doc`` line::

    [rules.house_rules.shield_against_two_handed]
    doc = "a shield adds 2 to the score against a two-handed weapon"
    modifiers = [{to = "score", amount = 2,
                  when = 'self.shield != "none" and target.weapon == "two_handed"'}]

Every row applies to every fighter (``self`` is the fighter it is read for, ``target`` the
foe it faces).  A modifier or effect without a ``name`` is named after its row, so the
combat log says which house rule fired.  :func:`read` compiles the rows against the
ruleset's :class:`~balance.language.Vocabulary` (cached: the rules are frozen and hashable),
every error naming its key path (``house_rules.shield_against_two_handed.modifiers[0].when``).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any, NamedTuple

from ..errors import SpecError
from ..fields import Table, param
from ..language import Effect, Modifier, Vocabulary, names_used
from ..reading import Reader, join

__all__ = ["COLUMNS", "HouseRules", "house_rules_param", "markdown", "read"]

COLUMNS = ("modifiers", "effects", "doc")
"""The columns of a house-rule row."""


class HouseRules(NamedTuple):
    """The compiled rows: every modifier and every effect, in the order written."""

    modifiers: tuple[Modifier, ...] = ()
    effects: tuple[Effect, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.modifiers or self.effects)

    def on(self, to: str) -> tuple[Modifier, ...]:
        """The modifiers on target ``to``."""
        return tuple(m for m in self.modifiers if m.to == to)

    @property
    def names(self) -> tuple[str, ...]:
        """Every name the rows read (``language.names_used``)."""
        return names_used(self.modifiers, self.effects)


def house_rules_param(ruleset: str, targets: str, outcomes: str = "") -> Any:
    """The ``house_rules`` rule parameter of ``ruleset`` (its doc line names the modifier
    ``targets`` and the ``outcomes`` effects hang on, if any)."""
    # TEXT: the seed's own rules have no house rules; rows a designer adds are not a
    # reading of the seed (so not among the DEFAULT / AMBIG readings results rest on)
    effects = f" and effects (on {outcomes})" if outcomes else ""
    return param(Table(), tag="TEXT", open_keys=True,
                 doc=f"house rules: named rows of modifiers (to {targets}){effects} in the "
                     f"rules language, each applying to every fighter; `balance show "
                     f"{ruleset}` lists the names they may read (docs/rules-language.md)")


def read(vocabulary: Vocabulary, rows: Mapping[str, Any], *,
         where: str = "house_rules") -> HouseRules:
    """Compile ``rows`` (name -> row table) against ``vocabulary``; a ``SpecError`` naming
    the key path of the first mistake.  Cached on the (hashable) vocabulary and rows."""
    try:
        if isinstance(rows, Table):  # keyed by the rows in order (equal Tables may differ)
            return _read(vocabulary, tuple(rows.items()), where)
        return _read.__wrapped__(vocabulary, tuple(rows.items()), where)
    except SpecError as exc:  # the key path is the error's place: a file or a spec that
        # re-places it prefixes its own name (rules.house_rules.r...), never a second path
        raise SpecError(exc.reason, where=exc.where) from None


@functools.lru_cache(maxsize=256)
def _read(vocabulary: Vocabulary, rows: tuple[tuple[str, Any], ...], where: str) -> HouseRules:
    reader = Reader(None)
    modifiers: list[Modifier] = []
    effects: list[Effect] = []
    for key, row in rows:
        place = join(where, key)
        if isinstance(row, str):  # one line: "+2 to score when ...", "on stroke ..."
            if row.lstrip().startswith("on "):
                effects.append(vocabulary.effect(row, where=place, name=key))
            else:
                modifiers.append(vocabulary.modifier(row, where=place, name=key))
            continue
        row = reader.table(row, place, COLUMNS)
        if "doc" in row:
            reader.text(row["doc"], join(place, "doc"))
        if not row.get("modifiers") and not row.get("effects"):
            raise reader.fail(place, "a house rule needs modifiers = [...] or effects = "
                                     "[...] (or both)")
        if "effects" in row and not vocabulary.outcomes:
            raise reader.fail(join(place, "effects"), "this ruleset's house rules take "
                                                     "modifiers only (no outcome for an "
                                                     "effect to hang on)")
        for i, item in enumerate(_items(row, "modifiers")):
            modifiers.append(vocabulary.modifier(item, where=join(join(place, "modifiers"), i),
                                                 name=key))
        for i, item in enumerate(_items(row, "effects")):
            effects.append(vocabulary.effect(item, where=join(join(place, "effects"), i),
                                             name=key))
    return HouseRules(tuple(modifiers), tuple(effects))


def _items(row: Mapping[str, Any], column: str) -> tuple[Any, ...]:
    """A column's rows: an array of tables (or one table, or one line, on its own)."""
    items = row.get(column, ())
    return tuple(items) if isinstance(items, list | tuple) else (items,)


def markdown(vocabulary: Vocabulary) -> str:
    """The names rows may read and the modifier targets, as the Markdown the ruleset pages
    print (``docs/crt.md``, ``docs/pool.md``; a test keeps them equal)."""
    targets = "\n".join(f"| `{key}` | {doc} |" for key, doc in vocabulary.targets.items())
    out = (vocabulary.names.markdown() + "\n\nModifier targets (`to = ...`):\n\n"
           "| target | what it adds to |\n|---|---|\n" + targets)
    for title, head, table in (("Outcomes effects hang on (`on = ...`)", "outcome",
                                vocabulary.outcomes),
                               ("Conditions (`inflict = ...`)", "condition",
                                vocabulary.conditions)):
        if table:
            out += (f"\n\n{title}:\n\n| {head} | meaning |\n|---|---|\n"
                    + "\n".join(f"| `{key}` | {doc} |" for key, doc in table.items()))
    if vocabulary.states:
        out += ("\n\nStates (`set = ...`, with `who` and `value`):\n\n"
                "| state | values | meaning |\n|---|---|---|\n"
                + "\n".join(f"| `{key}` | {name.allowed()} | {name.doc} |"
                             for key, name in vocabulary.states.items()))
    return out
