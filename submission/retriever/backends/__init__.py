"""Stage 1 (channel evidence) backends: in-process arrays, or a search engine (Milvus)."""
