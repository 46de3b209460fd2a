"""A pasted document's lines that are its items (fields, code, a signature, an agenda's other points) are not
read as the question's; a line that goes on with the question, or is its condition, is."""

from __future__ import annotations

import pytest

from retriever.query.lines import fields, items
from retriever.query.wording import asks, tokens


def _asks(text: str) -> bool:
    return asks([w for _, _, w in tokens(text)])


@pytest.mark.parametrize(("pasted", "left"), [
    ("TICKET #48213 | Priority: Medium | Reporter: A. Mehta\nSummary: data lookup request\n"
     "Description: How many pets?\nStatus: Open", "Description: How many pets?"),
    ("Items for this week's sync:\n- finalize the deck\n- How many pets are there?\n- book a room",
     "Items for this week's sync:\n- How many pets are there?"),
    ("How many pets are there?\n\nSteps:\n1. Open the portal\n2. Try to get the answer", "How many pets are there?"),
    ("# how many pets are there\ndf = run_query(q)", "# how many pets are there"),
    ("def get_answer():\n    # How many pets?\n    raise NotImplementedError", "    # How many pets?"),
    ("how many pets are there\n\n--\nIngrid Johansson | Analyst | Strategy Office\nThis e-mail is confidential.",
     "how many pets are there"),
    ("Task T-3307\nhow many pets are there", "how many pets are there"),
    ("AUDIT FINDING FOLLOW-UP\nwhat is the average age of the pets", "what is the average age of the pets"),
    ("**Describe the request**\nHow many pets?\n\n**Additional context**\nfor the report.",
     "How many pets?\nfor the report."),
    ("How many pets?\n-- added by ops", "How many pets?"),
    ("How many pets?\n```sql\nSELECT ??? FROM ???\n```", "How many pets?"),
    ("How many pets?\nSELECT name FROM pets WHERE ???", "How many pets?"),
    ("Asked 2 days ago  Modified today  Viewed 48 times\nHow many pets?", "How many pets?"),
    ("Posted by a learner\nHow many pets?", "How many pets?"),
    ("How many pets are there?\nWhat I tried: a few queries", "How many pets are there?"),
    # a block may only set the question apart: its fences go, its line stays
    ("```\nHow many pets are there?\n```\nWhat's the SQL for the above?",
     "How many pets are there?\nWhat's the SQL for the above?"),
])
def test_a_documents_items_go(pasted: str, left: str) -> None:
    assert items(pasted, _asks) == left


@pytest.mark.parametrize("pasted", [
    "How many pets are there?\nStatus: Open",  # a field alone may be the question's condition
    "From: 2014\nHow many pets were born?",  # a field a preposition names is one
    "Among the pets, how many of them can be\nadopted without a fee?",  # a line that goes on with the one before
    "List the pets\n- their names\n- their ages",  # items that go on with the question
    "Show me these:\n- the pets\n- the owners",  # items of a list under a line that asks
    "Which pets are older than 3?\nSorted by age.",
    'ask("How many pets?")\n12',  # a call that quotes the question is no line of code to drop
    "Priority: Low\nOwner: Ops",  # nothing asks
    "Need numbers for:\n- piano\n- guitar\nHow many pupils play each?",  # a list before the question
    "SALES REPORT\nWhich region sold the most?",  # a title in capitals that may be the data's
    "How many pets?",
    "List the pets\nName \u00b7 Age \u00b7 Owner's city.",  # a line of parts that ends as a sentence
])
def test_the_questions_lines_stay(pasted: str) -> None:
    assert items(pasted, _asks) == pasted


def test_fields_on_one_line_are_read_as_a_forms() -> None:
    assert fields("Requester: D. Mwangi / Team: Ops / Due: 15-Aug / Question: How many pets? / Notes: none",
                  _asks) == "How many pets?"
    assert fields("What share of wins / losses did each team have?", _asks) == (
        "What share of wins / losses did each team have?")
