"""Code runs only when asked, everywhere.

A ruleset named by import path (``package.module:OBJECT``) runs that module's code when it
is imported, so it is imported only with the user's permission: ``--allow-import`` on the
command line, ``allow_import=True`` in Python.  Here a module in the working folder (and on
``sys.path``, so nothing but the permission stands in the way) writes a marker file when
imported, and:

* every command of the parser (enumerated, so a new command without a row here fails) either
  refuses the path in one line with exit status 2 and never imports it, or takes no ruleset
  and never imports it either; with ``--allow-import`` each command that takes a ruleset
  works on it;
* every public function of :mod:`balance` and :mod:`balance.api` (enumerated likewise), and
  the other entries that take a ruleset (round robins, handicaps, reports, the contract
  helpers, bench, the explorer and its served page, an experiment's tunings), refuses it
  with the command line's message without ``allow_import=True``, and works with it;
* worker processes (a sweep's, a best-play round robin's) are given the permission the
  parent had, and nothing more.
"""

from __future__ import annotations

import argparse
import inspect
import json
import shutil
import socket
import subprocess
import sys
import types
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import pytest

import balance
import balance.api
from balance.cli import _build_parser, main
from balance.errors import SpecError
from balance.rulesets import portable

from ..sweep.helpers import ROOT

MARKED = """\
import pathlib

pathlib.Path(__file__).with_name("IMPORTED").write_text("this module was imported")

from tests.sweep.coin import Coin

RULESET = Coin()
"""

REFUSED_WORDS = "would import and run the Python module"


class Marked:
    """A module that marks its import, and where it does."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.module = f"marked_{uuid.uuid4().hex[:12]}"  # never imported before, anywhere
        (folder / f"{self.module}.py").write_text(MARKED)
        self.ref = f"{self.module}:RULESET"
        self.marker = folder / "IMPORTED"

    @property
    def imported(self) -> bool:
        return self.marker.exists()


class FakeVoila:
    """Stands for the Voila server: keeps the page it was asked to serve, and ends."""

    pages: ClassVar[list[str]] = []

    def __init__(self, command: list[str], **_: Any) -> None:
        FakeVoila.pages.append(Path(command[3]).read_text())

    def wait(self, timeout: float | None = None) -> int:
        return 0

    def terminate(self) -> None:
        pass


@pytest.fixture
def marked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Marked:
    import balance.explorer.serve as serve

    FakeVoila.pages = []
    monkeypatch.setattr(serve, "subprocess", types.SimpleNamespace(  # never a real server
        Popen=FakeVoila, DEVNULL=subprocess.DEVNULL))
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setattr(sys, "path", [str(work), str(ROOT), *sys.path])  # importable
    return Marked(work)


def spec_text(ref: str) -> str:
    return (f'ruleset = "{ref}"\ndescription = "fair against lucky"\n'
            '[[a]]\npreset = "fair"\n[[b]]\npreset = "lucky"\n'
            '[[grid.axes]]\nfield = "a.0.level"\nvalues = [0, 2]\n'
            "[run]\nfights = 400\nchunk_size = 200\nseed = 1\n")


def spec_file(m: Marked) -> str:
    path = m.folder / "exp.toml"
    path.write_text(spec_text(m.ref))
    return str(path)


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished crt run, copied by the cases that rename its ruleset."""
    folder = tmp_path_factory.mktemp("finished")
    (folder / "exp.toml").write_text(spec_text("crt").replace('"fair"', '"novice"').replace(
        '"lucky"', '"veteran"').replace("a.0.level", "a.0.skill"))
    balance.sweep(folder / "exp.toml", out=folder / "run", executor="serial", progress=False)
    return folder / "run"


def run_naming(m: Marked, run: Path) -> str:
    """A copy of a finished run whose record names the marked module as its ruleset."""
    target = m.folder / "run"
    shutil.copytree(run, target)
    meta = json.loads((target / "meta.json").read_text())
    meta["ruleset"] = meta["spec"]["ruleset"] = m.ref
    (target / "meta.json").write_text(json.dumps(meta))
    return str(target)


def cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        status = main(argv)
    except SystemExit as stop:
        status = int(stop.code or 0)
    out, err = capsys.readouterr()
    return status, out, err


# --- the command line ---------------------------------------------------------------------

Case = Callable[[Marked, Path], list[str]]
MATCHUP = ["--a", "fair", "--b", "lucky"]

# Commands that take a ruleset: what each is given (the ruleset by import path).
TAKES_A_RULESET: dict[str, Case] = {
    "show": lambda m, run: ["show", m.ref],
    "duel": lambda m, run: ["duel", m.ref, *MATCHUP, "-n", "400", "--seed", "1"],
    "exact": lambda m, run: ["exact", m.ref, *MATCHUP],
    "log": lambda m, run: ["log", m.ref, *MATCHUP, "--seed", "1"],
    "matchups": lambda m, run: ["matchups", m.ref, "--entrants", "fair,lucky", "-n", "200",
                                "--resamples", "20"],
    "bench": lambda m, run: ["bench", "--ruleset", m.ref, "--case", "fair",
                             "--seconds", "0.05", "--json"],
    "sweep": lambda m, run: ["sweep", spec_file(m), "--out", str(m.folder / "out"), "-q"],
    "report": lambda m, run: ["report", run_naming(m, run)],
    "tune": lambda m, run: ["tune", m.ref, *MATCHUP, "--knob", "a.0.level", "--method",
                            "exact", "-q"],
    "explore": lambda m, run: ["explore", m.ref, "--port", str(free_port())],
}

# Commands that take no ruleset: run beside the module (a run naming it, for plot), they
# never import it.
TAKES_NONE: dict[str, Case] = {
    "rulesets": lambda m, run: ["rulesets"],
    "new": lambda m, run: ["new", "ruleset", "fresh", "--out", str(m.folder)],
    "plot": lambda m, run: ["plot", run_naming(m, run), "--out", str(m.folder / "plots")],
    # crt's career: its ruleset is a fixed choice (crt only), never a path to import
    "campaign": lambda m, run: ["campaign", "crt", "--a", "novice", "--b", "novice",
                                "--fights", "2", "-n", "50", "--seed", "1"],
}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = _build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(sub.choices)


def test_every_command_has_a_row_and_each_ruleset_command_the_flag() -> None:
    commands = subcommands()
    assert set(commands) == set(TAKES_A_RULESET) | set(TAKES_NONE), (
        "a command without a row in this test: add it to TAKES_A_RULESET or TAKES_NONE")
    flagged = {name for name, p in commands.items()
               if any("--allow-import" in a.option_strings for a in p._actions)}
    assert flagged == set(TAKES_A_RULESET)


@pytest.mark.parametrize("command", sorted(TAKES_A_RULESET))
def test_without_the_flag_the_module_is_never_imported(
        command: str, marked: Marked, finished: Path, capsys: pytest.CaptureFixture[str]
        ) -> None:
    status, out, err = cli(TAKES_A_RULESET[command](marked, finished), capsys)
    assert status == 2, (out, err)
    assert err.count("\n") == 1 and err.startswith("balance: error: "), err
    assert REFUSED_WORDS in err and "--allow-import" in err and out == ""
    assert not marked.imported
    assert not (marked.folder / "out").exists()  # a refused sweep leaves no run folder


@pytest.mark.parametrize("command", sorted(TAKES_NONE))
def test_a_command_without_a_ruleset_never_imports_one(
        command: str, marked: Marked, finished: Path, capsys: pytest.CaptureFixture[str]
        ) -> None:
    status, _, err = cli(TAKES_NONE[command](marked, finished), capsys)
    assert status == 0, err
    assert not marked.imported


@pytest.mark.parametrize("command", sorted(TAKES_A_RULESET))
def test_with_the_flag_each_command_works_on_it(
        command: str, marked: Marked, finished: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    words = TAKES_A_RULESET[command](marked, finished)
    if command == "report":  # a run of the marked ruleset itself, made with permission
        words = ["report", str(marked.folder / "out")]
        assert cli(["sweep", spec_file(marked), "--out", words[1], "-q", "--allow-import"],
                   capsys)[0] == 0
    status, _, err = cli([*words, "--allow-import"], capsys)
    assert status == 0, err
    assert marked.imported
    if command == "explore":  # the page is given the permission, and where to import from
        (page,) = FakeVoila.pages
        source = "".join(json.loads(page)["cells"][0]["source"])
        assert "allow_import=True" in source and repr(str(marked.folder)) in source
        assert repr(marked.ref) in source


# --- the served page ----------------------------------------------------------------------


def test_the_page_refuses_an_import_path_it_was_not_allowed(marked: Marked) -> None:
    from balance.explorer.serve import page_notebook

    source = page_notebook(marked.ref, ["fair"], ["lucky"])["cells"][0]["source"]
    assert "allow_import" not in source
    with pytest.raises(SpecError, match=REFUSED_WORDS):
        exec(source, {})
    assert not marked.imported


def test_the_page_given_the_permission_imports_from_the_commands_folder(
        marked: Marked, monkeypatch: pytest.MonkeyPatch) -> None:
    from balance.explorer.serve import page_notebook

    elsewhere = marked.folder.parent / "elsewhere"
    elsewhere.mkdir()
    source = page_notebook(marked.ref, ["fair"], ["lucky"], allow_import=True,
                           folder=marked.folder)["cells"][0]["source"]
    monkeypatch.chdir(elsewhere)  # where the Voila kernel starts
    panel = {}
    exec(source.replace("balance.explore(", "panel['made'] = balance.explore(").replace(
        "seed=1,", "seed=1, background=False,"), {"panel": panel})
    assert Path.cwd() == marked.folder and marked.imported
    made = panel["made"]
    assert made.question().ruleset == marked.ref and made.error is None
    assert made.answer is not None and 0 < made.answer.a_win < 1


# --- the Python API -----------------------------------------------------------------------

Call = Callable[[str, Path], Any]


def _tuning_spec(ref: str) -> dict[str, Any]:
    return {"ruleset": ref, "a": [{"preset": "fair"}], "b": [{"preset": "lucky"}],
            "run": {"method": "exact"}, "tune": [{"knob": "a.0.level", "method": "exact"}]}


def _question(ref: str) -> Any:
    from balance.explorer import Member, Question

    return Question(ref, (Member("fair"),), (Member("lucky"),))


def _run_of(ref: str, folder: Path) -> Path:
    run = folder / "api-run"
    shutil.copytree(API_RUN[0], run)
    meta = json.loads((run / "meta.json").read_text())
    meta["ruleset"] = meta["spec"]["ruleset"] = ref
    (run / "meta.json").write_text(json.dumps(meta))
    return run


API_RUN: list[Path] = []

# Every entry that takes a ruleset: how it is called, with ``**kw`` the permission (or none).
API: dict[str, Callable[..., Any]] = {
    "get": lambda ref, folder, **kw: balance.get(ref, **kw),
    "duel": lambda ref, folder, **kw: balance.duel(ref, "fair", "lucky", n=400, seed=1, **kw),
    "exact": lambda ref, folder, **kw: balance.exact(ref, "fair", "lucky", **kw),
    "fight": lambda ref, folder, **kw: balance.fight(ref, "fair", "lucky", seed=1, log=None,
                                                     **kw),
    "best_play": lambda ref, folder, **kw: balance.best_play(ref, "fair", "lucky",
                                                             method="exact", **kw),
    "tune": lambda ref, folder, **kw: balance.tune(ref, "fair", "lucky", knob="a.0.level",
                                                   method="exact", **kw),
    "sweep": lambda ref, folder, **kw: balance.sweep(
        {**_tuning_spec(ref), "tune": []}, out=folder / "swept", executor="serial",
        progress=False, **kw),
    "load_spec": lambda ref, folder, **kw: balance.load_spec(_tuning_spec(ref), **kw),
    "explore": lambda ref, folder, **kw: balance.explore(ref, background=False, **kw),
    "api.matchup": lambda ref, folder, **kw: balance.api.matchup(ref, "fair", "lucky", **kw),
    "analysis.round_robin": lambda ref, folder, **kw: __import__(
        "balance.analysis").analysis.round_robin(ref, ["fair", "lucky"], method="exact", **kw),
    "analysis.handicaps": lambda ref, folder, **kw: __import__(
        "balance.analysis").analysis.handicaps(ref, ["fair", "lucky"], knob="level",
                                               method="exact", **kw),
    "experiments.tuning.from_spec": lambda ref, folder, **kw: __import__(
        "balance.experiments.tuning").experiments.tuning.from_spec(_tuning_spec(ref), **kw),
    "report.render": lambda ref, folder, **kw: __import__("balance.report").report.render(
        _run_of(ref, folder), folder / "report", **kw),
    "testing.field_effects": lambda ref, folder, **kw: __import__(
        "balance.testing").testing.field_effects(ref, fields=["bias"], n=50, **kw),
    "bench.run": lambda ref, folder, **kw: __import__("balance.bench").bench.run(
        [ref], cases=["fair"], seconds=0.05, memory=True, memory_n=2_000, **kw),
}

# Entries that take an object or nothing of the kind: no permission to give.
API_NONE = {"versions": "no ruleset", "load_run": "reads tables; never resolves the ruleset",
            "api.solve": "takes a resolved ruleset object"}

# Entries whose refusal is checked here and whose working with the permission elsewhere (the
# contract suite, the command's row above) or not at all (a Question, a Spec: they resolve
# only what this process was allowed to import already).
API_REFUSED_ONLY: dict[str, Callable[[str, Path], Any]] = {
    "explorer.answer": lambda ref, folder: __import__("balance.explorer").explorer.answer(
        _question(ref)),
    "testing.check_ruleset": lambda ref, folder: __import__(
        "balance.testing").testing.check_ruleset(ref),
    "explorer.serve": lambda ref, folder: __import__(
        "balance.explorer.serve").explorer.serve.serve(ref, port=free_port()),
    "experiments.expand": lambda ref, folder: __import__("balance.experiments").experiments.expand(
        __import__("balance.experiments.spec").experiments.spec.Spec(ref, ("fair",), ("lucky",))),
}


def public_functions() -> set[str]:
    names = {n for n in balance.__all__ if inspect.isfunction(getattr(balance, n))}
    names |= {f"api.{n}" for n in balance.api.__all__ if inspect.isfunction(
        getattr(balance.api, n)) and n not in names}
    return names


def test_every_public_function_has_a_row() -> None:
    missing = public_functions() - set(API) - set(API_NONE)
    assert not missing, f"public functions without a row in this test: {sorted(missing)}"
    for name in public_functions() & set(API):
        function = getattr(balance.api if name.startswith("api.") else balance,
                           name.removeprefix("api."))
        assert "allow_import" in inspect.signature(function).parameters, name


@pytest.fixture
def api_run(finished: Path) -> None:
    API_RUN[:] = [finished]


@pytest.mark.parametrize("entry", sorted(API) + sorted(API_REFUSED_ONLY))
def test_an_api_entry_refuses_the_path_with_the_command_lines_message(
        entry: str, marked: Marked, api_run: None) -> None:
    call = API.get(entry) or API_REFUSED_ONLY[entry]
    with pytest.raises(SpecError) as refused:
        call(marked.ref, marked.folder)
    message = str(refused.value)
    assert "\n" not in message and REFUSED_WORDS in message, message
    assert "--allow-import" in message and "allow_import=True" in message
    assert not marked.imported
    assert not (marked.folder / "swept").exists() and not (marked.folder / "report").exists()


@pytest.mark.parametrize("entry", sorted(API))
def test_an_api_entry_given_the_permission_works(entry: str, marked: Marked, api_run: None,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    # bench's memory row runs a fresh process, which imports the module with the permission
    # it is handed (the module imports the coin ruleset from the repository: on its path)
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    if entry == "report.render":  # a run of the marked ruleset itself
        balance.sweep({**_tuning_spec(marked.ref), "tune": []}, out=marked.folder / "run",
                      executor="serial", progress=False, allow_import=True)
        __import__("balance.report").report.render(marked.folder / "run", allow_import=True)
    else:
        assert API[entry](marked.ref, marked.folder, allow_import=True) is not None or \
            entry == "bench.run"
    assert marked.imported


def test_the_cli_and_the_api_refuse_in_the_same_words(
        marked: Marked, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SpecError) as refused:
        balance.duel(marked.ref, "fair", "lucky")
    _, _, err = cli(["duel", marked.ref, *MATCHUP], capsys)
    assert err == f"balance: error: {refused.value}\n"


# --- worker processes ---------------------------------------------------------------------


def test_a_worker_is_given_the_permission_the_parent_had(marked: Marked) -> None:
    assert portable(marked.ref) == (marked.ref, False)  # not imported here: none to give
    rs = balance.get(marked.ref, allow_import=True)
    assert portable(marked.ref) == (marked.ref, True)
    assert portable(rs) == (marked.ref, True)  # an object travels by its import path
    ref, allowed = portable(rs.with_presets({"twin": "fair"}))  # one of its class
    assert allowed and type(balance.get(ref)) is type(rs)
    assert portable("crt") == ("crt", False) and portable(balance.get("crt")) == ("crt", False)


def test_worker_processes_import_the_module_the_parent_was_allowed_to(marked: Marked) -> None:
    # The workers are fresh processes: each must import the module itself, with the
    # permission it was handed (a sweep's chunks, a best-play round robin's pairs).
    table, _ = balance.sweep({**_tuning_spec(marked.ref), "tune": [], "run": {
        "fights": 400, "chunk_size": 100, "seed": 1}}, out=marked.folder / "run",
        executor="processes", workers=2, progress=False, allow_import=True)
    assert len(table) == 1 and table["n"].iloc[0] == 400
    from balance.analysis import round_robin

    best = round_robin(marked.ref, ["fair", "lucky"], play="best", method="simulate",
                       n=200, workers=2, allow_import=True)
    assert len(best) == 4 and best["value"].between(0, 1).all()
