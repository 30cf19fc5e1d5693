"""The hostile suite (the ``hostile`` slow group): hostile clients, outages and signals against
real gunicorn servers, the whole service at once rather than one package."""
