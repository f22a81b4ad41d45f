"""The MCP face: the server, HTTP serving, answer budgets, paging and the tool adapters. Imports
`services` and below; never imported by them."""
