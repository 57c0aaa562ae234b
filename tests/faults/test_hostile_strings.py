"""Hostile strings in a spec: markup shown and never run (HTML report and its Markdown twin,
and the page in a headless browser), long names that never break a file name."""

from __future__ import annotations

import json
import os
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

import balance
from balance import files
from balance.cli import main
from balance.report import render

PWNED = "window.__balance_pwned"
SCRIPT = f"<script>{PWNED} = 1</script>"
IMAGE = f"<img src=x onerror=\"{PWNED} = 2\">"
LINK = f"[click me](javascript:{PWNED}=3)"
EVERYTHING = f"{SCRIPT} {IMAGE} {LINK} <b>bold</b> & `tick` ``` | pipe"


def toml_string(text: str) -> str:
    return json.dumps(text)  # a JSON string is a valid TOML basic string


HOSTILE_SPEC = f"""\
# Question: what does {SCRIPT} do to a report?
#
# Notes on {IMAGE} and {LINK}.
description = {toml_string("desc " + EVERYTHING)}
question = {toml_string("question " + EVERYTHING)}
notes = {toml_string("notes " + EVERYTHING)}
ruleset = "crt"
[[a]]
preset = "novice"
name = {toml_string("a " + EVERYTHING)}
[[b]]
preset = "novice"
name = {toml_string("b " + EVERYTHING)}
[[grid.axes]]
field = "a.0.name"
values = [{toml_string(SCRIPT)}, {toml_string(LINK)}, {toml_string(IMAGE)}]
[[grid.axes]]
field = "a.0.skill"
values = [0, 2]
[run]
fights = 500
seed = 1
[[outputs.plots]]
kind = "curves"
x = "a.0.skill"
by = "a.0.name"
"""


class Active(HTMLParser):
    """What in a page could run: script elements, event-handler attributes, javascript:
    links and sources."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "iframe", "object", "embed"):
            self.found.append(f"<{tag}>")
        for name, value in attrs:
            if name.startswith("on"):
                self.found.append(f"{tag} {name}")
            if name in ("href", "src", "action") and (value or "").strip().lower().startswith(
                    "javascript:"):
                self.found.append(f"{tag} {name}={value}")


def active(page: str) -> list[str]:
    parser = Active()
    parser.feed(page)
    return parser.found


@pytest.fixture(scope="module")
def hostile_report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("hostile")
    spec_path = folder / "hostile-<script>.toml"  # the file name too: it is in the report
    spec_path.write_text(HOSTILE_SPEC)
    _, run = balance.sweep(spec_path, out=folder / "run", executor="serial")
    return render(run, folder / "report")


def test_the_html_report_shows_markup_and_runs_none(hostile_report: dict[str, Path]) -> None:
    page = hostile_report["html"].read_text()
    assert active(page) == []
    assert "<script" not in page.lower()
    # shown, not dropped: the escaped text is there
    assert "&lt;script&gt;window.__balance_pwned = 1&lt;/script&gt;" in page
    assert page.count("&lt;script&gt;") >= 6


def test_the_markdown_twin_is_escaped_as_the_html(hostile_report: dict[str, Path]) -> None:
    md = hostile_report["markdown"].read_text()
    # outside code blocks (whose text a Markdown reader shows verbatim, as the HTML's <pre>)
    prose = re.sub(r"^(`{3,})[^\n]*\n.*?^\1$", "", md, flags=re.M | re.S)
    assert prose.count("```") == 0 and "hostile-<script>.toml" in md  # one code block
    assert "<script" not in prose.lower() and "<img" not in prose.lower()
    assert "<b>" not in prose
    assert "](javascript:" not in md.replace("\\]", "")  # no link: its bracket is escaped
    assert md.count("&lt;script&gt;") >= 6
    # a Markdown reader that passes raw HTML through (mistune's default) makes nothing
    # active of it, and shows the strings
    mistune = pytest.importorskip("mistune")
    page = mistune.html(md)
    assert active(page) == [], active(page)
    assert "&lt;script&gt;window.__balance_pwned = 1&lt;/script&gt;" in page
    assert "javascript:" in page  # as text


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def test_no_script_runs_in_a_headless_browser(hostile_report: dict[str, Path],
                                              tmp_path: Path) -> None:
    # As the report test in tests/report: `make test` installs chromium and requires this.
    exe = _chromium()
    if exe is None:
        if os.environ.get("BALANCE_BROWSER_TESTS") == "required":
            pytest.fail("chromium is required (make test installs it) but was not found")
        pytest.skip("no chromium on this machine")
    sync_api = pytest.importorskip("playwright.sync_api")
    pages = [hostile_report["html"]]
    mistune = pytest.importorskip("mistune")
    twin = tmp_path / "twin.html"
    twin.write_text("<!DOCTYPE html><meta charset='utf-8'>"
                    + mistune.html(hostile_report["markdown"].read_text()))
    pages.append(twin)
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=exe, args=[
            "--no-sandbox", "--disable-gpu", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync"])
        for path in pages:
            page = browser.new_page()
            dialogs: list[str] = []

            def on_dialog(dialog: Any, seen: list[str] = dialogs) -> None:
                seen.append(dialog.message)
                dialog.dismiss()

            page.on("dialog", on_dialog)
            page.goto(Path(path).as_uri())
            page.wait_for_load_state("load")
            # every image loaded or failed (so any onerror has run), not a pause hoping so
            page.wait_for_function("() => Array.from(document.images).every(i => i.complete)")
            ran = page.evaluate(f"typeof {PWNED} !== 'undefined'")
            scripts = page.evaluate("document.scripts.length")
            links = page.evaluate(
                "Array.from(document.links).filter(a => a.protocol === 'javascript:').length")
            assert (ran, scripts, links, dialogs) == (False, 0, 0, []), path
            page.close()
        browser.close()


# --- long names --------------------------------------------------------------------------------

LONG = "Sir " + "Reginald-" * 60  # a combatant name of 544 characters

LONG_SPEC = {
    "ruleset": "crt",
    "description": "a long name",
    "a": [{"preset": "novice", "name": LONG}],
    "b": [{"preset": "novice"}],
    "grid": {"axes": [{"field": "a.0.name", "values": [LONG, LONG + "II", "short"]},
                      {"field": "a.0.skill", "values": [0, 2]}]},
    "run": {"fights": 500, "seed": 2},
    "outputs": {"plots": [{"kind": "curves", "x": "a.0.skill", "where": {"a.0.name": LONG}},
                          {"kind": "curves", "x": "a.0.skill",
                           "where": {"a.0.name": LONG + "II"}}]},
}


def test_a_long_name_never_breaks_a_sweeps_plots(tmp_path: Path) -> None:
    _table, run = balance.sweep(LONG_SPEC, out=tmp_path / "run", executor="serial")
    meta = json.loads((run / "meta.json").read_text())
    assert meta["status"] == "complete"
    plots = sorted((run / "plots").iterdir())
    assert len(plots) == 4  # two figures, PNG and SVG: the two long names stay apart
    assert all(len(p.name.encode()) <= files.NAME_BYTES + 4 for p in plots)
    assert render(run, tmp_path / "report")["markdown"].is_file()


def test_plot_of_a_long_value_writes_a_bounded_name(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    _, run = balance.sweep({**LONG_SPEC, "outputs": {"plots": []}}, out=tmp_path / "run",
                           executor="serial")
    assert main(["plot", str(run), "--kind", "curves", "--x", "a.0.skill",
                 "--where", f"a.0.name={LONG}"]) == 0
    written = [Path(line) for line in capsys.readouterr().out.split()]
    assert len(written) == 2 and all(p.is_file() for p in written)
    assert all(len(p.name.encode()) <= files.NAME_BYTES + 4 for p in written)


def test_a_run_that_failed_drawing_is_completed_by_resume(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from balance import figures

    def broken(*args: object, **kwargs: object) -> list[Path]:
        raise OSError(36, "File name too long")

    with monkeypatch.context() as patch:
        patch.setattr(figures, "draw_to", broken)
        with pytest.raises(OSError):
            balance.sweep(LONG_SPEC, out=tmp_path / "run", executor="serial")
    meta = json.loads((tmp_path / "run" / "meta.json").read_text())
    assert meta["status"] == "failed" and "File name too long" in meta["error"]
    _, run = balance.sweep(LONG_SPEC, out=tmp_path / "run", executor="serial", resume=True)
    meta = json.loads((run / "meta.json").read_text())
    assert meta["status"] == "complete"
    assert meta["timings"]["chunks_computed"] == 0  # every fight was already done
    assert len(list((run / "plots").glob("*.png"))) == 2


def test_bounded_names_are_stable_and_distinct() -> None:
    name = files.bounded_name("x" * 500)
    assert len(name.encode()) <= files.NAME_BYTES
    assert files.bounded_name("x" * 500) == name != files.bounded_name("x" * 499 + "y")
    assert files.bounded_name("short") == "short"
    assert len(files.bounded_name("é" * 300).encode()) <= files.NAME_BYTES  # UTF-8 cut whole


# --- control characters in names ---------------------------------------------------------------

CONTROLS = {"ESC": "\x1b", "BEL": "\x07", "NUL": "\x00", "newline": "\n", "tab": "\t",
            "CR": "\r", "backspace": "\b", "DEL": "\x7f", "C1-CSI": "\x9b",
            "line-separator": "\u2028"}
RED = "\x1b[31m"


def toml_text(text: str) -> str:
    """A TOML basic string holding ``text``, every control character written as an escape
    (TOML allows none raw), so the file parses and the value reaches the validator."""
    return '"' + "".join(f"\\u{ord(c):04x}" if ord(c) < 32 or 127 <= ord(c) < 160
                         or c in '"\\' else c for c in text) + '"'


def name_spec(where: str, name: str) -> str:
    """A crt spec holding ``name`` at ``where``."""
    quoted = toml_text(name)
    parts = {
        "combatant": (f"[[a]]\npreset = \"novice\"\nname = {quoted}\n[[b]]\npreset = \"novice\"\n"),
        "axis-value": ("[[a]]\npreset = \"novice\"\n[[b]]\npreset = \"novice\"\n"
                       f"[[grid.axes]]\nfield = \"a.0.name\"\nvalues = [\"plain\", {quoted}]\n"),
        "preset": (f"[presets.{quoted}]\npreset = \"novice\"\n"
                   "[[a]]\npreset = \"novice\"\n[[b]]\npreset = \"novice\"\n"),
        "label": ("[[a]]\npreset = \"novice\"\n[[b]]\npreset = \"novice\"\n"
                  f"[labels]\na_win = {quoted}\n"),
        "value-label": ("[[a]]\npreset = \"novice\"\n[[b]]\npreset = \"novice\"\n"
                        "[[grid.axes]]\nfield = \"a.0.skill\"\nvalues = [0, 1]\n"
                        f"[labels.values.\"a.0.skill\"]\n\"1\" = {quoted}\n"),
        "tune-entrant": ("[[a]]\npreset = \"novice\"\n[[b]]\npreset = \"novice\"\n"
                         f"[[tune]]\nknob = \"combats\"\nentrants = [\"novice\", {quoted}]\n"),
        "description": ("[[a]]\npreset = \"novice\"\n[[b]]\npreset = \"novice\"\n"),
    }
    head = f"description = {quoted}\n" if where == "description" else ""
    return head + 'ruleset = "crt"\n' + parts[where] + "[run]\nfights = 200\nseed = 1\n"


SPEC_PLACES = ["combatant", "axis-value", "preset", "label", "value-label", "tune-entrant"]


def refused(words: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    try:
        status = main(words)
    except SystemExit as stop:
        status = int(stop.code or 0)
    out, err = capsys.readouterr()
    assert status == 2 and out == "", (status, out, err)
    assert err.count("\n") == 1 and err.startswith("balance: error: "), err
    assert not any(ord(c) < 32 or 127 <= ord(c) < 160 for c in err[:-1]), repr(err)
    return err


@pytest.mark.parametrize("char", list(CONTROLS.values()), ids=list(CONTROLS))
@pytest.mark.parametrize("where", SPEC_PLACES)
def test_a_control_character_in_a_spec_name_is_refused_in_one_line(
        where: str, char: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "exp.toml").write_text(name_spec(where, f"bad{char}name"))
    err = refused(["sweep", "exp.toml", "--out", "run", "-q"], capsys)
    assert "holds a control character" in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["exp.toml"]  # nothing written


@pytest.mark.parametrize("char", ["\x1b", "\x00", "\x07", "\x7f", "\x85"],
                         ids=["ESC", "NUL", "BEL", "DEL", "C1-NEL"])
def test_free_text_may_hold_lines_but_no_other_control_character(
        char: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "exp.toml").write_text(name_spec("description", f"two\nlines\tand {char}"))
    err = refused(["sweep", "exp.toml", "--dry-run"], capsys)
    assert "description: holds a control character" in err
    (tmp_path / "exp.toml").write_text(name_spec("description", "two\nlines\tand a tab"))
    assert main(["sweep", "exp.toml", "--dry-run"]) == 0


@pytest.mark.parametrize("words", [
    ["duel", "crt", "--a", f"novice,name={RED}red", "--b", "novice", "-n", "100"],
    ["log", "zones", "--a", "swordsman,name=bell\x07", "--b", "soldier"],
    ["exact", "crt", "--a", "novice", "--b", "novice,name=nul\x00"],
    ["matchups", "crt", "--entrant", f"novice,name={RED}", "--entrant", "veteran", "-n", "100"],
    ["matchups", "crt", "--entrants", f"novice,{RED}veteran"],
    ["tune", "crt", "--entrants", f"novice,veteran{RED}", "--knob", "combats"],
    ["explore", "crt", "--a", "novice,name=line\nbreak"],
], ids=["duel-name", "log-name", "exact-name", "matchups-entrant", "matchups-entrants",
        "tune-entrants", "explore-name"])
def test_a_control_character_on_the_command_line_is_refused_in_one_line(
        words: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    refused(words, capsys)
    assert list(tmp_path.iterdir()) == []


def test_a_presets_file_name_with_a_control_character_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "p.toml").write_text(f"[presets.{toml_text('evil' + RED)}]\npreset = \"novice\"\n")
    err = refused(["show", "crt", "--presets", "p.toml"], capsys)
    assert "preset name holds a control character (ESC)" in err


def test_the_api_refuses_control_characters_in_entrant_names() -> None:
    from balance.analysis import handicaps, round_robin

    with pytest.raises(balance.SpecError, match=r"entrant's name holds a control character"):
        round_robin("crt", {"novice": "novice", f"vet{RED}": "veteran"}, n=100)
    with pytest.raises(balance.SpecError, match=r"entrant's name holds a control character"):
        handicaps("crt", {"novice": "novice", "vet\x07": "veteran"}, knob="combats")


def test_a_raw_esc_never_reaches_a_report(tmp_path: Path) -> None:
    """A name is refused when read; a run record edited afterwards (its description, the
    spec it keeps) still cannot put a raw control character in the pages."""
    _, run = balance.sweep(SPEC_FOR_REPORT, out=tmp_path / "run", executor="serial")
    meta = json.loads((run / "meta.json").read_text())
    meta["description"] = f"{RED}red\x07 description\x9b"
    meta["spec"]["question"] = f"why {RED}?\x00"
    (run / "meta.json").write_text(json.dumps(meta))
    paths = render(run, tmp_path / "report")
    for page in (paths["markdown"].read_text(), paths["html"].read_text()):
        assert not any((ord(c) < 32 and c not in "\n\t") or 127 <= ord(c) < 160 for c in page)
        assert "\u241b" in page and "red\u2407 description" in page  # ESC's, BEL's pictures


SPEC_FOR_REPORT = {
    "ruleset": "crt", "description": "plain", "a": [{"preset": "novice"}],
    "b": [{"preset": "novice"}], "grid": {"axes": [{"field": "a.0.skill", "values": [0, 2]}]},
    "run": {"fights": 300, "seed": 4},
}
