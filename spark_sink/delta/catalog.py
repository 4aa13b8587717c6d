"""Named tables: with `database` set, each table the job writes is also registered as
`<catalog>.<database>.<table>`, an external table `USING delta LOCATION '<its path>'`. The path stays the table:
the job's MERGEs, ledgers and dead letters keep working on paths, and the name is a second way in for readers.

A name already taken by a table at another location, or by one that is not Delta, is refused before the batch
writes (IncompatibleTableError: the table's events go to the dead letter, or stop a fail_fast job), never
overwritten. What is registered, or found registered at the right place, is remembered for the job run, so a
batch costs no catalog call for it; the database is created if missing (`CREATE DATABASE IF NOT EXISTS`, its folder
`<warehouse>/_catalog/<database>.db`).
"""

from __future__ import annotations

import logging
from typing import Any

from pyspark.sql import SparkSession

from spark_sink.config import SinkConfig, join_path
from spark_sink.delta.tables import IncompatibleTableError, q, sql_string

log = logging.getLogger("spark_sink")


class CatalogNames:
    def __init__(self, spark: SparkSession, config: SinkConfig) -> None:
        self.spark = spark
        self.config = config
        self._registered: set[str] = set()  # tables whose name is known to point at their path, this job run
        self._database_ready = False

    def name(self, table: str) -> str:
        parts = self.config.qualified_name(table)
        if parts is None:
            raise ValueError("no database configured")
        return ".".join(q(p) for p in parts)

    def check(self, table: str, path: str) -> None:
        """Before the batch writes: IncompatibleTableError when the name is taken by another table."""
        if table in self._registered:
            return
        found = self._described(table)
        if found is None:
            return
        provider, location = found
        name = self.name(table)
        if provider.lower() != "delta":
            raise IncompatibleTableError(
                f"catalog table {name} exists and is not a Delta table (provider {provider}): drop it or choose "
                "another database or table name"
            )
        if self._qualified(location) != self._qualified(path):
            raise IncompatibleTableError(
                f"catalog table {name} exists at {location}, not at the table's path {path}: drop it or choose "
                "another database or table name"
            )
        self._registered.add(table)

    def register(self, table: str, path: str) -> None:
        """After the batch wrote the table at `path`: register its name (once per job run)."""
        if table in self._registered:
            return
        self.check(table, path)
        if table in self._registered:
            return
        self._ensure_database()
        name = self.name(table)
        self.spark.sql(f"CREATE TABLE IF NOT EXISTS {name} USING delta LOCATION {sql_string(path)}")
        self.check(table, path)  # another writer could have taken the name in between
        self._registered.add(table)
        log.info("table %s: registered as %s (location %s)", table, name, path)

    def _ensure_database(self) -> None:
        if self._database_ready:
            return
        catalog, database, _ = self.config.qualified_name("") or ("", "", "")
        location = join_path(self.config.warehouse, "_catalog", f"{database}.db")
        self.spark.sql(f"CREATE DATABASE IF NOT EXISTS {q(catalog)}.{q(database)} LOCATION {sql_string(location)}")
        self._database_ready = True

    def _described(self, table: str) -> tuple[str, str] | None:
        """(provider, location) of the named table, None when there is none."""
        name = self.name(table)
        if not self.spark.catalog.tableExists(name):
            return None
        rows = self.spark.sql(f"DESCRIBE TABLE EXTENDED {name}").collect()
        info = {str(r["col_name"]).strip(): str(r["data_type"] or "").strip() for r in rows}
        return info.get("Provider") or info.get("Type") or "unknown", info.get("Location", "")

    def _qualified(self, location: str) -> str:
        """A location as Hadoop qualifies it (`/wh/t` → `file:/wh/t`), so the catalog's and ours compare."""
        context: Any = self.spark.sparkContext
        path = context._jvm.org.apache.hadoop.fs.Path(location)
        fs = path.getFileSystem(context._jsc.hadoopConfiguration())
        return str(fs.makeQualified(path).toString()).rstrip("/")
