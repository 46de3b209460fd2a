"""Usage words: the users' words for schema words, learned from questions rewritten in the users' words.

A hand-rewritten question drops some of its database's schema words and brings in words of its own
("How many students ..." -> "How many learners ..."). Over many rewrites, a brought-in word that comes with
a dropped schema word far more often than either comes alone, in several databases, is what users say for
that schema word: "learner" -> `student`, "file" -> `document`, "plane" -> `aircraft`, "town" -> `city`.
WordNet misses many of these (it does not relate "town" to "city" or "staff" to "employee"); the pairs are
plain English, not any database's, which is why a pair must be seen in several databases.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from retriever.index.catalog import Catalog
from retriever.index.text import schema_tokens, tokenize

#: A pair is kept when seen in at least this many databases and when its Dice coefficient (twice the
#: rewrites holding both over the rewrites holding either) is at least MIN_DICE.
MIN_DATABASES = 3
MIN_DICE = 0.2


@dataclass(frozen=True)
class Rewrite:
    """One rewritten question: its database, the schema stems it dropped and the other stems it brought in."""

    database: str
    dropped: frozenset[str]
    brought: frozenset[str]


def schema_vocabulary(catalog: Catalog) -> dict[str, set[str]]:
    """Per database, the stems of its table and column names and descriptions."""
    out: dict[str, set[str]] = defaultdict(set)
    for t in catalog.tables:
        held = out[t.group]
        held.update(schema_tokens(t.name), tokenize(t.description))
        for c in t.columns:
            held.update(schema_tokens(c.name), tokenize(c.description))
    return dict(out)


def rewrite(database: str, original: str, rewritten: str, vocabulary: set[str]) -> Rewrite:
    """What a rewrite changed: schema stems of its database it dropped, and words it brought in that are no
    schema word there (a word of 3 letters or more, no number)."""
    before, after = set(tokenize(original)), set(tokenize(rewritten))
    brought = {w for w in after - before if w not in vocabulary and w.isalpha() and len(w) >= 3}
    return Rewrite(database, frozenset((before - after) & vocabulary), frozenset(brought))


def learn(rewrites: Iterable[Rewrite], min_databases: int = MIN_DATABASES, min_dice: float = MIN_DICE
          ) -> dict[str, list[str]]:
    """User stem -> the schema stems it stands for, sorted; keys sorted."""
    both: Counter[tuple[str, str]] = Counter()
    where: dict[tuple[str, str], set[str]] = defaultdict(set)
    brought: Counter[str] = Counter()
    dropped: Counter[str] = Counter()
    for r in rewrites:
        brought.update(r.brought)
        dropped.update(r.dropped)
        for a in r.brought:
            for s in r.dropped:
                both[a, s] += 1
                where[a, s].add(r.database)
    out: dict[str, list[str]] = defaultdict(list)
    for (a, s), n in sorted(both.items()):
        if a != s and len(where[a, s]) >= min_databases and 2 * n / (brought[a] + dropped[s]) >= min_dice:
            out[a].append(s)
    return {a: sorted(ss) for a, ss in sorted(out.items())}
