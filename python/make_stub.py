# SPDX-License-Identifier: MIT
"""Writes the type stub of the arbo package (arbo/__init__.pyi) from the built module's own
introspection: the public names of ``arbo``, the signatures pybind11 generates for the native
module's functions, methods and properties (argument names, types, defaults), and their
docstrings. Run at build time (python/CMakeLists.txt), so the stub cannot drift from the
module; tests/test_stub.py checks that every public name is in it and that it is current.

    PYTHONPATH=build/python python3 python/make_stub.py --out build/python/arbo/__init__.pyi
"""

import argparse
import inspect
import os
import re
import sys
import types

HEADER = '''\
# SPDX-License-Identifier: MIT
# Type stubs of the arbo package, generated from the built module arbo._arbo by
# python/make_stub.py at build time: do not edit (change the bindings' signatures and
# docstrings in python/src/arbo_module.cpp instead).
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

ParamValue = Union[float, int, bool, str]
"""A parameter's value in user units: real, integer, binary (bool) or categorical (str)."""
Params = Dict[str, ParamValue]
"""A point: parameter values by name (inactive parameters absent)."""
'''

# pybind11's names of Python types -> typing's. Bare generic names get their parameters.
_TYPE_RULES = [
    (re.compile(r"\barbo\._arbo\."), ""),
    (re.compile(r"\bnumpy\.ndarray\[[^\]]*\]"), "np.ndarray"),
    (re.compile(r"\bnumpy\.ndarray\b"), "np.ndarray"),
    (re.compile(r"\bdict\b(?!\[)"), "Dict[str, Any]"),
    (re.compile(r"\blist\b(?!\[)"), "List[Any]"),
    (re.compile(r"\btuple\b(?!\[)"), "Tuple[Any, ...]"),
    (re.compile(r"\bobject\b"), "Any"),
    (re.compile(r"\b(?:function|Callable)\b(?!\[)"), "Callable[..., Any]"),
    (re.compile(r"\bIterable\b(?!\[)"), "Iterable[Any]"),
    (re.compile(r"\bSequence\b(?!\[)"), "Sequence[Any]"),
]


def _type(text: str) -> str:
    for pattern, repl in _TYPE_RULES:
        text = pattern.sub(repl, text)
    return text.strip()


def _split_top(text: str):
    """Splits `text` at the commas outside brackets."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    if text[start:].strip():
        parts.append(text[start:])
    return [p.strip() for p in parts]


def _signature(doc: str, name: str):
    """(arguments, return type, docstring) from a pybind11 docstring whose first line is
    `name(args) -> ret` (`(args) -> ret` for a property's getter)."""
    first, _, rest = (doc or "").strip("\n").partition("\n")
    m = re.match(r"^(?:%s)?\((.*)\) -> (.*)$" % re.escape(name), first.strip())
    if not m:
        raise SystemExit(f"make_stub: {name}: no pybind11 signature in its docstring: {first!r}")
    args = []
    for arg in _split_top(m.group(1)):
        if arg in ("*", "/") or arg.startswith("**") or arg.startswith("*"):
            base = arg.split(":")[0].strip()
            args.append(base if base in ("*", "/") else f"{base}: Any")
            continue
        arg_name, _, rest_arg = arg.partition(":")
        annotation, has_default, _ = rest_arg.partition("=")
        arg_name = arg_name.strip()
        if arg_name == "self":
            args.append("self")
            continue
        text = f"{arg_name}: {_type(annotation)}"
        if has_default:
            text += " = ..."
        args.append(text)
    return args, _type(m.group(2)), rest.strip()


def _doc(text: str, indent: str) -> str:
    text = (text or "").strip()
    if not text:
        return ""
    text = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    lines = text.split("\n")
    body = lines[0] + "".join("\n" + (indent + l if l.strip() else "") for l in lines[1:])
    return f'{indent}"""{body}"""\n'


def _function(name, obj, indent="") -> str:
    args, ret, doc = _signature(obj.__doc__, name)
    out = f"{indent}def {name}({', '.join(args)}) -> {ret}:"
    d = _doc(doc, indent + "    ")
    return out + ("\n" + d if d else " ...\n")


def _property(name, prop, indent) -> str:
    _, ret, _ = _signature(prop.fget.__doc__, "")
    out = f"{indent}@property\n{indent}def {name}(self) -> {ret}:"
    d = _doc(prop.__doc__ if prop.__doc__ != prop.fget.__doc__ else "", indent + "    ")
    return out + ("\n" + d if d else " ...\n")


def _class(name, cls) -> str:
    out = [f"class {name}:\n", _doc(cls.__doc__, "    ")]
    for member in sorted(cls.__dict__):
        if member.startswith("_") and not (member.startswith("__") and member.endswith("__")):
            continue
        if member in ("__init__", "__new__", "__doc__", "__module__", "__dict__",
                      "__weakref__", "__qualname__"):
            continue
        value = cls.__dict__[member]
        if isinstance(value, property):
            out.append(_property(member, value, "    "))
        elif callable(value) and getattr(value, "__doc__", None):
            out.append(_function(member, value, "    "))
    return "".join(out)


def _exception(name, cls) -> str:
    bases = ", ".join(b.__name__ for b in cls.__bases__)
    out = f"class {name}({bases}):\n" + _doc(cls.__doc__, "    ")
    if "exit_code" in cls.__dict__:
        out += f"    exit_code: int  # {cls.__dict__['exit_code']}\n"
    elif not _doc(cls.__doc__, "    "):
        out += "    ...\n"
    return out


def public_names(module) -> list:
    """The package's public names: those of __all__, and any other public attribute that is not
    a submodule (arbo.InterruptedError is kept out of __all__ on purpose)."""
    names = set(getattr(module, "__all__", []))
    for name, value in vars(module).items():
        if not name.startswith("_") and not isinstance(value, types.ModuleType):
            names.add(name)
    return sorted(names)


def generate(module) -> str:
    names = public_names(module)
    objs = {n: getattr(module, n) for n in names}
    errors = [n for n in names if inspect.isclass(objs[n]) and issubclass(objs[n], BaseException)]
    errors.sort(key=lambda n: (len(objs[n].__mro__), n))  # bases before their subclasses
    classes = [n for n in names if inspect.isclass(objs[n]) and n not in errors]
    functions = [n for n in names if n not in errors and n not in classes]
    parts = [HEADER]
    parts.append("\n__all__ = [%s]\n" % ", ".join(repr(n) for n in module.__all__))
    for n in errors:
        parts.append("\n" + _exception(n, objs[n]))
    for n in classes:
        parts.append("\n" + _class(n, objs[n]))
    parts.append("\n")
    for n in functions:
        parts.append(_function(n, objs[n]))
    return "".join(parts)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True, help="the .pyi file to write")
    args = parser.parse_args()
    # The built package (PYTHONPATH), not the sources beside this script.
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    import arbo

    text = generate(arbo)
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
