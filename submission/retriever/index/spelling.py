"""Misspelt schema words: "salaray" for `salary`, "locayion" for `location`, "subcriber" for `subscriber`;
and the question's own shorthand for them: "qty" for `quantity`, "depts" for `departments`.

A question word that no document holds and that is one edit (a letter dropped, added, changed or two
swapped, never the first) from exactly one word of a table or column name, or from its plural, is read as
that word; failing that, its stem one edit from exactly one name stem ("registred": `register`). A real
word next to a schema word ("county" next to `country`, "carton" next to `cartoon`) is no typo: the build
lists the stems of the WordNet words (all parts of speech, irregular forms included) that are, or stem
from, a string one edit from a schema word or its stem, and search never corrects those. Without WordNet
the build lists nothing and nothing is corrected, since a typo then cannot be told from a word.

Users shorten words too ("avg qty of prods per cust"), the way schemas do (index/abbreviations.py, the other
way round). A question word no document holds and the dictionary lacks (the index's lexicon, set at load),
of 3 to 5 letters past a plural's "s", that shortens a name's word by those rules is read as that word. Of
several, one it spells most closely (its first letters or all its consonants: "cnt" is `count`, not
`country`), then the one most names hold ("emp": `employee` before `emperor`); as the name writes it, or its
plural for a plural ("emps": "employees"). Not in quotes, addresses or compounds (query/lookups.py). Without
the lexicon no word is read so, since a shorthand then cannot be told from a word.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache
from pathlib import Path

from . import wordnet
from .abbreviations import abbreviates, abbreviation_words, consonants, lookup_keys, run_together, singular, stands_for
from .text import stem
from .text import stems as stems_of

SPELLING_FILE = "spelling.json"
#: Shorter words are too close to too many others ("cound": count, round, sound) to guess.
MIN_LENGTH = 5
#: A question's shorthand, past a plural's "s": "qty", "dept"; "no" and "id" are too short to tell.
MIN_SHORTHAND, MAX_SHORTHAND = 3, 5
_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def edits(word: str) -> Iterator[str]:
    """Strings one edit from `word` that keep its first letter (typos rarely hit it)."""
    head, rest = word[:1], word[1:]
    for i in range(len(rest) + 1):
        a, b = rest[:i], rest[i:]
        if b:
            yield head + a + b[1:]
            for c in _LETTERS:
                if c != b[0]:
                    yield head + a + c + b[1:]
        if len(b) > 1:
            yield head + a + b[1] + b[0] + b[2:]
        for c in _LETTERS:
            yield head + a + c + b


def forms(word: str) -> list[str]:
    """A schema word as a question writes it: itself and its plural."""
    if word.endswith("y"):
        return [word, word[:-1] + "ies"]
    return [word, word + ("es" if word.endswith(("s", "x", "ch", "sh")) else "s")]


@dataclass(frozen=True)
class Spelling:
    """What search needs: schema words (as written -> stem), name stems, the real words next to them, the
    schema words that may abbreviate a longer one (index/abbreviations.py; as written -> stem), how many names
    hold each stem, and, set at load, the stems the index's documents hold (no typo, whatever they look like)
    and the dictionary's words."""

    targets: Mapping[str, str] = field(default_factory=dict)
    stems: frozenset[str] = field(default_factory=frozenset)
    #: Stems of the real words one edit from a target: never corrected.
    words: frozenset[str] = field(default_factory=frozenset)
    abbreviations: Mapping[str, str] = field(default_factory=dict)
    pieces: Mapping[str, Sequence[str]] = field(default_factory=dict)
    #: Name stem -> how many table and column names hold it: of several words a shorthand is, the likeliest.
    uses: Mapping[str, int] = field(default_factory=dict)
    known: frozenset[str] = field(default_factory=frozenset)
    #: The dictionary's words (set at load): a word of it is no shorthand.
    lexicon: frozenset[str] = field(default_factory=frozenset)
    _fix: Callable[[str], str | None] = field(init=False, repr=False, compare=False)
    _expand: Callable[[str], tuple[str, ...]] = field(init=False, repr=False, compare=False)
    #: The name's word a question word shortens ("qty" -> "quantity", "depts" -> "departments"), or None.
    shorthand: Callable[[str], str | None] = field(init=False, repr=False, compare=False)

    @cached_property
    def spelt(self) -> dict[str, str]:
        """Name stem -> the shortest schema word with that stem: how a stem-level fix is written back."""
        out: dict[str, str] = {}
        for form, s in sorted(self.targets.items(), key=lambda kv: (len(kv[0]), kv[0])):
            out.setdefault(s, form)
        return out

    def __post_init__(self) -> None:
        # A question's words are looked at twice (for the embedding and for the lexical channels), and the
        # same words come back question after question: each word's answer is worked out once.
        object.__setattr__(self, "_fix", lru_cache(maxsize=65536)(self._fix_word))
        object.__setattr__(self, "_expand", lru_cache(maxsize=65536)(self._expand_word))
        object.__setattr__(self, "shorthand", lru_cache(maxsize=65536)(self._shorthand))

    @cached_property
    def _by_ends(self) -> dict[tuple[str, str], list[str]]:
        return _by_ends(self.abbreviations)

    @cached_property
    def _by_initial(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for form in sorted(set(self.spelt.values())):
            out.setdefault(form[0], []).append(form)
        return out

    @cached_property
    def _pieces_by_ends(self) -> dict[tuple[str, str], list[str]]:
        return _by_ends(self.pieces)

    @cached_property
    def _pieces_by_stem(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for p in sorted(self.pieces):
            out.setdefault(stem(p), []).append(p)
        return out

    def expansions(self, written: Sequence[str]) -> dict[str, list[str]]:
        """Question word (lower case, as written) -> the stems of the schema words that stand for it: its
        abbreviations, and run-together words holding it as a piece (`custid` for "customer")."""
        return {w: list(hits) for w in written if (hits := self._expand(w))}

    def _expand_word(self, word: str) -> tuple[str, ...]:
        if not word.isalpha():
            return ()
        exact, ends = lookup_keys(word)
        found = {a for a in exact if a in self.abbreviations}.union(self._by_ends.get(ends, ()))
        out = {self.abbreviations[a] for a in found if abbreviates(a, word)}
        pieces = {p for p in exact if p in self.pieces}.union(self._pieces_by_ends.get(ends, ()),
                                                             self._pieces_by_stem.get(stem(word), ()))
        out.update(s for p in pieces if stands_for(p, word) for s in self.pieces[p])
        return tuple(sorted(out))

    def fixes(self, written: Sequence[str]) -> dict[str, str]:
        """Misspelt word -> the schema word it stands for, over lower-case words as written: for those no
        document holds and no real word."""
        return {w: fix for w in written if (fix := self._fix(w)) is not None}

    def _fix_word(self, word: str) -> str | None:
        s = stem(word)
        if not word.isalpha() or s in self.known or s in self.stems or word in self.targets:
            return None
        if len(word) >= MIN_LENGTH and s not in self.words:
            near = [e for e in edits(word) if e in self.targets]
            if not near and len(s) >= MIN_LENGTH:
                near = [self.spelt[e] for e in edits(s) if e in self.stems]
            if len({self.targets[e] for e in near}) == 1:  # none, or two schema words: no guess
                return min(near, key=lambda e: (len(e), e))
        return self.shorthand(word)

    def _shorthand(self, word: str) -> str | None:
        one = singular(word)
        if (not word.isalpha() or not self.lexicon or not MIN_SHORTHAND <= len(one) <= MAX_SHORTHAND
                or word in self.lexicon or one in self.lexicon):
            return None
        found = [f for f in self._by_initial.get(word[0], ()) if abbreviates(one, f)]
        if not found:
            return None
        # Its first letters or all its consonants ("cnt": `count`) before looser spellings (`country`).
        best = min(found, key=lambda f: (not (f.startswith(one) or consonants(singular(f)) == one),
                                         -self.uses.get(self.targets[f], 0), len(f), f))
        plural = forms(best)[1]
        return plural if one != word and not best.endswith("s") and plural in self.targets else best

    def with_known(self, known: Iterable[str], lexicon: Iterable[str] = ()) -> Spelling:
        return replace(self, known=frozenset(known), lexicon=frozenset(lexicon))

    def as_json(self) -> dict[str, object]:
        return {"targets": dict(sorted(self.targets.items())), "stems": sorted(self.stems),
                "words": sorted(self.words), "abbreviations": dict(sorted(self.abbreviations.items())),
                "pieces": {p: list(v) for p, v in sorted(self.pieces.items())}, "uses": dict(sorted(self.uses.items()))}

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> Spelling:
        targets, stems, words = data.get("targets", {}), data.get("stems", []), data.get("words", [])
        # An index built before abbreviations (or run-together words) were listed reads none.
        abbreviations, pieces = data.get("abbreviations", {}), data.get("pieces", {})
        uses = data.get("uses", {})  # and before the names' counts, each name's word counts as many as another
        if not (isinstance(targets, Mapping) and isinstance(stems, list) and isinstance(words, list)
                and isinstance(abbreviations, Mapping) and isinstance(pieces, Mapping) and isinstance(uses, Mapping)):
            raise ValueError("spelling.json does not hold targets, stems, words, abbreviations, pieces and uses")
        return cls(dict(targets), frozenset(stems), frozenset(words), dict(abbreviations),
                   {p: list(v) for p, v in pieces.items()}, dict(uses))


def build_spelling(schema_words: Iterable[Sequence[str]], wordnet_root: Path | None) -> Spelling:
    """Targets from the table and column names; the WordNet words one edit from them (none without WordNet)."""
    if wordnet_root is None:
        return Spelling()
    schema_words = [list(name) for name in schema_words]
    names = {w for name in schema_words for w in name if w.isalpha()}
    targets = {f: stem(w) for w in sorted(names) for f in forms(w) if len(f) >= MIN_LENGTH}
    stems = frozenset(s for s in targets.values() if len(s) >= MIN_LENGTH)
    real = wordnet.lexicon(wordnet_root)
    lexicon = frozenset(stem(w) for w in real)
    # A word one edit from a schema word whose stem is a real word's ("holds" next to `helds`, "counties"
    # next to `countries`), or a stem one edit from a schema stem that is ("counti" next to `countri`).
    candidates = sorted({e for t in targets for e in edits(t)})
    near = {s for s in stems_of(candidates) if s in lexicon}
    near.update(e for s in set(targets.values()) for e in edits(s) if e in lexicon)
    short = abbreviation_words(names, real, lexicon)
    uses = Counter(s for name in schema_words for s in {stem(w) for w in name if w.isalpha()} if s in stems)
    return Spelling(targets, stems, frozenset(near), short, run_together(names, real, lexicon, short), dict(uses))


def _by_ends(listed: Iterable[str]) -> dict[tuple[str, str], list[str]]:
    out: dict[tuple[str, str], list[str]] = {}
    for a in sorted(listed):
        out.setdefault((a[0], a[-1]), []).append(a)
    return out
