"""Quix Streams' S3FileSink layout (``store.layout=quix`` of a Lenses config): its object names,
its rows and their inverse for the restore."""
