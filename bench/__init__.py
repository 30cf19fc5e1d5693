"""Benchmarks of ome-ranker: ``python -m bench`` (``make bench``); see bench/README.md.

Nothing here is imported by the service or collected by pytest (``testpaths = ["tests"]``).
"""
