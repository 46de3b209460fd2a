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
word that asks ("hey can u tell me how many ...", "I was wondering, how many ...", "My boss wants to know
list ...") and a trailing run of thanks ("... thx lol"); an opening in the user's words before a comma or a
"but" goes where it names nothing ("Per my manager's request, what ...", "Sorry to bother you again, but
how many ..."); a lead-in before a colon, a dash or an ellipsis goes with what comes before it
("customer on the line asking: ...", "quick one — ...", "(Ref. A-114): For each ..."), and so do the user's
asides before or after the question ("URGENT!!!", "No rush.", "Gracias"): any sentence that neither asks,
names anything nor goes on with the question ("Hope this is the right place.", "Keep it short.", but not
"Their sex is F.", "Convert the duration to hour.", "Latest first."); so does what is written in another
language than the dictionary's ("Dzień dobry, how many ...? Pozdrawiam, Tomasz"), a greeting that
introduces its writer ("Hiya its Bev from the shop."), a sentence that asks only the assistant at its end
("exam tmrw and this is one of the practice qs, can u help??") and one that starts with a modal no subject
follows ("Will check back tonight."); a question quoted in a request is taken from it, also from lines of
its own that the request says someone asks ('customer is asking the following:', then '"How many ...?"').
Markup around the text (a JSON body, HTML, a form's fields, quote and list marks, emoji, a chat log's stamps,
an e-mail's headers, Markdown's underscores, typed arrows, punctuation said to a dictation, a notebook's
prompts) is read through first (query/markup.py), and so are a pasted document's lines that are its items
rather than the question's (a ticket's fields, an agenda's other points, code, a signature: query/lines.py).
None of the benchmarks' questions as written is changed (one of BIRD's 9,428: "In the database, how many
..."), nor any of their reworded and paraphrased copies.
"""

from __future__ import annotations

import re

from ..index.text import normalize
from .markup import unwrap
from .sentences import without_requests
from .wording import (
    ALLOWED,
    APOLOGIES,
    BOUNDARY,
    CHAT,
    CLOSING,
    COMMANDING,
    DASHES,
    ENDS,
    FINDING,
    FIRST_PERSON,
    FRAMING,
    GREETINGS,
    JOINS,
    KNOWING,
    MESSAGING,
    MODALS,
    PERSONS,
    PREPOSITIONS,
    QUESTION_STARTS,
    QUOTE,
    QUOTES,
    REQUESTING,
    SAYING,
    SPEAKING,
    STARTS,
    WH,
    WH_WORDS,
    asks,
    foreign,
    is_content,
    named,
    negated,
    tokens,
    tried,
)

#: How far into a request a run saying who wants to know may go (_relayed), and the user's story before what
#: they ask (_rambled).
_RELAYING = 24
#: A log line's next field after a quoted one ('user_query="How many ...?" channel=slack').
_FIELD = re.compile(r"\s+[\w.-]+=")
_RAMBLING = 48


def core(question: str, lexicon: frozenset[str] = frozenset()) -> str:
    """The question without a leading and a trailing wrapping and without its sentences about the request
    (see the module's docstring). The clauses go first, so a sentence that asks is judged without its
    wrapping ("Using the tables in our database, who ...?"), and again after, for what the sentences hid;
    a quoted question last, once the request around it is all that is left. The dictionary's words
    (`lexicon`, WordNet's) tell the user's other language ("Perdón por molestar, how many ...")."""
    text = normalize(unwrap(question, _asks_text))
    cut = _quoted(_clauses(without_requests(_clauses(text, lexicon), lexicon), lexicon))
    return question if cut == normalize(question) else cut.strip()


def _quoted(text: str) -> str:
    """The question a request quotes ('Can you write me a query that answers "How many ...?" — add comments.',
    '"How many ...?"'): the one quote in the text, one that asks, outside which are the request's words only."""
    quotes = list(QUOTE.finditer(text))
    if len(quotes) > 1:  # a call's arguments: the one that asks ('(query="How many ...?", dialect="sqlite")')
        asking = [q for q in quotes if _asks_text(q.group(1) or q.group(2)) and len(tokens(q.group(0))) > 5]
        quotes = asking if len(asking) == 1 and _argument(text, asking[0]) else quotes
    if len(quotes) != 1:
        return text
    inside = quotes[0].group(1) or quotes[0].group(2)
    ahead = tokens(text[:quotes[0].start()])
    outside = [w for _, _, w in ahead + tokens(text[quotes[0].end():])]
    words = [w for _, _, w in tokens(inside)]
    bare = not any(w[0].isalnum() for w in outside)
    requested = any(w in REQUESTING or w in SAYING for w in outside) and sum(is_content(w) for w in outside) <= 1
    # or a quote on lines of its own that the request says someone asks ('customer is asking the following:',
    # then '"How many ...?"' on its own line)
    before, after = text[:quotes[0].start()].rstrip(" \t"), text[quotes[0].end():].strip(" \t")
    lined = before.endswith("\n") and after[:1] in ("", "\n")
    # or one someone is said to have asked ('My boss just said "How many ...?" and walked off')
    spoken = bool(ahead) and ahead[-1][2] in ("said", "asked", "asks", "says", "goes", "went", "texted", "wrote")
    said = (lined and any(w in SAYING for w in outside)) or (spoken and (words[-1] == "?" or words[0] in COMMANDING)
                                                               and not asks(outside))
    # or a string in code ('question = "How many ...?"', 'text_to_sql(query="How many ...?", dialect="sqlite")')
    coded = _argument(text, quotes[0]) and not asks([w for _, _, w in ahead])
    return inside if len(words) > 3 and asks(words) and (bare or requested or said or coded) else text


def _argument(text: str, quote: re.Match[str]) -> bool:
    """Whether a quote is a string in code: after "=" or "(", before "," or ")", a log line's next field or the
    end ('question = "..."', 'text_to_sql(query="...", dialect="sqlite")', 'user_query="..." channel=slack'; not
    '=ASK("... the list "250 Favourite Films"?")')."""
    return (text[:quote.start()].rstrip().endswith(("=", "("))
            and (text[quote.end():].lstrip()[:1] in (",", ")", "") or bool(_FIELD.match(text, quote.end()))))


def _clauses(text: str, lexicon: frozenset[str]) -> str:
    toks = tokens(text)
    start = max(_lead_end(toks), _opening(text, toks, lexicon), _relayed(toks), _rambled(toks))
    end = _tail_start(toks, start)
    if start == 0 and end == len(toks):
        return text
    begin = toks[start][0] if start < len(toks) else len(text)
    stop = toks[end - 1][1] if end > start else begin
    return text[begin:stop].strip() or text


def _asks_text(text: str) -> bool:
    words = [w for _, _, w in tokens(text)]
    return bool(words) and asks(words)


def _lead_end(toks: list[tuple[int, int, str]]) -> int:
    """How many leading tokens are a wrapping: the last cut point of the run of allowed tokens, where the run
    so far holds a framing word and a clause mark ends it, or a word only chat uses and a word that asks
    follows; a content word must be left."""
    cut, chat, person, owner, started = 0, False, False, False, False
    # "what i meant to ask was how many": what the user did or meant, before what it was
    framed = tried([w for _, _, w in toks], 0)
    for i, (_, _, w) in enumerate(toks):
        nxt = toks[i + 1][2] if i + 1 < len(toks) else ""
        # "how I would work out how many", "Can anyone explain how I'd figure out which"
        if w not in ALLOWED and not (w in FINDING and nxt == "out") and not (w == "explain" and nxt in WH_WORDS):
            break
        framed = framed or w in FRAMING
        chatting = chat or w in CHAT  # a chat word since the last mark
        chat = chatting and w not in BOUNDARY
        # a person, or a word of the request, since the last mark ("Alexa, ask my data assistant how many",
        # "I was wondering, how many")
        speaking = person or w in SPEAKING or w in REQUESTING
        person = speaking and w not in BOUNDARY
        after_to = w in COMMANDING and i > 0 and toks[i - 1][2] == "to"
        # "so my question is how many", "The question is list": what the request is, said before the question
        marked = framed and ((w in BOUNDARY and nxt in STARTS) or after_to or (w in ("is", "was") and nxt in WH))
        # "hey can u tell me how many", "quick q: how many", "I was wondering how many"
        then = toks[i + 2][2] if i + 2 < len(toks) else ""
        # "My boss wants to know list the names": a person's run ends with what they want to know
        owner = (owner or w in PERSONS) and w not in BOUNDARY
        knowing = owner and w in KNOWING and nxt in WH
        # "ok so among ...", "um state ...": a word a question starts with, where none came since the chat word,
        # and not one that asks the assistant ("hey can u pls tel me what ...")
        started = (started and w not in CHAT) or w in QUESTION_STARTS
        opened = nxt in WH or (nxt in QUESTION_STARTS and nxt not in MODALS and not started)
        # "can anyone tell me list the names", "I want to ask that list the names", "Can you tell me, list the
        # names": a request for a command
        j = i - 1 if w == "," else i
        doubled = (nxt in COMMANDING and j > 0 and toks[j][2] in ("me", "us", "that")
                   and (toks[j - 1][2] in COMMANDING or toks[j - 1][2] in SAYING))
        # "Is there a simple way to find out how many", "how I'd figure out which": finding out what the question asks
        # (asked of someone or as a way: "Find out which business ..." is the question's own command)
        found = (w == "out" and i > 0 and toks[i - 1][2] in FINDING and nxt in WH and then != "to"
                 and any(t in PERSONS or t == "way" for _, _, t in toks[:i - 1]))
        chatted = ((chatting and opened) or (speaking and nxt in WH_WORDS and then != "to") or knowing or doubled
                   or found)
        if marked:
            cut = i + 1
        elif chatted:  # "can you tell me under what ...": the preposition is the question's
            cut = i if w in PREPOSITIONS else i + 1
    return cut if any(is_content(w) for _, _, w in toks[cut:]) else 0


def _relayed(toks: list[tuple[int, int, str]]) -> int:
    """How many leading tokens say who wants to know what follows ("Lena from finance wants to know how many",
    "The auditors (Grant & Moss) have asked us how many", "Hi Chloe, Mateo from the Lisbon office was wondering
    which"): a run in one sentence that asks nothing, up to a word of knowing or asking, and a word that asks."""
    words = [w for _, _, w in toks]
    for i, w in enumerate(words[:_RELAYING]):
        if w in "?!." or w in WH_WORDS or negated([w]):
            return 0  # "I don't really know how the data is structured."
        nxt = i + 2 if words[i + 1:i + 2] in (["us"], ["me"]) else i + 1
        if ((w in KNOWING or w == "asked") and words[nxt:nxt + 1] and words[nxt] in WH
                and words[nxt + 1:nxt + 2] != ["to"] and not asks(words[:i + 1])):
            return nxt if any(is_content(w) for w in words[nxt:]) else 0
    return 0


def _rambled(toks: list[tuple[int, int, str]]) -> int:
    """How many leading tokens are the user's own story before what they ask, ended by a word that only joins
    ("omg ok so i've been on the bus ... but i promised i'd ask before the meeting so how many", "um I was
    wondering like which", "this one is the last one i swear, how many"): a run that speaks of its user in a
    message's words and asks nothing, then "so", "anyway", "like", "basically" or a comma before the first word
    that asks (not "For the singers I like, how many": no message's word)."""
    words = [w for _, _, w in toks]
    first = next((i for i, w in enumerate(words[:_RAMBLING]) if w in WH or w == "?"), 0)
    if first < 2:
        return 0
    run = words[:first - 1]
    # the story is in the clause the join ends ("Hi, I need help: In the complaints of 2012, how many" is not), but
    # for a join that starts a sentence of its own ("... ignore any weird ones. anyway how many")
    mark = max((i for i, w in enumerate(run) if w in ENDS or w in DASHES), default=-1)
    clause = run if mark == len(run) - 1 and words[first - 1] in ("anyway", "anyways") else run[mark + 1:]
    if (words[first] == "?" or words[first - 1] not in JOINS or words[first + 1:first + 2] == ["to"]
            or not (FIRST_PERSON.intersection(clause) or APOLOGIES.intersection(clause))
            or not MESSAGING.intersection(run) or asks(clause)):
        return 0
    # a comma ends a story only where nothing in it may be the question's condition ("... the last one i swear,
    # how many"; not "Per my manager's request, from year 1991 to 2000, calculate", "among the adult films, how")
    conditioned = any(w in PREPOSITIONS or w in ("among", "between", "about", "to") or w in QUOTES or w.isdigit()
                      for w in clause)
    if words[first - 1] == "," and words[first - 2] not in JOINS and conditioned:
        return 0
    return first if any(is_content(w) for w in words[first:]) else 0


def _opening(text: str, toks: list[tuple[int, int, str]], lexicon: frozenset[str]) -> int:
    """How many leading tokens are an opening in the user's words before a comma or a "but" and a word that
    asks ("Per my manager's request, what is", "Sorry to bother you again, but how many", "Not urgent but
    list"): one that asks nothing, names nothing, and ends with "but" or speaks of its user and the message."""
    words = [w for _, _, w in toks]
    first = next((i for i, w in enumerate(words) if w in ENDS or w in (",", "but")), len(words))
    i = first + 1 if words[first:first + 2] == [",", "but"] else first  # ", but"
    if i + 1 >= len(words) or words[i] not in (",", "but") or words[i + 1] not in QUESTION_STARTS:
        return 0
    run = words[:i + 1]
    spoken = bool(PERSONS.intersection(run)) and any(w in MESSAGING for w in run)
    # its own words are the message's or someone's ("Per my manager's request,"; not "in the crew,")
    plain = all(w in MESSAGING or w.endswith("'s") for w in run if is_content(w))
    # or apologises in the message's words ("Sorry for disturbing,")
    sorry = run[0] in ("sorry", "sry", "apologies") and plain
    # or it ends with "but" and asks nothing ("Sorry to bother you again, but", "Not urgent but")
    but = run[-1] == "but" and sum(is_content(w) for w in run) <= 3 and not any(w in WH_WORDS for w in run)
    # or greets whom it is sent to ("Hey Google,", "Hi Sam,"), whose name is not the data's
    greeting = run[0] in GREETINGS and run[-1] == "," and len(run) <= 4
    # or is in the user's other language ("Perdón por molestar,", "Dzień dobry,", "Bhai ek kaam kar do,")
    naming = named(text, toks[:i + 1])
    if greeting or (run[-1] == "," and foreign(text, toks[:i + 1], lexicon, naming)):
        return i + 1
    return i + 1 if ((spoken and plain) or but or sorry) and not asks(run) and not naming else 0


def _tail_start(toks: list[tuple[int, int, str]], start: int) -> int:
    """Where a trailing wrapping begins (len(toks) if none): after the earliest clause mark of the trailing
    run of allowed tokens whose rest holds a framing word (not a bracket's close: "(sw)? okay thanks bye"), if a
    content word comes before it."""
    i = len(toks)
    while i > start and toks[i - 1][2] in ALLOWED:
        i -= 1
    for j in range(i, len(toks)):
        w = toks[j][2]
        # not inside brackets, a remark's own ("(can't share the actual data, sorry)")
        inside = sum(t in "([{" for _, _, t in toks[start:j]) > sum(t in ")]}" for _, _, t in toks[start:j])
        if (w in BOUNDARY and w not in (")", "]", "}") and not inside and any(t in FRAMING for _, _, t in toks[j + 1:])
                and any(is_content(t) for _, _, t in toks[start:j])):
            # A sentence keeps its own mark ("?"); a comma goes with the wrapping.
            return j + 1 if w in "?!." else j
    # Chat with no mark to cut at: "... do we have thx lol", "... thank you".
    closing = len(toks)
    while closing > i and (toks[closing - 1][2] in CLOSING
                           or toks[closing - 1][2] == "you" and closing > 1 and toks[closing - 2][2] == "thank"):
        closing -= 1
    return closing if any(is_content(t) for _, _, t in toks[start:closing]) else len(toks)
