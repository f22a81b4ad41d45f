"""The local statute index: every act fetched or imported, article by article.

Each article is stored with its act's URN and ELI, the date its text is in force for, when it
was fetched and where from. Writes (server caching, `it-eli statutes import`) take an exclusive
file lock around a short-lived Tantivy writer, so two processes sharing IT_ELI_HOME queue up
instead of failing or corrupting; readers reload before answering and see the other's commits.
The raw exports are kept (gzip) so `it-eli statutes rebuild` can re-create the index under a
new schema version.

    records   what is stored: StoredArticle, ActVersion, labels, indexing, citation
    index     the opened index, its reader cache and memo, the write lock
    reading   an act's versions, the one in force on a day, an article's cached texts
    search    ranked search, one text per article, hits and snippets
    store     StatuteStore: writing, rebuild, and the face callers hold
    loading   `it-eli statutes import` from files

The names below are handed on for callers that import the package; it_eli's own modules import
from the module that defines each name.
"""

from .loading import ImportReport, import_files, portal_source_url, read_bounded
from .reading import version_on
from .records import (
    DATASET_NOTE,
    DEFN_NAME,
    ORIGINAL,
    ActVersion,
    StoredArticle,
    StoredComma,
    add_searchable,
    index_root,
    is_placeholder,
    now_iso,
    statute_citation,
    version_label,
    with_effect_by,
)
from .search import StatuteHit, StatuteSearchResult, expansion_fields
from .store import StatuteStore

__all__ = [
    "DATASET_NOTE", "DEFN_NAME", "ORIGINAL", "ActVersion", "ImportReport", "StatuteHit", "StatuteSearchResult",
    "StatuteStore", "StoredArticle", "StoredComma", "add_searchable", "expansion_fields", "import_files",
    "index_root", "is_placeholder", "now_iso", "portal_source_url", "read_bounded", "statute_citation",
    "version_label", "version_on", "with_effect_by",
]
