"""Whole sentences about the request rather than the data, dropped from a question (see query/request.py).

"I'm working on a report.", "Assume PostgreSQL syntax.", "Could you give me the SQL?", "### Input:", "Best
regards, Dana", "I keep getting a different number from the dashboard.": a sentence names the request, its
user or nothing of the data, and the sentence that asks keeps what the question is about.
"""

from __future__ import annotations

from .wording import (
    ADDRESSED,
    ENDS,
    LABELS,
    LEADING,
    ORDERS,
    PERSONS,
    QUESTION_STARTS,
    REQUESTING,
    SIGNING,
    SIGNING_STARTS,
    SPEAKING,
    TITLES,
    WE,
    WH_WORDS,
    asks,
    is_content,
    tokens,
)


def without_requests(text: str) -> str:
    """The text without its sentences about the request rather than the data.

    A sentence (or a label before a colon) about the request (see _about) holds at most 3 words of its own;
    it is cut where a sentence that is not about the request holds more, so a question that names a database
    or a query ("Which database administrators earn the most? List them.") keeps all of it, or, whatever the
    lengths, where nothing in it asks and another sentence does.
    """
    toks = tokens(text)
    spans = _sentences(text, toks)
    if len(spans) < 2:
        return text
    sentences = [[w for _, _, w in toks[a:b]] for a, b in spans]
    # A letter's close ends it: what follows is its writer's signature.
    signed = next((i for i, ws in enumerate(sentences) if i > 0 and _signed(ws)), len(sentences))
    own = [0 if i >= signed else sum(is_content(w) for w in ws) for i, ws in enumerate(sentences)]
    about = [i >= signed or _about(ws, n) for i, (ws, n) in enumerate(zip(sentences, own, strict=True))]
    most = max((n for n, a in zip(own, about, strict=True) if not a), default=0)
    if most == 0:
        return text
    # Beside a sentence that asks, one that does not go whatever the question's length where nothing in it
    # asks and it is about the request, speaks of its user ("I keep getting a different number.") or is a
    # remark in brackets; so does a question to the assistant ("Can someone take this?").
    asking = any(not a and n > 0 and asks(ws) for ws, n, a in zip(sentences, own, about, strict=True))
    before, after = [[""], *sentences[:-1]], [*sentences[1:], [""]]
    told = [asking and ((a and bool(ADDRESSED.intersection(ws))) or _lead_in(ws, nxt)
                        or (_telling(ws) and (a or (n <= 6 and bool(PERSONS.intersection(ws))) or _remark(ws, last))))
            for ws, n, a, last, nxt in zip(sentences, own, about, before, after, strict=True)]
    kept = [span for span, n, a, t in zip(spans, own, about, told, strict=True) if not (t or (a and n < most))]
    if len(kept) == len(spans):
        return text
    left = " ".join(text[toks[a][0]:toks[b - 1][1]] for a, b in kept)
    quoted = len(left) > 2 and left[0] == left[-1] and left[0] in "\"'" and left[0] not in left[1:-1]
    return left[1:-1] if quoted else left


def _sentences(text: str, toks: list[tuple[int, int, str]]) -> list[tuple[int, int]]:
    """Token spans of the sentences: each ends where _ends says, and a closing bracketed remark ("... (T-SQL,
    please)") is one of its own."""
    ends, quoted = [], False
    for i in range(len(toks) - 1):
        quoted = quoted != (toks[i][2] == '"')
        # Not at a title's colon in quotes ('"Refuge: Part 1"'), nor after an abbreviation or an initial on
        # the same line ("Mrs. Joye Homenick", "Jill M. Stevens").
        colon = quoted and toks[i][2] == ":"
        titled = (i > 0 and toks[i][2] == "." and "\n" not in text[toks[i][1]:toks[i + 1][0]]
                  and (toks[i - 1][2] in TITLES or len(toks[i - 1][2]) == 1 and text[toks[i - 1][0]].isupper()))
        # '..."? Please advise': a quote closed right after the mark ends the sentence as the mark would
        closed = toks[i][2] == '"' and not quoted and i > 0 and toks[i - 1][2] in ".!?"
        ending = _ends(text, toks[i][:2] + (toks[i - 1][2],) if closed else toks[i], toks[i + 1])
        if ending and not colon and not titled:
            ends.append(i + 1)
    last = len(toks) - 1 if toks and toks[-1][2] in ".!?" else len(toks)
    if last > 0 and toks[last - 1][2] == ")":
        opening = max((i for i in range(last) if toks[i][2] == "("), default=0)
        remark = [w for _, _, w in toks[opening + 1:last - 1]]
        if opening > 0 and ")" not in remark and any(w[0].isalnum() for w in remark):
            ends.append(opening)
    bounds = [0, *sorted(set(ends)), len(toks)]
    return [(a, b) for a, b in zip(bounds, bounds[1:], strict=False) if a < b]


def _ends(text: str, tok: tuple[int, int, str], nxt: tuple[int, int, str]) -> bool:
    """A sentence ends between two tokens at a mark a space and a capital follow ("30? Output", "SQL: How";
    not "U.S" or "Ltd. write"), at a question mark before any word ("...? need it asap"), and at a line break
    before a capital or a Markdown mark ("## Question\nHow many ...")."""
    gap = text[tok[1]:nxt[0]]
    if not gap.isspace():
        return False
    head = text[nxt[0]]
    return ((tok[2] in ENDS and _opens(head)) or (tok[2] == "?" and head.isalnum())
            or ("\n" in gap and _opens(head) and tok[2] != ","))


def _about(words: list[str], own: int) -> bool:
    """Whether a sentence with `own` words of its own is about the request: one that asks does so of the
    assistant ("Could you write the SQL?", "What would the query look like?"), one that does not names the
    request, its user or nothing ("Assume PostgreSQL syntax.", "I'm new to this.", "Good morning.")."""
    if own > 3:
        return False
    framing = LABELS if _labelled(words) else REQUESTING
    framed, person = any(w in framing for w in words), bool(PERSONS.intersection(words))
    if asks(words):  # "we" asks of the data ("How many singers do we have in Hive?")
        speaking = bool(SPEAKING.intersection(words) - WE)
        return (framed and (speaking or own <= 2)) or (own <= 1 and bool(ADDRESSED.intersection(words)))
    return framed or person or (own == 0 and sum(w[0].isalnum() for w in words) > 1)


def _telling(words: list[str]) -> bool:
    """Whether nothing in a sentence asks ("For each, tell me the date" does; "how to" does not)."""
    return not asks(words) and not any(w in ORDERS or (w in WH_WORDS and words[i + 1:i + 2] != ["to"])
                                        for i, w in enumerate(words))


def _lead_in(words: list[str], following: list[str]) -> bool:
    """A lead-in about the request before a sentence that starts to ask ("Building a Power BI report and need a
    DAX measure for this: How many ...?"); not a title's ("Singers: How many ...?")."""
    first = next((w for w in following if w not in LEADING), "")
    return words[-1] == ":" and first in QUESTION_STARTS and any(w in REQUESTING for w in words)


def _remark(words: list[str], before: list[str]) -> bool:
    """A sentence in brackets after one that ended ("...? (nothing fancy, raw numbers are fine)"); not a
    sentence's closing remark ("... the highest price (in USD).")."""
    return before[-1] in ENDS and words[0] == "(" and ")" in words[-2:] and words.count("(") == 1


def _signed(words: list[str]) -> bool:
    """A letter's close and its writer's name ("Best regards, Dana"), which holds nothing of the question's."""
    comma = next((i for i, w in enumerate(words[:4]) if w == ","), 0)
    return (comma > 0 and words[0] in SIGNING_STARTS
            and any(w in SIGNING for w in words[:comma])
            and sum(w[0].isalnum() for w in words[comma + 1:]) <= 3)


def _labelled(words: list[str]) -> bool:
    """A label ("User request:", "### Input:", "## Question", "<|user|>") or a sentence after one
    ("Instruction: produce a SELECT.")."""
    if words[-1] == ":" or words[0] == "#" or (sum(w[0].isalnum() for w in words) == 1 and "<" in words):
        return True
    colon = next((i for i, w in enumerate(words[:5]) if w == ":"), 0)
    return colon > 0 and sum(w[0].isalnum() for w in words[:colon]) == 1


def _opens(char: str) -> bool:
    """A sentence starts with a capital, a quote or bracket, a Markdown heading or emphasis ("### Input:") or a
    chat template's tag ("[INST]", "<|user|>")."""
    return char.isupper() or char in "\"'(\u201c#*[<"
