"""The connector-config examples of the seed documents, verbatim, each keyed by the line of the seed
its text starts on: every ```properties block of the Lenses S3 sink page (000), every ```json block
of the Confluent S3 sink page (001) that is a connector config, whole or fragment, both ```json blocks
of the Aiven S3 source page (002), and the two unfenced (garbled) config texts of the Aiven S3 sink
article (003). The seeds are ../shared/seeds/<SEED_...>.

Copied, not read at test time: the seeds live outside the repository. test_seed_configs.py checks
the copies against the seed when it is there.
"""

SEED_000 = "000_2abe0dfcdd98ca2f.txt"

#: line of the seed -> the block's text, as written (trailing spaces included).
LENSES_EXAMPLES: dict[int, str] = {
    22: "connector.class=io.lenses.streamreactor.connect.aws.s3.sink.S3SinkConnector\nconnect.s3.kcql=insert into lensesio:demo select * from demo PARTITIONBY _value.ts STOREAS `JSON` PROPERTIES ('flush.size'=1000000, 'flush.interval'=30, 'flush.count'=5000)\ntopics=demo\nname=demo\n",
    165: "connector.class=io.lenses.streamreactor.connect.aws.s3.sink.S3SinkConnector\nconnect.s3.kcql=insert into lensesio:demo select * from demo PARTITIONBY _value.metadata_id, _value.customer_id, _header.ts, _header.wallclock STOREAS `JSON` PROPERTIES ('flush.size'=1000000, 'flush.interval'=30, 'flush.count'=5000)\ntopics=demo\nname=demo\nvalue.converter=org.apache.kafka.connect.json.JsonConverter\nkey.converter=org.apache.kafka.connect.storage.StringConverter\ntransforms=insertFormattedTs,insertWallclock\ntransforms.insertFormattedTs.type=io.lenses.connect.smt.header.TimestampConverter\ntransforms.insertFormattedTs.header.name=ts\ntransforms.insertFormattedTs.field=timestamp\ntransforms.insertFormattedTs.target.type=string\ntransforms.insertFormattedTs.format.to.pattern=yyyy-MM-dd-HH\ntransforms.insertWallclock.type=io.lenses.connect.smt.header.InsertWallclock\ntransforms.insertWallclock.header.name=wallclock\ntransforms.insertWallclock.value.type=format\ntransforms.insertWallclock.format=yyyy-MM-dd-HH\n",
    236: '...\nconnect.s3.kcql=INSERT INTO lensesioaws:car_speed SELECT * FROM car_speed_events STOREAS `PARQUET` \nvalue.converter=io.confluent.connect.avro.AvroConverter\nvalue.converter.schema.registry.url=http://localhost:8081\nkey.converter=org.apache.kafka.connect.storage.StringConverter\n...\n',
    251: '...\nconnect.s3.kcql=INSERT INTO lensesioaws:car_speed SELECT * FROM car_speed_events STOREAS `PARQUET` \nvalue.converter=org.apache.kafka.connect.json.JsonConverter\nkey.converter=org.apache.kafka.connect.storage.StringConverter\n...\n',
    265: "...\nconnect.s3.kcql=INSERT INTO lensesioaws:car_speed SELECT * FROM car_speed_events STOREAS `JSON` PROPERTIES('store.envelope'=true)\nvalue.converter=org.apache.kafka.connect.json.JsonConverter\nkey.converter=org.apache.kafka.connect.storage.StringConverter\n...\n",
    279: "...\nconnect.s3.kcql=INSERT INTO lensesioaws:car_speed SELECT * FROM car_speed_events STOREAS `AVRO` PROPERTIES('store.envelope'=true)\nvalue.converter=io.confluent.connect.avro.AvroConverter\nvalue.converter.schema.registry.url=http://localhost:8081\nkey.converter=org.apache.kafka.connect.storage.StringConverter\n...\n",
    294: "...\nconnect.s3.kcql=INSERT INTO lensesioaws:car_speed SELECT * FROM car_speed_events STOREAS `AVRO` PROPERTIES('store.envelope'=true)\nvalue.converter=org.apache.kafka.connect.converters.ByteArrayConverter\nkey.converter=org.apache.kafka.connect.converters.ByteArrayConverter\n...\n",
    396: '...\nconnect.s3.aws.auth.mode=Credentials\nconnect.s3.aws.region=eu-west-2\nconnect.s3.aws.access.key=$AWS_ACCESS_KEY\nconnect.s3.aws.secret.key=$AWS_SECRET_KEY\n...\n',
    468: '# Layer 1 - leave at defaults, or relax for noisy networks\n# connect.s3.http.max.retries=5\n# connect.s3.http.retry.interval=50\n\n# Layer 2 - ride through up to ~30 minutes of S3 unavailability\nconnect.s3.error.policy=RETRY\nconnect.s3.max.retries=30\nconnect.s3.retry.interval=60000\n\n# Kafka Connect framework - per-record DLQ for converter / SMT errors\nerrors.tolerance=all\nerrors.log.enable=true\nerrors.log.include.messages=true\nerrors.deadletterqueue.topic.name=my-connector-dlq\nerrors.deadletterqueue.context.headers.enable=true\nerrors.deadletterqueue.topic.replication.factor=3\n',
}

SEED_001 = "001_11c5811e511670c1.txt"
#: line of the Confluent page -> each ```json block that is a connector config (whole or fragment), as written.
CONFLUENT_EXAMPLES: dict[int, str] = {
    44: '{\n  "name": "s3-sink",\n  "config": {\n    "connector.class": "io.confluent.connect.s3.S3SinkConnector",\n    "tasks.max": "3",\n    "topics": "events",\n\n    "s3.bucket.name": "data-lake-bucket",\n    "s3.region": "us-east-1",\n\n    "format.class": "io.confluent.connect.s3.format.parquet.ParquetFormat",\n    "flush.size": "10000",\n\n    "storage.class": "io.confluent.connect.s3.storage.S3Storage",\n    "partitioner.class": "io.confluent.connect.storage.partitioner.TimeBasedPartitioner"\n  }\n}\n',
    70: '{\n  "aws.access.key.id": "${secrets:aws/access-key}",\n  "aws.secret.access.key": "${secrets:aws/secret-key}"\n}\n',
    81: '{\n  "s3.credentials.provider.class": "com.amazonaws.auth.DefaultAWSCredentialsProviderChain"\n}\n',
    119: '{\n  "format.class": "io.confluent.connect.s3.format.parquet.ParquetFormat",\n  "parquet.codec": "snappy"\n}\n',
    137: '{\n  "format.class": "io.confluent.connect.s3.format.avro.AvroFormat",\n  "avro.codec": "snappy"\n}\n',
    148: '{\n  "format.class": "io.confluent.connect.s3.format.json.JsonFormat"\n}\n',
    162: '{\n  "partitioner.class": "io.confluent.connect.storage.partitioner.TimeBasedPartitioner",\n  "path.format": "\'year\'=YYYY/\'month\'=MM/\'day\'=dd/\'hour\'=HH",\n  "locale": "en-US",\n  "timezone": "UTC",\n  "partition.duration.ms": "3600000"\n}\n',
    178: '{\n  "partitioner.class": "io.confluent.connect.storage.partitioner.FieldPartitioner",\n  "partition.field.name": "region,event_type"\n}\n',
    191: '{\n  "partitioner.class": "io.confluent.connect.storage.partitioner.DefaultPartitioner"\n}\n',
    205: '{\n  "flush.size": "10000"\n}\n',
    215: '{\n  "rotate.schedule.interval.ms": "3600000"\n}\n',
    225: '{\n  "s3.part.size": "26214400"\n}\n',
    239: '{\n  "key.converter": "io.confluent.connect.avro.AvroConverter",\n  "key.converter.schema.registry.url": "http://schema-registry:8081",\n  "value.converter": "io.confluent.connect.avro.AvroConverter",\n  "value.converter.schema.registry.url": "http://schema-registry:8081"\n}\n',
    250: '{\n  "key.converter": "org.apache.kafka.connect.storage.StringConverter",\n  "value.converter": "org.apache.kafka.connect.json.JsonConverter",\n  "value.converter.schemas.enable": "false"\n}\n',
    262: '{\n  "errors.tolerance": "all",\n  "errors.deadletterqueue.topic.name": "dlq-s3-sink",\n  "errors.deadletterqueue.topic.replication.factor": 3,\n  "errors.deadletterqueue.context.headers.enable": true,\n  "errors.log.enable": true\n}\n',
    278: '{\n  "tasks.max": "6"\n}\n',
    288: '{\n  "s3.part.size": "52428800",\n  "flush.size": "50000",\n  "rotate.interval.ms": "600000"\n}\n',
    298: '{\n  "s3.retry.backoff.ms": "200",\n  "s3.part.retries": "3"\n}\n',
    309: '{\n  "name": "events-to-s3",\n  "config": {\n    "connector.class": "io.confluent.connect.s3.S3SinkConnector",\n    "tasks.max": "6",\n    "topics": "events,transactions",\n\n    "s3.bucket.name": "analytics-data-lake",\n    "s3.region": "us-east-1",\n    "s3.credentials.provider.class": "com.amazonaws.auth.DefaultAWSCredentialsProviderChain",\n\n    "format.class": "io.confluent.connect.s3.format.parquet.ParquetFormat",\n    "parquet.codec": "snappy",\n\n    "storage.class": "io.confluent.connect.s3.storage.S3Storage",\n    "partitioner.class": "io.confluent.connect.storage.partitioner.TimeBasedPartitioner",\n    "path.format": "\'year\'=YYYY/\'month\'=MM/\'day\'=dd/\'hour\'=HH",\n    "locale": "en-US",\n    "timezone": "UTC",\n    "partition.duration.ms": "3600000",\n\n    "flush.size": "50000",\n    "rotate.interval.ms": "600000",\n    "s3.part.size": "52428800",\n\n    "key.converter": "io.confluent.connect.avro.AvroConverter",\n    "key.converter.schema.registry.url": "http://schema-registry:8081",\n    "value.converter": "io.confluent.connect.avro.AvroConverter",\n    "value.converter.schema.registry.url": "http://schema-registry:8081",\n\n    "errors.tolerance": "all",\n    "errors.deadletterqueue.topic.name": "dlq-s3-sink",\n    "errors.deadletterqueue.topic.replication.factor": 3\n  }\n}\n',
    395: '{\n  "s3.part.size": "52428800",\n  "schema.compatibility": "FULL"\n}\n',
}
#: The page's other ```json blocks, by line, and why they are no connector config.
CONFLUENT_OTHER_BLOCKS: dict[int, str] = {
    89: 'the IAM policy the bucket needs (an AWS document, not a connector config)',
    353: 'an S3 lifecycle rule (an AWS document, not a connector config)',
}

SEED_002 = "002_0c1a2e8659d900b8.txt"
#: line of the Aiven S3 source page -> each ```json block (both are source connector configs), as written.
AIVEN_SOURCE_EXAMPLES: dict[int, str] = {
    80: '  {\n    "name": "aiven-s3-source-connector",\n    "connector.class": "io.aiven.kafka.connect.s3.source.S3SourceConnector",\n    "aws.access.key.id": "YOUR_AWS_ACCESS_KEY_ID",\n    "aws.secret.access.key": "YOUR_AWS_SECRET_ACCESS_KEY",\n    "aws.s3.bucket.name": "your-s3-bucket-name",\n    "aws.s3.region": "your-s3-region",\n    "aws.s3.prefix": "optional/prefix/",\n    "aws.credentials.provider": "software.amazon.awssdk.auth.credentials.AwsCredentialsProviderChain",\n    "topic": "your-target-kafka-topic",\n    "file.name.template": "{{topic}}-{{partition}}-{{start_offset}}",\n    "tasks.max": 1,\n    "poll.interval.ms": 10000,\n    "error.tolerance": "all",\n    "input.format": "jsonl"\n  }\n',
    191: '{\n"name": "aiven-s3-source-connector",\n"connector.class": "io.aiven.kafka.connect.s3.source.S3SourceConnector",\n"tasks.max": "1",\n"topic": "test-topic",\n"aws.access.key.id": "your-access-key-id",\n"aws.secret.access.key": "your-secret-access-key",\n"aws.s3.bucket.name": "my-s3-bucket",\n"aws.s3.region": "us-west-1",\n"aws.s3.prefix": "data-uploads/",\n"file.name.template": "{{topic}}-{{partition}}-{{start_offset}}",\n"poll.interval.ms": 10000\n}\n',
}

SEED_003 = "003_d04fc4ca0267978e.txt"
#: line of the Aiven S3 sink article -> its two config texts, as the seed holds them (unfenced, garbled).
AIVEN_SINK_EXAMPLES: dict[int, str] = {
    102: '"connector.class": "io.aiven.kafka.connect.s3.AivenKafkaConnectS3SinkConnector",\n"key.converter": "org.apache.kafka.connect.converters.ByteArrayConverter"",\n"value.converter": "org.apache.kafka.connect.converters.ByteArrayConverter",\n"topics": "YOUR-TOPIC",\n"aws.s3.region": "eu-west-1"\n',
    119: '"name": "example-s3-sink",\n\xa0 "config": {\n\xa0 "": "AKI...",\n\xa0 "aws.secret.access.key": "SECRET_ACCESS_KEY",\n\xa0 "": "aiven-example",\n\xa0 "aws.s3.prefix": "example-s3-sink/",\n\xa0 "aws.s3.region": "us-east-1",\n\xa0 "file.compression.type": "gzip",\n\xa0 "format.output.fields": "value,key,timestamp",\n\xa0 "tasks.max": 1,\n\xa0 "topics": "source_topic,another_topic",\n',
}
