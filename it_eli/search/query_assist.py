"""Query-side help for people who ask in their own words (issue 13).

Three rewrites of a parsed query, each reported to the user so a hit can be explained:
- question frames ("cosa rischia", "quanto tempo ho per", "è possibile") are dropped before
  parsing: they make the sentence a question, they are not what the question is about;
- a word that matches nothing in the index and is neither an Italian word (pyspellchecker's list)
  nor a thesaurus term (a typo in a rare word) is replaced by the closest word of the index
  vocabulary (the folded, unstemmed `exact` field);
- words of the legal thesaurus (index_schema/thesaurus_it.tsv: colloquial, journalistic,
  English and abbreviated terms) get the code's own terms as alternatives, weighted below the
  words typed.
The exact-form bonus (the form typed outranks its stem siblings) is it_eli.search.query.exact_form_query,
shared with the decisions index. Everything here is pure except what reads the index (the searcher).
"""

from __future__ import annotations

import difflib
import functools
import re

import msgspec
import tantivy
from unidecode import unidecode

from .analysis import SCHEMA_DIR, Analyzer
from it_eli.law.query import And, Node, Or, ParsedQuery, Term, parse_query

EXPANSION_WEIGHT = 0.5  # an alternative's words against the typed word's (1.0); a TSV row may set its own
# The field alias the thesaurus expansions are searched in: an index maps it to its rubrica and
# catch-all fields (one clause per word and field, not one per part: expansions stay cheap).
EXPANSION_ALIAS = "_espansione"
MIN_TYPO_CHARS = 5  # shorter words are too ambiguous to correct
TYPO_CUTOFF = 0.8  # difflib ratio a correction must reach


class QueryAssist(msgspec.Struct, kw_only=True):
    """What was done to the query before searching, in words a person reads."""

    question_words: list[str] = msgspec.field(default_factory=list)  # dropped question frames
    corrected: list[str] = msgspec.field(default_factory=list)  # "stradle → stradale"
    expanded: list[str] = msgspec.field(default_factory=list)  # "scippo → furto con strappo"

    def notes(self) -> list[str]:
        out = []
        if self.question_words:
            out.append("question words not searched: " + ", ".join(self.question_words))
        if self.corrected:
            out.append("no document has the word as typed; corrected: " + "; ".join(self.corrected))
        if self.expanded:
            out.append("expanded (weighted below the words typed): " + "; ".join(self.expanded))
        return out


def fold(text: str) -> str:
    return unidecode(text).lower()


# ---------------------------------------------------------------- data files

class ThesaurusEntry(msgspec.Struct, frozen=True):
    term: str
    expansions: tuple[str, ...]
    weight: float


def _data_lines(name: str):
    for raw in (SCHEMA_DIR / name).read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].rstrip() if not raw.lstrip().startswith("#") else ""
        if line.strip():
            yield line


@functools.cache
def thesaurus() -> tuple[ThesaurusEntry, ...]:
    """index_schema/thesaurus_it.tsv: term TAB expansion[|expansion…] [TAB weight]."""
    out = []
    for line in _data_lines("thesaurus_it.tsv"):
        cols = [c.strip() for c in line.split("\t")]
        if len(cols) < 2 or not cols[0] or not cols[1]:
            raise ValueError(f"thesaurus_it.tsv: bad row {line!r}")
        weight = float(cols[2]) if len(cols) > 2 and cols[2] else EXPANSION_WEIGHT
        out.append(ThesaurusEntry(cols[0], tuple(e.strip() for e in cols[1].split("|") if e.strip()), weight))
    return tuple(out)


@functools.cache
def question_frames() -> tuple[tuple[re.Pattern, str], ...]:
    """index_schema/question_frames_it.txt, longest first: (word-bounded pattern over folded text,
    the word that replaces the frame or '')."""
    frames = {}
    for line in _data_lines("question_frames_it.txt"):
        frame, _, word = line.partition("=>")
        frames[fold(frame.strip())] = word.strip()
    out = []
    for f in sorted(frames, key=lambda f: len(f.lstrip("^")), reverse=True):
        pat = re.compile(("^\\s*" if f.startswith("^") else r"(?<![\w'])")
                         + r"\s+".join(map(re.escape, f.lstrip("^").split())) + r"(?![\w'])")
        out.append((pat, frames[f]))
    return tuple(out)


# ---------------------------------------------------------------- question frames

_OPERATOR = re.compile(r'["“”«»():]|\b(?:AND|OR|NOT)\b|(?:^|\s)[-+]\S|\*|~|\^')


def strip_question(text: str) -> tuple[str, list[str]]:
    """Drop the question frames of a plain-words query (or put the code's word for the notion
    they ask about in their place); (query, what was done, as 'frame' or 'frame → word'). A query
    with operators, phrases or fields is left as written; so is one that would be left empty."""
    if _OPERATOR.search(text):
        return text, []
    folded = fold(text)
    if len(folded) != len(text):  # unidecode changed lengths (rare symbols): offsets unusable
        return text, []
    cut = [False] * len(text)
    found: list[tuple[int, int, str]] = []
    for pat, word in question_frames():
        for m in pat.finditer(folded):
            if any(cut[m.start():m.end()]):
                continue
            cut[m.start():m.end()] = [True] * (m.end() - m.start())
            found.append((m.start(), m.end(), word))
    if not found:
        return text, []
    found.sort()
    pieces, said, pos = [], [], 0
    for start, end, word in found:
        frame = text[start:end].strip()
        pieces += [text[pos:start], f" {word} " if word else " "]
        said.append(f"{frame} → {word}" if word else frame)
        pos = end
    pieces.append(text[pos:])
    rest = re.sub(r"\s+", " ", "".join(pieces).replace("?", " ")).strip(" ,;.!")
    if not re.search(r"\w{2,}", rest):
        return text, []
    return rest, said


# ---------------------------------------------------------------- tree helpers

def _plain(t: Node) -> bool:
    return isinstance(t, Term) and t.field is None and not (t.phrase or t.prefix or t.fuzzy)


def _top_terms(root: Node) -> list[Node]:
    return [root] if isinstance(root, Term) else (list(root.children) if isinstance(root, And) else [])


def _with_children(root: Node, children: list[Node]) -> Node:
    if isinstance(root, And):
        return And(children, explicit=root.explicit)
    return children[0] if len(children) == 1 else And(children)


# ---------------------------------------------------------------- typos

def correct_typos(parsed: ParsedQuery, searcher: tantivy.Searcher, vocab_field: str, exact_field: str,
                  an: Analyzer) -> tuple[ParsedQuery, list[str]]:
    """Replace each plain word that matches nothing in `vocab_field` (none of its analyzed
    variants is indexed) by the closest folded word of `exact_field` sharing its first two
    letters. Words shorter than MIN_TYPO_CHARS, numbers and stopwords are left alone."""
    children = _top_terms(parsed.root)
    out, said = [], []
    for t in children:
        if _plain(t) and t.text.isalpha() and len(t.text) >= MIN_TYPO_CHARS:
            variants = an.term_variants(t.text)
            if (variants and not any(searcher.doc_freq(vocab_field, v) for v in variants)
                    and not _known_word(t.text, an)):
                fix = _closest(fold(t.text), searcher, exact_field)
                if fix:
                    said.append(f"{t.text} → {fix}")
                    t = msgspec.structs.replace(t, text=fix)
        out.append(t)
    if not said:
        return parsed, []
    return msgspec.structs.replace(parsed, root=_with_children(parsed.root, out)), said


def _known_word(word: str, an: Analyzer) -> bool:
    """A word of Italian (pyspellchecker's Italian list) or a thesaurus term is what the person
    meant, even when no article uses it (`soldi`, `ladro`, `bagno`): never "corrected" into the
    nearest word of the index (`solidi`, `largo`, `bando`)."""
    stems = set(an.term_variants(word, inflections=False))
    if any(k == (s,) for s in stems for k in _thesaurus_by_first(an.name).get(s, ())):
        return True
    return fold(word) in _italian_words() or word.lower() in _italian_words()


@functools.cache
def _italian_words():
    from spellchecker import SpellChecker

    return SpellChecker(language="it", distance=1).word_frequency


def _closest(word: str, searcher: tantivy.Searcher, field: str) -> str | None:
    # candidates share the first two letters (typos there are rare) and differ in length by at
    # most two; difflib's ratio then picks the closest
    cands = searcher.terms_with_prefix(field, word[:2])
    by_term = {t: n for t, n in cands if abs(len(t) - len(word)) <= 2 and t.isalpha() and t != word}
    best = difflib.get_close_matches(word, list(by_term), n=5, cutoff=TYPO_CUTOFF)
    if not best:
        return None
    top = difflib.SequenceMatcher(None, word, best[0]).ratio()
    # equally close candidates: the commoner word
    tied = [b for b in best if difflib.SequenceMatcher(None, word, b).ratio() >= top - 1e-9]
    return max(tied, key=lambda b: by_term[b])


# ---------------------------------------------------------------- thesaurus

@functools.cache
def _keyed_thesaurus(an_name: str) -> dict[tuple[str, ...], list[ThesaurusEntry]]:
    """Entries by the stems of their term's content words (terms of stopwords only are skipped)."""
    an = _analyzer(an_name)
    out: dict[tuple[str, ...], list[ThesaurusEntry]] = {}
    for e in thesaurus():
        key = tuple(an.analyze(e.term))
        # an expansion holding every word of the term ("custodia cautelare" -> "custodia cautelare in
        # carcere") adds no alternative, only a bias towards its extra words: left out
        exps = tuple(x for x in e.expansions if not set(key) <= set(an.analyze(x)))
        if key and exps:
            out.setdefault(key, []).append(msgspec.structs.replace(e, expansions=exps))
    return out


@functools.cache
def _thesaurus_by_first(an_name: str) -> dict[str, list[tuple[str, ...]]]:
    out: dict[str, list[tuple[str, ...]]] = {}
    for key in _keyed_thesaurus(an_name):
        out.setdefault(key[0], []).append(key)
    return out


@functools.cache
def _analyzer(name: str) -> Analyzer:
    return Analyzer(name)


def expand(parsed: ParsedQuery, an: Analyzer, searcher: tantivy.Searcher | None = None,
           vocab_field: str | None = None, field: str | None = None) -> tuple[ParsedQuery, list[str]]:
    """Give thesaurus terms found among the query's plain words their expansions as
    alternatives: (typed words) OR (every word of expansion 1, weighted) OR …

    A term matches a run of the query's content words (stopwords between them allowed) when each
    of its stems is among the word's stems or accent variants (`scippi` and `scippo`, `facoltà`
    and `facolta` are one term); the longest term wins. When the typed words match nothing in
    the index (`vocab_field`), the expansions stand in for them at full weight. `field`: the one
    field (alias) the expansions are searched in (the catch-all: one clause per word, not one per
    part), None for the default fields."""
    children = _top_terms(parsed.root)
    replace = _thesaurus_runs(children, an)
    if not replace:
        return parsed, []
    out: list[Node] = []
    said: list[str] = []
    i = 0
    while i < len(children):
        if i not in replace:
            out.append(children[i])
            i += 1
            continue
        last, entries = replace[i]
        alternatives, shown = _expanded_run(children[i:last + 1], entries, an, searcher, vocab_field, field)
        said.append(shown)
        out.append(alternatives)
        i = last + 1
    return msgspec.structs.replace(parsed, root=_with_children(parsed.root, out)), said


def _thesaurus_runs(children: list[Node], an: Analyzer) -> dict[int, tuple[int, list[ThesaurusEntry]]]:
    """The runs of plain content words that are thesaurus terms, the longest term first:
    first child index -> (last child index, the term's entries)."""
    table = _keyed_thesaurus(an.name)
    by_first = _thesaurus_by_first(an.name)
    content = []  # (index in children, the word's stem variants) for plain content words
    for i, t in enumerate(children):
        if _plain(t):
            variants = set(an.term_variants(t.text, inflections=False))
            if variants:
                content.append((i, variants))
    replace: dict[int, tuple[int, list[ThesaurusEntry]]] = {}  # first child index -> (last, entries)
    j = 0
    while j < len(content):
        best = None
        for v in content[j][1]:
            for key in by_first.get(v, ()):
                n = len(key)
                if j + n <= len(content) and all(key[k] in content[j + k][1] for k in range(n)):
                    if best is None or n > len(best):
                        best = key
        if best is None:
            j += 1
            continue
        first, last = content[j][0], content[j + len(best) - 1][0]
        if all(_plain(children[k]) for k in range(first, last + 1)):
            replace[first] = (last, table[best])
        j += len(best)
    return replace


def _expanded_run(run: list[Node], entries: list[ThesaurusEntry], an: Analyzer, searcher: tantivy.Searcher | None,
                  vocab_field: str | None, field: str | None) -> tuple[Node, str]:
    """A run of typed words OR each expansion of its entries, and how that reads ("scippo → furto
    con strappo"); the expansions weigh as much as the words when the index has none of these."""
    typed: Node = run[0] if len(run) == 1 else And(list(run), explicit=True)
    typed_text = " ".join(t.text for t in run)
    absent = searcher is not None and vocab_field is not None and not any(
        searcher.doc_freq(vocab_field, v) for t in run for v in an.term_variants(t.text))
    alts: list[Node] = [typed]
    shown: list[str] = []
    for e in entries:
        for exp in e.expansions:
            if exp in shown:
                continue
            weight = 1.0 if absent else e.weight
            words = [Term(w, field=field, boost=weight) for w in exp.split() if an.analyze(w)]
            if words:
                alts.append(words[0] if len(words) == 1 else And(words, explicit=True))
                shown.append(exp)
    return Or(alts), f"{typed_text} → {', '.join(shown)}"


# ---------------------------------------------------------------- the whole pipeline

class Assisted(msgspec.Struct, frozen=True):
    parsed: ParsedQuery
    typed: ParsedQuery  # before the thesaurus: the words whose proximity is rewarded
    assist: QueryAssist


def assisted_query(text: str, searcher: tantivy.Searcher, schema: tantivy.Schema, *, vocab_field: str,
                   exact_field: str | None, an: Analyzer, questions: bool = True, typos: bool = True,
                   thesaurus_on: bool = True) -> Assisted:
    """Parse a user query with every help above; raises what parse_query raises."""
    assist = QueryAssist()
    if questions:
        text, assist.question_words = strip_question(text)
    parsed = parse_query(text, citations=True)
    if typos and exact_field:
        parsed, assist.corrected = correct_typos(parsed, searcher, vocab_field, exact_field, an)
    typed = parsed
    if thesaurus_on:
        parsed, assist.expanded = expand(parsed, an, searcher, vocab_field, EXPANSION_ALIAS)
    return Assisted(parsed=parsed, typed=typed, assist=assist)
