"""Build time: catalog -> documents -> lexical and embedding indexes on disk, and loading them back."""
