"""The GA I/O, kept thin: the search page (session cookie and p_auth), the search POST and the
GET of a checked decision URL, with the `HttpClient` they are given; what they read is parsed elsewhere."""

from __future__ import annotations

from urllib.parse import urlsplit

from it_eli.runtime.errors import UpstreamChanged
from it_eli.sources.ga.document_url import DOC_PATH
from it_eli.sources.ga.portal import SEARCH_PATH, action_params, extract_p_auth
from it_eli.sources.http import RETRY_LATER, HttpClient


async def open_session(client: HttpClient, ga_url: str) -> str:
    """GET the search page: the session cookie lands in the client's jar; returns p_auth."""
    resp = await client.request("GET", ga_url + SEARCH_PATH, not_found_statuses=(), what="GA search page")
    return extract_p_auth(resp.body)


async def post_search(client: HttpClient, ga_url: str, p_auth: str, form: dict[str, str]) -> bytes:
    resp = await client.request(
        "POST",
        ga_url + SEARCH_PATH,
        params=action_params(p_auth),
        data=form,
        headers={"Referer": ga_url + SEARCH_PATH},
        not_found_statuses=(),
        what="GA search",
    )
    return resp.body


async def fetch_document(client: HttpClient, url: str, document_base: str, ga_url: str) -> bytes:
    """GET a checked decision URL. The URL was checked before the request, so whatever goes wrong
    after it (a redirect off the decision host or path, an empty body) is the upstream's doing:
    `upstream_changed`, never `invalid_arg` nor `not_found` (only a 404/410 says "absent")."""
    resp = await client.request(
        "GET",
        url,
        headers={"Referer": ga_url + SEARCH_PATH},
        not_found_statuses=(404, 410),
        what="GA decision",
        same_host_redirects=True,
    )
    final = urlsplit(resp.url)
    base = urlsplit(document_base)
    if (final.hostname or "").lower() != (base.hostname or "").lower() or final.port != base.port or final.path != DOC_PATH:
        raise UpstreamChanged(
            f"GA decision: the decision host redirected to {final.path[:80]!r}, not a decision page",
            valid=RETRY_LATER, url=url,
        )
    if not resp.body.strip():
        raise UpstreamChanged(
            "GA decision: the decision host answered 200 with an empty body (this is not proof that the decision "
            "does not exist)",
            valid=RETRY_LATER + "; or open source_url in a browser", url=url,
        )
    return resp.body
