"""Debezium's SMTs (io.debezium.transforms.*) that operate on the change-event envelope."""
