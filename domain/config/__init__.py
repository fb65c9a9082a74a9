"""Connector settings: the one catalog of keys, the reader of each dialect (Lenses, Aiven source),
validation with errors naming the key, secrets that never print, and the generated reference
(docs/configuration.md, :mod:`.reference_doc`).
"""
