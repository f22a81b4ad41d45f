"""The Italian legal language, pure (no I/O): act types, codes and named acts, dates, numbers,
articles and partitions, URN:NIR / ELI / ECLI, and the citation scanner.

Why one package: a reference must be read the same way by every tool (it_resolve, it_get_text,
the search rewrite, the verifier). Everything else in it_eli imports from here; nothing here
imports from the rest of it_eli except the typed errors.
"""
