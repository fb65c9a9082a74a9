"""Confluent's rotation cycles on the executors, and reading its files back for the restore."""
