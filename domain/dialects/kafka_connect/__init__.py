"""What every Kafka Connect dialect shares (Confluent's and Aiven's S3 sinks): reading a connector's
properties the way Kafka's ``ConfigDef`` does, the key-policy table, and the run settings a dialect's
config becomes."""
