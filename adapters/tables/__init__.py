"""Table formats behind :class:`~lakesink.domain.tables.table_port.LakeTable`: Iceberg and Delta."""
