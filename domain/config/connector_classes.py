"""The ``connector.class`` values lakesink runs, and the refusal of any other.

Why: Kafka Connect refuses a connector class it has no plugin for; lakesink used to fall through
to the Lenses dialect and run a config written for another connector (a JDBC sink, an HDFS sink)
with Lenses defaults. Each dialect module keeps its own class constant from here, so the list
in the error is the list the dispatch uses.
"""

from __future__ import annotations

from collections.abc import Mapping

from lakesink.domain.errors import ConfigError

CONFLUENT_S3_SINK = "io.confluent.connect.s3.S3SinkConnector"
AIVEN_S3_SINK = "io.aiven.kafka.connect.s3.AivenKafkaConnectS3SinkConnector"
AIVEN_S3_SOURCE = "io.aiven.kafka.connect.s3.source.S3SourceConnector"
#: Lenses stream-reactor classes → (backend, role); matched by their simple name, as older
#: stream-reactor releases used other packages.
LENSES_CLASSES: dict[str, tuple[str, str]] = {
    "io.lenses.streamreactor.connect.aws.s3.sink.S3SinkConnector": ("s3", "sink"),
    "io.lenses.streamreactor.connect.aws.s3.source.S3SourceConnector": ("s3", "source"),
    "io.lenses.streamreactor.connect.gcp.storage.sink.GCPStorageSinkConnector": ("gcs", "sink"),
    "io.lenses.streamreactor.connect.gcp.storage.source.GCPStorageSourceConnector": ("gcs", "source"),
    "io.lenses.streamreactor.connect.datalake.sink.DatalakeSinkConnector": ("azure", "sink"),
}
#: Simple names of Lenses connector classes → (backend, role).
LENSES_SIMPLE_NAMES = {name.rsplit(".", 1)[-1]: target for name, target in LENSES_CLASSES.items()}


def lenses_target(class_name: str) -> tuple[str, str] | None:
    """(backend, role) a Lenses connector class names, by its simple name; None for any other class."""
    return LENSES_SIMPLE_NAMES.get(class_name.strip().rsplit(".", 1)[-1])


def check_connector_class(props: Mapping[str, str]) -> None:
    """Refuse a ``connector.class`` that is none of the connectors lakesink runs (unset is fine).

    Raises:
        ConfigError: one line naming the class and the known ones.
    """
    class_name = props.get("connector.class", "").strip()
    if not class_name or class_name in (CONFLUENT_S3_SINK, AIVEN_S3_SINK) or lenses_target(class_name):
        return
    known = ", ".join([*LENSES_CLASSES, CONFLUENT_S3_SINK, AIVEN_S3_SINK, AIVEN_S3_SOURCE])
    raise ConfigError(f"Unknown connector.class {class_name!r}: lakesink runs {known}.")
