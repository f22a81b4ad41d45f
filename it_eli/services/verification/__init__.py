"""Citation verification: does every article and decision a text cites exist?

Why this shape: a gate that silently skips is worse than none. Every extracted citation ends
in exactly one status; what could not be checked is a typed gap with a fallback, never a quiet
"verified", and "does not exist" (`not_found`) is said only when the act is *known* — a fresh
complete copy in the local index, or an authoritative upstream answer — and the article is
absent. An act that is merely not cached, unreachable or ambiguous is a gap, never `not_found`.

Order of sources: the local statute index, then (unless offline) the legislation tools' own
channels (OpenData API, portal export with the act-identity check); the local Constitutional
Court index; SentenzeWeb and the GA portal for Cassazione and administrative decisions.
Facts relied on: DISCOVERY.md (verification).
"""

from .verifier import Verifier, verify_text

__all__ = ["Verifier", "verify_text"]
