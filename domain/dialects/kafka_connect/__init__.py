"""What every Kafka Connect dialect shares (Confluent's and Aiven's S3 sinks): reading a connector's
properties the way Kafka's ``ConfigDef`` does, and the framework settings every connector has."""
