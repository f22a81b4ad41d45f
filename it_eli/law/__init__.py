"""The Italian legal language, pure (no I/O): act types, codes, dates, numbers, articles and
partitions, URN:NIR / ELI / ECLI, the citation scanner, provision status, the query language.
Imports `runtime` only.

Why one package: a reference must be read the same way by every tool (it_resolve, it_get_text,
the search rewrite, the verifier); everything else in it_eli reads references from here.
"""
