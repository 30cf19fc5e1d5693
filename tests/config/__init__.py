"""The tests of ``config/``: the settings read from the environment and ``gunicorn.conf.py``."""
