"""A request's markup (a JSON body, HTML around it, quote and list marks, emoji) is not read as words."""

from __future__ import annotations

import pytest

from retriever.query.markup import unwrap


@pytest.mark.parametrize(("pasted", "text"), [
    ('{"model": "m", "messages": [{"role": "user", "content": "How many pets are there?"}], "temperature": 0}',
     "How many pets are there?"),
    ('{"question": "How many pets?", "dialect": "mysql", "explain": false}', "How many pets?"),
    ('<div class="msg"><b>Question:</b> How many pets?<br></div>', "Question: How many pets?"),
    ("> How many pets?\n> Thanks!", "How many pets?\nThanks!"),
    ("1. How many pets?\n2. (more to come)", "How many pets?\n(more to come)"),
    ("- How many pets?\n-- write it below", "How many pets?"),  # a comment that asks nothing is no question's
    ("- [ ] How many pets?\n- [x] Which are dogs?", "How many pets?\nWhich are dogs?"),
    ("[10:42 AM] Priya Nair: How many pets?\n[Mon 10:43] jlee: anyone?", "How many pets?\nanyone?"),
    ("From: Mark Ellison\nSubject: data request\n\nHi team,\nHow many pets?\nThanks,\nMark",
     "Subject: data request\nHi team,\nHow many pets?\nThanks,\nMark"),
    ("\U0001f64f How many pets? \U0001f914\U0001f4ca", "How many pets?"),
    ("Requester: Ops\nPriority: Low\nDescription: How many pets?\nDue: Friday", "How many pets?"),
    ("[DATA-REQ] How many pets?\nPriority: Low\nRequested by: Ops", "[DATA-REQ] How many pets?"),
    ("@data-help How many pets? :pray:", "How many pets?"),
    ("/* TODO: How many pets? */", "TODO: How many pets?"),
    ("Morning all \u2615 How many pets?", "Morning all . How many pets?"),  # an emoji before a capital ends a sentence
    ("this one -> How many pets?", "this one \u2192 How many pets?"),
    ("How many pets?\n_Context: weekly review_", "How many pets?\nContext: weekly review"),
    ("[10:42 AM] Kowalski, Anna\nHow many pets?", "How many pets?"),  # a speaker on the stamp's line
    ("[10:42] How Many Pets Are There?", "How Many Pets Are There?"),  # a message there is no speaker's name
    ("[Ticket #48213] Priority: Medium\nCategory: Reporting\nDescription: How many pets?", "How many pets?"),
    ("transcript 14:02 > How many pets?", "transcript 14:02 \u2192 How many pets?"),
    ("how many pets question mark", "how many pets?"),
    ("How many pets? period send", "How many pets?"),
    ("List the pets. full stop", "List the pets."),
    ("open quote how many pets close quote", "how many pets"),
    ("hey bot comma how many pets", "hey bot, how many pets"),
    ("[Participant 3, 00:41:09]: How many pets? [Participant 1, 00:41:20]: Later.", "How many pets? Later."),
    ('In [23]: ask("How many pets?")\nOut[23]: 12', 'ask("How many pets?")\n12'),  # a notebook's prompts
    ("**Goal:** a check\n**Question:** How many pets?\n**Format:** short", "How many pets?"),  # bold fields
])
def test_markup_goes(pasted: str, text: str) -> None:
    assert " ".join(unwrap(pasted, _asks).split()) == " ".join(text.split())


def _asks(text: str) -> bool:
    return text.rstrip().endswith("?")


@pytest.mark.parametrize("written", [
    "How many pets are older than 3?",
    "Which pets have age <30 or weight > 10?",  # comparisons are no tags
    'Who wrote "Hypermethylation of the <I>TPEF/HPP1</I> Gene"?',  # a value's own markup, inside the text
    "{not json} How many pets?",
    '["1", "2"]',  # a JSON body with no words keeps its text
    "What is the price in $ and in \u20ac?",  # currency signs are no emoji
    "List the top-3 pets - by age.",
    "Priority: Low\nOwner: Ops",  # a form with no field that asks
    "At 12:30:45, which pets were fed?",  # a time, not an emoji code
    "Which pets belong to ana@example.com?",  # an address, not a mention
    "From: 2014\nHow many pets were born?",  # one header-like line is no e-mail's header
    "[Note] How many pets?",  # a bracket with no time is no chat log's stamp
    "Which pets have a pet_type_id of 3?",  # underscores inside a name are no emphasis
    "Which pets have age->3?",  # an arrow only between spaces
    "Which pets have age > 3?",  # a prompt's mark only before a capital
    "List the films of the period",  # a spoken mark only after a mark or before the word that sends
])
def test_plain_text_is_left_as_it_is(written: str) -> None:
    assert unwrap(written, _asks) == written
