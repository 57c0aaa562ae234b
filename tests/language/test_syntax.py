"""Reading and checking: precedence, dice spelling, and every kind of mistake refused in
one line naming the expression, the column and what is allowed -- with nothing evaluated."""

from __future__ import annotations

import builtins
import pickle
import subprocess
import sys

import numpy as np
import pytest

from balance.errors import SpecError
from balance.language import LanguageError, compile_amount, compile_condition
from balance.language.syntax import Dice, parse

from .oracle import NAMES

FIGHT = {"self.wounds": 4, "target.armour_rank": 3, "round": 1, "foes_engaged": 2,
         "self.edge": -2, "target.shield": "kite", "self.stance": "none",
         "target.stance": "defensive", "mounted": True, "self.prone": False}


@pytest.mark.parametrize(("text", "value"), [
    ("1 + 2 * 3", 7),
    ("(1 + 2) * 3", 9),
    ("10 - 4 - 3", 3),                 # left to right
    ("-2 * 3", -6),
    ("- -2", 2),
    ("+1", 1),
    ("7 // 2", 3),
    ("-7 // 2", -4),                   # rounds down, as a rulebook's "halve, round down"
    ("self.edge // 2", -1),            # -2 // 2
    ("2 * 7 // 4", 3),                 # (2 * 7) // 4
    ("min(self.wounds, 2, 9)", 2),
    ("max(self.edge, -5)", -2),
    ("min(7)", 7),
    ("1 if mounted else 2", 1),
    ("1 if self.prone else 2 if mounted else 3", 2),  # the else part nests to the right
    ("self.wounds + 1 if round == 1 else 0", 5),      # 'if' binds loosest
    ("3 + round * 2 - foes_engaged", 3),
])
def test_amounts_follow_the_usual_precedence(text, value):
    amount = compile_amount(text, NAMES)
    assert amount.read(FIGHT).value == value
    assert amount.evaluate(FIGHT, n=3).tolist() == [value] * 3


@pytest.mark.parametrize(("text", "value"), [
    ("not mounted and self.prone", False),     # (not mounted) and prone
    ("not (mounted and self.prone)", True),
    ("mounted or self.prone and false", True),  # and binds tighter than or
    ("(mounted or self.prone) and false", False),
    ("1 <= self.wounds <= 4", True),           # a chain, as in Python
    ("1 <= self.wounds < 4", False),
    ("3 > 2 > 1", True),
    ("1 < 2 == 2", True),                      # 1 < 2 and 2 == 2 (not (1 < 2) == 2)
    ("self.wounds + 1 > 4", True),             # arithmetic before comparison
    ("not self.wounds > 10", True),            # comparison before not
    ("target.shield in ('kite', 'buckler')", True),
    ("target.shield not in ('kite',)", False),
    ("round in (1, 2, 3)", True),
    ("self.edge in (-2, +3)", True),
    ("self.stance == target.stance", False),
    ('"kite" == target.shield', True),
    ("mounted == true", True),
    ("mounted != self.prone", True),
    ("true if round > 5 else target.armour_rank >= 3", True),
])
def test_conditions_follow_the_usual_precedence(text, value):
    condition = compile_condition(text, NAMES)
    assert condition.read(FIGHT).value is value
    assert condition.evaluate(FIGHT, n=2).tolist() == [value] * 2


@pytest.mark.parametrize(("text", "count", "sides"), [
    ("d6", 1, 6), ("1d6", 1, 6), ("3d6", 3, 6), ("d%", 1, 100), ("2d10", 2, 10),
    ("d20", 1, 20), ("100d1", 100, 1),
])
def test_dice_spellings(text, count, sides):
    assert parse(text) == Dice(1, count, sides, text)


def test_dice_inside_amounts_and_words_that_start_with_d():
    tree = parse("2d6+1")
    assert isinstance(tree.left, Dice) and tree.left.count == 2 and tree.right.value == 1
    assert compile_amount("2d6+1", NAMES).range == (3, 13)
    assert compile_amount("d% - 1", NAMES).range == (0, 99)
    # names that begin with d are names, not dice
    names = NAMES | {"defence": NAMES["round"], "d6x": NAMES["round"]}
    assert compile_amount("defence + d6x", names).names_used == ("defence", "d6x")


def test_a_constant_is_folded_and_known():
    assert compile_amount("2 * (3 + 4) // 3", NAMES).constant == 4
    assert compile_condition("1 < 2 and not false", NAMES).constant is True
    assert compile_amount("d6", NAMES).constant is None
    assert compile_amount("round", NAMES).constant is None
    assert compile_amount(3, NAMES).constant == 3 and compile_condition(True, NAMES).constant


# --- mistakes -------------------------------------------------------------------------------------
ERRORS = [
    # (text, purpose, column, words the message must hold)
    ("target.armor_rank >= 3", "condition", 1,
     ["unknown name 'target.armor_rank'", "did you mean 'target.armour_rank'", "names: "]),
    ("target.shield >= 3", "condition", 1, ["cannot compare target.shield", 'one of "none"']),
    ('self.wounds == "x"', "condition", 1, ["cannot compare self.wounds", "0..10"]),
    ("1d6 and 2", "condition", 1, ["'and' needs true or false", "1d6 is a whole number"]),
    ("mounted and 2", "condition", 13, ["'and' needs true or false", "2 is a whole number"]),
    ('target.shield == "bucklr"', "condition", 18,
     ['never "bucklr"', "did you mean 'buckler'", 'one of "none", "buckler", "target", "kite"']),
    ("target.shield in ('kite', 'round')", "condition", 27, ['never "round"']),
    ("round in (1, 'a')", "condition", 14, ["the list holds \"a\" (a word)"]),
    ("mounted in (true)", "condition", 1, ["'in' looks for a number or a word"]),
    ("self.wounds + 1", "condition", 1, ["a condition must be true or false",
                                         "this is a whole number"]),
    ("round > 1", "amount", 1, ["an amount must be a whole number", "true or false"]),
    ("mounted < true", "condition", 1, ["< orders numbers", "== or !="]),
    ("target.shield < 'kite'", "condition", 1, ["< orders numbers"]),
    ("self.stance == target.shield", "condition", 1, ["hold different words"]),
    ("-mounted", "amount", 2, ["'-' needs a whole number", "mounted is true or false"]),
    ("not round", "condition", 5, ["'not' needs true or false"]),
    ("round + true", "amount", 9, ["'+' needs a whole number", "true is a truth value"]),
    ("min(round, mounted)", "amount", 12, ["min(...) needs a whole number"]),
    ("1 if round else 2", "amount", 6, ["'if' needs true or false"]),
    ("1 if mounted else false", "amount", 19, ["after 'else'", "(a whole number)"]),
    ("'a' if mounted else 'b'", "amount", 1, ["chooses between numbers or between conditions"]),
    ("round // self.wounds", "amount", 10, ["divides by a fixed number"]),
    ("round // (2 - 2)", "amount", 11, ["divides by a positive number, not 0"]),
    ("round // d6", "amount", 10, ["divides by a fixed number"]),
    ("round / 2", "amount", 7, ["cannot read '/'", "//"]),
    ("round = 1", "condition", 7, ["cannot read '='", "compare with =="]),
    ("mounted && true", "condition", 9, ["cannot read '&'", "write 'and'"]),
    ("mounted || true", "condition", 9, ["cannot read '|'", "write 'or'"]),
    ("!mounted", "condition", 1, ["cannot read '!'"]),
    ("round +", "amount", 8, ["ends too soon", "expected"]),
    ("(round", "amount", 7, ["ends too soon", "')'"]),
    ("round)", "amount", 6, ["')' cannot stand here"]),
    ("round 3", "amount", 7, ["a number '3' cannot stand here"]),
    ("", "amount", None, ["the expression is empty"]),
    ("   ", "condition", None, ["the expression is empty"]),
    ("round in 3", "condition", 10, ["expected '('"]),
    ("round in (self.wounds)", "condition", 11, ["a name 'self.wounds' cannot stand here"]),
    ("0d6", "amount", 1, ["the number of dice must be 1..100"]),
    ("101d6", "amount", 1, ["the number of dice must be 1..100"]),
    ("2d0", "amount", 1, ["sides must be 1..1000"]),
    ("d1001", "amount", 1, ["sides must be 1..1000"]),
    ("99999999999", "amount", 1, ["too large"]),
    ("foo(1)", "amount", 4, ["only min(...) and max(...) can be called"]),
    ("min()", "amount", 5, ["cannot stand here"]),
    ("max", "amount", 4, ["ends too soon", "'('"]),
    ("1 if mounted", "amount", 13, ["ends too soon", "'else'"]),
    ("round\n>= x", "condition", 10, ["unknown name 'x'", '"round >= x"']),  # \n: one column
    ("round >= 3 #", "condition", 12, ["cannot read '#'"]),
]


@pytest.mark.parametrize(("text", "purpose", "column", "words"), ERRORS)
def test_every_mistake_is_one_line_naming_the_column(text, purpose, column, words):
    compile_ = compile_condition if purpose == "condition" else compile_amount
    with pytest.raises(LanguageError) as caught:
        compile_(text, NAMES, where="weapons.war_pick.modifiers[0].when")
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith("weapons.war_pick.modifiers[0].when: in ")
    assert caught.value.column == column
    assert (f", column {column}: " in message) == (column is not None)
    for word in words:
        assert word in message, message
    assert isinstance(caught.value, SpecError)


def test_the_error_of_the_brief_reads_as_written():
    with pytest.raises(LanguageError) as caught:
        compile_condition("target.armor_rank >= 3", NAMES)
    assert str(caught.value) == (
        'in "target.armor_rank >= 3", column 1: unknown name \'target.armor_rank\' '
        "(did you mean 'target.armour_rank' or 'target.stance'?); names: self.wounds, target.armour_rank, "
        "round, foes_engaged, self.edge, target.shield, self.stance, target.stance, "
        "mounted, self.prone")


def test_a_language_error_pickles_with_its_place():
    with pytest.raises(LanguageError) as caught:
        compile_condition("rnd > 1", NAMES, where="x.when")
    again = pickle.loads(pickle.dumps(caught.value))
    assert str(again) == str(caught.value) and again.column == 1 and again.where == "x.when"


def test_a_value_of_the_wrong_type_is_refused():
    with pytest.raises(LanguageError, match="an amount must be a whole number or a string"):
        compile_amount(1.5, NAMES)
    with pytest.raises(LanguageError, match="a condition must be true, false or a string"):
        compile_condition(1, NAMES)
    with pytest.raises(LanguageError, match="an amount must be"):
        compile_amount(True, NAMES)


# --- nothing is evaluated -------------------------------------------------------------------------
HOSTILE = [
    "__import__('os').system('touch /tmp/owned')",
    "self.__class__",
    "self.wounds.__class__.__mro__",
    "().__class__.__bases__[0].__subclasses__()",
    "round.real",
    "eval('1')",
    "exec('x = 1')",
    "open('/etc/passwd')",
    "lambda: 1",
    "[x for x in (1, 2)]",
    "{'a': 1}",
    "round; import os",
    "f'{round}'",
    "round if __debug__ else 1",
    "getattr(self, 'wounds')",
    "self['wounds']",
    "1 ** 100000",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_code_and_attribute_tricks_are_refused_without_running(text, monkeypatch):
    def forbidden(*args, **kwargs):
        raise AssertionError("the language called eval, exec or compile")

    monkeypatch.setattr(builtins, "eval", forbidden)
    monkeypatch.setattr(builtins, "exec", forbidden)
    monkeypatch.setattr(builtins, "compile", forbidden)
    with pytest.raises(LanguageError) as caught:
        compile_amount(text, NAMES)
    assert "\n" not in str(caught.value) and caught.value.column is not None


def test_the_package_source_never_calls_eval_or_exec():
    import ast
    from pathlib import Path

    import balance.language

    for path in Path(balance.language.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                assert node.func.id not in ("eval", "exec", "compile", "__import__"), path


def test_import_balance_does_not_import_lark():
    code = ("import sys, balance, balance.language; "
            "print('lark' in sys.modules); "
            "balance.language.compile_condition('true', balance.language.Names()); "
            "print('lark' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120).stdout.split()
    assert out == ["False", "True"]


def test_expressions_are_immutable_hashable_and_pickle():
    amount = compile_amount("2d6 + self.wounds // 2", NAMES)
    with pytest.raises(AttributeError):
        amount.text = "1"
    again = pickle.loads(pickle.dumps(amount))
    assert again == amount and hash(again) == hash(amount)
    assert again.evaluate(FIGHT, np.random.default_rng(5), n=10).tolist() == \
        amount.evaluate(FIGHT, np.random.default_rng(5), n=10).tolist()
    assert compile_amount("2d6 + self.wounds // 2", NAMES) is amount  # compiled once
    assert {amount: 1}[again] == 1


def test_the_language_sits_below_the_rulesets():
    # The rulesets and ruleset files build on the language, never the other way round:
    # it reads only the core modules (errors, fields, reading, dice).
    from ..core.test_imports import import_graph

    below = {"balance.errors", "balance.fields", "balance.reading", "balance.dice"}
    used = {target for module, targets in import_graph().items()
            if module.startswith("balance.language") for target in targets
            if not target.startswith("balance.language")}
    assert "balance.errors" in used and used <= below, used


def test_copies_of_an_expression_are_itself():
    import copy

    amount = compile_amount("d6 + round", NAMES)
    assert copy.copy(amount) is amount and copy.deepcopy([amount])[0] is amount
