"""/docs: the spec as one self-contained page that loads nothing from anywhere."""

from __future__ import annotations

import re

from app.api.docs import constraints, prose, type_label


def test_docs_page_lists_every_operation_and_schema(client):
    response = client.get("/docs")
    assert response.status_code == 200
    assert response.mimetype == "text/html"
    page = response.get_data(as_text=True)
    spec = client.get("/openapi.json").get_json()
    for path in spec["paths"]:
        assert f"<code>{path}</code>" in page
    for name in spec["components"]["schemas"]:
        assert f'id="schema-{name}"' in page
    assert "team-llama" in page  # the worked example is shown
    assert "16777216 bytes (16 MiB)" in page  # and the deployment's limits


def test_docs_page_works_offline(client):
    response = client.get("/docs")
    page = response.get_data(as_text=True)
    assert "<script" not in page
    assert not re.search(r"""(?:src|href)=["']?(?:https?:)?//""", page)
    policy = response.headers["Content-Security-Policy"]
    assert "default-src 'none'" in policy


def test_prose_escapes_html_and_marks_code():
    html = str(prose("a <b>bold</b> `x<y`\n\nsecond"))
    assert html == "<p>a &lt;b&gt;bold&lt;/b&gt; <code>x&lt;y</code></p><p>second</p>"
    assert str(prose(None)) == ""


def test_type_labels():
    assert str(type_label({"type": ["string", "null"]})) == "string | null"
    assert str(type_label({"$ref": "#/components/schemas/RuntimeRow"})) == (
        '<a href="#schema-RuntimeRow">RuntimeRow</a>'
    )
    assert str(type_label({"type": "array", "items": {"type": "string"}})) == "array of string"
    assert str(type_label({"type": "object", "additionalProperties": {"type": "string"}})) == (
        "map of string"
    )
    assert str(type_label({"anyOf": [{"type": "integer"}, {"type": "null"}]})) == ("integer | null")
    assert str(type_label(None)) == "any"
    assert constraints({"enum": ["a", None], "maxItems": 3}) == 'one of "a", null; maxItems 3'


def test_no_backtick_reaches_the_reader_outside_examples(client):
    page = client.get("/docs").get_data(as_text=True)
    # Examples are shown as they are (their values may hold backticks); everything else is
    # prose, whose `code` becomes <code>.
    prose_only = re.sub(r"<pre>.*?</pre>", "", page, flags=re.DOTALL)
    assert "`" not in prose_only
    assert "<strong>The stored objects as a <code>kind: List</code>" in page
