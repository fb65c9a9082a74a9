"""Names vulture (``make lint``) reports as unused that are used where it cannot see.

vulture reads each line below as a use of the name; the comment says who really uses it. Keep
the list short: dead code is deleted, not listed here. Never imported (it would load Spark).
"""

from lakesink.adapters.dialects.aiven.compression import _Plain
from lakesink.adapters.formats.avro import _Block
from lakesink.adapters.kafka.source import KafkaDataSource, KafkaStreamReader
from lakesink.adapters.storage.azure_blob import AzureBlobObjectStore
from lakesink.adapters.storage.gcs import GcsObjectStore
from lakesink.adapters.storage.local import LocalObjectStore
from lakesink.adapters.storage.memory import InMemoryObjectStore
from lakesink.adapters.storage.s3 import S3ObjectStore
from lakesink.adapters.tables.file_io import LakesinkFileIO
from lakesink.domain.dialects.aiven.naming import AivenFormat
from lakesink.domain.dialects.confluent.schemas import SchemaCompatibility
from lakesink.domain.flush.schema_change import SchemaChangeDetector
from lakesink.domain.tables.target import CatalogType, TableFormat

# fastavro's Writer.write_block reads these two attributes of the block it is handed.
_Block.num_records
_Block.bytes_

# Spark's Python data source API calls these (DataSource, DataSourceStreamReader,
# SupportsTriggerAvailableNow) once spark.readStream.format("lakesink-kafka") is used.
KafkaDataSource.streamReader
KafkaStreamReader.initialOffset
KafkaStreamReader.getDefaultReadLimit
KafkaStreamReader.prepareForTriggerAvailableNow
KafkaStreamReader.latestOffset

# Imported by their "module:Class" string from the storage registry (adapters/storage/__init__.py).
AzureBlobObjectStore
GcsObjectStore
LocalObjectStore
InMemoryObjectStore
S3ObjectStore

# Chosen by value from schema.change.detector (SchemaChangeDetector.parse); the last branch of
# schema_changed.
SchemaChangeDetector.COMPATIBILITY

# schema.compatibility values, looked up by name from the config (SchemaCompatibility(text)).
SchemaCompatibility.BACKWARD
SchemaCompatibility.FULL

# format.output.type values, looked up by value from the config (AivenFormat(text)).
AivenFormat.JSONL

# Called by fastavro's Writer on the compressed stream an Aiven avro file is written through
# (adapters/dialects/aiven/compression.py): it must answer False, or fastavro tries to append.
_Plain.seekable

# Chosen by value from the KCQL ('table.format') and the settings (table.catalog.type): TableFormat(raw),
# CatalogType(raw); the adapters test the other members.
TableFormat.DELTA
CatalogType.GLUE

# pyiceberg's PyArrowFileIO calls these for gs:// locations and s3:// (adapters/tables/file_io.py overrides them).
LakesinkFileIO._initialize_gcs_fs
LakesinkFileIO._initialize_s3_fs
