"""Built-in Single Message Transforms and predicates: Apache Kafka's (org.apache.kafka.connect.transforms.*)
and Debezium's (io.debezium.transforms.*), each a small pure class in its own module, plus the chain that
applies a connector's configured transforms. `builtins` lists them all by Java class name.
"""
