"""Bodies on which rapidyaml 0.15.2 overruns its pending annotations never reach it
(app/reading/ryml_reader.py, ``_overruns_ryml``).

ryml keeps at most two tags and two anchors waiting for their node, bounded only by an assertion
that release builds leave out: a third is written past the array and the parse reads wild memory
(``!\\n! !\\n!`` is a SIGSEGV every time). A crash would take the whole process down, so each body
is loaded in a child process: it must exit normally and give the PyYAML path's answer.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections.abc import Callable

import pytest

from app.reading import pyyaml_reader, ryml_reader, yaml_loader
from app.reading.decoding import MalformedRequest
from tests.paths import ROOT

# A body past the size under which the fast path leaves an unsure body to the PyYAML path
# untouched: ryml still counts such a body, whatever bytes it holds.
LARGE = b"# " + b"x" * (ryml_reader._SMALL + 1024) + b"\n"

# Minimal bodies, each shrunk from one that reached a bug in a build of 0.15.2 that reports them.
OVERRUNS = {
    "a third tag on the next line, then a fourth (SIGSEGV)": b"!\n! !\n!",
    "a tag on each of four lines (SIGSEGV)": b"!\n!\n!\n!",
    "a third tag on the second line": b"!\n! !",
    "a third anchor on the second line": b"&a\n&b &c x",
    "a tag ending a sequence entry's line": b"- !a\n  !b !c x",
    "a tag right after a closing quote (SIGSEGV)": b'"q"!a\n! !\n!',
    "a tag after a closing quote, the only one ending its line": b'"q"!a\n!b !c x',
    "a tag after a closing quote that follows a blank": b'" "!"\n! ! .',
    "a verbatim tag with a blank in it": b'""!< >\n! ! z\n',
    "a tag named on past `]`, then a comment": b"!]' #' -\n! ! k",
    "a tag after the quote that ends a quoted scalar (SIGSEGV)": b'"a\n "!b"\n! !\n!',
    "a tag after a spanning scalar's quote, the only one ending its line": b'"a\n "!b"\n!c !d x',
    "an anchor before a quoted key that spans lines (unreachable code)": b"& '\n':",
    "three tags in a flow sequence of a large body": LARGE + b"[!a !b !c x]\n",
    "tags across a flow sequence of a large body (SIGSEGV)": LARGE + b"[\n!\n! !\n!]",
    "a tag, then a tab on the next line, in a large body": LARGE + b"!\n\t:",
}

# In a child process: one body per line of stdin (hex), one JSON answer per line of stdout.
LOAD_EACH = """
import json, sys
from app.errors import MalformedRequest
from app.reading.yaml_loader import load_documents
for line in sys.stdin:
    try:
        answer = {"documents": load_documents(bytes.fromhex(line))}
    except MalformedRequest as exc:
        answer = {"refused": str(exc)}
    print(json.dumps(answer), flush=True)
"""


def answer(load: Callable[[bytes], list], raw: bytes) -> dict:
    """The documents ``load`` gives, or its refusal, as the child writes them."""
    try:
        return {"documents": json.loads(json.dumps(load(raw)))}
    except MalformedRequest as exc:
        return {"refused": str(exc)}


def pyyaml_answer(raw: bytes) -> dict:
    return answer(pyyaml_reader.pyyaml_documents, raw)  # that path never calls ryml


def assert_loaded_as_pyyaml_in_a_child(bodies: list[bytes]) -> None:
    child = subprocess.run(
        [sys.executable, "-X", "faulthandler", "-c", LOAD_EACH],
        input="".join(body.hex() + "\n" for body in bodies).encode(),
        capture_output=True,
        cwd=ROOT,
        timeout=120,
    )
    answers = child.stdout.decode().splitlines()
    crashed_on = bodies[len(answers)] if len(answers) < len(bodies) else None
    assert child.returncode == 0, (crashed_on, child.stderr.decode()[-2000:])
    for body, answer in zip(bodies, answers, strict=True):
        assert json.loads(answer) == pyyaml_answer(body), body


@pytest.mark.parametrize("raw", OVERRUNS.values(), ids=OVERRUNS.keys())
def test_a_body_ryml_would_overrun_loads_as_the_pyyaml_path_in_a_process_that_lives(raw):
    assert_loaded_as_pyyaml_in_a_child([raw])


@pytest.mark.parametrize("raw", OVERRUNS.values(), ids=OVERRUNS.keys())
def test_a_body_ryml_would_overrun_is_kept_from_it(raw):
    # Not every overrun crashes the wheel's build (that depends on what it overwrites): each
    # must still be kept from ryml. (Asked here, never tried: a crash would end the test run.)
    unsure = ryml_reader._unsure(raw)
    assert unsure == raw.startswith(LARGE)  # the small ones would have been given to ryml
    assert ryml_reader._overruns_ryml(raw, unsure)


# Heads that leave annotations waiting past their line, and what may follow them.
HEADS = [b"!\n! !", b"!x\n!y !z", b"!!str\n!!str !!str", b"&a\n&b &c", b"k:\n  !\n  ! !"]
TAILS = [
    "kind: ", "x", "y z", "\n", "  ", "- ", "---\n", ": ", "? ", "'q'", '"d"', "!!str ", "&a ",
    "*a", "!=", "1.5", "# c\n", "<<: ", "|\n", ":", "-", "é",
]  # fmt: skip


def test_bodies_built_around_waiting_annotations_load_as_the_pyyaml_path():
    # Without the guard, 25 of these 400 killed the process that loaded them.
    rng = random.Random(20261204)
    bodies = [
        rng.choice([b"", b"#" + b"x" * rng.randrange(200) + b"\n"])
        + rng.choice(HEADS)
        + "".join(rng.choices(TAILS, k=rng.randrange(12))).encode()
        for _ in range(400)
    ]
    assert_loaded_as_pyyaml_in_a_child(bodies)


@pytest.mark.parametrize(
    "raw",
    [
        b'b: "!important"\nc: "a && b"\nd: "{% if x != y %}"\ne: "Wow !"\n',  # inside quotes
        b"a: 'it''s &'\nb: \"a\\\" !b\"\n",  # inside quotes, after an escaped quote
        b'a: !a]"x y" #c\n',  # a tag and a quoted scalar, however ryml ends the tag's name
        b"a: x&y\nb: x!\nc: a && b\n",  # inside words, or followed on their line
        b"a: &a 1\nb: !!str 2\n",  # real ones, consumed on their line: the tree finds them
    ],
)
def test_annotation_marks_that_cannot_be_left_waiting_still_reach_ryml(raw):
    assert not ryml_reader._overruns_ryml(raw, unsure=False)
    assert ryml_reader._parse(raw, unsure=False) is not None


@pytest.mark.parametrize(
    "raw",
    [
        b"cmd: |\n  ./serve &\n  wait\n",  # a shell line that backgrounds: could be an anchor
        b'a: "one\n  two"\nb: "!x"\n',  # after a quoted scalar spans lines, `"!` may be a tag
        b'- a "b: !c"\n',  # ryml may end the plain scalar at `: ` and read a tag `!c"`
    ],
)
def test_a_string_that_merely_looks_like_a_waiting_annotation_gets_the_same_answer(raw):
    assert ryml_reader._overruns_ryml(raw, unsure=False)
    assert answer(yaml_loader.load_documents, raw) == pyyaml_answer(raw)
