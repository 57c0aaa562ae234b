"""Every figure the documents publish is reproduced by code, and every figure is covered.

``test_figure`` runs each check of ``checks_*.py`` (see ``figures.py``); the scanner test
fails for any figure in a document's prose that no check quotes and the allowlist does not
name, so a new figure cannot be published untested.
"""

from __future__ import annotations

import pytest

from . import (  # noqa: F401  (they register their checks)
    checks_general,
    checks_pool,
    checks_rulesets,
    checks_strike_rank,
    checks_zones,
)
from .figures import ALLOW, CHECKS, DOCUMENTS, Check, Claims, Mismatch, document, scan, uncovered


@pytest.mark.parametrize("check", [
    pytest.param(c, id=c.name, marks=[pytest.mark.slow] if c.slow else []) for c in CHECKS])
def test_figure(check: Check) -> None:
    check.run()


@pytest.mark.parametrize("path", DOCUMENTS)
def test_every_figure_is_checked(path: str) -> None:
    doc = document(path)
    missing = uncovered(path)
    assert not missing, f"{len(missing)} figures of {path} are neither checked nor allowed:\n" + \
        "\n".join(f"  {t.text!r} in ...{t.context(doc)}..." for t in missing)


def test_every_allowlist_entry_is_used() -> None:
    unused = [a for a in ALLOW if not any(a.spans(document(p)) for p in DOCUMENTS)]
    assert not unused, f"allowlist entries that name nothing: {unused}"


def test_check_names_are_unique() -> None:
    names = [c.name for c in CHECKS]
    assert len(names) == len(set(names))


# ---------------------------------------------------------------------------------------------
# The harness itself


def _prose(text: str):
    from .figures import _as_prose
    return _as_prose(text)


@pytest.mark.parametrize(("text", "found"), [
    ("wins 81.4% [81.1%, 81.6%] of the time", ["81.4%", "81.1%", "81.6%"]),
    ("at 52.4% [52.1, 52.7], 0.92 sealed", ["52.4%", "52.1", "52.7", "0.92"]),
    ("~5–7 M and ~270–390 k, 2.5–3.7 ms a solve, 30–42 s", ["~5–7 M", "~270–390 k",
                                                            "2.5–3.7 ms", "30–42 s"]),
    ("about 25 points, about 6.8 combats survived, 4 times", ["25 points", "6.8 combats", "4 times"]),
    ("more than double, to 1e-10, 5 -> 8 rounds", ["double", "1e-10", "5 -> 8 rounds"]),
    ("Python 3.11+, seed 1, Skill 30, 2d6, 001.10 q1, 127.0.0.1:8866", ["3.11", "001.10"]),
])
def test_scanner(text: str, found: list[str]) -> None:
    assert [t.text for t in scan(_prose(text))] == found


def test_code_is_not_prose(tmp_path, monkeypatch) -> None:
    from . import figures

    (tmp_path / "doc.md").write_text("A `--precision 0.002` run.\n\n```sh\nbalance duel -n 0.5 "
                                     "# 12.5% here\n```\nand 3.5% there\n")
    monkeypatch.setattr(figures, "ROOT", tmp_path)
    figures.document.cache_clear()
    try:
        assert [t.text for t in scan(figures.document("doc.md"))] == ["12.5%", "3.5%"]
    finally:
        figures.document.cache_clear()


def _claims(quote: str) -> Claims:
    return Claims(Check("README.md", quote, lambda c: None), _prose(quote))


def test_claims_compare_to_the_printed_digits() -> None:
    _claims("wins 1.58%").exact("1.58%", 0.015849)
    with pytest.raises(Mismatch):
        _claims("wins 1.58%").exact("1.58%", 0.01586)
    _claims("A's value 0.05").exact("0.05", 0.0549)
    with pytest.raises(Mismatch):
        _claims("A's value 0.05").exact("0.05", 0.0551)


def test_monte_carlo_claims_use_the_run_interval() -> None:
    quote = "81.4% [81.1%, 81.6%]"
    _claims(quote).mc(quote, 0.8141, (0.8124, 0.8158))
    with pytest.raises(Mismatch):  # the wrong figure of docs/crt.md
        _claims(quote).mc(quote, 0.52923, (0.52704, 0.53142))
    with pytest.raises(Mismatch):
        _claims("is 52%").mc("52%", 0.529, (0.527, 0.531))


def test_a_figure_left_unclaimed_fails() -> None:
    check = Check("README.md", "vectorised NumPy kernels simulate millions of fights per second",
                  lambda c: None)
    with pytest.raises(Mismatch, match="no claim compares"):
        check.run()


def test_a_quote_no_longer_in_the_document_fails() -> None:
    check = Check("README.md", "simulate 12 billion fights a second", lambda c: None)
    with pytest.raises(Mismatch, match="no longer says"):
        check.run()
