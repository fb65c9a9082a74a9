"""The connector configs lakesink runs besides its own (Lenses'): the Kafka Connect sinks users move
from. What the Kafka Connect dialects share lives in :mod:`.kafka_connect`."""
