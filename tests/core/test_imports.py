"""The package's import graph: every module imports on its own, and dependencies run one way.

The graph is read from the source (``import`` statements at module level and inside
functions alike; ``if TYPE_CHECKING:`` blocks left out), so a lazy import that points back
up the layers counts as much as a top-level one.
"""

from __future__ import annotations

import ast
import functools
import os
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import balance

PACKAGE = Path(balance.__file__).parent


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _target(name: str) -> str:
    while name not in MODULES:
        name = name.rpartition(".")[0]
    return name


@functools.cache
def import_graph() -> dict[str, set[str]]:
    """module -> the balance modules it imports (a package's own submodules left out)."""
    graph: dict[str, set[str]] = defaultdict(set)
    for module, path in MODULES.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]

        def visit(node: ast.AST, module: str = module, package: str = package) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                    continue
                names: list[str] = []
                if isinstance(child, ast.Import):
                    names = [a.name for a in child.names]
                elif isinstance(child, ast.ImportFrom):
                    base = child.module or ""
                    if child.level:
                        up = package.split(".")[:len(package.split(".")) - child.level + 1]
                        base = ".".join([*up, base] if base else up)
                    names = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base
                             for a in child.names]
                for name in names:
                    if name.split(".")[0] == "balance":
                        target = _target(name)
                        if target != module and not target.startswith(module + "."):
                            graph[module].add(target)
                visit(child)

        visit(ast.parse(path.read_text(encoding="utf-8")))
    return graph


def cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[set[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph.get(v, ()):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(component)

    for v in list(graph):
        if v not in index:
            connect(v)
    return found


def test_no_import_cycle() -> None:
    assert [sorted(component) for component in cycles(import_graph())] == []


def test_the_cycle_finder_finds_cycles() -> None:
    # The check above passes on an empty answer: the finder must give non-empty ones.
    graph = {"x": {"y"}, "y": {"z", "v"}, "z": {"x"}, "w": {"x"}, "v": {"u"}, "u": {"v"}}
    assert sorted(map(sorted, cycles(graph))) == [["u", "v"], ["x", "y", "z"]]


# Lower layers never import upper ones.  Drawing, writing files and the core know nothing
# of experiments, reports or the command line; analyses know nothing of experiments (an
# experiment may hold an analysis, as a [[tune]] table does); experiments know nothing of
# reports.
LAYERS = {
    "balance.files": ("balance.plots", "balance.figures", "balance.experiments",
                      "balance.report", "balance.analysis", "balance.cli"),
    "balance.plots": ("balance.figures", "balance.files", "balance.experiments",
                      "balance.report", "balance.cli"),
    "balance.figures": ("balance.experiments", "balance.report", "balance.cli"),
    "balance.labels": ("balance.experiments", "balance.report", "balance.plots",
                       "balance.cli"),
    "balance.experiments": ("balance.report", "balance.cli", "balance.explorer"),
    "balance.analysis": ("balance.experiments", "balance.report", "balance.cli",
                         "balance.explorer"),
    "balance.resolving": ("balance.api", "balance.experiments", "balance.analysis",
                          "balance.report", "balance.plots", "balance.cli", "balance.explorer"),
    # best play is run by the API and by round robins; the tables' readers run nothing
    "balance.analysis.bestplay": ("balance.api", "balance.analysis.matchups"),
    "balance.analysis.scores": ("balance.api", "balance.analysis.matchups",
                                "balance.analysis.bestplay"),
    "balance.reading": ("balance.api", "balance.experiments", "balance.analysis",
                        "balance.report", "balance.plots", "balance.cli", "balance.explorer"),
    "balance.rulesets": ("balance.api", "balance.experiments", "balance.analysis",
                         "balance.report", "balance.plots", "balance.cli"),
    "balance.engine": ("balance.api", "balance.experiments", "balance.analysis",
                       "balance.report", "balance.cli"),
}


# No ruleset module imports the command line (crt's campaign is `balance campaign crt`, its
# body crt.campaign.run; the old `python -m balance.rulesets.crt.campaign` script is gone).
SCRIPTS: set[tuple[str, str]] = set()


def test_dependencies_run_one_way() -> None:
    graph = import_graph()
    wrong = [f"{module} -> {target}"
             for module, targets in graph.items() for target in targets
             for lower, above in LAYERS.items()
             if (module == lower or module.startswith(lower + "."))
             and any(target == up or target.startswith(up + ".") for up in above)
             and (module, target) not in SCRIPTS]
    assert not wrong, wrong


def test_the_graph_reader_sees_lazy_imports() -> None:
    graph = import_graph()
    assert "balance.plots" in graph["balance.figures"]      # imported inside a function
    assert "balance.experiments.store" in graph["balance.experiments.plotting"]
    assert "balance.experiments.runner" in graph["balance.cli"]


def test_a_round_robin_loads_only_what_it_runs() -> None:
    # The package's names for the experiment runner, tune and the explorer are imported on
    # first use: `balance matchups` prints its tables without them.
    code = ("import sys, contextlib, io\n"
            "from balance.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    main(['matchups', 'crt', '--entrants', 'veteran,novice', '-n', '200'])\n"
            "print(' '.join(sorted(sys.modules)))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, timeout=300, env={**os.environ, "BALANCE_CACHE": "off"})
    loaded = set(done.stdout.split())
    assert "balance.analysis.matchups" in loaded  # it ran
    unused = ["balance.experiments.runner", "balance.analysis.tune", "balance.explorer"]
    assert [m for m in unused if m in loaded] == []


def test_import_balance_loads_no_numpy_and_a_command_runs_openblas_on_one_thread() -> None:
    # `import balance` is names only; the command line sets OPENBLAS_NUM_THREADS before
    # numpy first loads (balance._process), unless the user set it.
    code = ("import os, sys, balance; assert 'numpy' not in sys.modules, 'numpy'; "
            "assert callable(balance.duel) and balance.rulesets.RULESETS is balance.RULESETS; "
            "import balance.cli, numpy; print(os.environ.get('OPENBLAS_NUM_THREADS'))")
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    for given, expected in ((None, "1"), ("2", "2")):
        run_env = env if given is None else {**env, "OPENBLAS_NUM_THREADS": given}
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              check=True, timeout=300, env=run_env)
        assert done.stdout.strip() == expected


def test_a_package_lists_and_star_imports_the_names_it_loads_on_first_use() -> None:
    # dir() (and so completion in a notebook) shows every exported name before its module
    # is loaded, and `from ... import *` gives each one, for every package of lazy names.
    code = ("import importlib, sys\n"
            "names = ('balance', 'balance.experiments', 'balance.analysis')\n"
            "for name in names:\n"
            "    pkg = importlib.import_module(name)\n"
            "    unlisted = [n for n in pkg.__all__ if n not in dir(pkg)]\n"
            "    assert not unlisted, (name, unlisted)\n"
            "assert 'balance.experiments.runner' not in sys.modules\n"
            "for name in names:\n"
            "    pkg, space = sys.modules[name], {}\n"
            "    exec(f'from {name} import *', space)\n"
            "    assert all(space[n] is getattr(pkg, n) for n in pkg.__all__), name\n"
            "print('ok')\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300)
    assert done.stdout.strip() == "ok", done.stderr


def test_every_module_imports_on_its_own() -> None:
    # Each module first, in a fresh state of the package: a cycle at import time shows as an
    # ImportError (a partially initialised module) whatever order the suite imports them in.
    # ``import balance`` runs first whatever is imported, so what it loads stays loaded and
    # the rest is dropped before each module.
    code = (
        "import importlib, sys\n"
        "import balance\n"
        "base = {m for m in sys.modules if m == 'balance' or m.startswith('balance.')}\n"
        "failed = []\n"
        "for name in sys.argv[1:]:\n"
        "    for loaded in [m for m in sys.modules if m.startswith('balance.') "
        "and m not in base]:\n"
        "        del sys.modules[loaded]\n"
        "    try:\n"
        "        importlib.import_module(name)\n"
        "    except Exception as exc:\n"
        "        failed.append(f'{name}: {exc!r}')\n"
        "print('\\n'.join(failed))\n"
    )
    skip = ("balance.__main__",)  # runs the command line when imported
    names = [m for m in MODULES if m not in skip]
    done = subprocess.run([sys.executable, "-c", code, *names], capture_output=True,
                          text=True, check=True, timeout=300)
    assert done.stdout.strip() == ""


def test_no_public_function_shadows_a_module() -> None:
    # A package attribute that is a function named like one of its subpackages hides the
    # subpackage (as the function ``balance.explore`` hid the explorer's package, now
    # ``balance.explorer``, and ``balance.sweep`` hid ``balance.experiments``).
    shadowing = [name for name in balance.__all__ if f"balance.{name}" in MODULES]
    assert not shadowing, shadowing


def test_importing_the_explorer_package_keeps_the_explore_function() -> None:
    # In a fresh interpreter, importing the package and its submodules first: the import
    # system binds ``balance.explorer`` to the package, and ``balance.explore`` stays the
    # function ``balance/__init__.py`` imported from it.
    code = (
        "import types\n"
        "import balance.explorer.compute, balance.explorer.question, balance.explorer.serve\n"
        "import balance, balance.explorer\n"
        "assert isinstance(balance.explorer, types.ModuleType), balance.explorer\n"
        "assert balance.explorer.__name__ == 'balance.explorer'\n"
        "assert isinstance(balance.explore, types.FunctionType), balance.explore\n"
        "assert balance.explore is balance.explorer.explore\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.stdout.strip() == "ok", done.stderr
