"""The decision URL check: `document_url` is user input that we fetch, so it is checked strictly
(host, scheme, port, path, query keys and values) and rebuilt from its checked parts before any
request; the links on the portal's result page pass the same check."""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlencode, urlsplit

from it_eli.runtime.errors import InvalidArg

DOC_PATH = "/visualizza/"
DOC_PARAM_RES: dict[str, re.Pattern[str]] = {
    "nodeRef": re.compile(r""),
    "schema": re.compile(r"[a-z][a-z_]{1,19}"),
    "nrg": re.compile(r"\d{6,12}"),
    "nomeFile": re.compile(r"\d{6,12}_\d{2}\.(?:html|pdf)"),
    "subDir": re.compile(r"Provvedimenti"),
}
DOC_URL_VALID = (
    "a decision URL from it_ga_search, e.g. https://mdp.giustizia-amministrativa.it/visualizza/"
    "?nodeRef=&schema=tar_rm&nrg=202515527&nomeFile=202611970_01.html&subDir=Provvedimenti"
)


def check_document_url(url: object, document_base: str) -> str:
    """Accept only the decision host's `/visualizza/` URLs; return the URL rebuilt canonically."""
    if not isinstance(url, str) or len(url) > 1000:
        raise InvalidArg("document_url must be a string of at most 1000 characters", valid=DOC_URL_VALID)
    base = urlsplit(document_base)
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        raise InvalidArg(f"not a valid URL: {url[:200]!r}", valid=DOC_URL_VALID)
    if parts.scheme.lower() != base.scheme.lower():
        raise InvalidArg(f"scheme {parts.scheme!r} not allowed for decisions", valid=DOC_URL_VALID)
    if "@" in parts.netloc or parts.username is not None or parts.password is not None:
        raise InvalidArg("URLs with user information are not allowed", valid=DOC_URL_VALID)
    if (parts.hostname or "").lower() != (base.hostname or "").lower():
        raise InvalidArg(f"host {parts.hostname!r} is not the decision host", valid=DOC_URL_VALID)
    if port != base.port:
        raise InvalidArg(f"port {port} is not allowed", valid=DOC_URL_VALID)
    if parts.path != DOC_PATH or parts.fragment:
        raise InvalidArg(f"path {parts.path!r} is not a decision path", valid=DOC_URL_VALID)
    try:
        pairs = parse_qsl(parts.query, keep_blank_values=True, strict_parsing=True)
    except ValueError:
        raise InvalidArg("malformed query string", valid=DOC_URL_VALID)
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys) or not set(keys) <= set(DOC_PARAM_RES):
        raise InvalidArg("unexpected or repeated query parameters", valid=DOC_URL_VALID)
    values = dict(pairs)
    for key in ("schema", "nrg", "nomeFile"):
        if key not in values:
            raise InvalidArg(f"missing query parameter {key}", valid=DOC_URL_VALID)
    for key, value in values.items():
        if not DOC_PARAM_RES[key].fullmatch(value):
            raise InvalidArg(f"bad value for {key}: {value[:60]!r}", valid=DOC_URL_VALID)
    ordered = [(k, values.get(k, "Provvedimenti" if k == "subDir" else "")) for k in DOC_PARAM_RES]
    return f"{base.scheme}://{base.netloc}{DOC_PATH}?{urlencode(ordered)}"


def is_pdf_url(url: str) -> bool:
    return dict(parse_qsl(urlsplit(url).query)).get("nomeFile", "").endswith(".pdf")
