"""The ``zones`` ruleset: seed 002, abstract zones on a [DEFAULT] 3d6-ladder core.

Thin: the registry object delegating to ``kernel`` (vectorised), ``reference`` (scalar,
narrated) and ``exact`` (the one-zone melee duel as a Markov chain).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from ...errors import SpecError
from ...fields import read_toml
from ...outcomes import EndCauses, Outcome, Outcomes, Probabilities
from ..base import BenchCase, Log, Ruleset, Scenario, Side
from . import exact as _exact
from . import kernel as _kernel
from . import reference as _reference
from .maps import compile_map, map_table
from .presets import PRESETS, SCENARIOS
from .reference import CAUSES
from .rules import Combatant, Rules

__all__ = ["Zones"]


def _battlefield(value: Any) -> Any:
    """A battlefield given as text: a preset name, or a TOML file holding a map."""
    if not isinstance(value, str):
        return value
    if value.strip().endswith(".toml"):
        return map_table(read_toml(Path(value.strip())).get("battlefield", {}))
    return map_table(value)


class Zones(Ruleset):
    name: ClassVar[str] = "zones"
    title: ClassVar[str] = ("Abstract zones: 3d6 ladder, three actions, MAP, band gap, "
                            "frontage, held ground")
    seed_document: ClassVar[str] = "002_bbd15667f905a486.txt"
    digest: ClassVar[str] = "002-zones.md"
    Combatant: ClassVar[type] = Combatant
    Rules: ClassVar[type] = Rules
    causes: ClassVar[EndCauses] = CAUSES
    presets: ClassVar[Mapping[str, Any]] = PRESETS
    scenarios: ClassVar[Mapping[str, Scenario]] = SCENARIOS
    max_side: ClassVar[int] = 6

    # building -----------------------------------------------------------------------------
    def rules(self, overrides: Mapping[str, Any] | None = None, /, **fields: Any) -> Any:
        """The rules with parameters replaced; ``battlefield`` may be a preset name or a
        ``.toml`` file with a ``[battlefield]`` table."""
        if isinstance(overrides, self.Rules):
            fixed = {k: _battlefield(v) if k == "battlefield" else v for k, v in fields.items()}
            return super().rules(overrides, **fixed)
        merged = {**(overrides or {}), **fields}
        if "battlefield" in merged:
            merged["battlefield"] = _battlefield(merged["battlefield"])
        return super().rules(merged)

    scenario_keys: ClassVar[tuple[str, ...]] = ("battlefield",)

    def scenario_rules(self, data: Mapping[str, Any], rules: dict[str, Any]) -> dict[str, Any]:
        """Scenario files may give a custom zone map as a ``[battlefield]`` table::

            [battlefield]
            name = "ford"
            zones = [{name = "bank"}, {name = "ford", hazard = true, chokepoint = 2},
                     {name = "far bank", cover = true}]
            adjacent = [["bank", "ford"], ["ford", "far bank"]]
            front_a = "bank"
            front_b = "far bank"
        """
        battlefield = data.get("battlefield")
        if battlefield is not None:
            if "battlefield" in rules:
                raise SpecError("give the map either as [battlefield] or as "
                                "rules.battlefield, not both")
            rules["battlefield"] = map_table(battlefield)
        elif "battlefield" in rules:
            rules["battlefield"] = _battlefield(rules["battlefield"])
        return rules

    # checks -------------------------------------------------------------------------------
    def check_sides(self, rules: Any, side_a: Side, side_b: Side) -> None:
        super().check_sides(rules, side_a, side_b)
        cmap = compile_map(rules.battlefield)
        zones = cmap.zone_names
        for label, side in (("a", side_a), ("b", side_b)):
            names = [c.name for c in side]
            for k, c in enumerate(side):
                where = f"side {label} combatant {k} ({c.name})"
                if c.zone and c.zone not in zones:
                    raise SpecError(f"{where}: zone {c.zone!r} is not on the battlefield "
                                    f"{rules.battlefield['name']!r}; zones: " + ", ".join(zones))
                if c.zone and compile_map(rules.battlefield).table["zones"][
                        zones.index(c.zone)]["impassable"]:
                    raise SpecError(f"{where}: zone {c.zone!r} is impassable; nobody can "
                                    "stand there")
                if c.zone and c.gap:
                    raise SpecError(f"{where}: give a zone (in the fray) or gap > 0 (on the "
                                    "open ground), not both")
                if c.policy == "guard" and c.guard and (c.guard not in names
                                                        or c.guard == c.name):
                    raise SpecError(f"{where}: guard names {c.guard!r}, not an ally; allies: "
                                    + ", ".join(n for n in names if n != c.name))

    def idle_policies(self, rules: Any, side_a: Side, side_b: Side) -> set[str]:
        everyone = (*side_a, *side_b)
        idle = set()
        if len(side_a) == len(side_b) == 1:
            idle |= {"target"}
        if all(c.ranged == "none" for c in everyone):
            idle |= {"long_shots", "melee_first", "keep_distance"}
        return idle

    # the contract -------------------------------------------------------------------------
    def simulate(self, rules: Any, side_a: Side, side_b: Side, /, *, n: int,
                 rng: np.random.Generator) -> Outcomes:
        return _kernel.simulate(rules, side_a, side_b, n=n, rng=rng)

    def fight(self, rules: Any, side_a: Side, side_b: Side, /, *, rng: np.random.Generator,
              log: Log | None = None) -> Outcome:
        return _reference.fight(rules, side_a, side_b, rng=rng, log=log)

    def exact(self, rules: Any, side_a: Side, side_b: Side, /) -> Probabilities:
        why = _exact.unsupported(rules, side_a, side_b)
        if why:
            raise self.exact_unavailable(why)
        return _exact.solve(rules, side_a, side_b)

    def exact_best_play(self, rules: Any, side_a: Side, side_b: Side, /, *,
                        draw_worth: float = 0.5) -> Probabilities:
        """Best play of the one-zone contact duel: each activation's plan (Strikes,
        Shoots, Steady, Reload, Defend, Wait, with the MAP) chosen per state by its side, a
        zero-sum stochastic game solved exactly (:func:`.exact.best_play`)."""
        self.check_sides(rules, side_a, side_b)
        why = _exact.best_play_unsupported(rules, side_a, side_b)
        if why:
            raise self.exact_unavailable(why)
        answer = _exact.best_play(rules, side_a, side_b, draw_worth=draw_worth)
        return dataclasses.replace(answer,
                                   assumptions=self.assumptions(rules, side_a, side_b))

    def exact_check(self, rules: Any, side_a: Side, side_b: Side, /) -> str | None:
        """Why ``exact`` cannot answer this matchup, or ``None`` (no solving; the sweep
        runner asks it of every cell of an exact sweep)."""
        why = _exact.unsupported(rules, side_a, side_b)
        return self.exact_unavailable(why).reason if why else None

    def bench_cases(self) -> Sequence[BenchCase]:
        duel = Rules(initial_gap="contact")
        fighter = Combatant(name="fighter")
        sk = SCENARIOS["skirmish"]
        return (
            BenchCase("melee duel", "1v1 in one zone from contact, default fighters",
                      duel, (fighter,), (fighter,)),
            BenchCase("4v4 skirmish", sk.description, self.rules(sk.rules), sk.side_a,
                      sk.side_b),
        )

    def bench_extra_cases(self) -> tuple[str, ...]:
        return ("exact best play duel",)

    def bench_extra(self, cases: Sequence[str] | None = None) -> list[dict[str, Any]]:
        """The exact best play of the default contact duel (issue 11: under 1 s)."""
        if cases is not None and "exact best play duel" not in cases:
            return []
        import pandas  # noqa: F401  (loaded once a process for the table, not per solve)

        rules, fighter = Rules(initial_gap="contact"), Combatant(name="fighter")
        start = time.perf_counter()
        result = self.exact_best_play(rules, (fighter,), (fighter,))
        elapsed = time.perf_counter() - start
        return [{"ruleset": self.name, "case": "exact best play duel",
                 "description": "best play (plan per state, both sides) of the default "
                                "contact duel, solved exactly",
                 "exact_s": elapsed, "states": result.details["states"],
                 "summary": f"exact best play {elapsed:.2f} s; {result.details['states']:,} "
                            f"states; value {result.details['value']:.4f}"}]
