"""Where an object goes: keys, file names, padding, partition values, key segments and date patterns.

Every rule that turns a record and a KCQL statement into an object key (Lenses-compatible).
"""
