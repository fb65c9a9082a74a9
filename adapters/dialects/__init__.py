"""The executor pieces of each dialect (its files, writers and restore readers), and the one
:class:`~lakesink.adapters.dialects.file_set.FileSet` protocol the sink task writes through."""
