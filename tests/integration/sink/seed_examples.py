"""The connector-config examples of the seed documents, verbatim (each ```properties block of the
Lenses S3 sink page, ../shared/seeds/000_2abe0dfcdd98ca2f.txt, keyed by the line its text starts on).

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
