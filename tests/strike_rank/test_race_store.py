"""The race model's score tables kept on disk between runs (:mod:`race_store`): read back
to the same numbers, never trusted when damaged, never in the way."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from balance.analysis import matchups
from balance.rulesets.strike_rank import kernel, policy, race, race_store
from balance.rulesets.strike_rank.presets import STYLE_PRESETS
from balance.rulesets.strike_rank.rules import Rules

PAIR = (STYLE_PRESETS["knight"],), (STYLE_PRESETS["gladiator"],)
OTHER_PAIR = (STYLE_PRESETS["archer"],), (STYLE_PRESETS["skirmisher"],)


def _fresh() -> None:
    """Forget every table this process holds in memory (the store is read again)."""
    race.clear_caches()
    policy.matchup_setup.cache_clear()
    kernel._static.cache_clear()


def _setup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str | None) -> None:
    if value is None:
        monkeypatch.delenv(race_store.ENV, raising=False)
    else:
        monkeypatch.setenv(race_store.ENV, value)
    _fresh()


@pytest.fixture(autouse=True)
def _forget_after() -> object:
    yield
    _fresh()


def test_tables_read_back_are_the_tables_computed(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    _setup(tmp_path, monkeypatch, str(tmp_path / "cache"))
    computed = policy.race_tables(Rules(), *PAIR)
    assert race._COUNTS["races"] > 0
    files = list((tmp_path / "cache").glob("race-*.jsonl"))
    # one line a table computed: the other side's view of the same races is not stored
    assert len(files) == 1 and len(files[0].read_text().splitlines()) == 1 < len(computed)
    _fresh()
    again = policy.race_tables(Rules(), *PAIR)
    assert race._COUNTS["races"] == 0  # every table read, none raced
    assert again == computed  # the same floats, bit for bit


def test_only_the_files_of_the_versions_used_last_are_kept(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    old = [cache / f"race-{i:016x}.jsonl" for i in range(5)]
    # not the store's: other names, or race-*.jsonl not named by a code hash (older still)
    theirs = ["notes.txt", "race-results.jsonl", "race-2024.jsonl", "race-00000000000000ff.json"]
    for i, path in enumerate([*old, *(cache / n for n in theirs)]):  # old[4] used last
        path.write_text("")
        os.utime(path, ns=(i * 10**9, (1000 + i % 5) * 10**9))
    _setup(tmp_path, monkeypatch, str(cache))
    policy.race_tables(Rules(), *PAIR)
    kept = sorted(p.name for p in cache.iterdir())
    current = [n for n in kept if n.startswith("race-") and n.endswith(".jsonl")
               and n not in theirs and cache / n not in old]
    assert len(current) == 1 and race_store.KEEP_OTHERS == 3
    assert kept == sorted([*current, *theirs, *(p.name for p in old[-3:])])


def test_a_file_it_may_not_delete_leaves_the_others_pruned(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    old = [cache / f"race-{i:016x}.jsonl" for i in range(6)]
    for i, path in enumerate(old):  # old[5] used last
        path.write_text("")
        os.utime(path, ns=(i * 10**9, (1000 + i) * 10**9))
    unlink = Path.unlink

    def guarded(path: Path, missing_ok: bool = False) -> None:
        if path == old[2]:  # the first it tries
            raise PermissionError(f"in use: {path}")
        unlink(path, missing_ok=missing_ok)

    monkeypatch.setattr(Path, "unlink", guarded)
    _setup(tmp_path, monkeypatch, str(cache))
    policy.race_tables(Rules(), *PAIR)
    assert [p.exists() for p in old] == [False, False, True, True, True, True]


def test_an_edited_or_torn_line_is_computed_again(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    _setup(tmp_path, monkeypatch, str(tmp_path))
    computed = [policy.race_tables(Rules(), *pair) for pair in (PAIR, OTHER_PAIR)]
    path = next(tmp_path.glob("race-*.jsonl"))
    lines = path.read_text().splitlines()
    edited = json.loads(lines[0])
    edited["scores"][0][0] = 0.5  # a number changed, its checksum kept
    path.write_text("\n".join([json.dumps(edited), lines[1][:-7], *lines[2:]]) + "\n")
    _fresh()
    assert [policy.race_tables(Rules(), *pair) for pair in (PAIR, OTHER_PAIR)] == computed
    assert race._COUNTS["races"] > 0


def test_the_store_can_be_turned_off_and_a_folder_it_cannot_write_is_passed_over(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _setup(tmp_path, monkeypatch, "off")
    computed = policy.race_tables(Rules(), *PAIR)
    assert race_store.folder() is None and not list(tmp_path.iterdir())
    blocked = tmp_path / "a file"
    blocked.write_text("in the way")
    _setup(tmp_path, monkeypatch, str(blocked / "cache"))
    assert policy.race_tables(Rules(), *PAIR) == computed


def test_a_process_whose_code_was_edited_keeps_no_store(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from balance import sources

    _setup(tmp_path, monkeypatch, str(tmp_path))
    monkeypatch.setattr(sources, "balance_hash", lambda: "edited-0123")
    policy.race_tables(Rules(), *PAIR)
    assert race._COUNTS["races"] > 0 and not list(tmp_path.iterdir())


def test_the_default_folder_follows_xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                        ) -> None:
    _setup(tmp_path, monkeypatch, None)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert race_store.folder() == tmp_path / "balance"


def test_a_key_tells_apart_any_field_of_the_rules_or_a_fighter() -> None:
    knight, gladiator = PAIR[0][0], PAIR[1][0]
    args = (Rules(), knight, gladiator, (0, 1), ((10, 5), (9, 4)), (1, 1), (0, 1, 2),
            (0, 1, 2), 0, ())
    key = race_store.key_of(args)
    assert key == race_store.key_of(args)
    from dataclasses import replace

    changed = [replace(knight, riposte_policy="never"), replace(knight, agility=knight.agility + 1)]
    for other in changed:
        assert race_store.key_of((args[0], other, *args[2:])) != key
    assert race_store.key_of((Rules(max_rounds=Rules().max_rounds + 1), *args[1:])) != key
    assert race_store.key_of((*args[:8], 1, ())) != key


def test_a_round_robin_counts_the_same_with_tables_computed_or_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    names = ["knight", "gladiator", "archer"]

    def robin() -> list[tuple[int, int, int]]:
        _fresh()
        table = matchups.round_robin("strike-rank", names, n=300, seed=4, method="simulate",
                                     workers=1)
        return list(zip(table["a_wins"], table["b_wins"], table["draws"], strict=True))

    _setup(tmp_path, monkeypatch, "off")
    alone = robin()
    monkeypatch.setenv(race_store.ENV, str(tmp_path))
    assert robin() == alone  # computed, and stored
    assert robin() == alone  # read
    assert race._COUNTS["races"] == 0
