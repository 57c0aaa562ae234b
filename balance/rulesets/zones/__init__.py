"""The ``zones`` ruleset: seed 002, abstract zones on a [DEFAULT] 3d6-ladder core.

Thin: the registry object delegating to ``kernel`` (vectorised), ``reference`` (scalar,
narrated) and ``exact`` (the one-zone melee duel as a Markov chain).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ...errors import SpecError, did_you_mean
from ...fields import read_toml
from ...outcomes import EndCauses, Outcome, Outcomes, Probabilities
from ..base import BenchCase, Log, Ruleset, Scenario, Side, Witness
from . import exact as _exact
from . import kernel as _kernel
from . import reference as _reference
from .maps import compile_map, map_table
from .presets import PRESETS, SCENARIOS
from .reference import CAUSES
from .rules import Combatant, Rules

if TYPE_CHECKING:
    from ...language import Vocabulary

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
        merged = {**(overrides or {}), **fields}  # weapons.NAME.COLUMN: balance.rowkeys
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

    # the rules language ---------------------------------------------------------------------
    def vocabulary(self) -> Vocabulary:
        """What weapon rows may name (``weapons.py``): the built-in weapons' names; a rules
        value with new weapon rows adds its own (``Rules.vocabulary``)."""
        from .weapons import vocabulary

        return vocabulary()

    # checks -------------------------------------------------------------------------------
    def check_sides(self, rules: Any, side_a: Side, side_b: Side) -> None:
        super().check_sides(rules, side_a, side_b)
        cmap = compile_map(rules.battlefield)
        zones = cmap.zone_names
        for label, side in (("a", side_a), ("b", side_b)):
            names = [c.name for c in side]
            for k, c in enumerate(side):
                where = f"side {label} combatant {k} ({c.name})"
                for column, kind, extra in (("weapon", "melee", ()), ("ranged", "ranged",
                                                                      ("none",))):
                    known = (*extra, *rules.weapon_names(kind))
                    if getattr(c, column) not in known:
                        raise SpecError(f"{where}: {column} {getattr(c, column)!r} is not a "
                                        f"{kind} weapon of these rules"
                                        f"{did_you_mean(getattr(c, column), known)}; {kind} "
                                        "weapons: " + ", ".join(known))
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

    def assumptions(self, rules: Any, side_a: Side, side_b: Side) -> tuple[str, ...]:
        """The readings in force, without the weapon rows: content a designer writes (or
        none), not a reading of the seed (their own readings are in docs/zones.md); then
        the modifier and effect rows of the weapons anyone here carries."""
        in_use = dict.fromkeys(w for c in (*side_a, *side_b) for w in (c.weapon, c.ranged)
                               if w != "none")
        rows = tuple(item for w in in_use
                     for item in self.row_items(f"weapons.{w}", rules.weapon_row(w)))
        return tuple(a for a in super().assumptions(rules, side_a, side_b)
                     if not a.startswith("weapons=")) + rows

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

    # what every field changes (balance.testing.check_every_field_matters) ----------------
    def field_witnesses(self) -> Sequence[Witness]:
        line = {"battlefield": "line", "initial_gap": "short"}
        hill = {"battlefield": "hill", "initial_gap": "short"}
        contact = {"initial_gap": "contact"}
        archer = {"name": "archer", "agility": 3, "ranged": "long_bow", "policy": "hold"}
        bomber = ({"name": "bomber", "ranged": "blast", "agility": 3, "policy": "hold"},
                  "default")
        prize = {"name": "prize", "zone": "west", "priority": 9, "policy": "hold"}

        def holders(k: int) -> tuple[dict[str, Any], ...]:
            return tuple({"name": f"holder {i}", "zone": "centre", "policy": "hold",
                          "max_attacks": 1} for i in range(k))

        runners = tuple({"name": f"raider {i}", "target": "priority", "disengage": False}
                        for i in range(3))
        saves = {**contact, "death_saves": True}
        return (
            Witness("guard", ("",), ({"name": "g", "policy": "guard", "guard": "w",
                                      "zone": "west"}, {"name": "w", "zone": "centre",
                                                        "policy": "hold"}),
                    "default", line, why="g guards w, whom the foe reaches first"),
            Witness("defends", (1,), (*holders(1), prize), runners, line,
                    why="raiders run past a holder to the prize (free Strikes, 002.3)"),
            Witness("advance_fire", (True,), {"ranged": "short_bow", "agility": 3},
                    "default", {"initial_gap": "long"},
                    why="an archer advancing from a long band out"),
            Witness("area_allies", ("accept",), bomber, ("default", "default"), line,
                    why="a bomber whose ally is in the fray"),
            Witness("area_friendly_fire", (False,), bomber, ("default", "default"), line,
                    why="a bomber whose ally is in the fray"),
            Witness("large_hp_factor", (1, 4), {"large": True, "might": 3},
                    ("default",) * 3, contact, why="a Large fighter"),
            Witness("steady_bonus", (0, 3), {"steady": 2}, "default", contact,
                    why="side A steadies twice"),
            Witness("steady_max", (0, 1), {"steady": 2}, "default", contact,
                    why="side A steadies twice"),
            Witness("higher_ground_bonus", (0, 3), archer, "default", hill,
                    why="an archer on the hilltop"),
            Witness("higher_ground", ("any_from_commanding",), {"policy": "hold"},
                    "default", hill, why="side A holds the hilltop"),
            Witness("cover_penalty", (0, -3), archer, {"zone": "copse", "policy": "hold"},
                    hill, why="shots into the copse"),
            Witness("cover_same_zone", (True,), {**archer, "zone": "copse",
                                                 "melee_first": False},
                    {"zone": "copse", "policy": "hold"}, hill, why="shots inside the copse"),
            Witness("slowed_factor", (1, 4), {"slowed": True}, "default",
                    {"initial_gap": "long"}, why="side A is Slowed"),
            Witness("hazard_cost", (0, 3), archer, "default", hill,
                    why="side B crosses the caltrops"),
            Witness("hazard_is_move", (False,), archer,
                    {"ranged": "short_bow", "agility": 2, "policy": "skirmish",
                     "long_shots": False}, hill,
                    why="side B stops in the caltrops to shoot, under fire"),
            Witness("entangle_save", (3, 30), {"entangled": True},
                    {"ranged": "short_bow", "agility": 3, "policy": "hold"},
                    {"initial_gap": "long"}, why="side A starts Entangled"),
            Witness("hold_strikes", ("per_leave",), (*holders(2), prize), runners[:2], line,
                    why="raiders run past two holders"),
            Witness("free_strike_map", (True,), (*holders(1), prize), runners, line,
                    why="raiders run past a holder"),
            Witness("free_strike_frontage", (True,), (*holders(3), prize), runners[:2],
                    line, why="raiders run past three holders"),
            Witness("death_save_target", (3, 18), "default", "default", saves,
                    why="death saves on"),
            Witness("weapons", ({"one_handed": {"modifiers": "+2 to attack"}},), "default",
                    "default", contact, why="a weapon row's modifier in a contact duel"),
            Witness("death_save_count", (1, 9), "default", "default", saves,
                    why="death saves on"),
        )

    def inert_fields(self) -> dict[str, str]:
        return {
            "combatant.name": "display name: only the narration, the tables and guard "
                              "(naming an ally) read it",
            "stress": "not modelled (002.8): false is the only value allowed",
        }

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
