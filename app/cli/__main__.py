"""``python -m app.cli``: the ``ome-ranker`` command without installing it."""

from app.cli import main

main()
