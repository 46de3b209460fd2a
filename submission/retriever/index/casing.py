"""Casing: the capitals a question typed without any would have had ("in canada" -> "in Canada").

Capitals carry evidence: a capitalised run is a name whose column has to be guessed (text.name_spans), a
census first and last name a person (people.py), "Finland" a `country` (the thesaurus's instances). A user
who types in lower case, or in capitals throughout, gives none of it: held-out BIRD questions lower-cased
lose 20 of 1,872, Spider dev's 7 of 1,011. At build, WordNet says which words are names more often than
words: a lemma whose senses written with a capital are tagged more often in its sense-tagged corpus than
its senses in lower case and those of the words it could be an inflection of, or, where none is tagged, that
has more senses as a name, or as a place as many ("Canada", "English", "USA", "Bolivia"; not "singer",
whose Singers are untagged persons, nor "tours", the plural of "tour", nor "burger"), with their regular
plurals; and the names of several words it writes only with capitals ("New York", "Social Security"; not
"post office", nor "the City"). At search, a question with no capital of its own past its sentences' first
letters (quotes aside), with nothing but capitals, or in title case ("How Many Singers Are from France?", which
held-out BIRD questions lose 26 of 1,871 to, read this way 8), is given those; a census first name no dictionary
knows is a person's where a census last name or a possessive follows ("kerry pryor", "kyle's"), and a
census last name after a first name is one ("harrison ford"), and so is a census first name that is also a
word before a last name that is no word or a name ("john williams"). A question that capitalises anything
itself keeps its writer's casing but for the names WordNet never writes in lower case ("students from
canada", "flights to new york") and a person whose first name no dictionary knows ("susan wilson"): a writer
who capitalises one name may not bother with the next. A dictionary word of 4 letters or more that such a
question stresses in capitals alone ("How many MOVIES ...", "What TYPE of ...") goes to lower case, unless
WordNet writes it as a name ("USA", "GDP"): read as a name, it took the place of the value the question gives.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .people import People
from .text import STOPWORDS
from .wordnet import bases, exceptions, records

CASING_FILE = "casing.json"
#: Longest name of several words looked up, in words.
MAX_PHRASE_WORDS = 4
#: A text is in title case when this share of its words that are no function words, of at least this many past
#: its sentences' first, is capitalised.
TITLED_SHARE = 0.75
TITLED_WORDS = 3
#: A word in capitals shorter than this is left as typed: a code or an acronym more often ("ID", "CHI", "RAM").
MIN_STRESSED = 4
#: Function words a name seldom holds, which only title case capitalises.
_TITLE_MARKS = frozenset({"is", "are", "was", "were", "do", "does", "did", "has", "have", "had", "be", "been",
                          "than", "that", "which", "who", "whom", "whose", "what", "when", "where", "how", "there",
                          "their", "they", "each", "per", "both", "between"})
#: Words WordNet lacks or files as names that a lower-case question uses as words ("may" is a month), and
#: census first names a question asks with ("how many app users", "how long").
_NOT_NAMES = frozenset({"may", "might", "must", "shall", "else", "many", "long"})
#: WordNet's lexicographer file of places (noun.location).
_LOCATIONS = "15"
_POS = {"1": "noun", "2": "verb", "3": "adj", "4": "adv", "5": "adj"}
#: A word as a question writes it between spaces and punctuation: not a piece of a URL, path or address.
_WORD = re.compile(r"(?<![^\s(\[])[A-Za-z]+(?:'s)?(?=[\s,;?!)\]]|[.:](?!\S)|$)")
_QUOTED = re.compile(r"\"[^\"]*\"|\u201c[^\u201d]*\u201d|(?<!\w)'[^']*'(?!\w)")


@dataclass(frozen=True)
class Casing:
    """Lower-case words and names of several words -> how WordNet writes them."""

    words: Mapping[str, str] = field(default_factory=dict)
    phrases: Mapping[str, str] = field(default_factory=dict)
    #: The words WordNet writes only with a capital, nor in lower case as any word they could inflect.
    only: frozenset[str] = frozenset()

    @classmethod
    def from_wordnet(cls, root: Path, schema: Iterable[str] = ()) -> Casing:
        """`schema`: the catalog's identifier words, which a writer who cases names may mean in lower case
        (`gpa`, `url`, `thomas_id`)."""
        capital, places, phrases, lower = _capitals(root)
        tags: dict[bool, Counter[str]] = {True: Counter(), False: Counter()}
        senses: dict[bool, Counter[str]] = {True: Counter(), False: Counter()}
        form: dict[str, tuple[int, str]] = {}
        place: set[str] = set()
        for sense_key, offset, _, count in records(root / "index.sense"):
            lemma, kind = sense_key.split("%")
            synset = (_POS[kind[0]], int(offset))
            written = capital.get(synset, {}).get(lemma)
            tags[written is not None][lemma] += int(count)
            senses[written is not None][lemma] += 1
            if written is not None and synset in places:
                place.add(lemma)
            if written is not None and (lemma not in form or int(count) > form[lemma][0]):
                form[lemma] = (int(count), written)
        irregular: dict[str, list[str]] = {}
        for pos in ("noun", "verb", "adj", "adv"):
            for inflected, base in exceptions(root / f"{pos}.exc"):
                irregular.setdefault(inflected, []).append(base)

        def words_near(word: str) -> tuple[str, ...]:
            """The word and what it could be an inflection of ("tours" -> tour, "led" -> lead)."""
            return (word, *bases(word), *irregular.get(word, ()))

        def lower_case(word: str) -> tuple[int, int]:
            near = words_near(word)
            return max(tags[False][w] for w in near), max(senses[False][w] for w in near)

        words = {}
        for lemma, (_, written) in sorted(form.items()):
            if len(lemma) < 3 or not lemma.isalpha() or len(written) != len(lemma):
                continue
            lower_tags, lower_senses = lower_case(lemma)
            # Where no sense is tagged, more senses as a name, or a place as much as a word ("Bolivia", a card game).
            if tags[True][lemma] > lower_tags or (tags[True][lemma] == lower_tags == 0 and (
                    senses[True][lemma] > lower_senses or (lemma in place and senses[True][lemma] == lower_senses))):
                words[lemma] = written
        for lemma, written in list(words.items()):
            plural = _plural(lemma)
            if plural not in words and plural not in senses[True] and lower_case(plural) == (0, 0):
                words[plural] = _plural(written)
        used = {w.lower() for w in schema}
        only = frozenset(w for w in words if w not in used and not any(n in lower or n in used for n in words_near(w)))
        return cls(words, phrases, only)

    @classmethod
    def from_json(cls, data: Mapping[str, Mapping[str, str]]) -> Casing:
        return cls(dict(data.get("words", {})), dict(data.get("phrases", {})), frozenset(data.get("only", ())))

    def as_json(self) -> dict[str, Any]:
        return {"words": dict(self.words), "phrases": dict(self.phrases), "only": sorted(self.only)}

    def restore(self, text: str, people: People) -> str:
        """The text with the capitals its names would have: all of them when its writer gave it none of its
        own, else those of the names WordNet never writes in lower case."""
        quotes = [m.span() for m in _QUOTED.finditer(text)]
        starts = [a for a, _ in quotes]
        toks = [m for m in _WORD.finditer(text)
                if (q := bisect_right(starts, m.start()) - 1) < 0 or m.start() >= quotes[q][1]]
        if not toks:
            return text
        shouted = len(toks) > 1 and all(c.isupper() for m in toks for c in m.group() if c.isalpha())
        shouted = shouted or _titled(text, toks)
        cased = not shouted and any(m.group()[0].isupper() and m.group() != "I"
                                    and not _opens_sentence(text, m.start()) for m in toks)
        out = list(text)
        words = [m.group().lower() for m in toks]
        typed_lower = [m.group().islower() for m in toks]
        # A word in capitals among words that are not: stressed ("How many MOVIES ..."), or an acronym.
        stressed = [len(m.group()) >= MIN_STRESSED and m.group().isupper()
                    and not any(toks[j].group().isupper() for j in (i - 1, i + 1) if 0 <= j < len(toks))
                    for i, m in enumerate(toks)]
        if shouted:
            for m, w in zip(toks, words, strict=True):
                out[m.start():m.end()] = w
        i, first, named = 0, False, False
        while i < len(toks):
            n = next((n for n in range(min(MAX_PHRASE_WORDS, len(toks) - i), 1, -1)
                      if " ".join(words[i:i + n]) in self.phrases and (not cased or all(typed_lower[i:i + n]))
                      and text[toks[i].start():toks[i + n - 1].end()].count(" ") == n - 1), 0)
            if n:
                out[toks[i].start():toks[i + n - 1].end()] = self.phrases[" ".join(words[i:i + n])]
                i, first, named = i + n, False, False
                continue
            word = words[i].removesuffix("'s")
            plain = word in STOPWORDS or word in _NOT_NAMES or len(word) < 3
            written = None if plain else self.words.get(word)
            following = words[i + 1].removesuffix("'s") if i + 1 < len(words) else ""
            surname = following in people.last and (following in self.words or not people.is_word(following))
            last = not plain and word in people.last and (named or first)
            # A census first name is a person's before a last name that is no word or a name ("kerry pryor",
            # "john williams"; not "alexa ask"), and one no dictionary knows also as a possessive ("kyle's").
            possessive, unknown = words[i].endswith("'s"), not people.is_word(word)
            named = (not plain and written is None and word in people.first
                     and ((surname and (unknown or not possessive)) or (possessive and unknown)))
            if cased:  # the writer's casing, but for a name that is no word, and a person no word names
                if written is not None and typed_lower[i] and word in self.only:
                    out[toks[i].start():toks[i].start() + len(word)] = written
                elif stressed[i] and written is None and not plain and people.is_word(word):
                    out[toks[i].start():toks[i].end()] = words[i]  # a word stressed, not a name nor an acronym
                elif (named and unknown and surname and all(typed_lower[i:i + 2])
                      and text[toks[i].end():toks[i + 1].start()] == " "):
                    out[toks[i].start():toks[i].start() + len(word)] = word.capitalize()
                    out[toks[i + 1].start():toks[i + 1].start() + len(following)] = (
                        self.words.get(following) or following.capitalize())
                    i += 1
                i += 1
                continue
            if written is None and (named or last):
                written = word.capitalize()
            if written is not None:
                out[toks[i].start():toks[i].start() + len(word)] = written
            first = written is not None and word in people.first and not last  # "Susan Wilson pay"
            i += 1
        return "".join(out)


def _titled(text: str, toks: list[re.Match[str]]) -> bool:
    """Whether the text is in title case ("How Many Singers Are From France?", "What Is the Name of the Song?"),
    whose capitals say nothing: most words past the sentences' first that are no function words are
    capitalised, and so is a function word no name holds ("Are", "Is", "Than"; not "The Beatles")."""
    inner = [m.group() for m in toks if not _opens_sentence(text, m.start())]
    content = [w for w in inner if w.lower() not in STOPWORDS]
    return (len(content) >= TITLED_WORDS and sum(w[0].isupper() for w in content) >= TITLED_SHARE * len(content)
            and any(w[0].isupper() and w.lower() in _TITLE_MARKS for w in inner))


def _opens_sentence(text: str, start: int) -> bool:
    """Whether the word at `start` is the first of its sentence, line or quote, whose capital says nothing."""
    j = start - 1
    while j >= 0 and text[j] in " \t":
        j -= 1
    return j < 0 or text[j] in ".?!:\n\"'(\u201c"


def _capitals(root: Path) -> tuple[dict[tuple[str, int], dict[str, str]], set[tuple[str, int]], dict[str, str],
                                   set[str]]:
    """Per synset, the words it writes with a capital only ("Sun" beside "sun" is the same word); the synsets
    of places; the names of several words WordNet writes with capitals and never in lower case, that start
    with no function word; and every word it writes in lower case somewhere."""
    capital: dict[tuple[str, int], dict[str, str]] = {}
    places: set[tuple[str, int]] = set()
    lower_words: set[str] = set()
    capital_phrases: dict[str, str] = {}
    for pos in ("noun", "verb", "adj", "adv"):
        for rec in records(root / f"data.{pos}"):
            written = [re.sub(r"\(.*\)$", "", w) for w in rec[4:4 + 2 * int(rec[3], 16):2]]
            lower = {w for w in written if w.islower()}
            capitals = {w.lower(): w for w in written if w.lower() != w and w.lower() not in lower}
            if capitals:
                capital[(pos, int(rec[0]))] = capitals
            if rec[1] == _LOCATIONS:
                places.add((pos, int(rec[0])))
            lower_words.update(lower)
            for key, w in capitals.items():
                if "_" in key:
                    capital_phrases.setdefault(key, w)
    phrases = {k.replace("_", " "): v.replace("_", " ") for k, v in sorted(capital_phrases.items())
               if k not in lower_words and k.split("_")[0] not in STOPWORDS
               and 2 <= k.count("_") + 1 <= MAX_PHRASE_WORDS and k.replace("_", "").isalpha()}
    return capital, places, phrases, lower_words


def _plural(word: str) -> str:
    """The regular plural: "Indian" -> "Indians", "Sox" -> "Soxes", "Kennedy" -> "Kennedys"."""
    return word + "es" if word.lower().endswith(("s", "x", "z", "ch", "sh")) else word + "s"
