"""The ruleset contract: one base class every ruleset derives from, every hook declared.

A ruleset is a singleton object with

* ``Combatant`` and ``Rules``: frozen, keyword-only dataclasses whose fields are declared with
  :func:`balance.fields.param` (documentation, allowed values, provenance tag, policy flag);
* ``simulate`` -- the vectorised kernel, and ``fight`` -- the scalar reference with an
  optional narrated log (both required);
* ``exact`` -- an exact solver that raises :class:`~balance.errors.IntractableError` where it
  cannot answer (default: none), and ``exact_check`` -- why it cannot, without solving;
* its policy space (:meth:`Ruleset.policy_space`: the fields that are decisions, not rules)
  and the disclosure of the policies a result rests on (:meth:`Ruleset.policies`);
* presets (named combatants), scenarios (named rules + sides), end causes
  (:class:`~balance.outcomes.EndCauses`), bench cases.

Nothing here knows which ruleset it serves; :func:`balance.testing.check_ruleset` is the
contract as an executable test suite.
"""

from __future__ import annotations

import abc
import copy
import dataclasses
import types
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Literal, TypeAlias

import numpy as np

from ..errors import IntractableError, SpecError, did_you_mean
from ..fields import build, check_text, describe_fields, nondefault, plain, read_toml, split_spec
from ..outcomes import EndCauses, Outcome, Outcomes, Probabilities

if TYPE_CHECKING:
    from ..batching import Segment, SegmentedRng
    from ..language import Vocabulary

__all__ = [
    "BenchCase",
    "Log",
    "Policy",
    "Ruleset",
    "Scenario",
    "Side",
    "Witness",
]

Log: TypeAlias = Callable[[str], None]
Side: TypeAlias = tuple[Any, ...]
"""A side of a fight: a tuple of one ruleset's combatants."""
DEFAULT_COMBATANT = "default"
"""The name of the all-defaults combatant wherever a preset name is taken (``--b default``),
unless a ruleset has a preset of that name."""


@dataclass(frozen=True)
class Scenario:
    """A named matchup: rule overrides and both sides, e.g. a seed's worked example."""

    description: str
    side_a: Side
    side_b: Side
    rules: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class BenchCase:
    """One benchmark: the same rules and sides timed through ``simulate`` and ``fight``."""

    name: str
    description: str
    rules: Any
    side_a: Side
    side_b: Side


@dataclass(frozen=True)
class Witness:
    """A matchup where a field must change results, for the fields the generic search of
    :func:`balance.testing.check_every_field_matters` cannot reach (a threshold of a policy
    nobody plays in the bench cases, a rule only a map or an ambush brings into play).

    ``field`` names a combatant field or rule parameter (``"combatant.NAME"`` or
    ``"rules.NAME"`` where both classes have one of that name); ``values`` are the
    alternatives to try, set on every combatant of side ``side`` (``"a"``, ``"b"``, or
    ``"ab"`` for both) for a combatant field.  The witness holds when one of them changes
    some fight's outcome (same seed) or the exact probabilities; ``rules`` holds rule
    overrides (or a ``Rules``), the sides are combatants or specs as :meth:`Ruleset.side`
    takes them; ``why`` says what the matchup shows.
    """

    field: str
    values: tuple[Any, ...]
    side_a: Any
    side_b: Any
    rules: Any = None
    side: Literal["a", "b", "ab"] = "a"
    why: str = ""


@dataclass(frozen=True)
class Policy:
    """One decision in a ruleset's policy space.

    ``scope`` says who decides: ``"combatant"`` (each fighter, so each side can choose its
    own: best play searches these) or ``"rules"`` (one setting for everyone: disclosed, not
    searched per side).  ``values`` are the alternatives best play tries.
    """

    name: str
    scope: Literal["combatant", "rules"]
    values: tuple[Any, ...]
    default: Any
    doc: str


def _describe_policy(name: str, values_a: Sequence[Any], values_b: Sequence[Any]) -> str:
    """``"name=value"`` when everyone plays the same, else ``"name: A=..., B=..."``."""
    everyone = [plain(v) for v in (*values_a, *values_b)]
    if all(v == everyone[0] for v in everyone):
        return f"{name}={everyone[0]}"

    def side(values: Sequence[Any]) -> str:
        shown = [str(plain(v)) for v in values]
        return shown[0] if len(set(shown)) == 1 else "[" + ", ".join(shown) + "]"

    return f"{name}: A={side(values_a)}, B={side(values_b)}"


_READINGS: dict[int, tuple[Any, tuple[str, ...]]] = {}
""":func:`_readings` by the identity of the rules object (kept, so its id stays its own): a
sweep asks it of every cell, most of which share one rules object."""


def _readings(rules: Any) -> tuple[str, ...]:
    """The DEFAULT and AMBIG readings of ``rules`` (a frozen dataclass, so made once)."""
    seen = _READINGS.get(id(rules))
    if seen is not None and seen[0] is rules:
        return seen[1]
    out = tuple(f"{info.name}={plain(getattr(rules, info.name))!r} [{info.tag}]"
                for info in describe_fields(type(rules))
                if info.tag in ("DEFAULT", "AMBIG") and not info.policy)
    if len(_READINGS) >= 256:
        _READINGS.clear()
    _READINGS[id(rules)] = (rules, out)
    return out


class Ruleset(abc.ABC):
    """The contract every ruleset implements (see ``DESIGN.md``, "The ruleset contract").

    Subclasses set the class attributes and implement :meth:`simulate` and :meth:`fight`;
    every other hook has a default.  Sides are tuples of combatants; fights are A against B.
    """

    # identity and content ------------------------------------------------------------------
    name: ClassVar[str]
    """Registry key, e.g. ``"crt"``."""
    title: ClassVar[str]
    seed_document: ClassVar[str] = ""
    digest: ClassVar[str] = ""
    Combatant: ClassVar[type]
    """Frozen keyword-only dataclass of one fighter's fields (declared with ``param``)."""
    Rules: ClassVar[type]
    """Frozen keyword-only dataclass of every rule parameter (declared with ``param``)."""
    causes: ClassVar[EndCauses]
    """How a fight can end; kernels return codes into it."""
    presets: ClassVar[Mapping[str, Any]] = types.MappingProxyType({})
    preset_titles: ClassVar[Mapping[str, str]] = types.MappingProxyType({})
    """Optional display titles of presets for tables and figures (default: the name)."""
    scenarios: ClassVar[Mapping[str, Scenario]] = types.MappingProxyType({})
    max_side: ClassVar[int] = 1
    """Largest side the kernel supports."""
    has_strategy: ClassVar[bool] = False
    """Whether ``exact`` solves a game and fills ``Probabilities.strategy`` (``balance exact
    --strategy``; its fight lengths are those of the strategy picked, reports say so)."""
    scenario_keys: ClassVar[tuple[str, ...]] = ()
    """Top-level keys a ruleset's scenario files may hold beyond the generic ones."""

    # the three ways to answer ---------------------------------------------------------------
    @abc.abstractmethod
    def simulate(self, rules: Any, side_a: Side, side_b: Side, /, *, n: int,
                 rng: np.random.Generator) -> Outcomes:
        """The vectorised kernel: ``n`` fights along axis 0, every draw from ``rng``."""

    def simulate_segments(self, segments: Sequence[Segment], rng: SegmentedRng, /
                          ) -> list[Outcomes]:
        """The kernel over many matchups at once: one :class:`~balance.outcomes.Outcomes`
        per segment, segment ``i``'s fights drawn from ``rng``'s segment ``i`` only
        (:mod:`balance.batching` states the contract).  Default: each segment alone through
        :meth:`simulate` on its own stream, the numbers it had before batching existed; a
        kernel that batches overrides this (and routes :meth:`simulate` through it, so alone
        and batched are one code path)."""
        return [self.simulate(s.rules, s.side_a, s.side_b, n=s.n, rng=g)
                for s, g in zip(segments, rng.generators, strict=True)]

    def batch_key(self, segment: Segment, /) -> Hashable:
        """Segments with equal keys may share one :meth:`simulate_segments` call (default:
        their side sizes)."""
        return (len(segment.side_a), len(segment.side_b))

    @abc.abstractmethod
    def fight(self, rules: Any, side_a: Side, side_b: Side, /, *, rng: np.random.Generator,
              log: Log | None = None) -> Outcome:
        """The scalar reference: one fight, every roll narrated to ``log``."""

    def exact(self, rules: Any, side_a: Side, side_b: Side, /) -> Probabilities:
        """The exact answer, or raise :class:`~balance.errors.IntractableError` (default:
        this ruleset has no exact solver)."""
        raise self.exact_unavailable("it has no exact solver")

    def exact_check(self, rules: Any, side_a: Side, side_b: Side, /) -> str | None:
        """Why :meth:`exact` cannot answer this matchup, or ``None`` -- cheaply, without
        solving (exact sweeps ask it of every cell before running any)."""
        if type(self).exact is Ruleset.exact:
            return self.exact_unavailable("it has no exact solver").reason
        return None

    def career(self, rules: Any, fighter: Any, foes: Side, /, **options: Any) -> Any:
        """A fighter's career against ``foes``, fresh each fight, where the ruleset's
        fighters grow by surviving (crt's combats survived): a table fight by fight (see
        :func:`balance.rulesets.crt.campaign.career`), its sentence by
        :meth:`career_sentence`.  Raises :class:`~balance.errors.SpecError` (default)
        where fighters do not grow."""
        raise SpecError(f"only a ruleset whose fighters grow by surviving follows careers "
                        f"(crt); {self.name} does not")

    def career_sentence(self, table: Any, fighter: str, foes: str) -> str:
        """The career of :meth:`career` in a sentence, every number from ``table``."""
        raise SpecError(f"{self.name} follows no careers")

    exact_profiles_skip: tuple[str, ...] = ()
    """Policies the exact game of whole profiles (best play's fallback where
    :meth:`exact_best_play` does not reach) leaves as given unless a search names them:
    those the ruleset's own state-by-state solver chooses turn by turn, whose every profile
    would be one more exact solve each (pool's ``turn_policy``).  Monte Carlo best play
    still searches them; the answer lists what was searched."""

    def exact_best_play(self, rules: Any, side_a: Side, side_b: Side, /, *,
                        draw_worth: float = 0.5) -> Probabilities:
        """The exact answer under best play: each side's decisions chosen, state by state,
        to maximise its expected score (win + ``draw_worth`` x draw) against the other's
        -- a zero-sum stochastic game solved exactly.  ``details["value"]`` is A's game
        value, ``strategy`` a table of each side's equilibrium decisions in the game's
        words.  Raises :class:`~balance.errors.IntractableError` where no solver reaches
        (default); best play then falls back to Monte Carlo over :meth:`policy_space`."""
        raise self.exact_unavailable("it has no exact best-play solver")

    # per-matchup setup, made once a run ----------------------------------------------------
    def setup(self, rules: Any, side_a: Side, side_b: Side, /) -> Any:
        """What :meth:`simulate` computes once per matchup before its fights, made here so
        that a run's parent can hand it to its worker processes (:meth:`adopt`) instead of
        each worker making it again; ``None`` (default): nothing worth handing over.  It
        must pickle, and adopting it must not change a single draw or count."""
        return None

    def adopt(self, setup: Any, /) -> None:
        """Take a :meth:`setup` made in another process (default: nothing to take)."""
        return None

    def __repr__(self) -> str:
        return f"<ruleset {self.name!r}: {self.title}>"

    # building -----------------------------------------------------------------------------
    def combatant(self, spec: Any = None, /, **fields: Any) -> Any:
        """A combatant from a preset name, a ``"preset,name=value"`` spec, a mapping of
        fields, or an existing combatant, with ``fields`` replaced."""
        if isinstance(spec, self.Combatant):
            return build(self.Combatant, fields, base=spec)
        if isinstance(spec, Mapping):
            spec = dict(spec)
            preset = spec.pop("preset", None)
            return build(self.Combatant, {**spec, **fields}, base=self.preset(preset))
        if spec is None:
            return build(self.Combatant, fields)
        if not isinstance(spec, str):
            raise SpecError(f"a {self.name} combatant is a preset name, a 'name=value,...' "
                            f"spec or a mapping, got {type(spec).__name__}")
        preset, values = split_spec(spec)
        return build(self.Combatant, {**values, **fields}, base=self.preset(preset))

    def preset(self, name: str | None) -> Any:
        """The named preset combatant (``None``, or ``"default"`` where no preset has that
        name: the all-defaults combatant)."""
        if name is None or (name == DEFAULT_COMBATANT and name not in self.presets):
            return None
        try:
            return self.presets[name]
        except KeyError:
            raise SpecError(f"unknown {self.name} preset {name!r}"
                            f"{did_you_mean(name, [*self.presets, DEFAULT_COMBATANT])}; presets: "
                            + ", ".join(self.presets)
                            + f" (or {DEFAULT_COMBATANT!r}: every field at its default)"
                            ) from None

    def with_presets(self, presets: Mapping[str, Any], *, where: str = "presets") -> Ruleset:
        """A copy of this ruleset whose presets also hold ``presets``: name -> a combatant,
        a ``"preset,field=value"`` spec or a mapping of fields (which may name a ``preset``
        to start from, one of these included if defined earlier).  A preset's ``name``
        field defaults to its key.  The ruleset itself is not changed."""
        if not isinstance(presets, Mapping):
            raise SpecError(f"{where} must be a table of name = combatant, got "
                            f"{type(presets).__name__}")
        clone = copy.copy(self)
        made = dict(self.presets)
        has_name = "name" in {f.name for f in dataclasses.fields(self.Combatant)}
        for key, spec in presets.items():
            if not isinstance(key, str) or not key.strip() or any(c in key for c in ",=:"):
                raise SpecError(f"{where}: a preset name is a non-empty word without ',', "
                                f"'=' or ':', got {key!r}")
            check_text(key, f"{where}: the preset name")
            vars(clone)["presets"] = types.MappingProxyType(made)  # this copy only
            if has_name and isinstance(spec, Mapping) and "name" not in spec:
                spec = {**spec, "name": key}
            try:
                made[key] = clone.combatant(spec)
            except SpecError as exc:
                raise SpecError(exc.reason, where=f"{where}.{key}") from None
        vars(clone)["presets"] = types.MappingProxyType(made)
        return clone

    def load_presets(self, path: Any) -> Ruleset:
        """:meth:`with_presets` from a TOML file of ``[presets.NAME]`` tables (or of
        ``[NAME]`` tables at the top level)::

            [presets.duelist2]
            preset = "duelist"      # optional: start from a preset
            agility = 12
        """
        data = read_toml(path)
        table = data["presets"] if set(data) == {"presets"} else data
        return self.with_presets(table, where=f"{path}: presets")

    def side(self, members: Any) -> Side:
        """A side from one combatant spec or a sequence of them."""
        if isinstance(members, (str, Mapping, self.Combatant)):
            members = [members]
        side = tuple(self.combatant(m) for m in members)
        if not side:
            raise SpecError("a side needs at least one combatant")
        return side

    def rules(self, overrides: Any = None, /, **fields: Any) -> Any:
        """The rules with the given parameters replaced (strings are parsed)."""
        if isinstance(overrides, self.Rules):
            return build(self.Rules, fields, base=overrides)
        return build(self.Rules, {**(overrides or {}), **fields})

    def scenario(self, name: str) -> Scenario:
        try:
            return self.scenarios[name]
        except KeyError:
            raise SpecError(f"unknown {self.name} scenario {name!r}"
                            f"{did_you_mean(name, self.scenarios)}; scenarios: "
                            + (", ".join(self.scenarios) or "none")) from None

    def load_scenario(self, path: Any) -> Scenario:
        """Read a scenario from a TOML file::

            description = "..."
            [rules]            # rule overrides
            map = [0, -2, -4]
            [[a]]              # one table per combatant of side A
            preset = "watchman"
            strength = 9
            [[b]]
            ...

        Rulesets may allow more top-level keys (``scenario_keys``) and fold them into the
        rules (``scenario_rules``).
        """
        from pathlib import Path

        path = Path(path)
        data = read_toml(path, "scenario file")
        allowed = ("description", "rules", "a", "b", *self.scenario_keys)
        unknown = set(data) - set(allowed)
        if unknown:
            raise SpecError(f"{path}: unknown key(s) {', '.join(sorted(unknown))}; allowed: "
                            + ", ".join(allowed))
        sides = []
        for label in ("a", "b"):
            members = data.get(label)
            if not isinstance(members, list) or not members:
                raise SpecError(f"{path}: [[{label}]] must list at least one combatant")
            try:
                sides.append(self.side(members))
            except SpecError as exc:
                raise SpecError(exc.reason, where=f"{path}: {label}") from None
        rules = data.get("rules", {})
        if not isinstance(rules, dict):
            raise SpecError(f"{path}: [rules] must be a table of rule overrides")
        try:
            rules = self.scenario_rules(data, dict(rules))
            self.check_sides(self.rules(rules), sides[0], sides[1])  # validate now
        except SpecError as exc:  # the file, then the error's own key path if it has one
            raise SpecError(exc.reason, where=f"{path}: {exc.where}" if exc.where
                            else str(path)) from None
        description = data.get("description", path.stem)
        if not isinstance(description, str):
            raise SpecError(f"{path}: description must be a string")
        check_text(description, f"{path}: description", lines=True)
        return Scenario(description, sides[0], sides[1], rules)

    def scenario_rules(self, data: Mapping[str, Any], rules: dict[str, Any]) -> dict[str, Any]:
        """The rule overrides of a scenario file (hook: fold ruleset-specific keys in)."""
        return rules

    # checks ------------------------------------------------------------------------------
    def check_sides(self, rules: Any, side_a: Side, side_b: Side) -> None:
        """Raise :class:`SpecError` if the kernel cannot run these sides under these rules."""
        for label, side in (("a", side_a), ("b", side_b)):
            if not 1 <= len(side) <= self.max_side:
                raise SpecError(f"side {label} has {len(side)} combatants; {self.name} allows "
                                f"1..{self.max_side}")
            for c in side:
                if not isinstance(c, self.Combatant):
                    raise SpecError(f"side {label} holds a {type(c).__name__}, not a "
                                    f"{self.name} combatant")

    def field_range(self, rules: Any, name: str) -> tuple[float, float] | None:
        """The range the rules allow a combatant field ``name``, where they narrow the
        field's declared ``low..high`` (pool's ``stat_ranges``), else ``None`` (default:
        the declaration is the range).  ``tune`` searches inside it."""
        return None

    def assumptions(self, rules: Any, side_a: Side, side_b: Side) -> tuple[str, ...]:
        """The DEFAULT and AMBIG readings in force, as ``"name=value [TAG]"``.

        Rulesets may narrow this to the parameters that matter for the given matchup.
        Policy parameters are not readings: :meth:`policies` discloses them.
        """
        return _readings(rules)

    @staticmethod
    def row_items(place: str, rows: Any) -> tuple[str, ...]:
        """The written modifier / effect ``rows`` (an object with ``modifiers`` and
        ``effects``) of content row ``place`` in force, one :func:`~balance.outcomes.row_item`
        each, for :meth:`assumptions` to list beside the readings (a result rests on them)."""
        from ..outcomes import row_item

        return tuple(row_item(place, r) for r in (*rows.modifiers, *rows.effects))

    def exact_unavailable(self, why: str) -> IntractableError:
        return IntractableError(f"{self.name} has no exact solution here: {why}")

    # showing -------------------------------------------------------------------------------
    def describe(self) -> dict[str, Any]:
        """Everything ``balance show`` prints, JSON-ready."""
        return {
            "name": self.name,
            "title": self.title,
            "seed": self.seed_document,
            "digest": self.digest,
            "max_side": self.max_side,
            "end_causes": list(self.causes),
            "combatant_fields": [dataclasses.asdict(i) for i in describe_fields(self.Combatant)],
            "rule_parameters": [dataclasses.asdict(i) for i in describe_fields(self.Rules)],
            "policies": [dataclasses.asdict(p) for p in self.policy_space()],
            "presets": {name: nondefault(c) for name, c in self.presets.items()},
            "scenarios": {name: s.description for name, s in self.scenarios.items()},
        } | self._describe_language()

    # the rules language --------------------------------------------------------------------
    def vocabulary(self) -> Vocabulary | None:
        """What conditions, amounts, modifiers and effects written for this ruleset may name
        (:class:`balance.language.Vocabulary`: the names with their types and ranges, the
        modifier targets, outcomes, conditions, resources and states), or ``None`` (default)
        if it takes no rows in the rules language."""
        return None

    def _describe_language(self) -> dict[str, Any]:
        vocabulary = self.vocabulary()
        return {} if vocabulary is None else {"language": vocabulary.describe()}

    # policies ------------------------------------------------------------------------------
    def policy_space(self) -> tuple[Policy, ...]:
        """The decisions of this ruleset: every field declared ``param(..., policy=True)``,
        combatant fields first.  Best play searches the combatant ones per side."""
        out = []
        for scope, cls in (("combatant", self.Combatant), ("rules", self.Rules)):
            for info in describe_fields(cls):
                if info.policy:
                    out.append(Policy(info.name, scope, tuple(info.search or ()),  # type: ignore[arg-type]
                                      info.default, info.doc))
        return tuple(out)

    def policies(self, rules: Any, side_a: Side, side_b: Side) -> tuple[str, ...]:
        """The policies a result on this matchup rests on, ``"name=value"`` (everyone the
        same) or ``"name: A=..., B=..."``.  Rulesets narrow it to those that can matter
        here by overriding :meth:`idle_policies`."""
        out = []
        idle = self.idle_policies(rules, side_a, side_b)
        for policy in self.policy_space():
            if policy.name in idle:
                continue
            if policy.scope == "rules":
                out.append(_describe_policy(policy.name, [getattr(rules, policy.name)], []))
            else:
                out.append(_describe_policy(policy.name,
                                            [getattr(c, policy.name) for c in side_a],
                                            [getattr(c, policy.name) for c in side_b]))
        return tuple(out)

    def idle_policies(self, rules: Any, side_a: Side, side_b: Side) -> set[str]:
        """The policies that cannot change this matchup (a threshold of a policy nobody
        plays, a target choice in a duel): left out of :meth:`policies`."""
        return set()

    # what every field changes --------------------------------------------------------------
    def field_witnesses(self) -> Sequence[Witness]:
        """Matchups where a field must change results and that the bench cases and scenarios
        do not reach, for :func:`balance.testing.check_every_field_matters` (default: none).
        Each witness is itself checked: one that changes nothing fails the check."""
        return ()

    def inert_fields(self) -> Mapping[str, str]:
        """Fields that never change a fight's outcome, each with the reason (a display
        ``name``, a field only the narration reads; ``"bug: ..."`` for a field that should
        matter and does not, until it is fixed).  Keys as in :class:`Witness`.  The check
        also tries them and fails if one does change results (default: none)."""
        return {}

    # benchmarks ----------------------------------------------------------------------------
    def bench_cases(self) -> Sequence[BenchCase]:
        """Matchups ``balance bench`` times through both :meth:`simulate` and :meth:`fight`."""
        return ()

    def bench_extra_cases(self) -> tuple[str, ...]:
        """Names of the other rows :meth:`bench_extra` can time (exact solvers, ...)."""
        return ()

    def bench_extra(self, cases: Sequence[str] | None = None) -> list[dict[str, Any]]:
        """Timings beyond kernel against reference: rows with ``ruleset``, ``case``,
        ``description`` and a ``summary`` line (``cases``: only these names)."""
        return []
