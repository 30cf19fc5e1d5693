"""The HTTP mechanics every view shares: one way to answer (``respond``), the request's record,
its deadline and body, access checks, the bounds of work, the headers and the error answers.

Nothing is imported here: gunicorn's master loads ``app.logs``, which reads the request record,
before the metrics may be imported (app/logs.py); ``create_app`` wires each module itself.
"""
