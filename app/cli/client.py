"""The calls the commands make, and what an unsuccessful answer means for the command line: the
service unusable (exit 3) or the input refused (exit 2, with ``file:line`` of the objects the
answer names)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any

from app.schemas.ome_kinds import ISVC_KIND, MODEL_KINDS, RUNTIME_KINDS
from config.settings import SettingsError

from . import output
from .output import BAD_INPUT, UNAVAILABLE, Failure
from .sources import Manifest
from .transport import Query, Reply, Transport, Unreachable, segment

JSON = "application/json"
TEXT = "text/plain"
YAML = "application/yaml"
ACCEPT = {"json": JSON, "table": TEXT, "yaml": YAML}
ANSWERED = frozenset(ACCEPT.values())  # every media type the API answers with
# A route the service does not have, or a method it does not take there: another version.
_NO_SUCH_ENDPOINT = frozenset({"NotFound", "MethodNotAllowed"})
# What a proxy or gateway answers when the service behind it is down or restarting: with a body
# that is not the API's, still a service that cannot be used now, not another service.
GATEWAY_STATUSES = frozenset({502, 503, 504})
TOKEN_HELP = "  a token is given with --token TOKEN, --token-file PATH or OME_RANKER_TOKEN"


@dataclass
class Sent:
    """The objects one request carries, to point at them: by their place in a list
    (``runtimes[2]``, ``document 4``, ``current[1]``) or by kind, namespace and name."""

    manifests: list[Manifest] = field(default_factory=list)
    lists: dict[str, list[Manifest]] = field(default_factory=dict)
    # The manifests by kind and name, made on the first ``origin_of``: an answer names every
    # object, so looking each one up in the list would cost objects × findings.
    _named: dict[tuple[str | None, str | None], list[Manifest]] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    def body(self) -> bytes:
        """The objects as a JSON array of manifests (rules §15), each in its stored form."""
        return encode(stored_forms(self.manifests))

    def applied_body(self) -> bytes:
        """The manifests whole, as ``kubectl apply`` sends them: for lint, which judges every
        field as the API server's strict decoding and the CRD's schema do (rules §18 "Parity":
        unknown fields, types, required ones), where the stored form would be refused."""
        return encode([manifest.body for manifest in self.manifests])

    def origin_of_path(self, path: str) -> str | None:
        found = _PATH.match(path)
        if found is None:
            return None
        name, number = found.group("name"), _path_index(found)
        if name in ("model", "inferenceService"):
            kinds = MODEL_KINDS if name == "model" else (ISVC_KIND,)
            items, index = self._read_of(kinds)[-1:], 0
        elif number is None:
            return None
        elif name == "document":  # numbered from 1, as the catalog writes name them
            items, index = self.manifests, int(number) - 1
        elif name == "array item":
            items, index = self.manifests, int(number)
        elif name == "runtimes":
            items, index = self._read_of(RUNTIME_KINDS), int(number)
        else:
            items, index = self.lists.get(name, []), int(number)
        return items[index].origin if 0 <= index < len(items) else None

    def _read_of(self, kinds: tuple[str, ...]) -> list[Manifest]:
        """The manifests of ``kinds`` the service reads, in order: not those kubectl would not
        map (rules §18), which it lists under ``ignored``."""
        from app.reading.manifests import unread_refusal  # not at import: see stored_forms

        return [m for m in self.manifests if m.kind in kinds and unread_refusal(m.body) is None]

    def origin_of(self, kind: str | None, namespace: str | None, name: str | None) -> str | None:
        """Where the object the answer names starts."""
        found = self.manifest_of(kind, namespace, name)
        return None if found is None else found.origin

    def manifest_of(
        self, kind: str | None, namespace: str | None, name: str | None
    ) -> Manifest | None:
        """The object the answer names: the last one of that identity (the one the service
        reads); an object sent without a namespace matches any. Found by kind and name, not by
        a pass over every object."""
        if self._named is None:
            self._named = {}
            for manifest in self.manifests:
                self._named.setdefault((manifest.kind, manifest.name), []).append(manifest)
        found = None
        for manifest in self._named.get((kind, name), ()):
            if namespace is None or manifest.namespace in (namespace, None):
                found = manifest
        return found


_PATH = re.compile(
    r"(?P<name>document|array item|model|inferenceService|runtimes|[A-Za-z]+)"
    r"(?: (?P<index>\d+)|\[(?P<bracket>\d+)\])?"
)


def _path_index(found: re.Match) -> str | None:
    return found.group("index") or found.group("bracket")


def endpoint_path(endpoint: str, cluster: str | None = None) -> str:
    """``/v1/<endpoint>``, or the same question about a stored catalog."""
    return f"/v1/{endpoint}" if cluster is None else f"/v1/clusters/{segment(cluster)}/{endpoint}"


def stored_forms(manifests: list[Manifest]) -> list[dict]:
    """What the service reads of each object, as a catalog stores it (rules §17 "Stored is what
    is read"), made by the service's own code: a container's ``env``, ``args`` or ``command``,
    volumes and a storage URI that may carry a credential never leave the machine, and the
    answer is the one the whole manifests get (tests/cli/test_cli_stored_form.py)."""
    # Here, not at import: ``ome-ranker --version`` and ``--help`` need none of it.
    from app.schemas.stored import stored_form

    return [stored_form(manifest.body) for manifest in manifests]


def encode(value: object) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


@dataclass(frozen=True)
class Call:
    """One request a command makes (and may make again for another representation)."""

    method: str
    path: str
    query: list[tuple[str, str]] = field(default_factory=list)
    sent: Sent = field(default_factory=Sent)
    body: bytes | None = None


class Api:
    def __init__(self, transport: Transport) -> None:
        self.transport = transport

    def call(
        self,
        method: str,
        path: str,
        *,
        query: Query = (),
        body: bytes | None = None,
        accept: str = JSON,
        headers: Mapping[str, str] | None = None,
    ) -> Reply:
        """The answer; ``Failure`` (exit 3) when there is none, or when it says the service
        cannot be used: a redirect, 5xx (after ``retry_policy``'s retries of an idempotent
        call), an answer that is not the API's (another service at ``--server``), 401 (and how a
        token is given), 403, a route it does not have."""
        sent = {"Accept": accept, **(headers or {})}
        if body is not None:
            sent["Content-Type"] = JSON
        try:
            reply = self.transport.request(method, path, query=query, body=body, headers=sent)
        except Unreachable as error:
            raise Failure(str(error), UNAVAILABLE) from None
        except SettingsError as error:  # the in-process service's settings (environment)
            raise Failure(str(error), BAD_INPUT) from None
        unusable = _unusable(reply, accept, self.transport.where, f"{method} {path}")
        if unusable is not None:
            raise Failure.of_lines(unusable, UNAVAILABLE)
        return reply

    def ask(self, call: Call, accept: str = JSON) -> Reply:
        return self.call(call.method, call.path, query=call.query, body=call.body, accept=accept)

    def answer(self, call: Call) -> tuple[Reply, Any]:
        """The JSON answer, or ``refusal`` of the input."""
        reply = self.ask(call)
        if reply.status != 200:
            raise refusal(reply, call.sent)
        return reply, reply.json()

    def show(self, call: Call, reply: Reply, output_format: str) -> None:
        """Print the answer as ``-o`` asks: JSON as received, else the same question asked
        again for the text table or YAML (cached by the service)."""
        if output_format == "json":
            output.echo_bytes(reply.body)
            return
        shown = self.ask(call, ACCEPT[output_format])
        if shown.status != 200:  # the same question: only a failing service answers else
            raise refusal(shown, call.sent)
        if output_format == "table":
            output.echo_table(shown.body.decode("utf-8"))
        else:
            echo_answer(shown, output_format)


def _unusable(reply: Reply, accept: str, where: str, request: str) -> list[str] | None:
    """Why the answer to ``request`` says the service at ``where`` cannot be used, or None."""
    status = reply.status
    if 300 <= status < 400:
        location = reply.headers.get("location", "elsewhere")
        return [f"{where} answered {status}, a redirect to {location}: give that URL as --server"]
    refused = reply.api_error() if status >= 400 else None
    if refused is not None:
        said = f"{where}: {request}: {status} {refused['code']}: {refused['message']}"
        if status == 401:
            return [said, TOKEN_HELP]
        if status == 403 or status >= 500 or refused["code"] in _NO_SUCH_ENDPOINT:
            return [said]
        return None
    if status in GATEWAY_STATUSES:
        return [f"{where}: {request}: {status} {_phrase(status)} (not an answer of ome-ranker's)"]
    if not _is_the_apis(reply, accept):
        media = f" {reply.mimetype or 'untyped'}" if status < 400 else ""
        return [f"{where}: not an ome-ranker service ({status}{media} on {request})"]
    return None


def _phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "(an unknown status)"


def _is_the_apis(reply: Reply, accept: str) -> bool:
    """Whether an answer is one the API gives: an error is its JSON ``error`` object; any other
    answer is of a media type it answers with, JSON that parses when JSON was asked for."""
    if reply.status >= 400:
        return reply.api_error() is not None
    if reply.mimetype not in ANSWERED or (accept == JSON and reply.mimetype != JSON):
        return False
    if reply.mimetype == JSON:
        try:
            reply.json()
        except ValueError:
            return False
    return True


def echo_answer(reply: Reply, output_format: str) -> None:
    """An answer as received, or as YAML (the service's YAML writer) from an endpoint that
    answers JSON only."""
    if output_format == "yaml" and reply.mimetype == JSON:
        output.echo_yaml(reply.json())
    else:
        output.echo_bytes(reply.body)


def refusal(reply: Reply, sent: Sent, exit_code: int = BAD_INPUT) -> Failure:
    """The API's message, and for an invalid document each field path with ``file:line``."""
    error = reply.error()
    fields = error.get("fields")
    lines = [error["message"] if isinstance(fields, dict) else _with_origin(error["message"], sent)]
    if isinstance(fields, dict):
        for path, messages in fields.items():
            origin = sent.origin_of_path(path)
            text = " ".join(messages) if isinstance(messages, list) else str(messages)
            lines.append(f"  {origin + ': ' if origin else ''}{path}: {text}")
    return Failure.of_lines(lines, exit_code)


def model_elsewhere(error: dict[str, Any]) -> Failure | None:
    """A model asked by name that the catalog holds in other namespaces only (the 404's
    ``namespaces``): the question's mistake, not OME's refusal (exit 2), with where to ask."""
    namespaces = error.get("namespaces")
    if error.get("code") != "ModelNotFound" or not isinstance(namespaces, list) or not namespaces:
        return None
    hint = error.get("hint") or f"found in {', '.join(map(str, namespaces))}"
    ask = f"--namespace {namespaces[0]}" if len(namespaces) == 1 else "--namespace and one of them"
    return Failure.of_lines([error["message"], f"  {hint}: ask with {ask}"], BAD_INPUT)


def _with_origin(message: str, sent: Sent) -> str:
    """A message that names a place in the body (``document 4 has no kind``) gets its
    ``file:line`` in front."""
    for found in _PATH.finditer(message):
        if _path_index(found) is None:
            continue
        origin = sent.origin_of_path(found.group(0))
        if origin:
            return f"{origin}: {message}"
    return message
