"""Many strike-rank matchups in one kernel call (balance.batching): each pair's fights end
exactly as they do alone, whatever it is batched with."""

from __future__ import annotations

import dataclasses
import hashlib

import numpy as np
import pytest

from balance.batching import Segment, SegmentedRng
from balance.engine import run_segments
from balance.rulesets.strike_rank import StrikeRank
from balance.rulesets.strike_rank import kernel as K
from balance.rulesets.strike_rank.presets import STYLE_PRESETS
from balance.rulesets.strike_rank.profile import BLOCK
from balance.rulesets.strike_rank.rules import Rules

ENTROPY = 20261207


def _same(alone: object, joint: object) -> bool:
    return all(np.array_equal(getattr(alone, f), getattr(joint, f))
               for f in ("winner", "rounds", "cause"))


def _round_robin(rules: Rules, n: int) -> list[Segment]:
    """Every ordered pair of the 19 style presets (both seats, mirrors too), ``n`` fights
    a pair (a little more for later pairs, so that sizes differ)."""
    names = list(STYLE_PRESETS)
    pairs = [(a, b) for a in names for b in names]
    return [Segment(rules, (STYLE_PRESETS[a],), (STYLE_PRESETS[b],), n + i % 7, (a, b), 0)
            for i, (a, b) in enumerate(pairs)]


@pytest.mark.slow
def test_nineteen_styles_round_robin_in_one_call_matches_each_pair_alone(rs: StrikeRank
                                                                           ) -> None:
    segments = _round_robin(Rules(), 300)
    assert len(segments) == 361
    together = rs.simulate_segments(segments, SegmentedRng.of(segments, ENTROPY))
    keys = {rs.batch_key(s) for s in segments}
    assert len(keys) < len(segments) // 10, "the pairs should share a few batches"
    for segment, joint in zip(segments, together, strict=True):
        alone = rs.simulate(segment.rules, segment.side_a, segment.side_b, n=segment.n,
                            rng=segment.stream(ENTROPY))
        assert _same(alone, joint), f"{segment.key}: batched differs from alone"


def test_a_batch_in_any_order_and_packing_gives_each_pair_its_own_fights(rs: StrikeRank
                                                                          ) -> None:
    """A shuffled order and a small batch budget (several kernel calls, segments refilled
    into freed lanes) change nothing."""
    names = ["skirmisher", "archer", "knight", "gladiator", "assassin", "swashbuckler"]
    segments = [Segment(Rules(), (STYLE_PRESETS[a],), (STYLE_PRESETS[b],), 250 + 31 * i,
                        (a, b), i % 2)
                for i, (a, b) in enumerate((a, b) for a in names for b in names)]
    base = run_segments(rs, segments, entropy=ENTROPY)
    order = np.random.default_rng(3).permutation(len(segments))
    shuffled = run_segments(rs, [segments[i] for i in order], entropy=ENTROPY,
                            batch_fights=1500)
    for j, i in enumerate(order):
        assert np.array_equal(base[i].counts, shuffled[j].counts), segments[i].key
        assert np.array_equal(base[i].rounds, shuffled[j].rounds), segments[i].key


def test_lane_refill_with_whole_segments(rs: StrikeRank, monkeypatch: pytest.MonkeyPatch
                                         ) -> None:
    """With room for only a few segments at a time, later segments start in lanes freed
    mid-run by earlier ones: still each segment's own fights."""
    monkeypatch.setattr(K, "BATCH", 700)
    segments = [Segment(Rules(), (STYLE_PRESETS["skirmisher"],), (STYLE_PRESETS[b],),
                        200 + 40 * i, (b,), 0)
                for i, b in enumerate(["knight", "gladiator", "brawler", "legionnaire",
                                       "spearman", "hunter"])]
    together = rs.simulate_segments(segments, SegmentedRng.of(segments, ENTROPY))
    for segment, joint in zip(segments, together, strict=True):
        alone = rs.simulate_segments([segment], SegmentedRng.of([segment], ENTROPY))[0]
        assert _same(alone, joint), segment.key


def test_a_segment_larger_than_the_batch_runs_alone(rs: StrikeRank,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(K, "BATCH", 500)
    big = Segment(Rules(), (STYLE_PRESETS["knight"],), (STYLE_PRESETS["brawler"],), 1800,
                  ("big",), 0)
    small = Segment(Rules(), (STYLE_PRESETS["knight"],), (STYLE_PRESETS["gladiator"],), 300,
                    ("small",), 0)
    together = rs.simulate_segments([small, big], SegmentedRng.of([small, big], ENTROPY))
    alone = rs.simulate(big.rules, big.side_a, big.side_b, n=big.n, rng=big.stream(ENTROPY))
    assert _same(alone, together[1])


def test_segments_of_other_code_paths_do_not_share_a_key(rs: StrikeRank) -> None:
    duel = Segment(Rules(), (STYLE_PRESETS["knight"],), (STYLE_PRESETS["brawler"],), 10)
    group = Segment(Rules(), (STYLE_PRESETS["knight"],) * 2, (STYLE_PRESETS["brawler"],), 10)
    budget = Segment(Rules(action_economy="budget"), duel.side_a, duel.side_b, 10)
    assert len({rs.batch_key(s) for s in (duel, group, budget)}) == 3


@pytest.mark.parametrize("k", [400, 720, 1296, 60, 7, 65536])
def test_run_codes_read_each_segments_stream_as_segmented_rng_does(k: int) -> None:
    """The kernel's draw over runs of lanes gives each segment the words
    ``SegmentedRng.codes`` (and so ``codes_from_bits`` alone) gives it, rejections and
    redraws included."""
    seg = np.repeat(np.array([0, 2, 3, 5], np.int32), [900, 3, 1200, 57])
    ours = [np.random.default_rng(40 + s) for s in range(6)]
    theirs = SegmentedRng([np.random.default_rng(40 + s) for s in range(6)])
    for _ in range(3):
        got = K._run_codes(k, K._Runs.of(seg), [g.bit_generator for g in ours])
        assert np.array_equal(got, theirs.codes(k, seg))


@pytest.mark.parametrize("seed", range(6))
def test_a_riposte_lanes_runs_are_those_of_their_segments(seed: int) -> None:
    """The runs of a subset of lanes read off the batch's runs (``_Runs.within``, what a
    riposte's lanes and a tie's redraw use) are the runs of the subset's own segment ids:
    segments left without a lane drop out, the others keep their order."""
    rng = np.random.default_rng(seed)
    seg = np.repeat(np.arange(7, dtype=np.int32), rng.integers(1, 9, 7))
    runs = K._Runs.of(seg)
    for p in (0.0, 0.1, 0.5, 1.0):
        idx = np.flatnonzero(rng.random(len(seg)) < p)
        got, want = runs.within(idx), K._Runs.of(seg.take(idx))
        for field in ("ids", "starts", "counts"):
            assert np.array_equal(getattr(got, field), getattr(want, field)), (p, field)


def test_a_knights_block_counts_armour_double_alone_and_batched(rs: StrikeRank) -> None:
    """``armour_block_success="double_armour"``: a Knight's Armour block after a failed
    parry lands the blow on doubled armour (reference ``attack``), also in a matchup where
    nobody chooses an Armour block (the Knight's shield parry beats it, so the setup's
    defence kinds have no block).  Such a pair alone must differ from ``"absorb"`` and
    fight as it does batched with a pair that has the block among its kinds (the kernel
    once checked the kinds only: alone the rule did nothing, batched it applied)."""
    rules = Rules(armour_block_success="double_armour")
    knight = STYLE_PRESETS["knight"]
    segments = [Segment(rules, (knight,), (STYLE_PRESETS[b],), 400, ("knight", b), 0)
                for b in ("skirmisher", "shieldman")]
    assert BLOCK not in K._setup_of(segments[0])[0].kinds
    assert BLOCK in K._setup_of(segments[1])[0].kinds
    assert rs.batch_key(segments[0]) == rs.batch_key(segments[1])
    together = rs.simulate_segments(segments, SegmentedRng.of(segments, ENTROPY))
    for segment, joint in zip(segments, together, strict=True):
        alone = rs.simulate_segments([segment], SegmentedRng.of([segment], ENTROPY))[0]
        assert _same(alone, joint), segment.key
    absorb = dataclasses.replace(segments[0], rules=Rules())
    plain = rs.simulate_segments([absorb], SegmentedRng.of([absorb], ENTROPY))[0]
    assert not _same(plain, together[0]), "double_armour changed nothing for the Knight"


# --- the strike-rank kernel's outcomes, pinned ---------------------------------------------

PIN_CASES: list[tuple[tuple[str, ...], tuple[str, ...], dict[str, object]]] = [
    (("berserker",), ("knight",), {"action_economy": "budget"}),
    (("skirmisher,riposte_policy=disarm,skill=42",),
     ("skirmisher,when_disarmed=fight_unarmed,second_style=brawling,second_skill=30",), {}),
    (("swashbuckler,skill=38,defence_policy=dodge",), ("gladiator,skill=30",),
     {"behind_duration": "next_attack", "half_skill_mode": "with_mods"}),
    (("archer",), ("skirmisher",), {}),
    (("assassin",), ("skirmisher,surprised=true",), {"ambush_rules": "first_round"}),
    (("knight",), ("skirmisher", "skirmisher"), {"attacks_per_round": 2}),
    (("shieldman",), ("skirmisher", "skirmisher,skill=25", "footpad,target_policy=weakest"),
     {"tie_rule": "add_d20"}),
    (("berserker,target_policy=weakest,hold_policy=react",
      "shieldman,riposte_policy=disarm,skill=35,hold_policy=react"),
     ("knight,target_policy=strongest,hold_policy=react",
      "swashbuckler,defence_policy=dodge,dodge=35,riposte_policy=disarm"),
     {"parry_bonus_mode": "sum", "limb_destroyed": "crippled", "max_rounds": 30}),
    (("legionnaire,formation=ranked,leader=true", "spearman,formation=ranked"),
     ("skirmisher", "footpad", "skirmisher"), {"action_economy": "budget", "rank_frontage": 1}),
    (("brawler,agility=20",), ("martial_artist,dexterity=22",),
     {"action_economy": "budget", "sr_tiebreak": "random,dex", "carry_mode": "keep"}),
    (("knight,knockout=true,riposte_policy=never",), ("gladiator,armour=torso:1",),
     {"ko_rules": True, "attack_penalty_scope": "after_attack", "max_riposte_depth": 2}),
    (("skirmisher,weapon=war pick",), ("knight",), {"weapons": {"war pick": {"modifiers": [
        {"to": "parry", "amount": -6, "when": "self.wounds > 0"}]}}}),  # runs alone
]
PIN_STYLES = ["skirmisher", "knight", "gladiator", "assassin", "brawler", "hunter"]
PINNED_SR_DIGEST = "03936884731b78abb11d665462f0be9aa5eab0d0a6c346f15ef9b30043f9fd2b"
"""sha256 of every fight's winner, rounds and cause in :func:`_pin_segments`' call (entropy
20261207), as the kernel at affa53c drew them (before the per-attack savings: cached
table parts, runs read off the batch's runs, a defender read once an attack)."""


def _pin_segments(rs: StrikeRank) -> list[Segment]:
    """Duels and groups under varied rules (budget, ties redrawn, several attacks, holding,
    disarm, berserk, ranged, ambush, ranks, knock-outs, a rules-language row), then a round
    robin of six styles with sizes that differ, so segments finish at different times."""
    cases = [Segment(rs.rules(o), rs.side(list(a)), rs.side(list(b)), 150 + 37 * (i % 5),
                     ("case", i), 0) for i, (a, b, o) in enumerate(PIN_CASES)]
    robin = [Segment(Rules(), (STYLE_PRESETS[a],), (STYLE_PRESETS[b],), 100 + 23 * (i % 9),
                     (a, b), 0)
             for i, (a, b) in enumerate((a, b) for a in PIN_STYLES for b in PIN_STYLES)]
    return cases + robin


@pytest.mark.filterwarnings("ignore::balance.fields.RowReplaced")
def test_the_strike_rank_kernels_outcomes_are_pinned(rs: StrikeRank) -> None:
    segments = _pin_segments(rs)
    outs = rs.simulate_segments(segments, SegmentedRng.of(segments, ENTROPY))
    digest = hashlib.sha256()
    for out in outs:
        for column in (out.winner, out.rounds, out.cause):
            digest.update(np.ascontiguousarray(column).tobytes())
    assert digest.hexdigest() == PINNED_SR_DIGEST
