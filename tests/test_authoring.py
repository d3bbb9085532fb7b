"""Authoring mistakes end with file:line, the problem and the fix, never a deep traceback."""

from __future__ import annotations

import pytest

from dpguide.errors import GuideError

pytestmark = pytest.mark.unit   # pure: `make test-fast` runs it; starting a process fails it (conftest.py)


def collect_error(project, page: str, snippets: dict[str, str] = {}) -> str:
    for name, code in snippets.items():
        project.snippet(name, code)
    project.page("lesson.md", page)
    with pytest.raises(GuideError) as info:
        project.engine().collect()
    return str(info.value)


def test_unknown_option_names_the_line_and_suggests_the_right_one(project):
    message = collect_error(project, 'Text.\n\n```python nprocs="2"\nprint(1)\n```\n')
    assert message.startswith("lesson.md:3: unknown block option 'nprocs'")
    assert "did you mean 'nproc'?" in message


def test_missing_include_names_the_include_line(project):
    message = collect_error(project, '```python\n--8<-- "nowhere/missing.py"\n```\n')
    assert message.startswith("lesson.md:2: included snippet 'nowhere/missing.py' does not exist")
    assert "fix: create docs/snippets/nowhere/missing.py" in message


def test_missing_section_lists_the_sections_there(project):
    message = collect_error(project, '```python\n--8<-- "a.py:nope"\n```\n',
                            {"a.py": "# --8<-- [start:real]\nprint(1)\n# --8<-- [end:real]\n"})
    assert "lesson.md:2: snippet 'a.py' has no section 'nope'" in message and "sections there: real" in message


def test_torchrun_without_rank_count(project):
    message = collect_error(project, '```python launch="torchrun"\nprint(1)\n```\n')
    assert message.startswith("lesson.md:1: a torchrun block needs a rank count")
    assert 'nproc="2"' in message


def test_malformed_snippet_header_names_the_snippet_line(project):
    message = collect_error(project, '```python\n--8<-- "bad.py"\n```\n',
                            {"bad.py": '"""Doc."""\n#| run torchrun\nprint(1)\n'})
    assert message.startswith("docs/snippets/bad.py:2: malformed snippet header line")
    assert "'#| key: value'" in message


def test_header_command_must_name_the_file_itself(project):
    message = collect_error(project, '```python\n--8<-- "x.py"\n```\n',
                            {"x.py": "#| run: torchrun --standalone --nproc-per-node=2 y.py\nprint(1)\n"})
    assert "docs/snippets/x.py:1: the run command names 'y.py' but the file is 'x.py'" in message


def test_unsupported_torchrun_flag_in_header(project):
    message = collect_error(project, '```python\n--8<-- "x.py"\n```\n',
                            {"x.py": "#| run: torchrun --nproc-per-node 2 x.py\nprint(1)\n"})
    assert "docs/snippets/x.py:1: run command flag '--nproc-per-node' has no value" in message


def test_unclosed_fence_and_unreadable_options(project):
    assert "lesson.md:1: this code fence is never closed" in collect_error(project, "```python\nprint(1)\n")
    message = collect_error(project, '```python launch=torchrun nproc="2" oops\nx\n```\n')
    assert "lesson.md:1: cannot read the fence options 'oops'" in message


def test_skip_needs_a_reason_and_every_error_is_reported_at_once(project):
    message = collect_error(project, '```python skip=""\nx\n```\n\n```python timeout="-1"\nx\n```\n')
    assert "lesson.md:1: skip needs a reason" in message and "lesson.md:5: timeout='-1'" in message


def test_the_contribute_page_documents_every_block_option():
    import re
    from pathlib import Path

    from dpguide.options import KNOWN_OPTIONS

    page = (Path(__file__).resolve().parents[1] / "docs" / "contribute" / "index.md").read_text()
    table = page[page.index("## Block options"):page.index("## Run one block as the build does")]
    documented = {name for cell in re.findall(r"^\| (.+?) \|", table, flags=re.M)
                  for name in re.findall(r"`([a-z_-]+)(?:=[^`]*)?`", cell)}
    assert set(KNOWN_OPTIONS) - documented == set()


def test_a_setting_made_before_importing_torch_needs_a_fresh_interpreter(project):
    snippet = ('#| run: torchrun --standalone --nproc-per-node=2 debug.py\nimport os\n\n'
               'os.environ["TORCH_DISTRIBUTED_DEBUG"] = "DETAIL"\nimport torch.distributed as dist\n')
    message = collect_error(project, '```python\n--8<-- "debug.py"\n```\n', {"debug.py": snippet})
    assert message.startswith("docs/snippets/debug.py:4: the block sets an environment variable before "
                              "importing torch, but it runs in a fork of a warm interpreter that has "
                              "imported torch already, so the setting could come too late\n")
    assert 'fix: add fresh="true" to the fence' in message
    inline = '# L\n\n```python\nimport os\nos.environ.setdefault("A", "1")\nfrom torch import nn\n```\n'
    assert collect_error(project, inline).startswith("lesson.md:5: the block sets an environment variable")
    project.page("lesson.md", '```python fresh="true"\n--8<-- "debug.py"\n```\n')
    assert len(project.engine().collect()) == 1


@pytest.mark.parametrize("code, line", [
    ('import os\nos.environ["A"] = "1"\nimport torch\n', 2),
    ('import os\nos.putenv("A", "1")\nos.environ.update(B="2")\nimport torch.nn\n', 2),
    ('import os\nos.putenv("A", "1")\nimport torch\n', 2),
    ('import os\nos.environ.update(B="2")\nfrom torch.distributed import nn\n', 2),
    ('import torch\nimport os\nos.environ["A"] = "1"\n', None),         # after the import: in time
    ('import os\nos.environ["A"] = "1"\nprint(os.environ["A"])\n', None),  # no torch at all
    ('import os\nx = os.environ["A"]\nimport torch\n', None),            # only reads it
    ('import os\n\ndef f():\n    os.environ["A"] = "1"\nimport torch\n', None),  # not at import time
    ('import os\nos.environ["A"] = "1"\nimport torchvision\n', None),     # another package
    ('import os\nos.environ[\n', None),                                   # does not parse: the run says so
    ('import os\nos.environ["A"] = "1"\nfrom . import torch\n', None),  # a relative import (module None)
])
def test_which_settings_come_before_torch(code, line):
    from dpguide.blocks import setting_before_torch

    assert setting_before_torch(code) == line


WORKER = '''\
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


def worker(rank):
    dist.init_process_group("gloo", rank=rank, world_size=2)
    ddp_model = DDP(make_model())
    train(ddp_model)
    dist.barrier(){delete}
    dist.destroy_process_group()
'''


def test_a_ddp_model_freed_after_its_group_is_destroyed_is_named_before_the_run(project):
    snippet = "#| run: python spawn.py\n" + WORKER.format(delete="")
    message = collect_error(project, '```python\n--8<-- "spawn.py"\n```\n', {"spawn.py": snippet})
    assert message.startswith("docs/snippets/spawn.py:11: this function destroys the process group while "
                              "its DDP model 'ddp_model' is still alive, so the model is freed only when "
                              "the function returns, after the group is gone")
    assert "fix: delete it first: `del ddp_model` before destroy_process_group()" in message
    inline = "# L\n\n```python\n" + WORKER.format(delete="") + "```\n"
    assert collect_error(project, inline).startswith("lesson.md:13: this function destroys the process group")
    project.page("lesson.md", "```python\n" + WORKER.format(delete="\n    del ddp_model") + "```\n")
    assert len(project.engine().collect()) == 1
    # a GPU-only block does not run on this build, where the hang was seen: not flagged
    project.page("lesson.md", '```python device="cuda"\n' + WORKER.format(delete="") + "```\n")
    assert len(project.engine().collect()) == 1


@pytest.mark.parametrize("code, found", [
    ("def f():\n    m = DDP(x)\n    dist.destroy_process_group()\n", (3, "m")),
    ("def f():\n    m: DDP = DistributedDataParallel(x)\n    destroy_process_group()\n", (3, "m")),
    ("def f():\n    m = DDP(x)\n    del m\n    dist.destroy_process_group()\n", None),
    ("def f():\n    m = DDP(x)\n    dist.destroy_process_group()\n    del m\n", (3, "m")),  # too late
    ("m = DDP(x)\ndist.destroy_process_group()\n", None),        # module level: freed at exit, not a return
    ("def f():\n    m = nn.Linear(1, 1)\n    dist.destroy_process_group()\n", None),   # not DDP
    ("def f():\n    dist.destroy_process_group()\n    m = DDP(x)\n", None),  # built after: not our case
    ("def f():\n    self.m = DDP(x)\n    dist.destroy_process_group()\n", None),  # an attribute: not a local
    ("def f(:\n    destroy_process_group()\n", None),               # does not parse: the run says so
])
def test_which_functions_free_a_ddp_model_after_destroying_the_group(code, found):
    from dpguide.blocks import ddp_model_freed_after_destroy

    assert ddp_model_freed_after_destroy(code) == found


def test_the_lesson_templates_collect_as_a_draft_with_one_torchrun_block(project):
    """The checklist's first steps, as a newcomer takes them: copy the lesson template and the
    snippet template to a topic; the page is a draft whose blocks run the snippet as its header says
    and, failing, as plain python."""
    from pathlib import Path

    from dpguide.coverage import is_draft

    root = Path(__file__).resolve().parents[1] / "docs"
    lesson = (root / "_templates" / "lesson.md").read_text()
    snippet = (root / "snippets" / "_template" / "lesson.py").read_text()
    assert is_draft(lesson)
    project.snippet("topic/lesson.py", snippet)
    project.page("learn/topic.md", lesson)
    blocks = project.engine().collect()
    # "Try it" under torchrun as the header says, and "Common errors" as plain python, failing
    assert [(b.options.launch, b.options.nproc, b.options.raises) for b in blocks] == [
        ("torchrun", 2, None), ("python", 2, "ValueError")]
    assert snippet.startswith("#| run: torchrun --standalone --nproc-per-node=2 lesson.py\n")
