"""Claims in prose: torch names resolve (or the build stops at file:line), resolved names link to the
PyTorch reference, inline values are computed by a run, and every output says what produced it."""

from __future__ import annotations

import html

import importlib.metadata
import json
import re
import time

import pytest

from dpguide import claims
from dpguide.claims import DEFAULT_ALIASES, ClaimChecker, mentions_in, page_aliases, prose_lines
from dpguide.errors import BlockFailed, GuideError
from dpguide.site import SiteBuild

pytestmark = pytest.mark.usefixtures("clean_process_table")

TORCH = importlib.metadata.version("torch")   # torch.__version__ adds the wheel's local label (+cu132, +cpu)


def site(project) -> SiteBuild:
    return SiteBuild(project.root, docs_dir=project.docs, cache_dir=project.root / "cache", info=lambda m: None)


def build(project, page: str = "lesson.md"):
    """Execute the project's site and render ``page``: (SiteBuild, rendered Markdown)."""
    build = site(project)
    build.execute()
    text = (project.docs / page).read_text()
    return build, build.render_page(page, text)


# ---------------------------------------------------------------------- scanning, no torch needed
def test_aliases_come_from_the_page_code_and_its_snippets(project):
    project.snippet("t/a.py", "from torch.utils.data import DistributedSampler as DS\n")
    text = ('```python\nimport torch.distributed as d2\nfrom torch.nn.parallel import (\n'
            '    DistributedDataParallel,\n)\n```\n\n```python\n--8<-- "t/a.py"\n```\n')
    aliases = page_aliases(text, project.snippets)
    assert aliases["d2"] == "torch.distributed"
    assert aliases["DistributedDataParallel"] == "torch.nn.parallel.DistributedDataParallel"
    assert aliases["DS"] == "torch.utils.data.DistributedSampler"
    assert aliases["dist"] == DEFAULT_ALIASES["dist"]


def test_a_mention_is_the_dotted_name_before_any_call_or_operator():
    found = mentions_in("Call `dist.all_reduce(t, op=dist.ReduceOp.SUM)`, then `model.to(x)`, "
                        "`torch.cuda.device_count() > 1` and `#!python DDP(model)`.", "p.md", 7, DEFAULT_ALIASES)
    assert [(m.written, m.name, m.line) for m in found] == [
        ("dist.all_reduce", "torch.distributed.all_reduce", 7),
        ("torch.cuda.device_count", "torch.cuda.device_count", 7),
        ("DDP", "torch.nn.parallel.DistributedDataParallel", 7)]


def test_code_blocks_and_comments_are_not_prose():
    text = "a `dist.x`\n```python\n`dist.y`\n```\n<!-- `dist.z`\n-->\n~~~text\n`dist.w`\n~~~\nb `dist.v`"
    spans = [line for _, line in prose_lines(text)]
    assert spans == ["a `dist.x`", "b `dist.v`"]


# ---------------------------------------------------------------------- the build
def test_a_name_that_does_not_exist_stops_the_build_with_file_and_line(project):
    project.page("lesson.md", "# L\n\nAverage with `dist.all_reduce_mean(t)` on every rank.\n")
    with pytest.raises(GuideError) as caught:
        build(project)
    message = str(caught.value)
    assert "lesson.md:3:" in message and "torch.distributed.all_reduce_mean" in message
    assert "does not exist" in message


def test_a_name_that_resolves_becomes_a_link_to_its_reference_entry(project):
    project.page("lesson.md", """\
        # L

        `dist.all_reduce` sums in place; wrap with `DDP(model)`; see `torch.nn.Module.to`.
        Already a link: [`dist.barrier`](https://example.org/).
        """)
    sb, text = build(project)
    docs = "https://docs.pytorch.org/docs/stable/"
    assert f"[`dist.all_reduce`]({docs}distributed.html#torch.distributed.all_reduce)" in text
    assert f"[`DDP(model)`]({docs}generated/torch.nn.parallel.DistributedDataParallel.html)" in text
    assert f"[`torch.nn.Module.to`]({docs}generated/torch.nn.Module.html#torch.nn.Module.to)" in text
    assert "[`dist.barrier`](https://example.org/)" in text          # the author's link is kept
    assert sb.claim_counts["mentions"] == 4 and sb.linked == 3


def test_a_gpu_statement_cites_a_torch_file_that_the_build_checks_and_links(project):
    """`{source} torch/PATH:NAME` is checked against the installed torch, shown as "not run here"
    with a link to that file at the build's release tag, and counted; a docs page is linked as is."""
    project.page("lesson.md", """\
        # L

        With NCCL, errors surface asynchronously `{source} torch/distributed/distributed_c10d.py:init_process_group`.
        CUDA streams order kernels `{source} https://docs.pytorch.org/docs/stable/notes/cuda.html`.
        Shown as syntax: ``  `{source} torch/x.py`  `` stays as written.
        """)
    sb, text = build(project)
    tag = "v" + TORCH.split("+")[0]
    assert (f'<a href="https://github.com/pytorch/pytorch/blob/{tag}/torch/distributed/distributed_c10d.py">'
            "<code>distributed_c10d.py</code> <code>init_process_group</code></a>") in html.unescape(text)
    assert text.count('class="dpg-source"') == 2 and text.count("not run here") == 2
    assert '<a href="https://docs.pytorch.org/docs/stable/notes/cuda.html">PyTorch docs</a>' in text
    assert "``  `{source} torch/x.py`  ``" in text
    assert sb.claim_counts["sources"] == 2 and sb.claim_counts["sources_docs"] == 1
    assert sb.site_facts()["statements_cited"] == 2


@pytest.mark.parametrize("target, reason", [
    ("torch/distributed/no_such_file.py", "has no file torch/distributed/no_such_file.py"),
    ("torch/distributed/distributed_c10d.py:no_such_function_here", "does not occur in"),
    ("ProcessGroupNCCL.cpp", "cites neither a torch file"),
])
def test_a_source_citation_that_does_not_hold_stops_the_build_at_its_line(project, reason, target):
    project.page("lesson.md", f"# L\n\nok\n\nNCCL does this `{{source}} {target}`.\n")
    with pytest.raises(GuideError) as caught:
        build(project)
    message = str(caught.value)
    assert "lesson.md:5:" in message and reason in message, message


def test_a_header_citation_links_the_repository_path(project):
    header = "torch/include/torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp"
    project.page("lesson.md", f"# L\n\nSee `{{source}} {header}:TORCH_NCCL_BLOCKING_WAIT`.\n")
    _, text = build(project)
    assert "/torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp\"" in text and "/torch/include/" not in text


def test_a_name_marked_as_not_existing_needs_a_run_on_the_page_that_shows_its_error(project):
    project.page("lesson.md", "# L\n\nThere is no `dist.all_reduce_mean`{ .no-such-api }.\n")
    with pytest.raises(GuideError, match=r"lesson.md:3: .*no run on this page shows its error"):
        build(project)
    project.page("lesson.md", """\
        # L

        There is no `dist.all_reduce_mean`{ .no-such-api }:

        ```python expect="fail"
        import torch.distributed as dist
        dist.all_reduce_mean
        ```
        """)
    sb, text = build(project)
    assert "`dist.all_reduce_mean`{ .no-such-api }" in text          # not linked
    assert sb.claim_counts["not_api"] == 1


def test_a_name_marked_as_not_existing_that_exists_is_refused(project):
    project.page("lesson.md", "# L\n\n`dist.barrier`{ .no-such-api } is real.\n")
    with pytest.raises(GuideError, match=r"lesson.md:3: .*exists in torch"):
        build(project)


def test_inline_values_are_computed_by_a_run_and_cached_per_environment(project):
    project.page("lesson.md", """\
        # L

        This page was built with torch `{python} torch.__version__`; the default timeout is
        `{python} int(dist.default_pg_timeout.total_seconds() // 60)` minutes.
        """)
    sb, text = build(project)
    assert re.search(rf'<span class="dpg-value" title="computed by the build: torch.__version__">{re.escape(TORCH)}(\+\w+)?</span>', text)
    import torch.distributed as dist

    minutes = str(int(dist.default_pg_timeout.total_seconds() // 60))
    assert f">{minutes}</span> minutes" in text
    assert sb.checker.probed >= 2
    cache = json.loads((project.root / "cache" / "claims.json").read_text())
    import torch

    assert cache["values"]["torch.__version__"] == {"ok": True, "value": torch.__version__}
    again, _ = build(project)
    assert again.checker.probed == 0                                  # nothing new to ask torch


def test_the_probe_imports_torch_while_the_blocks_run_and_is_started_once(project, monkeypatch):
    project.page("lesson.md", "# L\n\nSee `dist.all_reduce`.\n\n```python\nprint('hi')\n```\n")
    started, probe_class = [], claims._Probe
    monkeypatch.setattr(claims, "_Probe", type("CountedProbe", (probe_class,), {
        "__init__": lambda self, *a: (started.append(self), probe_class.__init__(self, *a))[1]}))
    sb = site(project)
    alive_when_blocks_ran = []
    run = sb.engine.run
    monkeypatch.setattr(sb.engine, "run", lambda blocks: (
        alive_when_blocks_ran.append([probe._proc.poll() is None for probe in started]), run(blocks))[1])
    sb.execute()
    assert alive_when_blocks_ran == [[True]], "the probe must already be running when the blocks start"
    assert len(started) == 1 and sb.checker.probed >= 2   # the same probe answered the check after the runs


def test_a_build_that_stops_in_a_block_ends_the_probe_it_started(project):
    # an inline value that takes a minute keeps the probe running when the block fails
    project.page("lesson.md", "# L\n\nSlow: `{python} __import__('time').sleep(60)`.\n\n"
                              "```python\nraise SystemExit('the block fails')\n```\n")
    sb = site(project)
    started = time.monotonic()
    with pytest.raises(BlockFailed):
        sb.execute()
    assert time.monotonic() - started < 30
    assert sb.checker._probe is None    # and clean_process_table finds no probe left running


def test_an_inline_value_that_raises_stops_the_build_with_file_and_line(project):
    project.page("lesson.md", "# L\n\nok\n\nValue: `{python} dist.no_such_default`.\n")
    with pytest.raises(GuideError, match=r"lesson.md:5: inline value .*AttributeError"):
        build(project)


def test_quiz_and_card_text_is_checked_and_linked(project):
    project.page("lesson.md", """\
        # L

        ```quiz
        id: q-one
        type: choice
        difficulty: easy
        prompt: Which call sums a tensor over all ranks?
        hint: Think of `dist.reduce` versus its all- form.
        options:
          - text: "`dist.all_reduce`"
            correct: true
          - text: "`dist.sum_all`"
            why: no such function
          - text: "`dist.barrier`"
            why: "With NCCL it also syncs a device `{source} torch/distributed/distributed_c10d.py:barrier`."
        solution:
          steps: [It is `dist.all_reduce`.]
        ```
        """)
    with pytest.raises(GuideError, match=r"lesson.md:3: `dist.sum_all` \(question q-one\)"):
        build(project)
    text = (project.docs / "lesson.md").read_text().replace("`dist.sum_all`", "`dist.sum_everything`{ .no-such-api }")
    project.page("lesson.md", text + '\n```python expect="fail"\nimport torch.distributed as dist\ndist.sum_everything\n```\n')
    _, rendered = build(project)
    assert '<a href="https://docs.pytorch.org/docs/stable/distributed.html#torch.distributed.reduce"><code>dist.reduce</code></a>' in rendered
    assert "{ .no-such-api }" not in rendered.split("```quiz")[0] + rendered.split('class="dpg-quiz"')[1]
    tag = "v" + TORCH.split("+")[0]       # quiz text is escaped: the citation is words and a linked code span
    assert (f'(not run here; source: <a href="https://github.com/pytorch/pytorch/blob/{tag}/torch/distributed/'
            'distributed_c10d.py"><code>torch/distributed/distributed_c10d.py:barrier</code></a>)') in rendered
    assert "{source}" not in rendered.split('class="dpg-quiz"')[1] and "&lt;span" not in rendered


def test_every_output_says_what_produced_it_and_a_cached_output_keeps_its_run(project):
    project.page("lesson.md", "# L\n\n```python\nprint('hi')\n```\n")
    _, first = build(project)
    line = re.search(r'<p class="dpg-provenance">(.*?)</p>', first)[1]
    assert f"torch {TORCH}" in line and "on CPU" in line and "one python process" in line
    assert re.search(r"Real run, \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC", line)
    assert "process-group backends in this torch: gloo" in line
    _, second = build(project)                                         # from the cache
    assert re.search(r'<p class="dpg-provenance">(.*?)</p>', second)[1] == line


def test_the_checker_keeps_nothing_from_another_environment(tmp_path):
    checker = ClaimChecker(tmp_path, {"torch": "1"}, env={})
    (tmp_path / "claims.json").write_text(json.dumps({"environment": "other", "names": {"torch": {"ok": True}},
                                                      "values": {}}))
    checker._load()
    assert checker.names == {}


def test_a_notebooks_markdown_cells_are_prose_checked_at_their_line_in_the_file(project):
    """A notebook's Markdown cells are prose like a page's: a torch name there must resolve, and the
    error names the line of the .ipynb file that holds it; aliases come from its code cells, and a
    name inside a cell's code fence is code, not prose."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    project.page("lesson.md", "# L\n\nNo claims here.\n")
    notebook = project.docs / "lesson.ipynb"
    nbformat.write(new_notebook(cells=[
        new_markdown_cell("# Notebook\n\nStart with `torch.multiprocessing.spawn`.\n\n```python\n`mp.nothing`\n```"),
        new_code_cell("import torch.distributed as d9"),
        new_markdown_cell("Then\naverage with `d9.all_reduce_mean(t)`.")]), notebook)
    line = next(number for number, text in enumerate(notebook.read_text().split("\n"), 1) if "all_reduce_mean" in text)
    assert line > 10    # a line of the JSON file, not of the cell
    with pytest.raises(GuideError) as caught:
        site(project).execute()
    message = str(caught.value)
    assert f"lesson.ipynb:{line}:" in message and "torch.distributed.all_reduce_mean" in message, message
    assert "spawn" not in message and "mp.nothing" not in message, message   # resolves / is code


@pytest.mark.unit
def test_an_inline_value_in_a_notebook_is_refused_at_its_line():
    import nbformat
    from nbformat.v4 import new_markdown_cell, new_notebook

    from dpguide.errors import AuthoringError

    raw = nbformat.writes(new_notebook(cells=[new_markdown_cell("# N\n\nWorld size `{python} 2 + 2`.")]))
    line = next(number for number, text in enumerate(raw.split("\n"), 1) if "{python}" in text)
    with pytest.raises(AuthoringError, match=rf"^n\.ipynb:{line}: an inline value"):
        claims.scan_notebook("n.ipynb", raw)


def test_a_notebooks_torch_names_are_linked_in_the_copy_mkdocs_jupyter_renders(project):
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    project.page("lesson.md", "# L\n\nNo claims here.\n")
    notebook = project.docs / "lesson.ipynb"
    nbformat.write(new_notebook(cells=[
        new_code_cell("import torch.distributed as d9"),
        new_markdown_cell("Sum with `d9.all_reduce`.\n\n```python\n`d9.all_reduce`\n```")]), notebook)
    plain = project.docs / "plain.ipynb"
    nbformat.write(new_notebook(cells=[new_markdown_cell("# Nothing to link")]), plain)
    build = site(project)
    build.execute()
    linked = build.linked_notebook("lesson.ipynb", notebook)
    assert linked != notebook and nbformat.read(notebook, as_version=4).cells[1].source.startswith("Sum with `d9")
    source = nbformat.read(linked, as_version=4).cells[1].source
    assert source.startswith("Sum with [`d9.all_reduce`](https://docs.pytorch.org/") and "all_reduce)." in source
    assert source.endswith("```python\n`d9.all_reduce`\n```"), source      # code stays code
    assert build.linked_notebook("plain.ipynb", plain) == plain             # nothing to link: the file itself
    assert build.linked == 1
