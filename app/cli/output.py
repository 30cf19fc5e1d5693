"""What the command line prints: the API's answers (exactly, when piped), tables wrapped to a
terminal, and one-line errors on stderr with the exit codes of the README."""

from __future__ import annotations

import shutil
import sys
import textwrap
from typing import Any

import click

from app.rendering.encode import printable, text_table, to_yaml

# Exit codes (docs/cli.md "Exit codes"): 4 when the runtime is right but a component's class is
# not the one --expect-class pins.
NOT_SELECTED, BAD_INPUT, UNAVAILABLE, OTHER_CLASS = 1, 2, 3, 4
MIN_CELL_WIDTH = 20  # a wrapped cell never gets narrower than this, whatever the terminal
CONTINUATION = "    "


class Failure(click.ClickException):
    """Printed as ``error: <message>`` on stderr; the command exits with ``exit_code``."""

    def __init__(self, message: str, exit_code: int = BAD_INPUT) -> None:
        super().__init__(message)
        # click declares exit_code a ClassVar (one per exception class), but reads it from the
        # instance (Command.main), so an instance value sets this failure's exit status.
        self.exit_code = exit_code  # type: ignore[misc]

    @classmethod
    def of_lines(cls, lines: list[str], exit_code: int = BAD_INPUT) -> Failure:
        """A message of several lines, each printable: what one line quotes from an answer
        cannot start another."""
        return cls("\n".join(printable(line) for line in lines), exit_code)

    def show(self, file: Any = None) -> None:
        click.echo(f"error: {self.format_message()}", err=True)


def to_terminal() -> bool:
    return sys.stdout.isatty()


def width() -> int:
    return shutil.get_terminal_size().columns


def echo_bytes(body: bytes) -> None:
    """An answer as the API sent it, ending with a newline."""
    click.echo(body if body.endswith(b"\n") else body + b"\n", nl=False)


def echo_table(text: str) -> None:
    """A text table: exactly as given when piped, wrapped to the terminal on one."""
    click.echo(wrap_table(text, width()) if to_terminal() else text, nl=False)


def echo_lines(lines: list[str]) -> None:
    """Lines that may be long (messages): wrapped, indented, on a terminal."""
    for line in map(printable, lines):
        click.echo(wrap_line(line, width()) if to_terminal() else line)


def echo_yaml(value: Any) -> None:
    """A JSON answer written as YAML, as the service writes YAML (for an endpoint that
    answers JSON only)."""
    click.echo(to_yaml(value), nl=False)


def warn(message: str) -> None:
    click.echo(f"Warning: {printable(message)}", err=True)


def note(message: str) -> None:
    click.echo(printable(message), err=True)


def table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    """The API's table layout (kubectl's): columns three spaces apart, the last unpadded."""
    return text_table([header, *rows])


def wrap_table(text: str, columns: int) -> str:
    """Wrap each row's last cell (REASON, MESSAGE) within ``columns``, continuation lines
    aligned under it; words are never cut. The header says where the last column starts."""
    lines = text.splitlines()
    if not lines or not lines[0].strip():
        return text
    start = len(lines[0]) - len(lines[0].split()[-1])
    room = max(columns - start, MIN_CELL_WIDTH)
    out = []
    for line in lines:
        if len(line) <= columns:
            out.append(line)
            continue
        pieces = textwrap.wrap(
            line[start:], room, break_long_words=False, break_on_hyphens=False
        ) or [""]
        out.append(line[:start] + pieces[0])
        out.extend(" " * start + piece for piece in pieces[1:])
    return "".join(line + "\n" for line in out)


def wrap_line(line: str, columns: int) -> str:
    if len(line) <= columns:
        return line
    return textwrap.fill(
        line,
        max(columns, MIN_CELL_WIDTH),
        subsequent_indent=CONTINUATION,
        break_long_words=False,
        break_on_hyphens=False,
    )
