"""The one SentenzeWeb I/O, kept thin: a POST on the Solr select, with the request named in the
URL and the rest form-encoded as the court's client sends it, over the `HttpClient` it is given."""

from __future__ import annotations

from urllib.parse import quote, urlencode

from it_eli.sources.http import HttpClient
from it_eli.sources.sentenzeweb.request import APP_FACET, APP_QUERY, SELECT_PATH

FORM_CONTENT_TYPE = "application/x-www-form-urlencoded; charset=UTF-8"


def split_request(params: list[tuple[str, str]]) -> tuple[str, list[tuple[str, str]]]:
    """(query string of the URL, form body): the court's client names the request in the URL
    (`app.query=snciv`, bare `app.query` or `app.facet`) and posts everything else."""
    marks = [k if not v else f"{k}={quote(v, safe='')}" for k, v in params if k in (APP_QUERY, APP_FACET)]
    body = [(k, v) for k, v in params if k not in (APP_QUERY, APP_FACET)]
    return "&".join(marks), body


async def fetch_select(client: HttpClient, sentenzeweb_url: str, params: list[tuple[str, str]]) -> tuple[bytes, str]:
    """One POST on the Solr select, form-encoded as the court's client sends it; returns
    (body, content type). Any non-200 is unavailable."""
    marks, body = split_request(params)
    url = sentenzeweb_url + SELECT_PATH + (f"?{marks}" if marks else "")
    resp = await client.request(
        "POST",
        url,
        data=urlencode(body).encode("ascii"),
        headers={"Accept": "application/json", "Content-Type": FORM_CONTENT_TYPE, "Referer": sentenzeweb_url + "/"},
        not_found_statuses=(),
        what="SentenzeWeb",
    )
    return resp.body, resp.content_type
