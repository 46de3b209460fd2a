"""The question a request asks, without the words that wrap it for a SQL assistant.

Users paste what they would write to a text-to-SQL tool: "Write a SQL query to answer this question: ...",
"In the database, ...", "... Thanks!". Those words name no table, yet they count as terms ("query",
"database"), move the question's embedding and read as a name ("SQL"): on Spider dev the first wrapping
alone cost 8 points. A wrapping is cut only at a clause boundary (or after "to find" and its like), only
where it is made of function, command and framing words with at least one word a request uses (a leading
one only before a word a question starts with), and only where the question keeps words of its own; none
of the benchmarks' questions as written is changed (one of BIRD's 9,428: "In the database, how many ...").
"""

from __future__ import annotations

import re

from ..index.text import COMMANDS, STOPWORDS, normalize

#: Words only a request around a question uses: one of them must be in what is cut.
FRAMING = frozenset(
    """sql sqlite mysql postgres postgresql tsql query queries database databases db schema schemas dataset
    datasets records tables question request task help thanks thank thx appreciated hi hello hey dear assistant
    joins asked""".split()
)
#: Words a request's wrapping is made of besides function and command words.
WRAPPING = frozenset(
    """write generate create produce build compose translate convert turn answer answers respond reply help lot
    much know like want need needed wondering wonder curious ask asking appreciate advance following below use
    using based given according looking data information info table tables statement statements select standard
    single join code explanation comments text t task request note good morning afternoon evening quick simple
    output result results plain english correct proper ok okay sure team everyone folks look check run execute
    let lets could would will shall might retrieve fetch i'm i'd i've we're let's here's it's that's manager
    boss colleague""".split()
)
#: How a question starts: a leading wrapping is cut only before one, so a clause of the question itself
#: ("What are the records, sorted by date?") is never taken for one.
_STARTS = STOPWORDS - {"a", "an", "the", "this", "that", "these", "those"} | COMMANDS | {"name", "among", "list"}
_COMMANDING = COMMANDS | {w + "s" for w in COMMANDS} | {"retrieve", "fetch", "retrieves", "fetches"}
_ALLOWED = STOPWORDS | FRAMING | WRAPPING | _COMMANDING
#: Marks a clause ends at: a wrapping is cut after one (leading) or before what follows one (trailing).
_BOUNDARY = frozenset(":,.!?;-()\u2013\u2014")
_TOKEN = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)?|[^\w\s]")


def core(question: str) -> str:
    """The question without a leading and a trailing wrapping (see the module's docstring)."""
    text = normalize(question)
    toks = [(m.start(), m.end(), m.group(0).lower()) for m in _TOKEN.finditer(text)]
    start = _lead_end(toks)
    end = _tail_start(toks, start)
    if start == 0 and end == len(toks):
        return question
    begin = toks[start][0] if start < len(toks) else len(text)
    stop = toks[end - 1][1] if end > start else begin
    return text[begin:stop].strip() or question


def _allowed(word: str) -> bool:
    return word in _ALLOWED or word in _BOUNDARY


def _content(word: str) -> bool:
    return word[0].isalnum() and word not in _ALLOWED


def _lead_end(toks: list[tuple[int, int, str]]) -> int:
    """How many leading tokens are a wrapping: the last cut point of the run of allowed tokens, where the run
    so far holds a framing word and a content word follows."""
    cut, framed = 0, False
    for i, (_, _, w) in enumerate(toks):
        if not _allowed(w):
            break
        framed = framed or w in FRAMING
        after_to = w in _COMMANDING and i > 0 and toks[i - 1][2] == "to"
        starts = i + 1 < len(toks) and toks[i + 1][2] in _STARTS
        if framed and ((w in _BOUNDARY and starts) or after_to):
            cut = i + 1
    return cut if any(_content(w) for _, _, w in toks[cut:]) else 0


def _tail_start(toks: list[tuple[int, int, str]], start: int) -> int:
    """Where a trailing wrapping begins (len(toks) if none): after the earliest clause mark of the trailing
    run of allowed tokens whose rest holds a framing word, if a content word comes before it."""
    i = len(toks)
    while i > start and _allowed(toks[i - 1][2]):
        i -= 1
    for j in range(i, len(toks)):
        w = toks[j][2]
        if (w in _BOUNDARY and any(t in FRAMING for _, _, t in toks[j + 1:])
                and any(_content(t) for _, _, t in toks[start:j])):
            # A sentence keeps its own mark ("?"); a comma goes with the wrapping.
            return j + 1 if w in "?!." else j
    return len(toks)
