"""Which extra of the distribution (``pip install 'lakesink[s3]'``) brings an optional library.

The core install (CLI, KCQL, validation, explain, convert) is pure Python; Spark, Arrow, the Kafka
client, cloud SDKs and table formats come with extras, so an import can fail in a working install.
:func:`needs_extra` (around an import) and :func:`missing_extra` (the CLI's last resort) turn that into
one :class:`MissingExtraError` line; a module no extra provides is a bug and stays a traceback.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from lakesink.domain.errors import MissingExtraError

# Top-level module → the smallest extra that installs it (pyproject.toml [project.optional-dependencies]).
EXTRA_OF_MODULE = {
    **dict.fromkeys(
        ["pyspark", "py4j", "pyarrow", "pandas", "numpy", "fastavro", "cramjam", "backports",
         "confluent_kafka", "polars", "prometheus_client",
         # confluent-kafka[schemaregistry]: the Schema Registry client's own dependencies
         "authlib", "httpx", "httpx2", "cachetools", "attr", "attrs", "certifi"],
        "spark",
    ),
    "boto3": "s3",
    "botocore": "s3",
    "google": "gcs",
    "azure": "azure",
    "pyiceberg": "iceberg",
    "deltalake": "delta",
    "moto": "demo",
}


def missing_extra(error: ModuleNotFoundError) -> MissingExtraError | None:
    """The extra that installs the module ``error`` misses, or None when no extra does (a bug)."""
    top = (error.name or "").partition(".")[0]
    extra = EXTRA_OF_MODULE.get(top)
    return MissingExtraError(extra, top) if extra else None


@contextmanager
def needs_extra(extra: str) -> Iterator[None]:
    """Imports in the block that miss an optional library raise :class:`MissingExtraError` for
    ``extra``: the feature's own extra (``s3`` for the S3 store, even when it is pyarrow that is
    missing), since installing it brings everything the feature needs."""
    try:
        yield
    except ModuleNotFoundError as error:
        missing = missing_extra(error)
        if missing is None:
            raise
        raise MissingExtraError(extra, missing.module) from error
