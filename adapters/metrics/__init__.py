"""Where a sink run's numbers go: Prometheus (:mod:`.prometheus`)."""
