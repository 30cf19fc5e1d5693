"""The query checked before any view (app/http/query.py): a poll answered in front of Flask
(app/http/polls.py) is refused as Flask's hook refuses it, whatever this worker holds."""

from __future__ import annotations

from werkzeug.test import Client

from tests.http.builders import RANK, READER, FlaskCalls, seeded_app


def test_a_held_poll_with_a_model_cache_provider_past_its_bound_is_flask_s_422(make_app, tmp_path):
    """``modelCacheProvider`` is no part of an answer by name's question, so the answer held
    for the same poll without it would be found: the poll path checks the query first."""
    app = seeded_app(make_app, tmp_path)
    client = app.test_client()
    url = RANK + "&modelCacheProvider=" + "x" * 257
    assert client.get(RANK, headers=READER).status_code == 200
    assert client.get(RANK, headers=READER).headers["X-Cache"] == "hit"  # held: polls answer
    flask = FlaskCalls(app)
    polled = client.get(url, headers=READER)
    reference = Client(app.wsgi_app.flask_app).get(url, headers=READER)
    assert flask.count == 2  # the poll too went to Flask
    assert polled.status_code == reference.status_code == 422
    assert polled.get_json()["error"] == reference.get_json()["error"]
    assert list(polled.get_json()["error"]["fields"]) == ["modelCacheProvider"]
