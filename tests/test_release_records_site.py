"""Release records through a real site build: the line under an output, and a stale record warned.

The "other release" here is the test's own: its runs are real runs of the block on this machine's
torch, written to a temporary records folder under a made-up version, so that only the comparison
is under test.
"""

from __future__ import annotations

from dpguide.gpu_records import content_key
from dpguide.release_records import block_runs, release_file_name, write_record
from dpguide.site import SiteBuild

PAGE = '''# A lesson

```python
--8<-- "lesson/hello.py"
```
'''
CODE = 'print("hello", 6 * 7)\n'
OTHER = "2.9.0+cpu"
PROVENANCE = {"torch": OTHER, "build": "CPU-only build", "python": "test", "machine": "test", "device": "cpu",
              "date": "test", "runs": 2}


def setup(project, code=CODE):
    project.snippet("lesson/hello.py", code)
    project.page("lesson.md", PAGE)
    warnings = []
    site = SiteBuild(project.root, cache_dir=project.root / "cache", records_dir=project.root / "records" / "gpu",
                     warn=warnings.append, info=lambda m: None)
    return site, warnings


def record_other_release(project, site, block, result) -> None:
    write_record(project.root / "records" / "releases" / release_file_name(OTHER), PROVENANCE,
                 {content_key(block): block_runs(result, result)}, {block.identity: [content_key(block)]})


def test_an_output_says_it_is_the_same_on_a_recorded_release_and_names_the_build_torch(project):
    site, _ = setup(project)
    [block] = site.execute()
    record_other_release(project, site, block, site.engine.result_for(block))
    site, warnings = setup(project)
    site.execute()
    markdown = site.render_page("lesson.md", PAGE)
    assert f"Other torch releases: same on torch {OTHER} (CPU-only build)." in markdown
    assert f"Every output on this page is a real run on torch {site.build_torch()}" in markdown
    assert not warnings


def test_changed_code_makes_the_record_stale_warned_and_its_old_run_not_shown(project):
    site, _ = setup(project)
    [block] = site.execute()
    record_other_release(project, site, block, site.engine.result_for(block))
    site, warnings = setup(project, code=CODE.replace("6 * 7", "6 * 8"))
    site.execute()
    markdown = site.render_page("lesson.md", PAGE)
    assert f"recorded for older code (not shown) on torch {OTHER}" in markdown and "hello 42" not in markdown
    assert len(warnings) == 1 and f"torch-{OTHER}.json is stale for 1 block(s)" in warnings[0]
    assert f"tools/record_release.py {OTHER} --refresh" in warnings[0]
