"""URLs as the service may log or show them: without the secrets a URL can hold.

A Redis URL carries its password in its userinfo (``redis://user:secret@host``) or in its query
(``?password=secret``), and the value that reaches a message is often one that does not parse:
a password with an unencoded ``/``, ``#`` or ``@`` moves the host, a typo in the scheme makes it
no URL at all. So redaction does not trust the URL's structure: everything from the ``://`` (or
the start) to the last ``@`` is userinfo, of which only a user name before a ``:`` is kept; every
query value whose name holds ``pass`` is hidden. It may hide more than a secret, never less.
"""

from __future__ import annotations

import re

HIDDEN = "***"
# A scheme as RFC 3986 spells it, where a URL begins inside a longer text.
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://")
# Inside a text, a URL runs to the first blank or quote.
_URL_IN_TEXT = re.compile(r"""[A-Za-z][A-Za-z0-9+.\-]*://[^\s'"<>]*""")
_PASSWORD_PARAMETER = re.compile(r"(?i)([?&;][^=&;#\s]*pass[^=&;#\s]*=)[^&;#\s]*")


def redact_url(value: str) -> str:
    """``value``, a URL or what was meant to be one (several, comma-separated, too), with
    every password replaced by ``***``: ``redis://user:***@host:6379/0``."""
    # Cut after each "scheme://": each piece is what follows one scheme (the first, what comes
    # before any), and its userinfo runs to its last "@".
    cuts = [0, *(match.end() for match in _SCHEME.finditer(value))]
    pieces = (value[begin:end] for begin, end in zip(cuts, [*cuts[1:], len(value)], strict=True))
    return _PASSWORD_PARAMETER.sub(rf"\1{HIDDEN}", "".join(map(_without_userinfo, pieces)))


def redact_urls(text: str) -> str:
    """``text``, a message that may quote URLs (an exception's), with each one redacted."""
    return _URL_IN_TEXT.sub(lambda match: redact_url(match.group()), text)


def _without_userinfo(rest: str) -> str:
    """``rest``, what follows a ``scheme://``, with the password of its userinfo hidden."""
    at = rest.rfind("@")
    if at < 0:
        return rest
    user, colon, _password = rest[:at].partition(":")
    # Without a colon the userinfo is a user name, or a password written as one: hidden.
    return f"{user}:{HIDDEN}{rest[at:]}" if colon else f"{HIDDEN}{rest[at:]}"
