"""Where the sentences of a request end, for query/sentences.py to judge each one.

A user's message marks its sentences loosely: a question mark before a lower-case word ("...? need it asap"),
a line break, a colon before the question ("customer on the line asking: what is"), a capitalised question
word or thanks after a lower-case one ("hiya How many ...", "... all dogs Thank you"), and none at all after
an abbreviation or an initial ("Mrs. Joye Homenick", "Jill M. Stevens").
"""

from __future__ import annotations

from .wording import (
    ADDRESSED,
    CHAT,
    CLOSING,
    DASHES,
    ENDS,
    GREETINGS,
    LEADING,
    MESSAGING,
    MODALS,
    PERSONS,
    PREPOSITIONS,
    QUESTION_STARTS,
    TITLES,
    WH,
    WH_WORDS,
)


def sentence_spans(text: str, toks: list[tuple[int, int, str]]) -> list[tuple[int, int]]:
    """Token spans of the sentences: each ends where _ends says, at a greeting's comma, or after a lead-in
    (_introduces); a tag in brackets that opens the text and a closing bracketed remark ("... (T-SQL,
    please)") are ones of their own."""
    ends: list[int] = []
    quoted, depth = False, 0
    for i in range(len(toks) - 1):
        quoted = quoted != (toks[i][2] == '"')
        line = "\n" not in text[toks[i][1]:toks[i + 1][0]]
        depth = max(0, depth + (toks[i][2] == "(") - (toks[i][2] == ")")) if line else 0
        # Not at a title's colon in quotes ('"Refuge: Part 1"') or a field's in brackets ("(owner: Jorge)"), nor
        # after an abbreviation, an initial or in brackets on the same line ("Mrs. Joye Homenick", "Jill M.
        # Stevens", "(Ref. A-114)").
        colon = (quoted or depth > 0) and toks[i][2] == ":"
        titled = (i > 0 and toks[i][2] == "." and line
                  and (toks[i - 1][2] in TITLES or len(toks[i - 1][2]) == 1 and text[toks[i - 1][0]].isupper()
                       or depth > 0))
        # '..."? Please advise': a quote closed right after the mark ends the sentence as the mark would
        closed = toks[i][2] == '"' and not quoted and i > 0 and toks[i - 1][2] in ".!?"
        ending = (_ends(text, toks[i][:2] + (toks[i - 1][2],) if closed else toks[i], toks[i + 1])
                  or _greeted(text, toks, ends[-1] if ends else 0, i))
        if (ending or _introduces(text, toks, i) or _restarts(text, toks, i)) and not colon and not titled:
            ends.append(i + 1)
    # A tag in brackets that opens the text ("[ad-hoc request] List ...", "[EXTERNAL] Hello") is a sentence of
    # its own.
    closing = {"(": ")", "[": "]"}.get(toks[0][2] if toks else "", "")
    tag = next((i for i, t in enumerate(toks) if t[2] == closing), len(toks) - 1)
    if closing and tag < len(toks) - 1 and (toks[tag + 1][2] in QUESTION_STARTS or _opens(text[toks[tag + 1][0]])):
        ends.append(tag + 1)
    last = len(toks) - 1 if toks and toks[-1][2] in ".!?" else len(toks)
    if last > 0 and toks[last - 1][2] == ")":
        opening = max((i for i in range(last) if toks[i][2] == "("), default=0)
        remark = [w for _, _, w in toks[opening + 1:last - 1]]
        if opening > 0 and ")" not in remark and any(w[0].isalnum() for w in remark):
            ends.append(opening)
    bounds = [0, *sorted(set(ends)), len(toks)]
    return [(a, b) for a, b in zip(bounds, bounds[1:], strict=False) if a < b]


def _greeted(text: str, toks: list[tuple[int, int, str]], start: int, i: int) -> bool:
    """A greeting's line ends at its comma ("Hi Sam,\n\nPer our conversation ..."), as a letter's close does."""
    return (toks[i][2] == "," and "\n" in text[toks[i][1]:toks[i + 1][0]] and i - start <= 3
            and toks[start][2] in GREETINGS)


def _ends(text: str, tok: tuple[int, int, str], nxt: tuple[int, int, str]) -> bool:
    """A sentence ends between two tokens at a mark a space and a capital follow ("30? Output", "SQL: How";
    not "U.S" or "Ltd. write"), at a question mark before any word ("...? need it asap"), and at a line break
    before a capital or a Markdown mark ("## Question\nHow many ..."), and at a mark before a dash or a
    message's or a person's word ("...? — seeing weird numbers", "... in 2014. lmk when u get a chance", "...
    in Indianapolis . my brain is fried rn") or an ellipsis ("... rating. ...yeah that's it"), at a full stop
    before a question word ("... from Legal. what is"), and at a mark that ends a line ("... in Aberdeen.\nno
    rush")."""
    gap = text[tok[1]:nxt[0]]
    if not gap.isspace():
        return False
    head = text[nxt[0]]
    remark = nxt[2] in DASHES or head == "." or head.islower() and (nxt[2] in MESSAGING or nxt[2] in PERSONS
                                                                     or nxt[2] in ("no", "not", "anytime"))
    return ((tok[2] in ENDS and _opens(head)) or (tok[2] == "?" and head.isalnum())
            or (tok[2] in "?!." and remark) or (tok[2] == "." and (nxt[2] in WH_WORDS or nxt[2] in MODALS))
            or ("\n" in gap and (_opens(head) and tok[2] != "," or tok[2] in "?!." or remark
                                 or _asked_below(text, tok, nxt))))


#: The words a line that goes on on the next ends with ("the names of\nwhich", "... and\nhow").
_GOING = PREPOSITIONS | frozenset("the a an and or to than that is are was were be been not as".split())


def _asked_below(text: str, tok: tuple[int, int, str], nxt: tuple[int, int, str]) -> bool:
    """A chat's line with no mark before a line that starts to ask in lower case ("my manager asked me this and
    i have no clue lol\nwhich employee ..."), where the line is no clause the question goes on from ("Among the
    pets\nwhich are dogs", "the names of\nwhich")."""
    line = text[text.rfind("\n", 0, tok[0]) + 1:tok[1]].split()
    return (nxt[2] in WH_WORDS and tok[2][0].isalnum() and tok[2] not in _GOING and bool(line)
            and line[0].lower() not in PREPOSITIONS and line[0].lower() not in QUESTION_STARTS)


def _introduces(text: str, toks: list[tuple[int, int, str]], i: int) -> bool:
    """A colon, a dash or an ellipsis before a word a question starts with, past a leading "please" or "so" (or
    a preposition: "(Ref. A-114): For the pairs of genes, what is") ends a lead-in ("customer on the line asking:
    what is", "quick one — how many", "not sure this is the right place but... how many", "could you tell me:
    please list")."""
    word, nxt = toks[i][2], next((t[2] for t in toks[i + 1:] if t[2] not in LEADING), "")
    ellipsis = word == "." and i > 0 and toks[i - 1][2] == "."
    dash = word in DASHES and toks[i][0] > 0 and text[toks[i][0] - 1].isspace()
    return ((word == ":" or dash or ellipsis) and (nxt in QUESTION_STARTS or nxt in PREPOSITIONS)
            and text[toks[i][1]:toks[i + 1][0]].isspace())


def _restarts(text: str, toks: list[tuple[int, int, str]], i: int) -> bool:
    """A capitalised question word or a thanks between two lower-case words starts a sentence ("ugh ok How many
    ...", "hiya How many ...", "... lol List the ...", "... all dogs Thank you"; not a title's "Who Framed Roger
    Rabbit"), and so do a modal asking the assistant ("... all dogs Can you confirm ...") and a word a question
    starts with or a preposition after a chat word ("lol Among the")."""
    if i + 2 >= len(toks):
        return False
    word = toks[i + 1][2]
    chatted = toks[i][2] in CHAT and (word in QUESTION_STARTS or word in PREPOSITIONS)
    appealing = word in MODALS and toks[i + 2][2] in ADDRESSED  # "... all dogs Can you confirm ..."
    if not (word in WH or word in CLOSING or chatted or appealing):
        return False
    before, capital, after = (text[t[0]] for t in toks[i:i + 3])
    return before.islower() and capital.isupper() and after.islower()


def _opens(char: str) -> bool:
    """A sentence starts with a capital, a quote or bracket, a Markdown heading or emphasis ("### Input:") or a
    chat template's tag ("[INST]", "<|user|>")."""
    return char.isupper() or char in "\"'(\u201c#*[<"
