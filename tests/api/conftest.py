import pytest

from app import create_app
from config.settings import TestConfig


@pytest.fixture
def api():
    """A test client of a fresh app (its own in-process cache)."""
    app = create_app(TestConfig())
    return app.test_client()
