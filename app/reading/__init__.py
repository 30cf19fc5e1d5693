"""Request bodies and manifest streams, read as ``kubectl apply -f`` reads them (rules §15):
JSON or a YAML stream, bounded, into the objects and requests the rules take. No Flask: the CLI
reads its files with the same code the views read bodies with; what is wrong with a body is
``app.errors.MalformedRequest`` (400) and the like, answered by the HTTP layer once."""
