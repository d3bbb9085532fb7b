"""Run in a fresh interpreter of the block environment: resolve torch names and evaluate inline values.

Reads ``{"names": [...], "values": [...]}`` as JSON on stdin and writes one JSON
object on stdout: for each dotted name whether it exists in the installed torch
(and what it is), for each expression its ``str()`` or the exception it raised.
It imports nothing of dpguide, so it runs with the interpreter the blocks use.
"""

import contextlib
import datetime
import importlib
import inspect
import io
import json
import os
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


def main() -> None:
    request = json.load(sys.stdin)
    names = {name: resolve(name) for name in request.get("names", [])}
    scope = namespace() if request.get("values") else {}
    values = {expr: evaluate(expr, scope) for expr in request.get("values", [])}
    json.dump({"names": names, "values": values}, sys.stdout)


if __name__ == "__main__":
    main()
