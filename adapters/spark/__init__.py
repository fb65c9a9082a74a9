"""Spark itself: the session factory (local JVM defaults, the class-data archive, data source
registration), how Python workers and the JVM are launched, and the jobs run on it: the sink's
batches and executor task (sink_job.py, sink_task.py, the streaming checkpoint in
sink_checkpoint.py); the restore's job is adapters/restore/spark_job.py.
"""
