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
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

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
