"""Notebook lessons: executed once per change in a real Jupyter kernel, cached, rendered by mkdocs-jupyter.

The committed ``.ipynb`` holds no outputs. The engine runs it with nbclient in
a scratch directory (a cell tagged ``raises-exception`` must raise; any other
cell that raises fails the build, naming the cell), stores the executed copy in
the cache sealed with a digest, and points MkDocs at that copy, so the page
and its download show the outputs of that real execution. Nothing is
re-executed while the notebook's cells and the environment stay the same.

Shown outputs name no path of the build machine, as a block's output names
none: the run's scratch folder is removed from paths (``./nb_ddp.py`` reads
``nb_ddp.py``), and the installed packages, the interpreter's own library and the
virtual environment read ``<site-packages>``, ``<stdlib>`` and ``<venv>`` (see
``launch.MACHINE_PATHS``).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import uuid
from pathlib import Path

from . import ENGINE_VERSION, guardian, processes
from .cache import atomic_write_json
from .errors import BlockFailed
from .launch import MACHINE_PATHS

CELL_TIMEOUT_S = 180

#: how shown outputs are rewritten; part of the cache key, so a change re-executes cached copies
OUTPUT_REWRITE = 1


def _sources(nb: dict) -> list:
    return [(cell.get("cell_type"), "".join(cell.get("source", "")), sorted(cell.get("metadata", {}).get("tags", [])))
            for cell in nb.get("cells", [])]


def notebook_key(nb: dict, environment: dict) -> str:
    payload = {"engine": ENGINE_VERSION, "cells": _sources(nb), "environment": environment,
               "rewrite": OUTPUT_REWRITE}
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def _seal(nb: dict) -> str:
    return hashlib.sha256(json.dumps(nb.get("cells", []), sort_keys=True).encode()).hexdigest()


class NotebookRunner:
    def __init__(self, cache_dir: Path, scratch_root: Path, env: dict[str, str], environment: dict, log=print):
        self.cache_dir = Path(cache_dir) / "notebooks"
        self.scratch_root = Path(scratch_root)
        self.env, self.environment, self.log = env, environment, log

    def executed(self, page: str, source: Path) -> Path:
        """The path of an executed copy of ``source`` (from the cache, or executed now)."""
        nb = json.loads(source.read_text(encoding="utf-8"))   # no nbformat import on a cache hit
        for cell in nb.get("cells", []):          # one string per source, however the file stores it
            if isinstance(cell.get("source"), list):
                cell["source"] = "".join(cell["source"])
        key = notebook_key(nb, self.environment)
        target = self.cache_dir / key[:16] / source.name
        if self._valid(target, key):
            return target
        self.log(f"[dpguide] executing notebook {page}")
        executed = self._execute(page, nb, key)
        executed.setdefault("metadata", {})["dpguide"] = {"key": key, "seal": _seal(executed)}
        atomic_write_json(target, executed)
        return target

    def _valid(self, path: Path, key: str) -> bool:
        try:
            nb = json.loads(path.read_text(encoding="utf-8"))
            meta = nb["metadata"]["dpguide"]
            if meta["key"] == key and meta["seal"] == _seal(nb):
                return True
            raise ValueError("key or seal does not match")
        except FileNotFoundError:
            return False
        except (ValueError, KeyError, TypeError) as exc:
            self.log(f"[dpguide] cached notebook {path} is invalid ({exc}); executing again")
            shutil.rmtree(path.parent, ignore_errors=True)
            return False

    def _execute(self, page: str, nb: dict, key: str) -> dict:
        import nbformat
        from nbclient import NotebookClient
        from jupyter_client.manager import AsyncKernelManager
        from nbclient.exceptions import CellExecutionError, CellTimeoutError

        notebook = nbformat.reads(json.dumps(nb), as_version=4)
        # a folder of this run's own: two builds running the same notebook never share one
        workdir = guardian.new_scratch_dir(self.scratch_root, f"nb-{key[:12]}")
        token = uuid.uuid4().hex
        # the build's marker too, as every block process has it: if the build is killed, its guardian
        # ends the kernel and whatever a cell started
        env = {**self.env, **guardian.marker_env(), processes.MARKER: token}
        # the kernel talks over Unix sockets in a folder of this run's own: with TCP it would take
        # ports that were free a moment before it binds them, a race two builds can lose. The folder
        # is short on purpose (a socket's path has at most 107 bytes) and absolute (the kernel runs
        # in workdir, the client here); the guardian removes it if the build is killed.
        sockets = guardian.new_temp_dir("dpguide-kernel")
        try:
            kernel = AsyncKernelManager(kernel_name="python3", transport="ipc", ip=os.path.join(sockets, "ipc"))
            client = NotebookClient(notebook, km=kernel, timeout=CELL_TIMEOUT_S, kernel_name="python3",
                                    resources={"metadata": {"path": str(workdir)}})
            client.execute(env=env)
        except (CellExecutionError, CellTimeoutError) as exc:
            index = _failing_cell(notebook)
            raise BlockFailed(f"{page}: cell {index}", "a notebook cell failed (tag it raises-exception if "
                              "the failure is the lesson)", _short(str(exc))) from None
        except RuntimeError as exc:     # the kernel died or never answered: not a cell's doing
            raise BlockFailed(page, f"its Jupyter kernel failed: {exc}",
                              "  fix: build again; if it fails again, run the notebook alone to see the "
                              "kernel's own error: jupyter nbconvert --to notebook --execute --stdout "
                              f"{page}") from None
        finally:
            processes.kill_job(token)
            shutil.rmtree(workdir, ignore_errors=True)
            shutil.rmtree(sockets, ignore_errors=True)
        for index, cell in enumerate(notebook.cells):
            tags = cell.get("metadata", {}).get("tags", [])
            if "raises-exception" in tags and not any(o.get("output_type") == "error" for o in cell.get("outputs", [])):
                raise BlockFailed(f"{page}: cell {index}", "tagged raises-exception but it did not raise")
        executed = json.loads(nbformat.writes(notebook))
        rewrite_outputs(executed, {str(workdir) + "/": "", str(workdir): ".", **MACHINE_PATHS})
        return executed


def rewrite_outputs(nb: dict, paths: dict[str, str]) -> None:
    """Replace machine paths (longest first) in every text a code cell's outputs show, in place."""
    order = sorted(paths.items(), key=lambda item: -len(item[0]))

    def rewrite(text):
        if isinstance(text, list):
            return [rewrite(part) for part in text]
        if not isinstance(text, str):
            return text
        for old, new in order:
            text = text.replace(old, new)
        return text

    for cell in nb.get("cells", []):
        for output in cell.get("outputs", []):
            for field in ("text", "evalue", "traceback"):
                if field in output:
                    output[field] = rewrite(output[field])
            data = output.get("data", {})
            for mime in data:
                if mime.startswith("text/"):
                    data[mime] = rewrite(data[mime])


def _failing_cell(notebook) -> int:
    for index, cell in enumerate(notebook.cells):
        if any(o.get("output_type") == "error" for o in cell.get("outputs", [])) and \
                "raises-exception" not in cell.get("metadata", {}).get("tags", []):
            return index
    return -1


def _short(text: str, limit: int = 3000) -> str:
    return text if len(text) <= limit else text[:limit] + "\n..."
