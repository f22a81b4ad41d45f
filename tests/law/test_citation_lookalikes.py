"""Look-alikes (tests/lookalike_cases.py): a citation one slash, one letter or one qualifier away
from another act is read as the act it names, or as a gap quoting what was read; never as another
act, never with a shorter number."""

from __future__ import annotations

import pytest

from it_eli.law.scanner.model import Citation
from it_eli.law.scanner.scan import extract_citations
from tests.lookalike_cases import LOOKALIKES


def _ident(c: Citation) -> str | None:
    a = c.act
    return None if a is None else (a.urn or a.eli)


def _unidentified(c: Citation) -> bool:
    return c.kind == "statute" and c.act is not None and not c.act.urn and not c.act.eli and not c.act.code


@pytest.mark.parametrize("row", LOOKALIKES, ids=[r["text"][:60] for r in LOOKALIKES])
def test_lookalike_names_its_own_act_or_a_gap(row):
    got = [c for c in extract_citations(row["text"]) if c.kind == "statute"]
    allowed = {row["ident"]} if row["expect"] == "act" else set()
    others = [(c.raw, _ident(c)) for c in got if _ident(c) and _ident(c) not in allowed]
    assert not others, f"another act read: {others}"
    if row["expect"] == "act":
        assert any(_ident(c) == row["ident"] and c.article == row["article"] for c in got), \
            [(c.raw, _ident(c), c.article) for c in got]
    elif row["expect"] == "gap":
        hits = [c for c in got if _unidentified(c) and row["words"] in c.act.raw]
        assert hits, f"no gap quoting {row['words']!r}: {[(c.raw, c.act and c.act.raw) for c in got]}"
        assert any(c.article == row["article"] for c in hits)


@pytest.mark.parametrize("number", ["12/2019/DRE", "231/2021/R/eel", "173/07/CONS", "26/RGS", "40/2019/E"])
def test_a_number_is_never_read_shorter(number):
    """Whatever act type carries it, a number that goes on is kept whole or not read."""
    for kind in ("circolare", "delibera", "determinazione", "decreto ministeriale", "d.m."):
        text = f"Si veda la {kind} n. {number} in materia."
        for c in extract_citations(text):
            if c.act is not None and c.act.number is not None:
                assert c.act.number.replace(" ", "") == number.replace(" ", ""), (text, c.act.number)
