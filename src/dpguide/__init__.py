"""dpguide: the execution engine behind the Data-Parallel PyTorch Field Guide.

It finds the Python code blocks of a MkDocs site, runs each one for real
(plain ``python`` or under ``torchrun``), caches what they printed and renders
that output back into the pages. MkDocs only adapts it (see ``hooks/``).
"""

ENGINE_VERSION = "5"  # 5: torchrun agents and ranks fork from the warm interpreter (4: provenance)
