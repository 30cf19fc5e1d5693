"""The worked examples of OME's documentation pages (``cases/``), posted to the service: a suite
of the whole service against OME's own words, not the tests of one package."""
