"""``app/version.py`` is the one version: every image tag the repository writes (the kustomize
``images:``, the manifests' images, the Dockerfile's and the docs' build and run commands) is
the version it holds, so a release changes it in one place and a test finds the rest."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from app.version import __version__

ROOT = Path(__file__).resolve().parents[1]
# `ome-ranker:<tag>` as an image reference (not `ome-ranker:local`, compose's own build, nor a
# cache key prefix `ome-ranker:`).
IMAGE = re.compile(r"(?<![\w./-])ome-ranker:(?P<tag>\d[\w.-]*)")
WRITTEN = [
    ROOT / "Dockerfile",
    ROOT / "README.md",
    *sorted((ROOT / "docs").glob("*.md")),
    *sorted((ROOT / "deploy").rglob("*.md")),
    *sorted((ROOT / "deploy").rglob("*.yaml")),
]


def image_tags(path: Path) -> list[tuple[int, str]]:
    text = path.read_text()
    return [
        (text.count("\n", 0, found.start()) + 1, found.group("tag"))
        for found in IMAGE.finditer(text)
    ]


def test_every_image_tag_written_is_the_version():
    stale = [
        f"{path.relative_to(ROOT)}:{line}: ome-ranker:{tag}"
        for path in WRITTEN
        for line, tag in image_tags(path)
        if tag != __version__
    ]
    assert stale == []


def test_every_kustomization_names_the_image_at_the_version():
    named = {}
    for path in sorted((ROOT / "deploy").rglob("kustomization.yaml")):
        for image in yaml.safe_load(path.read_text()).get("images") or []:
            named[str(path.relative_to(ROOT))] = (image["name"], image.get("newTag"))
    assert named  # the overlays and the sync example name it
    assert set(named.values()) == {("ome-ranker", __version__)}


def test_the_image_is_written_where_it_is_built_run_and_deployed():
    """The build command, the CI step and the manifests each name the image somewhere."""
    for where in (
        "Dockerfile",
        "docs/ci.md",
        "docs/kubernetes.md",
        "deploy/kubernetes/base/deployment.yaml",
    ):
        assert image_tags(ROOT / where), where


def test_the_kubernetes_page_starts_with_building_and_pushing_the_image():
    text = (ROOT / "docs" / "kubernetes.md").read_text()
    first = text.split("\n\n")[1]  # after the title
    assert first.startswith("First build and push the image")
    block = text.split("```bash\n", 1)[1].split("```", 1)[0]
    assert block.splitlines()[0] == f"docker build -t ome-ranker:{__version__} ."
    assert any(line.startswith("docker push ") for line in block.splitlines())
