"""The verdict: the answer to an experiment's question in a few plain sentences.

Every sentence carries its number and interval, and is produced by a documented rule with
a named threshold (below), from the analyses of this package:

* **a round robin** (entrants in both seats): whether the field is balanced, who is
  dominant, who is dominated (:func:`round_robin_verdict`);
* **a grid over two stats**: the exchange rate between them, read where A's win rate
  crosses its even line, and whether the win rate is a staircase rather than a rate
  (:func:`exchange_rate`, :func:`staircase`);
* **a grid over options** (a whole side, a policy or a preset of one side): whether each
  option is worth taking against the default and against what conditions
  (:func:`options_verdict`); where the options are presets as they are and the same
  presets with one field fixed, whether each preset's own choice is ever beaten by a fixed
  one (:func:`variants_verdict`);
* **one stat**: what a point of it is worth, in the words of its shape
  (:mod:`balance.analysis.shapes`: "on average" only where the steps agree);
* **one entrant against a field**: where it lands -- its score against the field, its
  rank, whom it beats and loses to (:func:`entrant_sentence`).

No noise called a finding: a verdict that makes many comparisons tests them together
(:class:`Family`) -- a variants verdict and an entrant's under Holm's procedure
(:data:`VARIANTS_PROCEDURE`, :data:`ENTRANT_PROCEDURE`: the chance of any false claim at
most :data:`FAMILY_ALPHA`), an options verdict under Benjamini-Hochberg's
(:data:`OPTIONS_PROCEDURE`: false claims at most that share of its claims) -- claims a
difference only where the family does, and names the procedure in the sentence's foot.

A verdict also names what it rests on: its key answer (a :class:`Claim`: a few matchups and
a rule reading their scores) can be recomputed under each alternative of the DEFAULT /
AMBIG readings and the policies that matter to it (:func:`sensitivity`), naming those that
change it.

Rules and thresholds
--------------------
BALANCED_MARGIN
    A field is *balanced* when every entrant's expected score against the field (a win 1,
    a draw 1/2, both seats) lies within 50% +/- this margin, interval included.
DOMINANT
    An entrant is *dominant* when it scores above 50% against every other entrant (the
    interval's lower end above 50%; exact: the value).
DOMINATED_SURE
    An entrant is *dominated* when some mix of the others scores more against every
    opponent (:func:`~balance.analysis.dominated`) in at least this share of bootstrap
    replicates (exact: always).
STAIRCASE_SHARE, STAIRCASE_STEPS
    A curve is a *staircase* when its largest fifth of single steps carries at least
    ``STAIRCASE_SHARE`` of its total movement and it has at least ``STAIRCASE_STEPS`` steps:
    the rate jumps at a few values and is flat between them, so a slope misleads.
WORTH_MARGIN
    An option is *worth taking* where it beats the default by more than this (the
    difference's interval clear of it); *worse* where it trails by more than this.  A
    preset's own choice of a field is *worse* than fixing it where the best fixed value
    beats it by more than this (:func:`variants_verdict`).
NEGLIGIBLE_EXCHANGE
    An exchange rate is *worth almost nothing* when it and its interval lie wholly below
    this many points of the other stat (one point of ``y`` moves the even line by less).
LISTED
    A sentence lists at most this many items and counts the rest.

``BALANCED_MARGIN``, ``WORTH_MARGIN``, ``DOMINATED_SURE`` and ``STAIRCASE_SHARE`` are the
defaults of a :class:`Thresholds`, which a spec's ``[verdict]`` table sets (``margin``,
``worth_margin``, ``dominated_sure``, ``staircase_share``); a verdict made with other values
says so.

What a grid's verdict reads
---------------------------
A grid's sentences read one :class:`Measure` in each cell: A's win rate, or A's expected
score (a win 1, a draw 1/2) where the spec asks for it (``[verdict] value = "score"``) or,
by default, where A's win rate does not move over the grid (every cell's interval shares
a value; exact: one value) while the draw rate does -- A's wins then say nothing, its
draws everything (:func:`choose_measure`).  The sentences name the measure they read.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .. import stats
from ..labels import Labels, decimals_for, percent, rate_with_interval
from .equilibria import dominated, metagame
from .matchups import field_scores, pair_scores

__all__ = [
    "BALANCED_MARGIN",
    "DOMINANT",
    "DOMINATED_SURE",
    "NEGLIGIBLE_EXCHANGE",
    "STAIRCASE_SHARE",
    "STAIRCASE_STEPS",
    "WORTH_MARGIN",
    "Claim",
    "Matchup",
    "Measure",
    "Sentence",
    "Thresholds",
    "Verdict",
    "best_play_verdict",
    "choose_measure",
    "entrant_sentence",
    "exchange_rate",
    "grid_verdict",
    "newcomer_axes",
    "options_verdict",
    "round_robin_axes",
    "round_robin_verdict",
    "sensitivity",
    "staircase",
    "variants_verdict",
    "verdict",
]

BALANCED_MARGIN = 0.05
DOMINANT = 0.5
DOMINATED_SURE = 0.95
STAIRCASE_SHARE = 0.8
STAIRCASE_STEPS = 5
WORTH_MARGIN = 0.02
NEGLIGIBLE_EXCHANGE = 0.1
Z95 = 1.959963984540054


@dataclass(frozen=True)
class Thresholds:
    """The named thresholds a verdict is made with (see the module's rules): the module's
    constants unless a spec's ``[verdict]`` table sets them."""

    margin: float = BALANCED_MARGIN
    worth_margin: float = WORTH_MARGIN
    dominated_sure: float = DOMINATED_SURE
    staircase_share: float = STAIRCASE_SHARE
    negligible_exchange: float = NEGLIGIBLE_EXCHANGE

    @classmethod
    def of(cls, options: Mapping[str, Any]) -> Thresholds:
        """The thresholds a ``[verdict]`` table sets (its other keys ignored)."""
        names = [f.name for f in dataclasses.fields(cls)]
        return cls(**{k: float(options[k]) for k in names if k in options})

    def changed(self, read: Collection[str] | None = None) -> str:
        """The thresholds not at their defaults (of those in ``read``, if given: the ones a
        verdict read), as a clause ("" when none)."""
        default = Thresholds()
        parts = [f"{f.name} = {getattr(self, f.name):g} (default {getattr(default, f.name):g})"
                 for f in dataclasses.fields(self)
                 if getattr(self, f.name) != getattr(default, f.name)
                 and (read is None or f.name in read)]
        return "made with [verdict] " + ", ".join(parts) if parts else ""


DEFAULTS = Thresholds()
_WORTH = frozenset({"worth_margin"})  # what an options verdict reads


@dataclass(frozen=True)
class Measure:
    """What a grid's verdict reads in each cell: ``a_win`` (A's win rate) or ``score`` (A's
    expected score, a draw counting half; the table gains ``score``, ``score_low`` and
    ``score_high`` by :func:`balance.analysis.scores.with_scores`)."""

    column: str = "a_win"

    @property
    def name(self) -> str:
        """The measure in a sentence: "A's win rate", "A's expected score (a draw counts
        half)"."""
        return "A's win rate" if self.column == "a_win" else "A's expected score (a draw counts half)"

    @property
    def verb(self) -> str:
        """Before a cell's number: "A wins 45.0%", "A's expected score is 45.0%"."""
        return "A wins" if self.column == "a_win" else "A's expected score is"


WIN = Measure("a_win")
SCORE = Measure("score")
MEASURES = ("a_win", "score")
"""The values of ``[verdict] value``."""


# --- what a verdict is ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Sentence:
    """One sentence of a verdict, with the number it rests on (``value``, a fraction or a
    ratio) and its interval (``low`` = ``high`` = ``value`` when exact)."""

    text: str
    kind: str
    value: float | None = None
    low: float | None = None
    high: float | None = None


@dataclass(frozen=True)
class Matchup:
    """One matchup to (re)compute: validated rules and both sides."""

    rules: Any
    side_a: tuple[Any, ...]
    side_b: tuple[Any, ...]


@dataclass(frozen=True)
class Rate:
    """A matchup's outcome shares: A's win, draw and B's win, from ``n`` fights (0: exact);
    ``winners``: each fight's winner (0 draw, 1 A, 2 B) where it was simulated on the
    sensitivity pass's common streams, so two rates' difference has its paired error
    (:func:`_rate_difference_se`)."""

    a_win: float
    draw: float
    b_win: float
    n: int
    winners: np.ndarray | None = field(default=None, compare=False, repr=False)

    @property
    def score(self) -> float:
        """A's expected score: a win 1, a draw 1/2."""
        return self.a_win + 0.5 * self.draw

    @property
    def score_se(self) -> float:
        if self.n == 0:
            return 0.0
        return math.sqrt(max(self.a_win + 0.25 * self.draw - self.score**2, 0.0) / self.n)

    @property
    def win_se(self) -> float:
        return 0.0 if self.n == 0 else math.sqrt(self.a_win * (1 - self.a_win) / self.n)


@dataclass(frozen=True)
class Claim:
    """A verdict's key answer as something to recompute.

    ``measure`` reads the :class:`Rate`\\ s of ``matchups`` into the key number and its
    standard error (0 when exact); ``describe`` says what a number means in words (e.g.
    "the knight beats the gladiator, 78.1%").  An alternative *changes* the answer when
    its words differ (``describe(...)[0]``) and its number differs significantly from the
    baseline's (beyond the 95% interval of the difference), so a number resting on the
    edge of a category does not flip by noise.
    """

    question: str
    matchups: tuple[Matchup, ...]
    measure: Callable[[Sequence[Rate]], tuple[float, float]]
    describe: Callable[[float, float], tuple[str, str]]
    compared: frozenset[tuple[str, str]] = frozenset()
    """``(side, field)`` pairs the claim compares (an option axis's fields): never varied."""

    def answer(self, rates: Sequence[Rate]) -> tuple[str, str, float, float]:
        """The answer in words, the number shown beside it, the number and its error."""
        value, se = self.measure(rates)
        words, shown = self.describe(value, se)
        return words, shown, value, se


@dataclass(frozen=True)
class Flip:
    """An alternative reading or policy under which the key answer changes."""

    name: str
    value: Any
    kind: str  # "reading" or "policy"
    answer: str
    who: str = ""
    """For a fighter's policy: whose (``"A"``, ``"B"`` or ``""`` for everyone)."""


@dataclass(frozen=True)
class Verdict:
    """The sentences that answer the question, its key :class:`Claim`, and what the
    sensitivity pass found (``checked``: the alternatives tried; ``flips``: those that
    change the key answer; ``skipped``: not tried within the budget)."""

    sentences: tuple[Sentence, ...]
    claim: Claim | None = None
    base_answer: str | None = None
    checked: tuple[str, ...] = ()
    flips: tuple[Flip, ...] = ()
    skipped: tuple[str, ...] = ()
    rests_on: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default_factory=tuple)
    thresholds: Thresholds = DEFAULTS
    """The thresholds it was made with (named in :meth:`rests_text` where not the defaults
    and in ``read``)."""
    read: frozenset[str] | None = None
    """The names of the thresholds the verdict read (``None``: any of them)."""

    def lines(self) -> list[str]:
        """The sentences, then what the answer rests on, one per line."""
        out = [s.text for s in self.sentences]
        rests = self.rests_text()
        if rests:
            out.append(rests)
        return out

    def rests_text(self) -> str:
        """What the key answer rests on, and what (if anything) flips it."""
        changed = self.thresholds.changed(self.read)
        if self.claim is None and not self.rests_on and not changed:
            return ""
        from ..outcomes import split_rows

        readings, rows = split_rows(r for r in self.rests_on if "[" in r)
        policies = [r for r in self.rests_on if "[" not in r]
        parts = []
        if readings or policies or rows:
            written = (f", {len(rows)} written modifier/effect row"
                       f"{'s' if len(rows) != 1 else ''}" if rows else "")
            parts.append(f"It rests on {len(readings)} DEFAULT/AMBIG reading"
                         f"{'s' if len(readings) != 1 else ''}{written} and {len(policies)} "
                         f"polic{'ies' if len(policies) != 1 else 'y'} (see 'Rules used')")
        if self.claim is not None and (self.checked or self.skipped):
            how = f" ({self.notes[0]})" if self.notes else ""
            if self.flips:
                flips = "; ".join(f"under `{f.name} = {_plain(f.value)}`"
                                  + (f" (side {f.who}'s policy)" if f.who else "")
                                  + f" {f.answer}" for f in self.flips)
                parts.append(f"rechecked under {len(self.checked)} alternative readings and "
                             f"policies{how}, the key answer -- {self.base_answer} -- "
                             f"changes: {flips}")
            else:
                parts.append(f"rechecked under each of {len(self.checked)} alternative "
                             f"readings and policies that can matter here{how}, the key answer "
                             f"-- {self.base_answer} -- holds")
            if self.skipped:
                parts.append(f"{len(self.skipped)} more were not tried within the budget")
        elif self.claim is not None:
            parts.append("the sensitivity pass was not run (--sensitivity runs it)")
        if changed:
            parts.append(f"the verdict was {changed}")
        if not parts:
            return ""
        text = "; ".join(parts)
        return text[0].upper() + text[1:] + "."

    def text(self) -> str:
        return "\n".join(self.lines())


def _plain(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple | list):
        return "[" + ", ".join(_plain(v) for v in value) + "]"
    return str(value)


def _ci(value: float, low: float, high: float, exact: bool) -> str:
    return rate_with_interval(value, low, high, exact=exact)


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


# --- round robins --------------------------------------------------------------------------------


def round_robin_axes(results: pd.DataFrame, axes: Sequence[str]
                     ) -> tuple[str, str, list[str]] | None:
    """A side-A axis and a side-B axis of the same field over the same entrants: the run is
    a round robin (per level of the ``others`` axes, if any)."""
    for a in (x for x in axes if x.startswith("a.") or x == "a"):
        for b in (x for x in axes if x.startswith("b.") or x == "b"):
            if a.split(".")[-1] != b.split(".")[-1] and not (a == "a" and b == "b"):
                continue  # e.g. A's Co-ordination against B's Fortitude: not entrants
            others = [x for x in axes if x not in (a, b)]
            if others and _numeric(results[a]):
                continue  # a stat swept on both sides among other axes: marginal values
            if (set(results[a].astype(str)) == set(results[b].astype(str))
                    and results[a].nunique() > 1):
                return a, b, others
    return None


def _numeric(series: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series) \
        and series.nunique() > 1


def round_robin_verdict(table: pd.DataFrame, *, labels: Labels | None = None,
                        column: str = "a.0.preset", margin: float | None = None,
                        matchup_of: Callable[[str, str], Matchup] | None = None,
                        resamples: int = 200, thresholds: Thresholds = DEFAULTS) -> Verdict:
    """The verdict on a round robin (``table`` with entrant columns ``a`` and ``b``).

    Sentences: whether the field is balanced within ``margin`` (default the
    ``thresholds``'); the dominant entrant, or the leader and who stands up to it; the
    dominated entrants.  The key claim is the leader against its hardest opponent
    (``matchup_of(a, b)`` builds a matchup, for the sensitivity pass).  "Dominant" needs
    every one of the leader's pairs above 50% (an intersection of tests, each at 5%: no
    adjustment for their number is due), "balanced" every entrant's interval inside the
    band (likewise).
    """
    labels = labels or Labels()
    if margin is not None:
        thresholds = dataclasses.replace(thresholds, margin=margin)
    exact = bool((table["n"] == 0).all())

    def who(entrant: str) -> str:
        return labels.value(column, entrant)

    field_ = field_scores(table)
    pairs = pair_scores(table)
    leader = field_.index[0]
    mine = pairs[pairs["entrant"] == leader]
    hardest = mine.loc[mine["score"].idxmin()]
    sentences = [_balance_sentence(field_, thresholds.margin, who, exact),
                 _leader_sentence(table, field_, mine, hardest, who, exact, resamples),
                 _dominated_sentence(table, who, exact, resamples, thresholds)]
    claim = (_leader_claim(str(leader), str(hardest.opponent), who, matchup_of)
             if matchup_of is not None else None)
    return Verdict(tuple(sentences), claim, thresholds=thresholds,
                   read=frozenset({"margin", "dominated_sure"}))


def _balance_sentence(field_: pd.DataFrame, margin: float, who: Callable[[str], str],
                      exact: bool) -> Sentence:
    """Whether every entrant's score against the field lies within 50% +/- ``margin``."""
    low_bound, high_bound = 0.5 - margin, 0.5 + margin
    inside = ((field_["score_low"] >= low_bound - 1e-12)
              & (field_["score_high"] <= high_bound + 1e-12))
    best, worst = field_.index[0], field_.index[-1]
    b_row, w_row = field_.loc[best], field_.loc[worst]
    band = f"{percent(low_bound, 0)}-{percent(high_bound, 0)}"
    top = _ci(b_row.score, b_row.score_low, b_row.score_high, exact)
    bottom = _ci(w_row.score, w_row.score_low, w_row.score_high, exact)
    if bool(inside.all()):
        return Sentence(
            f"The field is balanced within ±{100 * margin:.0f} points: every entrant's expected "
            f"score against the field lies in {band}, from {bottom} for the {who(worst)} to "
            f"{top} for the {who(best)}.", "balance", float(b_row.score - w_row.score))
    outside = int((~inside).sum())
    return Sentence(
        f"The field is not balanced (±{100 * margin:.0f} points): expected scores against "
        f"the field run from {bottom} for the {who(worst)} to {top} for the {who(best)}; "
        f"{outside} of {len(field_)} entrants lie outside {band}.",
        "balance", float(b_row.score - w_row.score))


def _leader_sentence(table: pd.DataFrame, field_: pd.DataFrame, mine: pd.DataFrame,
                     hardest: pd.Series, who: Callable[[str], str], exact: bool,
                     resamples: int) -> Sentence:
    """The dominant entrant, or the leader, who stands up to it and the metagame's mix."""
    leader = field_.index[0]
    b_row = field_.loc[leader]
    beats_all = bool((mine["score_low" if not exact else "score"] > DOMINANT).all())
    weights = metagame(table, resamples=0 if exact else resamples, seed=0)
    hard = _ci(hardest.score, hardest.score_low, hardest.score_high, exact)
    numbers = (float(hardest.score), float(hardest.score_low), float(hardest.score_high))
    if beats_all:
        alone = float(weights.loc[leader, "weight"]) >= 0.99
        text = (f"The {who(leader)} is dominant: it beats every other entrant, scoring at "
                f"least {hard} (against the {who(hardest.opponent)})")
        text += ("; a table of clever players would play nothing else (metagame weight "
                 "100%)." if alone else ".")
        return Sentence(text, "dominant", *numbers)
    played = weights[weights["weight"] >= 0.01]
    mix = ", ".join(f"{who(e)} {percent(w, 0)}" for e, w in played["weight"].items())
    return Sentence(
        f"No entrant is dominant: the leader, the {who(leader)} "
        f"({_ci(b_row.score, b_row.score_low, b_row.score_high, exact)} against the "
        f"field), scores {hard} against the {who(hardest.opponent)}; a table of clever "
        f"players would mix {mix}.", "dominant", *numbers)


def _dominated_sentence(table: pd.DataFrame, who: Callable[[str], str], exact: bool,
                        resamples: int, thresholds: Thresholds) -> Sentence:
    """The entrants some mix of the others beats against every opponent."""
    dom = dominated(table, resamples=0 if exact else resamples, seed=1)
    sure = dom[(dom["margin"] > 0) & (dom["dominated_share"] >= thresholds.dominated_sure)]
    if not len(sure):
        return Sentence("No entrant is dominated by a mix of the others.", "dominated", 0.0)
    names = [who(e) for e in sure.index]
    listed = ", ".join(names[:-1]) + (" and " if len(names) > 1 else "") + names[-1]
    return Sentence(
        f"Dominated ({len(sure)} of {len(dom)}): {listed}. For each, some mix of the "
        f"others scores more against every opponent, by up to "
        f"{100 * float(sure['margin'].max()):.1f} points"
        + ("" if exact else f" (in at least {percent(thresholds.dominated_sure, 0)} of "
                            "bootstrap replicates)") + ".", "dominated", float(len(sure)))


def _leader_claim(first: str, second: str, who: Callable[[str], str],
                  matchup_of: Callable[[str, str], Matchup]) -> Claim:
    """The key answer to recompute: the leader against its hardest opponent, both seats."""
    pair = (matchup_of(first, second), matchup_of(second, first))

    def measure(rates: Sequence[Rate]) -> tuple[float, float]:
        score = (rates[0].score + (1 - rates[1].score)) / 2  # the two seats, paired
        return score, _rate_difference_se(rates[0], rates[1], "score") / 2

    def describe(score: float, se: float) -> tuple[str, str]:
        if abs(score - 0.5) <= Z95 * se:
            return f"the {who(first)} and the {who(second)} are even", percent(score)
        top, other = (first, second) if score > 0.5 else (second, first)
        return (f"the {who(top)} beats the {who(other)}",
                percent(score if score > 0.5 else 1 - score))

    return Claim(f"does the {who(first)} beat the {who(second)}?", pair, measure, describe)


# --- one entrant against a field ------------------------------------------------------------------


ENTRANT_PROCEDURE = "holm"
"""How an entrant's verdict controls its comparisons with each member of the field (does it
beat it, lose to it?): Holm's family-wise error, so no single "beats" is noise."""


def newcomer_axes(results: pd.DataFrame, axes: Sequence[str]) -> tuple[str, str] | None:
    """A side-A axis and a side-B axis of the same field where B's values (the field) are
    all among A's and A has more (the newcomers, played in seat A only): a run that puts new
    entrants against an existing field (not presets beside themselves with one field fixed,
    which :func:`variants_verdict` reads)."""
    for a in (x for x in axes if x.startswith("a.") or x == "a"):
        for b in (x for x in axes if x.startswith("b.") or x == "b"):
            if a.split(".")[-1] != b.split(".")[-1] and not (a == "a" and b == "b"):
                continue
            if _numeric(results[a]):
                continue
            field_, seated = set(results[b].astype(str)), set(results[a].astype(str))
            if _variants(list(dict.fromkeys(results[a].tolist()))) is not None:
                continue  # presets beside themselves with a field fixed: variants_verdict's
            if len(field_) > 1 and field_ < seated:
                return a, b
    return None


def entrant_sentence(table: pd.DataFrame, entrant: str, who: str, field_name: str, *,
                     opponent: Callable[[str], str], exact: bool, ranked: bool = True
                     ) -> Sentence:
    """Where one entrant lands against a field: ``table`` has columns ``a`` (the seated
    entrants, as text), ``b`` (the field) and the rates; ``entrant`` is one of ``a``.

    Its expected score in seat A against the field (the mean over the field's members,
    each counted alike); with ``ranked``, its rank among every ``a`` entrant played against
    the same field by the same measure; and whom it beats, loses to and is level with: its
    score against each member tested against 50% under :data:`ENTRANT_PROCEDURE`."""
    from .scores import with_scores

    scored = with_scores(table)
    mine = scored[scored["a"] == entrant]
    score = mine["score"].to_numpy(float)
    se = np.zeros(len(mine)) if exact else \
        (mine["score_high"] - mine["score_low"]).to_numpy(float) / (2 * Z95)
    family = Family(ENTRANT_PROCEDURE, score - 0.5, se)
    claimed = family.claimed()
    mean = float(score.mean())
    half = Z95 * float(np.sqrt(np.sum(se**2))) / len(score)
    opponents = mine["b"].tolist()

    def listed(mask: np.ndarray, worst_first: bool) -> str:
        picked = sorted((i for i in range(len(score)) if mask[i]),
                        key=lambda i: score[i] if worst_first else -score[i])
        names = [f"the {opponent(opponents[i])} at {percent(score[i], 1)}" for i in picked]
        return f"{len(picked)}" + (f" ({_and(names, LISTED)})" if names else "")

    beats, loses = claimed & (score > 0.5), claimed & (score < 0.5)
    level = int(len(score) - beats.sum() - loses.sum())
    text = (f"{who} against the field of {len(score)} ({field_name}): an expected score of "
            f"{_ci(mean, mean - half, mean + half, exact)} in seat A")
    if ranked:
        means = scored[scored["b"].isin(opponents)].groupby("a")["score"].mean()
        rank = 1 + int((means > mean + 1e-12).sum())
        leader = str(means.idxmax())
        text += (f", {_ordinal(rank)} of the {len(means)} entrants played against it"
                 + ("" if leader == entrant else
                    f" (the {opponent(leader)} leads with {percent(float(means.max()), 1)})"))
    text += (f"; it beats {listed(beats, False)}, loses to {listed(loses, True)} and is level "
             f"with {level}")
    if not exact:
        text += f" ({family.foot()})"
    return Sentence(_capital(text) + ".", "entrant", mean, mean - half, mean + half)


def _ordinal(k: int) -> str:
    suffix = "th" if 10 <= k % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(k % 10, "th")
    return f"{k}{suffix}"


def _lone_entrant(results: pd.DataFrame, axes: Sequence[str], options: Sequence[str],
                  numeric: Sequence[str], labels: Labels, exact: bool) -> Sentence | None:
    """Side A as the spec sets it (no side-A axis) against a field: one side-B axis of whole
    sides or presets with at least :data:`FIELD_AT_LEAST` values.  Where it lands
    (:func:`entrant_sentence`, unranked: the field never sits in seat A here), at the
    baseline of any other axes; ``None`` for any other grid."""
    if any(_side_of(a) == "a" for a in [*options, *numeric]):
        return None
    fields = [a for a in options if a == "b" or (a.endswith(".preset") and _side_of(a) == "b")]
    if len(fields) != 1 or results[fields[0]].nunique() < FIELD_AT_LEAST:
        return None
    b_ax = fields[0]
    part, held = _at_baseline(results, axes, [b_ax], labels)
    table = part.assign(a="A", b=part[b_ax].astype(str))
    raw = {str(v): v for v in part[b_ax].tolist()}
    who = (f"With {_and(held)}, " if held else "") + labels.column("a")
    return entrant_sentence(table, "A", who, "side B",
                            opponent=lambda o: labels.value(b_ax, raw[o]), exact=exact,
                            ranked=False)


FIELD_AT_LEAST = 3
"""The fewest values a side-B axis of whole sides or presets has for a run with side A
fixed to read as one entrant against a field."""


def _newcomers_verdict(results: pd.DataFrame, axes: Sequence[str], a_ax: str, b_ax: str,
                       labels: Labels, exact: bool, thresholds: Thresholds) -> Verdict:
    """New entrants in seat A against a field that also plays itself: where each newcomer
    lands (:func:`entrant_sentence`), then the field's own round robin verdict."""
    part, held = _at_baseline(results, axes, [a_ax, b_ax], labels)
    table = part.drop(columns=[c for c in ("a", "b") if c in part and c not in (a_ax, b_ax)])
    table = table.rename(columns={a_ax: "a", b_ax: "b"})
    table = table.assign(a=table["a"].astype(str), b=table["b"].astype(str))
    raw = {str(v): v for v in part[a_ax].tolist()}
    field_ = list(dict.fromkeys(table["b"].tolist()))
    newcomers = [e for e in dict.fromkeys(table["a"].tolist()) if e not in field_]
    lead = f"At {_and(held)}, " if held else ""
    sentences = [entrant_sentence(table, e, f"{lead}the {labels.value(a_ax, raw[e])}",
                                  f"side {_side_of(b_ax).upper()}",
                                  opponent=lambda o: labels.value(b_ax, o), exact=exact)
                 for e in newcomers[:LISTED]]
    mirror = table[table["a"].isin(field_)]
    made = round_robin_verdict(mirror, labels=labels, column=a_ax, thresholds=thresholds)
    first, *rest = made.sentences
    first = dataclasses.replace(first, text="Among the field itself, " + first.text[:1].lower()
                                + first.text[1:])
    return dataclasses.replace(made, sentences=(*sentences, first, *rest))


# --- grids ---------------------------------------------------------------------------------------


def staircase(xs: Sequence[float], rates: Sequence[float], *, noise: float = 0.0,
              share_at_least: float = STAIRCASE_SHARE) -> tuple[bool, float, list[float]]:
    """Whether a curve is a staircase (see the module's rules; ``share_at_least`` is its
    ``STAIRCASE_SHARE``), the share of its movement in its largest fifth of steps, and
    where its jumps are (the ``x`` after each step that carries more than a tenth of the
    largest step and more than ``noise``)."""
    steps = np.abs(np.diff(np.asarray(rates, float)))
    if len(steps) == 0 or steps.sum() <= 0:
        return False, 0.0, []
    top = max(1, math.ceil(len(steps) / 5))
    share = float(np.sort(steps)[::-1][:top].sum() / steps.sum())
    cut = max(0.1 * steps.max(), noise)
    jumps = [float(xs[i + 1]) for i in range(len(steps)) if steps[i] > cut]
    return len(steps) >= STAIRCASE_STEPS and share >= share_at_least, share, jumps


def _crossing(xs: np.ndarray, p: np.ndarray, lo: np.ndarray, hi: np.ndarray, level: float
              ) -> tuple[float, float, float] | None:
    """Where a rising (or falling) curve crosses ``level``: the interpolated ``x`` and the
    range it surely lies in (last ``x`` surely on one side to first surely on the other)."""
    rising = p[-1] >= p[0]
    q, qlo, qhi = (p, lo, hi) if rising else (-p, -hi, -lo)
    target = level if rising else -level
    above = np.flatnonzero(q >= target)
    if len(above) == 0 or above[0] == 0:
        return None
    i = int(above[0])
    x0, x1, y0, y1 = xs[i - 1], xs[i], q[i - 1], q[i]
    x = float(x0 + (target - y0) / (y1 - y0) * (x1 - x0)) if y1 != y0 else float(x1)
    below_sure = np.flatnonzero(qhi < target)
    above_sure = np.flatnonzero(qlo > target)
    left = float(xs[below_sure[below_sure < i].max()]) if (below_sure < i).any() else float(xs[0])
    right = float(xs[above_sure[above_sure >= i].min()]) if (above_sure >= i).any() \
        else float(xs[-1])
    return x, min(left, x), max(right, x)


def exchange_rate(results: pd.DataFrame, x: str, y: str, *, level: float = 0.5,
                  rate: str = "a_win") -> dict[str, Any] | None:
    """How many points of ``x`` one point of ``y`` is worth, read where ``rate`` crosses
    ``level`` (default the even line).

    For each value of ``y`` the curve over ``x`` is cut at ``level``; the exchange rate is
    minus the least-squares slope of the crossing ``x`` against ``y`` (one point of ``y`` moves
    the crossing by that many points of ``x``).  Its interval treats each crossing as
    uniform over the range it surely lies in (from the last cell surely below the level to
    the first surely above).  ``None`` where fewer than two levels of ``y`` cross.

    Returns
    -------
    dict
        ``rate`` (points of x per point of y; positive: x and y help the same side),
        ``low``, ``high``, ``crossings`` (y -> crossing x), ``level``, ``widths`` (y -> the
        width of the range its crossing surely lies in).
    """
    rows = []
    for yv, part in results.groupby(y, sort=True):
        part = part.sort_values(x)
        xs = part[x].to_numpy(float)
        found = _crossing(xs, part[rate].to_numpy(float), part[f"{rate}_low"].to_numpy(float),
                          part[f"{rate}_high"].to_numpy(float), level)
        if found is not None:
            rows.append((float(yv), *found))
    if len(rows) < 2:
        return None
    ys = np.array([r[0] for r in rows])
    cross = np.array([r[1] for r in rows])
    width = np.array([r[3] - r[2] for r in rows])
    c = (ys - ys.mean()) / np.sum((ys - ys.mean()) ** 2)
    slope = float(np.sum(c * cross))
    se = float(np.sqrt(np.sum(c**2 * (width**2 / 12))))
    return {"rate": -slope, "low": -slope - Z95 * se, "high": -slope + Z95 * se,
            "crossings": dict(zip(ys.tolist(), cross.tolist(), strict=True)), "level": level,
            "widths": dict(zip(ys.tolist(), width.tolist(), strict=True))}


def _at_baseline(results: pd.DataFrame, axes: Sequence[str], keep: Sequence[str],
                 labels: Labels) -> tuple[pd.DataFrame, list[str]]:
    """The rows with every axis not in ``keep`` at its baseline (or its first value where
    it has none in the table), and a description of what was held."""
    part = results
    held = []
    for axis in axes:
        if axis in keep:
            continue
        values = list(dict.fromkeys(part[axis].tolist()))
        chosen = next((v for v in values if labels.is_baseline(axis, v)), values[0])
        part = part[part[axis] == chosen]
        held.append(f"{labels.column(axis)} = {labels.value(axis, chosen)}")
    return part, held


def _side_of(axis: str) -> str:
    return axis.split(".", 1)[0]


def choose_measure(results: pd.DataFrame, value: str | None = None
                   ) -> tuple[Measure, Sentence | None]:
    """What a grid's verdict reads (see the module's rules): ``value`` (``"a_win"`` or
    ``"score"``) where given, else A's win rate unless it does not move over the grid while
    the draw rate does; then A's expected score, and a sentence saying why."""
    if value == "score":
        return SCORE, None
    if value == "a_win" or "draw" not in results.columns or not len(results):
        return WIN, None
    if not _flat(results, "a_win") or _flat(results, "draw"):
        return WIN, None
    exact = bool((results["n"] == 0).all())
    lo_i, hi_i = results["a_win"].idxmin(), results["a_win"].idxmax()
    if float(results.loc[hi_i, "a_win"]) == 0:
        why = f"A never wins in this grid ({_row_rate(results, hi_i, exact)} in every cell)"
    elif exact:
        why = f"A's win rate is {_row_rate(results, hi_i, exact)} in every cell of this grid"
    else:
        why = (f"A's win rate does not move over this grid (from "
               f"{_row_rate(results, lo_i, exact)} to {_row_rate(results, hi_i, exact)}, every "
               f"cell's interval sharing a value)")
    return SCORE, Sentence(f"{why}; the verdict reads A's expected score, a draw counting half.",
                           "measure", float(results.loc[hi_i, "a_win"]))


def _flat(results: pd.DataFrame, column: str) -> bool:
    """Whether ``column`` does not move over the table: exact, one value; else every row's
    interval shares a value."""
    if bool((results["n"] == 0).all()) or f"{column}_low" not in results.columns:
        return float(np.ptp(results[column].to_numpy(float))) <= 1e-12
    return float(results[f"{column}_low"].max()) <= float(results[f"{column}_high"].min())


def grid_verdict(results: pd.DataFrame, axes: Sequence[str], *, labels: Labels | None = None,
                 exact: bool = False, focus: str | None = None,
                 matchup_of: Callable[[Mapping[str, Any]], Matchup] | None = None,
                 thresholds: Thresholds = DEFAULTS, value: str | None = None,
                 paired: Paired | None = None) -> Verdict:
    """The verdict on a grid that is not a round robin: exchange rates between stats,
    staircases, and options (see the module's rules).  With ``focus`` (the option the
    question is about), or options that are presets with one field fixed
    (:func:`variants_verdict`), the options come first (and the key claim is the focus
    option's); else the stats lead.  A grid over rule options only gets the options
    verdict of each rule axis (the one holding ``focus`` first), phrased as rules.  The
    sentences read ``value`` (see :func:`choose_measure`); ``paired``: the paired errors of
    cells on common streams (:func:`_difference_se`)."""
    labels = labels or Labels()
    th = thresholds
    m, why = choose_measure(results, value)
    if m.column == "score":
        from .scores import with_scores

        results = with_scores(results)
    numeric = [a for a in axes if _numeric(results[a]) and a.startswith(("a.", "b."))]
    options = [a for a in axes if a not in numeric and a.split(".", 1)[0] in ("a", "b")
               and results[a].nunique() > 1]
    rule_options = [a for a in axes if a.startswith("rules.") and results[a].nunique() > 1]
    sentences: list[Sentence] = [why] if why is not None else []
    said = len(sentences)
    claim = None
    read: set[str] = set()  # the thresholds the sentences said read
    lone = _lone_entrant(results, axes, options, numeric, labels, exact)
    if lone is not None:  # side A alone against a field of B's: where it lands, first
        sentences.append(lone)
    made_v = (variants_verdict(results, axes, options[0], labels=labels, exact=exact,
                               thresholds=th, measure=m, paired=paired) if options else None)
    if made_v is not None:  # each preset's own choice against the same preset fixed: first
        sentences.extend(made_v.sentences)
        read |= made_v.read or set()
        options = []
    elif focus is not None and options:
        made_o = options_verdict(results, axes, options[0], labels=labels, exact=exact,
                                 focus=focus, matchup_of=matchup_of, thresholds=th, measure=m,
                                 paired=paired)
        sentences.extend(made_o.sentences)
        read |= made_o.read or set()
        claim = made_o.claim
        options = []  # said
    if len(numeric) >= 2:
        read.add("staircase_share")  # exchange sentences look for staircases
        read.add("negligible_exchange")
    if len(numeric) >= 2:
        # x the finer axis; of two alike, y the one a point of which moves A more (so the
        # rate reads "one point of y is worth k > 1 points of x")
        x, y = sorted(numeric[:2], key=lambda a: (-results[a].nunique(),
                                                  _effect(results, a, m)))
        part, held = _at_baseline(results, axes, [x, y], labels)
        made = _exchange_sentences(part, x, y, labels, exact, held, th, m)
        sentences.extend(made[0])
        if not made[0]:  # no even line to trade on: what a point of each stat is worth
            for stat, other in ((x, y), (y, x)):
                level = _baseline_level(part, other, labels)
                sentences.extend(_marginal_sentences(
                    part[part[other] == level], stat, labels, exact,
                    [*held, f"{labels.column(other)} = {labels.value(other, _int(level))}"],
                    th, m, paired))
        if matchup_of is not None and made[1] is not None and claim is None:
            claim = _exchange_claim(part, x, y, made[1], labels, matchup_of, axes, th, m)
    elif len(numeric) == 1:
        x = numeric[0]
        part, held = _at_baseline(results, axes, [x], labels)
        sentences.extend(_marginal_sentences(part, x, labels, exact, held, th, m, paired))
    for axis in options[:1]:
        made_o = options_verdict(results, axes, axis, labels=labels, exact=exact, focus=focus,
                                 matchup_of=matchup_of, thresholds=th, measure=m,
                                 paired=paired)
        sentences.extend(made_o.sentences)
        read |= made_o.read or set()
        claim = claim or made_o.claim
    if len(sentences) == said and rule_options:  # rules only: what each rule option does
        held_focus = [a for a in rule_options
                      if focus is not None and focus in {str(v) for v in results[a].tolist()}]
        for axis in [*held_focus, *(a for a in rule_options if a not in held_focus)]:
            made_o = options_verdict(results, axes, axis, labels=labels, exact=exact,
                                     focus=focus, matchup_of=matchup_of, thresholds=th,
                                     measure=m, paired=paired)
            sentences.extend(made_o.sentences)
            read |= made_o.read or set()
            claim = claim or made_o.claim
    if len(sentences) == said:
        col = m.column
        lo_i, hi_i = results[col].idxmin(), results[col].idxmax()
        sentences.append(Sentence(
            f"{_capital(m.name)} runs from {_row_rate(results, lo_i, exact, m)} to "
            f"{_row_rate(results, hi_i, exact, m)} over the grid.", "range"))
    return Verdict(tuple(sentences), claim, thresholds=th, read=frozenset(read))


def _effect(results: pd.DataFrame, axis: str, m: Measure = WIN) -> float:
    """How much one point of ``axis`` moves the measure on average (absolute)."""
    means = results.groupby(axis)[m.column].mean()
    xs = means.index.to_numpy(float)
    return abs(float(np.polyfit(xs, means.to_numpy(float), 1)[0])) if len(xs) > 1 else 0.0


def _row_rate(results: pd.DataFrame, i: Any, exact: bool, m: Measure = WIN) -> str:
    return _ci(results.loc[i, m.column], results.loc[i, f"{m.column}_low"],
               results.loc[i, f"{m.column}_high"], exact)


Paired = Callable[[Mapping[str, Any], Mapping[str, Any], str], "float | None"]
"""The paired standard error of two rows' difference in a column, or ``None`` where their
fights are not paired (:meth:`balance.experiments.paired.Pairing.se`)."""


def _difference_se(a: Mapping[str, Any], b: Mapping[str, Any], col: str,
                   exact: bool, paired: Paired | None = None) -> float:
    """The standard error of the difference between two rows' ``col``; 0 exact.

    The one place a verdict reads how sure a difference is.  Cells played on common
    streams (a sweep's default) give ``paired``, and their difference has the error of its
    paired fights (:mod:`balance.experiments.paired`): zero where the two cells played the
    same fights the same way.  Otherwise (independent streams, a run without its fights'
    winners) the cells are independent, so their standard errors, read back from their
    intervals, add in quadrature.  A :class:`Family` takes whatever errors it is given."""
    if exact:
        return 0.0
    if paired is not None:
        se = paired(a, b, col)
        if se is not None and math.isfinite(se):
            return se
    return math.hypot(*((r[f"{col}_high"] - r[f"{col}_low"]) / (2 * Z95) for r in (a, b)))


def _half_of_difference(a: Mapping[str, Any], b: Mapping[str, Any], col: str,
                        exact: bool) -> float:
    """The 95% half-width of the difference between two rows' ``col``
    (:func:`_difference_se`); 0 exact."""
    return Z95 * _difference_se(a, b, col, exact)


PROCEDURES = {"holm": "Holm-adjusted 5%",
              "bh": "Benjamini-Hochberg 5% false discovery rate"}
"""The multiple-comparison procedures a verdict controls its claims with, as its sentences
name them (:class:`Family`)."""
FAMILY_ALPHA = 0.05
"""The error a family of comparisons is controlled at: Holm's family-wise error rate, or
Benjamini-Hochberg's false discovery rate."""


@dataclass(frozen=True)
class Family:
    """Comparisons a verdict makes together, each a difference ``diff`` with its standard
    error ``se`` (0: exact) tested against ``beyond`` (a margin, 0 by default) in its own
    direction (:func:`balance.stats.normal_pvalue`), under one procedure (``"holm"`` or
    ``"bh"``, :data:`PROCEDURES`) at :data:`FAMILY_ALPHA`.  A verdict claims a difference
    only where :meth:`claimed` says so; an exact family claims every difference beyond its
    margin (its p-values are 0 or 1)."""

    procedure: str
    diff: np.ndarray
    se: np.ndarray
    beyond: float | np.ndarray = 0.0

    def pvalues(self) -> np.ndarray:
        from ..stats import normal_pvalue

        return normal_pvalue(self.diff, self.se, self.beyond)

    def adjusted(self) -> np.ndarray:
        from ..stats import benjamini_hochberg, holm

        adjust = holm if self.procedure == "holm" else benjamini_hochberg
        return adjust(self.pvalues())

    def claimed(self) -> np.ndarray:
        """Which differences the family claims: adjusted p-value below the level."""
        return self.adjusted() < FAMILY_ALPHA

    def halves(self) -> np.ndarray:
        """Each comparison's half-width at the level the procedure tests it at: Holm's
        ``alpha / (m - rank + 1)`` (its rank by p-value), Benjamini-Hochberg's
        ``alpha * rank / m``; the interval a claim's size is read from."""
        from ..stats import z_value

        m = len(self.diff)
        if m == 0:
            return np.zeros(0)
        rank = np.empty(m, int)
        rank[np.argsort(self.pvalues(), kind="stable")] = np.arange(1, m + 1)
        level = (FAMILY_ALPHA / (m - rank + 1) if self.procedure == "holm"
                 else FAMILY_ALPHA * rank / m)
        return np.array([z_value(1 - a) for a in level]) * np.asarray(self.se, float)

    def foot(self) -> str:
        """The sentence's foot: "differences claimed at Holm-adjusted 5% over 361
        comparisons"."""
        m = len(self.diff)
        return (f"differences claimed at {PROCEDURES[self.procedure]} over {m:,} "
                f"comparison{'s' if m != 1 else ''}")


def _noise(part: pd.DataFrame, m: Measure = WIN) -> float:
    """A single step's sampling noise: twice the typical 95% half-width of a cell."""
    if f"{m.column}_high" not in part:
        return 0.0
    return float(np.median(part[f"{m.column}_high"] - part[f"{m.column}_low"]))


def _exchange_sentences(part: pd.DataFrame, x: str, y: str, labels: Labels, exact: bool,
                        held: Sequence[str], th: Thresholds = DEFAULTS, m: Measure = WIN
                        ) -> tuple[list[Sentence], dict[str, Any] | None]:
    out: list[Sentence] = []
    where = f" (with {', '.join(held)})" if held else ""
    level = 0.5
    found = exchange_rate(part, x, y, level=level, rate=m.column)
    if found is None:  # the even line is not crossed twice: read at the median rate
        level = float(np.round(part[m.column].median(), 2))
        found = exchange_rate(part, x, y, level=level, rate=m.column)
    if found is not None:
        k, lo, hi = found["rate"], found["low"], found["high"]
        if k < 0:  # the sentence gives the magnitude ("offsets"): so does its interval
            lo, hi = -hi, -lo
        digits = 2 if abs(k) < 0.5 or not (hi - lo > 0.2 or exact) else 1
        whole = _whole_valued(part[x])
        crossings = ", ".join(f"{_crossing_at(v, whole)} at {labels.value(y, _int(k_))}"
                              for k_, v in found["crossings"].items())
        verb = "is worth" if k > 0 else "offsets"  # rising together keeps A even
        interval = "" if exact else f" [{lo:.{digits}f}, {hi:.{digits}f}]"
        shown = f"{abs(k):.{digits}f}"
        unit = "point" if float(shown) == 1 else "points"
        rate = (f"one point of {labels.column(y)} {verb} {shown}{interval} {unit} of "
                f"{labels.column(x)}{where}")
        # judged on the numbers as printed, so "0.10 (under 0.1 of a point)" cannot be said
        as_shown = [float(shown)] if exact else [abs(float(f"{e:.{digits}f}")) for e in (lo, hi)]
        if max(as_shown) < th.negligible_exchange:
            rate = (f"{labels.column(y)} is worth almost nothing against {labels.column(x)}: "
                    f"{rate} (under {th.negligible_exchange:g} of a point"
                    + ("" if exact else ", interval included") + ")")
        out.append(Sentence(
            f"{_capital(rate)}: where {m.name} crosses {percent(level, 0)}, "
            f"{labels.column(x)} moves {shown} per point of {labels.column(y)} "
            f"({crossings}){_crossing_shape(found, x, y, labels)}.", "exchange", k, lo, hi))
    flags = []
    noise = 0.0 if exact else _noise(part, m)
    for _, curve in part.groupby(y, sort=True):
        curve = curve.sort_values(x)
        flags.append(staircase(curve[x].to_numpy(float), curve[m.column].to_numpy(float),
                               noise=noise, share_at_least=th.staircase_share))
    if flags and sum(f[0] for f in flags) > len(flags) / 2:
        share = float(np.mean([f[1] for f in flags]))
        at = _baseline_level(part, y, labels)
        jumps = dict(zip(sorted(part[y].unique()), [f[2] for f in flags], strict=True))[at]
        shown = ", ".join(labels.value(x, _int(j)) for j in jumps[:8])
        out.append(Sentence(
            f"{_capital(m.name)} is a staircase in {labels.column(x)}, not a rate: on average "
            f"{percent(share, 0)} of its change comes in the largest fifth of the steps"
            + (f" (at {labels.column(y)} = {labels.value(y, _int(at))} it jumps at "
               f"{labels.column(x)} = {shown})" if shown else "")
            + "; read the exchange at the even line, not as a slope.", "staircase", share))
    return out, found


def _whole_valued(column: pd.Series) -> bool:
    """Whether a stat takes whole values only in the grid (combats, skill levels)."""
    values = column.to_numpy(float)
    return bool(np.all(np.isfinite(values)) and np.all(values == np.round(values)))


def _crossing_at(value: float, whole: bool) -> str:
    """Where a curve crosses its line, in the stat's own units: a whole-valued stat has no
    value between two whole ones, so a crossing between them is said as the two that
    bracket it ("30 to 31"), one that falls on a whole value as that value."""
    if not whole:
        return f"{value:.1f}"
    if abs(value - round(value)) < 1e-9:
        return f"{round(value)}"
    return f"{math.floor(value)} to {math.ceil(value)}"


def _crossing_shape(found: Mapping[str, Any], x: str, y: str, labels: Labels) -> str:
    """How the even line moves from one value of ``y`` to the next
    (:func:`balance.analysis.shapes.shape` of the crossings, each with the 95% half-width of
    a uniform spread over the range it surely lies in): nothing where it moves by the same
    at every step (within those intervals and :data:`~balance.analysis.shapes.ROUGHLY`),
    else a clause naming the shape and its steps."""
    from .shapes import shape

    ys = sorted(found["crossings"])
    if len(ys) < 3:
        return ""
    cross = [found["crossings"][v] for v in ys]
    halves = [Z95 * found["widths"][v] / math.sqrt(12) for v in ys]
    got = shape(ys, cross, halves)
    if got.kind == "linear":
        return (f"; it moves by about the same at every step of {labels.column(y)}, within "
                f"the crossings' intervals")

    def step(i: int) -> str:
        return (f"{got.steps[i] * (ys[i + 1] - ys[i]):+.1f} from {labels.value(y, _int(ys[i]))}"
                f" to {labels.value(y, _int(ys[i + 1]))}")

    if got.kind in ("diminishing", "increasing"):
        first, last = got.moving[0], got.moving[-1]
        return (f"; not at a steady rate: its steps {'shrink' if got.kind == 'diminishing' else 'grow'}"
                f", {step(first)} but {step(last)}")
    if got.kind in ("cliff", "pairs", "staircase"):
        return (f"; not at a steady rate: it moves in steps, {_and([step(i) for i in got.moving], LISTED)}"
                ", and holds between")
    return (f"; not at a steady rate: its steps run from {step(int(np.argmin(got.steps)))} to "
            f"{step(int(np.argmax(got.steps)))}" if got.kind != "flat" else "")


def _int(value: float) -> Any:
    return int(value) if float(value).is_integer() else round(float(value), 2)


def _baseline_level(part: pd.DataFrame, y: str, labels: Labels) -> Any:
    values = sorted(part[y].unique())
    return next((v for v in values if labels.is_baseline(y, v)), values[0])


def _marginal_sentences(part: pd.DataFrame, x: str, labels: Labels, exact: bool,
                        held: Sequence[str], th: Thresholds = DEFAULTS, m: Measure = WIN,
                        paired: Paired | None = None) -> list[Sentence]:
    """What a point of ``x`` is worth, in the words of its shape
    (:func:`balance.analysis.shapes.shape`): "on average" (the least-squares slope of the
    moving span, :func:`~balance.analysis.marginal_value`; for a simulated score its
    binomial standard error, which a draw's half point can only overstate) only where the
    steps agree; else diminishing or increasing returns with the first and last step, a
    cliff with the step that carries it, a curve that moves in pairs (or threes), a
    staircase with the steps that move, a peak, or no movement at all."""
    from .shapes import shape

    curve = part.sort_values(x)
    if len(curve) < 2:
        return []
    col = m.column
    halves = None if exact else ((curve[f"{col}_high"] - curve[f"{col}_low"]) / 2).to_numpy()
    steps: dict[str, Any] = {}
    if paired is not None and not exact:  # each step its own error (_difference_se)
        rows = [row for _, row in curve.iterrows()]
        steps = {"step_halves": [Z95 * _difference_se(b, a, col, exact, paired)
                                 for a, b in itertools.pairwise(rows)],
                 "whole_half": Z95 * _difference_se(rows[-1], rows[0], col, exact, paired)}
    found = shape(curve[x].to_numpy(float), curve[col].to_numpy(float), halves, **steps)
    words = _ShapeWords(curve, x, labels, exact, m, found)
    where = f" (with {_and(held)})" if held else ""
    if found.kind == "linear":
        return [words.linear(where)]
    text = getattr(words, found.kind)()
    if found.kind in ("diminishing", "increasing", "peaked", "uneven"):
        text += words.plateaus()
    return [Sentence(_capital(text) + where + ".", "shape", found.total)]


@dataclass(frozen=True)
class _ShapeWords:
    """The sentence for each shape of a one-stat curve (:func:`_marginal_sentences`)."""

    curve: pd.DataFrame
    x: str
    labels: Labels
    exact: bool
    m: Measure
    found: Any

    def at(self, i: int) -> str:
        """The ``i``-th value of the stat, whole numbers as whole numbers."""
        return self.labels.value(self.x, _int(self.found.xs[i]))

    def rate(self, i: int) -> str:
        row = self.curve.iloc[i]
        col = self.m.column
        return _ci(row[col], row[f"{col}_low"], row[f"{col}_high"], self.exact)

    def step(self, i: int, unit: bool = True) -> str:
        """Step ``i`` (from value ``i`` to ``i + 1``) in points, with its 95% half-width."""
        f = self.found
        width = f.xs[i + 1] - f.xs[i]
        shown = _points(f.steps[i] * width, f.halves[i] * width, self.exact)
        return shown if unit else shown.removesuffix(" points")

    def span(self, i: int) -> str:
        return f"from {self.at(i)} to {self.at(i + 1)}"

    @property
    def stat(self) -> str:
        return self.labels.column(self.x)

    def total(self) -> str:
        f = self.found
        return (f"{100 * f.total:+.{2 if self.exact else 1}f} points from {self.at(0)} to "
                f"{self.at(len(f.xs) - 1)} in all")

    def ends(self) -> str:
        last = len(self.found.xs) - 1
        return f"{self.rate(0)} at {self.at(0)} to {self.rate(last)} at {self.at(last)}"

    def linear(self, where: str) -> Sentence:
        from .marginal import marginal_value

        f = self.found
        span = self.curve.iloc[f.first:f.last + 2]
        mv = marginal_value(span, self.x, rate=self.m.column)
        slope, se = float(mv["slope"].iloc[0]), float(mv["slope_se"].iloc[0])
        moving = [f.steps[i] for i in f.moving]
        digits = 2 if self.exact else max(decimals_for(max(f.halves), most=2), 1)
        low, high = (f"{100 * v:+.{digits}f}" for v in (min(moving), max(moving)))
        steps = (f"every step {low} points" if low == high
                 else f"its steps from {low} to {high} points")
        text = (f"Each point of {self.stat} changes {self.m.name} by "
                f"{_points(slope, Z95 * se, self.exact)} on average, roughly linearly ({steps}"
                f"{'' if self.exact else ', agreeing within their intervals'})"
                + self.plateaus() + where + ".")
        return Sentence(text, "marginal", slope, slope - Z95 * se, slope + Z95 * se)

    def diminishing(self) -> str:
        return self._returns("less", "down")

    def increasing(self) -> str:
        return self._returns("more", "up")

    def _returns(self, word: str, way: str) -> str:
        f = self.found
        first, last = f.moving[0], f.moving[-1]
        kind = "diminishing" if word == "less" else "increasing"
        return (f"each point of {self.stat} changes {self.m.name} by {word} than the one "
                f"before ({kind} returns): {self.step(first)} {self.span(first)}, {way} to "
                f"{self.step(last, unit=False)} {self.span(last)}; {self.total()}")

    def cliff(self) -> str:
        f = self.found
        i = f.top
        shown = len(f.xs) <= LISTED
        values = (f" ({' / '.join(self.rate(k) for k in range(len(f.xs)))} at "
                  f"{self.stat} = {' / '.join(self.at(k) for k in range(len(f.xs)))})"
                  if shown else f" ({self.rate(i)} to {self.rate(i + 1)})")
        verb = "jumps" if f.steps[i] > 0 else "drops"
        return (f"{self.m.name} {verb} where {self.stat} goes {self.span(i)}{values}: that one "
                f"step carries {self.step(i, unit=False).lstrip('+-')} of the "
                f"{100 * sum(abs(v) for v in self._raw()):.{2 if self.exact else 1}f} points "
                f"it moves from {self.at(0)} to {self.at(len(f.xs) - 1)}")

    def _raw(self) -> list[float]:
        f = self.found
        return [f.steps[i] * (f.xs[i + 1] - f.xs[i]) for i in range(len(f.steps))]

    def pairs(self) -> str:
        f = self.found
        group = {2: "pairs", 3: "threes", 4: "fours"}.get(f.period, f"steps of {f.period}")
        ordinal = {2: "second", 3: "third", 4: "fourth"}.get(f.period, f"{f.period}th")
        moves = [self.span(i).removeprefix("from ") for i in f.moving]
        return (f"{self.m.name} moves in {group} of {self.stat}: it changes only at every "
                f"{ordinal} point ({_and(moves, LISTED)}; the largest step "
                f"{self.step(f.top)} {self.span(f.top)}) and ties between, from "
                f"{self.ends()}")

    def staircase(self) -> str:
        f = self.found
        moves = [f"{self.span(i).removeprefix('from ')} ({self.step(i, unit=k == 0)})"
                 for k, i in enumerate(f.moving)]
        return (f"{self.m.name} is a staircase in {self.stat}: it moves only from "
                f"{_and(moves, LISTED)}, and ties between, from {self.ends()}")

    def peaked(self) -> str:
        f = self.found
        ys = np.asarray(f.ys)
        rising = f.steps[f.moving[0]] > 0
        k = int(np.argmax(ys) if rising else np.argmin(ys))
        return (f"{self.m.name} {'rises then falls' if rising else 'falls then rises'} with "
                f"{self.stat}: {self.rate(0)} at {self.at(0)}, "
                f"{'a peak' if rising else 'a low'} of {self.rate(k)} at {self.at(k)}, "
                f"{self.rate(len(ys) - 1)} at {self.at(len(ys) - 1)}")

    def uneven(self) -> str:
        f = self.found
        moving = sorted(f.moving, key=lambda i: f.steps[i])
        return (f"each point of {self.stat} changes {self.m.name} unevenly: its steps run from "
                f"{self.step(moving[0])} {self.span(moving[0])} to "
                f"{self.step(moving[-1], unit=False)} {self.span(moving[-1])}; {self.total()}")

    def flat(self) -> str:
        f = self.found
        if self.exact and max(f.ys) - min(f.ys) == 0:
            return f"{self.m.name} does not move with {self.stat}: {self.rate(0)} at every value"
        return (f"{self.m.name} does not move with {self.stat}: from {self.ends()}, every step "
                + ("under " + _margin_points(0.001) if self.exact else "within its interval"))

    def plateaus(self) -> str:
        """Still steps at either end: "; flat up to 3", "; flat from 8 on"."""
        f = self.found
        parts = []
        if f.first > 0:
            parts.append(f"flat up to {self.stat} = {self.at(f.first)} ({self.rate(0)})")
        if f.last < len(f.steps) - 1:
            parts.append(f"flat from {self.stat} = {self.at(f.last + 1)} on "
                         f"({self.rate(len(f.xs) - 1)})")
        return "".join(f"; {p}" for p in parts)


def _exchange_claim(part: pd.DataFrame, x: str, y: str, found: dict[str, Any],
                    labels: Labels, matchup_of: Callable[[Mapping[str, Any]], Matchup],
                    axes: Sequence[str], th: Thresholds = DEFAULTS, m: Measure = WIN
                    ) -> Claim | None:
    """Two cells the exchange rate says are alike: ``y + 1`` at ``x`` and ``y`` at
    ``x + k`` (``k`` the rate, rounded); the answer is whether they still are."""
    k = round(abs(found["rate"]))
    if k == 0:
        return None
    sign = 1 if found["rate"] > 0 else -1  # y + 1 matches x - k (worth) or x + k (offsets)
    ys = sorted(part[y].unique())
    xs = set(part[x].tolist())
    crossings = found["crossings"]
    for y0, y1 in itertools.pairwise(ys):
        near = crossings.get(float(y1), crossings.get(float(y0)))
        if near is None:
            continue
        x0 = round(near)
        if x0 not in xs or x0 + sign * k * (y1 - y0) not in xs:
            continue
        held = part[(part[y] == y1) & (part[x] == x0)].iloc[0]
        other = part[(part[y] == y0) & (part[x] == x0 + sign * k * (y1 - y0))].iloc[0]
        first = {a: held[a] for a in axes}
        second = {a: other[a] for a in axes}
        name_1 = (f"{labels.column(y)} {labels.value(y, y1)}, {labels.column(x)} "
                  f"{labels.value(x, x0)}")
        name_2 = (f"{labels.column(y)} {labels.value(y, y0)}, {labels.column(x)} "
                  f"{labels.value(x, x0 + sign * k * (y1 - y0))}")

        def describe(diff: float, se: float, n1: str = name_1, n2: str = name_2
                     ) -> tuple[str, str]:
            shown = f"{100 * diff:+.1f} points"
            if abs(diff) <= max(th.worth_margin, Z95 * se):
                return (f"{n1} and {n2} are alike within {_margin_points(th.worth_margin)}",
                        shown)
            return f"{n1 if diff > 0 else n2} is better", shown

        return Claim(f"is one point of {labels.column(y)} still worth {k} of "
                     f"{labels.column(x)}?", (matchup_of(first), matchup_of(second)),
                     _difference(1, m), describe)
    return None


OPTIONS_PROCEDURE = "bh"
"""How an options verdict controls its many comparisons: Benjamini-Hochberg's false
discovery rate, since it lists discoveries (the options an option beats, the conditions
where it beats the default), where a few false entries among many true ones mislead less
than missing the true ones."""


@dataclass
class _Options:
    """What an options verdict reads: one axis at the baseline of the others (``part``,
    ``by_option``), whose side it is (``sign``: +1 where a higher rate is better for it),
    the default and the key option, and the comparisons it makes (:meth:`compare`, all
    tested together under :data:`OPTIONS_PROCEDURE` once gathered)."""

    results: pd.DataFrame
    axes: Sequence[str]
    axis: str
    labels: Labels
    exact: bool
    th: Thresholds
    m: Measure
    paired: Paired | None = None
    part: pd.DataFrame = field(init=False)
    held: list[str] = field(init=False)
    comparisons: dict[Any, tuple[float, float]] = field(default_factory=dict)
    claims: dict[Any, bool] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.results = self.results.assign(_cell=np.arange(len(self.results)))
        self.part, self.held = _at_baseline(self.results, self.axes, [self.axis], self.labels)

    @property
    def by_option(self) -> pd.DataFrame:
        return self.part.set_index(self.axis)

    @property
    def rule(self) -> bool:
        return _side_of(self.axis) == "rules"

    @property
    def side(self) -> str:
        return "A" if _side_of(self.axis) == "a" else "B"

    @property
    def sign(self) -> int:
        return 1 if self.rule or self.side == "A" else -1

    @property
    def lead(self) -> str:
        return f"With {_and(self.held)}, " if self.held else ""

    def name(self, option: Any) -> str:
        return (f"{self.labels.column(self.axis)} = {self.labels.value(self.axis, option)}"
                if self.rule else self.labels.value(self.axis, option))

    def rate(self, option: Any) -> str:
        row = self.by_option.loc[option]
        col = self.m.column
        return _ci(row[col], row[f"{col}_low"], row[f"{col}_high"], self.exact)

    def difference(self, a: Mapping[str, Any], b: Mapping[str, Any]) -> tuple[Any, float]:
        """The signed difference of two rows and its 95% half-width; the comparison joins
        the family (once, however many sentences read it), and its key is returned."""
        col = self.m.column
        key = (int(a["_cell"]), int(b["_cell"]))
        self.comparisons[key] = (self.sign * float(a[col] - b[col]),
                                 _difference_se(a, b, col, self.exact, self.paired))
        return key, Z95 * self.comparisons[key][1]

    def compare(self, option: Any, other: Any) -> tuple[float, float]:
        """The difference of two options (at the baseline) and its 95% half-width."""
        key, half = self.difference(self.by_option.loc[option], self.by_option.loc[other])
        return self.comparisons[key][0], half

    def pair(self, option: Any, other: Any) -> Any:
        """The key of the comparison of two options at the baseline."""
        by = self.by_option
        return int(by.loc[option, "_cell"]), int(by.loc[other, "_cell"])

    def settle(self) -> Family:
        """Test the gathered comparisons together; :meth:`beyond` reads the outcome."""
        keys = list(self.comparisons)
        family = Family(OPTIONS_PROCEDURE, np.array([self.comparisons[k][0] for k in keys]),
                        np.array([self.comparisons[k][1] for k in keys]),
                        self.th.worth_margin)
        self.claims = dict(zip(keys, family.claimed().tolist(), strict=True))
        return family

    def beyond(self, key: Any, direction: int) -> bool:
        """Whether the family claims comparison ``key`` (:meth:`difference`, :meth:`pair`)
        beyond the margin in ``direction`` (+1: ahead, -1: behind)."""
        diff = self.comparisons[key][0]
        return bool(self.claims.get(key)) and diff * direction > self.th.worth_margin


def options_verdict(results: pd.DataFrame, axes: Sequence[str], axis: str, *,
                    labels: Labels | None = None, exact: bool = False,
                    focus: str | None = None,
                    matchup_of: Callable[[Mapping[str, Any]], Matchup] | None = None,
                    default: Any = None, thresholds: Thresholds = DEFAULTS,
                    measure: Measure = WIN, paired: Paired | None = None) -> Verdict:
    """Whether an option of ``axis`` (values of one side's choice, or of a rule) is worth
    taking, and against what.

    At the baseline of every other axis: the side's best option (a rule's: the one A does
    best under); then for ``focus`` (the option the question is about, as the table writes
    it; default: the best option other than the default) its rate against the default
    option (the axis's baseline, or ``default``) -- worth taking, worse, or no better, by
    the thresholds' ``worth_margin`` -- which other options it beats and trails, and the
    values of each other axis (one at a time, the rest at their baseline) where it beats
    the default (a rule's: where it helps A, and where it hurts A).  Every difference a
    sentence claims is claimed by the family of all the comparisons it makes, under
    :data:`OPTIONS_PROCEDURE` (named in the sentence's foot where simulated).  The key claim
    is the focus option against the default.  The rates are ``measure``'s; ``paired``: the
    paired errors of cells on common streams (:func:`_difference_se`).
    """
    ctx = _Options(results, axes, axis, labels or Labels(), exact, thresholds, measure,
                   paired)
    values = list(dict.fromkeys(results[axis].tolist()))
    if default is None:
        default = next((v for v in values if ctx.labels.is_baseline(axis, v)), None)
    by_option = ctx.by_option
    ranked = sorted(by_option.index, key=lambda v: -ctx.sign * by_option.loc[v, measure.column])
    best = ranked[0]
    if default is None or default not in by_option.index:
        text = (f"{ctx.lead}A does best under {ctx.name(best)} ({measure.verb} "
                f"{ctx.rate(best)})." if ctx.rule else
                f"{ctx.lead}side {ctx.side}'s best option is {ctx.name(best)} ({measure.verb} "
                f"{ctx.rate(best)}).")
        return Verdict(tuple(_capitalised([Sentence(text, "option")])), thresholds=thresholds,
                       read=_WORTH)
    options = [v for v in ranked if v != default]
    key = next((v for v in options if focus is not None and str(v) == str(focus)),
               options[0] if options else None)
    if best != default:
        ctx.compare(best, default)
    where = _option_conditions(ctx, key, default) if key is not None else []
    if key is not None:
        for other in [default, *(v for v in options if v != key)]:
            ctx.compare(key, other)
    family = ctx.settle()
    best_wins = best != default and ctx.beyond(ctx.pair(best, default), 1)
    sentences = _best_option_sentence(ctx, best, default, key, best_wins)
    if key is not None:
        sentences.append(_key_option_sentence(ctx, key, default, options, best_wins and
                                               key == best, where, family))
    claim = (_option_claim(ctx, key, default, values, matchup_of)
             if matchup_of is not None and key is not None else None)
    return Verdict(tuple(_capitalised(sentences)), claim, thresholds=thresholds, read=_WORTH)


def _best_option_sentence(ctx: _Options, best: Any, default: Any, key: Any, best_wins: bool
                          ) -> list[Sentence]:
    """The side's best option where it is not the key (the key's sentence says it
    otherwise), or that the default is best."""
    m, name_d = ctx.m, ctx.labels.value(ctx.axis, default)
    margin = _margin_points(ctx.th.worth_margin)
    if best_wins and key != best:
        diff, half = ctx.compare(best, default)
        return [Sentence(
            (f"{ctx.lead}A does best under {ctx.name(best)}: " if ctx.rule else
             f"{ctx.lead}side {ctx.side}'s best option is {ctx.name(best)}: ")
            + f"{m.verb} {ctx.rate(best)}, {_points(diff, half, ctx.exact)} against the "
            f"default, {name_d} ({ctx.rate(default)}).", "option", diff, diff - half,
            diff + half)]
    if not best_wins and not (ctx.rule and key is not None):  # a rule's: said with its key
        return [Sentence(
            f"{ctx.lead}A does best under the default, {ctx.name(default)} ({m.verb} "
            f"{ctx.rate(default)}): no other value of it helps A by more than {margin}."
            if ctx.rule else
            f"{ctx.lead}the default, {name_d}, is side {ctx.side}'s best option ({m.verb} "
            f"{ctx.rate(default)}): no other beats it by more than {margin}.", "option", 0.0)]
    return []


def _key_option_sentence(ctx: _Options, key: Any, default: Any, options: Sequence[Any],
                         key_is_best: bool, where: Sequence[tuple[Any, str, str]],
                         family: Family) -> Sentence:
    """The key option against the default, the other options and the conditions."""
    m, labels, axis = ctx.m, ctx.labels, ctx.axis
    name_d = labels.value(axis, default)
    margin = _margin_points(ctx.th.worth_margin)
    diff, half = ctx.compare(key, default)
    ahead, behind = (ctx.beyond(ctx.pair(key, default), d) for d in (1, -1))
    word = ("worth taking" if ahead else "worse than the default" if behind else
            "no better than the default")
    under = "under " if ctx.rule else ""
    others = [v for v in options if v != key]
    wins = _by_points([(f"{under}{labels.value(axis, v)}", ctx.comparisons[ctx.pair(key, v)][0])
                       for v in others if ctx.beyond(ctx.pair(key, v), 1)])
    loses = _by_points([(f"{under}{labels.value(axis, v)}",
                         ctx.comparisons[ctx.pair(key, v)][0])
                        for v in others if ctx.beyond(ctx.pair(key, v), -1)])
    opening = (f"{m.verb} {ctx.rate(key)}, {_points(diff, half, ctx.exact)} against the "
               f"default, {name_d} ({ctx.rate(default)})")

    def conditions(direction: int) -> list[str]:
        found: dict[str, list[str]] = {}
        for k, column, value in where:
            if ctx.beyond(k, direction):
                found.setdefault(column, []).append(value)
        return [f"{column} = {' or '.join(_listed(vals))}" for column, vals in found.items()]

    if ctx.rule:
        text = (ctx.lead + (f"A does best under {ctx.name(key)}: " if key_is_best
                            else f"under {ctx.name(key)}, ") + opening)
        against = ([f"better than {_and(wins, LISTED)}"] if wins else []) + (
            [f"worse than {_and(loses, LISTED)}"] if loses else [])
        if against:
            text += "; A does " + " and ".join(against)
        if len(ctx.axes) > 1:
            helps, hurts = conditions(1), conditions(-1)
            moves = ([f"it helps A by more than {margin} where {'; '.join(helps)}"]
                     if helps else []) + (
                [f"it hurts A by more than {margin} where {'; '.join(hurts)}"]
                if hurts else [])
            text += ("; " + "; and ".join(moves) if moves else
                     f"; it moves A by more than {margin} nowhere in this grid")
        elif abs(diff) + half <= ctx.th.worth_margin:  # the grid is this rule alone: its
            # difference at the default is all there is (said above, so only "nowhere")
            text += f"; it moves A by more than {margin} nowhere in this grid"
    else:
        text = (f"{ctx.lead}side {ctx.side}'s best option is {ctx.name(key)}, {word}: "
                f"{opening}" if key_is_best else
                f"{ctx.name(key)} is {word}: {m.verb} {ctx.rate(key)}, "
                f"{_points(diff, half, ctx.exact)} against {name_d}")
        against = ([f"it beats {_and(wins, LISTED)}"] if wins else []) + (
            [f"it trails {_and(loses, LISTED)}"] if loses else [])
        if against:
            text += "; against the other options " + " and ".join(against)
        found = conditions(1)
        if found:
            text += (f"; it beats the default by more than {margin} "
                     + ("only " if not ahead else "") + f"where {'; '.join(found)}")
        elif not ahead:
            text += "; it beats the default nowhere in this grid"
    if not ctx.exact:
        text += f" ({family.foot()})"
    return Sentence(text + ".", "option", diff, diff - half, diff + half)


def _listed(values: Sequence[str]) -> list[str]:
    return list(values[:LISTED]) + ([f"{len(values) - LISTED} more"]
                                    if len(values) > LISTED else [])


def _option_conditions(ctx: _Options, option: Any, default: Any
                       ) -> list[tuple[Any, str, str]]:
    """The comparisons of ``option`` with ``default`` at each value of each other axis
    (one at a time, the rest at their baseline), joined to the family: (the comparison's
    key, the axis's column, the value's label), in the grid's order; the cell where every
    axis is at its baseline is one comparison, listed under each axis."""
    others = [a for a in ctx.axes if a != ctx.axis]
    out: list[tuple[Any, str, str]] = []
    for other in others:
        part, _ = _at_baseline(ctx.results, [a for a in others if a != other] + [ctx.axis],
                               [other, ctx.axis], ctx.labels)
        for value in dict.fromkeys(part[other].tolist()):
            rows = part[part[other] == value].set_index(ctx.axis)
            if option not in rows.index or default not in rows.index:
                continue
            k, _ = ctx.difference(rows.loc[option], rows.loc[default])
            out.append((k, ctx.labels.column(other), ctx.labels.value(other, value)))
    return out


def _option_claim(ctx: _Options, key: Any, default: Any, values: Sequence[Any],
                  matchup_of: Callable[[Mapping[str, Any]], Matchup]) -> Claim:
    """The key answer to recompute: the key option against the default, at the baseline."""
    th, rule, axes = ctx.th, ctx.rule, ctx.axes
    cell = ctx.part[ctx.part[ctx.axis] == key].iloc[0]
    cell_default = ctx.part[ctx.part[ctx.axis] == default].iloc[0]
    name_o, name_d = ctx.name(key), ctx.labels.value(ctx.axis, default)

    def describe(diff: float, se: float) -> tuple[str, str]:
        shown = f"{100 * diff:+.1f} points"
        if diff > max(th.worth_margin, Z95 * se):
            return (f"{name_o} helps A against {name_d}" if rule
                    else f"{name_o} beats {name_d}"), shown
        if diff < -max(th.worth_margin, Z95 * se):
            return (f"{name_o} hurts A against {name_d}" if rule
                    else f"{name_o} is worse than {name_d}"), shown
        return (f"{name_o} changes A's chances little against {name_d}" if rule
                else f"{name_o} is no better than {name_d}"), shown

    return Claim(f"what does {name_o} change against {name_d}?" if rule
                 else f"is {name_o} worth taking over {name_d}?",
                 (matchup_of({a: cell[a] for a in axes}),
                  matchup_of({a: cell_default[a] for a in axes})), _difference(ctx.sign, ctx.m),
                 describe, frozenset() if rule else _compared(ctx.axis, values))


def _variants(values: Sequence[Any]) -> tuple[str, dict[str, Any], dict[str, dict[str, Any]]
                                             ] | None:
    """Whole-side values that are presets and the same presets with one field fixed
    (``"archer"``, ``"archer,attack_policy=thrust"``, ...): the field, each preset's own
    value, and each preset's variants (the fixed value -> the axis value); ``None`` for any
    other shape (a field fixed on a preset not also played as it is, two fields, ...)."""
    from ..errors import SpecError
    from ..fields import split_spec

    bases: dict[str, Any] = {}
    variants: dict[str, dict[str, Any]] = {}
    fields = set()
    for value in values:
        if not isinstance(value, str):
            return None
        try:
            preset, fixed = split_spec(value)
        except SpecError:
            return None
        if preset is None or len(fixed) > 1:
            return None
        if not fixed:
            bases[preset] = value
            continue
        (name, choice), = fixed.items()
        fields.add(name)
        variants.setdefault(preset, {})[choice] = value
    if len(fields) != 1 or len(bases) < 2 or not variants or set(variants) - set(bases):
        return None
    return fields.pop(), bases, variants


def variants_verdict(results: pd.DataFrame, axes: Sequence[str], axis: str, *,
                     labels: Labels | None = None, exact: bool = False,
                     thresholds: Thresholds = DEFAULTS, measure: Measure = WIN,
                     paired: Paired | None = None) -> Verdict | None:
    """Whether the choice each preset makes for itself is ever beaten by a fixed choice.

    For an ``axis`` of whole-side values that are presets and the same presets with one
    field fixed (:func:`_variants`; e.g. each style as it is and always thrusting, swinging
    or blowing), every preset is compared in every cell of the other axes with each of its
    fixed variants there (by ``measure``), all the comparisons tested together under Holm's
    procedure (:data:`VARIANTS_PROCEDURE`, family-wise 5%): a preset is *behind* where it
    trails some variant by a difference Holm's procedure claims, *worse* where that
    variant's Holm-level interval also clears the thresholds' ``worth_margin``, *ahead*
    where it leads every variant by such a difference beyond the margin; else *level*.
    ``None`` when the axis has another shape.
    """
    labels = labels or Labels()
    found = _variants(list(dict.fromkeys(results[axis].tolist())))
    if found is None:
        return None
    name, bases, variants = found
    rows = _variant_comparisons(results, axes, axis, bases, variants, measure.column, exact,
                                paired)
    if not rows:
        return None
    family = Family(VARIANTS_PROCEDURE, np.array([c["diff"] for c in rows]),
                    np.array([c["se"] for c in rows]))
    verdicts = _variant_verdicts(rows, family, thresholds.worth_margin)
    text = _variants_text(verdicts, axis, axes, name, bases, variants, labels, exact,
                          thresholds)
    if not exact:
        text = text[:-1] + f" ({family.foot()})."
    return Verdict((Sentence(_capital(text), "variants",
                             float(sum(r["word"] == "worse" for r in verdicts))),),
                   thresholds=thresholds, read=_WORTH)


VARIANTS_PROCEDURE = "holm"
"""How a variants verdict controls its many comparisons: Holm's (family-wise), since its
question -- is a preset's own choice *ever* beaten? -- is answered wrongly by any one false
claim."""


def _variant_comparisons(results: pd.DataFrame, axes: Sequence[str], axis: str,
                         bases: Mapping[str, Any], variants: Mapping[str, Mapping[str, Any]],
                         col: str, exact: bool, paired: Paired | None = None
                         ) -> list[dict[str, Any]]:
    """Every comparison of a preset's own choice with one fixed variant, in every cell of
    the other axes: ``preset``, ``at`` (the cell), ``choice``, ``diff`` (own minus fixed,
    for the side the axis is on) and ``se`` (of the difference, :func:`_difference_se`)."""
    others = [a for a in axes if a != axis]
    sign = 1 if _side_of(axis) == "a" else -1
    rows: list[dict[str, Any]] = []
    for keys, part in (results.groupby(others, sort=False) if others else [((), results)]):
        keys = keys if isinstance(keys, tuple) else (keys,)
        by = part.set_index(axis)
        for preset, fixed in variants.items():
            if bases[preset] not in by.index:
                continue
            own = by.loc[bases[preset]]
            for choice, value in fixed.items():
                if value not in by.index:
                    continue
                other = by.loc[value]
                rows.append({"preset": preset, "at": dict(zip(others, keys, strict=True)),
                             "choice": choice, "diff": sign * float(own[col] - other[col]),
                             "se": _difference_se(own, other, col, exact, paired)})
    return rows


def _variant_verdicts(rows: Sequence[Mapping[str, Any]], family: Family, margin: float
                      ) -> list[dict[str, Any]]:
    """One verdict per preset and cell: ``word`` (worse, behind, ahead or level), with the
    comparison it rests on (the variant it trails most, or leads least)."""
    claimed, halves = family.claimed(), family.halves()
    groups: dict[tuple[str, str], list[int]] = {}
    for i, r in enumerate(rows):
        groups.setdefault((r["preset"], repr(sorted(r["at"].items(), key=str))), []).append(i)
    out = []
    for members in groups.values():
        worst = min(members, key=lambda i: rows[i]["diff"])
        trails = [i for i in members if claimed[i] and rows[i]["diff"] < 0]
        if any(rows[i]["diff"] + halves[i] < -margin for i in trails):
            word = "worse"
        elif trails:
            word = "behind"
        elif all(claimed[i] and rows[i]["diff"] - halves[i] > margin for i in members):
            word = "ahead"
        else:
            word = "level"
        r = rows[worst]
        out.append({**r, "word": word, "half": Z95 * r["se"]})
    return out


def _variants_text(verdicts: Sequence[Mapping[str, Any]], axis: str, axes: Sequence[str],
                   name: str, bases: Mapping[str, Any],
                   variants: Mapping[str, Mapping[str, Any]], labels: Labels, exact: bool,
                   th: Thresholds) -> str:
    """The variants sentence: how many matchups are worse, behind, ahead and level, with the
    worst of each (its 95% interval shown; the words are the family's)."""
    others = [a for a in axes if a != axis]
    field_name = labels.column(f"{_side_of(axis)}.0.{name}")
    choices = sorted({c for fixed in variants.values() for c in fixed})
    worse = sorted((r for r in verdicts if r["word"] == "worse"), key=lambda r: r["diff"])
    behind = sorted((r for r in verdicts if r["word"] == "behind"), key=lambda r: r["diff"])
    ahead = [r for r in verdicts if r["word"] == "ahead"]

    def matchup(r: Mapping[str, Any]) -> str:
        at = ", ".join(f"{labels.value(o, v)}" for o, v in r["at"].items())
        return (f"{labels.value(axis, bases[r['preset']])}" + (f" against {at}" if at else "")
                + f" {_points(r['diff'], r['half'], exact)} against {r['choice']}")

    margin = _margin_points(th.worth_margin)
    text = (f"{field_name} as each preset plays it, against the best of {_and(choices)} "
            f"fixed, in {len(verdicts):,} matchups ({len(variants)} presets"
            + (f" x {len(verdicts) // len(variants)} cells" if others else "") + "): ")
    if worse:
        text += (f"worse by more than {margin} in {len(worse):,} "
                 f"({'; '.join(matchup(r) for r in worse[:LISTED])}"
                 + (f"; {len(worse) - LISTED} more" if len(worse) > LISTED else "") + ")")
    else:
        text += f"never worse by more than {margin}"
    if behind:
        text += (f"; behind{'' if exact else ' beyond the noise'} but by less in "
                 f"{len(behind):,} (the most: {matchup(behind[0])})")
    level = len(verdicts) - len(worse) - len(behind) - len(ahead)
    return text + (f"; ahead of every fixed choice by more than {margin} in {len(ahead):,}; "
                   f"level with the best of them in {level:,}.")


def _compared(axis: str, values: Sequence[Any]) -> frozenset[tuple[str, str]]:
    """The ``(side, field)`` pairs an option axis sets: its field, or for a whole side the
    fields its values name (``"steady=1,max_attacks=1"``)."""
    from ..fields import split_spec

    parts = axis.split(".")
    if len(parts) == 3:
        return frozenset({(parts[0], parts[2])})
    names: set[str] = set()
    for value in values:
        for member in (value if isinstance(value, list | tuple) else [value]):
            if isinstance(member, str):
                try:
                    preset, fields = split_spec(member.split(" + ")[0])
                except ValueError:
                    continue
                names |= set(fields) | ({"preset"} if preset else set())
            elif isinstance(member, Mapping):
                names |= set(member)
    return frozenset((parts[0], n) for n in names)


def _rate_difference_se(first: Rate, second: Rate, col: str) -> float:
    """The standard error of ``first``'s ``col`` (``a_win`` or ``score``) minus
    ``second``'s: from their paired fights where both were simulated on the same streams
    (:func:`balance.stats.paired_se`), else in quadrature (0 when exact)."""
    if first.winners is not None and second.winners is not None \
            and len(first.winners) == len(second.winners) > 0:
        return stats.paired_se(first.winners, second.winners, col)
    if col == "score":
        return math.hypot(first.score_se, second.score_se)
    return math.hypot(first.win_se, second.win_se)


def _difference(sign: int, m: Measure = WIN) -> Callable[[Sequence[Rate]], tuple[float, float]]:
    """The claim measure "first matchup's A win rate (or score, as ``m`` reads) minus the
    second's" (times ``sign``), its error from the paired fights where both were simulated
    (:func:`_rate_difference_se`)."""

    def measure(rates: Sequence[Rate]) -> tuple[float, float]:
        se = _rate_difference_se(rates[0], rates[1], m.column)
        if m.column == "score":
            return sign * (rates[0].score - rates[1].score), se
        return sign * (rates[0].a_win - rates[1].a_win), se

    return measure


def _margin_points(margin: float) -> str:
    """A margin in percentage points: ``2 points``, ``0.5 points``."""
    return f"{100 * margin:.4g} points"


def _and(items: Sequence[str], most: int | None = None) -> str:
    """``a, b and c``; past ``most`` items, ``a, b and 7 more``."""
    items = list(items)
    if most is not None and len(items) > most:
        items = [*items[:most], f"{len(items) - most} more"]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


LISTED = 6
"""Most items a verdict sentence lists (options beaten, conditions, matchups); the rest are
counted ("and 7 more"), so a verdict stays a few lines on the report's first screen."""


def _by_points(items: Sequence[tuple[str, float]]) -> list[str]:
    """Options with their margins (fractions), the unit said once: ``["claymore by 5.0
    points", "rapier by 38.2"]``; a deficit by its size (the verb says which way)."""
    return [f"{name} by {abs(100 * d):.1f}" + (" points" if i == 0 else "")
            for i, (name, d) in enumerate(items)]


def _points(diff: float, half: float, exact: bool) -> str:
    """A change in percentage points with its 95% half-width, to the decimals it supports
    (at most two; the half-width never shown as 0)."""
    if exact:
        return f"{100 * diff:+.2f} points"
    digits = decimals_for(half, most=2)
    return f"{100 * diff:+.{digits}f} ± {max(100 * half, 10.0 ** -digits):.{digits}f} points"


def _capitalised(sentences: Sequence[Sentence]) -> list[Sentence]:
    return [dataclasses.replace(s, text=_capital(s.text)) for s in sentences]


# --- the entry point -----------------------------------------------------------------------------


def best_play_verdict(table: pd.DataFrame, *, labels: Labels | None = None,
                      column: str = "a.0.preset", margin: float | None = None,
                      resamples: int = 200, seed: int = 0, changes: Any = None,
                      thresholds: Thresholds = DEFAULTS) -> Verdict:
    """The verdict on a round robin played under best play (``table`` with entrant columns
    ``a`` and ``b``, the best-play columns of :func:`balance.analysis.round_robin` with
    ``play="best"``): :func:`round_robin_verdict` on the equilibrium's rates, saying so,
    then one sentence naming the verdicts best play changes against the policies as given
    on the same fights (:func:`balance.analysis.bestplay.verdict_changes`; its table of the
    two sets of verdicts side by side is in the report; ``changes``: that comparison, if
    already made)."""
    from .bestplay import as_given, verdict_changes

    labels = labels or Labels()
    made = _best_first(round_robin_verdict(table, labels=labels, column=column, margin=margin,
                                           resamples=resamples, thresholds=thresholds))
    if changes is None:
        changes = verdict_changes(as_given(table), table, resamples=resamples, seed=seed)
    sentence = Sentence(changes.summary(lambda e: labels.value(column, e)), "best play",
                        float(len(changes.flips)))
    return dataclasses.replace(made, sentences=(*made.sentences, sentence))


def _best_first(made: Verdict) -> Verdict:
    """The verdict with its first sentence saying the rates are best play's."""
    if not made.sentences:
        return made
    first = made.sentences[0]
    return dataclasses.replace(made, sentences=(dataclasses.replace(
        first, text="Under best play (each side's policies chosen to do its best), "
                    + first.text[:1].lower() + first.text[1:]), *made.sentences[1:]))


def verdict(results: pd.DataFrame, axes: Sequence[str], *, labels: Labels | None = None,
            exact: bool = False, margin: float | None = None, focus: str | None = None,
            matchup_of: Callable[[Mapping[str, Any]], Matchup] | None = None,
            rests_on: Sequence[str] = (), best: bool = False,
            thresholds: Thresholds = DEFAULTS, value: str | None = None,
            paired: Paired | None = None) -> Verdict:
    """The verdict on a run's results table: a round robin's (at the baseline of any other
    axes), else a grid's.  ``matchup_of(cell)`` builds the matchup of a cell (axis -> value
    as the table shows it), for the key claim; ``rests_on`` lists the readings and policies
    the results rest on; ``best``: the run played every cell under best play (the verdict
    says so, and a round robin's names what best play changes, :func:`best_play_verdict`);
    ``thresholds``: the named thresholds (``margin``, if given, overrides theirs); ``value``:
    what a grid's sentences read (:func:`choose_measure`); ``paired``: the paired errors of
    a run's cells on common streams (:func:`_difference_se`)."""
    labels = labels or Labels()
    if margin is not None:
        thresholds = dataclasses.replace(thresholds, margin=margin)
    rr = round_robin_axes(results, axes)
    newcomers = newcomer_axes(results, axes) if rr is None and not best else None
    if newcomers is not None:
        made = _newcomers_verdict(results, axes, *newcomers, labels, exact, thresholds)
        return dataclasses.replace(made, rests_on=tuple(rests_on))
    if rr is not None:
        a_ax, b_ax, others = rr
        part, held = _at_baseline(results, axes, [a_ax, b_ax], labels)
        table = part.drop(columns=[c for c in ("a", "b") if c in part and c not in (a_ax, b_ax)])
        table = table.rename(columns={a_ax: "a", b_ax: "b"})
        table = table.assign(a=table["a"].astype(str), b=table["b"].astype(str))
        fixed = {o: part[o].iloc[0] for o in others}
        of = None
        if matchup_of is not None:
            raw = {str(v): v for v in part[a_ax].tolist()}

            def of(first: str, second: str) -> Matchup:
                return matchup_of({**fixed, a_ax: raw[first], b_ax: raw[second]})

        made = (best_play_verdict(table, labels=labels, column=a_ax, thresholds=thresholds)
                if best else round_robin_verdict(table, labels=labels, column=a_ax,
                                                 matchup_of=of, thresholds=thresholds))
        sentences = made.sentences
        if held:
            first = sentences[0]
            sentences = (dataclasses.replace(first, text=f"At {_and(held)}, "
                                             f"{first.text[:1].lower()}{first.text[1:]}"),
                         *sentences[1:])
        return dataclasses.replace(made, sentences=tuple(sentences), rests_on=tuple(rests_on))
    made = grid_verdict(results, axes, labels=labels, exact=exact, focus=focus,
                        matchup_of=matchup_of, thresholds=thresholds, value=value,
                        paired=paired)
    if best:
        made = _best_first(made)
    return dataclasses.replace(made, rests_on=tuple(rests_on))


# --- what would flip it ---------------------------------------------------------------------------


SENSITIVITY_FIGHTS = 20_000
"""Fights per matchup (each seat) when the sensitivity pass simulates."""
SENSITIVITY_MIN_FIGHTS = 4_000
"""The fewest fights a matchup gets when the budget is tight (see :func:`sensitivity`)."""
SENSITIVITY_BUDGET = 2_000_000
"""Simulated fights one sensitivity pass may spend (exact solves are free); the work, not
the clock, bounds it, so the same run always gives the same verdict."""
SENSITIVITY_MAX = 150
"""Most alternatives one pass tries; the rest are listed as not tried."""


def alternatives(ruleset: Any, matchups: Sequence[Matchup],
                 compared: frozenset[tuple[str, str]] = frozenset()
                 ) -> list[tuple[str, str, Any]]:
    """The alternatives the sensitivity pass tries: ``(kind, name, value)``.

    Readings: every DEFAULT / AMBIG rule parameter the ruleset lists for these matchups
    (:meth:`~balance.rulesets.base.Ruleset.assumptions`) that has a closed set of values
    (``choices``, or a flag).  Policies: every decision in the ruleset's policy space not
    idle here, with the values it lists, for every fighter who plays the field's default (a
    preset's own choice is part of what it is) on a side whose field the claim does not
    compare (``compared``).  A rule the matchups disagree on is what the claim compares,
    so it is not varied either.  The list is ordered so that a budget reaches every
    name before any name's second alternative: AMBIG readings, DEFAULT readings, policies,
    one alternative each, then the second of each, and so on.
    """
    from ..fields import describe_fields

    infos = {f.name: f for f in describe_fields(ruleset.Rules)}
    choices = {f.name: f.metadata.get("choices") for f in dataclasses.fields(ruleset.Rules)}
    first = matchups[0]
    tags: dict[str, str] = {}
    for m in matchups:
        for item in ruleset.assumptions(m.rules, m.side_a, m.side_b):
            name, _, rest = item.partition("=")
            tags.setdefault(name, rest.rpartition("[")[2].rstrip("]"))
    groups: list[list[tuple[str, str, Any]]] = []
    for tag in ("AMBIG", "DEFAULT"):
        for name, found in tags.items():
            if found != tag or name not in infos or infos[name].policy:
                continue
            values = {_key(getattr(m.rules, name)) for m in matchups}
            if len(values) > 1:
                continue
            current = getattr(first.rules, name)
            if isinstance(current, Mapping | tuple):
                continue  # a table or list: its choices are its entries', not its own
            options = (choices.get(name) or ((False, True) if isinstance(current, bool) else ()))
            groups.append([("reading", name, v) for v in options if v != current])
    idle: set[str] = set()
    for m in matchups:
        idle |= set(ruleset.idle_policies(m.rules, m.side_a, m.side_b))
    for policy in ruleset.policy_space():
        if policy.name in idle:
            continue
        if policy.scope == "rules":
            if len({_key(getattr(m.rules, policy.name)) for m in matchups}) > 1:
                continue
            current = {_key(getattr(first.rules, policy.name))}
        else:
            current = {_key(getattr(c, policy.name))
                       for c in _varied(matchups, policy.name, compared)}
            if not current:
                continue
        groups.append([("policy", policy.name, v) for v in policy.values
                       if current != {_key(v)}])
    out: list[tuple[str, str, Any]] = []
    for depth in range(max((len(g) for g in groups), default=0)):
        out.extend(g[depth] for g in groups if depth < len(g))
    return out


def _whose(claim: Claim, name: str) -> str:
    """Which side's fighters a policy alternative replaced: "A", "B" or "" (both)."""
    varied = {id(c) for c in _varied(claim.matchups, name, claim.compared)}
    sides = {label for label, side in (("A", "side_a"), ("B", "side_b"))
             for m in claim.matchups for c in getattr(m, side) if id(c) in varied}
    return next(iter(sides)) if len(sides) == 1 else ""


def _key(value: Any) -> Any:
    from ..fields import plain

    return repr(plain(value))


def _varied(matchups: Sequence[Matchup], name: str,
            compared: frozenset[tuple[str, str]] = frozenset()) -> list[Any]:
    """The fighters whose ``name`` a policy alternative replaces: every fighter playing the
    field's default, on a side whose ``name`` the claim does not compare."""
    out = []
    for label, side in (("a", "side_a"), ("b", "side_b")):
        if (label, name) in compared:
            continue
        for m in matchups:
            for c in getattr(m, side):
                f = next((f for f in dataclasses.fields(c) if f.name == name), None)
                if f is not None and getattr(c, name) == f.default:
                    out.append(c)
    return out


def _apply(ruleset: Any, matchups: Sequence[Matchup], kind: str, name: str, value: Any,
           compared: frozenset[tuple[str, str]] = frozenset()) -> list[Matchup]:
    """The matchups under one alternative (see :func:`alternatives`)."""
    if hasattr(matchups[0].rules, name):
        return [Matchup(ruleset.rules(m.rules, **{name: value}), m.side_a, m.side_b)
                for m in matchups]
    varied = {id(c) for c in _varied(matchups, name, compared)}

    def side(members: tuple[Any, ...]) -> tuple[Any, ...]:
        return tuple(dataclasses.replace(c, **{name: value}) if id(c) in varied else c
                     for c in members)

    return [Matchup(m.rules, side(m.side_a), side(m.side_b)) for m in matchups]


def evaluate(ruleset: Any, m: Matchup, *, fights: int = SENSITIVITY_FIGHTS, seed: int = 0
             ) -> Rate:
    """A matchup's :class:`Rate`: exact where the ruleset's solver answers it, else
    ``fights`` simulated fights on fixed streams (common random numbers across calls), with
    each fight's winner kept for the paired error of a difference."""
    from ..engine import DEFAULT_CHUNK_SIZE, chunk_sizes, run_chunk_winners
    from ..errors import SpecError

    check = getattr(ruleset, "exact_check", None)
    if callable(check) and check(m.rules, m.side_a, m.side_b) is None:
        try:
            p = ruleset.exact(m.rules, m.side_a, m.side_b)
            return Rate(float(p.a_win), float(p.draw), float(p.b_win), 0)
        except SpecError:
            pass
    chunks = [run_chunk_winners(ruleset, m.rules, m.side_a, m.side_b, size=size, entropy=seed,
                                key=("sensitivity",), index=index)[1]
              for index, size in enumerate(chunk_sizes(fights, DEFAULT_CHUNK_SIZE))]
    winners = np.concatenate(chunks)  # the fights engine.run(key=("sensitivity",)) plays
    draws, a_wins, b_wins = (int(v) for v in np.bincount(winners, minlength=3))
    n = a_wins + b_wins + draws
    return Rate(a_wins / n, draws / n, b_wins / n, n, winners)


def sensitivity(made: Verdict, ruleset: Any, *, fights: int = SENSITIVITY_FIGHTS,
                seed: int = 0, budget: int = SENSITIVITY_BUDGET,
                most: int = SENSITIVITY_MAX) -> Verdict:
    """Recompute ``made``'s key claim under each alternative reading and policy
    (:func:`alternatives`); the verdict with what it rests on filled in (``base_answer``,
    ``checked``, ``flips``, ``skipped``).

    The work is bounded by ``budget`` simulated fights: when the alternatives would need
    more at ``fights`` a matchup, each matchup gets fewer (down to
    :data:`SENSITIVITY_MIN_FIGHTS`), and alternatives past the budget (or past ``most``)
    are listed as not tried.  Every evaluation uses the same streams (common random
    numbers), so differences between readings are not differences of luck; a flip must
    change the answer's words and move its number beyond the 95% interval of the
    difference (see :class:`Claim`).
    """
    from ..errors import SpecError

    claim = made.claim
    if claim is None:
        return made
    todo = alternatives(ruleset, claim.matchups, claim.compared)
    base_rates = [evaluate(ruleset, m, fights=fights, seed=seed) for m in claim.matchups]
    simulated = any(r.n for r in base_rates)
    per_alternative = len(claim.matchups)
    if simulated and todo:
        fit = budget // ((len(todo) + 1) * per_alternative)
        if fit < fights:
            fights = max(SENSITIVITY_MIN_FIGHTS, int(fit))
            base_rates = [evaluate(ruleset, m, fights=fights, seed=seed)
                          for m in claim.matchups]
    spent = fights * per_alternative if simulated else 0
    words, shown, value, se = claim.answer(base_rates)
    checked: list[str] = []
    flips: list[Flip] = []
    skipped: list[str] = []
    for kind, name, alt in todo:
        label = f"{name}={_plain(alt)}"
        if len(checked) >= most or (simulated and spent + fights * per_alternative > budget):
            skipped.append(label)
            continue
        try:
            changed = _apply(ruleset, claim.matchups, kind, name, alt, claim.compared)
            rates = [evaluate(ruleset, m, fights=fights, seed=seed) for m in changed]
        except (SpecError, ValueError, TypeError) as exc:  # not playable by these sides
            skipped.append(f"{label} ({exc})")
            continue
        spent += sum(r.n for r in rates)
        checked.append(label)
        alt_words, alt_shown, alt_value, alt_se = claim.answer(rates)
        if alt_words != words and abs(alt_value - value) > Z95 * math.hypot(se, alt_se):
            flips.append(Flip(name, alt, kind, f"{alt_words}, {alt_shown}",
                              _whose(claim, name) if kind == "policy" else ""))
    return dataclasses.replace(made, base_answer=f"{words}, {shown}", checked=tuple(checked),
                               flips=tuple(flips), skipped=tuple(skipped),
                               notes=(f"{fights:,} fights a matchup" if simulated
                                      else "each matchup solved exactly",))
