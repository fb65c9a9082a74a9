"""The connector configs lakesink runs besides its own (Lenses'), each a vertical slice: Confluent's
and Aiven's S3 sinks (:mod:`.confluent`, :mod:`.aiven`) and Quix's FileSink layout (:mod:`.quix`).
:mod:`.registry` finds a Kafka Connect dialect by ``connector.class``; what the sink and the restore
ask of any dialect is in :mod:`.writing` and :mod:`.stored_layout`; what the Kafka Connect dialects
share lives in :mod:`.kafka_connect`. docs/architecture.md says how a new dialect is added."""
