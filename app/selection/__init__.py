"""The rules of docs/rules.md (rules §1–§21) as pure functions: no Flask, no Redis, no I/O.

One package per concern, layered bottom up: ``values`` (the documents and what every concern
reads of them), ``ranking`` (OME's runtime selector), ``placement`` (after the runtime),
``advice``, ``admission`` and ``questions`` (beside each other), and on top ``prediction``, the
entry for one request, and ``outcome_counts``, a catalog's InferenceServices counted by outcome
(§21). Each package's ``__init__`` names what the others may import."""

# Bump whenever the selection rules change (or the rendering of their answers, or which requests
# the API accepts): it is part of every ranking-cache key (rules §16), so answers cached under the
# old rules are never served, and migrations/ can find and delete them.
# 10: the maps an answer echoes with their keys sorted; 9: kinds and versions as kubectl maps them.
RULES_VERSION = 10
