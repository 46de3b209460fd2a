"""Related words: what a user may say for the schema's words, read from WordNet once, at build.

A user says "musicians" or "vocalists" where the schema says `singer`, "arena" where it says `stadium`.
For every word of a table or column name (and two-word names WordNet knows, `zip_code`), the synonyms of
its first senses and one level of broader and narrower terms map back to the schema word's stem. Two more
maps come from the same words: the named instances of their kind ("Finland" -> `country`) and the verbs and
adjectives their nouns are made from ("acted" -> `actor`). The maps (question stem n-gram -> schema stems)
go into the index, so search only looks up the question's stem n-grams and never reads WordNet
(index/wordnet.py reads it); without it the maps are empty and the channels score nothing.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path

from ..errors import ConfigError
from .catalog import Catalog
from .text import STOPWORDS, stem, tokenize, words
from .wordnet import WordNet

#: Longest related lemma kept, in content words ("musical performance" is 2).
MAX_KEY_STEMS = 3
#: Where an index keeps each map.
RELATED_FILE, INSTANCE_FILE, DERIVED_FILE = "related_words.json", "instance_words.json", "derived_words.json"


def schema_words(catalog: Catalog) -> list[list[str]]:
    """The words of every table and column name, one list per identifier (for two-word lemmas)."""
    out = []
    for t in catalog.tables:
        out.append(words(t.name))
        out.extend(words(c.name) for c in t.columns)
    return out


def _schema_lemmas(names: Iterable[list[str]], wordnet: WordNet) -> Iterator[tuple[str, set[str]]]:
    """(WordNet noun lemma, schema stems) for each distinct word and two-word name of the schema WordNet knows."""
    done: set[str] = set()
    for ws in names:
        spans = [(w, [w]) for w in ws if w not in STOPWORDS and w.isalpha() and len(w) > 2]
        spans += [(f"{a}_{b}", [a, b]) for a, b in zip(ws, ws[1:], strict=False) if a.isalpha() and b.isalpha()]
        for word, parts in spans:
            lemma = wordnet.lemma(word) if "_" not in word else (word if word in wordnet.senses else None)
            if lemma is None or lemma in done:
                continue
            done.add(lemma)
            stems = {stem(p) for p in parts if p not in STOPWORDS}
            if stems:
                yield lemma, stems


def _key(lemma: str) -> list[str]:
    return tokenize(lemma.replace("_", " ").replace("-", " "))


def related_words(names: Iterable[list[str]], wordnet: WordNet) -> dict[str, list[str]]:
    """Question stem n-gram (space-joined) -> the schema stems it stands for; a key is never its own target."""
    targets: dict[str, set[str]] = {}
    for lemma, stems in _schema_lemmas(names, wordnet):
        for rel in wordnet.related(lemma):
            key = _key(rel)
            if not key or len(key) > MAX_KEY_STEMS or (len(key) == 1 and wordnet.mostly_verb_or_adjective(rel)):
                continue
            # A relative that contains the schema word ("graduate school" for `school`, "first name" for
            # `name`) would lend the schema word to its other words, which mean something else.
            if not stems & set(key):
                targets.setdefault(" ".join(key), set()).update(stems)
    return {k: sorted(v) for k, v in sorted(targets.items())}


def instance_words(names: Iterable[list[str]], wordnet: WordNet) -> dict[str, list[str]]:
    """Name stem n-gram -> the schema stems of what it is an instance of ("finland" -> `country`, "asian" ->
    `continent`): a name the catalog does not hold still says which column would."""
    targets: dict[str, set[str]] = {}
    for lemma, stems in _schema_lemmas(names, wordnet):
        for inst in wordnet.instances(lemma):
            key = _key(inst)
            if key and len(key) <= MAX_KEY_STEMS and not stems & set(key):
                targets.setdefault(" ".join(key), set()).update(stems)
    # A longer name of another kind that holds one of these ("Detroit River" holds the city) is kept with no
    # kind, so that the look-up's longest match can tell the river from the city.
    for inst in wordnet.instance_names():
        key = _key(inst)
        if 1 < len(key) <= MAX_KEY_STEMS and " ".join(key) not in targets and any(
                " ".join(key[i:j]) in targets for i in range(len(key)) for j in range(i + 1, len(key) + 1)):
            targets[" ".join(key)] = set()
    return {k: sorted(v) for k, v in sorted(targets.items())}


def derived_words(names: Iterable[list[str]], wordnet: WordNet) -> dict[str, list[str]]:
    """Question stem -> the schema stems of the nouns its verb or adjective is made from ("act", "acted" ->
    `actor`; "taught" -> `teacher`; "financial" -> `finance`): users ask with the verb ("films Penelope
    Guiness acted in") where the schema has the noun. A form that stems as the noun does ("published",
    `publisher`) needs no key."""
    targets: dict[str, set[str]] = {}
    for lemma, stems in _schema_lemmas(names, wordnet):
        if "_" in lemma:
            continue
        for word in wordnet.derived_forms(lemma):
            for form in (word, *wordnet.verb_forms.get(word, ())):
                if wordnet.mostly_another_verbs(form, word):  # "found" is find's more than it is found's
                    continue
                key = stem(form)
                if key not in stems:
                    targets.setdefault(key, set()).update(stems)
    return {k: sorted(v) for k, v in sorted(targets.items())}


#: The thesaurus's maps an index holds: related words, instances, derived words (question stem n-gram ->
#: schema stems each).
Maps = tuple[dict[str, list[str]], dict[str, list[str]], dict[str, list[str]]]


def build_maps(catalog: Catalog, wordnet: WordNet | None, usage: Mapping[str, Sequence[str]] | None = None,
               held: set[str] | None = None) -> Maps:
    """The index's related-word, instance and derived-word maps (empty without WordNet); the usage words
    (`read_usage`) whose schema stems the catalog's documents hold (`held`) join the related words."""
    related: dict[str, list[str]] = {}
    instances: dict[str, list[str]] = {}
    derived: dict[str, list[str]] = {}
    if wordnet is not None:
        names = schema_words(catalog)
        related, instances, derived = (related_words(names, wordnet), instance_words(names, wordnet),
                                       derived_words(names, wordnet))
    return with_usage(related, usage or {}, held or set()), instances, derived


def with_usage(related: Mapping[str, Sequence[str]], usage: Mapping[str, Sequence[str]], held: set[str]
               ) -> dict[str, list[str]]:
    """The related words plus each usage word's schema stems that `held` holds, keys and stems sorted."""
    out = {k: set(v) for k, v in related.items()}
    for key, targets in usage.items():
        kept = {t for t in targets if t in held and t != key}
        if kept:
            out.setdefault(key, set()).update(kept)
    return {k: sorted(v) for k, v in sorted(out.items())}


def read_usage(path: Path) -> dict[str, list[str]]:
    """The pairs of a usage-words file (scripts/usage_words.py): user stem -> schema stems."""
    try:
        pairs = json.loads(path.read_text(encoding="utf-8"))["pairs"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ConfigError(f"usage words {path}: cannot read its pairs ({e})") from e
    if not isinstance(pairs, dict) or not all(isinstance(k, str) and isinstance(v, list)
                                              and all(isinstance(t, str) for t in v) for k, v in pairs.items()):
        raise ConfigError(f"usage words {path}: 'pairs' must map a word to a list of words")
    return {k: list(v) for k, v in pairs.items()}


def lookup(stems: Sequence[str], related: Mapping[str, Sequence[str]],
           longest: bool = False) -> list[tuple[int, int, Sequence[str]]]:
    """(first, past-last position, schema stems) for each question stem n-gram the map knows; with `longest`,
    only n-grams inside no longer known one (a key with no stems still hides what it holds)."""
    out: list[tuple[int, int, Sequence[str]]] = []
    for n in range(MAX_KEY_STEMS, 0, -1):
        for i in range(len(stems) - n + 1):
            hit = related.get(" ".join(stems[i:i + n]))
            if hit is None or (longest and any(lo <= i and i + n <= hi for lo, hi, _ in out)):
                continue
            out.append((i, i + n, hit))
    return [f for f in out if f[2]]
