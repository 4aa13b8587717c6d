from connect_worker.kafka.producer import SOURCE_PRODUCER_DEFAULTS, librdkafka_config


def test_java_producer_keys_become_librdkafkas() -> None:
    assert librdkafka_config(
        {
            "buffer.memory": "33554432",
            "delivery.timeout.ms": str(2**31 - 1),
            "max.in.flight.requests.per.connection": "1",
            "key.serializer": "org.apache.kafka.common.serialization.ByteArraySerializer",
            "linger.ms": "10",
        }
    ) == {"queue.buffering.max.kbytes": 32768, "message.timeout.ms": 0, "max.in.flight": "1", "linger.ms": "10"}
    assert librdkafka_config({"buffer.memory": "1000"}) == {"queue.buffering.max.kbytes": 1}


def test_the_source_producer_buffers_what_a_java_one_does() -> None:
    """Kafka Connect's producer keeps buffer.memory's default, 32 MB of unsent records."""
    assert SOURCE_PRODUCER_DEFAULTS["queue.buffering.max.kbytes"] * 1024 == 33554432
