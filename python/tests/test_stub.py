# SPDX-License-Identifier: MIT
# The type stub arbo/__init__.pyi, generated at build time by python/make_stub.py: it exists
# beside the package, it is what the generator writes for the module as built (so not stale),
# every public name of the module is in it and nothing else, with the module's docstrings.
import ast
import importlib.util
import inspect
import os

import arbo

SOURCE = os.environ["ARBO_SOURCE_DIR"]


def load_generator():
    spec = importlib.util.spec_from_file_location(
        "make_stub", os.path.join(SOURCE, "python", "make_stub.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def stub_text():
    path = os.path.join(os.path.dirname(arbo.__file__), "__init__.pyi")
    with open(path, encoding="utf-8") as f:
        return f.read()


def members(tree):
    """Top-level names and, per class, its members, of a parsed stub."""
    top, classes = set(), {}
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            top.add(node.name)
        if isinstance(node, ast.ClassDef):
            classes[node.name] = {n.name: n for n in node.body if isinstance(n, ast.FunctionDef)}
        if isinstance(node, ast.Assign):
            top.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return top, classes


def test_the_stub_is_what_the_generator_writes_for_this_module():
    assert stub_text() == load_generator().generate(arbo)


def test_every_public_name_is_in_the_stub_and_nothing_else():
    top, classes = members(ast.parse(stub_text()))
    public = set(load_generator().public_names(arbo))
    assert "InterruptedError" in public and "predict" not in public
    helpers = {"ParamValue", "Params", "__all__"}
    assert top - helpers == public
    study = {n for n in dir(arbo.Study) if not n.startswith("_")} | {
        n for n in vars(arbo.Study) if n in ("__len__", "__enter__", "__exit__")}
    assert set(classes["Study"]) == study
    assert {"predict", "parameters", "ask", "tell", "optimize", "best"} <= study


def test_the_stub_carries_signatures_and_docstrings():
    tree = ast.parse(stub_text())
    _, classes = members(tree)
    predict = classes["Study"]["predict"]
    assert [a.arg for a in predict.args.args] == ["self", "points"]
    assert ast.unparse(predict.returns) == "Tuple[np.ndarray, np.ndarray]"
    doc = inspect.cleandoc(arbo.Study.predict.__doc__.split("\n", 1)[1])
    assert ast.get_docstring(predict) == doc
    ask = classes["Study"]["ask"]
    assert ast.unparse(ask.returns) == "Tuple[int, Dict[str, Any]]"
    best = classes["Study"]["best"]
    assert [ast.unparse(d) for d in best.decorator_list] == ["property"]
    assert ast.get_docstring(best) == arbo.Study.best.__doc__
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    create = functions["create_study"]
    assert [a.arg for a in create.args.args] == ["directory", "file"]
    assert [a.arg for a in create.args.kwonlyargs] == ["toml", "overrides"]
    assert "doc: the summary and the parameters" in ast.get_docstring(functions["plugins"])
    errors = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    assert [ast.unparse(b) for b in errors["InterruptedError"].bases] == [
        "Error", "KeyboardInterrupt"]
