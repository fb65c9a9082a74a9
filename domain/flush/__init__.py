"""When a file is finished: the one flush rule (count, size, interval, schema change) and the schema detectors.

The executor's writers and the source's admission both ask this package; nothing else decides.
"""
