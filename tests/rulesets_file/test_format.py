"""The ruleset file format: where keys stand, what a mistake says, how a file ruleset
travels between processes, and what the exact solver refuses, in one line."""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest

from balance.errors import IntractableError, SpecError
from balance.experiments.store import code_hash
from balance.rulesets import portable, resolve
from balance.rulesets.file import from_text
from balance.rulesets.file.keylines import key_lines, line_of

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "rulesets"
D10 = (EXAMPLES / "opposed-d10.toml").read_text()


def test_key_lines_follow_tables_arrays_and_inline_tables() -> None:
    text = ('[ruleset]\nname = "x"\n[fighter]\nhealth = {kind = "int", range = [0, 9]}\n'
            '[[actions]]\nroll = "2d6"\n[[actions.outcomes]]\nname = "a"\n'
            '[[actions]]\ndoc = """\nname = 3\n"""\n[[actions.outcomes]]\nname = "b"\n')
    lines = key_lines(text)
    assert lines[("ruleset", "name")] == 2
    assert lines[("fighter", "health", "range")] == 4
    assert lines[("actions", 0, "roll")] == 6
    assert lines[("actions", 0, "outcomes", 0, "name")] == 8
    assert ("actions", 1, "name") not in lines  # inside a multi-line string: not a key
    assert lines[("actions", 1, "outcomes", 0, "name")] == 14
    assert line_of(lines, ("actions", 1, "outcomes", 0, "when")) == 13  # nearest enclosing


@pytest.mark.parametrize(("old", "new", "words"), [
    ('name = "exchange"', 'name = "exchange"\nwhen = "self.skil > 1"',
     ["line 40", "actions[0].when", "unknown name 'self.skil'"]),
    ("[state.health]", "[state.skill]", ["line 34", "state.skill", "already a fighter field"]),
    ('out = "self.health <= 0"', 'out = "self.health <= d6"',
     ["end.out", "rolls no dice"]),
    ("damage = 1", 'damage = 1\nhealing = 2', ["actions[0].outcomes[0].healing",
                                                "allowed: name, when, damage"]),
    ('[rules.hit_margin]', '[rules.round]', ["rules.round", "already the engine's"]),
    ('roll = "1d10', 'times = 30\nroll = "1d10', ["actions[0].times", "must be 0..20"]),
    ('kind = "str"\nchoices = ["steady", "reckless"]', 'kind = "str"',
     ["fighter.stance.choices", "is missing"]),
])
def test_a_mistake_is_one_line_naming_the_line_the_key_and_what_is_allowed(
        old: str, new: str, words: list[str]) -> None:
    assert old in D10
    with pytest.raises(SpecError) as caught:
        from_text(D10.replace(old, new, 1), "d10.toml")
    message = str(caught.value)
    assert "\n" not in message and message.startswith("d10.toml")
    for word in words:
        assert word in message, message


def test_the_same_text_is_the_same_ruleset_and_it_pickles_as_its_text() -> None:
    rs = resolve(EXAMPLES / "opposed-d10.toml")
    assert from_text(D10, "elsewhere.toml") is rs
    veteran = rs.combatant("veteran")
    again = pickle.loads(pickle.dumps((rs, veteran, rs.rules(hit_margin=2))))
    assert again[0] is rs and type(again[1]) is rs.Combatant and again[1] == veteran
    assert again[2].hit_margin == 2
    assert portable(rs) == (str((EXAMPLES / "opposed-d10.toml").resolve()), False)


def test_the_cache_tag_hashes_the_file_text() -> None:
    one = from_text(D10, "a.toml")
    other = from_text(D10.replace("default = 200", "default = 150").replace(
        "max_rounds = 200", "max_rounds = 150"), "a.toml")
    assert code_hash(one) != code_hash(other)
    assert code_hash(one) == code_hash(from_text(D10, "b.toml"))


def test_exact_says_in_one_line_why_not() -> None:
    big = from_text(D10.replace("range = [1, 10]\ndefault = 3", "range = [1, 999]\ndefault = 600"),
                    "big.toml")
    veteran = big.combatant("veteran")
    why = big.exact_check(big.rules(), (veteran,), (veteran,))
    assert why is not None and "361,201 states" in why and "250,000" in why
    with pytest.raises(IntractableError, match="361,201 states"):
        big.exact(big.rules(), (veteran,), (veteran,))
    rounds = from_text(D10.replace("damage = 1", 'damage = "1 if round < 5 else 2"'), "r.toml")
    with pytest.raises(IntractableError, match="read the round number"):
        rounds.exact(rounds.rules(), (rounds.combatant("veteran"),),
                     (rounds.combatant("novice"),))


@pytest.mark.parametrize(("name", "a", "b"), [("crt-plain.toml", "duelist", "veteran"),
                                              ("three-tiers.toml", "hero", "duellist"),
                                              ("opposed-d10.toml", "veteran", "berserker")])
def test_best_play_value_is_what_its_equilibrium_scores(name: str, a: str, b: str) -> None:
    """The value found by backward induction is the score of the equilibrium played
    forward: P(A wins) + draw_worth x P(draw)."""
    rs = resolve(EXAMPLES / name)
    if not rs.system.choices:
        with pytest.raises(IntractableError, match="declares no"):
            rs.exact_best_play(rs.rules(), (rs.combatant(a),), (rs.combatant(b),))
        return
    answer = rs.exact_best_play(rs.rules(), (rs.combatant(a),), (rs.combatant(b),),
                                draw_worth=0.25)
    assert abs(answer.details["value"] - (answer.a_win + 0.25 * answer.draw)) < 1e-9
    assert abs(answer.a_win + answer.b_win + answer.draw - 1) < 1e-12
    table = answer.strategy
    assert len(table) == answer.details["states"] and "value" in table


def test_kernel_and_exact_agree_on_a_sequential_fight_with_initiative() -> None:
    rs = resolve(EXAMPLES / "d20-armour-class.toml")
    a, b = (rs.combatant("rogue"),), (rs.combatant("fighter"),)
    exact = rs.exact(rs.rules(), a, b)
    out = rs.simulate(rs.rules(), a, b, n=100_000, rng=np.random.default_rng(4))
    # 99.99% binomial bound on the win rate of 100 000 fights: 3.9 sd of at most 0.5/sqrt(n)
    assert abs((out.winner == 1).mean() - exact.a_win) < 3.9 * 0.5 / 100_000 ** 0.5
