"""Side-by-side benchmarks: pg_recvlogical (the ceiling), this worker and Debezium 3.6.3 on Kafka Connect 4.3.1.

`python -m benchmarks run` (size from BENCH_SIZE=smoke|small|full); results under benchmarks/results/<size>/.
Bench-only dependency: matplotlib (for the PNG chart; skipped with a warning when it is not installed).
"""
