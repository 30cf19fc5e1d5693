"""The tests of ``migrations/``: the Redis data migrations and their runner."""
