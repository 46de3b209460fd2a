"""What the channels read of a question, and what its query vectors embed: one text for both, so that the
names embedded alone are the names the evidence reads."""

from __future__ import annotations

from ..index.casing import Casing
from ..index.people import People
from .request import core


def read(question: str, people: People, casing: Casing) -> str:
    """The request's core (query/request.py), with the capitals of the names its writer typed without
    (index/casing.py)."""
    return casing.restore(core(question, people.words), people)
