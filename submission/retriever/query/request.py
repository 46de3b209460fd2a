"""The question a request asks, without the words that wrap it for a SQL assistant.

Users paste what they would write to a text-to-SQL tool: "Write a SQL query to answer this question: ...",
"In the database, ...", "... Thanks!". Those words name no table, yet they count as terms ("query",
"database"), move the question's embedding and read as a name ("SQL"): on Spider dev the first wrapping
alone cost 8 points. Two kinds of cut remove them. A leading or trailing wrapping is cut only at a clause
boundary (or after "to find" and its like), only where it is made of function, command and framing words
with at least one word a request uses (a leading one only before a word a question starts with), and only
where the question keeps words of its own. Whole sentences about the request rather than the data ("I'm
working on a report.", "Assume PostgreSQL syntax.", "Could you give me the SQL?") go where a sentence that
is not holds more words of its own; a label of a prompt template or a chat turn ("### Input:", "Q:", "A:",
"Assistant:", "## Question", "<|user|>") is such a sentence, and a letter's close ends the letter ("Best
regards, Dana"). Beside a sentence that asks, one in which nothing asks goes whatever the question's length
where it is about the request, speaks of its user ("I keep getting a different number from the
dashboard.") or is a remark in brackets, and so does a question to the assistant ("Can someone take
this?"). A line break before a capital and a question mark before any word end a sentence too. Chat with
no mark to cut at loses a leading run with a word only chat uses, a person or a request's word before a
word that asks ("hey can u tell me how many ...", "I was wondering, how many ...") and a trailing run of
thanks ("... thx lol"); a question quoted in a request is taken from it. Markup around the text (a JSON
body, HTML, a form's fields, quote and list marks, emoji) is read through first (query/markup.py). None of
the benchmarks' questions as written is changed (one of BIRD's 9,428: "In the database, how many ..."), nor
any of their reworded and paraphrased copies.
"""

from __future__ import annotations

import re

from ..index.text import COMMANDS, STOPWORDS, normalize
from .markup import unwrap

#: Words only a request around a question uses, even in a sentence of its own ("Assume PostgreSQL syntax.",
#: "Best regards, Dana").
REQUESTING = frozenset(
    """sql sqlite mysql postgres postgresql tsql mssql sqlserver mariadb bigquery redshift duckdb clickhouse trino
    snowflake databricks spark hive hiveql oracle plsql db2 teradata pandas dplyr excel dax tableau looker
    metabase powerbi notebook jupyter siri alexa cortana
    query queries database databases db schema schemas dataset datasets cte ctes subquery subqueries dataframe
    dataframes commentary thanks thank thx ty tia appreciated hi hello hey dear assistant regards sincerely
    cheers sorry sry apologies inst asap eod fyi fwd forwarded forwarding csv json xlsx""".split()
)
#: Words a request around a question uses: one of them must be in a clause that is cut.
FRAMING = REQUESTING | frozenset("records tables question request task help joins asked".split())
#: The labels of prompt templates and chat turns ("### Instruction:", "Input:", "Q:", "A:", "Response:"): a
#: label made of one of them is about the request.
LABELS = FRAMING | frozenset(
    "instruction instructions input output response answer prompt context system user human ai bot q a todo".split())
#: Words only chat uses: with no mark to end a clause on, a leading run holding one is cut before a word that
#: asks ("hey can u tell me how many ..."), and a trailing run of _CLOSING words is cut whole ("... thx lol").
_CHAT = frozenset(
    """hey hi hello yo um umm uh uhh er erm hmm ok okay u ur pls plz thx thanks ty tia lol btw quick basically
    curious wondering""".split())
_CLOSING = frozenset("thx thanks thank ty tia lol pls plz please cheers asap".split())
_SIGNING = frozenset("regards sincerely faithfully truly cheers thanks thank wishes best".split())
_SIGNING_STARTS = _SIGNING | {"kind", "warm", "warmest", "many", "with", "all", "yours"}
#: Words a request's wrapping is made of besides function, command and chat words.
WRAPPING = frozenset(
    """write generate create produce build compose translate convert turn answer answers respond reply lot much know
    like want wants wanted need needs needed wondering wonder curious ask asking appreciate advance following
    below use using based given according looking data information info table statement statements select standard
    single join code explanation comments text t note good morning afternoon evening quick simple output result
    results plain english correct proper sure team everyone folks look check run execute let lets could would will
    shall might i'm i'd i've we're let's here's it's that's manager boss colleague actually q syntax""".split()
)
#: How a question starts: a leading wrapping is cut only before one, so a clause of the question itself
#: ("What are the records, sorted by date?") is never taken for one.
_STARTS = STOPWORDS - {"a", "an", "the", "this", "that", "these", "those"} | COMMANDS | {"name", "among"}
_COMMANDING = COMMANDS | {w + "s" for w in COMMANDS} | {"retrieve", "fetch", "retrieves", "fetches"}
#: Marks a clause ends at: a wrapping is cut after one (leading) or before what follows one (trailing).
_BOUNDARY = frozenset(":,.!?;-()[]{}<>|/*`\u2013\u2014")
#: Marks a sentence (or a label: "User request:") ends at.
_ENDS = frozenset(".!?:")
#: Words a user speaks of themselves or the assistant with: a sentence holding one that does not ask is
#: about the request ("I'm new to SQL.", "My manager wants a number.").
_PERSONS = frozenset("""i i'm i'd i've i'll im idk me my myself we we're we've our us you you're your u ur
    someone anyone somebody anybody""".split())
_ALLOWED = STOPWORDS | FRAMING | WRAPPING | _CHAT | _CLOSING | _COMMANDING | _BOUNDARY | _PERSONS
#: The persons a request speaks as or to ("I was wondering how", "can you tell me how"): "Tell me how many"
#: is how a question starts.
_SPEAKING = _PERSONS - {"me", "my", "myself", "us", "our", "someone", "somebody"}
_WE = frozenset("we we're we've".split())
_ADDRESSED = frozenset("you you're u someone anyone somebody anybody".split())
#: How a sentence that asks starts, after a word of _LEADING ("Please list", "So how many").
_QUESTION_STARTS = frozenset(
    """what which who whom whose when where why how is are was were do does did can could would will should has
    have had among name order sort include rank group state""".split()) | _COMMANDING
#: The words that ask or say what the question means anywhere in a sentence ("..., and state the code", "I mean
#: those born there."): a sentence with one is not told apart from the question.
_ORDERS = _COMMANDING | frozenset("among name order sort include rank group state mean meant".split())
_PREPOSITIONS = frozenset("in for under of from at on by with during since after before between".split())
_LEADING = frozenset("please so ok okay and but now then also just kindly".split())
_CLAUSE_MARKS = frozenset(",:;-\u2013\u2014")
#: The words a sentence that asks starts with, as a chat run is cut before one.
_WH_WORDS = frozenset("what which who whom whose when where why how".split())
_WH = _WH_WORDS | _COMMANDING
#: Abbreviations a full stop does not end a sentence after ("Mrs. Joye Homenick").
_TITLES = frozenset("mr mrs ms dr prof st jr sr mt ft no vs etc".split())
_QUOTES = frozenset("\"'\u201c\u201d")
_QUOTE = re.compile(r'"([^"]+)"|\u201c([^\u201c\u201d]+)\u201d')
_TOKEN = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)?|[^\w\s]")


def core(question: str) -> str:
    """The question without a leading and a trailing wrapping and without its sentences about the request
    (see the module's docstring). The clauses go first, so a sentence that asks is judged without its
    wrapping ("Using the tables in our database, who ...?"), and again after, for what the sentences hid;
    a quoted question last, once the request around it is all that is left."""
    text = normalize(unwrap(question, _asks_text))
    cut = _quoted(_clauses(_asking(_clauses(text))))
    return question if cut == normalize(question) else cut.strip()


def _quoted(text: str) -> str:
    """The question a request quotes ('Can you write me a query that answers "How many ...?" — add comments.',
    '"How many ...?"'): the one quote in the text, one that asks, outside which are the request's words only."""
    quotes = list(_QUOTE.finditer(text))
    if len(quotes) != 1:
        return text
    inside = quotes[0].group(1) or quotes[0].group(2)
    outside = [w for _, _, w in _tokens(text[:quotes[0].start()] + " " + text[quotes[0].end():])]
    words = [w for _, _, w in _tokens(inside)]
    bare = not any(w[0].isalnum() for w in outside)
    requested = any(w in REQUESTING for w in outside) and sum(_own(w) for w in outside) <= 1
    return inside if len(words) > 3 and _asks(words) and (bare or requested) else text


def _clauses(text: str) -> str:
    toks = _tokens(text)
    start = _lead_end(toks)
    end = _tail_start(toks, start)
    if start == 0 and end == len(toks):
        return text
    begin = toks[start][0] if start < len(toks) else len(text)
    stop = toks[end - 1][1] if end > start else begin
    return text[begin:stop].strip() or text


def _tokens(text: str) -> list[tuple[int, int, str]]:
    return [(m.start(), m.end(), m.group(0).lower()) for m in _TOKEN.finditer(text)]


def _asking(text: str) -> str:
    """The text without its sentences about the request rather than the data.

    A sentence (or a label before a colon) about the request (see _about) holds at most 3 words of its own;
    it is cut only where a sentence that is not about the request holds more, so a question that names a
    database or a query ("Which database administrators earn the most? List them.") keeps all of it.
    """
    toks = _tokens(text)
    spans = _sentences(text, toks)
    if len(spans) < 2:
        return text
    sentences = [[w for _, _, w in toks[a:b]] for a, b in spans]
    # A letter's close ends it: what follows is its writer's signature.
    signed = next((i for i, ws in enumerate(sentences) if i > 0 and _signed(ws)), len(sentences))
    own = [0 if i >= signed else sum(_own(w) for w in ws) for i, ws in enumerate(sentences)]
    about = [i >= signed or _about(ws, n) for i, (ws, n) in enumerate(zip(sentences, own, strict=True))]
    most = max((n for n, a in zip(own, about, strict=True) if not a), default=0)
    if most == 0:
        return text
    # Beside a sentence that asks, one that does not go whatever the question's length where nothing in it
    # asks and it is about the request, speaks of its user ("I keep getting a different number.") or is a
    # remark in brackets; so does a question to the assistant ("Can someone take this?").
    asking = any(not a and n > 0 and _asks(ws) for ws, n, a in zip(sentences, own, about, strict=True))
    before, after = [[""], *sentences[:-1]], [*sentences[1:], [""]]
    told = [asking and ((a and bool(_ADDRESSED.intersection(ws))) or _lead_in(ws, nxt)
                        or (_telling(ws) and (a or (n <= 6 and bool(_PERSONS.intersection(ws))) or _remark(ws, last))))
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
                  and (toks[i - 1][2] in _TITLES or len(toks[i - 1][2]) == 1 and text[toks[i - 1][0]].isupper()))
        # '..."? Please advise': a quote closed after the mark ends the sentence too
        closed = toks[i][2] == '"' and not quoted and i > 0 and toks[i - 1][2] in ".!?"
        ending = _ends(text, toks[i], toks[i + 1]) or (closed and _ends(text, toks[i - 1][:2] + ("?",), toks[i + 1]))
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
    return ((tok[2] in _ENDS and _opens(head)) or (tok[2] == "?" and head.isalnum())
            or ("\n" in gap and _opens(head) and tok[2] != ","))


def _about(words: list[str], own: int) -> bool:
    """Whether a sentence with `own` words of its own is about the request: one that asks does so of the
    assistant ("Could you write the SQL?", "What would the query look like?"), one that does not names the
    request, its user or nothing ("Assume PostgreSQL syntax.", "I'm new to this.", "Good morning.")."""
    if own > 3:
        return False
    framing = LABELS if _labelled(words) else REQUESTING
    framed, person = any(w in framing for w in words), bool(_PERSONS.intersection(words))
    if _asks(words):  # "we" asks of the data ("How many singers do we have in Hive?")
        speaking = bool(_SPEAKING.intersection(words) - _WE)
        return (framed and (speaking or own <= 2)) or (own <= 1 and bool(_ADDRESSED.intersection(words)))
    return framed or person or (own == 0 and sum(w[0].isalnum() for w in words) > 1)


def _telling(words: list[str]) -> bool:
    """Whether nothing in a sentence asks ("For each, tell me the date" does; "how to" does not)."""
    return not _asks(words) and not any(w in _ORDERS or (w in _WH_WORDS and words[i + 1:i + 2] != ["to"])
                                        for i, w in enumerate(words))


def _lead_in(words: list[str], following: list[str]) -> bool:
    """A lead-in about the request before a sentence that starts to ask ("Building a Power BI report and need a
    DAX measure for this: How many ...?"); not a title's ("Singers: How many ...?")."""
    first = next((w for w in following if w not in _LEADING), "")
    return words[-1] == ":" and first in _QUESTION_STARTS and any(w in REQUESTING for w in words)


def _remark(words: list[str], before: list[str]) -> bool:
    """A sentence in brackets after one that ended ("...? (nothing fancy, raw numbers are fine)"); not a
    sentence's closing remark ("... the highest price (in USD).")."""
    return before[-1] in _ENDS and words[0] == "(" and ")" in words[-2:] and words.count("(") == 1


def _signed(words: list[str]) -> bool:
    """A letter's close and its writer's name ("Best regards, Dana"), which holds nothing of the question's."""
    comma = next((i for i, w in enumerate(words[:4]) if w == ","), 0)
    return (comma > 0 and words[0] in _SIGNING_STARTS
            and any(w in _SIGNING for w in words[:comma])
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


def _own(word: str) -> bool:
    """A word of the sentence's own: not a wrapping's, not a person."""
    return _content(word) and word not in _PERSONS


def _asks(words: list[str]) -> bool:
    """A sentence asks where it ends with a question mark, starts as a question does, or a word that asks
    follows a clause mark in it ("For each, tell me the date", "HiveQL version needed — Return the number")."""
    marks = [w for w in words if w not in _QUOTES]  # '"How many ...?"'
    return (bool(marks) and marks[-1] == "?" or _next_word(words) in _QUESTION_STARTS
            or any(w in _CLAUSE_MARKS and _next_word(words[i + 1:]) in _WH for i, w in enumerate(words)))


def _next_word(words: list[str]) -> str:
    return next((w for w in words if w not in _LEADING and w not in _QUOTES), "")


def _asks_text(text: str) -> bool:
    words = [w for _, _, w in _tokens(text.strip("\"'"))]
    return bool(words) and _asks(words)


def _content(word: str) -> bool:
    return word not in _ALLOWED and word[0].isalnum()


def _lead_end(toks: list[tuple[int, int, str]]) -> int:
    """How many leading tokens are a wrapping: the last cut point of the run of allowed tokens, where the run
    so far holds a framing word and a clause mark ends it, or a word only chat uses and a word that asks
    follows; a content word must be left."""
    cut, framed, chat, person = 0, False, False, False
    for i, (_, _, w) in enumerate(toks):
        if w not in _ALLOWED:
            break
        framed = framed or w in FRAMING
        chatting = chat or w in _CHAT  # a chat word since the last mark
        chat = chatting and w not in _BOUNDARY
        # a person, or a word of the request, since the last mark ("Alexa, ask my data assistant how many",
        # "I was wondering, how many")
        speaking = person or w in _SPEAKING or w in REQUESTING
        person = speaking and w not in _BOUNDARY
        after_to = w in _COMMANDING and i > 0 and toks[i - 1][2] == "to"
        nxt = toks[i + 1][2] if i + 1 < len(toks) else ""
        marked = framed and ((w in _BOUNDARY and nxt in _STARTS) or after_to)
        # "hey can u tell me how many", "quick q: how many", "I was wondering how many"
        then = toks[i + 2][2] if i + 2 < len(toks) else ""
        chatted = (chatting and nxt in _WH) or (speaking and nxt in _WH_WORDS and then != "to")
        if marked:
            cut = i + 1
        elif chatted:  # "can you tell me under what ...": the preposition is the question's
            cut = i if w in _PREPOSITIONS else i + 1
    return cut if any(_content(w) for _, _, w in toks[cut:]) else 0


def _tail_start(toks: list[tuple[int, int, str]], start: int) -> int:
    """Where a trailing wrapping begins (len(toks) if none): after the earliest clause mark of the trailing
    run of allowed tokens whose rest holds a framing word, if a content word comes before it."""
    i = len(toks)
    while i > start and toks[i - 1][2] in _ALLOWED:
        i -= 1
    for j in range(i, len(toks)):
        w = toks[j][2]
        if (w in _BOUNDARY and any(t in FRAMING for _, _, t in toks[j + 1:])
                and any(_content(t) for _, _, t in toks[start:j])):
            # A sentence keeps its own mark ("?"); a comma goes with the wrapping.
            return j + 1 if w in "?!." else j
    # Chat with no mark to cut at: "... do we have thx lol", "... thank you".
    closing = len(toks)
    while closing > i and (toks[closing - 1][2] in _CLOSING
                           or toks[closing - 1][2] == "you" and closing > 1 and toks[closing - 2][2] == "thank"):
        closing -= 1
    return closing if any(_content(t) for _, _, t in toks[start:closing]) else len(toks)
