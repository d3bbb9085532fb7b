"""Run in a fresh interpreter of the block environment: resolve torch names and evaluate inline values.

Reads ``{"names": [...], "values": [...], "sources": [...]}`` as JSON on stdin and writes one
JSON object on stdout: for each dotted name whether it exists in the installed torch (and what it
is), for each expression its ``str()`` or the exception it raised, for each cited source
(``torch/PATH[:NAME]``) whether the installed torch has that file and the name occurs in it.
It imports nothing of dpguide, so it runs with the interpreter the blocks use.
"""

import contextlib
import datetime
import importlib
import inspect
import io
import json
import importlib.util
import os
import re
import sys


def resolve(name: str) -> dict:
    """Follow a dotted name attribute by attribute, importing submodules on the way."""
    parts = name.split(".")
    try:
        obj = importlib.import_module(parts[0])
    except ImportError as exc:
        return {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
    path = parts[0]
    for part in parts[1:]:
        path += "." + part
        if inspect.ismodule(obj) and not hasattr(obj, part):
            try:
                obj = importlib.import_module(path)
                continue
            except ImportError:
                pass
        try:
            obj = getattr(obj, part)
        except AttributeError:
            return {"ok": False, "error": f"{path.rsplit('.', 1)[0]} has no attribute {part!r}"}
    if inspect.ismodule(obj):
        kind = "module"
    elif inspect.isclass(obj):
        kind = "class"
    elif callable(obj):
        kind = "function"
    else:
        kind = "data"
    return {"ok": True, "kind": kind}


def namespace() -> dict:
    import torch
    import torch.distributed as dist
    import torch.multiprocessing as mp
    import torch.nn as nn
    import torch.nn.functional as F

    return {"torch": torch, "dist": dist, "nn": nn, "F": F, "mp": mp, "os": os, "sys": sys, "datetime": datetime}


def evaluate(expression: str, scope: dict) -> dict:
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            value = eval(compile(expression, "<inline value>", "eval"), dict(scope))
    except Exception as exc:  # noqa: BLE001 - the author is told what the expression raised
        return {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
    return {"ok": True, "value": str(value)}


def site_packages() -> str:
    """The folder the installed torch package is in (found without importing torch)."""
    spec = importlib.util.find_spec("torch")
    return os.path.dirname(os.path.dirname(spec.origin))


def check_source(target: str) -> dict:
    """Whether ``torch/PATH[:NAME]`` is a file of the installed torch and NAME occurs in it."""
    path, _, name = target.partition(":")
    full = os.path.join(site_packages(), *path.split("/"))
    if not os.path.isfile(full):
        return {"ok": False, "error": f"the installed torch has no file {path}"}
    if name:
        with open(full, encoding="utf-8", errors="replace") as source:
            text = source.read()
        last = re.split(r"\.|::", name)[-1]
        if not re.search(rf"(?<![\w]){re.escape(last)}(?![\w])", text):
            return {"ok": False, "error": f"{name!r} does not occur in {path}"}
    return {"ok": True}


def main() -> None:
    request = json.load(sys.stdin)
    names = {name: resolve(name) for name in request.get("names", [])}
    scope = namespace() if request.get("values") else {}
    values = {expr: evaluate(expr, scope) for expr in request.get("values", [])}
    sources = {target: check_source(target) for target in request.get("sources", [])}
    json.dump({"names": names, "values": values, "sources": sources}, sys.stdout)


if __name__ == "__main__":
    main()
