"""dpguide: the execution engine behind the Data-Parallel PyTorch Field Guide.

It finds the Python code blocks of a MkDocs site, runs each one for real
(plain ``python`` or under ``torchrun``), caches what they printed and renders
that output back into the pages. MkDocs only adapts it (see ``hooks/``).
"""

ENGINE_VERSION = "16"  # 16: shown paths name the interpreter's own library <stdlib>; 15: blocks that import a sharding package (FSDP, DTensor, DCP, torch.distributed.optim) fork from a server that has imported them; 14: python blocks that fail skip the teardown too; 13: the build's processes skip the interpreter's teardown on success (fresh torchrun workers too), and only processes that tear down are checked for gloo threads; 12: line-buffered stdout in every process a block starts, no PYTHONUNBUFFERED; two-rank torchrun jobs side by side (11: DDP blocks fork from a server that has imported torch._dynamo, no other block does (10: <log-dir>)
