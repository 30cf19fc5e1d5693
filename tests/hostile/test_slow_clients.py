"""50 slow clients (heads and bodies trickled a byte a second, uploads that stall) while a probe
asks /healthz and POST /v1/rank every half second: every probe is answered, well before a slow
client's thread would have been freed (the client timeout).

The same run for longer, against any address: ``python -m tests.hostile.slow_clients``.
"""

from __future__ import annotations

from tests.hostile import slow_clients


def test_slow_clients_never_delay_the_probes(start_service):
    # Short client timeout and deadline, so that in 12 s every kind of slow client is answered
    # and reconnects at least once. A probe that waited for a slow client's thread would take
    # up to the client timeout; half of it leaves room for a busy machine (well under 0.1 s idle).
    service = start_service(
        OME_RANKER_CLIENT_TIMEOUT="8",
        OME_RANKER_REQUEST_DEADLINE="3",
    )
    report = slow_clients.run("127.0.0.1", service.port, clients=50, seconds=12, max_latency=4.0)
    assert report.failures == [], report.summary()
    assert len(report.probes) >= 12, report.summary()  # a probe of each kind, every 2 s at most
    # The slow clients were answered too: 408 for an incomplete request, 503 for an upload
    # still running past the deadline; and they came back for more.
    assert set(report.answers) <= {408, 503}, report.summary()
    assert report.answers.get(408, 0) >= 25 and report.answers.get(503, 0) >= 1, report.summary()
    assert report.connections >= 100, report.summary()
    service.assert_still_serving()
