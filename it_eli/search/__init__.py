"""Tantivy: Italian analysis, schemas, the query compiler, the decision index, the statute store,
index directories, archives. Imports `law`, the parsers of `sources`, `runtime`."""
