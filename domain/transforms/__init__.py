"""Kafka Connect's record pipeline as data: the Single Message Transform chain and its predicates.

Decides which transforms run, in which order and on which records; adapters only execute it.
"""
