"""The deployment suite (the ``kubectl`` slow group): ``deploy/kubernetes`` rendered with
``kubectl kustomize`` and checked, and its jobs and Redis run as the rendered objects run them."""
