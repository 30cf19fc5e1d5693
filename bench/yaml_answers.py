"""``python -m bench.yaml_answers``: what writing an answer as YAML costs, against JSON.

For rankings of 1 000 and 10 000 runtimes of ``bench/manifests.py`` (the answer of
``POST /v1/rank``), in the same interleaved rounds (medians after a warm-up): ``to_json``, the
service's YAML writer (``to_yaml``, app/rendering/yaml_writer.py), and PyYAML's ``safe_dump``
(the writer answers used before), with and without libyaml's C emitter. The writer's output is
checked to read back as the answer.
"""

from __future__ import annotations

import argparse
import sys

import yaml

from app.rendering.encode import to_json, to_yaml
from app.rendering.ranking_body import ranking_body
from app.schemas.requests import load_rank_request
from app.selection.prediction import rank_and_place

from .manifests import rank_request_body
from .report import Table
from .timing import Budget, compare, milliseconds, size_label

SIZES = (1_000, 10_000)


def answer_of(runtimes: int) -> dict:
    request = load_rank_request(rank_request_body(runtimes), {})
    return ranking_body(rank_and_place(request, with_advice=True))


def measure(sizes: tuple[int, ...], budget: Budget) -> Table:
    table = Table(
        "An answer as YAML: the service's writer, PyYAML's, and JSON",
        ("runtimes", "YAML", "to_json ms", "to_yaml ms", "safe_dump (C) ms", "safe_dump ms"),
    )
    for size in sizes:
        answer = answer_of(size)
        written = to_yaml(answer)
        if yaml.load(written, Loader=yaml.CSafeLoader) != answer:
            raise SystemExit(f"the YAML of {size} runtimes does not read back as the answer")
        stats = compare(
            {
                "json": lambda answer=answer: to_json(answer),
                "writer": lambda answer=answer: to_yaml(answer),
                "c": lambda answer=answer: yaml.dump(
                    answer, Dumper=yaml.CSafeDumper, sort_keys=False, allow_unicode=True
                ),
                "python": lambda answer=answer: yaml.safe_dump(
                    answer, sort_keys=False, allow_unicode=True
                ),
            },
            budget,
        )
        table.add(
            f"{size:,}".replace(",", " "),
            size_label(len(written)),
            *(milliseconds(stats[name].median) for name in ("json", "writer", "c", "python")),
        )
    table.notes.append("medians after a warm-up, the four in interleaved rounds")
    return table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.yaml_answers", description=__doc__)
    parser.add_argument("--budget", type=float, default=10.0, help="seconds per size (10)")
    parser.add_argument("--runs", type=int, default=3, help="rounds at least per size (3)")
    args = parser.parse_args(argv)
    print(measure(SIZES, Budget(args.budget, min_runs=args.runs)).markdown(), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
