"""Every committed report opens with its verdict (the README's quotes of the flagship
verdicts are checked against fresh runs by tests/docs)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


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
