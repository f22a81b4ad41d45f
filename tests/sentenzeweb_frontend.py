"""Read the SentenzeWeb pages rendered by the court's own front-end (sentenzeweb/frontend/*.html).

The pages are DOM snapshots of the court's UI built from live sn.solr answers (PROVENANCE.md):
they hold the values the court printed, not raw Solr JSON. This reader gives tests those values:
the facet lists (raw value, label, count), the filters chosen in the form, and each result card's
fields (id, type, section label, number, ECLI, PDF link). Nothing here is it_eli code.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import unquote

from lxml import html as lxml_html

FRONTEND = "sentenzeweb/frontend"
SCRIPT = "studiorizzo__sentenze.github.io__siti_Sentenze_Cassazione_files_index.js"


def pages(data: Path) -> list[Path]:
    return sorted((data / FRONTEND).glob("*.html"))


def _tree(path: Path):
    return lxml_html.fromstring(path.read_bytes())


def _int(text: str) -> int:
    return int(text.replace(".", "").replace("\xa0", "").strip())


def facets(path: Path) -> dict[str, list[tuple[str, str, int]]]:
    """field -> [(raw value, label shown, count)] as printed in the page's facet lists."""
    out: dict[str, list[tuple[str, str, int]]] = {}
    for cell in _tree(path).xpath('//td[starts-with(@id, "data.")]'):
        field = re.fullmatch(r"data\.\d+\.\[(\w+)\]", cell.get("id")).group(1)
        hidden = cell.xpath('./span[@style="display:none"]/text()')
        label = cell.xpath('./span[@class="keyIgnore"]/text()')
        raw = hidden[0] if hidden else cell.text_content().strip()
        count = _int(cell.getnext().text_content())
        out.setdefault(field, []).append((raw.strip(), (label[0] if label else raw).strip(), count))
    return out


def chosen_filters(path: Path) -> dict[str, str]:
    """The filters set in the page's form: field -> value (the hidden inputs `[kind]`, `[szdec]`…)."""
    out = {}
    for inp in _tree(path).xpath('//input[starts-with(@name, "[")]'):
        value = (inp.get("value") or "").strip()
        if value:
            out[inp.get("name").strip("[]")] = value.strip('"')
    return out


def total(path: Path) -> int:
    return _int(_tree(path).xpath('//span[@class="tot"]/text()')[0])


def cards(path: Path) -> list[dict[str, str | None]]:
    """Each result card's printed fields (data-arg -> text), plus `pdf` (the PDF link, unescaped)."""
    out = []
    for card in _tree(path).xpath('//div[contains(concat(" ", @class, " "), " card ")]'):
        fields: dict[str, str | None] = {}
        for el in card.xpath('.//*[@data-role="content"][@data-arg]'):
            fields[el.get("data-arg")] = " ".join(el.text_content().split())
        pdf = card.xpath('.//img[contains(@class, "pdf")]/@data-arg')
        fields["pdf"] = unquote(pdf[0]) if pdf else None
        out.append(fields)
    return out


def solr_facet_answer(path: Path) -> bytes:
    """A Solr facet answer (SYNTHETIC shape: `facet_counts.facet_fields`, standard Solr) holding the
    REAL values and counts the page prints, for a local server's `select?app.facet`."""
    fields = {f: [x for raw, _label, n in rows for x in (raw, n)] for f, rows in facets(path).items()}
    return json.dumps({
        "responseHeader": {"status": 0},
        "response": {"numFound": total(path), "start": 0, "docs": []},
        "facet_counts": {"facet_queries": {}, "facet_fields": fields},
    }).encode()


def script(data: Path) -> str:
    return (data / FRONTEND / SCRIPT).read_text(encoding="latin-1")
