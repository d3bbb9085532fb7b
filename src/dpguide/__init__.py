"""dpguide: the execution engine behind the Data-Parallel PyTorch Field Guide.

It finds the Python code blocks of a MkDocs site, runs each one for real
(plain ``python`` or under ``torchrun``), caches what they printed and renders
that output back into the pages. MkDocs only adapts it (see ``hooks/``).
"""

ENGINE_VERSION = "9"  # 9: the warm server has imported torch._dynamo (what the first DDP() imports); log handlers follow the child's streams (8: stamped rank writes)
