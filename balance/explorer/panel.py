"""The explorer panel: ipywidgets over :mod:`.question` and :mod:`.compute`.

One :class:`Explorer` holds the controls of a ruleset (both sides and the rules, generated
from the field metadata), answers every change -- in a background thread, so the page
stays live, refining a Monte Carlo answer while nothing changes -- and offers compare mode,
the matchup matrix with narrated fights, and "save as experiment".  Every control is also
reachable from code (:meth:`Explorer.set`), which is how the tests drive it.
"""

from __future__ import annotations

import functools
import json
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import ipywidgets as w

from .. import budget as budget_module
from ..api import get
from ..errors import IntractableError, SpecError
from ..fields import coerce, plain, split_spec
from ..theme import FONT, OUTCOME_COLOURS
from . import play, view
from .compute import BUDGET_S, Comparison, ExactAnswer, PairedRefiner, Refiner, answer, compare
from .question import (
    Control,
    Member,
    Question,
    controls,
    group_controls,
    overrides,
    to_spec,
    to_toml,
)

__all__ = ["Explorer"]


def _strongest_first(score: Any) -> list[str]:
    """The entrants of a score matrix by their mean expected score against the others
    (the diagonal left out), strongest first; ties keep their order."""
    names = list(score.index)
    mean = {a: sum(float(score.loc[a, b]) for b in names if b != a) / max(len(names) - 1, 1)
            for a in names}
    return sorted(names, key=lambda a: -mean[a])


def _words(value: Any) -> str:
    """A choice as a designer reads it: ``one_handed`` -> "one handed", ``None`` -> "none"."""
    return "none" if value is None else str(value).replace("_", " ")

WIDE = {"description_width": "initial"}
PANEL_CLASS = "balance-panel"
ROOT_CLASS = "balance-root"
PANEL_CSS = (
    f"<style>.{PANEL_CLASS} {{ position: sticky; top: 0; align-self: flex-start; "
    "max-height: 100vh; overflow-y: auto; background: white; z-index: 2; }\n"
    # sticky holds only where no box between it and the page's scroller clips: the panel's
    # own boxes and the notebook output around them let it overflow
    f".{ROOT_CLASS}, .{ROOT_CLASS} .widget-tab-contents, .{ROOT_CLASS} .widget-tab, "
    f".{ROOT_CLASS} .jupyter-widget-TabPanel, .{ROOT_CLASS} .balance-explore, "
    f".jp-OutputArea:has(.{PANEL_CLASS}), .jp-OutputArea-child:has(.{PANEL_CLASS}), "
    f".jp-OutputArea-output:has(.{PANEL_CLASS}) {{ overflow: visible !important; }}</style>")
"""The answer stays in view: its column sticks to the top of the window while the controls
beside it (a side's fields, the rules) scroll."""
THEME_CSS = (
    "<style>"
    # one font (the reports'), one size, one rhythm of spacing
    f".{ROOT_CLASS} {{ font-family: {FONT}; font-size: 14px; line-height: 1.45; "
    f"color: #1d1d1f; --jp-ui-font-family: {FONT}; --jp-content-font-family: {FONT}; "
    "--jp-widgets-font-size: 13px; --jp-widgets-margin: 3px; }\n"
    f".{ROOT_CLASS} .widget-html-content, .{ROOT_CLASS} .widget-label, "
    f".{ROOT_CLASS} .widget-button, .{ROOT_CLASS} .widget-toggle-button "
    "{ font-family: inherit; }\n"
    # an HTML widget's text at the page's line height, not a control's (28 px)
    f".{ROOT_CLASS} .widget-html-content {{ line-height: 1.45; }}\n"
    f".{PANEL_CLASS} {{ padding: 6px 14px; border-left: 1px solid #e2e8f0; }}\n"
    f".{ROOT_CLASS} table td, .{ROOT_CLASS} table th {{ font-variant-numeric: tabular-nums; }}\n"
    f".{ROOT_CLASS} .balance-answer > div, .{ROOT_CLASS} .balance-answer table "
    "{ margin: 4px 0; }\n"
    ".balance-best, .balance-even { margin: 10px 0 4px; padding: 8px 10px; "
    "background: #f7f9fc; border: 1px solid #e2e8f0; border-radius: 6px; }\n"
    ".balance-best .method, .balance-even .method, .balance-answer .method "
    "{ color: #4a5568; font-size: 0.92em; }\n"
    f".balance-best .policy-a {{ border-left: 3px solid {OUTCOME_COLOURS['A']}; "
    "padding-left: 6px; margin-top: 4px; }\n"
    f".balance-best .policy-b {{ border-left: 3px solid {OUTCOME_COLOURS['B']}; "
    "padding-left: 6px; margin-top: 4px; }\n"
    ".balance-even table.bracket th { text-align: left; color: #4a5568; "
    "font-weight: normal; }\n"
    ".balance-working { color: #4a5568; margin: 8px 0; }\n"
    ".balance-working .spinner { display: inline-block; width: 10px; height: 10px; "
    f"border: 2px solid #cbd5e0; border-top-color: {OUTCOME_COLOURS['A']}; "
    "border-radius: 50%; animation: balance-spin 0.9s linear infinite; "
    "vertical-align: -1px; }\n"
    "@keyframes balance-spin { to { transform: rotate(360deg); } }\n"
    "</style>")
"""The panel's theme: the reports' font and outcome colours (:mod:`balance.theme`), one
size of text and one spacing, and a spinner for work in progress."""
NO_PRESET = "(none)"


# --- one control -> one widget ----------------------------------------------------------------


class Field:
    """The widget editing one :class:`Control`, and its value as the ruleset takes it."""

    def __init__(self, control: Control, value: Any, on_change: Callable[[], None]) -> None:
        self.control = control
        self._rows: dict[str, Field] = {}
        self.widget = self._make(control, value)
        self._observe(on_change)

    def _make(self, c: Control, value: Any) -> w.Widget:
        common = {"description": c.label, "tooltip": c.hover, "style": WIDE,
                  "layout": w.Layout(width="auto", min_width="300px")}
        kind = c.kind
        if kind == "dropdown":
            options = [(_words(o), o) for o in c.options]
            if value not in c.options:  # a row the choices do not list (a file's own)
                options.append((_words(value), value))
            return w.Dropdown(options=options, value=value, **common)
        if kind == "checkbox":
            return w.Checkbox(value=bool(value), indent=False, **common)
        if kind in ("int_slider", "float_slider"):
            return self._slider(c, value, common)
        if kind in ("int", "optional_int"):
            box = w.BoundedIntText(value=c.default if value is None and c.default is not None
                                   else (value if value is not None else int(c.low or 0)),
                                   min=int(c.low if c.low is not None else -10**9),
                                   max=int(c.high if c.high is not None else 10**9), **common)
            if kind == "int":
                return box
            self._set = w.Checkbox(value=value is not None, description="set", indent=False,
                                   layout=w.Layout(width="60px"))
            box.disabled = value is None
            return w.HBox([self._set, box])
        if kind == "float":
            return w.FloatText(value=value, **common)
        if kind == "choice_list":
            return w.TagsInput(value=list(value), allowed_tags=list(c.options),
                               allow_duplicates=False, **common)
        if kind == "number_list":
            return w.Text(value=", ".join(str(v) for v in value), **common)
        if kind == "table":
            for row in c.rows:
                self._rows[row.name] = Field(row, value[row.name], lambda: None)
            rows = [f.widget for f in self._rows.values()]
            return w.VBox([w.HTML(f"<b>{c.label}</b>", tooltip=c.doc), *rows],
                          layout=w.Layout(border="1px solid #e2e8f0", padding="2px"))
        if kind == "json":
            return w.Textarea(value=json.dumps(plain(value)), rows=2, **common)
        return w.Text(value="" if value is None else str(value), **common)

    def _slider(self, c: Control, value: Any, common: dict[str, Any]) -> w.Widget:
        """A slider over the field's sensible span beside a box taking its whole range: a
        value typed beyond the span widens the slider to it."""
        assert c.low is not None and c.high is not None  # a slider is bounded
        low, high = c.span or (c.low, c.high)
        scale = 100.0 if c.percent else 1.0
        if c.kind == "int_slider":
            slider: w.Widget = w.IntSlider(value=min(max(value, low), high), min=int(low),
                                           max=int(high), readout=False, **common)
            self._box = w.BoundedIntText(value=value, min=int(c.low), max=int(c.high),
                                         layout=w.Layout(width="90px"), tooltip=c.hover)
        else:
            step = (high - low) / 100 if high > low else 0.01
            slider = w.FloatSlider(value=min(max(value, low), high) * scale, min=low * scale,
                                   max=high * scale, step=step * scale, readout=False, **common)
            self._box = w.BoundedFloatText(value=value * scale, min=c.low * scale,
                                           max=c.high * scale, layout=w.Layout(width="90px"),
                                           tooltip=c.hover)
        self._slider_widget = slider

        def follow_slider(change: Any) -> None:
            self._box.value = change["new"]

        def follow_box(change: Any) -> None:
            typed = change["new"]
            if typed > slider.max:
                slider.max = typed
            if typed < slider.min:
                slider.min = typed
            slider.value = typed

        slider.observe(follow_slider, "value")
        self._box.observe(follow_box, "value")
        return w.HBox([slider, self._box])

    def _observe(self, on_change: Callable[[], None]) -> None:
        def changed(_: Any) -> None:
            on_change()

        if self.control.kind in ("int_slider", "float_slider"):
            self._box.observe(changed, "value")
        elif self.control.kind == "table":
            for f in self._rows.values():
                f._observe(on_change)
        elif self.control.kind == "optional_int":
            def toggled(_: Any) -> None:
                self.widget.children[1].disabled = not self._set.value
                on_change()
            self._set.observe(toggled, "value")
            self.widget.children[1].observe(changed, "value")
        else:
            self.widget.observe(changed, "value")

    @property
    def value(self) -> Any:
        """The value as the ruleset takes it (a :class:`SpecError` for unreadable text)."""
        c, kind = self.control, self.control.kind
        if kind == "table":
            return {name: f.value for name, f in self._rows.items()}
        if kind == "optional_int":
            return self.widget.children[1].value if self._set.value else None
        if kind == "choice_list":
            return list(self.widget.value)
        if kind == "number_list":
            parts = [p.strip() for p in self.widget.value.split(",") if p.strip()]
            try:
                return [float(p) if "." in p else int(p) for p in parts]
            except ValueError:
                raise SpecError(f"field '{c.name}' is a list of numbers separated by commas, "
                                f"got {self.widget.value!r}") from None
        if kind == "json":
            try:
                return json.loads(self.widget.value)
            except json.JSONDecodeError:
                return self.widget.value  # e.g. a zones battlefield given by name
        if kind in ("int_slider", "float_slider"):
            return round(self._box.value / 100, 12) if c.percent else self._box.value
        return self.widget.value

    @value.setter
    def value(self, value: Any) -> None:
        kind = self.control.kind
        if kind == "table":
            for name, f in self._rows.items():
                f.value = value[name]
        elif kind == "optional_int":
            self._set.value = value is not None
            if value is not None:
                self.widget.children[1].value = value
        elif kind == "choice_list":
            self.widget.value = list(value)
        elif kind == "number_list":
            self.widget.value = ", ".join(str(v) for v in value)
        elif kind == "json":
            self.widget.value = json.dumps(plain(value))
        elif kind == "text":
            self.widget.value = "" if value is None else str(value)
        elif kind in ("int_slider", "float_slider"):
            self._box.value = value * 100 if self.control.percent else value
        elif kind == "dropdown" and value not in [v for _, v in self.widget.options]:
            self.widget.options = [*self.widget.options, (_words(value), value)]
            self.widget.value = value
        else:
            self.widget.value = value


class Fields:
    """The widgets of every field of one dataclass (a combatant, or the rules)."""

    def __init__(self, cls: type, values: Any, on_change: Callable[[], None], *,
                 examples: Sequence[Any] = (), rules: Any = None) -> None:
        self.cls = cls
        self.controls = controls(cls, examples=examples, rules=rules)
        self.fields = {c.name: Field(c, plain(getattr(values, c.name)), on_change)
                       for c in self.controls}

    def values(self) -> dict[str, Any]:
        return {name: f.value for name, f in self.fields.items()}

    def load(self, obj: Any) -> None:
        for name, f in self.fields.items():
            f.value = plain(getattr(obj, name))

    def groups(self, *, rules: bool) -> w.Accordion:
        """The fields in groups (a combatant's abilities, equipment, traits and policies;
        rules by topic), one closed section each, titled with its size and how many of its
        values are guesses (DEFAULT / AMBIG)."""
        sections, titles = [], []
        for title, found in group_controls(self.controls, rules=rules):
            guesses = sum(c.tag in ("DEFAULT", "AMBIG") for c in found)
            sections.append(w.VBox([self.fields[c.name].widget for c in found]))
            titles.append(f"{title} ({len(found)}" + (f", {guesses} guessed)" if guesses
                                                      else ")"))
        box = w.Accordion(children=sections, titles=tuple(titles))
        box.selected_index = None
        return box


# --- a side ----------------------------------------------------------------------------------


class MemberEditor:
    """One combatant: a preset to start from and every field."""

    def __init__(self, explorer: Explorer, label: str, preset: str | None,
                 fields: Mapping[str, Any] | None = None) -> None:
        rs = explorer.rs
        self.explorer = explorer
        options = [NO_PRESET, *rs.presets]
        self.preset = w.Dropdown(options=options, value=preset or NO_PRESET,
                                 description=label, style=WIDE,
                                 tooltip="start from a preset; the fields below are its values")
        base = rs.combatant({"preset": preset, **(fields or {})} if preset else dict(fields or {}))
        self.fields = Fields(rs.Combatant, base, explorer.changed,
                             examples=list(rs.presets.values()), rules=explorer.base_rules)
        self.preset.observe(self._preset_changed, "value")
        self.details = self.fields.groups(rules=False)
        self.widget = w.VBox([self.preset, self.details],
                             layout=w.Layout(border="1px solid #cbd5e0", padding="4px",
                                             margin="2px 0"))

    def _preset_changed(self, _: Any) -> None:
        base = self.explorer.rs.preset(self.preset_name) or self.explorer.rs.combatant()
        with self.explorer.quiet():
            self.fields.load(base)
        self.explorer.changed()

    @property
    def preset_name(self) -> str | None:
        return None if self.preset.value == NO_PRESET else self.preset.value

    def member(self) -> Member:
        rs = self.explorer.rs
        base = rs.preset(self.preset_name) or rs.combatant()
        return Member(self.preset_name, overrides(base, self.fields.values()))


class SideEditor:
    """A side: its members, with buttons to add and remove one where the ruleset allows
    groups (``max_side``)."""

    def __init__(self, explorer: Explorer, label: str, members: Sequence[Member]) -> None:
        self.explorer, self.label = explorer, label
        self.members = [MemberEditor(explorer, f"{label}{i + 1}", m.preset, m.fields)
                        for i, m in enumerate(members)]
        self.box = w.VBox()
        self.add = w.Button(description="add a fighter", icon="plus",
                            layout=w.Layout(width="auto"))
        self.remove = w.Button(description="remove the last", icon="minus",
                               layout=w.Layout(width="auto"))
        self.add.on_click(lambda _: self.grow())
        self.remove.on_click(lambda _: self.shrink())
        self.widget = w.VBox([w.HTML(f"<b>Side {label}</b>"), self.box,
                              w.HBox([self.add, self.remove])])
        self._refresh()

    def _refresh(self) -> None:
        self.box.children = [m.widget for m in self.members]
        self.add.disabled = len(self.members) >= self.explorer.rs.max_side
        self.remove.disabled = len(self.members) <= 1
        self.add.layout.display = self.remove.layout.display = (
            "none" if self.explorer.rs.max_side == 1 else None)

    def grow(self, preset: str | None = None) -> None:
        if len(self.members) >= self.explorer.rs.max_side:
            return
        preset = preset or self.members[-1].preset_name
        self.members.append(MemberEditor(self.explorer, f"{self.label}{len(self.members) + 1}",
                                         preset))
        self._refresh()
        self.explorer._refresh_knobs()
        self.explorer.changed()

    def shrink(self) -> None:
        if len(self.members) > 1:
            self.members.pop()
            self._refresh()
            self.explorer._refresh_knobs()
            self.explorer.changed()

    def side(self) -> tuple[Member, ...]:
        return tuple(m.member() for m in self.members)


# --- the worker ------------------------------------------------------------------------------


class _Worker:
    """Runs the latest job in a background thread; a newer job supersedes the one running
    (which sees ``superseded()`` turn true between chunks and stops)."""

    def __init__(self, background: bool) -> None:
        self.background = background
        self._cv = threading.Condition()
        self._job: tuple[int, Callable[[Callable[[], bool]], None]] | None = None
        self._generation = 0
        self._busy = False
        self._thread: threading.Thread | None = None

    def submit(self, job: Callable[[Callable[[], bool]], None]) -> None:
        with self._cv:
            self._generation += 1
            generation = self._generation
            if self.background:
                self._job = (generation, job)
                self._cv.notify_all()
        if not self.background:
            job(lambda: self._generation != generation)
            return
        if self._thread is None:
            self._thread = threading.Thread(target=self._loop, name="balance-explore",
                                            daemon=True)
            self._thread.start()

    def _loop(self) -> None:
        while True:
            with self._cv:
                while self._job is None:
                    self._busy = False
                    self._cv.notify_all()
                    self._cv.wait()
                generation, job = self._job
                self._job = None
                self._busy = True
            job(functools.partial(self._superseded, generation))

    def _superseded(self, generation: int) -> bool:
        return self._generation != generation

    def wait(self, timeout: float = 30.0) -> bool:
        """Block until no job is queued or running; ``False`` on timeout."""
        deadline = time.monotonic() + timeout
        with self._cv:
            while self._job is not None or self._busy:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cv.wait(left)
        return True


# --- the panel -------------------------------------------------------------------------------


class Explorer:
    """The explorer panel of one ruleset (see :func:`balance.explore`).

    Attributes
    ----------
    answer
        The :class:`~balance.explorer.Answer` shown (``None`` before the first, or when the
        controls cannot be answered: see ``error``).
    comparison
        The :class:`~balance.explorer.Comparison` shown in compare mode.
    widget
        The root widget (the explorer displays as it).
    """

    def __init__(self, ruleset: str = "crt", a: Any = None, b: Any = None, *,
                 rules: Mapping[str, Any] | None = None, seed: int = 1,
                 background: bool = True, budget: float = BUDGET_S, refine_s: float = 20.0,
                 precision: float = 0.002, experiments: str | Path = ".",
                 allow_import: bool = False) -> None:
        _check_options(budget, refine_s, precision)
        self.budget, self.refine_s, self.precision = budget, refine_s, precision
        self.allow_import = allow_import
        self.experiments = Path(experiments)
        self.answer: Any = None
        self.comparison: Comparison | None = None
        self.error: str | None = None
        self.baseline: Question | None = None
        self.matrix_table: Any = None
        self.matrix_buttons: dict[tuple[str, str], w.Button] = {}
        self.best_play: Any = None
        self.tuning: Any = None
        self._quiet = 0
        self._lock = threading.Lock()
        self._worker = _Worker(background)
        # best play and a tune run beside the answer's refinement, each in its own thread
        # (neither can stop mid-search: a newer question discards what they find)
        self._best_worker = _Worker(background)
        self._even_worker = _Worker(background)
        self._asked = 0  # questions asked so far: a tune of an older one stops

        ruleset = ruleset.strip()
        self.ruleset = w.Dropdown(options=_ruleset_choices(ruleset, get(
            ruleset, allow_import=allow_import)), value=ruleset, description="ruleset",
            style=WIDE)
        self.seed = w.BoundedIntText(value=seed, min=0, max=2**63 - 1, description="seed",
                                     style=WIDE, layout=w.Layout(width="180px"),
                                     tooltip="root seed of every Monte Carlo answer")
        self.use_exact = w.Checkbox(value=True, description="exact where the solver can",
                                    indent=False)
        self.scenario = w.Dropdown(description="scenario", style=WIDE)
        self.output = w.HTML(layout=w.Layout(min_width="420px"))
        self.status = w.HTML()
        self.pin_button = w.ToggleButton(value=False, description="compare: pin as baseline",
                                         icon="thumb-tack", layout=w.Layout(width="auto"),
                                         tooltip="keep the current question as the baseline; "
                                                 "then change a rule or a build")
        self.editors = w.VBox()
        self.ruleset.observe(lambda _: self._load_ruleset(self.ruleset.value), "value")
        self.scenario.observe(self._scenario_chosen, "value")
        self.seed.observe(lambda _: self.changed(), "value")
        self.use_exact.observe(lambda _: self.changed(), "value")
        self.pin_button.observe(self._pin_toggled, "value")
        self._build_matrix()
        self._build_save()
        self._build_play()
        # the buttons first, so they stay in reach however long the answer grows
        self.answer_panel = w.VBox([w.HBox([self.pin_button, self.best_toggle]),
                                    w.HBox([self.even_knob, self.even_button],
                                           layout=w.Layout(flex_flow="row wrap")),
                                    self.status,
                                    self.output, self.best_output, self.even_output],
                                   layout=w.Layout(flex="1"))
        self.answer_panel.add_class(PANEL_CLASS)  # sticky: see PANEL_CSS
        explore_tab = w.HBox([self.editors, self.answer_panel],
                             layout=w.Layout(align_items="flex-start"))
        explore_tab.add_class("balance-explore")
        self.tabs = w.Tab(children=[explore_tab, self.matrix_tab, self.save_tab],
                          titles=("Explore", "Matchup matrix", "Save as experiment"))
        self.widget = w.VBox([w.HTML(PANEL_CSS + THEME_CSS), w.HBox([self.ruleset, self.scenario,
                                                         self.seed, self.use_exact]),
                              self.tabs])
        self.widget.add_class(ROOT_CLASS)
        self._load_ruleset(self.ruleset.value, a, b, rules)

    # display --------------------------------------------------------------------------------
    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)

    # building -------------------------------------------------------------------------------
    def _load_ruleset(self, ref: str, a: Any = None, b: Any = None,
                      rules: Mapping[str, Any] | None = None) -> None:
        self.ref = ref  # the name, or the import path the panel was opened with
        self.rs = get(ref, allow_import=self.allow_import)
        presets = list(self.rs.presets)
        members_a = _members(a, presets[:1])
        members_b = _members(b, presets[1:2] or presets[:1])
        with self.quiet():
            self.baseline = None
            self.pin_button.value = False
            self.scenario.options = [("(none)", "")] + [
                (f"{key}: {s.description[:60]}", key) for key, s in self.rs.scenarios.items()]
            self.scenario.value = ""
            self.base_rules = self.rs.rules(dict(rules or {}))
            self.side_a = SideEditor(self, "A", members_a)
            self.side_b = SideEditor(self, "B", members_b)
            self.rules = Fields(self.rs.Rules, self.base_rules, self.changed)
            self.fixed_rules = self._without_controls(rules)
            rules_box = w.VBox([w.HTML(f"<b>Rules</b> ({len(self.rules.fields)} parameters; "
                                       "(DEFAULT) and (AMBIG) mark guessed values: hover "
                                       "a control for why)"), self.rules.groups(rules=True)])
            self.editors.children = [self.side_a.widget, self.side_b.widget, rules_box]
            self.matrix_presets.options = presets
            self.matrix_presets.value = tuple(presets[: min(6, len(presets))])
            self.matrix_box.children = []
            self.narration.value = ""
            self._refresh_axes()
        self.changed()

    def _scenario_chosen(self, _: Any) -> None:
        if self._quiet or not self.scenario.value:
            return
        scenario = self.rs.scenario(self.scenario.value)
        sides = [[_as_member(self.rs, c) for c in side]
                 for side in (scenario.side_a, scenario.side_b)]
        with self.quiet():
            self.side_a = SideEditor(self, "A", sides[0])
            self.side_b = SideEditor(self, "B", sides[1])
            self.rules.load(self.rs.rules(dict(scenario.rules)))
            self.fixed_rules = self._without_controls(scenario.rules)
            self.editors.children = [self.side_a.widget, self.side_b.widget,
                                     *self.editors.children[2:]]
            self._refresh_axes()
        self.changed()

    class _Quiet:
        def __init__(self, explorer: Explorer) -> None:
            self.explorer = explorer

        def __enter__(self) -> None:
            self.explorer._quiet += 1

        def __exit__(self, *exc: Any) -> None:
            self.explorer._quiet -= 1

    def quiet(self) -> Explorer._Quiet:
        """Changes made inside ``with explorer.quiet():`` do not trigger an answer."""
        return Explorer._Quiet(self)

    # the question ---------------------------------------------------------------------------
    def _without_controls(self, rules: Mapping[str, Any] | None) -> dict[str, Any]:
        """The rules given that no control can show (a table whose rows are not the
        control's own: house rules, new weapons, rows with modifiers and effects): held as
        given, and part of every question."""
        def shown(name: str, value: Any) -> bool:
            f = self.rules.fields.get(name)
            if f is None:
                return False
            if f.control.kind != "table":
                return True
            value = plain(getattr(self.rs.rules({name: value}), name))
            return isinstance(value, Mapping) and set(value) == set(f._rows) and all(
                not isinstance(v, Mapping | list) for v in value.values())

        return {k: v for k, v in (rules or {}).items() if not shown(k, v)}

    def rule_values(self) -> dict[str, Any]:
        """The rules the panel answers under: those set by its controls that differ from the
        defaults, and the tables no control shows, as the panel was opened with them (or its
        scenario gave them)."""
        return {**overrides(self.rs.rules(), self.rules.values()), **self.fixed_rules}

    def question(self) -> Question:
        """The question the controls describe (a :class:`SpecError` for unreadable text)."""
        return Question(self.ref, self.side_a.side(), self.side_b.side(), self.rule_values(),
                        int(self.seed.value))

    def control(self, path: str) -> w.Widget:
        """The widget of ``"a.0.skill"``, ``"b.1.preset"`` or ``"rules.damage_die"``."""
        return self._field(path)[1]

    def _field(self, path: str) -> tuple[Field | None, w.Widget]:
        parts = path.split(".")
        try:
            if parts[0] == "rules" and len(parts) == 2:
                f = self.rules.fields[parts[1]]
                return f, f.widget
            if parts[0] in ("a", "b") and len(parts) == 3:
                member = (self.side_a if parts[0] == "a" else self.side_b).members[int(parts[1])]
                if parts[2] == "preset":
                    return None, member.preset
                f = member.fields.fields[parts[2]]
                return f, f.widget
        except (KeyError, IndexError, ValueError):
            pass
        raise SpecError(f"no control {path!r}: use a.<i>.<field>, b.<i>.<field>, "
                        "a.<i>.preset or rules.<parameter>")

    def set(self, path: str, value: Any) -> None:
        """Set a control as a designer would (the answer follows, as on the page)."""
        f, widget = self._field(path)
        if f is None:
            widget.value = value or NO_PRESET
        else:
            f.value = value

    def get(self, path: str) -> Any:
        f, widget = self._field(path)
        return widget.value if f is None else f.value

    # answering ------------------------------------------------------------------------------
    def changed(self) -> None:
        """A control moved: answer the new question (in the background when live)."""
        if self._quiet:
            return
        self._asked += 1
        if self.tuning is not None:
            self.even_output.value = view.tuning_html(self.tuning, stale=True)
        try:
            question = self.question()
        except SpecError as exc:
            self._show_error(str(exc))
            return
        baseline = self.baseline
        self._worker.submit(lambda superseded: self._answer(question, baseline, superseded))

    def wait(self, timeout: float = 30.0) -> bool:
        """Block until the answer in progress (and its refinement) is done."""
        return self._worker.wait(timeout)

    def _answer(self, question: Question, baseline: Question | None,
                superseded: Callable[[], bool]) -> None:
        self.status.value = '<i style="color:#4a5568">answering&hellip;</i>'
        try:
            if baseline is None:
                pending: Any = answer(question, budget=self.budget,
                                      exact=self.use_exact.value, superseded=superseded)
            else:
                pending = compare(baseline, question, budget=self.budget,
                                  exact=self.use_exact.value, superseded=superseded)
        except SpecError as exc:
            if not superseded():
                self._show_error(str(exc))
            return
        if superseded():
            return
        self.pending = pending
        if not self._worker.background:
            self._publish(pending, refining=False)
            self._ask_best(question)
            return
        self._publish(pending, refining=not self._finished(pending))
        self._ask_best(question)
        deadline = time.perf_counter() + self.refine_s
        shown = time.perf_counter()
        while (not superseded() and not self._finished(pending)
               and time.perf_counter() < deadline):
            pending.step()
            if time.perf_counter() - shown > 0.5 and not superseded():
                self._publish(pending, refining=True)
                shown = time.perf_counter()
        if not superseded():
            self._publish(pending, refining=False)

    def refine(self, seconds: float) -> None:
        """Refine the current answer for ``seconds`` now (what the live panel does while
        idle), and show it."""
        _check_seconds("seconds", seconds)
        pending = getattr(self, "pending", None)
        if pending is None or isinstance(pending, Comparison):
            return
        deadline = time.perf_counter() + seconds
        while not self._finished(pending) and time.perf_counter() < deadline:
            pending.step()
        self._publish(pending, refining=False)

    def _finished(self, pending: Any) -> bool:
        if isinstance(pending, Comparison):
            return True
        if isinstance(pending, ExactAnswer):
            return pending.done
        if isinstance(pending, PairedRefiner):
            return max(d.high - d.low for d in pending.comparison().differences) / 2 \
                <= self.precision
        assert isinstance(pending, Refiner)
        return pending.answer().half_width <= self.precision

    def _publish(self, pending: Any, *, refining: bool) -> None:
        with self._lock:
            self.status.value = ""
            self.error = None
            if isinstance(pending, Comparison | PairedRefiner):
                comparison = (pending if isinstance(pending, Comparison)
                              else pending.comparison())
                self.comparison, self.answer = comparison, comparison.variant
                self.output.value = view.comparison_html(comparison, refining=refining)
            else:
                self.comparison = None
                self.answer = pending.answer()
                self.output.value = view.answer_html(self.answer, refining=refining)

    def _show_error(self, message: str) -> None:
        with self._lock:
            self.status.value = ""
            self.error, self.answer, self.comparison = message, None, None
            self.output.value = view.error_html(message)

    # best play and "make it even" ------------------------------------------------------------
    def _build_play(self) -> None:
        self.best_toggle = w.ToggleButton(
            value=False, description="best play", icon="chess-knight",
            layout=w.Layout(width="auto"),
            tooltip="play both sides' best policies (the zero-sum game over them): exact "
                    "where a solver reaches, else Monte Carlo with its interval")
        self.best_output = w.HTML()
        self.even_knob = w.Dropdown(description="turning", style=WIDE,
                                    layout=w.Layout(width="320px"),
                                    tooltip="the number `balance tune` turns until A's "
                                            "expected score is 50%")
        self.even_button = w.Button(description="make it even", icon="balance-scale",
                                    button_style="info", layout=w.Layout(width="auto"),
                                    tooltip="run `balance tune` on the chosen number: the "
                                            "whole values that bracket an even matchup")
        self.even_output = w.HTML()
        self.even_output.add_class("balance-even-box")
        self.best_toggle.observe(self._best_toggled, "value")
        self.even_button.on_click(lambda _: self.make_even())

    def _refresh_knobs(self) -> None:
        """The numbers "make it even" may turn: every fighter's and the rules' (kept when
        still there, else the default)."""
        if not hasattr(self, "even_knob"):
            return
        members = [[m.fields.controls for m in side.members]
                   for side in (self.side_a, self.side_b)]
        options = play.knobs(members[0], members[1], self.rules.controls)
        now = self.even_knob.value
        self.even_knob.options = options
        paths = [path for _, path in options]
        default = play.default_knob(members[0], list(self.rs.presets.values()))
        self.even_knob.value = (now if now in paths else default if default in paths
                                else paths[0] if paths else None)

    def _best_toggled(self, _: Any) -> None:
        if self._quiet:
            return
        if not self.best_toggle.value:
            self.best_play = None
            self.best_output.value = ""
        self.changed()

    def _ask_best(self, question: Question) -> None:
        """Best play of ``question`` when the toggle is on, in its own thread."""
        if not self.best_toggle.value:
            return
        asked = self._asked
        self._best_worker.submit(lambda superseded: self._best(
            question, lambda: superseded() or self._asked != asked))

    def _best(self, question: Question, superseded: Callable[[], bool]) -> None:
        """Best play of ``question``: exact where a solver reaches, else Monte Carlo after
        saying how long it takes at least."""
        if superseded():
            return
        self.best_output.value = view.working_html("best play: asking the exact solvers")
        try:
            try:
                found = play.best_exact(question)
            except IntractableError:
                estimate = play.monte_carlo_estimate(question)
                if superseded():
                    return
                self.best_output.value = view.working_html("best play by Monte Carlo",
                                                           estimate.text())
                found = play.best_monte_carlo(question)
        except (SpecError, IntractableError) as exc:
            if not superseded():
                self.best_play = None
                self.best_output.value = view.error_html(str(exc))
            return
        if not superseded():
            self.best_play = found
            self.best_output.value = view.best_html(found)

    def make_even(self, knob: str | None = None) -> Any:
        """Run ``balance tune`` on ``knob`` (default: the one chosen) for the current
        question, under best play when its toggle is on; shows the whole values that
        bracket even.  Returns the :class:`~balance.analysis.tune.Tuning` when the panel
        answers in the foreground (else ``None``: see ``tuning`` once done)."""
        if knob is not None:
            self.even_knob.value = knob
        path = self.even_knob.value
        try:
            question = self.question()
        except SpecError as exc:
            self.even_output.value = view.error_html(str(exc))
            return None
        asked, mode = self._asked, "best" if self.best_toggle.value else "default"
        label = dict((v, k) for k, v in self.even_knob.options).get(path, path)

        def job(superseded: Callable[[], bool]) -> None:
            def stale() -> bool:
                return superseded() or self._asked != asked

            def progress(tried: int, seconds: float) -> None:
                self.even_output.value = view.working_html(
                    f"making it even by turning {label}",
                    f"{tried} value{'s' if tried != 1 else ''} tried, {seconds:,.1f} s")

            self.even_button.disabled = True
            self.even_output.value = view.working_html(f"making it even by turning {label}")
            try:
                self.tuning = play.make_even(question, path, play=mode, superseded=stale,
                                             progress=progress)
                self.even_output.value = view.tuning_html(self.tuning)
            except play.Superseded:
                self.tuning = None
                self.even_output.value = ""
            except (SpecError, IntractableError) as exc:
                self.tuning = None
                self.even_output.value = view.error_html(str(exc))
            finally:
                self.even_button.disabled = False

        self.tuning = None
        self._even_worker.submit(job)
        return None if self._even_worker.background else self.tuning

    def wait_best(self, timeout: float = 120.0) -> bool:
        """Block until best play of the current question is shown."""
        return self._worker.wait(timeout) and self._best_worker.wait(timeout)

    def wait_even(self, timeout: float = 120.0) -> bool:
        """Block until "make it even" is done."""
        return self._even_worker.wait(timeout)

    # compare mode ---------------------------------------------------------------------------
    def pin(self) -> None:
        """Keep the current question as the baseline: later changes are compared with it."""
        self.pin_button.value = True

    def unpin(self) -> None:
        self.pin_button.value = False

    def _pin_toggled(self, _: Any) -> None:
        if self._quiet:
            return
        if self.pin_button.value:
            try:
                self.baseline = self.question()
            except SpecError as exc:
                self._show_error(str(exc))
                return
            self.pin_button.description = "compare: unpin the baseline"
        else:
            self.baseline = None
            self.pin_button.description = "compare: pin as baseline"
        self.changed()

    # the matchup matrix ---------------------------------------------------------------------
    def _build_matrix(self) -> None:
        self.matrix_presets = w.SelectMultiple(description="presets", rows=8, style=WIDE)
        self.matrix_fights = w.Dropdown(options=[2_000, 5_000, 20_000, 100_000], value=5_000,
                                        description="fights a pair (if simulated)",
                                        style=WIDE)
        self.matrix_run = w.Button(description="run the round robin", icon="table",
                                   button_style="primary", layout=w.Layout(width="auto"))
        self.matrix_status = w.HTML()
        self.matrix_box = w.VBox()
        self.narration = w.HTML()
        self.matrix_run.on_click(lambda _: self.run_matrix())
        self.matrix_tab = w.VBox([
            w.HTML("Every preset chosen against every other in both seats, under the rules "
                   "set in the Explore tab, strongest first. A cell is the row's expected "
                   "score against the column (a win counts 1, a draw &frac12;, seats "
                   "averaged), in percent; click one for a narrated fight of that pair."),
            w.HBox([self.matrix_presets, w.VBox([self.matrix_fights, self.matrix_run])]),
            self.matrix_status, self.matrix_box, self.narration])

    def run_matrix(self, presets: Sequence[str] | None = None, n: int | None = None) -> None:
        """Run the round robin of ``presets`` (default: those selected) and show it."""
        if presets is not None:
            self.matrix_presets.value = tuple(presets)
        if n is not None:
            self.matrix_fights.value = n
        names = list(self.matrix_presets.value)
        self.matrix_status.value = "<i>running&hellip;</i>"

        def job(superseded: Callable[[], bool]) -> None:
            from ..analysis import round_robin, score_matrix

            try:
                if len(names) < 2:
                    raise SpecError("choose at least two presets for a matchup matrix")
                rules = self.rs.rules(self.rule_values())
                _matrix_budget(self.rs, names, rules, int(self.matrix_fights.value))
                start = time.perf_counter()
                table = round_robin(self.rs, names, rules=rules,
                                    n=int(self.matrix_fights.value),
                                    seed=int(self.seed.value))
                score, _ = score_matrix(table)
            except SpecError as exc:
                self.matrix_status.value = view.error_html(str(exc))
                return
            self.matrix_table = table
            order = _strongest_first(score.loc[names, names])
            self._show_matrix(score.loc[order, order], rules, table.attrs["method"],
                              time.perf_counter() - start)

        self._worker.submit(job)
        if self._worker.background:
            return

    def _show_matrix(self, score: Any, rules: Any, method: str, elapsed: float) -> None:
        names = list(score.index)
        how = ("each pair solved exactly" if method == "exact" else
               f"{int(self.matrix_fights.value):,} fights a pair, seed {int(self.seed.value)}")
        self.matrix_status.value = (f"<b>{len(names)} presets</b>, strongest first (by mean "
                                    f"expected score): {how}; {elapsed:.1f} s")
        header = [w.Label("row against column", layout=w.Layout(width="140px"))] + [
            w.Label(n, layout=w.Layout(width="90px")) for n in names]
        rows = [w.HBox(header)]
        self.matrix_buttons = {}
        for a in names:
            cells = [w.Label(a, layout=w.Layout(width="140px"))]
            for b in names:
                value = float(score.loc[a, b])
                button = w.Button(description=view.pct(value, 1),
                                  layout=w.Layout(width="90px"),
                                  tooltip=f"{a} against {b}: click for a narrated fight")
                button.style.button_color = _diverging(value)
                button.on_click(lambda _, a=a, b=b: self.narrate(a, b, rules))
                self.matrix_buttons[(a, b)] = button
                cells.append(button)
            rows.append(w.HBox(cells))
        self.matrix_box.children = rows

    def narrate(self, a: str, b: str, rules: Any = None) -> list[str]:
        """Fight one narrated fight of preset ``a`` against preset ``b`` and show it."""
        from ..api import fight

        rules = rules if rules is not None else self.rs.rules(self.rule_values())
        lines: list[str] = []
        outcome = fight(self.rs, a, b, rules=rules, seed=int(self.seed.value),
                        log=lines.append)
        winner = {0: "a draw", 1: f"{a} (A) wins", 2: f"{b} (B) wins"}[int(outcome.winner)]
        title = (f"{a} (A) against {b} (B), seed {int(self.seed.value)}: {winner} after "
                 f"{outcome.rounds} rounds ({outcome.cause})")
        self.narration.value = view.narration_html(title, lines)
        return lines

    # save as experiment ---------------------------------------------------------------------
    def _build_save(self) -> None:
        self.save_name = w.Text(description="file", style=WIDE,
                                layout=w.Layout(width="420px"))
        self.save_axis = w.Dropdown(description="sweep", style=WIDE,
                                    tooltip="optionally sweep one control over values")
        self.save_values = w.Text(description="values", style=WIDE,
                                  placeholder="comma-separated, e.g. 0, 1, 2, 3",
                                  layout=w.Layout(width="420px"))
        self.save_fights = w.BoundedIntText(value=100_000, min=1, max=10**9,
                                            description="fights per cell (if simulated)",
                                            style=WIDE)
        self.save_button = w.Button(description="save as experiment", icon="save",
                                    button_style="success", layout=w.Layout(width="auto"))
        self.save_message = w.HTML()
        self.save_button.on_click(lambda _: self._save_clicked())
        self.save_axis.observe(self._axis_chosen, "value")
        self.save_tab = w.VBox([
            w.HTML("Writes the current question (rules, both sides, seed) as a TOML "
                   "experiment that <code>balance sweep FILE</code> runs; exact when the "
                   "current answer is exact. Optionally sweep one control."),
            self.save_name, self.save_axis, self.save_values, self.save_fights,
            self.save_button, self.save_message])

    def _refresh_axes(self) -> None:
        options: list[tuple[str, str | None]] = [("nothing: the matchup alone", None)]
        for label, side in (("a", self.side_a), ("b", self.side_b)):
            for i, m in enumerate(side.members):
                options.append((f"{label}.{i}.preset", f"{label}.{i}.preset"))
                options += [(f"{label}.{i}.{name}", f"{label}.{i}.{name}")
                            for name, f in m.fields.fields.items() if _sweepable(f.control)]
        options += [(f"rules.{name}", f"rules.{name}") for name, f in self.rules.fields.items()
                    if _sweepable(f.control)]
        self.save_axis.options = options
        self.save_axis.value = None
        self._refresh_knobs()
        self.save_name.value = str(self.experiments / f"explore-{self.rs.name}.toml")

    def _axis_chosen(self, _: Any) -> None:
        path = self.save_axis.value
        if path is None:
            self.save_values.value = ""
            return
        f, _ = self._field(path)
        if f is None:
            self.save_values.value = ", ".join(self.rs.presets)
        elif f.control.kind == "dropdown":
            self.save_values.value = ", ".join(str(o) for o in f.control.options
                                               if o is not None)
        elif f.control.kind == "checkbox":
            self.save_values.value = "false, true"
        else:
            now, low, high = f.value, f.control.low, f.control.high
            values = [v for v in range(int(now) - 3, int(now) + 4)
                      if (low is None or v >= low) and (high is None or v <= high)]
            self.save_values.value = ", ".join(str(v) for v in values)

    def _save_clicked(self) -> None:
        try:
            path = self.save_experiment(self.save_name.value, axis=self.save_axis.value,
                                        values=self.save_values.value or None,
                                        fights=int(self.save_fights.value))
        except (SpecError, OSError) as exc:
            self.save_message.value = view.error_html(str(exc))
            return
        self.save_message.value = (f"wrote <code>{view._esc(path)}</code>; run it with "
                                   f"<code>balance sweep {view._esc(path)}</code>")

    def save_experiment(self, path: str | Path | None = None, *, axis: str | None = None,
                        values: str | Sequence[Any] | None = None,
                        fights: int = 100_000) -> Path:
        """Write the current question as an experiment spec; returns its path.

        ``axis`` (``"a.0.skill"``, ``"rules.damage_die"``, ``"b.0.preset"``) with ``values``
        (a list, or comma-separated text) makes it a sweep.
        """
        question = self.question()
        sweep = None
        if axis is not None:
            if values is None or (isinstance(values, str) and not values.strip()):
                raise SpecError(f"give the values to sweep {axis} over")
            sweep = (axis, self._axis_values(axis, values))
        exact = bool(self.answer is not None and self.answer.exact and self.comparison is None)
        if exact and sweep is not None:
            # every cell must be solvable; the runner checks it before any work
            exact = self.use_exact.value
        spec = to_spec(question, axis=sweep, fights=fights, exact=exact)
        text = to_toml(spec)
        from ..experiments import load_spec

        load_spec(spec, name=Path(path or "explore").stem)  # validate before writing
        target = Path(path) if path else self.experiments / f"explore-{self.rs.name}.toml"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        return target

    def _axis_values(self, axis: str, values: str | Sequence[Any]) -> list[Any]:
        items = ([v.strip() for v in values.split(",") if v.strip()]
                 if isinstance(values, str) else list(values))
        name = axis.rsplit(".", 1)[1]
        if name == "preset":
            for v in items:
                self.rs.preset(v)
            return items
        cls = self.rs.Rules if axis.startswith("rules.") else self.rs.Combatant
        return [plain(coerce(cls, name, v)) for v in items]


# --- helpers -------------------------------------------------------------------------------


def _check_seconds(name: str, value: Any, cap: float = budget_module.MAX_SECONDS) -> None:
    """A time box of the explorer: a number of seconds in (0, cap] (the refinement runs for
    at most this long, so the box is its estimate)."""
    if isinstance(value, bool) or not isinstance(value, int | float) \
            or not 0 < value <= cap:
        raise SpecError(f"{name} must be a number of seconds in (0, "
                        f"{budget_module.duration(cap)}], got {value!r}")


def _check_options(budget: Any, refine_s: Any, precision: Any) -> None:
    _check_seconds("budget", budget, 60.0)
    _check_seconds("refine_s", refine_s)
    if isinstance(precision, bool) or not isinstance(precision, int | float) \
            or not 0 < precision < 0.5:
        raise SpecError(f"precision must be a half-width in (0, 0.5), got {precision!r}")


def _matrix_budget(rs: Any, names: Sequence[str], rules: Any, n: int) -> None:
    """Refuse a simulated matchup matrix estimated over the caps (before it runs)."""
    from ..analysis.matchups import planned_method
    from ..engine import DEFAULT_CHUNK_SIZE

    entrants = {name: name for name in names}
    if planned_method(rs, entrants, rules=rules) == "simulate":
        budget_module.check(budget_module.round_robin(
            rs, entrants, rules, per_pair=n, chunk_size=min(n, DEFAULT_CHUNK_SIZE)),
            f"{len(names) ** 2:,} pairs of {n:,} fights", budget_module.MAX_SECONDS)


def _ruleset_choices(ref: str, rs: Any) -> list[tuple[str, str]]:
    """The ruleset dropdown's (label, value) pairs: every built-in by name, and the ruleset
    the panel was opened with (an entry point or an import path) by its own name."""
    from ..rulesets import RULESETS

    choices = [(name, name) for name in RULESETS]
    if ref not in RULESETS:
        choices.append((rs.name if rs.name == ref else f"{rs.name} ({ref})", ref))
    return choices


def _members(spec: Any, default: Sequence[str]) -> list[Member]:
    if spec is None:
        spec = list(default)
    if isinstance(spec, str | Mapping | Member):
        spec = [spec]
    out = []
    for item in spec:
        if isinstance(item, Member):
            out.append(item)
        elif isinstance(item, str):
            preset, values = split_spec(item)
            out.append(Member(preset, values))
        else:
            item = dict(item)
            out.append(Member(item.pop("preset", None), item))
    return out


def _as_member(rs: Any, combatant: Any) -> Member:
    """A combatant as a preset (the one it equals, or whose name it bears) plus changes."""
    for name, preset in rs.presets.items():
        if preset == combatant:
            return Member(name, {})
    base_name = next((n for n, p in rs.presets.items() if p.name == combatant.name), None)
    base = rs.presets[base_name] if base_name else rs.combatant()
    return Member(base_name, overrides(base, {k: getattr(combatant, k)
                                              for k in (c.name for c in controls(rs.Combatant))}))


def _sweepable(c: Control) -> bool:
    return c.kind in ("dropdown", "checkbox", "int_slider", "int", "float_slider", "float")


def _rgb(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


def _diverging(value: float) -> str:
    """A colour for an expected score: B's colour (0) through white (1/2) to A's (1), as
    the reports' heatmaps (:mod:`balance.theme`)."""
    value = min(max(value, 0.0), 1.0)
    low, high = (_rgb(OUTCOME_COLOURS[side]) for side in ("B", "A"))
    mid = (255, 255, 255)
    t = abs(value - 0.5) * 2
    end = high if value >= 0.5 else low
    rgb = tuple(round(m + (e - m) * t) for m, e in zip(mid, end, strict=True))
    return "#" + "".join(f"{c:02x}" for c in rgb)


