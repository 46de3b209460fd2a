"""The channel registry: every spelling of a channel comes from one entry, and parses back to it."""

from __future__ import annotations

import pytest

from retriever.index import registry
from retriever.query.planner import switches


def test_one_embedding_channel_in_all_its_spellings() -> None:
    d = registry.dense("local")
    assert (d.kind, d.name, d.manifest, d.switch, d.vector_key, d.evidence_keys) == (
        "dense", "local", "dense:local", "dense:local", "local", ("dense_tables:local", "dense_columns:local"))
    m = registry.multi("colbert")
    assert (m.manifest, m.switch, m.vector_key, m.evidence_keys) == (
        "multi:colbert", "late:colbert", "multi:colbert", ("late:colbert",))
    assert d.embedded and m.embedded and not any(c.embedded for c in registry.LEXICAL)


def test_every_spelling_parses_back_to_its_channel() -> None:
    for ch in (registry.dense("jina"), registry.multi("colbert"), *registry.LEXICAL):
        if ch.manifest is not None:
            assert registry.from_manifest(ch.manifest) == ch
        for key in ch.evidence_keys:
            assert registry.from_evidence_key(key) == ch
    assert registry.from_evidence_key("something_else") is None
    with pytest.raises(ValueError, match="unknown channel"):
        registry.from_manifest("sparse:splade")


def test_the_manifest_strings_on_disk_are_unchanged() -> None:
    """Indexes built before the registry record these; changing them needs a new index FORMAT_VERSION."""
    assert [c.manifest for c in registry.LEXICAL if c.manifest] == ["bm25_tables", "bm25_columns", "bm25_groups",
                                                                    "values"]
    assert registry.dense("local").manifest == "dense:local" and registry.multi("x").manifest == "multi:x"


def test_switches_lexical_first_then_embedding_channels_then_features() -> None:
    got = switches(["bm25_tables", "bm25_columns", "bm25_groups", "values", "dense:local", "multi:colbert"])
    assert got[:12] == ("bm25_tables", "bm25_columns", "values", "phrases", "related", "instances", "compounds",
                        "derived", "spelling", "people", "dense:local", "late:colbert")
    assert "cov_all" in got[12:] and len(got) == len(set(got))


def test_embedded_evidence_selects_the_embedding_models() -> None:
    assert registry.any_embedded(["bm25_tables", "dense_columns:local"])
    assert registry.any_embedded(["late:colbert"])
    assert not registry.any_embedded(["bm25_tables", "values"])


def test_the_explain_legend_names_every_evidence_key_spelling() -> None:
    text = registry.evidence_legend()
    for key in ("bm25_tables", "bm25_columns", "values", "dense_tables:<model>", "dense_columns:<model>",
                "late:<model>"):
        assert key in text, key
