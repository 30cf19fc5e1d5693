"""What the tests of the operations endpoints read: the samples ``/metrics`` exposes, and
``/readyz`` once its checks have ended."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families

from tests.waiting import wait_for


def metric_samples(client) -> dict[tuple[str, tuple], float]:
    response = client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["Content-Type"].startswith("text/plain; version=0.0.4")
    samples = {}
    for family in text_string_to_metric_families(response.get_data(as_text=True)):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


def value(samples, name: str, **labels) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def readyz(client, until=lambda body: True) -> tuple[int, dict]:
    """``/readyz`` once ``until`` holds of its body and its store check has ended: the checks
    run beside the probe, whose first answers may come before they end (app/health.py)."""

    def answered() -> tuple[int, dict] | None:
        response = client.get("/readyz")
        assert response.headers["Cache-Control"] == "no-store"
        body = response.get_json()
        ended = body["store"]["state"] != "unknown" and until(body)
        return (response.status_code, body) if ended else None

    return wait_for(answered, "/readyz as awaited")
