"""Sentences by which a request says who speaks and to whom: a question to the assistant, a greeting, a
prompt's persona and its rules, a writer who says who they are, a letter's close (read by query/sentences.py).
"""

from __future__ import annotations

from .wording import (
    ADDRESSED,
    BOTS,
    CLAUSE_MARKS,
    CONTINUING,
    FORMAT,
    GOING_ON,
    GREETINGS,
    MODALS,
    ORDERS,
    QUOTES,
    SIGNING,
    SIGNING_STARTS,
    WH,
    WH_WORDS,
    asks,
    is_content,
)


def appeals(words: list[str]) -> bool:
    """A question to the assistant that asks nothing of the data ("Would you mind getting back to him
    directly?", "Can you draft a reply?", "Can the bot handle this one?"): a modal and whom it is addressed to,
    and no word that asks or orders."""
    addressed = words[1:2] != [] and (words[1] in ADDRESSED or (words[1] == "the" and words[2:3] != []
                                                                and words[2] in BOTS))
    return (len(words) > 2 and words[0] in MODALS and addressed and words[-1] == "?"
            and not any((w.split("'")[0] in WH_WORDS and words[i + 1:i + 2] != ["to"]) or w in ORDERS or w in QUOTES
                        for i, w in enumerate(words)))


def unappealed(words: list[str]) -> list[str]:
    """A sentence without a closing appeal to the assistant, which asks nothing of the data ("exam tmrw and
    this is one of the practice qs, can u help??"): a clause after the last clause mark that starts with a
    modal and whom it is addressed to and holds no word of its own nor one that asks."""
    mark = max((i for i, w in enumerate(words) if w in CLAUSE_MARKS), default=0)
    rest = words[mark + 1:]
    appeal = (words[-1] == "?" and mark > 0 and len(rest) > 1 and rest[0] in MODALS and rest[1] in ADDRESSED
              and not any(is_content(w) or w in WH for w in rest))
    return words[:mark] if appeal else words


def greets(words: list[str]) -> bool:
    """Whether a sentence opens with a greeting ("Hi, ...", "Hiya its Bev", "Good morning, ...")."""
    return words[0] in GREETINGS and (words[0] not in ("good", "dear")
                                      or words[1:2] in (["morning"], ["afternoon"], ["evening"]))


def forbids(words: list[str]) -> bool:
    """A prompt's rule against what the answer holds ("Do not explain.", "Do not add any explanation, comments,
    or extra text."; not "Do not count the dogs."): past its verb, no word of its own but the answer's form."""
    rest = words[3:] if words[:2] == ["do", "not"] else words[2:] if words[0] in ("don't", "never") else None
    return rest is not None and all(w in FORMAT for w in rest if is_content(w))


def persona(words: list[str]) -> bool:
    """A prompt's sentence that casts the assistant ("You are a helpful data analyst.", "Pretend you are a senior
    database engineer helping a new hire.", "Act as a SQL expert."), which holds nothing of the question's."""
    start = words[1:] if words[0] in ("pretend", "imagine", "suppose") else words
    start = start[1:] if start[:1] == ["that"] else start
    return (start[:2] in (["you", "are"], ["act", "as"]) or start[:1] == ["you're"]) and not asks(words)


def introduces(words: list[str]) -> bool:
    """A sentence that opens with who writes it ("Stack Overflow noob here, sorry if ...", "MOOC learner here
    (Week 5, Lab 1)."): a few words and "here" before a mark."""
    here = next((i for i, w in enumerate(words[:5]) if w == "here"), 0)
    return (here > 0 and words[here + 1:here + 2] in ([","], ["."], ["("], ["!"], ["-"])
            and words[0] not in GOING_ON and words[0] not in CONTINUING)


def closes(words: list[str]) -> bool:
    """A letter's close and its writer's name ("Best regards, Dana"), which holds nothing of the question's."""
    comma = next((i for i, w in enumerate(words[:4]) if w == ","), 0)
    return (comma > 0 and words[0] in SIGNING_STARTS
            and any(w in SIGNING for w in words[:comma])
            and sum(w[0].isalnum() for w in words[comma + 1:]) <= 3)
