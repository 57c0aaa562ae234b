"""Best-play sweeps (`[run] play = "best"`): each cell a game over the policies, on every
executor, cached per cell and resumable; the value and each side's policies are columns;
reports show the verdicts with the policies as given beside those under best play."""

from __future__ import annotations

import json

import pandas as pd
import pytest

import balance
from balance.analysis import bestplay
from balance.cli import main
from balance.errors import SpecError
from balance.experiments import expand, load_spec
from balance.report import render

from .helpers import to_toml

# crt's plain duel with a five-round cap and a draw worth a win: the novice diverts
ROUND_ROBIN = {
    "ruleset": "crt",
    "description": "crt: best play among three levels (test)",
    "question": "Does diverting change who wins a short duel?",
    "rules": {"extraordinary": False, "max_rounds": 5},
    "a": [{"preset": "novice"}],
    "b": [{"preset": "novice"}],
    "grid": {"axes": [{"field": "a.0.preset", "values": ["novice", "expert", "master"]},
                      {"field": "b.0.preset", "values": ["novice", "expert", "master"]}]},
    "run": {"play": "best", "draw_worth": 1.0, "fights": 2_000, "seed": 8},
    "outputs": {"plots": [{"kind": "matchup", "x": "b.0.preset", "y": "a.0.preset",
                           "value": "value"}]},
}
TIMING = ["solve_ms"]


@pytest.fixture(scope="module")
def best_run(tmp_path_factory):
    return balance.sweep(ROUND_ROBIN, out=tmp_path_factory.mktemp("best") / "run",
                         executor="serial")


def test_spec_reads_play_and_its_defaults():
    spec = load_spec(ROUND_ROBIN)
    assert (spec.play, spec.draw_worth, spec.fights, spec.chunk_size) == ("best", 1.0, 2_000,
                                                                          1_000)
    assert load_spec(spec.to_dict()) == spec
    aimed = load_spec({**ROUND_ROBIN, "run": {"play": "best", "seed": 1}})
    assert aimed.precision == bestplay.DEFAULT_PRECISION and aimed.fights is None
    assert load_spec({**ROUND_ROBIN, "run": {"seed": 1}}, play="best").play == "best"
    plain = {**ROUND_ROBIN, "run": {"seed": 1}, "outputs": {}}
    assert load_spec(plain).play == "default"


@pytest.mark.parametrize("run, outputs, place, words", [
    ({"play": "best", "draw_worth": 1.5}, {}, "run.draw_worth", "must be a number in 0..1"),
    ({"draw_worth": 0.5}, {}, "run.draw_worth", "applies to best play only"),
    ({"play": "better"}, {}, "run.play", "must be one of default, best"),
    ({"seed": 1}, None, "outputs.plots[0].value", "a simulated run has no value to draw"),
])
def test_bad_best_play_specs(run, outputs, place, words):
    spec = {**ROUND_ROBIN, "run": run}
    if outputs is not None:
        spec["outputs"] = outputs
    with pytest.raises(SpecError) as err:
        load_spec(spec)
    assert str(err.value).startswith(f"{place}: ") and words in str(err.value), str(err.value)


def test_every_cell_is_its_best_play(best_run):
    table, path = best_run
    meta = json.loads((path / "meta.json").read_text())
    assert meta["play"] == "best" and meta["fights"] == int(table["fights"].sum())
    assert any(p.startswith("best play A: ") for p in meta["policies"])
    for column in ("value", "value_low", "value_high", "policy_a", "policy_b",
                   "default_value", "profiles_a", "profiles_b", "policies", "cell"):
        assert column in table
    spec = load_spec(ROUND_ROBIN)
    rs = balance.get("crt")
    for cell, row in zip(expand(spec), table.itertuples(index=False), strict=True):
        answer = bestplay.solve(rs, cell.rules, cell.side_a, cell.side_b, method="simulate",
                                draw_worth=1.0, n=2_000, precision=None, entropy=8,
                                key=("common",))
        assert (row.value, row.policy_a, row.policy_b) == (
            answer.value, answer.describe_a(), answer.describe_b())
    row = table[(table["a.0.preset"] == "novice") & (table["b.0.preset"] == "expert")].iloc[0]
    assert row["policy_a"] == "divert=always" and row["value"] > row["default_value"]


def test_the_same_on_processes_and_resumed(best_run, tmp_path):
    table, path = best_run
    parallel, _ = balance.sweep(ROUND_ROBIN, out=tmp_path / "p", executor="processes",
                                workers=2)
    pd.testing.assert_frame_equal(table.drop(columns=TIMING), parallel.drop(columns=TIMING))
    again, _ = balance.sweep(ROUND_ROBIN, out=path, executor="serial", resume=True)
    pd.testing.assert_frame_equal(table.drop(columns=TIMING), again.drop(columns=TIMING))
    assert json.loads((path / "meta.json").read_text())["timings"]["cells_solved"] == 0
    with pytest.raises(SpecError, match="used play 'best'"):
        balance.sweep({**ROUND_ROBIN, "run": {"seed": 8}, "outputs": {}}, out=path,
                      resume=True)


@pytest.mark.slow  # ~17 CPU s (with the best-play run)
def test_report_shows_both_verdicts_and_the_policies(best_run, tmp_path):
    import re

    _, path = best_run
    paths = render(path, tmp_path / "report")
    text = paths["markdown"].read_text()
    for words in ("under best play", "with the policies as given (the same fights) and under "
                  "best play", "The policies each pairing's verdict rests on", "divert=always",
                  "A plays", "Policies: the decisions fighters make",
                  "best play (each side, each cell)", "balance sweep",
                  "rank, as given | rank, best play"):
        assert words in text, words
    # the verdicts side by side come right after the question, before the analyses
    headings = re.findall(r"^## (.+)$", text, re.M)
    assert headings[:4] == ["Verdict", "The question", "What best play changes",
                            "What the numbers say"], headings
    # and the verdict itself says, first, that these are best play's rates and, last, what
    # best play changes against the policies as given
    verdict = text.split("## Verdict", 1)[1].split("\n## ", 1)[0]
    bullets = [line for line in verdict.splitlines() if line.startswith("- ")]
    assert bullets[0].startswith("- Under best play (each side's policies chosen to do its "
                                 "best), ")
    assert re.match(r"- (Against the policies as given \(the same fights\), under best play "
                    r"|Best play changes none of the verdicts)", bullets[-1]), bullets[-1]
    # one number format: percentages throughout, never 0.417-style fractions (issue 25)
    changes = text.split("## What best play changes\n", 1)[1].split("\n## ", 1)[0]
    numbers = text.split("## What the numbers say\n", 1)[1].split("\n## ", 1)[0]
    assert not re.search(r"\b0\.\d{3}\b", changes + numbers)
    assert re.search(r"A's value ranges from \d+(\.\d+)?% ", text)
    assert not re.search(r"A's value ranges from 0\.\d{3}", text)
    # the spec's matrix of A's value is the report's figure (a best-play run draws no
    # seat-averaged score matrix of its own)
    assert [p.name for p in paths["figures"]] == ["matchup-value-b.0.preset-a.0.preset.png"]
    assert "](figures/matchup-value-b.0.preset-a.0.preset.png)" in text
    html = paths["html"].read_text()
    assert html.index('id="verdict"') < html.index("What best play changes") \
        < html.index("What the numbers say")


def test_cli_sweep_play_best_overrides_the_file(tmp_path, capsys):
    spec = {**ROUND_ROBIN, "run": {"seed": 8, "fights": 2_000}, "outputs": {}}
    spec["grid"] = {"axes": [{"field": "a.0.preset", "values": ["novice"]}]}
    spec["b"] = [{"preset": "expert"}]
    file = tmp_path / "short.toml"
    file.write_text(to_toml(spec))
    status = main(["sweep", str(file), "--play", "best", "--dry-run"])
    out = capsys.readouterr().out
    assert status == 0 and "best play by Monte Carlo, 2,000 fights a profile pair" in out
    status = main(["sweep", str(file), "--play", "best", "--out", str(tmp_path / "run"),
                   "--executor", "serial", "-q"])
    out = capsys.readouterr().out
    assert status == 0 and "under best play (simulate)" in out and "policy_a" in out
    table = pd.read_csv(tmp_path / "run" / "results.csv")
    assert table["play"].tolist() == ["best"]
