"""Print the records of a topic as they arrive (for `make run`): python show_topic.py BOOTSTRAP TOPIC N."""

import sys
import uuid

from confluent_kafka import Consumer


def main() -> int:
    bootstrap, topic, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    consumer = Consumer(
        {"bootstrap.servers": bootstrap, "group.id": f"show-{uuid.uuid4()}", "auto.offset.reset": "earliest"}
    )
    consumer.subscribe([topic])
    seen = 0
    try:
        for _ in range(600):
            msg = consumer.poll(0.1)
            if msg is None or msg.error() is not None:
                continue
            value = msg.value()
            text = value.decode() if value else "null"
            if len(text) > 400:  # the schema part of a JsonConverter envelope is long: show the payload
                text = text[text.find('"payload"') :][:400] + " …"
            print(f"  {topic}[{msg.partition()}]@{msg.offset()}: {text}")
            seen += 1
            if seen >= count:
                break
    finally:
        consumer.close()
    return 0 if seen >= count else 1


if __name__ == "__main__":
    sys.exit(main())
