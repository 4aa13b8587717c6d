"""Test resource names (tests/names.py): each recorded, so the session's topics can be found and deleted."""

from __future__ import annotations

from tests import names


def test_a_name_is_its_prefix_and_random_hex() -> None:
    a, b = names.unique("dist-", 8), names.unique("dist-", 8)
    assert a != b
    assert a.startswith("dist-") and len(a) == len("dist-") + 8
    int(a.removeprefix("dist-"), 16)


def test_the_session_topics_are_those_its_names_made() -> None:
    name = names.unique("t", 12)
    bare = names.unique("", 10)  # one random part shared by several names (tests/differential/dual.py)
    topics = [
        f"{name}-offsets",
        f"{name}.public.customers",
        f"j{name}.{name}.types",
        f"cw{bare}.public.t_numbers",
        f"dz{bare}.transaction",
        "t0123456789ab.public.customers",  # another session's
        "dbserver1.public.customers",
        "__consumer_offsets",
    ]
    assert names.session_topics(topics) == sorted(topics[:5])
