"""The one error the rules language raises: a :class:`~balance.errors.SpecError` that names
the expression, the 1-based column and what is allowed, on one line."""

from __future__ import annotations

from ..errors import SpecError

__all__ = ["LanguageError"]


class LanguageError(SpecError):
    """A condition or amount a designer wrote that cannot be read or does not type-check.

    The message reads ``in "TEXT", column N: REASON`` (with ``where`` -- a key path such as
    ``weapons.war_pick.modifiers[0].when`` -- in front when given), so the command line
    prints it as one line and exits with status 2, like every other bad input.

    Attributes
    ----------
    text
        The expression as written.
    column
        1-based column of the offending part (``None``: the whole expression or a row key).
    """

    def __init__(self, text: str, column: int | None, reason: str, *,
                 where: str | None = None) -> None:
        self.text = text
        self.column = column
        self.detail = reason
        place = f"in {_quoted(text)}" + (f", column {column}" if column is not None else "")
        super().__init__(f"{place}: {reason}", where=where)

    def at(self, where: str | None) -> LanguageError:
        """The same error placed at ``where`` (a key path), or unchanged if ``where`` is None."""
        if where is None:
            return self
        return LanguageError(self.text, self.column, self.detail, where=where)

    def __reduce__(self) -> tuple[object, ...]:  # keyword-only ``where`` survives pickling
        return (_rebuild, (self.text, self.column, self.detail, self.where))


def _rebuild(text: str, column: int | None, reason: str, where: str | None) -> LanguageError:
    return LanguageError(text, column, reason, where=where)


def one_line(text: str) -> str:
    """``text`` with each newline or tab replaced by one space: the same length, so a column
    counted in it is a column of what was written (a TOML multi-line string included)."""
    return text.translate(_FLAT)


_FLAT = {ord("\n"): " ", ord("\r"): " ", ord("\t"): " "}


def _quoted(text: str) -> str:
    """The text in double quotes, or single quotes if it holds double quotes and no single."""
    text = one_line(text)
    return f"'{text}'" if '"' in text and "'" not in text else f'"{text}"'
