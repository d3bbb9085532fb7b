"""dpguide: the execution engine behind the Data-Parallel PyTorch Field Guide.

It finds the Python code blocks of a MkDocs site, runs each one for real
(plain ``python`` or under ``torchrun``), caches what they printed and renders
that output back into the pages. MkDocs only adapts it (see ``hooks/``).
"""

ENGINE_VERSION = "7"  # 7: forked processes end through the interpreter's normal exit (6: may-fail ranks fresh)
