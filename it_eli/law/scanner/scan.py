"""The pass over a text: find each anchor, hand it to its family's reader, resume after what was read;
then give every citation its identifiers (URN, ELI, ECLI). `extract_citations` is the scanner's one
entry point."""

from __future__ import annotations

import re

import msgspec

from ..urn import act_identifiers, article_urn, build_ecli
from .act_context import ActContext
from .anchors import FILTER, TRIGGER
from .articles import ArticleReader
from .case_lists import CaseListReader
from .cases import CaseReader
from .eu import RecitalReader
from .model import ActRef, Citation
from .partitions import PartitionReader


class _Scanner(ArticleReader, PartitionReader, RecitalReader, CaseReader, CaseListReader, ActContext):
    """One pass over the text; holds the context needed for back-references."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.out: list[Citation] = []
        # last mention of each act type: (order, act); a dict keeps back-reference lookup O(1)
        self.last_by_type: dict[str, tuple[int, ActRef]] = {}
        self.n_acts = 0
        self.article_acts: dict[str, ActRef] = {}  # last act seen per article key ('art. 3 cit.')
        self.pending: tuple[ActRef, int, int] | None = None  # standalone act: (act, start, end)
        self.pending_used = False
        self.pending_conflict = False
        self.anchor_end = 0  # end of the text that last extended the pending act's reach

    def run(self) -> list[Citation]:
        text = self.text
        pos = 0
        n = len(text)
        while pos < n:
            f = FILTER.search(text, pos)
            if not f:
                break
            m = TRIGGER.match(text, f.start())
            if not m:
                pos = f.start() + 1
                continue
            s = m.start()
            g = m.lastgroup
            if g == "ecli":
                pos = self.parse_ecli(s)
            elif g == "art":
                pos = self.parse_articles(s)
            elif g == "dt":
                pos = self.parse_disp_trans(s)
            elif g == "struct":
                pos = self.parse_structure(s)
            elif g == "cons":
                pos = self.parse_considerando(s)
            elif g == "part":
                pos = self.parse_partitions_of_act(s)
            elif g == "court":
                anchor = m.group(0)
                if anchor in ("C.d.S.", "CdS") and not re.match(r"\s*,?\s*(?:[Ss]ez|n\.|sent|ord|[Aa]d\.|A\.\s?P\.)", text[m.end() : m.end() + 12]):
                    pos = m.end()
                    continue
                new = self.parse_case(s, anchor)
                if new == s + 1:
                    if end := self.parse_case_prefixed(s, anchor):
                        new = max(m.end(), end)
                pos = max(new, m.end()) if new != s + 1 else s + 1
            else:
                pos = self.parse_act_mention(s)
        self.flush_pending()
        self._cite_conversion_laws()
        self.out.sort(key=lambda c: (c.start, c.end))
        return self.out

    def _cite_conversion_laws(self) -> None:
        """'D.L. 6 dicembre 2011, n. 201, convertito dalla legge 22 dicembre 2011, n. 214': the
        conversion law is cited too (and can be wrong on its own), so it is a citation of its own
        beside the decree that carries it as `converted_by`."""
        seen = {(c.start, c.end) for c in self.out if c.kind == "statute" and c.article is None}
        for c in list(self.out):
            conv = c.act.converted_by if c.kind == "statute" and c.act is not None else None
            if conv is None or conv.start < 0 or (conv.start, conv.end) in seen:
                continue
            seen.add((conv.start, conv.end))
            decree = msgspec.structs.replace(c.act, converted_by=None)
            self.out.append(Citation(raw=self.text[conv.start:conv.end], start=conv.start, end=conv.end,
                                     kind="statute", act=conv, converts=decree))


def extract_citations(text: str) -> list[Citation]:
    """Every statute article, act, case and ECLI citation in `text`, in order of appearance.

    Never raises on odd input; offsets always satisfy ``text[c.start:c.end] == c.raw``.
    """
    if not isinstance(text, str) or not text:
        return []
    out = _Scanner(text).run()
    for c in out:
        identify(c)
    return out


def identify(c: Citation) -> None:
    """Fill the identifiers of a citation: the act's URN (or ELI/CELEX), the cited article's URN,
    a decision's ECLI where it can be built. Pure: what the text gives, nothing looked up."""
    if c.kind == "statute" and c.act is not None:
        act = c.act
        if act.urn is None and act.eli is None:
            act.urn, act.eli, act.celex = act_identifiers(act)
            if act.converted_by is not None and act.converted_by.urn is None:
                act.converted_by.urn = act_identifiers(act.converted_by)[0]
        c.urn = article_urn(act, c.article) if act.urn else None
    elif c.kind == "case" and c.ecli is None:
        c.ecli = build_ecli(c.court, c.decision_year, c.decision_number, branch=c.court_branch,
                            decision_type=c.decision_type)
