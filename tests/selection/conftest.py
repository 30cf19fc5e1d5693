"""The fixture of the rules' tests: ``rank``, a request body ranked as the API receives it."""

import pytest

from app.schemas.requests import load_rank_request
from app.selection.ranking import Ranking, rank_runtimes


@pytest.fixture
def rank():
    """Rank a request body (as the API receives it) with the pure selection package."""

    def run(body: dict, **query: str) -> Ranking:
        return rank_runtimes(load_rank_request(body, query))

    return run
