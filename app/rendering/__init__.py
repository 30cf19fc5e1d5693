"""What the service answers, as bodies: pure functions from the rules' results to JSON-ready
values, kubectl-style text tables and lines, and their encodings. No Flask: the CLI prints with
them too; the HTTP layer (app/http/respond.py) picks one by ``Accept``."""
