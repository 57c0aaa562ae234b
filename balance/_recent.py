"""A small memory of the last answers a process computed (a few: the same question asked
twice in a row by a command and its verdict, or a report and its page)."""

from __future__ import annotations

from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class Recent(dict[K, V], Generic[K, V]):
    """A dict that keeps at most ``size`` entries: :meth:`keep` drops the oldest first."""

    def __init__(self, size: int) -> None:
        super().__init__()
        self.size = size

    def keep(self, key: K, value: V) -> V:
        """Remember ``value`` under ``key`` (the oldest entries forgotten to make room)."""
        while key not in self and len(self) >= self.size:
            self.pop(next(iter(self)))
        self[key] = value
        return value
