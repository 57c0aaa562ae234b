"""`balance explore` on the command line: what it serves, where, and its one-line errors."""

from __future__ import annotations

import json
import socket
import types

from balance.cli import main
from balance.explorer import serve
from balance.explorer.serve import HOST, TEMPLATES, page_notebook, voila_command


def test_a_taken_port_is_one_line_and_status_2(capsys):
    with socket.socket() as taken:
        taken.bind((HOST, 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["explore", "crt", "--port", str(port)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (f"balance: error: port {port} on 127.0.0.1 is taken; choose "
                            "another with --port\n")


def test_bad_sides_and_rules_fail_before_anything_starts(capsys):
    assert main(["explore", "crt", "--a", "novice,skill=9"]) == 2
    assert main(["explore", "crt", "--rule", "damage_die=0"]) == 2
    assert main(["explore", "nope"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 3 and all(line.startswith("balance: error: ") for line in err)
    assert "'skill' must be in 0..5" in err[0] and "damage_die" in err[1]


def test_the_server_listens_on_this_machine_only(tmp_path):
    command = voila_command(tmp_path / "explore.ipynb", 8899)
    assert "--Voila.ip=127.0.0.1" in command and "--port=8899" in command
    assert "--Voila.port_retries=0" in command  # never a silent move to another port
    assert "--no-browser" in command and "--template=balance-explore" in command
    template = TEMPLATES / "voila" / "templates" / "balance-explore"
    assert json.loads((template / "conf.json").read_text())["base_template"] == "lab"
    # issue 25: a pre-heated kernel (the page opens with its answer), on Unix sockets
    assert "--VoilaConfiguration.preheat_kernel=True" in command
    assert "--KernelManager.transport=ipc" in command
    # its cell's widget messages waited for (nbclient's 4 s leaves a page without its panel
    # when a busy machine, or a new environment's first start, is slower)
    assert "--VoilaExecutor.iopub_timeout=120" in command


def test_the_page_notebook_is_trusted_in_its_own_signature_store(tmp_path):
    # issue 25: no "not trusted" at start, and nothing written to the user's own store
    from pathlib import Path

    import nbformat
    from nbformat.sign import NotebookNotary

    from balance.explorer.serve import sign

    notebook = tmp_path / "explore.ipynb"
    notebook.write_text(json.dumps(page_notebook("crt", ["novice"], ["veteran"])))
    command = voila_command(notebook, 8899)
    store = {arg.split("=", 1)[0]: arg.split("=", 1)[1] for arg in command
             if arg.startswith("--NotebookNotary.")}
    assert {Path(v).parent for v in store.values()} == {tmp_path}
    nb = nbformat.read(notebook, as_version=4)
    notary = NotebookNotary(db_file=store["--NotebookNotary.db_file"],
                            secret_file=store["--NotebookNotary.secret_file"])
    assert not notary.check_signature(nb)
    sign(notebook)
    assert notary.check_signature(nb)


def test_the_page_is_one_cell_building_the_panel(tmp_path):
    nb = page_notebook("zones", ["swordsman"], ["soldier,might=2"], {"initial_gap": "contact"},
                       seed=4, experiments=tmp_path)
    (cell,) = nb["cells"]
    calls: list = []
    waited: list = []
    panel = types.SimpleNamespace(wait=waited.append)

    def explore(*a, **k):
        calls.append((a, k))
        return panel

    exec(cell["source"].replace("import balance\n", ""),
         {"balance": types.SimpleNamespace(explore=explore)})
    assert calls == [(("zones", ["swordsman"], ["soldier,might=2"]),
                      {"rules": {"initial_gap": "contact"}, "seed": 4,
                       "experiments": str(tmp_path)})]
    # the cell ends once the first answer and its refinement are in the panel, so a page
    # served from a kernel pre-heated long before holds them
    assert waited == [serve.FIRST_ANSWER_WAIT_S]
    assert cell["source"].rstrip().endswith("\nexplorer")  # the panel is the cell's output


def test_a_rules_file_reaches_the_page(tmp_path, monkeypatch):
    """`balance explore --rules FILE` gives the page the file's [rules] (house rules, rows
    with conditions), then --rule on top, as every other command does."""
    from balance.explorer import serve as serving

    (tmp_path / "house.toml").write_text(
        '[rules.house_rules.shield]\nmodifiers = ["+2 to score when self.shield != \\"none\\""]\n')
    seen: dict = {}
    monkeypatch.setattr(serving, "serve", lambda *a, **k: seen.update(rules=a[3]) or 0)
    from balance.cli import main

    assert main(["explore", "crt", "--rules", str(tmp_path / "house.toml"),
                 "--rule", "extraordinary=false"]) == 0
    assert seen["rules"] == {"house_rules": {"shield": {"modifiers": [
        '+2 to score when self.shield != "none"']}}, "extraordinary": "false"}
