"""Aiven's S3 sink (``io.aiven.kafka.connect.s3.AivenKafkaConnectS3SinkConnector``) and S3 source run
from their own configs: the key table, settings, file-name templates and grouping, file contents
and their inverse for the restore, and the conversion to a Lenses config, side by side."""
