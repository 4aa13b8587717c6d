"""The distributed micro-batch: records are decoded on the executors into one fixed-shape row each (`decode`), the
driver plans from small aggregates of those rows (`summary`), and each table's changes are reduced and parsed back
into typed columns by Spark SQL on the executors (`reduce`). Only plans and commits run on the driver."""
