"""What the question's words and names find in the index's dictionaries: sample-value phrases, table-name
stems, and the thesaurus's related words and instances. Plain look-ups, no scoring."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache

import numpy as np

from ..index import thesaurus
from ..index.people import People
from ..index.spelling import Spelling
from ..index.text import COMMANDS, STOPWORDS, drop_commands, name_spans, normalize, stem, tokenize, unquoted, words
from .wording import DAYS

#: Longest question n-gram looked up among sample values.
MAX_PHRASE_WORDS = 5
#: Runs of letters as the question writes them (case kept).
_LETTERS = re.compile(r"[^\W\d_]+")
#: An e-mail or web address, or a host name: a value, whatever words it spells; and a compound's hyphened
#: parts, which are whole words (the "pre" of "pre-paid" shortens no `pressure`).
_NOT_READ = re.compile(r"\S*@\S*|\S*://\S*|\w+(?:\.\w+)+|\w+(?:-\w+)+")
#: Words that say what to compute or how to order it, not what the question is about: alone, they point at no
#: table of any catalog.
QUERY_WORDS = frozenset(
    """many much among different distinct least less more fewer fewest maximum minimum max min sort sorted order
    ordered alphabetical alphabetically ascending descending top bottom total sum average count number each every
    either corresponding respective respectively contain contains containing belong belongs belonging include
    includes including also than like along within across without together whether exist exists calculate
    provide indicate mention describe identify specify percentage percent ratio proportion highest lowest largest
    smallest biggest greatest higher lower larger smaller bigger greater two three four five times named
    called""".split()
)
#: The query words as terms: dropped from a question's terms where no table, column or value of the catalog holds
#: them ("many", "different", "sorted"), so that what the catalog does not explain is the user's own words.
QUERY_STEMS = frozenset(stem(w) for w in QUERY_WORDS)
#: Most words one question embeds alone: each costs its own few tokens in the encoder (six added 3.5 ms to a
#: question's 5.3 on ONNX Runtime).
MAX_WORDS = 10

#: Month names, as a date writes them in full ("May" and "March" are also common words: part of a date only,
#: never one alone) or short ("Nov 3, 2012"), and weekdays: the words a date is made of besides its numbers.
_MONTHS = frozenset("january february april june july august september october november december".split())
_DATE_WORDS = _MONTHS | DAYS | frozenset("may march jan feb mar apr jun jul aug sep sept oct nov dec".split())
#: Words that put the date after them in time ("in 1980", "after 1950", "between 2010 and 2015", "the month of
#: June 2018", "whose date is 7/3/2014"); a date after any other word is a name or a stamp ("Pro Evolution
#: Soccer 2012", "Annual Report 2023", "Thursday, 14 November 2024 · 15:00" at the top of a pasted note).
_TIME_LEADS = frozenset(
    """in on at after before since during between from to until till through throughout by and or for than of
    the around circa ca within as about past prior later earlier starting beginning ending started ended dated
    is was were are year years month months day days week weeks date dates quarter half period term season
    decade century""".split())


def entity_terms(question: str, terms: Sequence[str]) -> np.ndarray:
    """Which terms come from the names the question gives (text.name_spans: quotes, and capitalised words past
    a sentence's first word)."""
    named = {s for span in name_spans(question) for s in tokenize(span)}
    return np.asarray([t in named for t in terms], dtype=np.bool_)


def person_terms(question: str, terms: Sequence[str], people: People | None) -> np.ndarray:
    """Which terms come from a person's name the question gives ("Jayne Collins"; index/people.py)."""
    named = {s for span in people.spans(question) for s in tokenize(span)} if people is not None else set()
    return np.asarray([t in named for t in terms], dtype=np.bool_)


def content_words(question: str) -> list[str]:
    """The question's content words, one per stem, each embedded alone and matched against every table and
    column: which column a word names, also where the user's word is not the schema's ("musicians" for
    `singer`, "female" for `gender`, "youngest" for `age`), which no lexical channel can see. Names are left
    to `name_spans`, numbers and query words out."""
    return list(_content_words(question))


@lru_cache(maxsize=4096)
def _content_words(question: str) -> tuple[str, ...]:
    # Remembered: the query embedders and the channels both ask for each question's list.
    named = {w for span in name_spans(question) for w in words(span)}
    out: dict[str, str] = {}
    for w in words(drop_commands(question)):
        if (len(w) < 3 or not w.isalpha() or w in STOPWORDS or w in QUERY_WORDS or w in named
                or (s := stem(w)) in out):
            continue
        out[s] = w
    return tuple(out.values())[:MAX_WORDS]


def embedded_words(question: str, spelling: Spelling) -> list[str]:
    """The content words of the question as the embedding models read it (respelt): the one list the query
    embedders embed and the channels match their vectors to."""
    return content_words(respell(question, spelling))


def compounds(question: str) -> list[str]:
    """Stems of two adjacent question words written as one ("care plan" -> `careplan`, "first name" ->
    `firstname`): schema identifiers often run their words together, and no splitting finds those."""
    ws = words(question)
    out = [stem(a + b) for a, b in zip(ws, ws[1:], strict=False)
           if min(len(a), len(b)) > 2 and a.isalpha() and b.isalpha() and a not in STOPWORDS and b not in STOPWORDS]
    return list(dict.fromkeys(out))


def corrections(question: str, spelling: Spelling) -> dict[str, str]:
    """Question stem -> the schema stem it misspells (index/spelling.py), for words written in lower case: a
    capitalised word is a name ("Singh", "Chiang"), which no schema word spells."""
    return {stem(w): stem(fix) for w, fix in spelling.fixes(_lower_words(question)).items()}


def abbreviated(question: str, spelling: Spelling) -> dict[str, list[str]]:
    """Question stem -> the stems of the schema words that abbreviate its word ("customers" -> `cust`,
    `cstmr`; index/abbreviations.py), or that it abbreviates ("emps" -> `employe`, index/spelling.py), for
    words written in lower case and no query word ("number" is no `num`)."""
    asked = [w for w in _lower_words(question) if w not in QUERY_WORDS]
    found = spelling.expansions(asked)
    out: dict[str, list[str]] = {}
    for w in sorted(found):
        out.setdefault(stem(w), []).extend(s for s in found[w] if s != stem(w))
    # The question's own shorthand that a document holds as written too ("emps" and `emp_fname`) stands for
    # both (one no document holds is read as its word: `corrections`).
    for w in asked:
        if stem(w) in spelling.known and (full := spelling.shorthand(w)) is not None:
            out.setdefault(stem(w), []).append(stem(full))
    return {k: sorted(set(v)) for k, v in out.items() if v}


def respell(question: str, spelling: Spelling) -> str:
    """The question with its misspelt schema words written right: what the embedding models read, so that
    "salaray" is embedded as "salary" (they cannot look it up)."""
    fixes = spelling.fixes(_lower_words(question))
    if not fixes:
        return question
    return _LETTERS.sub(lambda m: fixes.get(m.group(0), m.group(0)), normalize(question))


def _lower_words(question: str) -> list[str]:
    """The lower-case words a misspelling or shorthand is read in: the question's own, not what it quotes nor an
    address ("the "aalle@yellowbook.com" e-mail" names no `comment`) nor a compound's parts."""
    return [w for w in _LETTERS.findall(normalize(_NOT_READ.sub(" ", unquoted(question))))
            if w.islower() and w not in STOPWORDS and w not in COMMANDS]


def match_phrases(question: str, phrases: Mapping[str, Sequence[int]]) -> dict[str, Sequence[int]]:
    """Question n-grams that are sample values somewhere in the catalog."""
    toks = words(question)
    found: dict[str, Sequence[int]] = {}
    for n in range(MAX_PHRASE_WORDS, 0, -1):
        for i in range(len(toks) - n + 1):
            gram = toks[i:i + n]
            if n == 1 and (gram[0] in STOPWORDS or gram[0] in COMMANDS or len(gram[0]) < 3):
                continue
            key = " ".join(gram)
            if key in phrases:
                found[key] = phrases[key]
    return found


def name_hits(stems: set[str], index: Mapping[str, np.ndarray], lengths: np.ndarray) -> np.ndarray:
    """Per position, the share of its name's stems the question holds."""
    out = np.zeros(lengths.size, dtype=np.float32)
    for s in stems:
        hit = index.get(s)
        if hit is not None:
            out[hit] += 1.0
    return out / np.maximum(lengths, 1.0)


def related_hits(stems: Sequence[str], terms: Sequence[str], maps: Sequence[Mapping[str, Sequence[str]]],
                 tables: object, direct: np.ndarray, only: set[str] | None = None,
                 longest: bool = False) -> np.ndarray:
    """(terms, tables): tables holding a schema word one of the maps relates to the term, where the term itself
    is not (the maps' schema words are looked up in one pass); with `only`, just the n-grams made of those
    terms; with `longest`, no n-gram inside a longer key of its map."""
    out = np.zeros(direct.shape, dtype=np.bool_)
    found = [f for m in maps for f in thesaurus.lookup(list(stems), m, longest)]
    if only is not None:
        found = [f for f in found if only.issuperset(stems[f[0]:f[1]])]
    if not found:
        return out
    targets = sorted({s for _, _, hit in found for s in hit})
    held = tables.term_scores(targets) > 0  # type: ignore[attr-defined]
    row = {s: i for i, s in enumerate(targets)}
    pos = {t: i for i, t in enumerate(terms)}
    for lo, hi, hit in found:
        any_held = held[[row[s] for s in hit]].any(axis=0)
        for p in range(lo, hi):
            out[pos[stems[p]]] |= any_held
    return out & ~direct


def dated(question: str) -> bool:
    """The question puts what it asks in time: a year (1800-2099) or a month name its own words lead to. Such
    questions read a column saying when, which they never name (BIRD train: their plans hold one 95% of the
    time, others' 62%); a date pasted around the question (a log line's stamp, a report's title) is none."""
    ws = words(question)
    for i, w in enumerate(ws):
        if w in _MONTHS or (len(w) == 4 and w.isdigit() and 1800 <= int(w) <= 2099):
            j = i - 1
            while j >= 0 and (ws[j].isdigit() or ws[j] in _DATE_WORDS):
                j -= 1
            if j >= 0 and ws[j] in _TIME_LEADS:
                return True
    return False
