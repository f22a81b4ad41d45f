"""Citation extraction from Italian legal prose: statutes, EU acts, case law, ECLI.
Imports the rest of `law` only (act types, codes, grammar, URN builders).

Why a scanner and not one big regex: drafts mix many citation shapes and must be processed
in linear time whatever the input (a pasted 1 MB brief, or garbage like ``art. art. art.``).
One flat trigger regex finds *anchors* (``art.``, ``legge``, ``Cass.``, ``ECLI:`` ...); at each
anchor small, anchored, length-bounded regexes parse forward (and, for prefixes such as
``secondo comma dell'art.``, look back over a fixed 80-character window). Every parser either
consumes text or fails after a bounded amount of work, and scanning resumes after what was
consumed, so total work is O(len(text)).

The modules, by family. Shared: `model` (the citation structs), `tokens` (whitespace, numbers,
ordinals, years), `places` (Regions and seats), `anchors` (the trigger), `scan` (the pass over a
text). Statutes: `statutes` (an act and its coordinates), `act_context` (which act an article is
of), `articles`, `partitions`. EU: `eu`. Courts: `courts` (their codes), `case_grammar`, `cases`.

Conventions (abbreviations, two-digit year pivot, court names) are documented in
DISCOVERY.md (citation conventions).
"""

from __future__ import annotations

from .courts import COURT_NAMES
from .model import PARTITION_NAMES, ActRef, Citation, Partitions, partitions_of
from .scan import extract_citations

__all__ = ["ActRef", "Citation", "Partitions", "extract_citations", "partitions_of", "COURT_NAMES", "PARTITION_NAMES"]
