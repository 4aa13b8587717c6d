from connect_worker.runtime.properties import parse_properties


def test_java_properties_syntax() -> None:
    text = "\n".join(
        [
            "# comment",
            "! also a comment",
            "bootstrap.servers=127.0.0.1:9092",
            "key.converter : org.apache.kafka.connect.json.JsonConverter",
            "spaced   value with spaces  ",
            "multi=a,\\",
            "      b,\\",
            "      c",
            "escaped\\=key=x\\ty",
            "unicode=caf\\u00e9",
            "empty=",
            "bootstrap.servers=override:9092",
        ]
    )
    props = parse_properties(text)
    assert props == {
        "bootstrap.servers": "override:9092",
        "key.converter": "org.apache.kafka.connect.json.JsonConverter",
        "spaced": "value with spaces  ",
        "multi": "a,b,c",
        "escaped=key": "x\ty",
        "unicode": "café",
        "empty": "",
    }


def test_even_backslashes_do_not_continue() -> None:
    assert parse_properties("a=x\\\\\nb=y") == {"a": "x\\", "b": "y"}
