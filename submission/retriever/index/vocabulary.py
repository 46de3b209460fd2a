"""The catalog's words, embedded once at build so that a question's content words need not be.

A question's content words (query/lookups.content_words) are embedded alone beside the question; most of
them are the catalog's own words ("singers", "age", "country"), and each one costs the encoder a sequence
of its own at query time (about 3 ms a question with the local model). The build embeds the words the
catalog holds, and their other number, in the same way; a query embeds only the words that are not here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from .catalog import Catalog
from .text import STOPWORDS, words

#: The vocabulary's words, in row order of each dense channel's `dense_<name>_words.npy`.
VOCABULARY_FILE = "vocabulary.json"
#: Most words embedded at build: at the local model's pace (about 1,500 words a second on 2 cores) the
#: Spider catalog's 9,000 take 6 s; a catalog of 100k tables keeps its most widespread words.
MAX_VOCABULARY = 20_000


def catalog_vocabulary(catalog: Catalog, limit: int = MAX_VOCABULARY) -> list[str]:
    """The words a question is likeliest to use of the catalog's, most widespread first (ties alphabetical):
    its table, column and group names, descriptions and sample values, lower-cased as content_words gives
    them, and the other number of each name's and description's word ("singer" and "singers"). A sample
    value's word keeps only its own form: the values are mostly names ("Zboncak"), whose plurals were a third
    of Spider's vocabulary (2,960 of 8,921 words, 1.5 s of its build) and a question hardly asks."""
    spread: Counter[str] = Counter()
    named: set[str] = set()
    seen: dict[str, tuple[str, ...]] = {}  # a big catalog repeats its column names: each text is split once
    for t in catalog.tables:
        texts = {t.name, t.description, t.group}
        texts.update(part for c in t.columns for part in (c.name, c.description))
        held: set[str] = set()
        for text in texts:
            held.update(_split(text, seen))
        named |= held
        for row in t.sample_rows:
            held.update(w for v in row.values() if isinstance(v, str) for w in _split(v, seen))
        spread.update(held)
    counts = dict(spread)
    for w in sorted(named):
        for form in other_number(w):
            spread[form] = max(spread[form], counts[w])
    ranked = sorted(spread.items(), key=lambda kv: (-kv[1], kv[0]))
    return [w for w, _ in ranked[:limit]]


def _split(text: str, seen: dict[str, tuple[str, ...]]) -> tuple[str, ...]:
    got = seen.get(text)
    if got is None:
        got = seen[text] = tuple(_content(text))
    return got


def other_number(word: str) -> list[str]:
    """The plural of a singular and the singular of a plural, by English spelling rules (a guess either way:
    a wrong form costs a row nobody looks up)."""
    if word.endswith("ies") and len(word) > 4:
        return [word[:-3] + "y"]
    if word.endswith(("sses", "xes", "ches", "shes")):
        return [word[:-2]]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return [word[:-1]]
    if word.endswith("y") and len(word) > 3 and word[-2] not in "aeiou":
        return [word[:-1] + "ies"]
    if word.endswith(("s", "x", "ch", "sh")):
        return [word + "es"]
    return [word + "s"]


def _content(text: str) -> Iterator[str]:
    for w in words(text):
        if len(w) >= 3 and w.isalpha() and w not in STOPWORDS:
            yield w
