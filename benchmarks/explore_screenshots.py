"""Screenshots of the explorer, one per built-in ruleset, for docs/explore.md.

Serves ``balance explore crt`` on 127.0.0.1, opens it once in headless Chromium (Debian's
``chromium``, driven by Playwright: ``make install-test``), and for each ruleset in turn:
chooses it in the page's ruleset dropdown, waits for its answer, turns best play on and
clicks "make it even", waits for both, and saves the window as
``FOLDER/explore-RULESET.png``.  Every wait is for an element the page writes, never a
sleep.  ``make explore-screenshots`` writes docs/images/; the browser test
(tests/explore/test_browser.py) runs the same steps into a temporary folder.

Usage::

    .venv/bin/python benchmarks/explore_screenshots.py docs/images
"""

from __future__ import annotations

import argparse
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

RULESETS = ("crt", "strike-rank", "zones", "pool")
MATCHUPS = {"crt": ("novice", "veteran"), "strike-rank": ("bladesman", "feral"),
            "zones": ("swordsman", "soldier"), "pool": ("duellist", "guard")}
VIEWPORT = {"width": 1280, "height": 1350}
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def serving(ruleset: str, a: str, b: str, experiments: str | Path, *,
            stderr: Any = subprocess.DEVNULL) -> Iterator[tuple[str, subprocess.Popen]]:
    """``balance explore`` on a free port: (its URL, the process), stopped at the end."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "balance", "explore", ruleset, "--a", a, "--b", b,
         "--port", str(port), "--experiments", str(experiments)],
        stdout=subprocess.PIPE, stderr=stderr, text=True)
    url = f"http://127.0.0.1:{port}/"
    try:
        assert process.stdout is not None
        line = process.stdout.readline()  # the one line saying where it serves
        if url not in line:
            raise RuntimeError(f"balance explore said {line!r}")
        wait_for(url, process)
        yield url, process
    finally:
        process.terminate()
        process.wait(timeout=PATIENCE_MS / 1000)


PATIENCE_MS = 480_000
"""How long to wait for what the page writes before calling it hung (8 min): a deadline for
a hang, not a speed target; on an idle machine each wait ends within seconds, and on a busy
one (CI's 2 cores, other work alongside) the same waits may take many times longer."""


def wait_for(url: str, process: subprocess.Popen, timeout: float = PATIENCE_MS / 1000) -> None:
    """Until ``url`` answers 200 (the server is up), polling; an error if it exits."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"balance explore exited with {process.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError(f"{url} did not answer within {timeout} s")


@contextmanager
def browser_page(exe: str) -> Iterator[tuple[Any, list[str]]]:
    """A headless Chromium page of :data:`VIEWPORT`, and the console's errors as they
    come."""
    from playwright.sync_api import sync_playwright

    errors: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport=VIEWPORT)
            page.set_default_timeout(PATIENCE_MS)  # clicks too: a hang, not slowness, fails
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            yield page, errors
        finally:
            browser.close()


TO_TOP = ("() => { window.scrollTo(0, 0); for (const e of document"
          ".querySelectorAll('.balance-panel')) e.scrollTop = 0; }")
"""Scroll the page and the answer's own column to their tops, where the panel's buttons
are."""
ANSWERED = ("name => { const b = document.querySelector('.balance-answer b');"
            " return b && b.parentElement.textContent.includes('(' + name + ')'); }")
BEST_DONE = ("() => { const b = document.querySelector('.balance-best');"
             " return b && !document.querySelector('.balance-panel .balance-working'); }")
EVEN_DONE = ("() => { const e = document.querySelector('.balance-even');"
             " return e && !e.querySelector('.stale')"
             " && !document.querySelector('.balance-even-box .balance-working'); }")


def show_ruleset(page: Any, ruleset: str, *, timeout: float = PATIENCE_MS) -> dict[str, str]:
    """Choose ``ruleset`` in the page (if not shown), wait for its answer and best play,
    click "make it even" and wait for it; what the panel then says."""
    select = page.locator(".widget-dropdown", has=page.locator("label", has_text="ruleset"))
    if select.locator("select").input_value() != ruleset:
        select.locator("select").select_option(ruleset)
    page.wait_for_function(ANSWERED, arg=ruleset, timeout=timeout)
    page.evaluate(TO_TOP)
    toggle = page.get_by_role("button", name="best play")
    if "mod-active" not in (toggle.get_attribute("class") or ""):
        toggle.click()
    page.wait_for_function(BEST_DONE, timeout=timeout)
    page.evaluate(TO_TOP)
    page.get_by_role("button", name="make it even").click()
    page.wait_for_function(EVEN_DONE, timeout=timeout)
    return {"answer": page.locator(".balance-answer").first.inner_text(),
            "best": page.locator(".balance-best").first.inner_text(),
            "even": page.locator(".balance-even").first.inner_text()}


def shoot(folder: Path, exe: str, rulesets: tuple[str, ...] = RULESETS, *,
          stderr: Any = subprocess.DEVNULL) -> tuple[dict[str, dict[str, str]], list[str]]:
    """Serve the explorer (its log to ``stderr``), open it once, and save
    ``folder/explore-RULESET.png`` for each ruleset; what each panel said, and the
    console's errors."""
    folder.mkdir(parents=True, exist_ok=True)
    said: dict[str, dict[str, str]] = {}
    a, b = MATCHUPS[rulesets[0]]
    with tempfile.TemporaryDirectory() as experiments, \
            serving(rulesets[0], a, b, experiments, stderr=stderr) as (url, _), \
            browser_page(exe) as (page, errors):
        page.goto(url, timeout=PATIENCE_MS)
        page.locator(".balance-answer .a-win").first.wait_for(timeout=PATIENCE_MS)
        for ruleset in rulesets:
            said[ruleset] = show_ruleset(page, ruleset)
            page.mouse.move(0, 0)  # no hover highlight in the picture
            page.evaluate(TO_TOP)
            save(page.screenshot(), folder / f"explore-{ruleset}.png")
    return said, errors


def save(png: bytes, path: Path) -> None:
    """A screenshot in 256 colours (a quarter of the bytes; a page of text and flat
    colours loses nothing visible)."""
    from io import BytesIO

    from PIL import Image

    picture = Image.open(BytesIO(png)).convert("RGB")
    picture.quantize(colors=256, method=Image.Quantize.MEDIANCUT).save(path, optimize=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    args = parser.parse_args(argv)
    exe = chromium()
    if exe is None:
        print("explore_screenshots: needs chromium (make browser)", file=sys.stderr)
        return 2
    said, errors = shoot(args.folder, exe)
    for ruleset in said:
        print(args.folder / f"explore-{ruleset}.png")
    if errors:
        print("console errors:\n  " + "\n  ".join(errors), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
