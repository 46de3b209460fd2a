"""The Python API: open an index, ask a question, get typed tables, joins, confidence and explanations.

The server (`search.sh`), the CLI's `query` and `eval` and the demo all answer through `Retriever.search`.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .answer.assess import EvidenceSummary, by_relevance, confidence, summarize_evidence
from .answer.ddl import render_ddl
from .answer.explain import explain
from .backends.stage1 import open_stage1
from .config import Settings
from .errors import ConfigError
from .index import registry
from .index.store import Index, load_index, load_schema_details, recorded_channels
from .query.planner import Answer, Options, Planner, default_models
from .query.selection import MAX_JOINS, N_TABLES
from .runtime import QueryVectors, local_embedder, query_embedders

FORMATS = ("text", "json", "ddl")


@dataclass(frozen=True)
class RankedTable:
    table_id: str
    group: str
    name: str
    #: Summed probability of the candidate plans that use this table (its share of the answer).
    probability: float


@dataclass(frozen=True)
class SearchResult:
    """One answer: 5 tables (most relevant first), up to 6 joins among them, and how far to trust it."""

    question: str
    table_ids: tuple[str, ...]
    #: Catalog relationships among the chosen tables, as {left_table, left_column, right_table, right_column}.
    joins: tuple[dict[str, str], ...]
    tables: tuple[RankedTable, ...]
    #: Probability that the answer holds the tables and joins the question needs (see assess.confidence).
    confidence: float
    evidence: EvidenceSummary
    answer: Answer = field(repr=False, compare=False)
    retriever: Retriever = field(repr=False, compare=False)

    @property
    def low_evidence(self) -> bool:
        """Nothing in the question matched the catalog: the tables are a guess."""
        return self.evidence.low

    def explain(self) -> str:
        """Multi-line text: each table's share, plans and evidence, the joins, a warning, a legend."""
        text = self.retriever.planner.read(self.question)
        return explain(self.retriever.planner, self.answer, [(self._pos(t.table_id), t.probability)
                                                             for t in self.tables],
                       self.evidence, self.confidence, text if text.strip() != self.question.strip() else None)

    def ddl(self) -> str:
        """CREATE TABLE statements for the chosen tables, most relevant first, ready for a text-to-SQL prompt."""
        return render_ddl(self.retriever.index.catalog, self.retriever.schema_details(),
                          [self._pos(t.table_id) for t in self.tables], self.answer.selection.joins,
                          {self._pos(t.table_id): t.probability for t in self.tables},
                          self.question, self.evidence.warning())

    def to_json(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "table_ids": list(self.table_ids),
            "joins": [dict(j) for j in self.joins],
            "tables": [{"table_id": t.table_id, "group": t.group, "name": t.name,
                        "probability": round(t.probability, 6)} for t in self.tables],
            "confidence": round(self.confidence, 6),
            "low_evidence": self.low_evidence,
            "warning": self.evidence.warning(),
        }

    def render(self, fmt: str) -> str:
        """The answer as `text` (explain), `json` (one object) or `ddl`."""
        if fmt not in FORMATS:
            raise ConfigError(f"format {fmt!r} is not one of {', '.join(FORMATS)}")
        if fmt == "json":
            return json.dumps(self.to_json(), ensure_ascii=False, indent=2)
        if fmt == "ddl":
            return self.ddl()
        return self.explain()

    def _pos(self, table_id: str) -> int:
        return self.retriever.table_pos[table_id]


class Retriever:
    """A loaded index, the fitted models and the query embedders.

    `Retriever.open(index_dir)` is the usual way in; `Retriever(planner, embed)` wires parts that tests or a
    server already hold. Settings are passed in, never read from the environment here: pass
    `Settings.from_env(os.environ)` to honour `JINA_API_KEY` and the `RETRIEVER_*` variables.
    """

    def __init__(self, planner: Planner, embed: Callable[[str], QueryVectors], index_dir: Path | None = None,
                 options: Options | None = None):
        self.planner = planner
        self.embed = embed
        self.index_dir = index_dir
        #: What `search` uses when not given options: the settings' fusion constant, nothing switched off.
        self.options = options or Options()
        self.table_pos = planner.index.catalog.positions()
        self._details: list[list[Any]] | None = None

    @classmethod
    def open(cls, index_dir: str | Path, settings: Settings | None = None, weights: Path | None = None,
             offline: bool = False) -> Retriever:
        """Load and verify an index built by `build.sh` / `python -m retriever build`.

        `weights` replaces the shipped fitted models; `offline` makes API channels answer only from the
        embedding cache. Raises BadIndexError naming the problem, EngineError when the index's search
        engine (backend `milvus`) cannot serve it.
        """
        settings = settings or Settings()
        uses_local = registry.dense("local").manifest in recorded_channels(Path(index_dir))
        with ThreadPoolExecutor(1, thread_name_prefix="load-model") as pool:
            # The local model (weights, tokenizer, encoder session) loads while the index does: each is about
            # half of the server's startup. An index without the local channel never loads it.
            local = pool.submit(local_embedder, settings) if uses_local else None
            index = load_index(Path(index_dir))
            stage1 = open_stage1(index, Path(index_dir), settings, lambda m: print(m, file=sys.stderr, flush=True))
            planner = Planner(index, default_models(weights), stage1)
            embed = query_embedders(settings, index, offline=offline, local=local.result if local else None,
                                    read=planner.read)
        return cls(planner, embed, Path(index_dir), Options(rrf_k=settings.rrf_k))

    @property
    def index(self) -> Index:
        return self.planner.index

    def search(self, question: str, *, vectors: Mapping[str, np.ndarray] | None = None,
               options: Options | None = None) -> SearchResult:
        """Answer one question. `vectors` are precomputed query embeddings (replay); `options` switch
        channels or features off (ablations)."""
        if vectors is None:
            vectors = self.embed(question) if question.strip() else {}
        ans = self.planner.answer(question, vectors, options or self.options)
        cat = self.index.catalog
        ranked = tuple(RankedTable(cat.tables[t].table_id, cat.tables[t].group, cat.tables[t].name, p)
                       for t, p in by_relevance(ans))
        return SearchResult(question, tuple(t.table_id for t in ranked), tuple(ans.joins), ranked,
                            confidence(ans), summarize_evidence(ans.evidence), ans, self)

    def fallback(self) -> tuple[list[str], list[dict[str, str]]]:
        """A valid answer that needs no evidence: the first tables of the catalog and their joins."""
        n = min(N_TABLES, self.planner.layout.n_tables)
        tables = list(range(n))
        cat = self.index.catalog
        joins = [cat.relationships[r].as_dict() for r in self.planner._joins_among(tables)[:MAX_JOINS]]
        return [cat.tables[t].table_id for t in tables], joins

    def schema_details(self) -> list[list[Any]] | None:
        """Column types, descriptions and sample values (for DDL), read once on first use."""
        if self._details is None and self.index_dir is not None:
            self._details = load_schema_details(self.index_dir, len(self.index.catalog.tables))
        return self._details
