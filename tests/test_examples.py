import importlib.util
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1]


def load(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "examples" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_train_mlp_learns():
    losses, accuracy = load("train_mlp").train(steps=300, log_every=0)
    assert losses[-1] < 0.5 * losses[0]
    assert accuracy > 0.8


def test_readme_example_runs():
    text = (ROOT / "README.md").read_text()
    code = text.split("```python\n", 1)[1].split("```", 1)[0]
    scope = {}
    exec(compile(code, "README.md", "exec"), scope)
    assert scope["loss"].item() < 0.1


def test_train_digits_mlp_and_cnn_learn():
    digits = load("train_digits")
    losses, accuracy = digits.train("mlp", epochs=6, progress=False)
    assert losses[-1] < 0.3 * losses[0]
    assert accuracy > 0.9
    losses, accuracy = digits.train("cnn", epochs=3, progress=False)
    assert losses[-1] < 0.3 * losses[0]
    assert accuracy > 0.93


def test_char_lm_beats_the_unigram_baseline():
    test_loss, baseline, sample = load("train_char_lm").train(steps=150, context=32,
                                                               log_every=0)
    assert test_loss < baseline - 0.2          # nats per character, on held-out text
    assert sample.startswith("The ") and len(sample) > 100
