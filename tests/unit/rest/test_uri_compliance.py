"""Jetty's URI checks as Connect 4.3.1 (Jetty 12.0.34) answered them, path by path (measured in
tests/differential/rest_lifecycle.py and by probing the real worker)."""

from __future__ import annotations

import pytest

from rest.uri_compliance import BadMessage, error_page, violations, without_parameters

MEASURED = [
    ("/connectors/a%2Fb/status", "Ambiguous URI path separator"),
    ("/connectors/a%2fb", "Ambiguous URI path separator"),
    ("/connectors/a%2F", "Ambiguous URI path separator"),
    ("/connectors/%2E%2E%2Fx", "Ambiguous URI path separator"),
    ("/connectors/a%5Cb/status", "Suspicious Path Character"),
    ("/connectors/a%7Fb/status", "Suspicious Path Character"),
    ("/connectors/a%01b/status", "Suspicious Path Character"),
    ("/connectors/a\\b/status", "Suspicious Path Character, Illegal Path Character"),
    ("/connectors/a%2Fb%5Cc", "Ambiguous URI path separator, Suspicious Path Character"),
    ("/connectors/%2E%2E/status", "Ambiguous URI path segment"),
    ("/connectors/%2e/status", "Ambiguous URI path segment"),
    ("/connectors/.%2E/status", "Ambiguous URI path segment"),
    ("//connectors", "Ambiguous URI empty segment"),
    ("/connectors//status", "Ambiguous URI empty segment"),
    ("/connectors/a//", "Ambiguous URI empty segment"),
    ("/connector-plugins//", "Ambiguous URI empty segment"),
    ("/connectors/..;/status", "Ambiguous URI path parameter"),
    ("/connectors/a%25b/status", "Ambiguous URI path encoding"),
    ("/connectors/a%u0041b/status", "UTF-16 encoding"),
    ("/connectors/a%C3b/status", "Bad UTF-8 encoding"),
]
ACCEPTED = [
    "/",
    "/connectors",
    "/connectors/a/",
    "/connectors/./",
    "/connectors/../connectors",  # raw dot segments pass (Jersey then finds no resource)
    "/connectors/a/../b/status",
    "/connectors/.hidden/status",
    "/connectors/a./status",
    "/connectors/a;b;c/status",
    "/connectors;x",
    "/connectors/a%3Bb/status",
    "/connectors/caf%C3%A9/status",
    "/connectors/a%20b/status",
]


@pytest.mark.parametrize(("path", "message"), MEASURED)
def test_refused_paths_name_jettys_violations(path: str, message: str) -> None:
    assert ", ".join(violations(path)) == message


@pytest.mark.parametrize("path", ACCEPTED)
def test_accepted_paths(path: str) -> None:
    assert violations(path) == []


@pytest.mark.parametrize("path", ["/connectors/a%2/status", "/connectors/a%zzb/status", "/connectors/a%00b/status"])
def test_unparsable_paths_are_a_bad_message(path: str) -> None:
    with pytest.raises(BadMessage):
        violations(path)


def test_parameters_are_dropped_per_segment() -> None:
    assert without_parameters("/connectors/a;b;c/status") == "/connectors/a/status"
    assert without_parameters("/connectors;x") == "/connectors"
    assert without_parameters("/connectors/a%3Bb/status") == "/connectors/a%3Bb/status"


def test_the_error_page_is_jettys() -> None:
    page = error_page("Ambiguous URI path separator", "/badURI").decode("iso-8859-1")
    assert page.startswith('<html>\n<head>\n<meta http-equiv="Content-Type" content="text/html;charset=ISO-8859-1"/>\n')
    assert "<h2>HTTP ERROR 400 Ambiguous URI path separator</h2>\n" in page
    assert page.endswith("Powered by Jetty:// 12.0.34</a><hr/>\n\n</body>\n</html>\n")
