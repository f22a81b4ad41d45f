"""The snippet probe (where a query's words stand in a decision's part, to choose the snippet's
window) gives exactly what its definition gives: the first match of the probe's pattern over the
part folded to lower case, then the pattern's matches within PROBE_REGION_CHARS of it, at most
MAX_PROBE_MATCHES. The fast ways (one translation table, bytes.find per stem) are checked against
that definition on random texts with accents, capitals, characters outside Latin-1, stems inside
longer words, overlapping stems and matches cut by the region's end."""

from __future__ import annotations

import itertools
import random
import re

from it_eli.search.decisions import snippets as D

STEMS = ["leg", "legg", "legge", "legittim", "costituzional", "cost", "art", "ar", "respons", "civil",
         "perc", "citta", "liberta", "l2", "x_y", "ñand", "straße", "dirit", "aa"]
NOISE = ["legge", "LEGGE", "Legittimità", "collegio", "illegittimo", "costituzionale", "Costituzionalità",
         "articolo", "arte", "perché", "PERCHÉ", "città", "Città", "libertà", "responsabilità", "civile",
         "incivile", "diritto", "straße", "Straße", "ñandu", "Ωmega", "İstanbul", "K", "ẞ", "x_y", "l2",
         "aaa", "a", "e", "il", "la", "di", "n.", "12", "—", "’", "(", ")", ",", ";", "\n", "\t", "_", "«", "»"]


def _definition_view(text: str, probe: D.Probe):
    lower = text.lower()
    if len(lower) != len(text):
        return text, probe.slow
    return lower.encode("latin-1", "replace").translate(D._PROBE_FOLD), probe.fast


def _definition_matches(view, rx):
    first = rx.search(view)
    if first is None:
        return []
    return [(m.start(), m.group(0).lower()) for m in itertools.islice(
        rx.finditer(view, first.start(), first.start() + D.PROBE_REGION_CHARS), D.MAX_PROBE_MATCHES)]


def _text(rng: random.Random) -> str:
    n = rng.choice([5, 40, 400, 2500])
    words = [rng.choice(NOISE) for _ in range(n)]
    return "".join(w + rng.choice([" ", " ", "", ", ", "'"]) for w in words)


def test_the_probe_finds_what_its_pattern_finds():
    rng = random.Random(16)
    fast_used = fallback_used = 0
    for _ in range(1500):
        probe = D.Probe(set(rng.sample(STEMS, rng.randint(1, 6))))
        text = _text(rng)
        view, rx = probe.view(text)
        want_view, want_rx = _definition_view(text, probe)
        assert (view, rx.pattern) == (want_view, want_rx.pattern)
        got = probe.matches(view, rx)
        assert got == _definition_matches(want_view, want_rx), (text[:200], probe.fast.pattern)
        fast_used += probe.words is not None and rx is probe.fast and bool(got)
        fallback_used += (probe.words is None or rx is not probe.fast) and bool(got)
    assert fast_used > 150 and fallback_used > 150  # both ways were exercised


def test_matches_cut_by_the_region_end_and_the_match_cap_hold():
    probe = D.Probe({"legge", "leg"})
    # the first match, then a long stretch: an occurrence straddling the region's end is cut
    # to the shorter stem as the pattern's endpos cuts it, or dropped
    for gap in range(D.PROBE_REGION_CHARS - 12, D.PROBE_REGION_CHARS + 2):
        text = "legge " + "x" * gap + " legge legge"
        view, rx = probe.view(text)
        assert probe.matches(view, rx) == _definition_matches(*_definition_view(text, probe))
    many = "legge " * (D.MAX_PROBE_MATCHES + 50)
    view, rx = probe.view(many)
    got = probe.matches(view, rx)
    assert len(got) == D.MAX_PROBE_MATCHES and got == _definition_matches(*_definition_view(many, probe))


def test_the_window_chosen_is_where_the_words_stand_together():
    probe = D.Probe({"respons", "civil"})
    text = ("civile " + "parola " * 200 + "la responsabilità civile dello Stato " + "parola " * 50)
    start, end, distinct = D._window(text, probe)
    assert distinct == 2 and "responsabilità civile" in text[start:end]
    assert re.search(r"\bcivile\b", text[:start]) is not None  # the first `civile` alone was passed over
