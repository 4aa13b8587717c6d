"""Chunk planning of the parallel snapshot (connectors/postgres/snapshot_chunks.py), without a database."""

from __future__ import annotations

import itertools

import pytest
from psycopg import sql

from connectors.postgres.snapshot_chunks import MIN_BLOCKS_PER_CHUNK, chunk_bounds, chunk_statement


@pytest.mark.parametrize("blocks", [0, 1, MIN_BLOCKS_PER_CHUNK - 1, MIN_BLOCKS_PER_CHUNK, 100, 1_000_003])
@pytest.mark.parametrize("pieces", [1, 2, 3, 6, 64])
def test_ranges_cover_every_block_once_in_order(blocks: int, pieces: int) -> None:
    bounds = chunk_bounds(blocks, pieces)
    assert 1 <= len(bounds) <= pieces
    assert bounds[0][0] is None and bounds[-1][1] is None  # open at both ends: no block can fall outside
    for (_, high), (low, _) in itertools.pairwise(bounds):
        assert high == low  # adjacent: no gap, no overlap
    cuts = [low for low, _ in bounds[1:] if low is not None]
    assert len(cuts) == len(bounds) - 1
    assert cuts == sorted(set(cuts)) and all(0 < c < blocks for c in cuts)
    sizes = [b - a for a, b in zip([0, *cuts], [*cuts, blocks], strict=True)]
    assert min(sizes) >= MIN_BLOCKS_PER_CHUNK or len(bounds) == 1
    assert max(sizes) - min(sizes) <= 1  # even ranges


def test_small_tables_are_read_whole() -> None:
    assert chunk_bounds(2 * MIN_BLOCKS_PER_CHUNK - 1, 8) == [(None, None)]
    assert len(chunk_bounds(2 * MIN_BLOCKS_PER_CHUNK, 8)) == 2


def test_statements_bound_the_ctid() -> None:
    select = sql.SQL("SELECT a FROM t")

    def text(low: int | None, high: int | None) -> str:
        return chunk_statement(select, low, high).as_string(None)

    assert text(None, None) == "SELECT a FROM t"
    assert text(None, 16) == "SELECT a FROM t WHERE ctid < '(16,0)'::tid"
    assert text(16, 32) == "SELECT a FROM t WHERE ctid >= '(16,0)'::tid AND ctid < '(32,0)'::tid"
    assert text(32, None) == "SELECT a FROM t WHERE ctid >= '(32,0)'::tid"
