"""Connector settings: the one catalog of keys and Lenses' reader, validation with errors naming the
key, secrets that never print, and the generated reference (docs/configuration.md,
:mod:`.reference_doc`). Each other dialect's reader is in its slice, :mod:`lakesink.domain.dialects`.
"""
