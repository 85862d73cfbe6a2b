import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_ops_md_is_current():
    generated = subprocess.run([sys.executable, "-m", "minflow.ops.catalog"], cwd=ROOT,
                               capture_output=True, text=True, check=True).stdout
    current = (ROOT / "docs" / "ops.md").read_text()
    assert current == generated, "docs/ops.md is stale: python -m minflow.ops.catalog > docs/ops.md"


def test_list_ops_describes_kernels_and_grads():
    import minflow
    rows = {r["name"]: r for r in minflow.ops.list_ops()}
    assert rows["exp"]["kernels"]["cpu"] == ["float16", "float32", "float64"]
    assert rows["exp"]["grad"] and not rows["eq"]["grad"]
    assert rows["div"]["attrs"][0] == {"name": "rounding_mode", "type": "str", "default": None,
                                       "required": False}
