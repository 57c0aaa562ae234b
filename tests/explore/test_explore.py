"""The explorer driven from Python: controls from the field metadata, and every number it
shows checked against balance.duel / balance.exact / balance.fight for the same matchup
and seed."""

from __future__ import annotations

import subprocess
import sys
import tomllib

import numpy as np
import pytest

import balance
from balance import analysis
from balance.cli import main
from balance.explorer import CHUNK, Member, Question, compare, controls
from balance.explorer.view import pct

pytest.importorskip("ipywidgets")


@pytest.fixture
def crt():
    return balance.explore("crt", "novice", "veteran", background=False, budget=0.05)


def same_as_duel(answer, ruleset, a, b, **rules):
    """The explorer's Monte Carlo answer is balance.duel with its n, seed and chunk size."""
    s = balance.duel(ruleset, a, b, n=answer.n, seed=answer.question.seed, chunk_size=CHUNK,
                     **rules)
    assert answer.method == "monte carlo"
    assert (answer.a_win, answer.b_win, answer.draw) == (s.a_win, s.b_win, s.draw)
    assert (answer.a_win_ci, answer.draw_ci) == (s.a_win_ci, s.draw_ci)
    assert answer.mean_rounds == s.mean_rounds
    assert answer.assumptions == s.assumptions and answer.policies == s.policies
    return s


def test_controls_follow_the_field_metadata():
    kinds = {c.name: c for c in controls(balance.get("crt").Rules)}
    assert kinds["es2_mode"].kind == "dropdown"                  # choices
    assert kinds["es2_mode"].options == ("roller_fails", "foe_rolls_ef", "foe_slain")
    assert kinds["damage_die"].kind == "int_slider"              # bounded int
    assert (kinds["damage_die"].low, kinds["damage_die"].high) == (1, 20)
    # 1..10 000: a slider over the span around its default, the box takes any of it
    assert kinds["max_rounds"].kind == "int_slider"
    rounds = kinds["max_rounds"]
    assert rounds.span == (1, 2 * rounds.default) and rounds.high == 10_000
    assert kinds["extraordinary"].kind == "checkbox"
    assert kinds["leader_break_p"].kind == "float_slider"
    assert kinds["armour_points"].kind == "table"                # editable rows
    assert [r.name for r in kinds["armour_points"].rows] == ["none", "leather", "mail", "plate"]
    assert kinds["armour_points"].rows[0].kind == "int_slider"
    assert kinds["es2_mode"].label == "es2 mode (AMBIG)"
    fighter = {c.name: c for c in controls(balance.get("crt").Combatant)}
    assert fighter["health"].kind == "optional_int"
    assert fighter["skill"].kind == "int_slider"
    # the policy flag of the metadata: the panel shows these apart, as decisions
    assert fighter["divert"].policy and not fighter["skill"].policy


def test_controls_speak_the_reports_words_and_explain_their_guesses():
    from balance.labels import field_label

    rs = balance.get("crt")
    fighter = {c.name: c for c in controls(rs.Combatant)}
    # the same words the reports use for a.0.combats ("A: combats survived")
    assert fighter["combats"].label == "combats survived"
    assert field_label("combats", fighter["combats"].doc) == "combats survived"
    assert fighter["unarmed_skill"].label == "skill level unarmed (DEFAULT)"
    assert fighter["divert_p"].label == "divert p (%) (DEFAULT)" and fighter["divert_p"].percent
    hover = {c.name: c.hover for c in controls(rs.Rules)}["es2_mode"]
    assert hover.startswith("AMBIG: the seed's text is unclear here; this is the reading "
                            "chosen. ES 2") and "[field es2_mode, AMBIG]" in hover
    assert "invented to fill the gap" in fighter["unarmed_skill"].hover
    assert not any(c.label.endswith(("]", "_")) for c in fighter.values())


def test_a_slider_spans_the_values_the_ruleset_uses():
    from balance.explorer.question import sensible_span

    rs = balance.get("crt")
    fighter = {c.name: c for c in controls(rs.Combatant, examples=list(rs.presets.values()))}
    combats = fighter["combats"]
    assert (combats.low, combats.high) == (0, 1000)  # the whole range a box still takes
    top = max(p.combats for p in rs.presets.values())
    assert combats.span == (0, 2 * top)               # presets reach 0..30: slide 0..60
    assert fighter["skill"].span == (0, 5)             # a short range: all of it
    assert sensible_span(-100, 100, [0], integer=True) == (-10, 10)
    assert sensible_span(0.0, 1.0, [0.5], integer=False) == (0.0, 1.0)


def test_controls_come_in_groups():
    from balance.explorer.question import group_controls

    rs = balance.get("crt")
    fighter = dict(group_controls(controls(rs.Combatant), rules=False))
    assert list(fighter) == ["abilities", "equipment", "traits", "policies"]
    assert {c.name for c in fighter["equipment"]} == {"weapon_type", "armour", "shield"}
    assert "combats" in {c.name for c in fighter["abilities"]}
    assert all(c.policy for c in fighter["policies"])
    topics = dict(group_controls(controls(rs.Rules), rules=True))
    assert len(topics) >= 5 and max(len(cs) for cs in topics.values()) < 20  # not one heap
    assert "damage_die" in {c.name for c in topics["damage, health and armour"]}
    assert "es2_mode" in {c.name for c in topics["result tables"]}


def test_named_rows_are_dropdowns():
    # strike-rank's style, weapon and missile name rows of rules tables: choices, not text
    rs = balance.get("strike-rank")
    rules = rs.rules()
    fighter = {c.name: c for c in controls(rs.Combatant, rules=rules)}
    for name, table in (("style", "styles"), ("weapon", "weapons"),
                        ("missile", "missile_weapons"), ("second_style", "styles")):
        assert fighter[name].kind == "dropdown", name
        assert set(getattr(rules, table)) <= set(fighter[name].options), name
    assert "war pick" in fighter["weapon"].options
    assert fighter["missile"].options[0] == "none"
    zones = {c.name: c for c in controls(balance.get("zones").Combatant,
                                         rules=balance.get("zones").rules())}
    assert zones["ranged"].options[:3] == ("none", "short_bow", "long_bow")


def test_the_panel_shows_words_groups_dropdowns_and_percent():
    ex = balance.explore("strike-rank", background=False, budget=0.01)
    member = ex.side_a.members[0]
    assert [t.split(" (")[0] for t in member.details.titles] == [
        "abilities", "equipment", "traits", "policies"]
    assert member.details.titles[0].endswith("guessed)")  # how many values are guesses
    weapon = member.fields.fields["weapon"].widget
    assert type(weapon).__name__ == "Dropdown" and "war pick" in [v for _, v in weapon.options]
    ex.set("a.0.weapon", "war pick")
    assert ex.error is None and ex.get("a.0.weapon") == "war pick"
    crt = balance.explore("crt", background=False, budget=0.01)
    crt.set("a.0.combats", 400)  # beyond the slider's span: the box takes it, the slider grows
    combats = crt.side_a.members[0].fields.fields["combats"]
    slider, box = combats.widget.children
    assert (box.value, slider.value, slider.max) == (400, 400, 400)
    assert crt.get("a.0.combats") == 400 and crt.error is None
    crt.set("rules.leader_break_p", 0.25)  # a probability is typed as a percentage
    assert crt.rules.fields["leader_break_p"].widget.children[1].value == 25
    assert crt.get("rules.leader_break_p") == 0.25


@pytest.mark.parametrize("ruleset", list(balance.RULESETS))
def test_every_ruleset_gets_a_panel_that_answers(ruleset):
    ex = balance.explore(ruleset, background=False, budget=0.01)
    assert ex.error is None and ex.answer is not None
    a, b = (list(ex.rs.presets)[:1], list(ex.rs.presets)[1:2])
    if ex.answer.exact:
        assert ex.answer.a_win == balance.exact(ruleset, a, b).a_win
    else:
        same_as_duel(ex.answer, ruleset, a, b)
    names = {c.name for c in controls(ex.rs.Combatant)}
    assert set(ex.side_a.members[0].fields.fields) == names


def test_monte_carlo_answer_is_balance_duel_for_the_same_seed(crt):
    crt.set("a.0.combats", 12)
    crt.set("b.0.armour", "mail")
    crt.seed.value = 7
    answer = crt.answer
    assert answer.question.seed == 7
    assert answer.why_not_exact.startswith("crt has no exact solution here")
    s = same_as_duel(answer, "crt", "novice,combats=12", "veteran,armour=mail")
    shown = crt.output.value
    assert f'class="a-win" style="text-align:right;font-size:1.2em">{pct(s.a_win)}' in shown
    assert f"{s.n:,} fights, seed 7" in shown
    for reading in (*s.assumptions, *s.policies):
        assert reading.replace("'", "&#x27;") in shown


def test_refining_continues_the_same_streams(crt):
    first = crt.answer.n
    # a target no first answer reaches, however fast the machine: the first answer of a
    # fast CI runner already met the default 0.002 and refining then had nothing to do
    crt.precision = 1e-5
    crt.refine(0.2)
    assert crt.answer.n > first
    same_as_duel(crt.answer, "crt", "novice", "veteran")


def test_exact_where_the_solver_covers_the_matchup(crt):
    crt.set("rules.extraordinary", False)
    crt.set("a.0.skill", 2)
    exact = balance.exact("crt", "novice,skill=2", "veteran", extraordinary=False)
    answer = crt.answer
    assert answer.method == "exact"
    assert (answer.a_win, answer.b_win, answer.draw) == (exact.a_win, exact.b_win, exact.draw)
    assert answer.mean_rounds == exact.mean_rounds and answer.assumptions == exact.assumptions
    assert answer.policies == exact.policies == ("divert=never",)
    assert pct(exact.a_win, 3) in crt.output.value and "exact" in crt.output.value
    # the fight-length histogram beside it is simulated, and says so
    lengths = balance.duel("crt", "novice,skill=2", "veteran", n=answer.n, seed=1,
                           chunk_size=CHUNK, extraordinary=False)
    np.testing.assert_array_equal(answer.rounds, lengths.tally.rounds)
    assert "simulated" in answer.lengths_note
    # an exact answer reads as final, even while its histogram is still being simulated
    from balance.explorer import view

    while_simulating = view.answer_html(answer, refining=True)
    assert "refining" not in while_simulating and '<span class="final">final</span>' \
        in while_simulating and "(more being simulated)" in while_simulating
    # the histogram has axes: rounds along the bottom, the share of fights up the side
    svg = while_simulating.split('<svg class="lengths"', 1)[1].split("</svg>", 1)[0]
    assert ">rounds</text>" in svg and ">fights</text>" in svg and ">0%</text>" in svg
    assert svg.count("<line ") == 2
    crt.use_exact.value = False  # the designer can ask for Monte Carlo instead
    same_as_duel(crt.answer, "crt", "novice,skill=2", "veteran", extraordinary=False)


def test_a_game_solver_answers_without_pretending_to_know_its_lengths():
    ex = balance.explore("pool", "duellist", "guard", background=False)
    exact = balance.exact("pool", "duellist", "guard")
    assert ex.answer.exact and ex.answer.a_win == exact.a_win and ex.answer.n == 0
    assert "not simulated" in ex.answer.lengths_note


def test_groups_where_the_ruleset_allows_them(crt):
    crt.side_b.grow("watchman")
    crt.side_b.grow("watchman")
    assert len(crt.side_b.members) == 3
    same_as_duel(crt.answer, "crt", "novice", ["veteran", "watchman", "watchman"])
    while not crt.side_b.add.disabled:
        crt.side_b.grow("watchman")
    assert len(crt.side_b.members) == crt.rs.max_side  # max_side reached
    while len(crt.side_b.members) > 2:
        crt.side_b.shrink()
    same_as_duel(crt.answer, "crt", "novice", ["veteran", "watchman"])


def test_a_preset_is_a_starting_point(crt):
    crt.set("a.0.preset", "master")
    assert crt.get("a.0.skill") == 5 and crt.get("a.0.combats") == 30
    crt.set("a.0.combats", 0)
    assert crt.question().a == (Member("master", {"combats": 0}),)
    same_as_duel(crt.answer, "crt", "master,combats=0", "veteran")


def test_bad_input_is_shown_not_raised():
    ex = balance.explore("zones", "swordsman", "soldier", background=False)
    ex.set("rules.map", [0, -2, -4])
    ex.control("rules.map").value = "0, two"
    assert ex.answer is None and "list of numbers" in ex.error
    assert "cannot answer" in ex.output.value
    ex.control("rules.map").value = "0, -3, -6"
    assert ex.error is None
    same_as_duel(ex.answer, "zones", "swordsman", "soldier", map=[0, -3, -6])


def test_compare_two_builds_on_common_random_numbers(crt):
    crt.pin()
    crt.set("a.0.combats", 20)
    c = crt.comparison
    assert c.method == "monte carlo" and c.baseline.n == c.variant.n
    base = same_as_duel(c.baseline, "crt", "novice", "veteran")
    var = same_as_duel(c.variant, "crt", "novice,combats=20", "veteran")
    d = {x.name: x for x in c.differences}
    assert d["A wins"].value == pytest.approx(var.a_win - base.a_win, abs=1e-12)
    assert d["A wins"].low < d["A wins"].value < d["A wins"].high
    assert "Variant minus baseline" in crt.output.value
    crt.set("a.0.combats", 0)  # the variant is the baseline again: no difference at all
    assert all(x.value == x.low == x.high == 0 for x in crt.comparison.differences)
    crt.unpin()
    assert crt.comparison is None


def test_compare_two_rule_variants_exactly():
    ex = balance.explore("crt", "novice", "veteran", rules={"extraordinary": False},
                         background=False)
    ex.pin()
    ex.set("rules.damage_die", 8)
    c = ex.comparison
    base = balance.exact("crt", "novice", "veteran", extraordinary=False)
    var = balance.exact("crt", "novice", "veteran", extraordinary=False, damage_die=8)
    assert c.method == "exact"
    assert c.differences[0].value == var.a_win - base.a_win == c.differences[0].low


def test_the_paired_interval_covers_the_exact_difference():
    # Two plain crt duels whose exact A-win difference is known; the Monte Carlo comparison
    # on common random numbers (one chunk each) should cover it about 95 times in 100.
    # Threshold fixed in advance: at least 16 of 20 seeds (P(X <= 15) = 0.016 for
    # X ~ Binomial(20, 0.95)).
    base_q = dict(a=(Member("novice"),), b=(Member("veteran"),), rules={"extraordinary": False})
    var_q = dict(base_q, a=(Member("novice", {"combats": 25}),))
    truth = (balance.exact("crt", "novice,combats=25", "veteran", extraordinary=False).a_win
             - balance.exact("crt", "novice", "veteran", extraordinary=False).a_win)
    covered = 0
    for seed in range(20):
        c = compare(Question("crt", seed=seed, **base_q), Question("crt", seed=seed, **var_q),
                    budget=0, exact=False).comparison()
        d = c.differences[0]
        covered += d.low <= truth <= d.high
    assert covered >= 16


def test_matrix_is_the_round_robin_and_a_cell_narrates_its_fight(crt):
    names = ["novice", "expert", "master"]
    crt.run_matrix(names, 2000)
    table = analysis.round_robin("crt", names, n=2000, seed=1)
    score, _ = analysis.score_matrix(table)
    for (a, b), button in crt.matrix_buttons.items():
        assert button.description == f"{100 * score.loc[a, b]:.1f}%"  # win + half a draw
    # strongest first: the rows in order of mean expected score against the others
    shown = list(dict.fromkeys(a for a, _ in crt.matrix_buttons))
    mean = {a: (score.loc[a].sum() - score.loc[a, a]) / (len(names) - 1) for a in names}
    assert shown == sorted(names, key=lambda a: -mean[a]) and shown[0] == "master"
    assert "strongest first" in crt.matrix_status.value
    lines: list[str] = []
    outcome = balance.fight("crt", "master", "novice", seed=1, log=lines.append)
    crt.matrix_buttons[("master", "novice")].click()
    shown = crt.narration.value
    assert lines[0].replace("'", "&#x27;") in shown and f"after {outcome.rounds} rounds" in shown


def test_save_as_experiment_writes_a_spec_that_balance_sweep_runs(crt, tmp_path, capsys):
    crt.set("a.0.combats", 6)
    crt.set("rules.damage_die", 8)
    path = crt.save_experiment(tmp_path / "skill.toml", axis="a.0.skill", values="0, 1, 2",
                               fights=2000)
    spec = tomllib.loads(path.read_text())
    assert spec["a"] == [{"preset": "novice", "combats": 6}]
    assert spec["rules"] == {"damage_die": 8}
    assert spec["grid"]["axes"] == [{"field": "a.0.skill", "values": [0, 1, 2]}]
    assert spec["run"] == {"fights": 2000, "seed": 1}
    out = tmp_path / "run"
    assert main(["sweep", str(path), "--out", str(out), "--executor", "serial", "-q"]) == 0
    table = balance.load_run(out).table
    assert list(table["a.0.skill"]) == [0, 1, 2] and set(table["n"]) == {2000}
    # an exact question is saved as an exact experiment
    crt.set("rules.extraordinary", False)
    path = crt.save_experiment(tmp_path / "exact.toml")
    assert tomllib.loads(path.read_text())["run"] == {"method": "exact"}
    assert main(["sweep", str(path), "--out", str(tmp_path / "exact"), "--executor",
                 "serial", "-q"]) == 0
    row = balance.load_run(tmp_path / "exact").table.iloc[0]
    assert row["a_win"] == pytest.approx(crt.answer.a_win, abs=1e-12)
    capsys.readouterr()


def test_the_save_button_reports_bad_values(crt, tmp_path):
    crt.save_name.value = str(tmp_path / "x.toml")
    crt.save_axis.value = "a.0.skill"
    crt.save_values.value = "0, 9"
    crt.save_button.click()
    assert "must be in 0..5" in crt.save_message.value and not (tmp_path / "x.toml").exists()


def test_background_answers_arrive_and_are_refined():
    ex = balance.explore("crt", "novice", "veteran", budget=0.05, refine_s=0.3)
    ex.set("a.0.combats", 3)
    assert ex.wait(30)
    assert ex.answer.question.a == (Member("novice", {"combats": 3}),)
    same_as_duel(ex.answer, "crt", "novice,combats=3", "veteran")


def test_import_balance_does_not_import_ipywidgets():
    code = "import sys, balance; print('ipywidgets' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "False"


SHIELD_RULE = {"house_rules": {"shield": {"modifiers": [
    '+2 to score when self.shield != "none" and target.weapon == "two_handed"']}}}


def test_rules_without_a_control_are_part_of_every_answer():
    """House rules and rows with conditions have no widget: the explorer holds them as given
    and answers under them, before and after a control moves (issue 21)."""
    rules = {"extraordinary": False, **SHIELD_RULE}
    a, b = "duelist,shield=round", "duelist,weapon_type=two_handed,strength=10"
    ex = balance.explore("crt", a, b, rules=rules, background=False)
    with_rule = balance.exact("crt", a, b, **rules)
    without = balance.exact("crt", a, b, extraordinary=False)
    assert with_rule.a_win != without.a_win  # the rule matters here, so the test can fail
    assert ex.answer.method == "exact" and ex.answer.a_win == with_rule.a_win
    ex.set("rules.damage_die", 8)
    assert ex.answer.a_win == balance.exact("crt", a, b, damage_die=8, **rules).a_win
    assert ex.question().rules["house_rules"] == SHIELD_RULE["house_rules"]


def test_a_monte_carlo_answer_says_it_is_refining():
    from balance.explorer import view

    ex = balance.explore("crt", "novice", "veteran", background=False, budget=0.01)
    assert not ex.answer.exact
    shown = view.answer_html(ex.answer, refining=True)
    assert "refining" in shown and "final" not in shown


def test_the_answer_speaks_in_percent():
    import re

    ex = balance.explore("crt", background=False, budget=0.01)
    shown = ex.output.value
    score = re.search(r'class="score"[^>]*>([^<]+)<', shown).group(1)
    assert score == f"{100 * ex.answer.score:.{3 if ex.answer.exact else 2}f}%"
    assert not re.search(r">\s*0\.\d{3}\s*<", shown)  # no bare fraction anywhere
