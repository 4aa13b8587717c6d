"""Pure decoders of the PostgreSQL replication protocol: CopyBoth framing, pgoutput, decoderbufs."""
