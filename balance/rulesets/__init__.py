"""The registry: ruleset name -> ruleset object, built by explicit import.

Nothing is discovered by crawling packages; adding a ruleset means adding a line here.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from .base import Ruleset, RulesetBase
from .crt import CRT
from .pool import Pool
from .strike_rank import StrikeRank
from .zones import Zones

__all__ = ["RULESETS", "Ruleset", "RulesetBase"]

RULESETS: Mapping[str, RulesetBase] = MappingProxyType({
    CRT.name: CRT(),
    Pool.name: Pool(),
    StrikeRank.name: StrikeRank(),
    Zones.name: Zones(),
})
