"""The published metaschemas are built in: a ``$ref`` to one works offline, without ``resources=``, and costs
nothing to a process whose schemas never name one."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mcptools import SchemaError
from mcptools._validation import compile_schema
from mcptools._validation.metaschemas import builtin_metaschema

METASCHEMAS = Path(__file__).parent.parent / "mcptools" / "_validation" / "metaschemas"
VOCABULARIES = [
    "core",
    "applicator",
    "unevaluated",
    "validation",
    "meta-data",
    "format-annotation",
    "format-assertion",
    "content",
]


def test_the_2020_12_metaschema_checks_schemas() -> None:
    meta = compile_schema({"$ref": "https://json-schema.org/draft/2020-12/schema"})
    assert meta.is_valid({"type": "object", "properties": {"a": {"minLength": 1}}, "$defs": {"b": True}})
    assert not meta.is_valid({"type": "strin"})
    assert not meta.is_valid({"properties": {"a": {"minLength": -1}}})
    assert not meta.is_valid({"$defs": {"b": 5}})
    assert meta.errors({"minLength": -1}) == ["property 'minLength' must be >= 0"]


@pytest.mark.parametrize("name", VOCABULARIES)
def test_each_vocabulary_metaschema_resolves(name: str) -> None:
    uri = f"https://json-schema.org/draft/2020-12/meta/{name}"
    assert compile_schema({"$ref": uri}).is_valid({})
    document = builtin_metaschema(uri)
    assert isinstance(document, dict)
    assert document["$id"] == uri


def test_the_draft_07_metaschema_checks_draft_07_schemas() -> None:
    for uri in ("http://json-schema.org/draft-07/schema#", "http://json-schema.org/draft-07/schema"):
        meta = compile_schema({"$ref": uri})
        assert meta.is_valid({"definitions": {"a": {"type": "string"}}, "items": [{"type": "integer"}]})
        assert not meta.is_valid({"definitions": {"a": {"type": "strin"}}})
        assert not meta.is_valid({"items": [{"minItems": -1}]})
        assert not meta.is_valid({"dependencies": {"a": 5}})


def test_unknown_uris_under_json_schema_org_still_refuse() -> None:
    for uri in ("https://json-schema.org/draft/2020-12/meta/nope", "https://json-schema.org/draft/2019-09/schema"):
        assert builtin_metaschema(uri) is None
        with pytest.raises(SchemaError, match="never fetches remote references"):
            compile_schema({"$ref": uri})


def test_resources_given_by_the_caller_win_over_the_built_in_copy() -> None:
    mine: dict[str, Any] = {"type": "integer"}
    checker = compile_schema(
        {"$ref": "https://json-schema.org/draft/2020-12/schema"},
        resources={"https://json-schema.org/draft/2020-12/schema": mine},
    )
    assert checker.is_valid(3)
    assert not checker.is_valid({"type": "string"})


def test_the_shipped_documents_are_the_published_ones() -> None:
    # The ids say which published document each file is; NOTICE.md credits their authors and licence.
    assert json.loads((METASCHEMAS / "draft2020-12" / "schema.json").read_text())["$id"] == (
        "https://json-schema.org/draft/2020-12/schema"
    )
    assert json.loads((METASCHEMAS / "draft-07" / "schema.json").read_text())["$id"] == (
        "http://json-schema.org/draft-07/schema#"
    )
    assert "AFL or BSD" in (METASCHEMAS / "NOTICE.md").read_text()


def test_importing_mcptools_or_compiling_plain_schemas_loads_no_metaschema() -> None:
    code = (
        "import sys, mcptools\n"
        "from mcptools._validation import compile_schema\n"
        "compile_schema({'type': 'object', 'properties': {'a': {'$ref': '#/$defs/b'}}, '$defs': {'b': {}}})\n"
        "print('mcptools._validation.metaschemas' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
