"""``ome-ranker token new``: a strong random secret and the token file entry (rules §17
"Access") that names its SHA-256, so that nobody has to invent a secret or hash one by hand."""

from __future__ import annotations

import hashlib
import os
import secrets
from collections.abc import Iterable
from typing import Any

import click
import yaml

from app.auth import ANY, is_token_name
from app.store.records import check_cluster_name

from .output import BAD_INPUT, Failure

SECRET_BYTES = 32  # 256 random bits, as secrets.token_urlsafe writes them: 43 characters


@click.group()
def token() -> None:
    """Tokens of the service's token file (OME_RANKER_TOKENS_FILE)."""


@token.command()
@click.argument("name")
@click.option(
    "--read",
    "read",
    multiple=True,
    metavar="CLUSTER",
    help="A cluster the token may read, or '*' for all; repeatable.",
)
@click.option(
    "--write",
    "write",
    multiple=True,
    metavar="CLUSTER",
    help="A cluster the token may write (and read), or '*' for all, which also creates and "
    "deletes clusters; repeatable.",
)
@click.option(
    "--secret-file",
    type=click.Path(dir_okay=False),
    metavar="PATH",
    help="Write the secret to this new file (mode 0600) instead of printing it.",
)
def new(name: str, read: tuple[str, ...], write: tuple[str, ...], secret_file: str | None) -> None:
    """A new token NAME: its entry for the token file on stdout, its secret once on stderr.

    The service keeps only the secret's SHA-256: add the entry under `tokens:` in the token
    file and give the secret to whoever uses the token. No server is needed.
    """
    if not is_token_name(name):
        raise Failure(
            f"token names are 1 to 63 characters of A-Z a-z 0-9 . _ -, starting with a letter "
            f"or digit, got {name!r}"
        )
    entry: dict[str, object] = {"name": name}
    secret = secrets.token_urlsafe(SECRET_BYTES)
    entry["sha256"] = hashlib.sha256(secret.encode()).hexdigest()
    for key, clusters in (("read", read), ("write", write)):
        if clusters:
            entry[key] = [_cluster(cluster, key) for cluster in dict.fromkeys(clusters)]
    if secret_file is not None:
        _write_secret(secret_file, secret)
    click.echo(_entry_yaml(entry), nl=False)
    if secret_file is None:
        click.echo(
            f"secret (shown only this once; the service keeps only its SHA-256): {secret}",
            err=True,
        )
    else:
        click.echo(f"secret written to {secret_file}; the service keeps only its SHA-256", err=True)


def _cluster(value: str, option: str) -> str:
    if value == ANY:
        return value
    try:
        return check_cluster_name(value)
    except ValueError:
        raise Failure(
            f"--{option}: cluster names are DNS-1123 labels ([a-z0-9]([-a-z0-9]*[a-z0-9])?, "
            f"at most 63 characters) or '*', got {value!r}"
        ) from None


class _EntryDumper(yaml.SafeDumper):
    """YAML's safe writer, with lists on one line (``read: [a, b]``) as the README has them."""

    def represent_list(self, data: Iterable[Any]) -> yaml.SequenceNode:
        return self.represent_sequence(self.DEFAULT_SEQUENCE_TAG, data, flow_style=True)


_EntryDumper.add_representer(list, _EntryDumper.represent_list)


def _entry_yaml(entry: dict[str, object]) -> str:
    """One item of the file's ``tokens:`` list, indented to go under it; YAML's own writer
    quotes what needs it (``'*'``, a name YAML would read as a number)."""
    text = yaml.dump(entry, Dumper=_EntryDumper, sort_keys=False, width=10**6)
    first, *rest = text.splitlines(keepends=True)
    return "".join([f"  - {first}", *(f"    {line}" for line in rest)])


def _write_secret(path: str, secret: str) -> None:
    """A new file only the user can read; never over an existing one (it may hold a secret
    still in use). No newline, so `--from-file` and `$(cat …)` give the secret exactly."""
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise Failure(f"--secret-file {path} exists; not overwritten", BAD_INPUT) from None
    except OSError as error:
        raise Failure(f"--secret-file {path}: {error.strerror}", BAD_INPUT) from None
    with os.fdopen(descriptor, "w", encoding="ascii") as handle:
        os.fchmod(handle.fileno(), 0o600)  # whatever the umask
        handle.write(secret)
