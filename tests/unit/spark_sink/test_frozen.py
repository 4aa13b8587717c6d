"""The decoders' cache keys hash once (spark_sink/frozen.py) and still behave as the generated dataclass hash."""

from __future__ import annotations

import pickle
import subprocess
import sys
from pathlib import Path

from spark_sink.connect_schema import ConnectField, ConnectSchema
from spark_sink.decoding.base import RowSchema
from spark_sink.types.model import Primitive


def _schema(column: str) -> ConnectSchema:
    return ConnectSchema("struct", name="t.Value", fields=(ConnectField(column, ConnectSchema("int32")),))


def test_equal_schemas_hash_alike_and_key_one_entry() -> None:
    a, b, other = _schema("x"), _schema("x"), _schema("y")
    assert a == b and hash(a) == hash(b)
    assert a != other
    cache = {a: "codec"}
    assert cache.get(b) == "codec" and cache.get(other) is None
    rows = {RowSchema((("x", Primitive("int")),), "t"): 1}
    assert rows.get(RowSchema((("x", Primitive("int")),), "t")) == 1
    assert rows.get(RowSchema((("x", Primitive("long")),), "t")) is None


def test_the_hash_is_computed_once() -> None:
    a = _schema("x")
    first = hash(a)
    object.__setattr__(a, "fields", ())  # (never done for real: shows the second hash is the cached one)
    assert hash(a) == first


def test_a_value_pickled_into_another_process_hashes_as_one_built_there() -> None:
    """String hashes differ between processes: a cached hash carried along by pickling must not be used there."""
    a = _schema("x")
    hash(a)
    code = (
        "import pickle, sys\n"
        "from spark_sink.connect_schema import ConnectField, ConnectSchema\n"
        "a = pickle.loads(sys.stdin.buffer.read())\n"
        "b = ConnectSchema('struct', name='t.Value', fields=(ConnectField('x', ConnectSchema('int32')),))\n"
        "print(hash(a) == hash(b), {b: 1}.get(a))\n"
    )
    env = {"PYTHONHASHSEED": "random", "PYTHONPATH": str(Path(__file__).resolve().parents[3])}
    done = subprocess.run(
        [sys.executable, "-c", code], input=pickle.dumps(a), capture_output=True, timeout=60, env=env, check=True
    )
    assert done.stdout.decode().split() == ["True", "1"]
