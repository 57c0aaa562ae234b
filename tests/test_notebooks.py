"""The notebooks: plain-text sources (jupytext percent ``.py``) with their paired ``.ipynb``
in step, every one running from top to bottom without an error."""

from __future__ import annotations

from pathlib import Path

import pytest

FOLDER = Path(__file__).parents[1] / "notebooks"
NOTEBOOKS = sorted(FOLDER.glob("*.ipynb"))
SOURCES = sorted(FOLDER.glob("*.py"))
INTERNALS = ("balance.api.", "plain_fields", "balance._")
"""What a notebook cell must not reach into: the public API is enough."""


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()  # raises CellExecutionError, naming the cell, on any error
    errors = [o for cell in nb.cells if cell.cell_type == "code"
              for o in cell.get("outputs", []) if o.get("output_type") == "error"]
    assert errors == []


def test_there_are_notebooks() -> None:
    assert NOTEBOOKS
    assert [p.stem for p in NOTEBOOKS] == [p.stem for p in SOURCES]


@pytest.mark.parametrize("source", SOURCES, ids=[p.stem for p in SOURCES])
def test_paired_notebook_has_not_drifted(source: Path) -> None:
    # The .py is what a designer edits (in JupyterLab with jupytext, or any editor); the
    # .ipynb is generated from it (`make notebooks-sync`).  Their cells must be the same.
    jupytext = pytest.importorskip("jupytext")
    nbformat = pytest.importorskip("nbformat")
    text = jupytext.read(source)
    paired = source.with_suffix(".ipynb")
    assert paired.is_file(), f"{paired.name} is missing: run `make notebooks-sync`"
    nb = nbformat.read(paired, as_version=4)
    cells = [(c.cell_type, c.source) for c in text.cells]
    assert [(c.cell_type, c.source) for c in nb.cells] == cells, (
        f"{paired.name} differs from {source.name}: run `make notebooks-sync`")
    assert text.metadata["jupytext"]["formats"] == "ipynb,py:percent"
    for cell in text.cells:
        if cell.cell_type == "code":
            assert not any(name in cell.source for name in INTERNALS), cell.source
