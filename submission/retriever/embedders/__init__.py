"""Text -> vectors: the embedder interface, the offline MiniLM model, the Jina API clients and their disk cache."""
