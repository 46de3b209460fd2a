"""What the channels read of a question, and what its query vectors embed: one text for both, so that the
names embedded alone are the names the evidence reads."""

from __future__ import annotations

from ..index.casing import Casing
from ..index.people import People
from ..index.text import plain_quotes
from .request import core

#: Questions a Reader keeps the reading of: the query embedding reads a question just before the planner does.
READINGS_KEPT = 64


def read(question: str, people: People, casing: Casing) -> str:
    """The request's core (query/request.py) with plain quotes, and with the capitals of the names its writer
    typed without (index/casing.py)."""
    return casing.restore(plain_quotes(core(question, people.words)), people)


class Reader:
    """`read` for one index, kept for the last questions: the query embedding and the planner share one, so a
    question is read once between them."""

    def __init__(self, people: People, casing: Casing) -> None:
        self.people, self.casing = people, casing
        self._kept: dict[str, str] = {}

    def __call__(self, question: str) -> str:
        text = self._kept.get(question)
        if text is None:
            text = read(question, self.people, self.casing)
            if len(self._kept) >= READINGS_KEPT:
                del self._kept[next(iter(self._kept))]  # the oldest
            self._kept[question] = text
        return text
