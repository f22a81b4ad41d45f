"""Italian analysis, one definition for index and query time (index_schema/analyzers.toml).

Tantivy does the tokenizing, stopwords, Snowball stemming and folding natively; the only step
done in Python is the apostrophe-accent char filter (`facolta'` -> `facoltà`), because Normattiva
and older texts write accents that way and Snowball Italian needs the accent to stem `-ità`.
The filter is byte-length preserving (`a'` and `à` are both two UTF-8 bytes), so highlight
offsets computed on filtered text apply unchanged to the original.
"""

from __future__ import annotations

import functools
import importlib.resources
import re
import tomllib
from collections.abc import Iterable

import tantivy

# The one place that locates index_schema/: shipped as the package it_eli.index_schema (a
# checkout maps it to the top-level folder), so an installed wheel reads the same files.
SCHEMA_DIR = importlib.resources.files("it_eli.index_schema")

_ACCENT = {"a": "à", "e": "è", "i": "ì", "o": "ò", "u": "ù", "A": "À", "E": "È", "I": "Ì", "O": "Ò", "U": "Ù"}
_UNACCENT = {v: k for k, v in _ACCENT.items()} | {"é": "e", "É": "E", "á": "a", "í": "i", "ó": "o", "ú": "u"}
# An apostrophe (straight or typographic) not followed by a letter: the candidates for an
# accent written as a quote ("facolta'", "E' ", "perche',"). The pattern starts with a literal,
# so the scan runs at C speed and the rare candidate is checked in Python: a vowel scan over
# every character cost 2.7 s of a 25k-decision build, this one 0.15 s (benchmarks/RESULTS.md).
_QUOTE_NOT_ELISION = re.compile(r"['\u2019](?!\w)")


def apostrophe_accent(text: str) -> str:
    """Turn apostrophe-accents into real accents, preserving UTF-8 byte length.

    A word-final vowel followed by the quote is accented ("facolta'" -> "facoltà"), and so is a
    lone E'/e' ("E' vero" -> "È vero"); a quote after another one-letter word ("l'", "d'") is
    an elision and stays. The typographic quote is 3 bytes against the accent's 2, so two
    spaces pad it; the straight quote needs none.
    """
    if "'" not in text and "\u2019" not in text:
        return text
    pieces: list[str] = []
    last = 0
    for m in _QUOTE_NOT_ELISION.finditer(text):
        i = m.start()
        vowel = text[i - 1] if i else ""
        if vowel not in _ACCENT:
            continue
        word_final = i > 1 and (text[i - 2].isalnum() or text[i - 2] == "_")
        if text[i] == "'":
            if not (word_final or vowel in "eE"):
                continue
            pieces += [text[last : i - 1], _ACCENT[vowel]]
        else:
            if not word_final:
                continue
            pieces += [text[last : i - 1], _ACCENT[vowel], "  "]
        last = i + 1
    if not pieces:
        return text
    pieces.append(text[last:])
    return "".join(pieces)


CHAR_FILTERS = {"apostrophe_accent": apostrophe_accent}

# What a match on an inflected form of a query word (`atti` for `atto`) is worth against the
# form itself (Analyzer.weighted_variants; benchmarks/RESULTS.md, ranking).
INFLECTION_WEIGHT = 0.7


def mark_words(segments: Iterable[tuple[str, str]], tail: str) -> tuple[str, list[tuple[int, int]]]:
    """`before**word**` for each (before, word) segment, then `tail`; plus the character ranges of
    the marked words in the result (what a client highlights)."""
    pieces: list[str] = []
    marks: list[tuple[int, int]] = []
    length = 0
    for before, word in segments:
        length += len(before)
        marks.append((length + 2, length + 2 + len(word)))
        pieces += [before, f"**{word}**"]
        length += len(word) + 4
    pieces.append(tail)
    return "".join(pieces), marks


def mark_snippet(original: str, snippet: tantivy.Snippet) -> tuple[str, list[tuple[int, int]]]:
    """A tantivy snippet made on char-filtered text, cut from the ORIGINAL text with `**word**`
    marks (newlines as spaces), plus the character ranges of the marked words in the result.

    The char filters keep UTF-8 byte length, so the snippet's byte offsets hold on `original`.
    """
    fr = snippet.fragment_range()
    frag = original.encode("utf-8")[fr.start : fr.end]
    segments: list[tuple[str, str]] = []
    cursor = 0
    for h in sorted(snippet.highlighted(), key=lambda r: r.start):
        segments.append((frag[cursor : h.start].decode("utf-8", "replace"), frag[h.start : h.end].decode("utf-8", "replace")))
        cursor = h.end
    text, marks = mark_words(segments, frag[cursor:].decode("utf-8", "replace"))
    return text.replace("\n", " "), marks


# Ranking ablation only ("elision_split" in `disable`): a tokenizer that keeps `dell'arte` as one
# token, the way a plain word tokenizer treating the apostrophe as part of the word would.
NO_ELISION_SPLIT_PATTERN = r"\w+(?:['\u2019]\w+)*"


@functools.cache
def analyzer_specs() -> dict:
    with (SCHEMA_DIR / "analyzers.toml").open("rb") as fh:
        return tomllib.load(fh)


@functools.cache
def stopwords(file: str = "stopwords_it.txt") -> tuple[str, ...]:
    words = []
    for line in (SCHEMA_DIR / file).read_text(encoding="utf-8").splitlines():
        word = line.split("#", 1)[0].strip().lower()
        if word:
            words.append(word)
    return tuple(words)


def build_tantivy_analyzer(name: str, *, disable: frozenset[str] = frozenset()) -> tantivy.TextAnalyzer:
    """Build the named analyzer; `disable` drops filters by kind (used by ranking ablations)."""
    spec = analyzer_specs()[name]
    tok = spec["tokenizer"]
    if "elision_split" in disable:
        tokenizer = tantivy.Tokenizer.regex(NO_ELISION_SPLIT_PATTERN)
    elif tok["kind"] == "simple":
        tokenizer = tantivy.Tokenizer.simple()
    elif tok["kind"] == "regex":
        tokenizer = tantivy.Tokenizer.regex(tok["pattern"])
    else:
        raise ValueError(f"unsupported tokenizer {tok['kind']!r}")
    builder = tantivy.TextAnalyzerBuilder(tokenizer)
    for f in spec["filters"]:
        kind = f["kind"]
        if kind in disable:
            continue
        if kind == "lowercase":
            builder = builder.filter(tantivy.Filter.lowercase())
        elif kind == "remove_long":
            builder = builder.filter(tantivy.Filter.remove_long(int(f["max_bytes"])))
        elif kind == "stopwords":
            builder = builder.filter(tantivy.Filter.custom_stopword(list(stopwords(f["file"]))))
        elif kind == "stemmer":
            builder = builder.filter(tantivy.Filter.stemmer(f["language"]))
        elif kind == "ascii_fold":
            builder = builder.filter(tantivy.Filter.ascii_fold())
        else:
            raise ValueError(f"unsupported filter {kind!r} in analyzer {name!r}")
    return builder.build()


def char_filter(name: str, text: str, *, disable: frozenset[str] = frozenset()) -> str:
    for cf in analyzer_specs()[name].get("char_filters", []):
        if cf not in disable:
            text = CHAR_FILTERS[cf](text)
    return text


class Analyzer:
    """Python-side view of an analyzer: the same pipeline tantivy runs, for query building."""

    _WORD = re.compile(r"[^\W_]+")  # tantivy's simple tokenizer: runs of alphanumeric characters

    def __init__(self, name: str = "it_legal", *, disable: frozenset[str] = frozenset()) -> None:
        self.name = name
        self.disable = disable
        if "elision_split" in disable:
            self._WORD = re.compile(NO_ELISION_SPLIT_PATTERN)
        self._tantivy = build_tantivy_analyzer(name, disable=disable)
        self.stems = "stemmer" not in disable and any(
            f["kind"] == "stemmer" for f in analyzer_specs()[name]["filters"]
        )
        # singular/plural variants: where the analyzer stems, or folds words a part field holds
        # unstemmed (`inflections = true`); never for names
        self.inflects = "stemmer" not in disable and (self.stems or bool(analyzer_specs()[name].get("inflections")))
        self._cache: dict[str, tuple[str, ...]] = {}
        self._variants_cache: dict[tuple[str, bool], list[tuple[str, float]]] = {}

    @property
    def tantivy(self) -> tantivy.TextAnalyzer:
        return self._tantivy

    def prepare(self, text: str) -> str:
        return char_filter(self.name, text, disable=self.disable)

    def analyze(self, text: str) -> list[str]:
        return list(self._tantivy.analyze(self.prepare(text)))

    def word_tokens(self, text: str) -> list[tuple[int, str]]:
        """(position, token) pairs as tantivy indexes them: stopwords leave a gap in positions."""
        out = []
        for pos, m in enumerate(self._WORD.finditer(self.prepare(text))):
            toks = self._analyze_word(m.group(0))
            if toks:
                out.append((pos, toks[0]))
        return out

    def _analyze_word(self, word: str) -> tuple[str, ...]:
        hit = self._cache.get(word)
        if hit is None:
            hit = tuple(self._tantivy.analyze(word))
            if len(self._cache) < 100_000:
                self._cache[word] = hit
        return hit

    def term_variants(self, word: str, *, inflections: bool = True) -> list[str]:
        """Index terms a query word should match (see `weighted_variants`)."""
        return [term for term, _ in self.weighted_variants(word, inflections=inflections)]

    def weighted_variants(self, word: str, *, inflections: bool = True) -> list[tuple[str, float]]:
        key = (word, inflections)
        hit = self._variants_cache.get(key)
        if hit is None:
            hit = self._weighted_variants(word, inflections)
            if len(self._variants_cache) < 100_000:
                self._variants_cache[key] = hit
        return list(hit)

    def _weighted_variants(self, word: str, inflections: bool) -> list[tuple[str, float]]:
        """Index terms a query word should match, with the weight each match is worth.

        - The word's own term, weight 1.
        - Its accent variant, weight 1: a user who types `responsabilita` means `responsabilità`,
          and Snowball stems the two differently (the `-ità` rule needs the accent); the other
          way round, texts that lost their accents still match.
        - With `inflections`, in an analyzer that stems or folds (`Analyzer.inflects`): the same word with its final vowel
          swapped (a/e/i/o: singular/plural, masculine/feminine), weight INFLECTION_WEIGHT.
          Snowball conflates most such pairs but not short words (`atto`/`atti`, `ente`/`enti`)
          nor nouns it reads as verbs (`potere` -> pot, `poteri` -> poter; `parlamentare`/
          `parlamentari`), where a lawyer expects the plural to find the singular.
        Words that are stopwords give [].
        """
        base = self._analyze_word(word)
        if not base:
            return []
        out = [(base[0], 1.0)]
        seen = {base[0]}

        def add(form: str, weight: float) -> None:
            term = self._analyze_word(form)
            if term and term[0] not in seen:
                seen.add(term[0])
                out.append((term[0], weight))

        if "stemmer" not in self.disable and len(word) >= 4:
            if "apostrophe_accent" not in self.disable and word[-1] in "aeiouAEIOU" and word.isalpha():
                add(word[:-1] + _ACCENT[word[-1]], 1.0)
            elif word[-1] in _UNACCENT:
                add(word[:-1] + _UNACCENT[word[-1]], 1.0)
        if inflections and self.inflects and len(word) >= 4 and word.isalpha() and word[-1] in "aeioAEIO":
            for vowel in "oiae":
                if vowel != word[-1].lower():
                    add(word[:-1] + vowel, INFLECTION_WEIGHT)
        return out
