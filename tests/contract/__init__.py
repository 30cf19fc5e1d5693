"""The contract suite (the ``contract`` slow group): schemathesis runs the service against its
own OpenAPI description, every operation at once, not the tests of one package."""
