"""The Vitess connector: Debezium's io.debezium.connector.vitess.VitessConnector (2.7 generation), a gRPC
client of VTGate's VStream API (spec vitess.md)."""
