"""The query checked where a route takes it (app/http/query.py): a poll answered in front of
Flask (app/http/polls.py) is refused as Flask's view refuses it, whatever this worker holds, and
answered as Flask answers it when it carries a parameter the route does not take."""

from __future__ import annotations

from werkzeug.test import Client

from tests.http.builders import RANK, READER, FlaskCalls, seeded_app


def test_a_held_poll_with_a_parameter_the_route_does_not_take_is_answered_as_flask_answers(
    make_app, tmp_path
):
    """``modelCacheProvider`` is no part of an answer by name's question (the cluster's setting
    decides): both paths ignore it, even past a string's bound, as a route ignores what it does
    not take."""
    app = seeded_app(make_app, tmp_path)
    client = app.test_client()
    url = RANK + "&modelCacheProvider=" + "x" * 257
    assert client.get(RANK, headers=READER).status_code == 200
    assert client.get(RANK, headers=READER).headers["X-Cache"] == "hit"  # held: polls answer
    flask = FlaskCalls(app)
    polled = client.get(url, headers=READER)
    assert flask.count == 0  # answered in front of Flask
    reference = Client(app.wsgi_app.flask_app).get(url, headers=READER)
    assert polled.status_code == reference.status_code == 200
    assert polled.data == reference.data


def test_a_held_poll_with_a_namespace_that_is_no_label_is_flask_s_422(make_app, tmp_path):
    app = seeded_app(make_app, tmp_path)
    client = app.test_client()
    url = RANK + "&namespace=Bad_Name"
    assert client.get(RANK, headers=READER).status_code == 200
    flask = FlaskCalls(app)
    polled = client.get(url, headers=READER)
    reference = Client(app.wsgi_app.flask_app).get(url, headers=READER)
    assert flask.count == 2  # the poll too went to Flask
    assert polled.status_code == reference.status_code == 422
    assert polled.get_json()["error"] == reference.get_json()["error"]
