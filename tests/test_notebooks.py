"""The teaching notebooks run top to bottom (code cells exec'd in order in one namespace,
no Jupyter kernel; matplotlib on the Agg backend), and compute what their text says."""
import json
import pathlib
import time

import pytest

import minflow

ROOT = pathlib.Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def run_notebook(path):
    """Exec every code cell of ``path``; the namespace at the end."""
    pytest.importorskip("matplotlib")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    cells = json.loads(path.read_text())["cells"]
    scope = {"__name__": "__main__"}
    start = time.perf_counter()
    try:
        for i, cell in enumerate(cells):
            if cell["cell_type"] != "code":
                continue
            assert not cell.get("outputs"), f"{path.name}: cell {i} has committed outputs"
            code = "".join(cell["source"])
            exec(compile(code, f"{path.name}[cell {i}]", "exec"), scope)
    finally:
        plt.close("all")
    seconds = time.perf_counter() - start
    assert seconds < 120, f"{path.name} took {seconds:.0f} s; each notebook runs in under 2 min"
    return scope


def test_notebooks_exist():
    assert [p.stem[:2] for p in NOTEBOOKS] == ["01", "02", "03", "04"]


def test_tensors_and_autograd():
    scope = run_notebook(NOTEBOOKS[0])
    assert scope["promotions"]["int64 * 2.5"] is minflow.float32
    assert scope["promotions"]["float32 * 2.5"] is minflow.float32
    assert scope["y"].device.type == "meta" and tuple(scope["y"].shape) == (1000,)
    assert scope["w"].grad.tolist() == pytest.approx([3.0, 0.3, 3.0])
    assert "modified by an inplace operation" in scope["message"]
    assert (scope["first"].item(), scope["second"].item()) == (12.0, 12.0)


def test_add_an_op():
    scope = run_notebook(NOTEBOOKS[1])
    try:
        assert scope["graph_grad"] == pytest.approx([0.1, 1.0])
        assert not scope["report"].failures and scope["report"].counts["graph_grads"] >= 2
        assert scope["losses"][-1] < 0.3 * scope["losses"][0] and scope["accuracy"] > 0.9
        run_notebook(NOTEBOOKS[1])          # runs again in the same process
    finally:
        if hasattr(minflow.ops, "tutorial"):
            minflow.library.unload("tutorial")


def test_nn_graph(monkeypatch):
    scope = run_notebook(NOTEBOOKS[2])
    assert set(scope["roles"]) == {"forward", "backward", "optimizer"}
    assert scope["dot"].startswith("digraph")
    # the DOT text read back: one box per op, coloured by role
    colors = [scope["drawn"].nodes[n]["color"] for n in scope["drawn"] if n.startswith("n")]
    assert {c: colors.count(c) for c in colors} == {
        "lightblue": len(scope["roles"]["forward"]), "lightsalmon": len(scope["roles"]["backward"]),
        "palegreen": len(scope["roles"]["optimizer"])}
    import matplotlib.pyplot as plt
    monkeypatch.setattr(scope["shutil"], "which", lambda name: None)   # without graphviz
    fig, ax = plt.subplots()
    assert scope["draw_dot"](scope["dot"], ax) == "networkx"
    plt.close(fig)
    assert scope["memory"]["peak_bytes"] <= scope["memory"]["no_reuse_bytes"]
    assert scope["t_eager"] > 0 and scope["t_graph"] > 0


def test_train_digits():
    pytest.importorskip("sklearn")
    scope = run_notebook(NOTEBOOKS[3])
    results = scope["results"]
    assert set(results) == {"SGD", "SGD momentum", "Adam", "RMSprop"}
    for name in ("SGD momentum", "Adam", "RMSprop"):
        assert results[name][1][-1] > 0.9, name
    assert results["SGD"][0][-1] > results["Adam"][0][-1]


@pytest.mark.parametrize("index", range(4))
def test_runs_in_a_jupyter_kernel(index):
    """The same notebook in a real kernel (where nbclient and ipykernel are installed):
    no cell fails, and the figures show inline."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    if index == 3:
        pytest.importorskip("sklearn")
    notebook = nbformat.read(NOTEBOOKS[index], as_version=4)
    nbclient.NotebookClient(notebook, timeout=120, kernel_name="python3",
                            resources={"metadata": {"path": str(ROOT)}}).execute()
    outputs = [o for c in notebook.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    figures = sum("image/png" in o.get("data", {}) for o in outputs)
    assert figures == [0, 0, 1, 2][index]
