"""Playtest reports: content, determinism, the command line, and rendering in a browser."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

import balance
from balance.cli import main
from balance.report import build, question_from_spec, render

GRID = {
    "ruleset": "crt",
    "description": "crt: skill against combats (test)",
    "question": "Is a skill level worth more than ten combats?",
    "notes": "Look at the band edges.",
    "a": [{"name": "challenger"}],
    "b": [{"preset": "veteran"}],
    "grid": {"combine": "product", "axes": [{"field": "a.0.skill", "values": [0, 2, 4]},
                                            {"field": "a.0.combats", "values": [0, 10, 20]}]},
    "run": {"fights": 3000, "seed": 5},
}
ROUND_ROBIN = {
    "ruleset": "crt",
    "description": "crt: round robin of three levels (test)",
    "a": [{"preset": "novice"}],
    "b": "novice",
    "grid": {"combine": "product", "axes": [
        {"field": "a.0.preset", "values": ["novice", "expert", "master"]},
        {"field": "b.0.preset", "values": ["novice", "expert", "master"]}]},
    "run": {"fights": 3000, "seed": 6},
}


@pytest.fixture(scope="module")
def grid_run(tmp_path_factory):
    return balance.sweep(GRID, out=tmp_path_factory.mktemp("grid") / "run", executor="serial").path


@pytest.fixture(scope="module")
def rr_run(tmp_path_factory):
    return balance.sweep(ROUND_ROBIN, out=tmp_path_factory.mktemp("rr") / "run",
                         executor="serial").path


def test_grid_report_says_what_a_designer_needs(grid_run, tmp_path):
    paths = render(grid_run, tmp_path / "out")
    html = paths["html"].read_text()
    md = paths["markdown"].read_text()
    for text in ("Is a skill level worth more than ten combats?", "Look at the band edges.",
                 "The question", "What the numbers say", "Results", "Rules used", "Reproduce",
                 "95% Wilson", "DEFAULT", "AMBIG", "es2_mode", "Marginal value",
                 "seed entropy", "balance sweep"):
        assert text in html and text in md, text
    # each figure stored once, as a PNG both pages reference; no SVG unless asked for
    for fig in ("heatmap", "curves"):
        assert f'src="figures/{fig}.png"' in html and f"(figures/{fig}.png)" in md
        assert (tmp_path / "out" / "figures" / f"{fig}.png").stat().st_size > 1000
    assert "data:image" not in html
    written = sorted(p.relative_to(tmp_path / "out").as_posix()
                     for p in (tmp_path / "out").rglob("*") if p.is_file())
    assert written == ["figures/curves.png", "figures/heatmap.png", "report.html", "report.md"]
    assert paths["figures"] == [tmp_path / "out" / "figures" / f"{f}.png"
                                for f in ("heatmap", "curves")]


def test_a_written_report_folder_holds_no_unreferenced_file(grid_run, rr_run, tmp_path):
    from balance.report import unreferenced

    for run in (grid_run, rr_run):
        out = tmp_path / run.parent.name
        render(run, out)
        assert unreferenced(out) == []
        assert len(list((out / "figures").iterdir())) >= 1
        # the check can fail: a figure nothing links to, and one in a subfolder
        (out / "figures" / "orphan.png").write_bytes(b"x")
        (out / "old").mkdir()
        (out / "old" / "report.md").write_text("stale")
        assert unreferenced(out) == [out / "figures" / "orphan.png", out / "old" / "report.md"]


def test_svg_twins_and_an_embedded_page_only_when_asked(grid_run, tmp_path):
    import base64

    paths = render(grid_run, tmp_path / "svg", svg=True)
    md = paths["markdown"].read_text()
    for fig in ("heatmap", "curves"):
        svg = tmp_path / "svg" / "figures" / f"{fig}.svg"
        assert svg.read_bytes().lstrip().startswith((b"<?xml", b"<svg"))
        assert f"([SVG](figures/{fig}.svg))" in md  # linked, so referenced
    from balance.report import unreferenced

    assert unreferenced(tmp_path / "svg") == []
    paths = render(grid_run, tmp_path / "embed", embed=True)
    html = paths["html"].read_text()
    png = (tmp_path / "embed" / "figures" / "heatmap.png").read_bytes()
    assert "data:image/png;base64," + base64.b64encode(png).decode("ascii") in html
    assert 'src="figures/' not in html
    assert unreferenced(tmp_path / "embed") == []  # the Markdown twin references the PNGs
    assert main(["report", str(grid_run), "--out", str(tmp_path / "cli"), "--svg"]) == 0
    assert (tmp_path / "cli" / "figures" / "curves.svg").is_file()


def test_round_robin_report_has_ratings_and_equilibria(rr_run, tmp_path):
    md = render(rr_run, tmp_path / "out")["markdown"].read_text()
    for text in ("Bradley-Terry", "Metagame equilibrium", "Seat advantage",
                 "expected score against the field"):
        assert text in md
    assert "figures/matchups.png" in md


def test_reports_are_deterministic(grid_run, tmp_path):
    first = render(grid_run, tmp_path / "one")
    second = render(grid_run, tmp_path / "two")
    for key in ("html", "markdown"):
        assert first[key].read_bytes() == second[key].read_bytes()


def test_question_from_the_experiment_comments():
    text = "# crt: a question?\n#\n# Why it matters.\n#   balance sweep x.toml\nruleset = 'crt'\n"
    assert question_from_spec(text) == "crt: a question?\n\nWhy it matters."


def test_build_flags_every_default_reading(grid_run):
    run = balance.load_run(grid_run)
    report = build(run.table, run.meta)
    rules = next(s for s in report.sections if s.title == "Rules used")
    assumptions = next(b for b in rules.blocks if getattr(b, "caption", "").startswith("DEFAULT"))
    assert set(assumptions.frame["tag"]) <= {"DEFAULT", "AMBIG"}
    assert len(assumptions.frame) == len(run.meta["assumptions"]) > 5


def test_marginal_values_survive_saturation_and_many_steps(grid_run):
    # One level of the other axis climbs 20% -> 80% over 200 steps of a.0.combats, the other
    # is stuck at 100%.  The pooled slope is the mean of the two (not the stuck level's 0),
    # and no step is called non-monotone by chance (each step tested at 95% alone would
    # flag about 2.5% of the 398 steps; the Bonferroni-corrected test about none).
    import numpy as np
    import pandas as pd

    from balance import stats
    from balance.report.build import Figure, Table

    rng = np.random.default_rng(7)
    x = np.arange(200)
    n = 20_000
    rows = []
    for skill, p in ((0, 0.2 + 0.6 * x / 199), (5, np.ones(200))):
        k = rng.binomial(n, p)
        low, high = stats.wilson(k, n)
        rows += [{"a.0.skill": skill, "a.0.combats": int(c), "n": n, "a_win": kk / n,
                  "a_win_low": lo, "a_win_high": hi}
                 for c, kk, lo, hi in zip(x, k, low, high, strict=True)]
    results = pd.DataFrame(rows)
    meta = {**balance.load_run(grid_run).meta, "axes": ["a.0.skill", "a.0.combats"]}
    report = build(results, meta, figures=[Figure("f", b"", b"", "a figure")])
    said = next(s for s in report.sections if s.title == "What the numbers say")
    values = next(b.frame for b in said.blocks if isinstance(b, Table))
    row = values.set_index("stat").loc["A: combats survived"]
    text = row["mean change in A's win rate per +1 [±95%]"]  # "+0.15 ± 0.01 points"
    slope, _, half = text.removesuffix(" points").partition(" ± ")
    assert float(slope) == pytest.approx(100 * 0.3 / 199, abs=2 * float(half) + 0.01)
    assert row["steps that hurt A"] == 0
    assert not any("not monotone" in getattr(b, "text", "") for b in said.blocks)


def test_a_swept_rule_reading_is_shown_as_swept(tmp_path):
    spec = {"ruleset": "crt", "description": "crt: a swept AMBIG reading (test)",
            "a": ["novice"], "b": ["novice"],
            "grid": {"axes": [{"field": "b", "values": ["novice", ["novice", "novice"]]},
                              {"field": "rules.multi_zero_mode",
                               "values": ["symmetric", "foes_keep_aggregate"]}]},
            "run": {"fights": 500, "seed": 7}, "outputs": {"plots": []}}
    run = balance.load_run(balance.sweep(spec, out=tmp_path / "run", executor="serial").path)
    # crt lists multi_zero_mode only where it touches the matchup: not in the first (1v1) cell
    assert "multi_zero_mode='symmetric' [AMBIG]" in run.meta["assumptions"]
    report = build(run.table, run.meta)
    rules = next(s for s in report.sections if s.title == "Rules used")
    frame = next(b for b in rules.blocks
                 if getattr(b, "caption", "").startswith("DEFAULT")).frame.set_index("parameter")
    assert frame.loc["multi_zero_mode", "value"] == "swept: symmetric, foes_keep_aggregate"
    assert frame.loc["multi_zero_mode", "overridden"]


def test_a_side_b_stat_that_lowers_a_is_not_flagged(tmp_path):
    spec = {"ruleset": "zones", "description": "zones: Might on both sides (test)",
            "rules": {"initial_gap": "contact"}, "a": [{}], "b": [{}],
            "grid": {"axes": [{"field": "a.0.might", "values": [1, 3]},
                              {"field": "b.0.might", "values": [0, 2, 4]}]},
            "run": {"fights": 3000, "seed": 8}, "outputs": {"plots": []}}
    run = balance.load_run(balance.sweep(spec, out=tmp_path / "run", executor="serial").path)
    said = next(s for s in build(run.table, run.meta).sections
                if s.title == "What the numbers say")
    texts = [b.text for b in said.blocks if hasattr(b, "text")]
    assert not any("not monotone" in t for t in texts), texts  # B's Might is meant to hurt A
    verdict = next(s for s in build(run.table, run.meta).sections if s.title == "Verdict")
    said = [b.text for b in verdict.blocks]
    assert any(t.startswith("One point of A: might offsets") for t in said), said


def test_a_resumed_run_reports_every_session(tmp_path):
    out = tmp_path / "run"
    balance.sweep(GRID, out=out, executor="serial")
    balance.sweep(GRID, out=out, executor="serial", resume=True)  # nothing left to compute
    facts = {row["item"]: row["value"] for _, row in _reproduce_facts(out).iterrows()}
    assert facts["executor"] == ("serial (1 worker; the last session read it all from the "
                                 "cache)")
    assert "in the last of 2 sessions" in facts["elapsed"]


def _reproduce_facts(run):
    loaded = balance.load_run(run)
    section = next(s for s in build(loaded.table, loaded.meta).sections
                   if s.title == "Reproduce")
    return next(block.frame for block in section.blocks if hasattr(block, "frame")
                and "item" in block.frame)


def test_a_stat_on_both_sides_beside_a_whole_side_axis(tmp_path):
    # zones-third-attack's shape: a whole-side axis named "a" and one stat swept on both
    # sides; the stat is not a round robin of entrants (and "a" must not collide)
    spec = {"ruleset": "crt", "description": "side axis and a stat on both sides (test)",
            "a": [{"preset": "novice"}], "b": [{"preset": "novice"}],
            "grid": {"combine": "product", "axes": [
                {"field": "a", "values": ["skill=1", "skill=2"]},
                {"field": "a.0.combats", "values": [0, 5]},
                {"field": "b.0.combats", "values": [0, 5]}]},
            "run": {"fights": 500, "seed": 3}}
    run = balance.sweep(spec, out=tmp_path / "run", executor="serial")
    report = build(run.table, run.meta)
    captions = [getattr(b, "caption", "") for s in report.sections for b in s.blocks]
    assert not any("Bradley-Terry" in c for c in captions)
    assert any(c.startswith("Marginal value") for c in captions)


def test_a_figure_names_its_filter_values_by_their_labels(tmp_path, monkeypatch):
    # a plot's where holds side b as the spec writes it (a list of presets); the caption,
    # the figure's own title and the verdict all show the [labels.values] label
    from balance import figures

    notes: list[str] = []
    draw_to = figures.draw_to
    monkeypatch.setattr(figures, "draw_to",
                        lambda *a, **k: notes.append(k["note"]) or draw_to(*a, **k))
    spec = {"ruleset": "crt", "description": "filter labels (test)",
            "a": [{"preset": "novice"}], "b": [{"preset": "novice"}],
            "grid": {"combine": "product", "axes": [
                {"field": "a.0.skill", "values": [0, 3]},
                {"field": "a.0.combats", "values": [0, 10]},
                {"field": "b", "values": [["novice"], ["novice", "novice"]]}]},
            "labels": {"b": "the foes", "values": {"b": {"novice": "one Novice",
                                                         "novice + novice": "two Novices"}}},
            "outputs": {"plots": [{"kind": "heatmap", "x": "a.0.skill", "y": "a.0.combats",
                                   "where": {"b": ["novice", "novice"]}}]},
            "run": {"fights": 300, "seed": 8}}
    run = balance.sweep(spec, out=tmp_path / "run", executor="serial")
    assert notes == ["the foes = two Novices"]
    md = render(run.path, tmp_path / "out")["markdown"].read_text()
    caption = "A wins over A: skill and A: combats survived (the foes = two Novices)"
    assert f"*{caption}*" in md and f"![{caption}]" in md
    assert "novice, novice" not in md and "the foes = one Novice" in md  # the verdict's


def test_no_exchange_rate_against_a_rule_parameter(tmp_path):
    spec = {**GRID, "grid": {"combine": "product", "axes": [
        {"field": "a.0.skill", "values": [0, 2, 4]},
        {"field": "rules.damage_die", "values": [4, 6, 8]}]}}
    run = balance.sweep(spec, out=tmp_path / "run", executor="serial")
    texts = [getattr(b, "text", "") for s in build(run.table, run.meta).sections
             for b in s.blocks]
    assert not any(t.startswith("One point of") for t in texts)
    spec = {**GRID}  # two stats of combatants: an exchange rate
    run = balance.sweep(spec, out=tmp_path / "run2", executor="serial")
    texts = [getattr(b, "text", "") for s in build(run.table, run.meta).sections
             for b in s.blocks]
    assert any(t.startswith("One point of A: skill is worth") for t in texts), texts


def test_report_cli(grid_run, tmp_path, capsys):
    assert main(["report", str(grid_run), "--out", str(tmp_path / "cli")]) == 0
    out = capsys.readouterr().out
    assert "report.html" in out and (tmp_path / "cli" / "report.md").is_file()
    assert main(["report", str(tmp_path / "nothing-here")]) == 2
    captured = capsys.readouterr()
    assert "is not a run directory" in captured.err and captured.out == ""


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


FIRST_SCREEN = {"width": 1280, "height": 800}
"""The first screen of a laptop: the verdict must be read on it without scrolling."""


def test_report_renders_in_headless_chromium(grid_run, tmp_path):
    # `make test` installs Debian's chromium and sets BALANCE_BROWSER_TESTS=required, so
    # there this test can only pass by rendering; run by hand without a browser it skips.
    exe = _chromium()
    if exe is None:
        if os.environ.get("BALANCE_BROWSER_TESTS") == "required":
            pytest.fail("chromium is required (make test installs it) but was not found")
        pytest.skip("no chromium on this machine")
    sync_api = pytest.importorskip("playwright.sync_api")
    html = render(grid_run, tmp_path / "browser")["html"]
    errors: list[str] = []
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=exe, args=[
            "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync"])
        page = browser.new_page(viewport=FIRST_SCREEN)
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(Path(html).as_uri())
        page.wait_for_load_state("load")
        images = page.evaluate(
            "Array.from(document.images).map(i => [i.complete, i.naturalWidth, i.naturalHeight])")
        # the answer is on the first screen: the verdict box, every sentence of it, lies
        # inside the viewport before any scrolling
        verdict = page.evaluate(
            "(() => { const v = document.getElementById('verdict'); if (!v) return null;"
            " const r = v.getBoundingClientRect(); const s = getComputedStyle(v);"
            " return {top: r.top, bottom: r.bottom, height: r.height, text: v.innerText,"
            " shown: s.display !== 'none' && s.visibility !== 'hidden',"
            " items: v.querySelectorAll('li').length,"
            " scrolled: window.scrollY, viewport: window.innerHeight}; })()")
        shot = page.screenshot(full_page=True)
        browser.close()
    assert errors == []
    assert verdict is not None and verdict["shown"] and verdict["scrolled"] == 0
    assert verdict["items"] >= 1 and "Verdict" in verdict["text"]
    assert "One point of A: skill is worth" in verdict["text"]  # the grid's answer
    assert verdict["top"] >= 0 and verdict["bottom"] <= verdict["viewport"], verdict
    assert len(images) == 2 and all(done and w > 100 and h > 100 for done, w, h in images)
    # the screenshot is not blank: many distinct colours
    from io import BytesIO

    from PIL import Image

    picture = Image.open(BytesIO(shot)).convert("RGB")
    colours = picture.getcolors(maxcolors=1 << 20)
    assert colours is not None and len(colours) > 50
    assert picture.size[1] > FIRST_SCREEN["height"]  # a long page: the rest below the fold


def test_rerendering_drops_stale_figures(grid_run, tmp_path):
    out = tmp_path / "again"
    (out / "figures").mkdir(parents=True)
    (out / "figures" / "old-plot.png").write_bytes(b"x")
    render(grid_run, out)
    assert not (out / "figures" / "old-plot.png").exists()
    assert (out / "figures" / "heatmap.png").exists()


POOL_RR = {
    "ruleset": "pool",
    "description": "pool: exact round robin under two bid protocols (test)",
    "rules": {"max_rounds": 8},
    "a": [{"preset": "duellist"}],
    "b": [{"preset": "duellist"}],
    "grid": {"combine": "product", "axes": [
        {"field": "a.0.preset", "values": ["duellist", "guard", "brute"]},
        {"field": "b.0.preset", "values": ["duellist", "guard", "brute"]},
        {"field": "rules.bid_protocol", "values": ["sealed", "attacker_first"]}]},
    "run": {"method": "exact"},
}


@pytest.fixture(scope="module")
def pool_rr_run(tmp_path_factory):
    return balance.sweep(POOL_RR, out=tmp_path_factory.mktemp("pool-rr") / "run",
                         executor="serial").path


def _captions(report):
    return [b.caption for s in report.sections for b in s.blocks if hasattr(b, "caption")]


def test_an_exact_round_robin_per_level_of_another_axis(pool_rr_run, tmp_path):
    # The pool solver writes a text `draws` column: it must not be read as a count.
    run = balance.load_run(pool_rr_run)
    report = build(run.table, run.meta)
    captions = _captions(report)
    for level in ("rule: bid protocol = sealed", "rule: bid protocol = attacker_first"):
        for what in ("Ratings", "Metagame equilibrium", "Seat advantage", "Upsets"):
            assert any(c.startswith(what) and f"({level})" in c for c in captions), (what, level)
    assert any(c.startswith("Sensitivity to rule: bid protocol") for c in captions)
    tables = [b for s in report.sections for b in s.blocks if hasattr(b, "frame")]
    rating = next(t for t in tables if t.caption.startswith("Ratings"))
    assert "fitted to the exact score matrix" in rating.caption
    assert not any("interval" in c for t in tables
                   for c in t.frame.columns)  # exact: no interval anywhere
    md = render(pool_rr_run, tmp_path / "out")["markdown"].read_text()
    # fight lengths and draws of a solved game depend on the optimal strategy picked
    assert md.count("the optimal strategy the solver happened to pick") == 2
    assert "Bradley-Terry ratings are fitted to fight counts" not in md


def test_a_simulated_round_robin_has_no_equilibrium_caveat(rr_run, tmp_path):
    md = render(rr_run, tmp_path / "out")["markdown"].read_text()
    assert "optimal strategy the solver" not in md and "Upsets" in md
    assert "95% interval" in md


def test_sweep_ends_with_the_verdict_its_report_opens_with(tmp_path, capsys):
    import re

    from tests.sweep.helpers import to_toml

    spec = tmp_path / "grid.toml"
    spec.write_text(to_toml({**GRID, "run": {"fights": 2000, "seed": 5}}))
    assert main(["sweep", str(spec), "--out", str(tmp_path / "run"), "--executor", "serial",
                 "-q"]) == 0
    out = capsys.readouterr().out.rstrip("\n").split("\n")
    printed = out[out.index("Verdict:") + 1:]
    assert printed and all(line.startswith("  ") for line in printed)  # the last lines
    md = render(tmp_path / "run", tmp_path / "report")["markdown"].read_text()
    verdict = md.split("## Verdict\n", 1)[1].split("\n## ", 1)[0]
    bullets = [line[2:] for line in verdict.splitlines() if line.startswith("- ")]
    unescape = lambda text: re.sub(r"\\(.)", r"\1", text)  # noqa: E731 - Markdown escapes
    items: list[str] = []  # the printed lines are wrapped: continuation lines start "    "
    for line in printed:
        if line.startswith("    ") and items:
            items[-1] += " " + line.strip()
        else:
            items.append(line)
    assert [item[4:] for item in items if item.startswith("  - ")] == [
        unescape(b) for b in bullets]
    assert bullets[0].startswith("One point of A: skill is worth")


def test_the_spec_sets_what_the_verdict_reads_and_its_thresholds(grid_run):
    run = balance.load_run(grid_run)
    meta = {**run.meta, "spec": {**run.meta["spec"],
                                 "verdict": {"value": "score", "staircase_share": 0.9}}}
    verdict = next(s for s in build(run.table, meta).sections if s.title == "Verdict")
    texts = [b.text for b in verdict.blocks]
    assert any("A's expected score (a draw counts half)" in t for t in texts), texts
    assert not any("A's win rate" in t for t in texts), texts
    assert texts[-1].endswith("the verdict was made with [verdict] staircase_share = 0.9 "
                              "(default 0.8)."), texts[-1]
    plain = next(s for s in build(run.table, run.meta).sections if s.title == "Verdict")
    assert "made with [verdict]" not in plain.blocks[-1].text
