"""Adapters of ``lakesink verify``: reading record counts and offsets from objects as cheaply as each format allows."""
