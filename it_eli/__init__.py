"""it_eli: a search appliance and MCP server for Italian law."""

__version__ = "0.1.0"
