"""Where a torch name links in the PyTorch reference: one rule per documentation layout."""

import pytest

from dpguide.api_links import DOCS, api_url

pytestmark = pytest.mark.unit   # pure: `make test-fast` runs it; starting a process fails it (conftest.py)

CASES = [
    # modules documented on one page, on a page named after them, or on their parent's page
    ("torch.distributed", "module", None, "distributed.html"),
    ("torch.nn", "module", None, "nn.html"),
    ("torch.nn.functional", "module", None, "nn.functional.html"),
    ("torch.distributed.fsdp", "module", None, "fsdp.html"),
    ("torch.distributed.algorithms", "module", None, "distributed.html#module-torch.distributed.algorithms"),
    # members of a one-page module: an anchor there
    ("torch.distributed.all_reduce", "function", "module", "distributed.html#torch.distributed.all_reduce"),
    ("torch.utils.data.DistributedSampler", "class", "module", "data.html#torch.utils.data.DistributedSampler"),
    # members of torch itself and of generated modules: a page each
    ("torch.manual_seed", "function", "module", "generated/torch.manual_seed.html"),
    ("torch.nn.Linear", "class", "module", "generated/torch.nn.Linear.html"),
    ("torch.nn.parallel.DistributedDataParallel", "class", "module",
     "generated/torch.nn.parallel.DistributedDataParallel.html"),
    ("torch.cuda.set_device", "function", "module", "generated/torch.cuda.set_device.html"),
    ("torch.nn.utils.rnn.pad_sequence", "function", "module", "generated/torch.nn.utils.rnn.pad_sequence.html"),
    # methods: an anchor on the class's page, except tensor methods, which have pages
    ("torch.nn.Module.to", "function", "class", "generated/torch.nn.Module.html#torch.nn.Module.to"),
    ("torch.nn.parallel.DistributedDataParallel.no_sync", "function", "class",
     "generated/torch.nn.parallel.DistributedDataParallel.html#torch.nn.parallel.DistributedDataParallel.no_sync"),
    ("torch.utils.data.DistributedSampler.set_epoch", "function", "class",
     "data.html#torch.utils.data.DistributedSampler.set_epoch"),
    ("torch.Tensor.to", "function", "class", "generated/torch.Tensor.to.html"),
    # a member of a module with no page of its own: an anchor on the deepest documented parent
    ("torch.distributed.elastic.multiprocessing.errors.record", "function", "module",
     "elastic/errors.html#torch.distributed.elastic.multiprocessing.errors.record"),
    ("torch.distributed.algorithms.ddp_comm_hooks.default_hooks.fp16_compress_hook", "function", "module",
     "ddp_comm_hooks.html#torch.distributed.algorithms.ddp_comm_hooks.default_hooks.fp16_compress_hook"),
]


@pytest.mark.parametrize("name,kind,parent,page", CASES, ids=[c[0] for c in CASES])
def test_each_name_links_to_where_pytorch_documents_it(name, kind, parent, page):
    assert api_url(name, kind, parent) == DOCS + page


def test_links_are_absolute_https_to_the_stable_reference():
    assert DOCS == "https://docs.pytorch.org/docs/stable/"
