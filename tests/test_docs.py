import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_ops_md_is_current():
    generated = subprocess.run([sys.executable, "-m", "minflow.ops.catalog"], cwd=ROOT,
                               capture_output=True, text=True, check=True).stdout
    current = (ROOT / "docs" / "ops.md").read_text()
    assert current == generated, "docs/ops.md is stale: python -m minflow.ops.catalog > docs/ops.md"


def test_list_ops_describes_kernels_and_grads():
    import minflow
    rows = {r["name"]: r for r in minflow.ops.list_ops()}
    assert rows["exp"]["kernels"]["cpu"] == ["float16", "float32", "float64", "complex64",
                                             "complex128"]
    assert rows["exp"]["grad"] and not rows["eq"]["grad"]
    assert rows["div"]["attrs"][0] == {"name": "rounding_mode", "type": "str", "default": None,
                                       "required": False}


DOC_PAGES = ["architecture.md", "adding_an_op.md", "graph.md", "numerics.md"]


@pytest.mark.parametrize("page", DOC_PAGES)
def test_doc_page_code_blocks_run(page):
    """Each page's ```python blocks run in order, in one namespace, as written."""
    import re
    text = (ROOT / "docs" / page).read_text()
    scope = {}
    for i, block in enumerate(re.findall(r"```python\n(.*?)```", text, re.S)):
        exec(compile(block, f"docs/{page}[block {i}]", "exec"), scope)


def test_readme_links_every_doc_page():
    readme = (ROOT / "README.md").read_text()
    for page in DOC_PAGES + ["ops.md"]:
        assert f"(docs/{page})" in readme and (ROOT / "docs" / page).exists()
    assert "notebooks/" in readme
