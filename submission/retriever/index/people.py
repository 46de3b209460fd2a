"""People: which tables hold persons, and which words of a question name one.

"Which brand did Jayne Collins rate lowest?" names a customer the catalog has no sample row of; the plan needs
the table that holds people's names, which no word of the question names. At build, a table holds people when
a column is a person's first, last or full name, or when the table is named after a kind of person (WordNet's
nouns under `person`: customer, author, driver) and has a name column. A question names a person where a
capitalised first name of the US census lists (the PyPI package `names`, MIT licence, data of the 1990 census:
5,163 first and 88,799 last names) is followed, past initials ("Diego W Roel"), by a capitalised last name.
The lists miss many names users give ("Penelope Guiness", "Ursola Purdy"), so a census first name followed by
a word no dictionary knows, or a word no dictionary knows followed by a census last name that is no word
either, names a person too (WordNet's lexicon tells which words are words). Of the train questions on
databases with a table of people, this names someone in 561 of BIRD's instead of 436, the gold plan holding a
table of people for 83% of them (82% before), and in 138 of Spider's instead of 103 (90%, 86% before); "Santa
Clarita" and "Warner Bros." are ones it gets wrong. The lists go into the index, so search reads no package;
without the package they are empty and nothing is named, and without WordNet only both census lists name a
person.
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .catalog import Catalog
from .text import STOPWORDS, split_identifier, tokenize
from .wordnet import WordNet, singulars

PEOPLE_FILE = "person_names.json"
PERSON_TABLES_FILE = "person_tables.npy"
#: Hypernym levels walked up from a table name's first noun sense (singer -> musician -> performer ->
#: entertainer -> person is 4).
PERSON_DEPTH = 8
_FIRST_FILES = ("dist.male.first", "dist.female.first")
_LAST_FILE = "dist.all.last"
#: Column words that hold a person's name: first_name, lastName, surname, fname.
_PERSON_COLUMN = re.compile(r"\b(?:(?:first|last|middle|given|full|family|sur|fore|nick) ?name|surname|forename"
                            r"|firstname|lastname|fname|lname)\b")
_TOKEN = re.compile(r"[A-Za-z][A-Za-z'\-]*\.?")
_INITIAL = re.compile(r"[A-Z]\.?")
_POSSESSIVE = re.compile(r"('s|')$")
_NAME_STEMS = frozenset({"name"})
#: Nouns for groups of people that tables of people are named after (WordNet files them under `group`).
_PERSON_GROUPS = frozenset({"people", "staff", "personnel"})


def names_dir() -> Path | None:
    """The data folder of the installed `names` package (found, not imported), or None."""
    spec = importlib.util.find_spec("names")
    if spec is None or spec.origin is None:
        return None
    root = Path(spec.origin).parent
    return root if all((root / f).is_file() for f in (*_FIRST_FILES, _LAST_FILE)) else None


@dataclass(frozen=True)
class People:
    """Census first and last names, lower case."""

    first: frozenset[str] = field(default_factory=frozenset)
    last: frozenset[str] = field(default_factory=frozenset)
    #: The dictionary's words (WordNet's lexicon), which a name the census lists miss is not.
    words: frozenset[str] = field(default_factory=frozenset)

    @classmethod
    def from_dir(cls, root: Path | None, words: Iterable[str] = ()) -> People:
        if root is None:
            return cls()
        return cls(frozenset(w for f in _FIRST_FILES for w in _column(root / f)), frozenset(_column(root / _LAST_FILE)),
                   frozenset(words))

    @classmethod
    def from_json(cls, data: dict[str, list[str]]) -> People:
        return cls(*(frozenset(data.get(k, [])) for k in ("first", "last", "words")))

    def as_json(self) -> dict[str, list[str]]:
        return {"first": sorted(self.first), "last": sorted(self.last), "words": sorted(self.words)}

    def spans(self, question: str) -> list[str]:
        """The persons' names the question gives: "Jayne Collins", "Peter H. Smith"."""
        toks = list(_TOKEN.finditer(question))
        out = []
        for i, m in enumerate(toks[:-1]):
            first = m.group().rstrip(".")
            if not first[0].isupper() or (first.lower() not in self.first and not self.words):
                continue
            j = i + 1
            while j < len(toks) - 1 and _INITIAL.fullmatch(toks[j].group()):
                j += 1
            last = _POSSESSIVE.sub("", toks[j].group().rstrip("."))
            if last[:1].isupper() and self._names(first, last):
                out.append(question[m.start():toks[j].end()])
        return out

    def _names(self, first: str, last: str) -> bool:
        """Whether two capitalised words are a first and a last name (see the module's docstring)."""
        f, la = first.lower(), last.lower()
        if f in self.first and la in self.last:
            return True
        if not self.words or not (_written_as_name(first) and _written_as_name(last)):
            return False
        unknown = not self.is_word(la)
        return (f in self.first and unknown) or (not self.is_word(f) and unknown and la in self.last)

    def is_word(self, word: str) -> bool:
        """A word of the dictionary, as written or as a regular plural ("awards"), or a function word (WordNet
        has no "they", "the", "if")."""
        return word in STOPWORDS or any(b in self.words for b in (word, *singulars(word)))


def _written_as_name(word: str) -> bool:
    """Letters, capitalised past one, or all capitals past two: "Du", "GUINESS"; not "IDs", "ID", "What's"."""
    return word.isalpha() and word[0].isupper() and ((len(word) > 1 and word[1:].islower())
                                                     or (len(word) > 2 and word.isupper()))


def _column(path: Path) -> Iterable[str]:
    for line in path.read_text(encoding="ascii", errors="replace").splitlines():
        parts = line.split()
        if parts and parts[0].isalpha():
            yield parts[0].lower()


def person_tables(catalog: Catalog, wordnet: WordNet | None) -> np.ndarray:
    """Per table: it holds people (a person-name column, or a person noun for a name with a name column)."""
    out = []
    for t in catalog.tables:
        cols = [split_identifier(c.name).lower() for c in t.columns]
        if any(_PERSON_COLUMN.search(c) for c in cols):
            out.append(True)
            continue
        named = any(s in _NAME_STEMS for c in t.columns for s in tokenize(c.name))
        head = split_identifier(t.name).lower().split()
        out.append(bool(named and head and wordnet is not None and is_person(wordnet, head[-1])))
    return np.asarray(out, dtype=np.bool_)


def is_person(wordnet: WordNet, word: str) -> bool:
    """Whether the first noun sense of the word is a kind of person (WordNet's first sense of "person")."""
    lemma = wordnet.lemma(word)
    person = wordnet.senses.get("person", [None])[0]
    if lemma is None or person is None:
        return False
    if lemma in _PERSON_GROUPS:
        return True
    frontier = wordnet.senses[lemma][:1]
    seen = set(frontier)
    for _ in range(PERSON_DEPTH):
        if person in frontier:
            return True
        frontier = [o for s in frontier for sym, o in wordnet.synset(s)[1] if sym in ("@", "@i") and o not in seen]
        seen.update(frontier)
    return person in frontier
