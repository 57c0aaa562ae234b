"""`balance explore` in a real browser: the page served on 127.0.0.1, opened in headless
Chromium, a control changed, the shown rate follows, a matrix cell narrates its fight, no
console errors, nothing fetched from anywhere but this machine, and a screenshot that is not
blank."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from io import BytesIO

import pytest


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


PATIENCE_MS = 480_000
"""How long a wait for what the page writes may take before the test calls the page hung:
a deadline for a hang, not a speed target (each wait ends as soon as its element appears;
under load, as in CI on 2 busy cores, a pre-heated kernel's first page may take minutes);
below pytest-timeout's 600 s, so a hang fails with the step that hung."""


def _wait_for(url: str, process: subprocess.Popen, timeout: float = PATIENCE_MS / 1000) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"balance explore exited with {process.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise AssertionError(f"{url} did not answer within {timeout} s")


def test_explorer_page_in_headless_chromium(tmp_path):
    # As the report test: `make test` installs Debian's chromium and requires this test.
    exe = _chromium()
    if exe is None:
        if os.environ.get("BALANCE_BROWSER_TESTS") == "required":
            pytest.fail("chromium is required (make test installs it) but was not found")
        pytest.skip("no chromium on this machine")
    pytest.importorskip("voila")
    sync_api = pytest.importorskip("playwright.sync_api")
    from PIL import Image

    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "balance", "explore", "crt", "--a", "novice", "--b", "veteran",
         "--port", str(port), "--experiments", str(tmp_path)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    url = f"http://127.0.0.1:{port}/"
    errors: list[str] = []
    requests: list[str] = []
    try:
        assert url in process.stdout.readline()  # the one line saying where it serves
        _wait_for(url, process)
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=exe, args=[
                "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update",
                "--disable-sync"])
            page = browser.new_page(viewport={"width": 1250, "height": 900})
            page.set_default_timeout(PATIENCE_MS)  # clicks too: a hang, not slowness, fails
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("request", lambda r: requests.append(r.url))
            page.goto(url, timeout=PATIENCE_MS)
            rate = page.locator(".balance-answer .a-win").first
            rate.wait_for(timeout=PATIENCE_MS)
            before = rate.inner_text()
            assert before.endswith("%")
            # the designer picks another preset for side A
            preset = page.locator(".widget-dropdown", has=page.locator("label", has_text="A1"))
            preset.locator("select").select_option("master")
            page.wait_for_function(
                "old => { const e = document.querySelector('.balance-answer .a-win');"
                " return e && e.textContent !== old; }", arg=before, timeout=PATIENCE_MS)
            after = rate.inner_text()
            heading = page.locator(".balance-answer b").first.inner_text()
            method = page.locator(".balance-answer .method").first.inner_text()
            shot = page.screenshot(full_page=True)
            # the matrix: its buttons are made by the panel's worker thread; a click narrates
            page.get_by_text("Matchup matrix").click()
            fights = page.locator(".widget-dropdown", has=page.locator("label",
                                                                       has_text="fights a pair"))
            fights.locator("select").select_option("2000")
            page.get_by_role("button", name="run the round robin").click()
            page.get_by_role("button", name="50.0%").first.wait_for(timeout=PATIENCE_MS)
            page.locator("button", has_text=re.compile(r"^9\d\.\d%$")).first.click()
            narration = page.locator("pre").first
            narration.wait_for(timeout=PATIENCE_MS)
            assert "Round 1" in narration.inner_text()
            browser.close()
    finally:
        process.terminate()
        process.wait(timeout=PATIENCE_MS / 1000)
    assert heading.startswith("master against veteran")
    assert method.startswith("Monte Carlo: ") and "final" not in method
    assert float(after.rstrip("%")) > 50 > float(before.rstrip("%"))  # the master wins
    assert errors == []
    local = ("http://127.0.0.1:", "ws://127.0.0.1:", "data:", "blob:")
    assert [u for u in requests if not u.startswith(local)] == []
    picture = Image.open(BytesIO(shot)).convert("RGB")
    colours = picture.getcolors(maxcolors=1 << 20)
    assert colours is not None and len(colours) > 50  # not blank: text, bars, a histogram


def test_controls_in_words_and_named_rows_in_headless_chromium(tmp_path):
    # issue 25: every control labelled in words (no raw field names), a guessed value's
    # mark explained on hover, a named row (strike-rank's weapon) chosen from a dropdown
    exe = _chromium()
    if exe is None:
        if os.environ.get("BALANCE_BROWSER_TESTS") == "required":
            pytest.fail("chromium is required (make test installs it) but was not found")
        pytest.skip("no chromium on this machine")
    pytest.importorskip("voila")
    sync_api = pytest.importorskip("playwright.sync_api")

    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "balance", "explore", "strike-rank", "--a", "bladesman",
         "--b", "feral", "--port", str(port), "--experiments", str(tmp_path)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    url = f"http://127.0.0.1:{port}/"
    errors: list[str] = []
    try:
        assert url in process.stdout.readline()
        _wait_for(url, process)
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=exe, args=[
                "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update",
                "--disable-sync"])
            page = browser.new_page(viewport={"width": 1250, "height": 900})
            page.set_default_timeout(PATIENCE_MS)  # clicks too: a hang, not slowness, fails
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(url, timeout=PATIENCE_MS)
            page.locator(".balance-answer .a-win").first.wait_for(timeout=PATIENCE_MS)
            # side A's first fighter: open its equipment
            page.get_by_text("equipment (", exact=False).first.click()
            weapon = page.locator(".widget-dropdown",
                                  has=page.locator("label", has_text="weapon in hand")).first
            weapon.wait_for(timeout=PATIENCE_MS)
            choices = [t.replace("\xa0", " ") for t in weapon.locator("option").all_inner_texts()]
            weapon.locator("select").select_option(label="war pick")
            page.wait_for_function(
                "() => { const e = document.querySelector('.balance-answer b');"
                " return e && e.textContent.includes('war pick'); }", timeout=PATIENCE_MS)
            failed = page.locator(".balance-error").count()
            # the answer stays in view: open the groups and scroll to the page's end
            headers = page.locator(".jupyter-widget-Collapse-header")
            for i in range(headers.count()):
                headers.nth(i).click()
            page.mouse.move(300, 450)
            page.mouse.wheel(0, 20_000)
            page.wait_for_function(
                "() => document.querySelector('.widget-tab-contents').getBoundingClientRect()"
                ".top < -500", timeout=PATIENCE_MS)  # the controls really scrolled away
            box = page.locator(".balance-answer").first.bounding_box()
            labels = page.locator(".widget-label").all_inner_texts()
            hovers = page.locator("[title*='invented to fill the gap']").count()
            browser.close()
    finally:
        process.terminate()
        process.wait(timeout=PATIENCE_MS / 1000)
    assert "war pick" in choices and "long sword" in choices
    assert failed == 0  # "war pick" is answered, not refused
    assert box is not None and 0 <= box["y"] < 900 / 2  # the answer is still on screen
    shown = [t.replace("\xa0", " ").strip() for t in labels if t.strip()]
    assert "weapon in hand" in shown and any(t.endswith("(DEFAULT)") for t in shown)
    assert [t for t in shown if "_" in t] == []  # no raw field name
    assert hovers > 0  # a DEFAULT mark's meaning is on hover
    assert errors == []


def _screenshots_script():
    """benchmarks/explore_screenshots.py, the script that makes docs/images/explore-*.png."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).parents[2] / "benchmarks" / "explore_screenshots.py"
    spec = importlib.util.spec_from_file_location("explore_screenshots", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_each_ruleset_with_best_play_and_make_it_even_in_headless_chromium(tmp_path):
    # issue 25: one page load, the four rulesets in turn (the screenshots of docs/explore.md,
    # by the script that makes them): each answered, best play shown with each side's
    # policy, "make it even" answered, the picture not blank, the console free of errors
    exe = _chromium()
    if exe is None:
        if os.environ.get("BALANCE_BROWSER_TESTS") == "required":
            pytest.fail("chromium is required (make test installs it) but was not found")
        pytest.skip("no chromium on this machine")
    pytest.importorskip("voila")
    pytest.importorskip("playwright.sync_api")
    from PIL import Image

    shots = _screenshots_script()
    with open(tmp_path / "server.log", "w") as log:
        said, errors = shots.shoot(tmp_path, exe, stderr=log)
    assert errors == []
    # a quiet start: the page's notebook trusted, its kernels on Unix sockets
    started = (tmp_path / "server.log").read_text().split("Handle signal")[0]
    assert "Kernel pool of explore.ipynb is filled" in started  # a pre-heated kernel
    for alarming in ("not trusted", "without encryption", "WARNING", "ERROR", "Traceback"):
        assert alarming not in started
    assert list(said) == ["crt", "strike-rank", "zones", "pool"]
    for ruleset, panel in said.items():
        assert f"({ruleset})" in panel["answer"]
        assert panel["best"].startswith("Best play: A's expected score")
        assert "A plays" in panel["best"] and "B plays" in panel["best"]
        assert "50.0%" in panel["even"] and "Method: best play at every value" in panel["even"]
        picture = Image.open(tmp_path / f"explore-{ruleset}.png").convert("RGB")
        assert picture.size == (shots.VIEWPORT["width"], shots.VIEWPORT["height"])
        colours = picture.getcolors(maxcolors=1 << 20)
        assert colours is not None and len(colours) > 50  # text, bars, a histogram
    assert said["crt"]["answer"].startswith("novice against veteran")  # the page opened
    # crt and strike-rank: the whole values that bracket even, with their rates
    assert "combats survived" in said["crt"]["even"]
    assert re.search(r"\b30\b.*\b31\b", said["crt"]["even"], re.S)
    assert "Skill in that style" in said["strike-rank"]["even"]
    assert "Monte Carlo" in said["strike-rank"]["best"] and "(95%)" in said["strike-rank"]["best"]
