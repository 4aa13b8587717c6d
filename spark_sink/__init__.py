"""The Spark sink: Debezium change-event topics → Delta Lake tables (Structured Streaming + foreachBatch MERGE).

A top-level package that imports nothing else of the project (an import-linter contract keeps it so). Everything
that can be pure is pure and free of pyspark: decoding (`decoding/`), the Connect → sink type mapping (`types/`),
source positions (`position`), per-batch planning (`planning`). The Spark-facing layer is `spark_types`, `delta/`,
`batch` and `job`; `__main__` is the CLI (also the spark-submit entry file).
"""

__all__ = ["__version__"]
__version__ = "0.1.0"
