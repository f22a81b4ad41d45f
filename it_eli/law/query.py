"""The user query language, parsed into a tree that no search engine owns.

Syntax: words; "exact phrases"; AND / OR / NOT (upper case) and `-word`; parentheses;
`field:word`, `field:"phrase"` or `field:(group)`; the Lucene suffixes AI assistants write:
`word*` (prefix), `word~` / `word~2` (spelling distance), `word^2` (weight), `"phrase"~3` (words at
most 3 positions apart). Words are ANDed by default; the caller may retry with OR when nothing
matches. The local index compiles the tree to Tantivy queries (`it_eli.search.query`), the live
courts to their own query strings: user text never reaches an engine's own parser.
"""

from __future__ import annotations

import re

import msgspec

from it_eli.law.forms import citation_phrases
from it_eli.runtime.errors import InvalidArg, QueryError

MAX_QUERY_CHARS = 1000
MAX_TERMS = 128  # words with a letter or digit; pasted massima headings run to 60-95 words


class Term(msgspec.Struct, frozen=True, tag="term"):
    text: str
    field: str | None = None
    phrase: bool = False
    prefix: bool = False  # `respons*`: any indexed term starting like the word
    fuzzy: int = 0  # `fauna~1`: terms within this edit distance
    boost: float = 1.0  # `fauna^2`
    slop: int = 0  # `"danno ingiusto"~3`: the phrase's words at most this many positions apart


class Not(msgspec.Struct, frozen=True, tag="not"):
    child: "Node"


class And(msgspec.Struct, frozen=True, tag="and"):
    children: list["Node"]
    explicit: bool = False


class Or(msgspec.Struct, frozen=True, tag="or"):
    children: list["Node"]


Node = Term | Not | And | Or


class ParsedQuery(msgspec.Struct, frozen=True):
    root: Node
    notes: list[str]
    plain_words: int  # implicit-AND words: worth an OR fallback when >= 2


_TOKEN = re.compile(
    r'\s*(?:(?P<neg>[-+])(?=["\u201c\u201d«»(]|[A-Za-z_]+:["\w])|(?P<lp>\()|(?P<rp>\))|(?P<field>[A-Za-z_]+):(?=["\w(\u201c«])|(?P<quote>["\u201c\u201d«»])|(?P<word>[^\s()"\u201c\u201d«»]+))'
)


def _lex(text: str, notes: list[str]) -> list[tuple[str, str]]:
    tokens: list[tuple[str, str]] = []
    pos = 0
    n = len(text)
    while pos < n:
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            break
        pos = m.end()
        if m.group("neg"):
            if m.group("neg") == "-":  # -"a phrase", -field:word, -(a group)
                tokens.append(("not", "-"))
        elif m.group("lp"):
            tokens.append(("(", "("))
        elif m.group("rp"):
            tokens.append((")", ")"))
        elif m.group("field"):
            tokens.append(("field", m.group("field").lower()))
        elif m.group("quote"):
            end = _find_closing_quote(text, pos)
            if end < 0:
                notes.append("unbalanced quote: the phrase was closed at the end of the query")
                tokens.append(("phrase", text[pos:]))
                pos = n
            else:
                tokens.append(("phrase", text[pos:end]))
                pos = end + 1
                slop = _PHRASE_SLOP.match(text, pos)
                if slop:
                    tokens.append(("slop", slop.group(1) or "1"))
                    pos = slop.end()
        else:
            word = m.group("word")
            if word in ("AND", "&&"):
                tokens.append(("and", word))
            elif word in ("OR", "||"):
                tokens.append(("or", word))
            elif word == "NOT":
                tokens.append(("not", word))
            elif word.startswith("-") and len(word) > 1:
                tokens.append(("not", "-"))
                tokens.append(("word", word[1:]))
            elif word.startswith("+") and len(word) > 1:
                tokens.append(("word", word[1:]))
            else:
                tokens.append(("word", word))
    return tokens


_PHRASE_SLOP = re.compile(r"~(\d{0,2})(?![\w])")
_WORD_SUFFIX = re.compile(r"^(?P<word>.*?\w)(?:(?P<star>\*)|~(?P<fuzzy>\d?)|\^(?P<boost>\d{1,2}(?:\.\d+)?))$")
MIN_PREFIX_CHARS = 3
MAX_FUZZY = 2
MAX_SLOP = 20
MAX_BOOST = 10.0


def _find_closing_quote(text: str, start: int) -> int:
    for i in range(start, len(text)):
        if text[i] in '"\u201c\u201d«»':
            return i
    return -1


class _Parser:
    def __init__(self, tokens: list[tuple[str, str]], notes: list[str]) -> None:
        self.toks = tokens
        self.i = 0
        self.notes = notes
        self.plain_words = 0
        self.depth = 0

    def _slop(self) -> int:
        nxt = self.peek()
        if nxt is not None and nxt[0] == "slop":
            self.take()
            return min(int(nxt[1]), MAX_SLOP)
        return 0

    def peek(self) -> tuple[str, str] | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self) -> tuple[str, str]:
        tok = self.toks[self.i]
        self.i += 1
        return tok

    def parse(self) -> Node | None:
        node = self.or_expr()
        while self.peek() is not None:  # stray ')' and the like: keep going, never fail
            kind, _ = self.take()
            if kind == ")":
                self.notes.append("unbalanced ')' ignored")
            rest = self.or_expr()
            if rest is not None:
                node = And([node, rest]) if node is not None else rest
        return node

    def or_expr(self) -> Node | None:
        children = [self.and_expr()]
        while self.peek() and self.peek()[0] == "or":
            self.take()
            children.append(self.and_expr())
        children = [c for c in children if c is not None]
        if not children:
            return None
        return children[0] if len(children) == 1 else Or(children)

    def and_expr(self) -> Node | None:
        children: list[Node] = []
        explicit = False
        while True:
            tok = self.peek()
            if tok is None or tok[0] in ("or", ")"):
                break
            if tok[0] == "and":
                self.take()
                explicit = True
                continue
            node = self.unary()
            if node is not None:
                children.append(node)
        if not children:
            return None
        return children[0] if len(children) == 1 else And(children, explicit=explicit)

    def unary(self) -> Node | None:
        tok = self.peek()
        if tok and tok[0] == "not":
            self.take()
            nxt = self.peek()
            if nxt is None or nxt[0] in ("or", "and", ")"):
                self.notes.append(f"operator {tok[1]!r} without an operand ignored")
                return None
            child = self.unary()
            return Not(child) if child is not None else None
        return self.atom()

    def atom(self) -> Node | None:
        if self.peek() is None:
            return None
        kind, value = self.take()
        if kind == "(":
            self.depth += 1
            if self.depth > 16:
                raise QueryError("parentheses nested too deeply", valid="at most 16 levels of parentheses")
            node = self.or_expr()
            if self.peek() and self.peek()[0] == ")":
                self.take()
            else:
                self.notes.append("unbalanced '(' closed at the end of the query")
            self.depth -= 1
            return node
        if kind == "field":
            nxt = self.peek()
            if nxt is not None and nxt[0] == "(":
                group = self.atom()
                return _scoped(group, value) if group is not None else None
            if nxt is None or nxt[0] not in ("word", "phrase"):
                raise QueryError(f"'{value}:' is not followed by a word or a phrase",
                                 valid='field:word, field:"a phrase" or field:(some words)')
            k2, v2 = self.take()
            if k2 == "phrase":
                return Term(v2, field=value, phrase=True, slop=self._slop())
            return _word_term(v2, value, self.notes)
        if kind == "phrase":
            return Term(value, phrase=True, slop=self._slop())
        if kind == "word":
            self.plain_words += 1
            return _word_term(value, None, self.notes)
        if kind == "slop":
            return None
        # stray operator (e.g. "AND" at the start): treat as nothing
        self.notes.append(f"operator {value!r} without an operand ignored")
        return None


_HAS_WORD = re.compile(r"\w")


def _word_term(word: str, field: str | None, notes: list[str]) -> Term:
    """A word, with the Lucene suffix an AI assistant may have added read as what it means."""
    m = _WORD_SUFFIX.match(word)
    if m is None:
        return Term(word, field=field)
    base = m.group("word")
    if m.group("star"):
        if len(re.sub(r"\W", "", base)) < MIN_PREFIX_CHARS:
            notes.append(f"'{word}': a prefix needs at least {MIN_PREFIX_CHARS} letters; searched as a word")
            return Term(base, field=field)
        return Term(base, field=field, prefix=True)
    if m.group("fuzzy") is not None:
        return Term(base, field=field, fuzzy=min(int(m.group("fuzzy") or 1), MAX_FUZZY))
    boost = float(m.group("boost"))
    if not 0 < boost <= MAX_BOOST:
        notes.append(f"'{word}': weight out of range (0 to {MAX_BOOST:g}); searched with weight 1")
        return Term(base, field=field)
    return Term(base, field=field, boost=boost)


def _scoped(node: Node, field: str) -> Node:
    """`field:(a OR b)`: every word of the group searched in that field (unless it names its own)."""
    if isinstance(node, Term):
        return node if node.field else msgspec.structs.replace(node, field=field)
    if isinstance(node, Not):
        return Not(_scoped(node.child, field))
    if isinstance(node, And):
        return And([_scoped(c, field) for c in node.children], explicit=node.explicit)
    return Or([_scoped(c, field) for c in node.children])


def parse_query(text: str, *, citations: bool = False) -> ParsedQuery:
    """The query tree. `citations`: a query that is a citation also matches the forms the texts
    write it in; only for the local indexes, whose texts hold those forms (a live upstream gets
    the user's words alone)."""
    if not isinstance(text, str) or not text.strip():
        raise QueryError("the query is empty", valid='some words, a "phrase", AND/OR/NOT, field:word')
    if len(text) > MAX_QUERY_CHARS:
        raise InvalidArg(
            f"the query is {len(text)} characters long",
            valid=f"a query of at most {MAX_QUERY_CHARS} characters (search for the key words, not the whole text)",
        )
    notes: list[str] = []
    tokens = _lex(text, notes)
    if sum(1 for k, v in tokens if k in ("word", "phrase") and _HAS_WORD.search(v)) > MAX_TERMS:
        raise InvalidArg("the query has too many terms", valid=f"at most {MAX_TERMS} words and phrases")
    parser = _Parser(tokens, notes)
    root = parser.parse()
    if root is None:
        raise QueryError("the query has no searchable words", valid='some words, a "phrase", AND/OR/NOT, field:word')
    phrases = citation_phrases(text) if citations else []
    if phrases:  # a citation: also the forms the texts write it in (it_eli.law.forms)
        root = Or([root, *(Term(text=w, phrase=True, slop=slop) for w, slop in phrases)])
        notes.append("read as a citation: also matched as " + "; ".join(f'"{w}"' for w, _ in phrases[:3]))
    return ParsedQuery(root=root, notes=notes, plain_words=parser.plain_words)
