"""No credential ever shows: every secret setting, every command, every place a run writes text.

Each credential setting the configs accept carries a distinctive value (``S3CRET-…``): S3 access and
secret key, the SASL password (as ``sasl.jaas.config`` and as ``sasl.password``), the Schema
Registry's ``basic.auth.user.info`` (and a password in its URL), an Azure account key, connection string and SAS token, a GCS
service-account JSON key. The real CLI then runs as child processes at ``--log-level DEBUG``:

* ``lakesink sink --once`` (moto S3, the embedded broker, Avro values through a registry with basic
  auth) with Spark's event log on (its environment event lists the whole SparkConf);
* ``lakesink restore --once`` of what it wrote, with the same Spark settings, serving its metrics;
* ``lakesink verify`` (text, and JSON serving its metrics) and ``lakesink status`` (text and JSON) of
  that bucket, ``lakesink kcql explain`` (text and JSON), ``lakesink config convert`` (secrets
  written as references, and written literally: printed as ``${env:…}`` references) and
  ``lakesink config validate`` (text, JSON with ``--connect``, and a config whose invalid values are
  secrets);
* failing runs: a wrong bucket (sink and verify), an unreachable broker, Azure and GCS stores that do not answer, and a
  continuous sink whose registry refuses the password in its URL, so its first batch's tasks fail
  (their stage, its RDD and the failure reach the event log).

Every byte of stdout, stderr (the logs: lakesink's, the SDKs', librdkafka's and Spark's log4j), the
event logs (plans, task failures, the environment: every conf entry) and the checkpoint must be free
of every secret, also inside every base64 run. One module-scoped set of runs serves all the checks (about a minute: three Spark runs).
"""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from lakesink.adapters.demo.s3 import MotoS3
from lakesink.adapters.kafka.embedded_broker import EmbeddedKafka, ProducedRecord
from tests.conftest import unique_name
from tests.integration.restore.conftest import read_topic
from tests.support.schema_registry_double import SchemaRegistryDouble, confluent_avro

pytestmark = [pytest.mark.integration, pytest.mark.slow]

# No value holds "secret", "password", "token" or "access.key": Spark's redaction regex matches values
# too and would mask such a value by luck, hiding a leak of the same setting in real use.
S3_ACCESS_KEY = "AKIAS3CRETACCESS7F3A91"
S3_SECRET_KEY = "S3CRET-aws-skey-7f3a91c2d4"
SASL_JAAS_PASSWORD = "S3CRET-sasl-jaas-5e1b77"
SASL_PASSWORD = "S3CRET-sasl-pw-0c42"
REGISTRY_PASSWORD = "S3CRET-registry-pass-90ad"
# in the registry URL (basic.auth.credentials.source=URL); no "secret"/"password" in it, so nothing
# masks it by luck (Spark's redaction regex also matches values)
REGISTRY_URL_PASSWORD = "URLPW-registry-wrong-13f0"
AZURE_ACCOUNT_KEY = base64.b64encode(b"S3CRET-azure-account-key-3c9e".ljust(64, b"!")).decode()
AZURE_CONNECTION_KEY = base64.b64encode(b"S3CRET-azure-connection-key-77aa".ljust(64, b"!")).decode()
AZURE_SAS_SIGNATURE = "S3CRET-azure-sas-sig-8d01"
GCS_KEY_ID = "S3CRET-gcs-private-key-id-6b20"
ENV_SECRET = "S3CRET-from-environment-d2e5"

SCHEMA = {"type": "record", "name": "Order", "fields": [{"name": "id", "type": "int"}, {"name": "item", "type": "string"}]}
RECORDS = 40
BUCKET = "secrets-bucket"


def _gcs_private_key() -> str:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption()).decode()


GCS_PRIVATE_KEY = _gcs_private_key()
GCS_KEY_LINE = GCS_PRIVATE_KEY.splitlines()[5]  # a line of the key material itself


def _secrets() -> dict[str, str]:
    """Every secret, and the encodings it could leak in (an Authorization header, a JSON escape)."""
    plain = {
        "S3 access key": S3_ACCESS_KEY,
        "S3 secret key": S3_SECRET_KEY,
        "SASL password in sasl.jaas.config": SASL_JAAS_PASSWORD,
        "sasl.password": SASL_PASSWORD,
        "registry password": REGISTRY_PASSWORD,
        "registry password in its URL": REGISTRY_URL_PASSWORD,
        "Azure account key": AZURE_ACCOUNT_KEY,
        "Azure connection string key": AZURE_CONNECTION_KEY,
        "Azure SAS signature": AZURE_SAS_SIGNATURE,
        "GCS private key id": GCS_KEY_ID,
        "GCS private key": GCS_KEY_LINE,
        "value of an ${env:} reference": ENV_SECRET,
    }
    encoded = {
        "registry basic auth header": base64.b64encode(f"registry-user:{REGISTRY_PASSWORD}".encode()).decode(),
        "URL registry basic auth header": base64.b64encode(f"registry-user:{REGISTRY_URL_PASSWORD}".encode()).decode(),
    }
    return {**plain, **encoded}


SECRETS = _secrets()


@dataclass
class Runs:
    """Every run's exit code, and every artifact's bytes by name."""

    codes: dict[str, int] = field(default_factory=dict)
    artifacts: dict[str, bytes] = field(default_factory=dict)
    stderr: dict[str, str] = field(default_factory=dict)


def _spark_env(event_dir: Path) -> dict[str, str]:
    """Spark's event log, uncompressed so it can be searched, set the way a user sets Spark conf for
    ``lakesink``. Its environment event is Spark's dump of the conf: every Spark and system property."""
    submit = (f"--conf spark.eventLog.enabled=true --conf spark.eventLog.dir={event_dir.as_uri()} "
              "--conf spark.eventLog.compress=false pyspark-shell")
    return {"PYSPARK_SUBMIT_ARGS": submit}


def _cli(runs: Runs, name: str, args: list[str], *, env: Mapping[str, str] | None = None, timeout_s: float = 240) -> None:
    command = [sys.executable, "-m", "lakesink.application.cli", "--log-level", "DEBUG", *args]
    environment = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "LAKESINK_SECRET_REF": ENV_SECRET, **(env or {})}
    done = subprocess.run(command, capture_output=True, env=environment, timeout=timeout_s, check=False)
    runs.codes[name] = done.returncode
    runs.artifacts[f"{name}: stdout"] = done.stdout
    runs.artifacts[f"{name}: stderr"] = done.stderr
    runs.stderr[name] = done.stderr.decode(errors="replace")


def _write(directory: Path, name: str, props: Mapping[str, str]) -> str:
    path = directory / f"{name}.json"
    path.write_text(json.dumps(dict(props)))
    return str(path)


def _files_under(runs: Runs, label: str, root: Path) -> None:
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        runs.artifacts[f"{label}: {path.relative_to(root)}"] = path.read_bytes()


def _kafka_secrets(jaas: bool) -> dict[str, str]:
    """SASL credentials on a PLAINTEXT connection (the embedded broker has no SASL): librdkafka
    takes them and every client lakesink builds carries them, which is what must not leak."""
    if jaas:
        line = ('org.apache.kafka.common.security.plain.PlainLoginModule required '
                f'username="kafka-user" password="{SASL_JAAS_PASSWORD}";')
        return {"sasl.jaas.config": line}
    return {"sasl.username": "kafka-user", "sasl.password": SASL_PASSWORD}


def _s3(moto: MotoS3) -> dict[str, str]:
    return {**moto.connector_settings(), "connect.s3.aws.access.key": S3_ACCESS_KEY,
            "connect.s3.aws.secret.key": S3_SECRET_KEY, "connect.s3.http.max.retries": "1"}


def _registry(url: str, password: str) -> dict[str, str]:
    if password == REGISTRY_URL_PASSWORD:  # Confluent's other way: the credentials in the URL
        return {
            "value.converter": "io.confluent.connect.avro.AvroConverter",
            "value.converter.schema.registry.url": url.replace("http://", f"http://registry-user:{password}@"),
            "value.converter.basic.auth.credentials.source": "URL",
        }
    return {
        "value.converter": "io.confluent.connect.avro.AvroConverter",
        "value.converter.schema.registry.url": url,
        "value.converter.basic.auth.credentials.source": "USER_INFO",
        "value.converter.basic.auth.user.info": f"registry-user:{password}",
    }


def _sink_props(name: str, topic: str, kafka: EmbeddedKafka, moto: MotoS3, registry: str, password: str,
                bucket: str = BUCKET) -> dict[str, str]:
    return {
        "name": name,
        "topics": topic,
        "bootstrap.servers": kafka.bootstrap_servers,
        "connect.s3.kcql": f"INSERT INTO {bucket}:out SELECT * FROM {topic} STOREAS `JSON` PROPERTIES('flush.count'=10)",
        **_s3(moto),
        **_kafka_secrets(jaas=True),
        **_registry(registry, password),
    }


def _azure_props(name: str, topic: str, **auth: str) -> dict[str, str]:
    return {
        "name": name, "topics": topic, "bootstrap.servers": "127.0.0.1:1",
        "connect.datalake.kcql": f"INSERT INTO container:out SELECT * FROM {topic} STOREAS `JSON`",
        "connect.datalake.http.max.retries": "0", "connect.datalake.http.connection.timeout": "2000",
        **{f"connect.datalake.{key.replace('_', '.')}": value for key, value in auth.items()},
    }


def _gcs_props(name: str, topic: str) -> dict[str, str]:
    key = {
        "type": "service_account", "project_id": "lakesink-test", "private_key_id": GCS_KEY_ID,
        "private_key": GCS_PRIVATE_KEY, "client_email": "sink@lakesink-test.iam.gserviceaccount.com",
        "client_id": "1", "token_uri": "http://127.0.0.1:1/token",
    }
    return {
        "name": name, "topics": topic, "bootstrap.servers": "127.0.0.1:1",
        "connect.gcpstorage.kcql": f"INSERT INTO bucket:out SELECT * FROM {topic} STOREAS `JSON`",
        "connect.gcpstorage.gcp.auth.mode": "Credentials", "connect.gcpstorage.gcp.credentials": json.dumps(key),
        "connect.gcpstorage.gcp.project.id": "lakesink-test", "connect.gcpstorage.endpoint": "http://127.0.0.1:1",
        "connect.gcpstorage.http.max.retries": "0",
    }


def _confluent_props(topic: str, moto: MotoS3) -> dict[str, str]:
    return {
        "name": unique_name("confluent"),
        "connector.class": "io.confluent.connect.s3.S3SinkConnector",
        "topics": topic,
        "s3.bucket.name": BUCKET,
        "s3.region": "us-east-1",
        "store.url": moto.url,
        "format.class": "io.confluent.connect.s3.format.json.JsonFormat",
        "storage.class": "io.confluent.connect.s3.storage.S3Storage",
        "flush.size": "10",
        "bootstrap.servers": "127.0.0.1:9092",
        "config.providers": "env",
        "config.providers.env.class": "org.apache.kafka.common.config.provider.EnvVarConfigProvider",
        "aws.access.key.id": "${env:LAKESINK_SECRET_REF}",  # convert prints values as written:
        "aws.secret.access.key": "${env:LAKESINK_SECRET_REF}",  # a literal would be the output's own
    }


@pytest.fixture(scope="module")
def runs(kafka: EmbeddedKafka, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runs]:
    work = tmp_path_factory.mktemp("secrets")
    events, checkpoints = work / "events", work / "checkpoints"
    events.mkdir()
    runs = Runs()
    moto = MotoS3()
    moto.start()
    try:
        with SchemaRegistryDouble(user_info=f"registry-user:{REGISTRY_PASSWORD}") as registry:
            schema_id = registry.register(SCHEMA)
            topic = unique_name("secrets")
            kafka.produce(topic, [ProducedRecord(confluent_avro(schema_id, SCHEMA, {"id": i, "item": f"i{i}"}),
                                                 key=str(i).encode()) for i in range(RECORDS)])
            kafka.end_data_set(topic)
            moto.create_bucket(BUCKET)
            _run_everything(runs, work, events, checkpoints, kafka, moto, registry.url, topic)
    finally:
        moto.stop()
    _files_under(runs, "event log", events)
    _files_under(runs, "checkpoint", checkpoints)
    yield runs


def _run_everything(runs: Runs, work: Path, events: Path, checkpoints: Path, kafka: EmbeddedKafka, moto: MotoS3,
                    registry: str, topic: str) -> None:
    spark = _spark_env(events)
    sink = _write(work, "sink", _sink_props(unique_name("sink"), topic, kafka, moto, registry, REGISTRY_PASSWORD))
    _cli(runs, "sink", ["sink", "--once", "--master", "local[2]", "--config", sink,
                        "--checkpoint", str(checkpoints / "sink")], env=spark)

    restored = unique_name("restored")
    restore = _write(work, "restore", {
        "name": unique_name("restore"), "bootstrap.servers": kafka.bootstrap_servers,
        "connect.s3.kcql": f"INSERT INTO {restored} SELECT * FROM {BUCKET}:out STOREAS `JSON`",
        **_s3(moto), **_kafka_secrets(jaas=False),
    })

    # The runs below need only the sink's output: three at a time (each is a Python process, most start a JVM).
    jobs: list[tuple[str, list[str], Mapping[str, str] | None]] = [
        ("restore", ["restore", "--once", "--master", "local[2]", "--metrics-port", "0", "--config", restore], spark)
    ]
    kcql = json.loads(Path(sink).read_text())["connect.s3.kcql"]
    jobs.append(("verify", ["verify", "--config", sink], None))
    jobs.append(("verify --json", ["verify", "--json", "--metrics-port", "0", "--config", sink], None))
    jobs.append(("status", ["status", "--config", sink], None))
    jobs.append(("status --json", ["status", "--json", "--config", sink], None))
    jobs.append(("explain", ["kcql", "explain", kcql, "--config", sink], None))
    jobs.append(("explain --json", ["kcql", "explain", kcql, "--json", "--config", sink], None))
    confluent = _write(work, "confluent", _confluent_props(topic, moto))
    jobs.append(("config convert", ["config", "convert", confluent], None))
    literal = {**_confluent_props(topic, moto), "aws.access.key.id": S3_ACCESS_KEY, "aws.secret.access.key": S3_SECRET_KEY,
               "value.converter": "io.confluent.connect.avro.AvroConverter", "value.converter.schema.registry.url": registry,
               "value.converter.basic.auth.credentials.source": "USER_INFO",
               "value.converter.basic.auth.user.info": f"registry-user:{REGISTRY_PASSWORD}"}
    jobs.append(("config convert literal secrets", ["config", "convert", _write(work, "confluent-literal", literal)], None))
    jobs.append(("config validate", ["config", "validate", sink], None))
    jobs.append(("config validate --json --connect", ["config", "validate", "--json", "--connect", sink], None))
    jobs.append(("config validate invalid", ["config", "validate", _write(work, "invalid", {
        **_sink_props(unique_name("sink"), topic, kafka, moto, registry, REGISTRY_PASSWORD),
        "connect.s3.compression.codec": S3_SECRET_KEY})], None))
    jobs.append(("explain confluent", ["kcql", "explain", "--config", confluent], None))

    wrong_bucket = _sink_props(unique_name("sink"), topic, kafka, moto, registry, REGISTRY_PASSWORD, bucket="no-such-bucket")
    jobs.append(("wrong bucket", ["sink", "--once", "--config", _write(work, "wrong-bucket", wrong_bucket)], None))
    jobs.append(("verify wrong bucket", ["verify", "--config", str(work / "wrong-bucket.json")], None))
    jobs.append(("config validate --connect wrong bucket",
                 ["config", "validate", "--json", "--connect", str(work / "wrong-bucket.json")], None))
    no_broker = {**_sink_props(unique_name("sink"), topic, kafka, moto, registry, REGISTRY_PASSWORD),
                 "bootstrap.servers": "127.0.0.1:1"}
    jobs.append(("no broker", ["sink", "--once", "--config", _write(work, "no-broker", no_broker)], None))
    azure_key = _azure_props(unique_name("az"), topic, azure_auth_mode="Credentials",
                             azure_account_name="devstoreaccount1", azure_account_key=AZURE_ACCOUNT_KEY,
                             endpoint="http://127.0.0.1:1/devstoreaccount1")
    jobs.append(("azure account key", ["sink", "--once", "--config", _write(work, "azure-key", azure_key)], None))
    connection = (f"DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey={AZURE_CONNECTION_KEY};"
                  "BlobEndpoint=http://127.0.0.1:1/devstoreaccount1;")
    azure_connection = _azure_props(unique_name("az"), topic, azure_auth_mode="ConnectionString",
                                    azure_connection_string=connection)
    jobs.append(("azure connection string", ["sink", "--once", "--config", _write(work, "azure-cs", azure_connection)], None))
    sas = ("BlobEndpoint=http://127.0.0.1:1/devstoreaccount1;SharedAccessSignature=sv=2021-08-06&ss=b&srt=sco"
           f"&sp=rwdlac&se=2030-01-01T00:00:00Z&sig={AZURE_SAS_SIGNATURE}")
    azure_sas = _azure_props(unique_name("az"), topic, azure_auth_mode="ConnectionString", azure_connection_string=sas)
    jobs.append(("azure SAS", ["sink", "--once", "--config", _write(work, "azure-sas", azure_sas)], None))
    jobs.append(("gcs JSON key", ["sink", "--once", "--config", _write(work, "gcs", _gcs_props(unique_name("gcs"), topic))], None))

    # continuous: its first batch's write job and the tasks' failure reach the event log
    refused = _write(work, "refused", _sink_props(unique_name("sink"), topic, kafka, moto, registry, REGISTRY_URL_PASSWORD))
    jobs.append(("registry refuses", ["sink", "--quiet", "--master", "local[2]", "--config", refused,
                                      "--checkpoint", str(checkpoints / "refused")], spark))
    with ThreadPoolExecutor(max_workers=3) as pool:
        list(pool.map(lambda job: _cli(runs, job[0], job[1], env=job[2]), jobs))
    runs.codes["restored records"] = len(read_topic(kafka.bootstrap_servers, restored, expected=RECORDS))


def test_the_runs_did_what_the_checks_rely_on(runs: Runs) -> None:
    """The secrets were used: the sink and restore worked, every failing run failed as expected."""
    assert runs.codes["sink"] == 0, runs.stderr["sink"][-3000:]
    assert runs.codes["restore"] == 0, runs.stderr["restore"][-3000:]
    assert runs.codes["restored records"] == RECORDS
    for name in ("verify", "verify --json", "status", "status --json", "explain", "explain --json", "config convert",
                 "explain confluent", "config convert literal secrets", "config validate",
                 "config validate --json --connect"):
        assert runs.codes[name] == 0, runs.stderr[name][-2000:]
    assert json.loads(runs.artifacts["config validate --json --connect: stdout"])["connect_checked"] is True
    assert runs.codes["config validate invalid"] == 2
    wrong_bucket = json.loads(runs.artifacts["config validate --connect wrong bucket: stdout"])
    assert runs.codes["config validate --connect wrong bucket"] == 2 and not wrong_bucket["connect_checked"]
    assert "no-such-bucket" in wrong_bucket["problems"][0], wrong_bucket
    assert "connect.s3.aws.secret.key=${env:LAKESINK_CONNECT_S3_AWS_SECRET_KEY}" in runs.artifacts["config convert literal secrets: stdout"].decode()
    for name in ("wrong bucket", "verify wrong bucket", "no broker", "azure account key", "azure connection string", "azure SAS",
                 "gcs JSON key", "registry refuses"):
        assert runs.codes[name] != 0, name
        assert "lakesink: error:" in runs.stderr[name], runs.stderr[name][-2000:]
    # progress lines by default (stderr: part of what is searched for secrets below); none under --quiet
    assert re.search(rf"^sink summary: \d+ batches, {RECORDS} records -> ", runs.stderr["sink"], re.M), runs.stderr["sink"][-2000:]
    assert re.search(rf"^restore poll 1: restored (\d+)/\1 topic-partitions, {RECORDS} records ", runs.stderr["restore"], re.M)
    assert re.search(r"^verify: listed \d+ objects", runs.stderr["verify"], re.M)
    assert not re.search(r"^(batch \d+|sink summary):", runs.stderr["registry refuses"], re.M)
    event_logs = [data for name, data in runs.artifacts.items() if name.startswith("event log") and "/events_" in name]
    assert len(event_logs) == 3, "the sink, the restore and the failing sink each write an event log"
    for data in event_logs:  # the conf dump: every Spark and system property
        assert b'"Event":"SparkListenerEnvironmentUpdate"' in data and b"spark.eventLog.enabled" in data
    assert b"PythonRDD" in event_logs[2]  # the failing sink's write job: its stage and RDD


_BASE64_RUN = re.compile(rb"[A-Za-z0-9+/]{40,}={0,2}")


def _decoded(data: bytes) -> bytes:
    """``data`` and the decoding of every long base64 run in it (a pickle logged as base64 once held
    every credential of a run: py4j's DEBUG lines)."""
    decoded = [data]
    for run in _BASE64_RUN.findall(data):
        for start in range(4):  # the run may begin with a marker character (py4j's "j" for bytes)
            body = run[start:].rstrip(b"=")
            try:
                decoded.append(base64.b64decode(body[: len(body) - len(body) % 4]))
            except ValueError:
                continue
    return b"\n".join(decoded)


def test_no_secret_in_any_output_log_event_log_or_checkpoint(runs: Runs) -> None:
    leaks = [
        f"{secret_name} in {artifact}"
        for artifact, data in runs.artifacts.items()
        for text in (_decoded(data),)
        for secret_name, secret in SECRETS.items()
        if secret.encode() in text or json.dumps(secret)[1:-1].encode() in text
    ]
    assert leaks == []
