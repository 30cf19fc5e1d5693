"""The documentation suite: the README and ``docs/`` kept honest (links, anchors, paths, and the
shell blocks marked to run as written, against a real service)."""
