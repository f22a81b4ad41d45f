"""The domain services: legislation, case law live, verification, index builds; they return domain
Structs and know nothing of MCP or paging. Import `search`, `sources`, `law`, `runtime`."""
