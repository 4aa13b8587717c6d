"""The table side: table checks and schema evolution, the guarded MERGE, SCD2 history, keyless tables (SQL on a
table's SQL name, for Delta and Iceberg tables alike), and the sink's Delta bookkeeping tables (delete ledgers,
watermarks, transaction state, dead letters, published cuts). Delta's own format: format.py."""
