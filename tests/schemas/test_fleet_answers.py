"""The fleet's answer schemas (app/schemas/fleet_answers.py) are the one list of the outcomes
(rules §21), and the cluster list's schema is the cluster's with the counts added."""

from __future__ import annotations

import dataclasses

from app.schemas.catalog_answers import ClusterInfoSchema
from app.schemas.fleet_answers import (
    ClusterSummarySchema,
    FleetClusterSchema,
    FleetSchema,
    OutcomeCountsSchema,
)
from app.selection.outcome_counts import OUTCOMES, OutcomeCounts


def test_the_counts_schema_names_every_outcome_in_the_rules_order():
    keys = [field.data_key or name for name, field in OutcomeCountsSchema().fields.items()]
    assert keys == ["total", *OUTCOMES]
    assert len(dataclasses.fields(OutcomeCounts)) == len(keys)


def test_a_listed_cluster_is_the_cluster_and_its_counts_last():
    listed = ClusterSummarySchema().fields
    assert list(listed)[:-1] == list(ClusterInfoSchema().fields)
    assert listed["inference_services"].data_key == "inferenceServices"


def test_the_fleet_answers_keys():
    assert [f.data_key or n for n, f in FleetSchema().fields.items()] == [
        "clusters",
        "notReadable",
        "totals",
    ]
    assert [f.data_key or n for n, f in FleetClusterSchema().fields.items()] == [
        "name",
        "generation",
        "updatedAt",
        "ageSeconds",
        "syncedAt",
        "inferenceServices",
    ]
