"""``balance._recent.Recent``: the bounded memory the analyses and the read-back share."""

from balance._recent import Recent


def test_it_keeps_the_last_answers_and_forgets_the_oldest_first() -> None:
    memory: Recent[str, int] = Recent(2)
    assert memory.keep("a", 1) == 1
    memory.keep("b", 2)
    memory.keep("c", 3)
    assert dict(memory) == {"b": 2, "c": 3}
    memory.keep("c", 4)  # a key it holds: replaced, nothing forgotten
    assert dict(memory) == {"b": 2, "c": 4}
