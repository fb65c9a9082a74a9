"""Spark itself: the session factory (local JVM defaults, the class-data archive, data source
registration) and how Python workers and the JVM are launched. The jobs run by the sink and the
restore live with them (application/sink*.py, adapters/restore/spark_job.py).
"""
