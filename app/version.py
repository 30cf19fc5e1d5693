"""The release of ome-ranker: the one place its number is written. pyproject.toml reads it for
the package's metadata and ``ome-ranker --version`` prints it, installed or run from a checkout."""

__version__ = "0.2.0"
