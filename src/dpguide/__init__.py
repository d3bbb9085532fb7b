"""dpguide: the execution engine behind the Data-Parallel PyTorch Field Guide.

It finds the Python code blocks of a MkDocs site, runs each one for real
(plain ``python`` or under ``torchrun``), caches what they printed and renders
that output back into the pages. MkDocs only adapts it (see ``hooks/``).
"""

ENGINE_VERSION = "8"  # 8: forked ranks stamp their writes; lines are kept in the order written (7: forked processes end through the normal exit)
