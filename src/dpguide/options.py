"""Block options: what a fence attribute or a snippet header may say, and how it is checked.

A block is configured by ``key="value"`` attributes on its fence, on top of the
``#| key: value`` header lines of the snippet file it includes. The header's
``run:`` line is the very command a reader types (``python x.py`` or
``torchrun --standalone --nproc-per-node=2 x.py``), parsed here into options.
"""

from __future__ import annotations

import difflib
import re
import shlex
from dataclasses import dataclass, field, replace

DEFAULT_TIMEOUT_S = 120.0

#: every option a fence or a header may set, with a one-line meaning (shown in errors)
KNOWN_OPTIONS = {
    "launch": "python or torchrun",
    "nproc": "ranks per node for torchrun (--nproc-per-node)",
    "nnodes": "torchrun agents started on this host (--nnodes)",
    "max-restarts": "torchrun --max-restarts",
    "skip": "do not run this block; the value is the reason shown to the reader",
    "expect": "'fail' when the block must fail (its real error is shown)",
    "raises": "exception type an expected failure must raise, e.g. RuntimeError",
    "timeout": "seconds before the whole process tree is killed",
    "device": "cpu (default), cuda (GPU-only, recorded on a GPU runner) or any (both)",
    "gpus": "GPUs a cuda/any block needs on the recording machine",
    "backend": "communication backend the block needs on the GPU runner (gloo or nccl)",
    "fresh": "'true' to run in a fresh interpreter instead of a fork of a warm one",
    "threads-at-exit": "'expected' when the lesson leaves a process group alive at exit on purpose",
    "args": "arguments passed to the script after its file name, as a reader types them (e.g. \"50 10\")",
    "anchor": "name of this run's output box, linked as page.md#run-NAME (e.g. by a flashcard's proof:)",
    "title": "title shown above the code",
    "hl_lines": "lines to highlight (passed to the highlighter)",
    "linenums": "first line number (passed to the highlighter)",
}

DISPLAY_ONLY = {"title", "hl_lines", "linenums"}


@dataclass(frozen=True)
class BlockOptions:
    """Everything that decides how a block runs (and so is part of its cache key)."""

    launch: str = "python"
    nproc: int | None = None
    nnodes: int = 1
    max_restarts: int = 0
    skip: str | None = None
    expect_fail: bool = False
    raises: str | None = None
    timeout: float = DEFAULT_TIMEOUT_S
    device: str = "cpu"
    gpus: int = 0
    backend: str | None = None
    fresh: bool = False
    threads_at_exit: bool = False
    args: tuple = ()
    display: tuple = field(default_factory=tuple)
    anchor: str | None = None        # not in the key: it changes no output
    #: set by the engine, never by an author: the run may succeed or fail (a fill-in's wrong bank item)
    outcome_any: bool = False

    def launch_key(self) -> dict:
        """The settings that can change what the block prints (display options excluded)."""
        return {
            "launch": self.launch, "nproc": self.nproc, "nnodes": self.nnodes,
            "max_restarts": self.max_restarts, "expect_fail": self.expect_fail,
            "raises": self.raises, "device": self.device, "gpus": self.gpus,
            "backend": self.backend, "fresh": self.fresh, "threads_at_exit": self.threads_at_exit,
            "args": list(self.args), "outcome_any": self.outcome_any,
        }

    @property
    def runs_on_cpu_build(self) -> bool:
        return self.skip is None and self.device in ("cpu", "any")

    @property
    def needs_gpu_record(self) -> bool:
        return self.skip is None and self.device in ("cuda", "any")

    def reader_command(self, filename: str) -> str:
        """The command a reader types to run ``filename`` with these options."""
        tail = "".join(" " + shlex.quote(arg) for arg in self.args)
        if self.launch == "python":
            return f"python {filename}{tail}"
        parts = ["torchrun"]
        if self.nnodes == 1:
            parts.append("--standalone")
        else:
            # every node types the same line: the same endpoint and the same job id
            parts += [f"--nnodes={self.nnodes}", "--rdzv-backend=c10d", "--rdzv-endpoint=<host>:29400",
                      "--rdzv-id=<job-id>"]
        parts.append(f"--nproc-per-node={self.nproc}")
        if self.max_restarts:
            parts.append(f"--max-restarts={self.max_restarts}")
        parts.append(filename)
        return " ".join(parts) + tail


def _positive_int(value: str, key: str, where: tuple[str, int], minimum: int = 1) -> int:
    try:
        number = int(value)
    except ValueError:
        number = None
    if number is None or number < minimum:
        raise_error(where, f"option {key}={value!r} is not a whole number >= {minimum}",
                    f'write {key}="{max(minimum, 1) if minimum else 0}" or another whole number')
    return number


def raise_error(where: tuple[str, int], problem: str, fix: str = "") -> None:
    from .errors import AuthoringError

    raise AuthoringError(where[0], where[1], problem, fix)


def apply_options(base: BlockOptions, attrs: dict[str, str], where: tuple[str, int]) -> BlockOptions:
    """Return ``base`` updated by ``attrs`` (fence attributes or header lines), validated."""
    changes: dict = {}
    display = dict(base.display)
    for key, value in attrs.items():
        if key not in KNOWN_OPTIONS:
            close = difflib.get_close_matches(key, KNOWN_OPTIONS, n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise_error(where, f"unknown block option {key!r}",
                        hint + "known options: " + ", ".join(sorted(KNOWN_OPTIONS)))
        if key in DISPLAY_ONLY:
            display[key] = value
        elif key == "launch":
            if value not in ("python", "torchrun"):
                raise_error(where, f"launch={value!r} is not a launch mode",
                            'use launch="python" or launch="torchrun"')
            changes["launch"] = value
        elif key == "nproc":
            changes["nproc"] = _positive_int(value, key, where)
        elif key == "nnodes":
            changes["nnodes"] = _positive_int(value, key, where)
        elif key == "max-restarts":
            changes["max_restarts"] = _positive_int(value, key, where, minimum=0)
        elif key == "skip":
            if not value.strip():
                raise_error(where, "skip needs a reason the reader will see",
                            'write skip="needs a Slurm cluster" (say why it is not run)')
            changes["skip"] = value.strip()
        elif key == "expect":
            if value != "fail":
                raise_error(where, f"expect={value!r} is not understood", 'the only value is expect="fail"')
            changes["expect_fail"] = True
        elif key == "raises":
            if not value.replace(".", "").replace("_", "").isalnum():
                raise_error(where, f"raises={value!r} is not an exception name", 'e.g. raises="RuntimeError"')
            changes["raises"] = value
        elif key == "timeout":
            try:
                seconds = float(value)
            except ValueError:
                seconds = -1.0
            if seconds <= 0:
                raise_error(where, f"timeout={value!r} is not a positive number of seconds", 'e.g. timeout="60"')
            changes["timeout"] = seconds
        elif key == "device":
            if value not in ("cpu", "cuda", "any"):
                raise_error(where, f"device={value!r} is not understood", 'use device="cpu", "cuda" or "any"')
            changes["device"] = value
        elif key == "gpus":
            changes["gpus"] = _positive_int(value, key, where)
        elif key == "backend":
            if value not in ("gloo", "nccl"):
                raise_error(where, f"backend={value!r} is not a backend the GPU runner knows",
                            'use backend="gloo" or backend="nccl"')
            changes["backend"] = value
        elif key == "fresh":
            if value not in ("true", "false"):
                raise_error(where, f"fresh={value!r} must be true or false", 'write fresh="true"')
            changes["fresh"] = value == "true"
        elif key == "args":
            try:
                changes["args"] = tuple(shlex.split(value))
            except ValueError as exc:
                raise_error(where, f"args={value!r} cannot be split into words: {exc}", 'e.g. args="50 10"')
        elif key == "threads-at-exit":
            if value != "expected":
                raise_error(where, f"threads-at-exit={value!r} is not understood",
                            'the only value is threads-at-exit="expected"')
            changes["threads_at_exit"] = True
        elif key == "anchor":
            if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", value):
                raise_error(where, f"anchor={value!r} is not a simple name", 'e.g. anchor="ddp-first-run"')
            changes["anchor"] = value
    options = replace(base, display=tuple(sorted(display.items())), **changes)
    return check_consistent(options, where, attrs)


def check_consistent(options: BlockOptions, where: tuple[str, int], attrs: dict[str, str]) -> BlockOptions:
    """Reject combinations of options that cannot be meant."""
    if options.launch == "torchrun" and options.nproc is None:
        raise_error(where, "a torchrun block needs a rank count",
                    'add nproc="2" to the fence, or "--nproc-per-node=2" to the snippet\'s "#| run:" line')
    if options.launch == "python" and ("nproc" in attrs or "nnodes" in attrs):
        raise_error(where, "nproc/nnodes only mean something under torchrun", 'add launch="torchrun"')
    if options.raises and not options.expect_fail:
        raise_error(where, "raises= is only checked for an expected failure", 'add expect="fail"')
    if options.device != "cpu" and options.gpus == 0:
        options = replace(options, gpus=1)
    if options.device == "cpu" and "gpus" in attrs:
        raise_error(where, "gpus= needs device=\"cuda\" or device=\"any\"", 'add device="cuda"')
    return options


def options_from_command(command: str, where: tuple[str, int]) -> dict[str, str]:
    """Parse a ``#| run:`` command (what a reader types) into option attributes."""
    try:
        words = shlex.split(command)
    except ValueError as exc:
        raise_error(where, f"cannot parse run command {command!r}: {exc}")
    usage = "write '#| run: python FILE.py' or '#| run: torchrun --standalone --nproc-per-node=2 FILE.py'"
    if not words or words[0] not in ("python", "torchrun"):
        raise_error(where, f"run command must start with python or torchrun, got {command!r}", usage)
    script_at = next((i for i, word in enumerate(words) if i > 0 and word.endswith(".py")), None)
    if script_at is None:
        raise_error(where, f"run command {command!r} must name the snippet file (FILE.py)", usage)
    words, script_args = words[:script_at + 1], words[script_at + 1:]
    extra = {"args": shlex.join(script_args)} if script_args else {}
    if words[0] == "python":
        if len(words) != 2:
            raise_error(where, f"run command {command!r} should be 'python FILE.py [ARGS...]'", usage)
        return {"launch": "python", **extra}
    attrs = {"launch": "torchrun", **extra}
    for word in words[1:-1]:
        flag, _, value = word.partition("=")
        flag = flag.replace("_", "-")
        if flag in ("--nproc-per-node", "--nnodes", "--max-restarts") and not value:
            raise_error(where, f"run command flag {word!r} has no value",
                        f"write it with '=', e.g. {flag}=2")
        if flag == "--standalone":
            continue
        if flag == "--nproc-per-node":
            attrs["nproc"] = value
        elif flag == "--nnodes":
            attrs["nnodes"] = value
        elif flag == "--max-restarts":
            attrs["max-restarts"] = value
        else:
            raise_error(where, f"torchrun option {word!r} is not supported by the engine",
                        "supported before the file name: --standalone, --nproc-per-node=N, --nnodes=N, "
                        "--max-restarts=N (with '='); words after the file name are the script's arguments")
    return attrs
