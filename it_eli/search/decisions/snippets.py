"""A hit's snippet, cut from the original text of the part that matched: probes find where the
query's words and phrases stand, and Tantivy's snippet generator runs on that window only (over
whole decisions it dominated query time). Apart because it is the hot path of every search.
"""

from __future__ import annotations

import itertools
import re

import msgspec
import tantivy

from it_eli.search.query import prefix_forms

from ..analysis import Analyzer, mark_snippet, mark_words
from .model import FIELD_ALIASES, PARTS, Highlight

SNIPPET_CHARS = 240
SNIPPET_FIELD = "body"  # the stemmed field: its generator marks every stem sibling of a query word


def _snippet_doc(prepared: str) -> tantivy.Document:
    """A part's (char-filtered) text handed to the snippet generator, as the stemmed field."""
    return tantivy.Document(**{SNIPPET_FIELD: prepared})


def _full_part_snippet(gens, src: dict, an: Analyzer):
    """The slow path: every part whole (when the probe finds nothing the generator would)."""
    best = None
    for part, gen in gens.items():
        original = src.get(part) or ""
        if not original:
            continue
        sn = gen.snippet_from_doc(_snippet_doc(an.prepare(original)))
        hl = sn.highlighted()
        if hl and (best is None or len(hl) > best[0]):
            best = (len(hl), part, original, sn)
    return best


WINDOW_BEFORE, WINDOW_AFTER = 150, 450  # characters around the cluster handed to the generator (a snippet is 240)


# lower case, one byte per character (Latin-1; others become "?"), the accented vowels folded:
# the probe then searches plain folded stems, a literal alternation the regex engine scans fast
# (bytes.translate is a table lookup in C; str.translate cost more than the search it saved)
_PROBE_FOLD = bytes.maketrans("àáâäèéêëìíîïòóôöùúûü".encode("latin-1"), b"aaaaeeeeiiiioooouuuu")


def _lower_fold_table() -> bytes | None:
    """`_PROBE_FOLD` after lower-casing, as one table for Latin-1 bytes: the view of a Latin-1
    text in one C pass instead of three (str.lower over a whole part was most of the probe's time).
    None if some Latin-1 character lowers to something else than one Latin-1 character."""
    out = bytearray()
    for b in range(256):
        low = chr(b).lower()
        if len(low) != 1 or ord(low) > 255:
            return None
        out.append(_PROBE_FOLD[ord(low)])
    return bytes(out)


_LOWER_FOLD = _lower_fold_table()
_ASCII_WORD = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")  # bytes-mode \w


class Probe:
    """Where a query's (positive) words stand in a text, found by regex over the text folded.

    The snippet generator tokenizes everything it is given, so running it over a whole 40 KB
    decision for every hit and part dominated query time; the probe picks the part and a window
    around the densest cluster of matches, and the generator runs on that window only. Offsets
    found on the folded view hold on the text (same length; else the accent-tolerant pattern runs
    on the text itself).
    """

    __slots__ = ("fast", "slow", "words")

    def __init__(self, stems: set[str]) -> None:
        ordered = sorted(stems, key=len, reverse=True)
        encoded = [s.encode("latin-1", "replace") for s in ordered]
        self.fast = re.compile(rb"\b(?:" + b"|".join(re.escape(s) for s in encoded) + b")")
        self.slow = re.compile(r"\b(?:" + "|".join(_accent_tolerant(s) for s in ordered) + ")", re.I)
        # stems of ASCII word characters only (nearly always): `matches` finds them with
        # bytes.find, which gives what the fast pattern gives (see there) at a third of its cost
        self.words = tuple(encoded) if encoded and all(s and set(s) <= _ASCII_WORD for s in encoded) else None

    def view(self, text: str) -> tuple[str | bytes, re.Pattern]:
        if _LOWER_FOLD is not None:
            try:
                return text.encode("latin-1").translate(_LOWER_FOLD), self.fast
            except UnicodeEncodeError:
                pass
        lower = text.lower()
        if len(lower) != len(text):
            return text, self.slow
        return lower.encode("latin-1", "replace").translate(_PROBE_FOLD), self.fast

    def matches(self, view: str | bytes, rx: re.Pattern) -> list[tuple[int, str | bytes]]:
        """(position, word) of the matches from the first one on, within PROBE_REGION_CHARS of
        it, at most MAX_PROBE_MATCHES: the fast pattern's `finditer` from its first match.

        For stems of word characters, that pattern matches at a position where no word character
        precedes (`\\b`) the longest stem starting there, and two matches never overlap (a match is
        all word characters, so no boundary lies inside it or right after it): the same list comes
        from finding each stem with bytes.find, keeping boundary positions and the longest stem at
        each. A find bounded by the region's end, like the pattern's endpos, keeps only whole
        occurrences."""
        words = self.words
        if words is None or rx is not self.fast:
            first = rx.search(view)
            if first is None:
                return []
            return [(m.start(), m.group(0).lower()) for m in itertools.islice(
                rx.finditer(view, first.start(), first.start() + PROBE_REGION_CHARS), MAX_PROBE_MATCHES)]
        word = _ASCII_WORD
        start = -1
        for s in words:
            i = view.find(s)
            while i > 0 and view[i - 1] in word:
                i = view.find(s, i + 1)
            if i >= 0 and (start < 0 or i < start):
                start = i
        if start < 0:
            return []
        end = start + PROBE_REGION_CHARS
        at: dict[int, bytes] = {}
        for s in words:  # longest first: a position keeps the first stem found there
            i = view.find(s, start, end)
            while i >= 0:
                if (i == 0 or view[i - 1] not in word) and i not in at:
                    at[i] = s
                i = view.find(s, i + 1, end)
        return [(i, at[i]) for i in sorted(at)[:MAX_PROBE_MATCHES]]


def snippet_probe(root, an: Analyzer) -> Probe | None:
    """The probe of a query's positive words (their stems and variants), or None when it has none."""
    stems = _probe_stems(root, an)
    return Probe(stems) if stems else None


class PhraseProbe(msgspec.Struct, frozen=True):
    """Where a query's phrases stand in a text: a loose regex (the phrase's stems in order, at
    most two words between them) proposes a place, the analyzer confirms it (same terms at the
    same relative positions as the index would see them)."""

    pattern: re.Pattern
    phrases: list[list[tuple[int, frozenset[str]]]]  # per phrase: (relative position, accepted terms)

    def find(self, text: str, an: Analyzer) -> int | None:
        for m in itertools.islice(self.pattern.finditer(text), MAX_PROBE_MATCHES):
            toks = an.word_tokens(m.group(0))
            if not toks:
                continue
            got = [(p - toks[0][0], t) for p, t in toks]
            for phrase in self.phrases:
                if len(got) == len(phrase) and all(
                    gp == pp and gt in terms for (gp, gt), (pp, terms) in zip(got, phrase)
                ):
                    return m.start()
        return None


def phrase_probe(root, an: Analyzer) -> PhraseProbe | None:
    """The query's (positive) phrases, to show a phrase where it stands rather than in a part
    that only has its words apart."""
    from it_eli.law.query import And, Or, Term

    patterns: list[str] = []
    phrases: list[list[tuple[int, frozenset[str]]]] = []

    def walk(node) -> None:
        if isinstance(node, Term) and node.phrase:
            raw = an._WORD.findall(an.prepare(node.text))
            toks = an.word_tokens(node.text)
            if len(toks) < 2:
                return
            expected, alts = [], []
            for pos, tok in toks:
                variants = an.term_variants(raw[pos], inflections=False) if pos < len(raw) else [tok]
                variants = variants or [tok]
                expected.append((pos - toks[0][0], frozenset(variants)))
                alts.append("(?:" + "|".join(_accent_tolerant(v) for v in variants) + ")")
            phrases.append(expected)
            patterns.append(r"\b" + r"\w*(?:\W+\w+){0,3}?\W+".join(alts) + r"\w*")
        elif isinstance(node, (And, Or)):
            for c in node.children:
                walk(c)

    walk(root)
    if not patterns:
        return None
    return PhraseProbe(pattern=re.compile("|".join(patterns), re.I), phrases=phrases)


def snippet_parts(root) -> tuple[str, ...]:
    """The parts a snippet may come from: those its positive words were scoped to
    (`dispositivo:manifestamente` shows the dispositivo), every part when one word is unscoped."""
    from it_eli.law.query import And, Or, Term

    scoped: set[str] = set()
    unscoped = False

    def walk(node) -> None:
        nonlocal unscoped
        if isinstance(node, Term):
            fields = FIELD_ALIASES.get(node.field, []) if node.field else None
            if fields is None:
                unscoped = True
            else:
                scoped.update(f for f in fields if f in PARTS)
        elif isinstance(node, (And, Or)):
            for c in node.children:
                walk(c)

    walk(root)
    if unscoped or not scoped:
        return PARTS
    return tuple(p for p in PARTS if p in scoped)


def _probe_stems(root, an: Analyzer) -> set[str]:
    from it_eli.law.query import And, Or, Term

    stems: set[str] = set()

    def walk(node) -> None:
        if isinstance(node, Term) and node.prefix:
            # `respons*`: the prefix as typed and the stems it was widened to start the words it found
            stems.update(prefix_forms(node.text, an))
        elif isinstance(node, Term):
            for word in an._WORD.findall(an.prepare(node.text)):
                for v in an.term_variants(word):
                    if len(v) >= 2:
                        stems.add(v)
        elif isinstance(node, (And, Or)):
            for c in node.children:
                walk(c)
        # Not: its words are not in the hits

    walk(root)
    return stems


_VOWEL_CLASSES = {"a": "[aàáâ]", "e": "[eèéê]", "i": "[iìíî]", "o": "[oòóô]", "u": "[uùúû]"}


def _accent_tolerant(stem: str) -> str:
    """A stem is folded; the text may carry the accent: 'perc' must find 'perché' and 'perche'."""
    return "".join(_VOWEL_CLASSES.get(ch, re.escape(ch)) for ch in stem)


MAX_PROBE_MATCHES = 100  # matches looked at per part when choosing the window
PROBE_REGION_CHARS = 6000  # ... within this stretch from the first match
CLUSTER_CHARS = 300  # about a snippet: the span in which distinct query words are counted


def _window(text: str, probe: Probe) -> tuple[int, int, int] | None:
    """(start, end, distinct words) of a window around the densest cluster of probe matches:
    the span of CLUSTER_CHARS holding the most distinct query words, the tightest such span
    first, so `responsabilità civile` is shown where the two words stand together, not where
    `civile` first appears."""
    view, rx = probe.view(text)
    # matches are looked for in a bounded stretch after the first one: query time stays flat on
    # 40 KB decisions, at the price of missing a denser cluster further on
    matches = probe.matches(view, rx)
    if not matches:
        return None
    best = (0, 0, matches[0][0])  # (distinct, -width, position)
    for i, (pos, _) in enumerate(matches):
        seen: set[str] = set()
        width = 0
        for later, key in itertools.takewhile(lambda m: m[0] - pos <= CLUSTER_CHARS, matches[i:]):
            if key not in seen:
                seen.add(key)
                width = later - pos
        best = max(best, (len(seen), -width, -pos))
    distinct, _, neg_pos = best
    start, end = _around(text, -neg_pos if neg_pos <= 0 else neg_pos)
    return start, end, distinct


def _around(text: str, pos: int, *, before: int = WINDOW_BEFORE, after: int = WINDOW_AFTER) -> tuple[int, int]:
    """A window from `before` characters ahead of `pos` to `after` past it, widened to whole words."""
    start = max(0, pos - before)
    end = min(len(text), pos + after)
    while start > 0 and not text[start - 1].isspace() and pos - start < before + 40:
        start -= 1
    while end < len(text) and not text[end].isspace() and end - pos < after + 40:
        end += 1
    return start, end


def _probe_snippet(text: str, probe: Probe) -> tuple[str, list[Highlight]] | None:
    """A snippet around the first probe match with every probe-matched word marked `**word**`."""
    if not text:
        return None
    view, rx = probe.view(text)
    first = rx.search(view)
    if first is None:
        return None
    start, end = _around(text, first.start(), before=60, after=SNIPPET_CHARS - 60)
    piece = text[start:end].replace("\n", " ")
    segments: list[tuple[str, str]] = []
    cursor = 0
    word_rest = rb"\w*" if isinstance(rx.pattern, bytes) else r"\w*"
    for m in re.finditer(rx.pattern + word_rest, view[start:end], rx.flags):
        segments.append((piece[cursor : m.start()], piece[m.start() : m.end()]))
        cursor = m.end()
    marked, marks = mark_words(segments, piece[cursor:])
    return marked, [Highlight(start=a, end=b) for a, b in marks]


def best_snippet(
    gens, src: dict, an: Analyzer, probe: Probe | None = None, phrases: PhraseProbe | None = None,
) -> tuple[str, str | None, list[Highlight]]:
    """The snippet of the part that matched best, cut from the ORIGINAL text."""
    best = None
    if phrases is not None:
        # a phrase query: the part where the phrase itself stands, around its first occurrence
        for part in gens:
            original = src.get(part) or ""
            at = phrases.find(original, an) if original else None
            if at is not None:
                # narrow: the generator's best fragment must be the one holding the phrase
                start, end = _around(original, at, before=60, after=SNIPPET_CHARS)
                piece = original[start:end]
                sn = gens[part].snippet_from_doc(_snippet_doc(an.prepare(piece)))
                if sn.highlighted():
                    best = (len(sn.highlighted()), part, piece, sn)
                    break
    if best is None and probe is not None:
        windows = []
        for order, part in enumerate(gens):
            original = src.get(part) or ""
            w = _window(original, probe) if original else None
            if w is not None:
                windows.append((-w[2], order, part, original[w[0] : w[1]]))
        for _, _, part, piece in sorted(windows)[:2]:
            sn = gens[part].snippet_from_doc(_snippet_doc(an.prepare(piece)))
            if sn.highlighted():
                best = (len(sn.highlighted()), part, piece, sn)
                break
    if best is None:
        best = _full_part_snippet(gens, src, an)
    if best is None and probe is not None:
        # words the generator cannot point at (a `prefix*` word): marked where the probe finds them
        for part in gens:
            marked = _probe_snippet(src.get(part) or "", probe)
            if marked is not None:
                return marked[0], part, marked[1]
    if best is None:
        for part in ("epigrafe", "testo", "dispositivo"):
            text = src.get(part) or ""
            if text:
                cut = text[:SNIPPET_CHARS]
                return (cut + ("…" if len(text) > SNIPPET_CHARS else "")).replace("\n", " "), part, []
        return "", None, []
    _, part, original, sn = best
    text, marks = mark_snippet(original, sn)
    return text, part, [Highlight(start=a, end=b) for a, b in marks]
