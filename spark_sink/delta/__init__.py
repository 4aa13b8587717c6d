"""The Delta Lake side: table creation and schema evolution, the guarded MERGE, SCD2 history, dead letters."""
