"""The OME parity suite, not the tests of one package: OME's own Go tests of its admission
webhooks, transcribed as data (``ome_cases/``), run through ``POST /v1/lint`` and compared with
what OME answers. The rules' modules are tested one by one in ``tests/selection/admission/``."""
