"""The cache: a rebuild with nothing changed runs nothing; a change re-runs exactly what depends on it."""

from __future__ import annotations

import pytest

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

    engine_module._FORKSERVER.close() if engine_module._FORKSERVER else None
    engine_module._FORKSERVER = None
    second = sources(project.engine())
    assert set(second.values()) == {"cached"}
    assert engine_module._FORKSERVER is None           # no process was needed at all


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
