"""Tokenizer shared by documents and questions: identifiers split, lower-cased, stop words out, stemmed."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

import Stemmer

#: Case and digit boundaries; an acronym's plural stays whole ("IDs", "URLs": not "I Ds").
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])(?![A-Z]s\b)|(?<=[A-Za-z])(?=[0-9])"
                    r"|(?<=[0-9])(?=[A-Za-z])")
#: An ordinal's or a decade's ending ("3rd", "21st", "1990s"), which would be a term "rd" or "s" of its own.
_NUMBER_ENDING = re.compile(r"(?<=[0-9])(?:st|nd|rd|th|s)(?![A-Za-z])", re.IGNORECASE)
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
#: Curly, low and reversed single and double quotes, primes and guillemets -> ' and ".
_PLAIN_QUOTES = str.maketrans(dict.fromkeys("\u2018\u2019\u201a\u201b\u2032", "'")
                              | dict.fromkeys("\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb", '"'))

#: English function words plus the filler analysts type ("please", "ones"): out of every text.
STOPWORDS = frozenset(
    """a about above after again against all also am an and any are as at be because been before being below
    between both but by can could did do does doing down during each few for from further had has have having he
    her here hers herself him himself his how i if in into is it its itself just me more most my myself no nor
    not of off on once only or other our ours ourselves out over own same she should so some such than that the
    their theirs them themselves then there these they this those through to too under until up very was we were
    what when where which while who whom why will with would you your yours yourself yourselves
    please whose ones one per""".split()
)
#: The verbs a request is made with: scaffolding where they command ("List the names", "and show their
#: ages"), the schema's own words where they name something ("the movie list", "TV shows", "the return date").
COMMANDS = frozenset("show list give find return tell display get count calculate compute provide indicate mention "
                     "identify describe specify determine write enumerate".split())
#: "number" asks for a count where "of" follows it after an article or a word of quantity ("the number of
#: employees", "total number of"); elsewhere it is the schema's word ("phone number", "the room number").
_COUNT_LEADS = frozenset("the a an total average avg maximum max minimum min largest smallest greatest highest "
                         "lowest least most biggest fewest overall combined same whose what their its".split())
#: Words after which a command word still commands ("please list", "and show", "to find", "can you give").
_LEADS = frozenset("please and then also to me us can could would will you kindly just now so or i we want need "
                   "let lets".split())
#: A possessive ending ("the player's name"), which would be a term "s".
_POSSESSIVE = re.compile(r"(?<=\w)['\u2019]s\b")
_TOKEN = re.compile(r"[^\W_]+|[.?!;:,()]")

_stemmer = Stemmer.Stemmer("english")


def split_identifier(text: str) -> str:
    """'PetTypeID_2' -> 'Pet Type ID 2': makes schema identifiers match question words."""
    return _CAMEL.sub(" ", text).replace("_", " ")


def normalize(text: str) -> str:
    return plain_quotes(unicodedata.normalize("NFKC", text))


def plain_quotes(text: str) -> str:
    """Typographic quotes and apostrophes as a keyboard types them: a phone or a word processor writes
    "Kyle’s", “Hey Jude” and ‘USA’, which the possessive, the quotes and the names would otherwise not see."""
    return text.translate(_PLAIN_QUOTES)


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    return str(_stemmer.stemWord(word))


def stems(many: list[str]) -> list[str]:
    """stem() of many words in one call (the stemmer's own loop: a build stems millions of candidates)."""
    return [str(s) for s in _stemmer.stemWords(many)]


def words(text: str) -> list[str]:
    """Lower-cased word tokens after identifier splitting, stop words kept."""
    return [w.lower() for w in _WORD.findall(split_identifier(_NUMBER_ENDING.sub("", normalize(text))))]


def tokenize(text: str) -> list[str]:
    """Content tokens, stemmed: the unit both BM25 and term coverage count."""
    return [stem(w) for w in words(text) if w not in STOPWORDS]


def schema_tokens(text: str) -> list[str]:
    """tokenize() for schema names: a single letter is a prefix convention (TPC-H's `s_name`, `l_orderkey`) or a
    coordinate, not a word a question would use; it would match every initial ("S K L Enterprises")."""
    return [t for t in tokenize(text) if len(t) > 1 or t.isdigit()]


def drop_commands(question: str) -> str:
    """The question without the command words that command: at its or a clause's start, after a lead word,
    or before "of" ("a list of the names"); and without "number" where it asks for a count ("the number of
    singers"), and without a possessive's "s" ("the player's name"). Schema documents keep every such word,
    so a table named `list` or `shows` is found by name ("the movie list", "how many shows"), and a
    `room_number` column by "the room number"."""
    text = _POSSESSIVE.sub("", normalize(question))
    toks = list(_TOKEN.finditer(text))
    out, last = [], 0
    for i, m in enumerate(toks):
        word = m.group(0).lower()
        prev = toks[i - 1].group(0).lower() if i else ""
        after = toks[i + 1].group(0).lower() if i + 1 < len(toks) else ""
        clause = not prev or not prev[0].isalnum()
        if word in COMMANDS:
            drop = clause or prev in _LEADS or after == "of"
        else:
            drop = word == "number" and after == "of" and (clause or prev in _COUNT_LEADS)
        if drop:
            out.append(text[last:m.start()] + " ")
            last = m.end()
    return "".join(out) + text[last:]


def value_key(value: object) -> str:
    """Normalised form of a sample value for exact phrase matching against the question."""
    return " ".join(words(str(value)))


#: Quoted text in a question: "…", “…” or '…' (an apostrophe inside a word is no quote).
_QUOTED = re.compile(r"\"([^\"]+)\"|\u201c([^\u201d]+)\u201d|(?<!\w)'([^']+)'(?!\w)")


def quoted(question: str) -> list[str]:
    """The texts a question quotes, in order."""
    return [next(g for g in m.groups() if g) for m in _QUOTED.finditer(question)]


def unquoted(question: str) -> str:
    """The question with what it quotes blanked out."""
    return _QUOTED.sub(" ", question)


def name_spans(question: str) -> list[str]:
    """The names a question gives: quoted text, and runs of capitalised words past a sentence's first word
    ("Mumbai Indians", "Stephen King"). Embedded alone, a name says which column would hold it."""
    out = quoted(question)
    toks = question.split()
    run: list[str] = []
    for i, tok in enumerate([*toks, ""]):
        w = re.sub(r"'s$", "", tok.strip('?,.;:!()"'))
        if 0 < i < len(toks) and w[:1].isupper() and not toks[i - 1].endswith((".", "?", "!")):
            run.append(w)
        elif run:
            out.append(" ".join(run))
            run = []
    return [s for s in dict.fromkeys(out) if s.strip()]
