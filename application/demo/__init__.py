"""``lakesink demo``: the sink end to end on throw-away services, checked exactly-once record by record.

Decides the steps, the sample data, the connector configs, the audit and what is printed; the
services, the topic read-back and the object read-back are ports (:mod:`.ports`) the caller hands in.
"""
