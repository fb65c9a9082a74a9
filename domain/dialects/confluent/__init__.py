"""Confluent's S3 sink (``io.confluent.connect.s3.S3SinkConnector``) run from its own config: its
key table, settings, object names (partitioners, timestamps, fields), rotation and schema rules,
what its files hold, its restore and its conversion to a Lenses config, side by side."""
