"""Published words come from code: the README's quoted verdicts are those of the committed
reports, and every committed report opens with its verdict."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FLAGSHIPS = {"crt": "crt-skill-vs-experience", "strike-rank": "strike-rank-style-duels",
             "zones": "zones-third-attack"}


def _verdict(name: str) -> str:
    text = (ROOT / "reports" / name / "report.md").read_text(encoding="utf-8")
    return " ".join(text.split("## Verdict", 1)[1].split("\n## ", 1)[0].split())


def test_every_committed_report_opens_with_its_verdict():
    reports = sorted((ROOT / "reports").glob("*/report.md"))
    assert reports
    for path in reports:
        headings = re.findall(r"^## (.+)$", path.read_text(encoding="utf-8"), re.M)
        assert headings[:2] == ["Verdict", "The question"], path
        assert _verdict(path.parent.name).startswith("- "), path  # at least one sentence


def test_the_readme_quotes_the_flagship_verdicts():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    quotes = re.findall(r'\*"(.+?)"\* \(([a-z-]+)\)', readme, re.S)
    assert sorted(ruleset for _, ruleset in quotes) == sorted(FLAGSHIPS)
    for quote, ruleset in quotes:
        verdict = _verdict(FLAGSHIPS[ruleset])
        for part in " ".join(quote.split()).split(" ... "):
            assert part in verdict, (ruleset, part)
