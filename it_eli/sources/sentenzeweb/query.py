"""The user's query compiled to Solr `q`: user text never reaches Solr as syntax. The query is
parsed by `it_eli.law.query` and each word or phrase becomes one escaped phrase clause `ocr:"..."`
(only `\\` and `"` are special); words are ANDed because the upstream ORs bare words."""

from __future__ import annotations

from it_eli.law.query import And, Node, Not, Or, Term, parse_query
from it_eli.runtime.errors import QueryError

# `field:word` in a query: SentenzeWeb is searched on its full text only (`ocr`).
QUERY_FIELDS = {"testo": "ocr", "ocr": "ocr", "text": "ocr"}
QUERY_VALID = (
    'words, "phrases", AND / OR / NOT, -word, (groups), "phrase"~N, word^N; all words are required '
    'unless joined by OR. Filters are arguments: chamber, section, decision_type, anno'
)


def solr_phrase(text: str) -> str:
    """One Solr phrase literal: inside quotes only backslash and quote are special."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _number(value: float) -> str:
    return f"{value:g}" if value != int(value) else str(int(value))


class _Compiler:
    """`it_eli.law.query` tree -> Solr `q`. Every user term becomes an escaped phrase on `ocr`."""

    def __init__(self) -> None:
        self.notes: list[str] = []
        self.terms: list[str] = []  # the phrase texts sent, in order (for tests and the answer)

    def term(self, t: Term) -> str | None:
        if t.field is not None and t.field not in QUERY_FIELDS:
            raise QueryError(
                f"unknown field {t.field!r}: SentenzeWeb is searched on the decision's text only",
                valid="testo:word or no field; " + QUERY_VALID,
            )
        text = " ".join(t.text.split())
        if not any(ch.isalnum() for ch in text):
            return None  # could not match an indexed token
        if t.prefix:
            self.notes.append(f"'{text}*': SentenzeWeb is searched by whole words and phrases; searched as the word '{text}'")
        if t.fuzzy:
            self.notes.append(f"'{text}~': spelling tolerance is not available on SentenzeWeb; searched as written")
        self.terms.append(text)
        clause = f"{QUERY_FIELDS.get(t.field or 'ocr', 'ocr')}:{solr_phrase(text)}"
        if t.slop and len(text.split()) > 1:
            clause += f"~{int(t.slop)}"
        if t.boost != 1.0:
            clause += f"^{_number(float(t.boost))}"
        return clause

    def group(self, node: Node) -> str | None:
        """A sub-expression as an operand: parenthesised unless it is a single clause."""
        out = self.compile(node)
        if out is None or isinstance(node, Term):
            return out
        return f"({out})"

    def compile(self, node: Node) -> str | None:
        if isinstance(node, Term):
            return self.term(node)
        if isinstance(node, Or):
            parts = [p for p in (self.group(c) for c in node.children) if p is not None]
            if not parts:
                return None
            return parts[0] if len(parts) == 1 else " OR ".join(parts)
        children = node.children if isinstance(node, And) else [node]
        positives: list[str] = []
        negatives: list[str] = []
        for child in children:
            if isinstance(child, Not):
                inner = self.group(child.child)
                if inner is not None:
                    negatives.append(inner)
                continue
            part = self.group(child)
            if part is not None:
                positives.append(part)
        if not positives and not negatives:
            return None
        out = " AND ".join(positives) if positives else "*:*"
        for neg in negatives:
            out += f" AND NOT {neg}"
        return out


def compile_query(query: str) -> tuple[str, list[str], list[str]]:
    """(Solr `q`, the phrase texts sent, notes) for user text in the language of it_case_search."""
    parsed = parse_query(query)
    comp = _Compiler()
    q = comp.compile(parsed.root)
    if q is None or not comp.terms:
        raise QueryError("the query has no words to search for", valid=QUERY_VALID)
    return q, comp.terms, list(dict.fromkeys(parsed.notes + comp.notes))


def build_q(query: str) -> str:
    """The Solr `q` for user text (see `compile_query`)."""
    return compile_query(query)[0]
