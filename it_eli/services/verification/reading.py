"""Reading a text into the citations to check, within the bounds of one call.

Apart from the checks because it is CPU work on the text alone: extraction (off the event loop),
grouping, and the key that makes each distinct citation one check."""

from __future__ import annotations

import msgspec

from it_eli.law.scanner import Citation, extract_citations, partitions_of
from it_eli.law.scanner.unread import unread_references
from it_eli.runtime.errors import InvalidArg
from it_eli.runtime.workers import PROCESS_MIN_CHARS, in_process, in_thread

MAX_INPUT_CHARS = 1_000_000
MAX_LIVE_LOOKUPS = 40  # per call: a pasted brief must not turn into hundreds of upstream requests


class InputTooLarge(InvalidArg):
    """The text to verify exceeds the bound (a typed error, not a truncated check)."""

    code = "input_too_large"


def check_input(text: object) -> str:
    if not isinstance(text, str):
        raise InvalidArg("text must be a string", valid="the text whose citations are to be verified")
    if len(text) > MAX_INPUT_CHARS:
        raise InputTooLarge(
            f"the text has {len(text):,} characters; at most {MAX_INPUT_CHARS:,} are verified in one call",
            valid=f"split the text into parts of at most {MAX_INPUT_CHARS:,} characters", chars=len(text),
        )
    return text


PACK_CHUNK = 500  # citations per msgpack chunk: decoding one holds the GIL a few ms, not 100+


def _extract_packed(text: str) -> list[bytes]:
    """In a worker process: the citations, msgpack-encoded in chunks (cheaper to send back than
    pickles, and decoded chunk by chunk so the server's loop thread gets the GIL in between)."""
    cites = extract_citations(text)
    return [msgspec.msgpack.encode(cites[i : i + PACK_CHUNK]) for i in range(0, len(cites), PACK_CHUNK)]


def _unpack(chunks: list[bytes]) -> list[Citation]:
    out: list[Citation] = []
    for chunk in chunks:
        out.extend(msgspec.msgpack.decode(chunk, type=list[Citation]))
    return out


async def extract_off_loop(text: str) -> list[Citation]:
    """The citations of `text`, extracted in a worker process when the text is long, else in a thread."""
    if len(text) < PROCESS_MIN_CHARS:
        return await in_thread(extract_citations, text)
    return await in_thread(_unpack, await in_process(_extract_packed, text))


def unread_citations(text: str, cites: list[Citation]) -> list[Citation]:
    """What the text cites and the scanner could not read ('sentenza n. 9 del 2001' with no court in
    reach, an 'artt.' no act follows): each a citation of its own words, to be reported as
    unparseable rather than left out of the answer."""
    return [Citation(raw=text[s:e], start=s, end=e, kind=kind) for s, e, kind in unread_references(text, cites)]


def unread_key(c: Citation) -> tuple:
    """The memo key of an unread span: its words (each distinct wording is one gap)."""
    return ("unread", c.kind, c.raw)


def plan_checks(cites: list[Citation], unread: list[Citation] = ()) -> list[tuple[Citation, list[Citation], tuple]]:
    """Each citation with the others sharing its place in the text, and its memo key; the unread
    spans in their place, keyed by their words."""
    groups: dict[tuple[int, int], list[Citation]] = {}
    for c in cites:
        if c.kind == "statute" and c.article is not None:
            groups.setdefault((c.start, c.end), []).append(c)
    out = []
    for c in cites:
        group = groups.get((c.start, c.end), []) if c.kind == "statute" else []
        out.append((c, group, _citation_key(c, group)))
    if unread:
        out += [(u, [], unread_key(u)) for u in unread]
        out.sort(key=lambda p: (p[0].start, p[0].end))  # stable: read citations keep their order
    return out


def _citation_key(c: Citation, group: list[Citation]) -> tuple:
    """What a citation's verdict depends on: everything but where it stands in the text. A
    description is judged with the articles cited with it ('artt. 575 e 577 c.p. (omicidio)')
    and its verdict quotes the citation, so then the group and the text count too."""
    # where the act is named is not part of it (the same act cited twice is one check)
    act = msgspec.json.encode(msgspec.structs.replace(c.act, start=-1, end=-1)) if c.act is not None else None
    described = None
    if c.description:
        described = (c.raw, tuple(g.article for g in group if g.act is c.act))
    return (c.kind, act, c.act_unresolved, c.via_backreference, c.article, c.comma, c.lettera, c.numero,
            c.description, c.court, c.court_section, c.court_branch, c.court_seat, c.decision_type,
            c.decision_number, c.decision_year, c.decision_date, c.ecli, described, partitions_of(c),
            msgspec.json.encode(msgspec.structs.replace(c.converts, start=-1, end=-1)) if c.converts else None)
