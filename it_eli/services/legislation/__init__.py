"""The legislation service: how a reference is read, when the local index answers, when absence is proven.

Plain functions over the app's statute store and HTTP session that return domain Structs
(`Target`, `ActVersion`, `ServedArticle`); nothing here knows MCP, answer budgets or paging —
`it_eli.mcp.tools.legislation` adapts these answers for the MCP tools, and verification calls them
directly.

Order of channels for a text: the local statute index when it holds a copy known to be the text
asked for; otherwise the OpenData API for one article (about 1 KB) or the portal's Akoma Ntoso
export for a whole act; every text fetched is stored. When Normattiva cannot be reached, a cached
copy is served marked `stale`; with nothing cached the answer is `upstream_unavailable`.

"Does not exist" (`not_found`) needs positive evidence: a complete text of the act known to be
in force on the day asked that lacks the article, or a successful Normattiva answer saying so.
A cached version proves only the days it covers (`StatuteStore.covers`); an upstream failure is
never turned into an absence, and a local copy of an act outweighs an upstream "no such act".

    targets   how a reference is read (Target), the article key, the date asked
    acts      the version of a whole act: cached or the portal's export; the upstream error
    articles  one article: local index, OpenData API, portal; staleness, proofs of absence

The names below are handed on for callers that import the package; it_eli's own modules import
from the module that defines each name.
"""

from .acts import RETRY_HELP, UNREACHABLE, act_version
from .articles import ServedArticle, api_not_found_is_final, served_article
from .targets import (
    ARTICLE_FORMS,
    SHARED_URN_CODES,
    Target,
    check_date,
    read_article_key,
    resolution_of,
    resolve_reference,
)

__all__ = [
    "ARTICLE_FORMS", "RETRY_HELP", "SHARED_URN_CODES", "UNREACHABLE", "ServedArticle", "Target", "act_version",
    "api_not_found_is_final", "check_date", "read_article_key", "resolution_of", "resolve_reference", "served_article",
]
