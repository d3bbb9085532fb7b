"""The cache: a rebuild with nothing changed runs nothing; a change re-runs exactly what depends on it."""

from __future__ import annotations

import pytest

from dpguide.render import MERGED_TAB

pytestmark = pytest.mark.usefixtures("clean_process_table")

PAGE = '''
# Lesson

```python
--8<-- "topic/uses_helper.py"
```

```python
--8<-- "topic/alone.py"
```

```python
print("inline", 6 * 7)
```
'''


def make(project):
    project.snippet("topic/helper.py", "FACTOR = 2\n")
    project.snippet("topic/uses_helper.py", "from helper import FACTOR\nprint('factor', FACTOR)\n")
    project.snippet("topic/alone.py", "print('alone')\n")
    project.page("lesson.md", PAGE)


def sources(engine) -> dict[str, str]:
    engine.run(engine.collect())
    return {stat.label: stat.source for stat in engine.stats}


def test_second_build_runs_nothing_and_does_not_start_the_fork_server(project):
    make(project)
    first = sources(project.engine())
    assert set(first.values()) == {"run"}
    import dpguide.engine as engine_module

    for server in engine_module._SERVERS.values():
        server.close()
    engine_module._SERVERS.clear()
    second = sources(project.engine())
    assert set(second.values()) == {"cached"}
    assert not engine_module._SERVERS                 # no process was needed at all


def test_changing_an_imported_helper_reruns_only_its_importer(project):
    make(project)
    sources(project.engine())
    project.snippet("topic/helper.py", "FACTOR = 3\n")
    engine = project.engine()
    after = sources(engine)
    assert after == {"lesson.md:3 (docs/snippets/topic/uses_helper.py)": "run",
                     "lesson.md:7 (docs/snippets/topic/alone.py)": "cached",
                     "lesson.md:11": "cached"}
    [block] = [b for b in engine.collect() if b.snippet and b.snippet.relpath == "topic/uses_helper.py"]
    assert engine.result_for(block).text() == "factor 3"


def test_prose_edits_and_moved_blocks_rerun_nothing(project):
    make(project)
    sources(project.engine())
    project.page("lesson.md", "Some new introduction.\n\nAnd more prose.\n" + PAGE.replace("# Lesson", "# Renamed"))
    assert set(sources(project.engine()).values()) == {"cached"}


def test_launch_settings_are_part_of_the_key(project):
    make(project)
    sources(project.engine())
    project.page("lesson.md", PAGE.replace('```python\nprint("inline"', '```python timeout="30" fresh="true"\nprint("inline"'))
    assert sources(project.engine())["lesson.md:11"] == "run"


def test_two_inline_blocks_never_share_an_entry_and_each_shows_its_own_output(project):
    project.page("lesson.md", '''
```python
print('first')
```

```python
print('second')
```
''')
    engine = project.engine()
    first, second = engine.collect()
    engine.run([first, second])
    assert first.key != second.key
    assert engine.result_for(first).text() == "first"
    assert engine.result_for(second).text() == "second"


def test_editing_one_inline_block_reruns_exactly_that_block(project):
    make(project)
    sources(project.engine())
    project.page("lesson.md", PAGE.replace('print("inline", 6 * 7)', 'print("inline", 6 * 8)'))
    engine = project.engine()
    after = sources(engine)
    assert after["lesson.md:11"] == "run"
    assert [label for label, source in after.items() if source == "run"] == ["lesson.md:11"]
    assert engine.result_for(engine.collect()[2]).text() == "inline 48"


def test_a_changed_environment_reruns_every_block(project):
    make(project)
    sources(project.engine())
    engine = project.engine()
    engine.environment = {**engine.environment, "torch": "0.0.0-another-build"}
    assert set(sources(engine).values()) == {"run"}


def test_threads_at_exit_and_script_arguments_are_part_of_the_key(project):
    project.snippet("s.py", "import sys\nprint(sys.argv[1:])\n")
    project.page("lesson.md", '''
```python
--8<-- "s.py"
```

```python threads-at-exit="expected"
--8<-- "s.py"
```

```python args="x"
--8<-- "s.py"
```
''')
    keys = [block.key for block in project.engine().collect()]
    assert len(set(keys)) == 3


def test_each_rank_tab_holds_only_its_own_ranks_text(project):
    from dpguide.render import output_tabs

    project.snippet("tabs.py", "#| run: torchrun --standalone --nproc-per-node=2 tabs.py\n"
                               "import os\nprint('printed by', os.environ['RANK'])\n")
    project.page("lesson.md", '```python\n--8<-- "tabs.py"\n```\n')
    engine = project.engine()
    [block] = engine.collect()
    engine.run([block])
    rendered = output_tabs(engine.result_for(block))
    tabs, current = {}, None
    for line in rendered:
        if line.startswith('=== "'):
            current = line[5:-1]
            tabs[current] = []
        elif current:
            tabs[current].append(line.strip())
    assert "printed by 0" in tabs["rank 0"] and "printed by 1" not in tabs["rank 0"]
    assert "printed by 1" in tabs["rank 1"] and "printed by 0" not in tabs["rank 1"]
    merged = tabs[MERGED_TAB]
    assert "[rank 0] printed by 0" in merged and "[rank 1] printed by 1" in merged


def test_a_rank_that_printed_nothing_still_has_its_tab_saying_so(project):
    from dpguide.render import output_tabs

    project.snippet("quiet.py", "#| run: torchrun --standalone --nproc-per-node=2 quiet.py\n"
                                "import os\nif os.environ['RANK'] == '0':\n    print('only rank 0 speaks')\n")
    project.page("lesson.md", '```python\n--8<-- "quiet.py"\n```\n')
    engine = project.engine()
    [block] = engine.collect()
    engine.run([block])
    rendered = "\n".join(output_tabs(engine.result_for(block), ranks=2))
    assert '=== "rank 1"\n\n    *This rank printed nothing.*' in rendered
    assert rendered.index('=== "rank 0"') < rendered.index('=== "rank 1"') < rendered.index(MERGED_TAB)


def test_a_cold_build_starts_the_block_that_sleeps_first(project):
    # one slot: blocks run one by one in the engine's order, so the order they finish in is that order
    project.page("lesson.md", "\n\n".join(
        ["# L"] + [f"```python\nprint('quick {n}')\n```" for n in range(3)]
        + ["```python\nimport time\ntime.sleep(0.5)\nprint('slept')\n```"]))
    cold = project.engine(slots=1)
    cold.run(cold.collect())
    assert [stat.label for stat in cold.stats][0] == "lesson.md:15"   # the last block, guessed longest


def test_the_default_is_two_slots_per_core_and_dpguide_jobs_overrides_it(project, monkeypatch):
    import os

    from dpguide.engine import SLOTS_PER_CORE

    monkeypatch.delenv("DPGUIDE_JOBS", raising=False)
    assert SLOTS_PER_CORE == 2 and project.engine().slots == 2 * os.cpu_count()
    monkeypatch.setenv("DPGUIDE_JOBS", "3")
    assert project.engine().slots == 3


@pytest.mark.unit
def test_a_torchrun_block_holds_a_slot_per_rank_and_a_python_block_one():
    from types import SimpleNamespace

    from dpguide.engine import _weight

    def block(launch, nproc=None, nnodes=1):
        return SimpleNamespace(options=SimpleNamespace(launch=launch, nproc=nproc, nnodes=nnodes))

    assert [_weight(block("torchrun", n)) for n in (1, 2, 3, 4)] == [1, 2, 3, 4]
    assert _weight(block("torchrun", 2, nnodes=2)) == 4
    assert _weight(block("python")) == 1

