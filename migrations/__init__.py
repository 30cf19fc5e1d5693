"""Numbered, idempotent Redis data migrations for the ranking cache, and their runner.

A migration is a module ``NNNN_what_it_does.py`` in this package: its docstring says what and
why, and ``migrate(client, prefix) -> str`` does it and returns a one-line summary. It must be
idempotent (safe to run again after a crash halfway) and touch only keys under ``prefix``.
``python -m migrations`` applies the pending ones in order and records each in the hash
``<prefix>migrations``; see ``runner.py``.
"""
