"""The YugabyteDB connector: Debezium's PostgreSQL connector as YugabyteDB's fork (Debezium 2.5.2) shapes it."""
