"""Whole sentences about the request rather than the data, dropped from a question (see query/request.py).

"I'm working on a report.", "Assume PostgreSQL syntax.", "Could you give me the SQL?", "### Input:", "Best
regards, Dana", "I keep getting a different number from the dashboard.", "Hope this is the right place.": a
sentence names the request, its user or nothing of the data, and the sentence that asks keeps what the
question is about. Beside the question, a sentence goes by default where nothing in it asks or is named and
it does not go on with the question (_idle): users' remarks outnumber the words any list can hold.
"""

from __future__ import annotations

from ..index.text import STOPWORDS
from .addressing import appeals, closes, forbids, greets, introduces, persona, unappealed
from .boundaries import sentence_spans
from .wording import (
    ADDRESSED,
    CLAUSE_MARKS,
    COMMANDING,
    CONTINUING,
    DASHES,
    DETERMINERS,
    ENDS,
    GOING_ON,
    JOINING,
    LABELS,
    LEADING,
    MEANING,
    MESSAGING,
    MODALS,
    NARRATING,
    OBJECTS,
    ORDERS,
    PARTS,
    PERSONS,
    PREPOSITIONS,
    QUESTION_STARTS,
    QUOTES,
    REFERRING,
    REQUESTING,
    SAYING,
    SPEAKING,
    STATING,
    STEPS,
    TIME_UNITS,
    UNORDERED,
    WE,
    WH,
    WH_WORDS,
    asks,
    clock,
    foreign,
    is_content,
    named,
    next_word,
    tokens,
    tried,
)


def without_requests(text: str, lexicon: frozenset[str] = frozenset()) -> str:
    """The text without its sentences about the request rather than the data.

    A sentence (or a label before a colon) about the request (see _about) holds at most 3 words of its own;
    it is cut where a sentence that is not about the request holds more, so a question that names a database
    or a query ("Which database administrators earn the most? List them.") keeps all of it, or, whatever the
    lengths, where nothing in it asks and another sentence does. A sentence in another language than the
    dictionary's (`lexicon`) asks nothing and goes beside one that asks ("Oi gente, tudo bem?", "Tanaka desu.").
    """
    toks = tokens(text)
    spans = sentence_spans(text, toks)
    if len(spans) < 2:
        return text
    sentences = [unappealed([w for _, _, w in toks[a:b]]) for a, b in spans]
    # A letter's close ends it: what follows is its writer's signature.
    signed = next((i for i, ws in enumerate(sentences) if i > 0 and closes(ws)), len(sentences))
    own = [0 if i >= signed else sum(is_content(w) for w in ws) for i, ws in enumerate(sentences)]
    about = [i >= signed or _about(ws, n) for i, (ws, n) in enumerate(zip(sentences, own, strict=True))]
    most = max((n for n, a in zip(own, about, strict=True) if not a), default=0)
    if most == 0:
        return text
    # Beside a sentence that asks, one that does not go whatever the question's length where nothing in it
    # asks and it is about the request, speaks of its user ("I keep getting a different number.") or is a
    # remark in brackets; so does a question to the assistant ("Can someone take this?").
    names = [named(text, toks[a:b]) for a, b in spans]
    alien = [foreign(text, toks[a:b], lexicon, m) for (a, b), m in zip(spans, names, strict=True)]
    asked = [i for i, (ws, n, a, f) in enumerate(zip(sentences, own, about, alien, strict=True))
             if not a and n > 0 and asks(ws) and not f]
    if not asked:
        told = [False] * len(spans)
    else:
        # A lead-in ("customer on the line asking:", "quick one —") introduces the question after it, and
        # what comes before it and does not ask is its preamble ("So, some context: my manager asked me ...");
        # the question may come past a sentence about the request ("See below.\n--- Forwarded message ---\n...").
        nexts = [next((sentences[j] for j in range(i + 1, len(sentences)) if not about[j]), [""])
                 for i in range(len(sentences))]
        leads = [(_lead_in(ws, nxt) or (past is not nxt and _lead_in(ws, past)))
                 and (not m or _points(ws) or any(w in REQUESTING or w in SAYING for w in ws))
                 for ws, nxt, past, m in zip(sentences, [*sentences[1:], [""]], nexts, names, strict=True)]
        lead = max((i for i, led in enumerate(leads) if led), default=-1)
        # a sentence inside a quote ('In "Florence. Without the walls. A tucket afar off", what ...')
        quoting = [sum(w == '"' for _, _, w in toks[:a]) % 2 == 1 for a, _ in spans]
        told = []
        pointing = any({"he", "she"}.intersection(sentences[j]) for j in asked)  # someone named outside it
        for i, (ws, n, a, last) in enumerate(zip(sentences, own, about, [[""], *sentences[:-1]], strict=True)):
            # Before the first sentence that asks or after the last, an aside in which nothing asks and nothing
            # is named but loosely (_loose) ("URGENT!!!", "pls hurry", "— seeing weird numbers", "No rush.").
            after = i > asked[-1]
            following = sentences[i + 1] if i + 1 < len(sentences) else []
            aside = ((i < asked[0] or after) and not quoting[i]
                     and (not names[i] or _loose(text, toks, spans, i, asked, after, ws, last, pointing))
                     and (_aside(ws, after) or (_idle(ws, after, following)
                                                and not _continued(text, toks, spans[i][0], ws))))
            personal = n <= 6 and (bool(PERSONS.intersection(ws)) or introduces(ws))
            # a label that ends the text introduces nothing ("... how many ...? Speaker 1:")
            ending = i == len(sentences) - 1 and after and ws[-1] == ":"
            # a greeting that introduces its writer ("Hiya its Bev from the shop.")
            greeting = i < asked[0] and greets(ws) and _telling(ws)
            # what the user told whoever asked ("I said I'd check.", "I told them we'd get back within 24h."; not
            # "We said only the dogs.")
            narrated = (ws[0] in ("i", "we") and len(ws) > 1 and ws[1] in NARRATING and not asks(ws)
                        and not WH_WORDS.intersection(ws) and not (GOING_ON - PREPOSITIONS).intersection(ws))
            # a stamp before the question's capital: who, when, which file or item ("Comment by J. Ortiz (10:42):
            # What ...", "IMG_4471.HEIC (OCR): How ...", "2024.03.11 — 14h07m — <ngozi.e> Find ...")
            stamped = (i + 1 == asked[0] and not quoting[i] and _stamp(ws) and following[0] in WH_WORDS | COMMANDING
                       and text[toks[spans[i + 1][0]][0]].isupper())
            told.append(leads[i] or (alien[i] and not quoting[i]) or ending or greeting or narrated or persona(ws)
                        or stamped or (i >= signed and after)
                        or (i < lead and not asks(ws) and not names[i])
                        or (a and bool(ADDRESSED.intersection(ws))) or forbids(ws)
                        or (_telling(ws) and (a or personal or _remark(ws, last) or aside
                                              or (after and _set_off(ws, last)))))
    kept = [span for span, n, a, t in zip(spans, own, about, told, strict=True) if not (t or (a and n < most))]
    if len(kept) == len(spans):
        return text
    left = " ".join(text[toks[a][0]:toks[b - 1][1]] for a, b in kept)
    quoted = len(left) > 2 and left[0] == left[-1] and left[0] in "\"'" and left[0] not in left[1:-1]
    return left[1:-1] if quoted else left


def _about(words: list[str], own: int) -> bool:
    """Whether a sentence with `own` words of its own is about the request: one that asks does so of the
    assistant ("Could you write the SQL?", "What would the query look like?"), one that does not names the
    request, its user or nothing ("Assume PostgreSQL syntax.", "I'm new to this.", "Good morning.")."""
    if appeals(words) and own <= 6:
        return True
    if own > 3:
        return False
    if words[0] == "#" and words[-1] != "?" and sum(w[0].isalnum() for w in words) <= 2:
        return True  # a heading ("## Why", "## Format")
    if words[-1] == ":" and all(w in PARTS or w.isdigit() for w in words[:-1] if w[0].isalnum()):
        return True  # a step's or a part's label ("Step 2:")
    framing = LABELS if _labelled(words) else REQUESTING
    framed, person = any(w in framing for w in words), bool(PERSONS.intersection(words))
    if asks(words):  # "we" asks of the data ("How many singers do we have in Hive?")
        if words[-1] == "?" and any(w in CLAUSE_MARKS and next_word(words[i + 1:]) in WH_WORDS
                                    for i, w in enumerate(words)):
            return False  # the question is in it ("And, sorry, could we also, like, how many ...?")
        speaking = bool(SPEAKING.intersection(words) - WE)
        # "Can someone grab this for the board deck?": the assistant asked to do the request
        pointed = (len(words) > 2 and words[0] in MODALS and words[1] in ADDRESSED and "this" in words[2:5]
                   and not any(w in WH_WORDS for w in words))
        # "What am I missing?", "Where did I go wrong?": the user asks about their own work
        # (not where it goes on to what it asks: "what i meant to ask was how many singers ...?")
        own_work = (own <= 2 and words[0] in WH_WORDS and "i" in words[1:3]
                    and not any(w in WH for w in words[3:]))
        # "Identify the relevant tables.": a step of the request's, done to its tables or query
        step = (own == 0 and bool(STEPS.intersection(words)) and not WH_WORDS.intersection(words)
                and not REFERRING.intersection(words))
        return ((framed and (speaking or own <= 2)) or (own <= 1 and bool(ADDRESSED.intersection(words))) or pointed
                or own_work or step)
    return framed or person or (own == 0 and sum(w[0].isalnum() for w in words) > 1)


def _telling(words: list[str]) -> bool:
    """Whether nothing in a sentence asks ("For each, tell me the date" does; "how to", "meant to post", "in the
    group chat" and "If you can't find it" do not)."""
    return not asks(words) and not any(_orders(words, i)
                                        or (w in WH_WORDS and words[i + 1:i + 2] != ["to"] and not tried(words, i))
                                        for i, w in enumerate(words))


def _orders(words: list[str], i: int) -> bool:
    """Whether the word at `i` orders something done to the data: a command's word, not its third person ("it
    gets"), not after a subject, a modal or a negation ("you can't find"; but "I mean"), nor a determiner but
    "the name"."""
    w, before = words[i], words[i - 1] if i else ""
    return (w in ORDERS and w not in STATING and (before not in UNORDERED or w in MEANING)
            and (before not in DETERMINERS or w == "name")
            and not (w in MEANING and words[i + 1:i + 2] == ["to"]))


def _lead_in(words: list[str], following: list[str]) -> bool:
    """A lead-in about the request before a sentence that starts to ask ("Building a Power BI report and need a
    DAX measure for this: How many ...?", "INC-4821 follow-up:", "Sorry to bother you, but —"); not a
    title's ("Singers: How many ...?")."""
    first = next((w for w in following if w not in LEADING and w not in QUOTES), "")  # '"How many ...?"'
    tagged = words[0] in ("(", "[") and words[-1] in (")", "]") and words.count(words[0]) == 1  # "[ad-hoc request]"
    # or a sentence that points at the next ("Kindly do the needful and share the below detail.")
    pointing = _points(words)
    ended = words[-1] == ":" or words[-1] in DASHES or words[-2:] == [".", "."] or tagged or pointing
    said = ([w for w in words if w[0].isalnum()][-1:] == ["but"] or pointing
            or any(w in MESSAGING or w == "please" for w in words))
    # before a preposition, one that asks nothing before a sentence that does ("(Ref. A-114): For each, what")
    led = first in PREPOSITIONS and asks(following) and not asks(words)
    return ended and (first in QUESTION_STARTS or led) and said


def _points(words: list[str]) -> bool:
    """A sentence that points at the question after it ("Kindly share the below detail.", "See below from
    Olga.", "Please find below the request from the regional office:", "Just got this from Carlos at Estrella
    Group:", "what I actually need is this:"; after it, "^ that's from Kwame at Ridgeline."), whose names are
    the message's ("Olga"), not the data's."""
    pointers = any((w == "the" and nxt in ("below", "following")) or (w in ("see", "find") and nxt == "below")
                   or (w in ("this", "that's") and nxt == "from") for w, nxt in zip(words, words[1:], strict=False))
    return (words[-1] in (".", ":") and pointers) or words[-2:] == ["this", ":"]


def _aside(words: list[str], after: bool) -> bool:
    """A remark set off by a dash ("? — seeing weird numbers") or one in a message's words ("URGENT!!!",
    "No rush."); after the question, not one that goes on with it ("Only the active ones.", "Per channel.")."""
    timed = any(w.isdigit() and unit in TIME_UNITS for w, unit in zip(words, words[1:], strict=False))
    return words[0] in DASHES or ((not after or words[0] not in GOING_ON)
                                  and (timed or any(w in MESSAGING for w in words)))


def _idle(words: list[str], after: bool, following: list[str]) -> bool:
    """A remark of the user's that neither asks nor goes on with the question ("Hope this is the right place.",
    "Supporting documentation is not required at this stage.", "Keep it short."): a sentence that starts
    with none of a going-on's words ("Only ...", "That is to say, ...", "(sex is M)", "Latest first."), is
    no one-word title of the question after it ("Singers: How many ..."), is not one the question asks on from
    ("Work out the average pay. Also give his name."), refers to nothing of the question's after it ("Their
    sex is F.") and orders nothing done to the data ("Convert the duration to hour.", "Check all the
    invoices.")."""
    first = words[0]
    ordered = after and first not in STOPWORDS and len(words) > 1 and words[1] in OBJECTS
    joined = bool(following) and following[0] in JOINING
    # a title of one word before a colon or a dash and a question ("Singers: How many ...")
    titles = (words[-1] in (":", *DASHES) and is_content(first) and sum(w[0].isalnum() for w in words) == 1
              and asks(following))
    return (first not in GOING_ON and first not in CONTINUING and not titles and not joined
            and not (after and REFERRING.intersection(words)) and not ordered)


def _continued(text: str, toks: list[tuple[int, int, str]], start: int, words: list[str]) -> bool:
    """Whether a sentence with no function word goes on with a label's colon or a name's abbreviation on its
    line ("Environment: Energy production & use.", "Computer Info. Systems department", "Heli Swaren GmbH & Co.
    KG.")."""
    if start < 2 or STOPWORDS.intersection(words) or "\n" in text[toks[start - 1][1]:toks[start][0]]:
        return False
    mark, word = toks[start - 1], toks[start - 2]
    return mark[2] == ":" or (mark[2] == "." and text[word[0]].isupper() and len(word[2]) <= 4)


def _remark(words: list[str], before: list[str]) -> bool:
    """A sentence in brackets after one that ended ("...? (nothing fancy, raw numbers are fine)"); not a
    sentence's closing remark ("... the highest price (in USD).")."""
    return before[-1] in ENDS and words[0] == "(" and ")" in words[-2:] and words.count("(") == 1


def _loose(text: str, toks: list[tuple[int, int, str]], spans: list[tuple[int, int]], i: int, asked: list[int],
           after: bool, words: list[str], before: list[str], pointing: bool) -> bool:
    """Whether sentence `i`, which names something, may still go as an aside: a line apart from the question's
    ("Oliver Hartmann 10:02 AM\nHow many ..."), or a remark in words of its own after the question ended ("The
    Board noted the item."), where the question points at nothing outside it ("... did she ...? The customer is
    ...") and it is no name alone ("Customer Ursola Purdy.")."""
    if not any(w[0].isalnum() for w in words):
        return False  # a line of quote marks ('"""')
    gap = (text[toks[spans[asked[-1]][1] - 1][1]:toks[spans[i][0]][0]] if after
           else text[toks[spans[i][1] - 1][1]:toks[spans[asked[0]][0]][0]])
    own = toks[spans[i][0]:spans[i][1]]  # a number names something, a time of day not ("Yusuf Demir 09:59 no rush")
    lower = sum(text[a:b].isalpha() and text[a:b].islower() for a, b, _ in own[1:])
    numbered = any(any(c.isdigit() for c in w) and not clock(text, a) or w in QUOTES for a, _, w in own)
    return "\n" in gap or (after and before[-1] in (".", "!", "?") and not pointing and lower >= 2
                           and words[0][0].isalnum() and not numbered)


def _stamp(words: list[str]) -> bool:
    """A line's stamp that asks nothing, holds a number (a time, a date, an item's or a file's number) and is no
    sentence of its own nor an opening of the question's ("For 2014:", "In the 2010 season:")."""
    return (words[0] not in PREPOSITIONS | GOING_ON | CONTINUING and words[-1] not in (".", "!", "?")
            and any(any(c.isdigit() for c in w) for w in words) and _telling(words))


def _set_off(words: list[str], before: list[str]) -> bool:
    """A note set off after the question ended, by a dash, an arrow or brackets, whatever it names ("...? — ask
    Dev before Fri!!", "... → coffee order for Kenji", "[p. 3 of 9]"); not a dash before what narrows the
    question ("...? — the ones in Paris", "— only the active ones")."""
    closing = {"(": ")", "[": "]"}.get(words[0], "")
    dashed = words[0] in DASHES and next_word(words[1:]) not in STOPWORDS and words[1:2] != ["only"]
    return before[-1] in ENDS and (dashed or bool(closing) and closing in words[-2:])


def _labelled(words: list[str]) -> bool:
    """A label ("User request:", "### Input:", "## Question", "<|user|>") or a sentence after one
    ("Instruction: produce a SELECT.")."""
    if words[-1] == ":" or words[0] == "#" or (sum(w[0].isalnum() for w in words) == 1 and "<" in words):
        return True
    colon = next((i for i, w in enumerate(words[:5]) if w == ":"), 0)
    return colon > 0 and sum(w[0].isalnum() for w in words[:colon]) == 1
