"""Exit 0 when the Kafka broker at argv[1] answers a metadata request, 1 otherwise."""

import sys

from confluent_kafka.admin import AdminClient


def main() -> int:
    admin = AdminClient({"bootstrap.servers": sys.argv[1], "socket.timeout.ms": 2000})
    try:
        metadata = admin.list_topics(timeout=3)
    except Exception:  # noqa: BLE001 - any failure means "not ready yet"
        return 1
    return 0 if metadata.brokers else 1


if __name__ == "__main__":
    sys.exit(main())
