"""The statute index handle that reading, search and writing share: the current build opened,
one searcher reused until a commit changes the index, a memo of derived answers cleared on every
commit, and the write lock that makes two processes queue up."""

from __future__ import annotations

import logging
import threading
from contextlib import contextmanager
from pathlib import Path

import msgspec
import tantivy
from cachetools import LRUCache

from it_eli.runtime.config import Settings
from it_eli.runtime.errors import ItEliError
from it_eli.runtime.locking import exclusive

from ..analysis import Analyzer
from ..indexdir import IndexDir, note_serving
from ..schema import create_index, load_index_def, write_meta
from .records import DEFN_NAME, index_root, now_iso

log = logging.getLogger(__name__)
REBUILD = "it-eli statutes rebuild"


def _memo_size(entry: tuple) -> int:
    """Approximate bytes of a memo entry (its value as msgpack, plus overhead)."""
    try:
        return 200 + len(msgspec.msgpack.encode(entry[1]))
    except (TypeError, msgspec.EncodeError):
        return 4096


class StatuteIndex:
    """The opened statute index in IT_ELI_HOME, its reader cache and its write lock."""

    WRITE_LOCK_TIMEOUT = 120.0
    MEMO_BYTES = 32 * 1024 * 1024

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.defn = load_index_def(DEFN_NAME)
        self.idir = IndexDir(index_root(settings))
        self.raw_dir = settings.home / "statutes" / "acts"
        self._an = Analyzer()
        self._exact_an = Analyzer("it_fold")  # the exact-form field's analyzer (index_schema)
        self._lock = threading.Lock()
        self._index: tantivy.Index | None = None
        self._token: str | None = None
        self._serving: Path | None = None  # the build opened: CURRENT's, or an earlier one standing in
        self.warning: str | None = None  # set while an earlier build stands in for a corrupt one
        # Reader cache: the searcher is reused until the index's meta.json changes (a commit by
        # this or another process rewrites it), so a cached lookup costs no reload.
        self._searcher_cache: tuple[tantivy.Searcher, tuple] | None = None
        # bounded in bytes: keys come from callers (any URN, any date), so a client asking for many
        # distinct ones must not grow it without end between two commits
        self._memo: LRUCache = LRUCache(maxsize=self.MEMO_BYTES, getsizeof=_memo_size)

    # ------------------------------------------------------------ opening
    def _ensure_created(self) -> None:
        """A first, empty index, only where none was ever published. A CURRENT that cannot be
        read, or a lost one beside complete builds, is corruption (see `_open_serving`): an empty
        index published over it would lose every act without a word."""
        if self.idir.current() is not None or self.idir.has_pointer() or self.idir.complete_builds():
            return
        with self._write_lock():
            if not self.idir.has_pointer() and not self.idir.complete_builds():
                build = self.idir.new_build_dir()
                create_index(build, self.defn)
                write_meta(build, self.defn, {"created_at": now_iso()})
                self.idir.publish(build)

    def _open(self) -> tantivy.Index:
        self._ensure_created()
        token = self.idir.current_token()
        with self._lock:
            if self._index is None or token != self._token:
                self._serving, self._index, self.warning = self._open_serving()
                self._token = token
                self._searcher_cache = None
                self._memo.clear()
            if self.warning:
                note_serving(self.warning)  # into the answer of the call being served
            return self._index

    def _open_serving(self) -> tuple[Path, tantivy.Index, str | None]:
        """The CURRENT build; if it cannot be read, the newest earlier complete build, with an
        `index_corrupt` warning that names the rebuild command (the decision index does the same)."""
        path, index, _, why = self.idir.open_served(self.defn, "the local statute index",
                                                    valid=f"rebuild it from the kept exports with `{REBUILD}`",
                                                    command=REBUILD)
        if why is None:
            return path, index, None
        warning = (f"index_corrupt: the local statute index cannot be read ({why}); serving the newest complete "
                   f"build that can be read ({path.name}), which may lack acts stored after it; rebuild it "
                   f"from the kept exports with `{REBUILD}`")
        log.warning(warning)
        return path, index, warning

    def _generation(self) -> tuple:
        """What changes on every commit: the build served and its meta.json stat."""
        try:
            st = ((self._serving or self.idir.builds) / "meta.json").stat()
            return (self._token, self._serving, st.st_mtime_ns, st.st_size, st.st_ino)
        except OSError:
            return (self._token, self._serving, None)

    def _searcher(self) -> tuple[tantivy.Index, tantivy.Searcher]:
        index = self._open()
        gen = self._generation()
        with self._lock:
            cached = self._searcher_cache
            if cached is not None and cached[1] == gen:
                return index, cached[0]
        index.reload()
        searcher = index.searcher()
        with self._lock:
            self._searcher_cache = (searcher, gen)
            self._memo.clear()
        return index, searcher

    def _memoized(self, key: tuple, compute):
        """Per-generation memo for derived answers (versions, act counts): cleared on any commit."""
        _, searcher = self._searcher()
        with self._lock:
            hit = self._memo.get(key)
        if hit is not None and hit[0] is searcher:
            return hit[1]
        value = compute()
        with self._lock:
            try:
                self._memo[key] = (searcher, value)
            except ValueError:  # larger than the whole memo: served, not kept
                pass
        return value

    def _invalidate(self) -> None:
        with self._lock:
            self._searcher_cache = None
            self._memo.clear()

    @contextmanager
    def _write_lock(self):
        busy = ItEliError("the statute index is busy (another process is writing)", valid="retry shortly")
        with exclusive(self.idir.root / "write.lock", timeout=self.WRITE_LOCK_TIMEOUT, busy=busy):
            yield
