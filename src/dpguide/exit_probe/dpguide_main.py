"""Runs a reader's script as ``__main__`` and ends its process the way the build ends every rank.

Two kinds of process use it: a block's process forked from the warm interpreter
(``forkserver._child``), and a torchrun worker started as a fresh interpreter (a ``fresh="true"``
block's, or a worker of a torchrun that a block starts itself), whose ``sitecustomize`` runs the
script through it (``DPGUIDE_FRESH_END``, set for every block; see ``take_over``). Other processes a
block starts itself (``mp.spawn``'s children, a ``subprocess`` running ``python``) end as Python ends.

The script runs as ``python FILE`` runs it: a fresh ``__main__`` module, an uncaught exception
noted in ``sys.last_*`` and printed by ``sys.excepthook`` (which a program may replace), the exit
status of ``SystemExit``. Then ``end``:

- a torchrun rank that failed leaves through Python's whole exit, teardown included, as
  ``python FILE`` does (how long a failing rank takes to die decides which failure torchrun
  names first);
- any other process (a rank that succeeded, a python block whether it succeeded or not) stops
  right after its threads are joined and its ``atexit`` handlers (the exit probe's included) have
  run, with its output flushed, and with its exit status: it skips the interpreter's teardown. That teardown is where torch 2.13's CPU build can abort a rank whose process group
  still has gloo worker threads (see ``sitecustomize.py``). A reader's own run does not skip it;
  every page says so under each output it shows, and the Debugging page shows that abort.

Standard library only: a fresh worker loads it before its script, from ``sitecustomize``.
"""

import os
import sys

#: True once ``end`` has chosen to skip the teardown (the exit probe notes it)
SKIPS_TEARDOWN = False


def run_as_main(script: str | None = None, module: str | None = None) -> int:
    """Run ``script`` (a path) or ``module`` (``python -m``) as ``__main__``; return its exit status."""
    import traceback
    import types

    main = types.ModuleType("__main__")
    main.__builtins__ = __builtins__
    sys.modules["__main__"] = main
    code = 0
    try:
        if module:  # what `python -m module` does, with the same frames in a traceback
            import runpy

            runpy._run_module_as_main(module)
        else:
            main.__file__ = script
            with open(script, "rb") as handle:
                source = handle.read()
            exec(compile(source, script, "exec"), main.__dict__)
    except SystemExit as exc:
        if exc.code is None:
            code = 0
        elif isinstance(exc.code, int):
            code = exc.code
        else:
            print(exc.code, file=sys.stderr)
            code = 1
    except BaseException as exc:  # noqa: BLE001 - reported exactly as python would
        tb = exc.__traceback__.tb_next if exc.__traceback__ else None
        exc.__traceback__ = tb  # the hook may read the exception's own traceback: drop this frame
        # what python does with an uncaught exception: note it in sys.last_*, then call
        # sys.excepthook (which a program may have replaced: torch.distributed prefixes "[rankN]:")
        sys.last_type, sys.last_value, sys.last_traceback = type(exc), exc, tb
        if sys.version_info >= (3, 12):
            sys.last_exc = exc
        try:
            sys.excepthook(type(exc), exc, tb)
        except BaseException:  # noqa: BLE001 - a broken hook: python prints both, plainly
            traceback.print_exception(type(exc), exc, tb)
        code = 1
    return code


def end(code: int) -> None:
    """End this process with ``code``: a failing torchrun rank through Python's whole exit, anything
    else right after ``atexit`` (see the module's docstring)."""
    global SKIPS_TEARDOWN
    if code != 0 and "TORCHELASTIC_RESTART_COUNT" in os.environ:
        sys.exit(code)
    import atexit
    import threading

    SKIPS_TEARDOWN = True
    try:
        threading._shutdown()
        atexit._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code)


def take_over() -> None:
    """In a fresh torchrun worker (``python FILE`` started by torchrun): run FILE here and end as a
    forked rank ends; never returns. Called by ``sitecustomize`` once the probe is set up.

    This runs while Python imports ``site``, where a ``SystemExit`` would be a fatal start-up
    error, so a failure leaves through ``Py_Exit``: the interpreter's whole exit (threads,
    ``atexit``, teardown) with the script's status, as ``python FILE`` ends on a failure."""
    import ctypes

    os.environ.pop("DPGUIDE_FRESH_END", None)   # the program and its own children never see it
    script = os.path.abspath(sys.argv[0])
    sys.path.insert(0, os.path.dirname(script))  # what python does after site, before the script
    code = run_as_main(script)
    if code == 0:
        end(0)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (AttributeError, ValueError, OSError):
            pass
    ctypes.pythonapi.Py_Exit(ctypes.c_int(code))
