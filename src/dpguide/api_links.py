"""Where a resolved torch name is documented in the PyTorch API reference.

PyTorch documents some modules on one page with an anchor per member
(``distributed.html#torch.distributed.all_reduce``) and most classes and
functions on a generated page of their own
(``generated/torch.nn.parallel.DistributedDataParallel.html``); a method of a
class is an anchor on its class's page, except tensor methods, which have
pages of their own. The deepest matching rule below wins.
"""

from __future__ import annotations

DOCS = "https://docs.pytorch.org/docs/stable/"

#: modules whose members are documented on one page, by that page
MODULE_PAGES = {
    "torch": "torch.html",
    "torch.distributed": "distributed.html",
    "torch.distributed.device_mesh": "distributed.html",
    "torch.distributed.elastic": "distributed.elastic.html",
    "torch.distributed.elastic.multiprocessing.errors": "elastic/errors.html",
    "torch.distributed.run": "elastic/run.html",
    "torch.distributed.launch": "distributed.html",
    "torch.distributed.nn": "distributed.html",
    "torch.distributed.algorithms.join": "distributed.algorithms.join.html",
    "torch.distributed.algorithms.ddp_comm_hooks": "ddp_comm_hooks.html",
    "torch.distributed.checkpoint": "distributed.checkpoint.html",
    "torch.distributed.fsdp": "fsdp.html",
    "torch.distributed.fsdp.fully_shard": "distributed.fsdp.fully_shard.html",
    "torch.distributed.optim": "distributed.optim.html",
    "torch.distributed.tensor": "distributed.tensor.html",
    "torch.multiprocessing": "multiprocessing.html",
    "torch.utils.data": "data.html",
    "torch.amp": "amp.html",
    "torch.autocast": "amp.html",
    "torch.cuda.amp": "amp.html",
    "torch.backends": "backends.html",
}

#: modules (or classes) whose members each have a generated page
GENERATED = ("torch.nn", "torch.nn.functional", "torch.cuda", "torch.optim", "torch.Tensor", "torch.nn.utils",
             "torch.nn.parallel", "torch.accelerator", "torch.compiler", "torch.autograd")

#: modules with a page of their own named after them (``torch.cuda`` -> ``cuda.html``)
_TORCH_OWN_MODULE_PAGE = {"torch", "torch.distributed", "torch.nn", "torch.cuda", "torch.optim", "torch.amp",
                          "torch.multiprocessing", "torch.utils.data", "torch.autograd", "torch.backends",
                          "torch.accelerator", "torch.compiler"}


def api_url(name: str, kind: str, parent_kind: str | None) -> str:
    """The reference URL for a canonical dotted ``name`` of the given kind (module, class, function, data).

    ``parent_kind`` is the kind of the object that holds it (a method's parent is a class).
    """
    if kind == "module":
        if name in MODULE_PAGES:
            return DOCS + MODULE_PAGES[name]
        if name in _TORCH_OWN_MODULE_PAGE or name == "torch.nn.functional":
            return DOCS + name.removeprefix("torch.") + ".html"
        return DOCS + _deepest_module_page(name) + f"#module-{name}"
    owner = name.rsplit(".", 1)[0]
    if name.startswith("torch.Tensor."):
        return DOCS + f"generated/{name}.html"
    if parent_kind == "class":        # a method or attribute: an anchor on its class's page
        return api_url(owner, "class", None).split("#", 1)[0] + f"#{name}"
    if owner in MODULE_PAGES and owner != "torch":
        return DOCS + MODULE_PAGES[owner] + f"#{name}"
    if owner == "torch" or any(owner == g or owner.startswith(g + ".") for g in GENERATED):
        return DOCS + f"generated/{name}.html"
    return DOCS + _deepest_module_page(owner) + f"#{name}"


def _deepest_module_page(name: str) -> str:
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        prefix = ".".join(parts[:end])
        if prefix in MODULE_PAGES:
            return MODULE_PAGES[prefix]
    return "torch.html"
