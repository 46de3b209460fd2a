"""Usage words: learned from rewritten questions (scripts/training/usage.py), read at build, used at search."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, sealed_env
from training.usage import Rewrite, learn, rewrite

from retriever import Retriever
from retriever.config import DEFAULT_USAGE_WORDS, Settings
from retriever.errors import ConfigError
from retriever.index import thesaurus
from retriever.index import wordnet as wordnet_db
from retriever.index.build import build_index
from retriever.index.catalog import parse_catalog
from retriever.index.store import load_index


def _r(db: str, dropped: str, brought: str) -> Rewrite:
    return Rewrite(db, frozenset(dropped.split()), frozenset(brought.split()))


def test_rewrite_keeps_dropped_schema_words_and_brought_in_words() -> None:
    r = rewrite("school", "How many students are in class 7?", "How many learners are in group 7b?",
                {"student", "class"})
    assert r == Rewrite("school", frozenset({"student", "class"}), frozenset({"learner", "group"}))
    # A word the database holds is not the user's own; neither is a number or a word of two letters.
    r = rewrite("school", "List the students.", "List the classes' pupils, in 2024, by ID.", {"student", "class", "id"})
    assert r.brought == frozenset({"pupil"}) and r.dropped == frozenset({"student"})


def test_a_pair_must_recur_in_several_databases_and_belong_together() -> None:
    rewrites = [_r("a", "student", "learner"), _r("b", "student name", "learner call"), _r("c", "student", "learner"),
                _r("a", "citi", "town"), _r("b", "citi", "town"),
                # "total" comes with everything: with each schema word it shares too few rewrites to be a pair.
                *[_r(db, w, "total") for db in "abcdef"
                  for w in "price age year name rank size date code team role city area".split()]]
    pairs = learn(rewrites)
    assert pairs["learner"] == ["student"]
    assert "town" not in pairs  # two databases only
    assert "total" not in pairs
    assert learn(rewrites, min_databases=2)["town"] == ["citi"]
    assert learn(rewrites, min_dice=0.9)["learner"] == ["student"] and "call" not in learn(rewrites, min_dice=0.9)


def test_usage_words_join_the_related_words_where_the_catalog_holds_their_target() -> None:
    related = {"vocalist": ["singer"]}
    merged = thesaurus.with_usage(related, {"vocalist": ["artist"], "town": ["citi", "river"], "citi": ["citi"]},
                                  held={"singer", "artist", "citi"})
    assert merged == {"town": ["citi"], "vocalist": ["artist", "singer"]}
    assert related == {"vocalist": ["singer"]}


def test_a_bad_usage_file_is_one_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "usage.json"
    bad.write_text('{"pairs": {"town": "citi"}}', encoding="utf-8")
    with pytest.raises(ConfigError, match="usage.json"):
        thesaurus.read_usage(bad)
    with pytest.raises(ConfigError, match="cannot read"):
        thesaurus.read_usage(tmp_path / "missing.json")


def test_the_shipped_file_reads_and_relates_plain_english() -> None:
    pairs = thesaurus.read_usage(DEFAULT_USAGE_WORDS)
    assert "student" in pairs["learner"] and "citi" in pairs["town"]


def test_settings_name_the_usage_file_or_switch_it_off(tmp_path: Path) -> None:
    assert Settings.from_env({}).usage_words == DEFAULT_USAGE_WORDS
    assert Settings.from_env({"RETRIEVER_USAGE_WORDS": "off"}).usage_words is None
    assert Settings.from_env({"RETRIEVER_USAGE_WORDS": str(tmp_path / "u.json")}).usage_words == tmp_path / "u.json"


CATALOG = {"tables": [
    {"table_id": "geo.city", "group": "geo", "name": "city",
     "columns": [{"name": "city_name"}, {"name": "population"}]},
    {"table_id": "geo.river", "group": "geo", "name": "river", "columns": [{"name": "river_name"}, {"name": "length"}]},
    {"table_id": "shop.product", "group": "shop", "name": "product", "columns": [{"name": "title"}, {"name": "price"}]},
    {"table_id": "shop.buyer", "group": "shop", "name": "buyer", "columns": [{"name": "buyer_name"}, {"name": "age"}]},
]}


def test_a_question_in_the_users_word_finds_the_schema_word(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(wordnet_db, "wordnet_dir", lambda: None)  # the usage words alone, no WordNet relative
    catalog = parse_catalog(CATALOG)
    manifest = build_index(catalog, tmp_path / "idx", log=lambda _m: None, usage={"town": ["citi"], "shop": ["x"]})
    assert load_index(tmp_path / "idx").related == {"town": ["citi"]}
    assert manifest["related_words"]["usage_words"] == 2
    r = Retriever.open(tmp_path / "idx", Settings(local_model=False))
    assert r.search("Which towns have a population over 5000?").table_ids[0] == "geo.city"


def test_the_cli_build_reads_the_file_settings_name(tmp_path: Path) -> None:
    (tmp_path / "catalog.json").write_text(json.dumps(CATALOG), encoding="utf-8")
    (tmp_path / "usage.json").write_text(json.dumps({"pairs": {"town": ["citi"]}}), encoding="utf-8")
    env = {**sealed_env(tmp_path / "cache"), "RETRIEVER_USAGE_WORDS": str(tmp_path / "usage.json")}
    cmd = [sys.executable, "-m", "retriever", "build", "--corpus", str(tmp_path / "catalog.json"), "--index-dir"]
    subprocess.run([*cmd, str(tmp_path / "idx")], env=env, cwd=ROOT, check=True, capture_output=True)
    assert load_index(tmp_path / "idx").related.get("town") == ["citi"]
    env["RETRIEVER_USAGE_WORDS"] = str(tmp_path / "nothing.json")
    done = subprocess.run([*cmd, str(tmp_path / "idx2")], env=env, cwd=ROOT, capture_output=True, text=True)
    assert done.returncode != 0 and "nothing.json" in done.stderr and "Traceback" not in done.stderr
