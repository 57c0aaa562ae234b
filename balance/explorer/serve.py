"""``balance explore``: the explorer panel as a local web page.

The page is a one-cell notebook that builds the panel, rendered by Voilà (the notebook's
code is not shown, only its widgets), listening on 127.0.0.1 only.  A port already in use
is a :class:`~balance.errors.SpecError` (the command's one line and exit status 2), never
a silent move to another port.
"""

from __future__ import annotations

import errno
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import SpecError

__all__ = ["HOST", "check_port", "page_notebook", "serve", "sign", "voila_command"]

HOST = "127.0.0.1"
DEFAULT_PORT = 8866


def check_port(port: int, host: str = HOST) -> None:
    """Raise :class:`SpecError` if ``host:port`` cannot be listened on."""
    if not 1 <= port <= 65535:
        raise SpecError(f"--port must be in 1..65535, got {port}")
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        try:
            probe.bind((host, port))
        except OSError as exc:
            if exc.errno in (errno.EADDRINUSE, errno.EACCES):
                raise SpecError(f"port {port} on {host} is taken; choose another with "
                                "--port") from None
            raise SpecError(f"cannot listen on {host}:{port}: {exc.strerror}") from None


def page_notebook(ruleset: str, a: Sequence[str] = (), b: Sequence[str] = (),
                  rules: Mapping[str, Any] | None = None, *, seed: int = 1,
                  experiments: str | Path = ".", allow_import: bool = False,
                  folder: str | Path | None = None) -> dict[str, Any]:
    """The one-cell notebook (nbformat 4, as a dict) that shows the panel.

    The page has only the permission written into it: ``allow_import`` (the command's
    ``--allow-import``) lets a ``package.module:OBJECT`` ruleset be imported, from
    ``folder`` (the command's working folder, where the kernel then works); without it the
    page refuses such a ruleset as the command does.
    """
    args = [repr(ruleset), repr(list(a) or None), repr(list(b) or None)]
    code = "import balance\n\n"
    if allow_import:
        code = ("import os\n\nimport balance\n\n"
                f"os.chdir({str(Path(folder or '.').resolve())!r})  # where the command ran\n")
    code += (f"explorer = balance.explore({', '.join(args)}, rules={dict(rules or {})!r}, "
             f"seed={seed!r},\n"
             f"                           experiments={str(experiments)!r}"
             + (", allow_import=True)\n" if allow_import else ")\n"))
    # the first answer (refined) is in the page as served: a page served from a kernel
    # pre-heated earlier would otherwise miss the updates sent before it connected
    code += f"explorer.wait({FIRST_ANSWER_WAIT_S})\nexplorer"
    return {"nbformat": 4, "nbformat_minor": 5,
            "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                        "language": "python"},
                         "language_info": {"name": "python"}},
            "cells": [{"cell_type": "code", "id": "explorer", "metadata": {},
                       "execution_count": None, "outputs": [], "source": code}]}


FIRST_ANSWER_WAIT_S = 60
"""Seconds the page's cell waits for its first answer and that answer's refinement (at most
the panel's ``refine_s``, 20 s) before it ends, so the served page holds them."""

TEMPLATES = Path(__file__).parent / "jupyter"
"""A Jupyter data folder holding the page's Voilà template (``balance-explore``)."""

WIDGETS_EXTENSIONS = ("@jupyter-widgets/jupyterlab-manager", "@voila-dashboards/widgets-manager8")


def voila_command(notebook: Path, port: int) -> list[str]:
    """The Voilà command line serving ``notebook`` on 127.0.0.1:``port`` and no other.

    Only the widgets' JupyterLab extension is loaded: others installed beside JupyterLab
    (jupytext's, say) are built for JupyterLab's version, not Voilà's, and fail to load.
    A kernel is kept pre-heated (the notebook already run, its page rendered) so a page
    opens with its answer in about a second, not after a kernel's start; the kernel talks
    to the server over Unix sockets in the server's own folder (not TCP ports, which any
    local user could reach); and the notebook is trusted through a signature store in its
    own folder (see :func:`sign`), so neither says otherwise at start.
    """
    folder = notebook.parent
    return [sys.executable, "-m", "voila", str(notebook), f"--port={port}",
            f"--Voila.ip={HOST}", "--Voila.port_retries=0", "--no-browser",
            f"--Voila.root_dir={folder}", "--theme=light",
            "--template=balance-explore",
            *(f"--VoilaConfiguration.extension_allowlist={name}" for name in WIDGETS_EXTENSIONS),
            "--VoilaConfiguration.show_tracebacks=True",
            "--VoilaConfiguration.preheat_kernel=True",
            # the page's cell is done when its widgets' messages are: on a busy machine (or
            # the first start of a new environment) they may trail its end by more than
            # nbclient's 4 s, and a page rendered without them shows no panel
            f"--VoilaExecutor.iopub_timeout={IOPUB_TIMEOUT_S}",
            "--KernelManager.transport=ipc",
            f"--NotebookNotary.db_file={folder / SIGNATURES}",
            f"--NotebookNotary.secret_file={folder / SECRET}"]


IOPUB_TIMEOUT_S = 120
"""Seconds the page's pre-heating waits for its cell's last messages."""

SIGNATURES, SECRET = "signatures.db", "signature.key"
"""The page's signature store and key, in the page's own (temporary) folder."""


def sign(notebook: Path) -> None:
    """Trust the page's notebook (we wrote it): sign it in a signature store of its
    folder, the one :func:`voila_command` gives Voilà, never the user's own."""
    import nbformat
    from nbformat.sign import NotebookNotary

    folder = notebook.parent
    notary = NotebookNotary(db_file=str(folder / SIGNATURES),
                            secret_file=str(folder / SECRET))
    notary.sign(nbformat.read(notebook, as_version=4))


def voila_environment() -> dict[str, str]:
    """The environment of the Voilà process: ours, with the page template's folder first
    on ``JUPYTER_PATH``."""
    env = dict(os.environ)
    env["JUPYTER_PATH"] = os.pathsep.join(
        p for p in (str(TEMPLATES), env.get("JUPYTER_PATH", "")) if p)
    return env


def serve(ruleset: str, a: Sequence[str] = (), b: Sequence[str] = (),
          rules: Mapping[str, Any] | None = None, *, seed: int = 1, port: int = DEFAULT_PORT,
          experiments: str | Path = ".", out: Any = None, allow_import: bool = False) -> int:
    """Serve the explorer at ``http://127.0.0.1:PORT/`` until interrupted; the exit status.

    Everything is checked before the server starts (the ruleset, sides and rules, the port,
    that Voilà is installed), each failure a one-line :class:`SpecError`.
    ``allow_import``: a ``package.module:OBJECT`` ruleset may be imported, here and by the
    page (which is given this permission and no other; see :func:`page_notebook`).
    """
    from importlib.util import find_spec

    from ..api import get, matchup
    from ..files import check_folder

    ruleset = ruleset.strip()
    rs = get(ruleset, allow_import=allow_import)
    presets = list(rs.presets)
    matchup(rs, list(a) or presets[:1], list(b) or presets[1:2] or presets[:1], dict(rules or {}))
    check_folder(experiments, "--experiments", " for the saved experiments")
    for name in ("voila", "ipywidgets", "ipykernel"):
        if find_spec(name) is None:
            raise SpecError(f"`balance explore` needs {name}: run `make explore` in the balance "
                            "checkout (it installs the explore extra: "
                            "pip install -e '.[explore]')")
    check_port(port)
    out = out or sys.stdout
    with tempfile.TemporaryDirectory(prefix="balance-explore-") as folder:
        notebook = Path(folder) / "explore.ipynb"
        notebook.write_text(json.dumps(page_notebook(
            ruleset, a, b, rules, seed=seed, experiments=Path(experiments).resolve(),
            allow_import=allow_import, folder=Path.cwd())), encoding="utf-8")
        sign(notebook)
        process: subprocess.Popen[bytes] | None = None
        terminated = False

        def on_term(*_: Any) -> None:
            # a terminated `balance explore` takes its server (and the server its kernels)
            # along, whenever the signal comes
            nonlocal terminated
            terminated = True
            if process is not None:
                process.terminate()

        previous = signal.signal(signal.SIGTERM, on_term)
        try:
            print(f"balance explore: {rs.name} at http://{HOST}:{port}/ (this machine only; "
                  "Ctrl-C stops it)", file=out, flush=True)
            if terminated:
                return 143
            process = subprocess.Popen(voila_command(notebook, port), env=voila_environment(),
                                       stdout=subprocess.DEVNULL)
            if terminated:  # the signal came between the fork and the assignment
                process.terminate()
            status = process.wait()
            return 128 + signal.SIGTERM if terminated else status
        except KeyboardInterrupt:
            if process is not None:
                process.terminate()
                process.wait(timeout=30)
            return 130
        finally:
            signal.signal(signal.SIGTERM, previous)
