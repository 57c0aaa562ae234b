"""The committed reports (reports/<experiment>/, written by `make reports`): one for each
experiment, each opening with its verdict, on the first screen of its HTML page, holding
no file that nothing references; the designers' questions of issue 12 answered by a
sentence of their verdicts (the README's quotes of the flagship verdicts are checked
against fresh runs by tests/docs)."""

from __future__ import annotations

import html
import os
import re
import shutil
import urllib.parse
from pathlib import Path

import pytest

from balance.report import unreferenced

ROOT = Path(__file__).resolve().parents[2]
REPORTS = sorted(p.parent for p in (ROOT / "reports").glob("*/report.md"))
FIRST_SCREEN = {"width": 1280, "height": 800}


def _verdict(name: str) -> list[str]:
    """The verdict's sentences in a committed report.md, Markdown escapes undone."""
    text = (ROOT / "reports" / name / "report.md").read_text(encoding="utf-8")
    body = text.split("## Verdict\n", 1)[1].split("\n## ", 1)[0]
    # the Markdown twin escapes & < > as entities and brackets, backticks as \[ \`
    return [html.unescape(re.sub(r"\\(.)", r"\1", line[2:])) for line in body.splitlines()
            if line.startswith("- ")]


def test_one_report_for_each_experiment_and_an_index_of_them():
    experiments = {p.stem for p in (ROOT / "experiments").glob("*.toml")}
    assert {p.name for p in REPORTS} == experiments
    index = (ROOT / "reports" / "README.md").read_text(encoding="utf-8")
    linked = set(re.findall(r"\]\(([^)/]+)/report\.md\)", index))
    assert linked == experiments
    assert set(re.findall(r"\]\(([^)/]+)/report\.html\)", index)) == experiments
    assert {p.name for p in (ROOT / "reports").iterdir()} == experiments | {"README.md"}


@pytest.mark.parametrize("folder", REPORTS, ids=lambda p: p.name)
def test_a_committed_report_opens_with_its_verdict_and_holds_nothing_unreferenced(folder):
    text = (folder / "report.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## (.+)$", text, re.M)
    assert headings[:2] == ["Verdict", "The question"]
    sentences = _verdict(folder.name)
    assert sentences  # at least one sentence
    # the HTML page says the same, in its verdict box
    page = (folder / "report.html").read_text(encoding="utf-8")
    box = page.split('<section class="verdict" id="verdict">', 1)[1].split("</section>", 1)[0]
    items = [html.unescape(re.sub(r"</?code>", "", item))
             for item in re.findall(r"<li>(.*?)</li>", box, re.S)]
    assert items == [s.replace("`", "") for s in sentences]
    # stored once: report.md, report.html and the PNGs they reference, nothing else
    assert unreferenced(folder) == []
    assert "data:image" not in page
    for figure in (folder / "figures").glob("*"):
        assert figure.suffix == ".png"
        assert f'src="figures/{urllib.parse.quote(figure.name)}"' in page


NUMBER = r"\d+(?:\.\d+)?%? \[\d+(?:\.\d+)?%?, \d+(?:\.\d+)?%?\]"
"""A number with its interval, as a verdict prints it: ``7.0 [6.7, 7.2]``, ``78.0% [77.7,
78.2]``."""

QUESTIONS = {
    # crt: what is a survived combat worth against skill?
    "crt-skill-vs-experience": [rf"^One point of skill level is worth {NUMBER} points of combats survived: "],
    # strike-rank: is any style dominant?
    "strike-rank-style-duels": [rf"^(The [a-z ]+ is dominant: it beats every other entrant, "
                                rf"scoring at least {NUMBER}|No entrant is dominant: the "
                                rf"leader, the [a-z ]+ \({NUMBER} against the field\))"],
    # zones: is a third attack worthless, next to Defend, Steady or nothing? The third
    # Strike against the default (Defend), the Steady options and passing
    "zones-third-attack": [r"^Strike / Strike / Strike is (worth taking|worse than the default"
                           r"|no better than the default)", rf"A wins {NUMBER}",
                           r"Strike / Strike / Defend", r"Steady / Strike / Strike",
                           r"Strike / Strike / pass"],
}


@pytest.mark.parametrize("name", sorted(QUESTIONS))
def test_the_designers_questions_are_answered_by_a_sentence_of_the_verdict(name):
    sentences = _verdict(name)
    assert any(all(re.search(p, s) for p in QUESTIONS[name]) for s in sentences), sentences


def test_the_style_fairness_report_under_best_play_puts_both_verdicts_side_by_side():
    # issue 11: the default and best-play verdicts side by side, and which change
    name = "strike-rank-style-duels-best"
    sentences = _verdict(name)
    assert sentences[0].startswith("Under best play (each side's policies chosen to do its "
                                   "best), ")
    assert sentences[-1].startswith(("Against the policies as given (the same fights), under "
                                     "best play ", "Best play changes none of the verdicts"))
    text = (ROOT / "reports" / name / "report.md").read_text(encoding="utf-8")
    assert re.findall(r"^## (.+)$", text, re.M)[2] == "What best play changes"
    changes = text.split("## What best play changes\n", 1)[1].split("\n## ", 1)[0]
    header = "| entrant | rank, as given | rank, best play | Elo, as given | Elo, best play |"
    assert header in changes
    table = changes.split(header, 1)[1].split("\n\n", 1)[0].strip().splitlines()[2:]
    assert len(table) == 19 and table[0].startswith("| knight | 1 | 1 |")  # every style


def test_every_committed_report_states_its_answer_on_the_first_screen():
    # As the report test in test_report.py: `make test` installs chromium and requires this.
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        if os.environ.get("BALANCE_BROWSER_TESTS") == "required":
            pytest.fail("chromium is required (make test installs it) but was not found")
        pytest.skip("no chromium on this machine")
    sync_api = pytest.importorskip("playwright.sync_api")
    seen = {}
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=exe, args=[
            "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync"])
        page = browser.new_page(viewport=FIRST_SCREEN)
        for folder in REPORTS:
            page.goto((folder / "report.html").as_uri())
            page.wait_for_load_state("load")
            seen[folder.name] = page.evaluate(
                "(() => { const v = document.getElementById('verdict'); if (!v) return null;"
                " const r = v.getBoundingClientRect(); const s = getComputedStyle(v);"
                " return {top: r.top, bottom: r.bottom, scrolled: window.scrollY,"
                " shown: s.display !== 'none' && s.visibility !== 'hidden',"
                " items: Array.from(v.querySelectorAll('li')).map(li => li.innerText),"
                " images: Array.from(document.images).map(i => i.complete && i.naturalWidth)};"
                " })()")
        browser.close()
    for name, verdict in seen.items():
        assert verdict is not None and verdict["shown"] and verdict["scrolled"] == 0, name
        assert verdict["top"] >= 0 and verdict["bottom"] <= FIRST_SCREEN["height"], (name,
                                                                                    verdict)
        assert verdict["items"] == [s.replace("`", "") for s in _verdict(name)], name
        # each figure, referenced by relative path, is found and drawn
        assert verdict["images"] and all(w and w > 100 for w in verdict["images"]), name
