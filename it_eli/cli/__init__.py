"""The command line face: `it-eli` and its commands. Imports `mcp` (to serve), `services` and
below; never imported by them."""
