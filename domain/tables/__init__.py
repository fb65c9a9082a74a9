"""Topics into Iceberg and Delta tables: what lakesink records in a table, and the commit protocol."""
