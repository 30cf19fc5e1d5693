"""The selection rules of rules §2–§14 as pure functions: no Flask, no Redis, no I/O."""

# Bump whenever the selection rules change (or the rendering of their answers, or which requests
# the API accepts): it is part of every ranking-cache key (rules §16), so answers cached under the
# old rules are never served, and migrations/ can find and delete them.
RULES_VERSION = 8  # 8: strings bounded, Go's integers, the service's own YAML writer
