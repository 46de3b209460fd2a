"""Abbreviated schema words: `cust` and `cstmr` for "customer", `qty` for "quantity", `dept`, `addr`, `nm`.

Undocumented schemas shorten their words, and no stemming or thesaurus brings the user's full word to them.
The build lists the schema words that are no English word (WordNet knows neither them nor their stem), and
the vowel-less short ones even if it does (`nm`, `yr`, `cd`: WordNet's senses of those are no schema's);
search reads a question word as such a word where the word spells it the way abbreviations are made: its
first letters (`cust`, at least three), its consonants (`nm`: all of them where two) or their first letters
(`cstmr`, `sngr`), or its first letters and then some of its consonants in order, the last one among them,
three letters or more and at least half as many as its consonants (`qty`, `amt`, `dept`). WordNet's own
abbreviations (`prof`) come to their full words through the thesaurus already. Without WordNet nothing is
listed, since an abbreviation then cannot be told from a word.

Identifiers also run their shortened words together, lower case (`custid`, `acctbal`, `availqty`, `fname`,
`pubdate`): the build splits each such schema word (no English word) where both sides can stand for a
word, and a question word that is, or that spells as above, one of those pieces reads as the whole
(`customers` -> `custid`, `balance` -> `acctbal`, `name` -> `fname`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from .text import STOPWORDS, stem

#: Longest schema word taken for an abbreviation, and shortest question word read as spelling one out.
MAX_ABBREVIATION = 8
MIN_WORD = 4
#: Run-together schema words: the longest split, and the shortest piece that stands for a question word
#: written out (`name` of `fname` does, `id` of `custid` does not: it would stand for every `...id`).
MAX_RUN_TOGETHER = 24
MIN_PIECE = 3
#: How long a leading initial may be (`f` of `fname`, `tm` of `tmax`): no word, but it leaves a piece that is.
MAX_INITIAL = 2
_VOWELS = frozenset("aeiou")


def consonants(word: str) -> str:
    """'customer' -> 'cstmr': the first letter, then the other letters but vowels, a double written once."""
    out = word[:1]
    for ch in word[1:]:
        if ch not in _VOWELS and ch != out[-1]:
            out += ch
    return out


def abbreviation_words(schema_words: Iterable[str], lexicon: frozenset[str],
                       lexicon_stems: frozenset[str]) -> dict[str, str]:
    """Schema word -> its stem, for the schema's words that may abbreviate a longer one (no stop word:
    WordNet lists none, and `for` is no "former")."""
    out: dict[str, str] = {}
    for w in sorted(set(schema_words)):
        if not (w.isalpha() and w.isascii() and 2 <= len(w) <= MAX_ABBREVIATION) or w in STOPWORDS:
            continue
        s = stem(w)
        unknown = w not in lexicon and s not in lexicon_stems
        if unknown or (len(w) <= 3 and not _VOWELS & set(w[1:]) and w[0] not in _VOWELS):
            out[w] = s
    return out


def run_together(schema_words: Iterable[str], lexicon: frozenset[str], lexicon_stems: frozenset[str],
                 abbreviations: Mapping[str, str]) -> dict[str, list[str]]:
    """Piece -> the stems of the schema words it was run together into. A schema word that is no English word
    splits in two wherever one side can be read: an English word (two letters or more) or a listed
    abbreviation. The other side is then a piece too where it has three letters or more (`cust|id`,
    `acct|bal`, `avail|qty`); one or two letters before a read side are an initial, no piece (`f|name`).
    Where some split reads on both sides or is an initial and a read side, only those count (`key|word`,
    `hire|date`, `hired|ate`, `d|name`; not `keyw|ord`); a piece stands only for the question words it
    spells (`stands_for`)."""

    def readable(piece: str) -> bool:
        return len(piece) >= 2 and (piece in abbreviations or piece in lexicon or stem(piece) in lexicon_stems)

    out: dict[str, set[str]] = {}
    for w in sorted(set(schema_words)):
        if not (w.isalpha() and w.isascii() and 4 <= len(w) <= MAX_RUN_TOGETHER) or w in STOPWORDS:
            continue
        s = stem(w)
        if w in lexicon or s in lexicon_stems:
            continue
        splits = [(w[:k], w[k:], readable(w[:k]), readable(w[k:])) for k in range(1, len(w) - 1)]
        # Where some split reads on both sides, or is an initial and a read side, only those count
        # (`key|word`, not `keyw|ord`).
        whole = [sp for sp in splits if sp[3] and (sp[2] or len(sp[0]) <= MAX_INITIAL)]
        for left, right, *read in whole or splits:
            if not any(read):
                continue
            for piece, ok in zip((left, right), read, strict=True):
                if ok or len(piece) >= MIN_PIECE:
                    out.setdefault(piece, set()).add(s)
    return {p: sorted(v) for p, v in sorted(out.items())}


def stands_for(piece: str, word: str) -> bool:
    """Whether a piece of a run-together schema word is the question word (lower case) or abbreviates it."""
    if len(piece) >= MIN_PIECE and stem(piece) == stem(word):
        return True
    return abbreviates(piece, word)


def singular(word: str) -> str:
    """A regular plural's "s" off ("depts" -> "dept"; "address" keeps it)."""
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


def _subsequence(short: str, long: Iterable[str]) -> bool:
    it = iter(long)
    return all(ch in it for ch in short)


def abbreviates(abbreviation: str, word: str) -> bool:
    """Whether `abbreviation` (a schema word) is `word` (a question word, lower case) shortened."""
    if len(word) < MIN_WORD or len(abbreviation) > len(word) - 2 or abbreviation[0] != word[0]:
        return False
    if len(abbreviation) >= 3 and word.startswith(abbreviation):
        return True
    one = singular(word)
    skeleton = consonants(one)
    if skeleton == abbreviation or (len(abbreviation) >= 3 and skeleton.startswith(abbreviation)):
        return True
    if len(abbreviation) < 3 or 2 * len(abbreviation) < len(skeleton):
        return False
    # Its first letters, then some of the consonants after them in order, its last among them ("dep" + "t",
    # "q" + "ty"; `cont` spells "continent", not "country").
    last = skeleton[-1]
    for k in range(1, len(abbreviation)):
        if abbreviation[k - 1] != one[k - 1]:
            break
        rest = [ch for ch in one[k:] if ch not in _VOWELS]
        if abbreviation[-1] == last and rest and rest[-1] == last and _subsequence(abbreviation[k:], rest):
            return True
    return False


def lookup_keys(word: str) -> tuple[list[str], tuple[str, str]]:
    """Where a question word's abbreviations can be among many (a catalog of 100k tables lists some 35k): the
    strings they are if made of its first letters or of its consonants' first letters, and the first and last
    letters they have if made otherwise. Every schema word `abbreviates` accepts is one of those (the tests
    check it against all of them); search looks these up and keeps what `abbreviates` accepts."""
    skeleton = consonants(singular(word))
    exact = [word[:k] for k in range(3, len(word) - 1)] + [skeleton[:k] for k in range(2, len(skeleton) + 1)]
    return exact, (word[:1], skeleton[-1:])
