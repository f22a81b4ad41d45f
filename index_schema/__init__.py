"""The index definitions as data. Installed as the package `it_eli.index_schema` (see
pyproject.toml), so a wheel carries them and `it_eli.search.analysis.SCHEMA_DIR` finds them through
importlib.resources from a checkout and from an install alike."""
