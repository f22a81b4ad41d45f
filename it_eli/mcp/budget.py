"""The answer size budget (IT_ELI_MAX_ANSWER_CHARS), measured the way clients receive answers.

Definition (tests/mcp/test_bounded_answers.py checks it for every registered tool): the answer's
size is `len(json.dumps(payload, ensure_ascii=False))`, the text the MCP server sends; it must be
at most `max_answer_chars + ENVELOPE_CHARS`. A paged text field counts its JSON escapes (`"`,
backslash, newlines are two characters, other control characters six), so `max_chars` of text
never grows past the budget once encoded; ENVELOPE_CHARS covers the metadata around the page
(citation, URLs, notes, licence).
"""

from __future__ import annotations

import re

ENVELOPE_CHARS = 6000

_TWO = re.compile(r'["\\\n\r\t\b\f]')
_SIX = re.compile(r"[\x00-\x07\x0b\x0e-\x1f]")


def json_cost(text: str) -> int:
    """Characters `text` takes inside a JSON string (ensure_ascii=False), quotes excluded."""
    return len(text) + len(_TWO.findall(text)) + 5 * len(_SIX.findall(text))


def fit_end(text: str, start: int, max_cost: int) -> int:
    """The largest end such that text[start:end] costs at most `max_cost` (at least one char).

    Why not `start + max_cost`: a page of quotes or newlines would double once encoded.
    Linear in the page: whole blocks while they fit, then character by character.
    """
    n = len(text)
    end, used = start, 0
    block = 4096
    while end < n:
        piece = text[end : end + block]
        cost = json_cost(piece)
        if used + cost <= max_cost:
            used += cost
            end += len(piece)
            continue
        for ch in piece:
            c = json_cost(ch)
            if used + c > max_cost:
                break
            used += c
            end += 1
        break
    return max(end, min(n, start + 1))
