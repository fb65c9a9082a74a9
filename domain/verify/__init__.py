"""``lakesink verify``: what the stored objects and the index prove about each topic-partition.

Facts in (listed keys, record counts or offsets read from objects, locks, pending plans, the
topic's watermarks), findings out (gaps, duplicates, orphans, pending objects, layout mismatches).
"""
