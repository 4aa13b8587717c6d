"""The Apache Iceberg side: the table format (catalog, creation, evolution by ALTER TABLE, snapshots)."""
