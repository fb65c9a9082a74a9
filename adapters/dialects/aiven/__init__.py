"""Aiven's groups and file writers (its compression framing) on the executors, and reading its
files back for the restore."""
