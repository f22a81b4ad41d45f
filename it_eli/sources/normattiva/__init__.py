"""Normattiva: the OpenData API, the portal's act pages and exports, the Akoma Ntoso parser and the
reader of the export's notes into provision events. Imports `law`, `runtime` and the HTTP layer."""
