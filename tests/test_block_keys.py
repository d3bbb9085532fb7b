"""Cache keys and block resolution, without running a block: what goes into a key, what never may.

Fast: blocks are resolved in memory and from a temporary snippets folder. test_engine_cache.py checks
the same promises through real builds (an edited block re-runs exactly that block).
"""

from __future__ import annotations

import textwrap
from dataclasses import replace

import pytest

from dpguide import ENGINE_VERSION
from dpguide.blocks import INLINE_SCRIPT, collect_site, compute_key, site_pages
from dpguide.errors import AuthoringError
from unit_blocks import ENVIRONMENT, block_of

pytestmark = pytest.mark.unit   # pure: `make test-fast` runs it; starting a process fails it (conftest.py)


@pytest.fixture
def snippets(tmp_path):
    folder = tmp_path / "docs" / "snippets"
    (folder / "topic").mkdir(parents=True)
    (folder / "topic" / "helper.py").write_text("VALUE = 1\n")
    (folder / "topic" / "main.py").write_text(textwrap.dedent("""\
        #| run: torchrun --standalone --nproc-per-node=2 main.py
        import helper
        # --8<-- [start:part]
        print(helper.VALUE)
        # --8<-- [end:part]
        """))
    return folder


# ----------------------------------------------------------------------------- what the key holds
def test_the_code_is_in_the_key():
    assert block_of("", "print('first')").key != block_of("", "print('second')").key


def test_the_environment_is_in_the_key():
    assert block_of("", "print(1)").key != block_of("", "print(1)", environment={**ENVIRONMENT, "torch": "2.14"}).key


@pytest.mark.parametrize("options", ['launch="torchrun" nproc="2"', 'expect="fail"', 'args="5"', 'fresh="true"',
                                     'threads-at-exit="expected"', 'device="any"'])
def test_every_launch_setting_is_in_the_key(options):
    assert block_of(options, "print(1)").key != block_of("", "print(1)").key


def test_display_options_and_the_page_line_are_not_in_the_key():
    plain = block_of("", "print(1)")
    assert block_of('title="t" hl_lines="1"', "print(1)").key == plain.key
    assert block_of("", "print(1)", prose_lines=7, page="other.md").key == plain.key


def test_the_key_is_recomputed_from_its_parts():
    block = block_of("", "print(1)")
    assert compute_key(block, ENVIRONMENT) == block.key and len(block.key) == 64
    for name, changed in [("script", replace(block, script="other.py", files={"other.py": block.code})),
                          ("deps", replace(block, deps={"helper.py": "0"})),
                          ("options", replace(block, options=replace(block.options, max_restarts=1)))]:
        assert compute_key(changed, ENVIRONMENT) != block.key, name


def test_the_engine_version_is_in_the_key(monkeypatch):
    block = block_of("", "print(1)")
    monkeypatch.setattr("dpguide.blocks.ENGINE_VERSION", ENGINE_VERSION + "-next")
    assert compute_key(block, ENVIRONMENT) != block.key


def test_an_imported_helper_is_in_the_key_of_its_importer(snippets):
    before = block_of("", '--8<-- "topic/main.py"', snippets)
    (snippets / "topic" / "helper.py").write_text("VALUE = 2\n")
    after = block_of("", '--8<-- "topic/main.py"', snippets)
    assert after.key != before.key and after.code == before.code and set(after.deps) == {"topic/helper.py"}


@pytest.mark.parametrize("imports", ["import os, helper", "from helper import VALUE", "import os, \\\n    helper",
                                     "x = 1; import helper as h", "from pkg.inner import VALUE", "from pkg import inner",
                                     "import pkg.inner"])
def test_every_way_of_importing_a_helper_finds_it_without_a_parse_of_every_snippet(snippets, imports):
    # local_imports reads a snippet's import lines before parsing it (most snippets import no snippet
    # file); every spelling of an import must still put the helper in the key
    from dpguide import snippet_files

    (snippets / "topic" / "pkg").mkdir()
    (snippets / "topic" / "pkg" / "__init__.py").write_text("print('pkg/__init__.py runs first')\n")
    (snippets / "topic" / "pkg" / "inner.py").write_text("VALUE = 3\n")
    (snippets / "topic" / "user.py").write_text(imports + "\nprint('helper is named in a comment: helper')\n")
    snippet_files._local_imports_cached.cache_clear()
    deps = set(snippet_files.local_imports(snippets, "topic/user.py"))
    # a package's __init__.py runs too, so it is in the key and travels with the run
    assert deps == ({"topic/pkg/__init__.py", "topic/pkg/inner.py"} if "pkg" in imports else {"topic/helper.py"})
    (snippets / "topic" / "mentions.py").write_text("print('helper')  # names helper, imports nothing\n")
    assert snippet_files.local_imports(snippets, "topic/mentions.py") == {}


def test_a_snippet_that_imports_the_engine_has_the_engine_s_sources_in_its_key(snippets, monkeypatch):
    # the Contribute page's examples run the engine and print its messages: they change with its code
    from dpguide import snippet_files

    (snippets / "topic" / "shows.py").write_text("from dpguide.engine import Engine\nprint(Engine)\n")
    before = block_of("", '--8<-- "topic/shows.py"', snippets)
    assert before.deps == {snippet_files.ENGINE_DEP: snippet_files.engine_source_digest()}
    assert list(before.files) == ["topic/shows.py"]   # nothing of the engine is copied into the run folder
    monkeypatch.setattr(snippet_files, "engine_source_digest", lambda: "an edited engine")
    snippet_files._local_imports_cached.cache_clear()
    after = block_of("", '--8<-- "topic/shows.py"', snippets)
    snippet_files._local_imports_cached.cache_clear()
    assert after.key != before.key
    assert snippet_files.ENGINE_DEP not in block_of("", '--8<-- "topic/main.py"', snippets).deps


# ----------------------------------------------------------------------------- resolution
def test_an_inline_block_runs_as_block_py():
    block = block_of("", "print(1)")
    assert block.script == INLINE_SCRIPT and block.code == b"print(1)\n" and block.snippet is None
    assert block.label == "page.md:1" and block.identity == "page.md:1" and block.reader_command == "python block.py"


def test_an_included_snippet_takes_its_header_and_files(snippets):
    block = block_of("", '--8<-- "topic/main.py"', snippets, page="learn/x.md")
    assert block.script == "topic/main.py" and block.options.launch == "torchrun" and block.options.nproc == 2
    assert set(block.files) == {"topic/main.py", "topic/helper.py"}
    assert block.label == "learn/x.md:1 (docs/snippets/topic/main.py)"
    assert block.identity == "topic/main.py@torchrun-2x1"
    assert block.reader_command == "torchrun --standalone --nproc-per-node=2 main.py"


def test_fence_options_override_the_header(snippets):
    block = block_of('nproc="4"', '--8<-- "topic/main.py"', snippets)
    assert block.options.nproc == 4 and block.identity == "topic/main.py@torchrun-4x1"


def test_a_section_include_runs_the_whole_file(snippets):
    whole = block_of("", '--8<-- "topic/main.py"', snippets)
    part = block_of("", '--8<-- "topic/main.py:part"', snippets)
    assert part.code == whole.code and part.key == whole.key


def test_a_python_snippet_identity_has_no_rank_count(snippets):
    (snippets / "topic" / "single.py").write_text("print(1)\n")
    assert block_of("", '--8<-- "topic/single.py"', snippets).identity == "topic/single.py@python"


def test_a_missing_include_names_the_include_line(snippets):
    with pytest.raises(AuthoringError) as info:
        block_of("", '--8<-- "topic/nope.py"', snippets, prose_lines=2)
    assert (info.value.path, info.value.line) == ("page.md", 4) and "does not exist" in str(info.value)
    assert "docs/snippets/topic/nope.py" in str(info.value)


def test_a_missing_section_lists_the_sections_there(snippets):
    with pytest.raises(AuthoringError) as info:
        block_of("", '--8<-- "topic/main.py:other"', snippets)
    assert info.value.line == 2 and "no section 'other'" in str(info.value) and "sections there: part" in str(info.value)


def test_a_bad_snippet_header_names_the_snippet_file_and_line(snippets):
    (snippets / "topic" / "bad.py").write_text("#| launch: python\n#| nprocs: 2\nprint(1)\n")
    with pytest.raises(AuthoringError) as info:
        block_of("", '--8<-- "topic/bad.py"', snippets)
    assert "docs/snippets/topic/bad.py" in str(info.value)


def test_quiz_and_card_labels_name_their_owner():
    block = block_of("", "print(1)")
    block.role = ("q-one", "option-1")
    assert block.label == "page.md:1 (question q-one, option-1)" and block.identity == "quiz-q-one-option-1"
    block.role = ("deck", "card-0")
    assert block.label == "page.md:1 (deck deck, card-0)"


# ----------------------------------------------------------------------------- the whole site
def test_site_pages_skip_snippets_and_underscore_folders(tmp_path):
    docs = tmp_path / "docs"
    for name in ["index.md", "learn/a.md", "snippets/x/readme.md", "_templates/t.md", "learn/_draft/b.md"]:
        (docs / name).parent.mkdir(parents=True, exist_ok=True)
        (docs / name).write_text("# x\n")
    assert list(site_pages(docs)) == ["index.md", "learn/a.md"]


QUESTION = """
```quiz
id: {id}
type: fill-blank
difficulty: easy
prompt: Fill the blank.
code: |
  print([[1]])
answers: {{1: "1"}}
bank: ["1", "2"]
hint: h
explanation: the blank holds 1
run: python
```
"""


def test_collect_site_gathers_every_error_and_gives_bank_runs_any_outcome(tmp_path):
    docs = tmp_path / "docs"
    (docs / "snippets").mkdir(parents=True)
    pages = {"a.md": QUESTION.format(id="q1") + '\n```python\n--8<-- "nope.py"\n```\n',
             "b.md": QUESTION.format(id="q1")}
    blocks, errors, questions, decks = collect_site(docs, ENVIRONMENT, pages)
    messages = [str(e) for e in errors]
    assert len(errors) == 2 and "does not exist" in messages[0] and "already used at a.md:2" in messages[1]
    assert [q.id for q in questions] == ["q1", "q1"] and decks == []
    roles = sorted(block.role[1] for block in blocks if block.page == "a.md")
    assert roles == ["answer", "bank-1-1"]
    bank = next(block for block in blocks if block.role == ("q1", "bank-1-1"))
    answer = next(block for block in blocks if block.role == ("q1", "answer"))
    assert bank.options.outcome_any and not answer.options.outcome_any
    assert bank.key == compute_key(bank, ENVIRONMENT) != answer.key


# ----------------------------------------------------------------------------- exact details (mutation testing)
def test_an_inline_block_has_no_dependencies():
    assert block_of("", "print(1)").deps == {}


def test_an_imported_helper_travels_with_its_bytes(snippets):
    block = block_of("", '--8<-- "topic/main.py"', snippets)
    assert block.files["topic/helper.py"] == b"VALUE = 1\n"


def test_a_header_error_names_the_header_line(snippets):
    (snippets / "topic" / "bad.py").write_text('"""doc"""\n#| launch: torchrun\n#| nprocs: 2\nprint(1)\n')
    with pytest.raises(AuthoringError) as info:
        block_of("", '--8<-- "topic/bad.py"', snippets)
    assert info.value.path == "docs/snippets/topic/bad.py" and info.value.line == 2


def test_section_lists_name_none_or_every_section(snippets):
    (snippets / "topic" / "plain.py").write_text("print(1)\n")
    with pytest.raises(AuthoringError) as info:
        block_of("", '--8<-- "topic/plain.py:x"', snippets)
    assert info.value.fix.startswith("sections there: none; mark one with")
    (snippets / "topic" / "two.py").write_text("# --8<-- [start:b]\n# --8<-- [end:b]\n# --8<-- [start:a]\n# --8<-- [end:a]\n")
    with pytest.raises(AuthoringError) as info:
        block_of("", '--8<-- "topic/two.py:x"', snippets)
    assert info.value.fix.startswith("sections there: a, b; mark one with")


DECK = """
```flashcards
id: {id}
title: T
cards:
  - front: f
    back: b
    check: print(2)
```
"""


def test_collect_site_goes_on_after_each_error_and_keeps_every_key_and_deck(tmp_path):
    docs = tmp_path / "docs"
    (docs / "snippets").mkdir(parents=True)
    broken_quiz = "```quiz\nid: [\n```\n"
    pages = {"a.md": broken_quiz,
             "b.md": '```python\n--8<-- "nope.py"\n```\n\n```python\nprint(1)\n```\n' + DECK.format(id="d1"),
             "c.md": QUESTION.format(id="q1").replace("run: python", "run: torchrun") + QUESTION.format(id="q2")
             + DECK.format(id="d2")}
    blocks, errors, questions, decks = collect_site(docs, ENVIRONMENT, pages)
    assert [(e.path, e.line) for e in errors] == [("a.md", 3), ("b.md", 2), ("c.md", 2)]
    assert errors[1].fix.startswith("create docs/snippets/nope.py")
    assert [d.id for d in decks] == ["d1", "d2"] and [q.id for q in questions] == ["q1", "q2"]
    found = sorted((b.page, b.line, b.role) for b in blocks)
    assert found == [("b.md", 5, ()), ("b.md", 13, ("d1", "card-0")), ("c.md", 16, ("q2", "answer")),
                     ("c.md", 16, ("q2", "bank-1-1")), ("c.md", 34, ("d2", "card-0"))]
    assert all(b.key == compute_key(b, ENVIRONMENT) for b in blocks)


def test_a_repeated_id_is_reported_where_it_repeats(tmp_path):
    docs = tmp_path / "docs"
    (docs / "snippets").mkdir(parents=True)
    _, errors, _, _ = collect_site(docs, ENVIRONMENT, {"a.md": DECK.format(id="x"), "b.md": "\n" + DECK.format(id="x")})
    [error] = errors
    assert (error.path, error.line, error.problem, error.fix) == ("b.md", 3, "id 'x' is already used at a.md:2",
                                                                  "give every question and deck a unique id")


# ----------------------------------------------------------------------------- the engine's header
def test_a_snippet_runs_without_its_header_so_tracebacks_count_the_lines_a_reader_sees(snippets):
    block = block_of("", '--8<-- "topic/main.py"', snippets)
    assert block.code.decode().splitlines()[0] == "import helper"
    assert block.snippet.header_lines == 1 and block.snippet.body == block.code.decode()


def test_an_imported_helper_with_a_header_travels_without_it(snippets):
    (snippets / "topic" / "helper.py").write_text("#| run: python helper.py\n#| timeout: 5\nVALUE = 1\n")
    block = block_of("", '--8<-- "topic/main.py"', snippets)
    assert block.files["topic/helper.py"] == b"VALUE = 1\n"


def test_header_lines_only_count_at_the_top(snippets):
    (snippets / "topic" / "late.py").write_text('"""doc"""\nprint(1)\n')
    block = block_of("", '--8<-- "topic/late.py"', snippets)
    assert block.snippet.header_lines == 0 and block.code == b'"""doc"""\nprint(1)\n'


LIMIT_LINE = "x = 1  # " + "y" * 91   # 100 characters: the longest line allowed


def test_a_snippet_line_over_the_limit_stops_the_build_at_its_line(snippets):
    (snippets / "topic" / "ok.py").write_text(f"#| run: python ok.py {'a' * 120}\n{LIMIT_LINE}\n")
    assert len(LIMIT_LINE) == 100 and block_of("", '--8<-- "topic/ok.py"', snippets).snippet.header_lines == 1
    (snippets / "topic" / "long.py").write_text(f"print(1)\n{LIMIT_LINE}\n{LIMIT_LINE}z\n")
    with pytest.raises(AuthoringError) as info:
        block_of("", '--8<-- "topic/long.py"', snippets)
    assert (info.value.path, info.value.line) == ("docs/snippets/topic/long.py", 3)
    assert str(info.value).startswith("docs/snippets/topic/long.py:3: this line is 101 characters long; "
                                      "the limit is 100")
    assert "move a trailing comment to a line of its own" in str(info.value)
