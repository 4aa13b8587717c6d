"""Protobuf definitions and the Python modules generated from them by scripts/gen_protos.sh."""
