"""How a block and its real output are written back into the page, checked on results built in memory.

Fast: no block runs. test_engine_cache.py checks rank tabs through real torchrun builds as well.
"""

from __future__ import annotations

import json
import textwrap
from dataclasses import replace

import pytest

from dpguide.render import MERGED_NOTE, MERGED_NOTE_WRITTEN, MERGED_TAB, anchor_base, code_box, \
    command_line, failure_note, indent, output_boxes, output_tabs, page_anchors, provenance, \
    replace_blocks, run_section, skipped_section, source_block
from dpguide.results import FORKED_PYTHON, FORKED_TORCHRUN, RunResult
from unit_blocks import block_of, gap, line, result_of

pytestmark = pytest.mark.unit   # pure: `make test-fast` runs it; starting a process fails it (conftest.py)


def tab_bodies(markdown: list[str]) -> dict[str, str]:
    """Tab title -> the text inside that tab (indented lines, dedented)."""
    tabs, current = {}, None
    for text in markdown:
        if text.startswith('=== "'):
            current = text[5:-1]
            tabs[current] = []
        elif current is not None and (text.startswith("    ") or not text):
            tabs[current].append(text[4:])
        else:
            current = None
    return {title: "\n".join(body).strip() for title, body in tabs.items()}


TWO_RANKS = [line("rank 1", "one-a"), line("rank 0", "zero-a"), line("rank 1", "one-err", "stderr"),
             line("rank 0", "zero-b"), line("torchrun", "launcher says", "stderr")]


# ----------------------------------------------------------------------------- boxes
@pytest.mark.unit
def test_outputs_and_failure_notes_show_ansi_styled_text_as_a_terminal_does():
    """An output or an expected failure's note with ANSI style codes shows the text, not the codes."""
    styled = "options, \x1b[1mdo those steps only if you trust it\x1b[0m."
    assert code_box(styled) == ["```text", "options, do those steps only if you trust it.", "```"]
    failed = result_of([line("main", "Traceback (most recent call last):", "stderr"),
                        line("main", "ValueError: " + styled, "stderr")], returncode=1)
    assert not any("\x1b" in text for text in failure_note(replace(failed, launch="python")))


def test_a_code_box_fence_is_longer_than_any_backtick_run_in_the_text():
    assert code_box("plain") == ["```text", "plain", "```"]
    assert code_box("a ```` b", "T") == ['`````text title="T"', "a ```` b", "`````"]


def test_output_boxes_split_at_a_gap_with_a_warning_saying_what_was_dropped():
    out = output_boxes([line("python", "head"), gap("7 bytes dropped"), line("python", "tail")])
    assert out == ["```text", "head", "```", "", '!!! warning "Output not kept here"', "", "    7 bytes dropped", "",
                   "```text", "tail", "```"]


def test_output_boxes_say_when_nothing_was_printed():
    assert output_boxes([]) == ["*Nothing printed.*"]
    assert output_boxes([], empty="*quiet*") == ["*quiet*"]


def test_output_boxes_apply_the_label_and_title():
    assert output_boxes([line("rank 0", "x")], label=lambda l: f"<{l.source}>{l.text}", title="Out") == \
        ['```text title="Out"', "<rank 0>x", "```"]


# ----------------------------------------------------------------------------- tabs
def test_a_python_run_is_one_box_titled_output():
    out = output_tabs(result_of([line("python", "hi"), line("python", "warn", "stderr")], launch="python"))
    assert out == ['```text title="Output"', "hi", "warn", "```"]
    assert output_tabs(result_of([], launch="python")) == ["*The program printed nothing.*"]


def test_each_rank_tab_holds_only_its_own_text_ranks_in_order_launcher_last_then_merged():
    tabs = tab_bodies(output_tabs(result_of(TWO_RANKS)))
    assert list(tabs) == ["rank 0", "rank 1", "torchrun (launcher)", MERGED_TAB]
    assert tabs["rank 0"] == "```text\nzero-a\nzero-b\n```"
    assert tabs["rank 1"] == "```text\none-a\none-err\n```"
    assert tabs["torchrun (launcher)"] == "```text\nlauncher says\n```"
    merged = tabs[MERGED_TAB]
    assert merged.startswith("```text\n[rank 1] one-a\n[rank 0] zero-a\n[rank 1] one-err\n[rank 0] zero-b\n"
                             "[torchrun] launcher says\n```") and merged.endswith(MERGED_NOTE)


def test_the_merged_tab_names_its_order_written_for_forked_ranks_read_for_fresh_ones():
    from dpguide.results import FORKED_TORCHRUN

    forked = tab_bodies(output_tabs(result_of(TWO_RANKS, command=["torchrun", "x.py", FORKED_TORCHRUN])))
    fresh = tab_bodies(output_tabs(result_of(TWO_RANKS, command=["torchrun", "x.py"])))
    assert forked[MERGED_TAB].endswith(MERGED_NOTE_WRITTEN) and MERGED_NOTE not in forked[MERGED_TAB]
    assert fresh[MERGED_TAB].endswith(MERGED_NOTE) and MERGED_NOTE_WRITTEN not in fresh[MERGED_TAB]


def test_ranks_sort_numerically_and_restarts_come_after_first_attempts():
    sources = ["rank 10", "rank 2", "restart 1 rank 0", "node 1 rank 0", "rank 0"]
    tabs = tab_bodies(output_tabs(result_of([line(s, s) for s in sources])))
    assert list(tabs) == ["rank 0", "rank 2", "rank 10", "node 1 rank 0", "restart 1 rank 0", MERGED_TAB]


def test_a_silent_rank_still_has_its_tab_saying_so():
    tabs = tab_bodies(output_tabs(result_of([line("rank 1", "x")]), ranks=3))
    assert list(tabs) == ["rank 0", "rank 1", "rank 2", MERGED_TAB]
    assert tabs["rank 0"] == tabs["rank 2"] == "*This rank printed nothing.*"


def test_no_rank_printed_anything():
    out = output_tabs(result_of([]))
    assert out[-1] == "*No rank printed anything.*" and list(tab_bodies(out)) == [MERGED_TAB]


def test_a_gap_shows_in_every_tab():
    tabs = tab_bodies(output_tabs(result_of([line("rank 0", "a"), gap("dropped"), line("rank 1", "b")])))
    assert all("dropped" in tabs[t] for t in ("rank 0", "rank 1", MERGED_TAB))


def test_processes_left_running_are_reported():
    out = output_tabs(result_of([line("python", "x")], launch="python", background_ended=2))
    assert "2 process(es) it had started were still running; the build ended them." in out[-1]
    assert out[-3] == '!!! note "Processes left running"'


# ----------------------------------------------------------------------------- failure note
TRACEBACK = ["Traceback (most recent call last):", '  File "x.py", line 1, in <module>']


def test_a_python_failure_names_the_last_exception():
    lines = [line("python", t, "stderr") for t in [*TRACEBACK, "ValueError: bad \"value\""]]
    note = failure_note(result_of(lines, launch="python", returncode=1))
    assert note[0] == "!!! failure \"Fails as intended: ValueError\"" and note[1] == ""
    assert note[2] == "    python raised ValueError: bad \"value\"; exit status 1"


def test_a_torchrun_failure_names_the_rank_that_failed_first():
    lines = [line("rank 0", t, "stderr") for t in [*TRACEBACK, "KeyError: 'a'"]]
    lines += [line("rank 1", t, "stderr") for t in [*TRACEBACK, "RuntimeError: first"]]
    lines += [line("torchrun", t, "stderr") for t in ["Root Cause (first observed failure):", "[0]:",
                                                        "  rank      : 1 (local_rank: 1)", "  exitcode  : 1 (pid: 9)"]]
    note = failure_note(result_of(lines, returncode=1))
    assert note[0] == '!!! failure "Fails as intended: RuntimeError on rank 1"'
    assert note[2].startswith("    rank 1 failed first with exit code 1; rank 1 raised RuntimeError: first")


def test_a_failure_without_a_traceback_has_a_plain_title():
    note = failure_note(result_of([line("python", "usage: x", "stderr")], launch="python", returncode=2))
    assert note[0] == '!!! failure "Fails as intended"' and "python's last error line: usage: x" in note[2]


# ----------------------------------------------------------------------------- around the output
def test_provenance_states_every_fact_of_the_run_escaped():
    block = block_of('launch="torchrun" nproc="2"', "print(1)")
    result = result_of([], duration=3.456, ran_at="2026-12-04T01:02:03+00:00",
                       ran_on={"torch": "2.13.0", "python": "3.12.3", "device": "cpu", "machine": "x86_64 <2 cores>"})
    text = provenance(block, result, backends="gloo, mpi")
    assert text == ('<p class="dpg-provenance">Real run, 2026-12-04 01:02:03 UTC · torch 2.13.0 · Python 3.12.3 on '
                    'CPU (x86_64 &lt;2 cores&gt;) · torchrun, 2 processes · process-group backends in this torch: '
                    'gloo, mpi · 3.46 s</p>')


def test_provenance_is_the_same_for_a_fresh_result_and_the_same_result_read_back_from_the_cache():
    block = block_of("", "print(1)")
    fresh = result_of([], launch="python", duration=0.19496)     # "0.19" unrounded, "0.20" from 0.195
    cached = RunResult.from_json(json.loads(json.dumps(fresh.to_json())))
    assert provenance(block, fresh) == provenance(block, cached)


def test_provenance_of_a_simulated_multi_node_run_and_a_gpu_run():
    block = block_of('launch="torchrun" nproc="2" nnodes="2"', "print(1)")
    text = provenance(block, result_of([], ran_on={"device": "cuda: H200"}))
    assert "an unrecorded date" in text and "on cuda: H200 (?)" in text and "torch ?" in text
    assert "torchrun, 2 nodes × 2 processes, all on one machine" in text and "backends" not in text
    assert "one python process ·" in provenance(block_of("", "print(1)"), result_of([]))


def test_provenance_says_when_the_processes_were_forked_from_the_warm_interpreter():
    forked = result_of([], command=["python", "x.py", FORKED_PYTHON], launch="python")
    assert "one python process (forked from a warm interpreter) ·" in provenance(block_of("", "print(1)"), forked)
    block = block_of('launch="torchrun" nproc="2"', "print(1)")
    ranks = result_of([], command=["torchrun", "x.py", FORKED_TORCHRUN])
    assert "torchrun, 2 processes (launcher and ranks forked from a warm interpreter) ·" in provenance(block, ranks)
    fresh = result_of([], command=["torchrun", "x.py"])
    assert "torchrun, 2 processes ·" in provenance(block, fresh)


def test_display_options_stay_on_the_shown_fence_and_run_options_go():
    block = block_of('launch="torchrun" nproc="2" title=\'say "hi"\' hl_lines="2"', "print(1)\nprint(2)")
    assert source_block(block)[0] == '```python hl_lines="2" title="say \'hi\'"'
    assert source_block(block)[1:] == ["print(1)", "print(2)", "```"]


def test_a_whole_snippet_is_shown_from_the_line_after_its_header(tmp_path):
    (tmp_path / "topic").mkdir()
    (tmp_path / "topic" / "headed.py").write_text("#| run: python headed.py\n#| timeout: 9\nprint(1)\n"
                                                  "# --8<-- [start:s]\nprint(2)\n# --8<-- [end:s]\n")
    whole = block_of("", '--8<-- "topic/headed.py"', tmp_path)
    assert source_block(whole)[1] == '--8<-- "topic/headed.py:3:"'
    assert source_block(block_of("", "--8<-- 'topic/headed.py'", tmp_path))[1] == "--8<-- 'topic/headed.py:3:'"
    assert source_block(block_of("", '--8<-- "topic/headed.py:s"', tmp_path))[1] == '--8<-- "topic/headed.py:s"'


def test_a_snippet_gets_its_file_name_as_title_and_a_download_link(tmp_path):
    (tmp_path / "topic").mkdir()
    (tmp_path / "topic" / "run_me.py").write_text("print(1)\n")
    block = block_of("", '--8<-- "topic/run_me.py"', tmp_path, page="learn/deep/page.md")
    assert source_block(block)[0] == '```python title="run_me.py"'
    assert command_line(block) == ['<span class="dpg-label">Run it:</span> `python run_me.py` · '
                                   '[:material-download: Download run_me.py](../../snippets/topic/run_me.py)'
                                   '{ download="run_me.py" .dpg-download }']
    # a block written in the page has no file to download: the line says to save it under the name run
    assert command_line(block_of("", "print(1)")) == ['<span class="dpg-label">Run it:</span> `python block.py` · '
                                                      'save the code above as `block.py` first']


def test_run_section_wraps_command_failure_tabs_and_provenance_in_one_anchored_box():
    block = block_of('launch="torchrun" nproc="3" expect="fail"', "print(1)")
    section = run_section(block, result_of(TWO_RANKS, returncode=1), anchor="run-x")
    assert section[0] == '<div class="dpg-run" id="run-x" markdown>' and section[-1] == "</div>"
    assert any(s.startswith("!!! failure") for s in section)
    assert '=== "rank 2"' in section                     # one node: every rank gets its tab
    assert section[-3].startswith('<p class="dpg-provenance">')
    assert run_section(block_of("", "print(1)"), result_of([], launch="python"))[0] == '<div class="dpg-run" markdown>'
    multi = block_of('launch="torchrun" nproc="3" nnodes="2"', "print(1)")
    assert '=== "rank 2"' not in run_section(multi, result_of(TWO_RANKS))


def test_a_skipped_block_shows_its_reason():
    block = block_of('skip="needs a Slurm cluster"', "print(1)")
    assert skipped_section(block)[-5:] == ['!!! note "Not run by the build"', "", "    needs a Slurm cluster", "",
                                           "</div>"]


# ----------------------------------------------------------------------------- anchors and page surgery
def test_anchor_names_from_option_snippet_section_or_line(tmp_path):
    (tmp_path / "Topic").mkdir()
    (tmp_path / "Topic" / "My_File.py").write_text("# --8<-- [start:s1]\nprint(1)\n# --8<-- [end:s1]\n")
    assert anchor_base(block_of('anchor="nice"', "print(1)")) == "run-nice"
    assert anchor_base(block_of("", '--8<-- "Topic/My_File.py"', tmp_path)) == "run-topic-my-file"
    assert anchor_base(block_of("", '--8<-- "Topic/My_File.py:s1"', tmp_path)) == "run-topic-my-file-s1"
    assert anchor_base(block_of("", "print(1)", prose_lines=4)) == "run-line-5"


def test_repeated_anchors_on_a_page_get_numbered_in_page_order():
    blocks = [block_of('anchor="a"', "print(1)", prose_lines=n) for n in (30, 10, 20)]
    blocks.append(block_of('anchor="b"', "print(1)", prose_lines=40))
    assert page_anchors(blocks) == {11: "run-a", 21: "run-a-2", 31: "run-a-3", 41: "run-b"}


def test_replace_blocks_swaps_each_fence_and_keeps_the_prose():
    text = textwrap.dedent("""\
        intro
        ```python
        a
        ```
        middle
        ```python
        b
        ```
        end""")
    assert replace_blocks(text, {2: (4, ["A1", "A2"]), 6: (8, ["B"])}) == "intro\nA1\nA2\nmiddle\nB\nend"
    assert replace_blocks(text, {}) == text


def test_indent_leaves_blank_lines_empty():
    assert indent(["a", "", "b"], "    ") == ["    a", "", "    b"]


@pytest.mark.parametrize("nnodes", [1, 2])
def test_tabs_per_node_count(nnodes):
    block = block_of(f'launch="torchrun" nproc="2" nnodes="{nnodes}"', "print(1)")
    block = replace(block)
    titles = [s for s in run_section(block, result_of([line("rank 0", "x")])) if s.startswith('=== "')]
    assert ('=== "rank 1"' in titles) == (nnodes == 1)


# ----------------------------------------------------------------------------- exact shapes (mutation testing)
def test_blank_lines_inside_tabs_stay_empty():
    out = output_tabs(result_of(TWO_RANKS))
    assert "" in out and not any(text.strip() == "" and text for text in out)


def test_a_python_run_that_left_processes_keeps_its_output_and_adds_the_note():
    out = output_tabs(result_of([line("python", "x")], launch="python", background_ended=2))
    assert out == ['```text title="Output"', "x", "```", "", '!!! note "Processes left running"', "",
                   "    When the program ended, 2 process(es) it had started were still running; the build ended them."]


def test_an_empty_torchrun_run_is_exactly_one_empty_merged_tab_and_the_sentence():
    assert output_tabs(result_of([])) == [f'=== "{MERGED_TAB}"', "", "    *Nothing printed.*", "", "    " + MERGED_NOTE,
                                          "", "*No rank printed anything.*"]


def test_the_first_raiser_without_a_root_cause_is_the_first_rank():
    lines = [line(r, t, "stderr") for r, kind in (("rank 0", "KeyError: a"), ("rank 1", "ValueError: b"))
             for t in [*TRACEBACK, kind]]
    assert failure_note(result_of(lines, returncode=1))[0] == '!!! failure "Fails as intended: KeyError on rank 0"'


def test_provenance_without_machine_facts_says_what_is_unknown():
    text = provenance(block_of("", "print(1)"), result_of([], duration=0.5))
    assert text == ('<p class="dpg-provenance">Real run, an unrecorded date · torch ? · Python ? on CPU (?) · '
                    "one python process · 0.50 s</p>")


def test_run_section_is_exactly_command_failure_tabs_provenance():
    block = block_of('expect="fail"', "print(1)")
    result = result_of([line("python", "x")], launch="python", returncode=1)
    assert run_section(block, result, backends="gloo") == [
        '<div class="dpg-run" markdown>', "", '<span class="dpg-label">Run it:</span> `python block.py` · save the code above as `block.py` first', "",
        *failure_note(result), "", '```text title="Output"', "x", "```", "", provenance(block, result, "gloo"), "",
        "</div>"]
    assert "gloo" in provenance(block, result, "gloo")


def test_a_skipped_block_is_exactly_its_command_and_reason():
    assert skipped_section(block_of('skip="why"', "print(1)")) == [
        '<div class="dpg-run" markdown>', "", '<span class="dpg-label">Run it:</span> `python block.py` · save the code above as `block.py` first', "",
        '!!! note "Not run by the build"', "", "    why", "", "</div>"]


def test_titles_and_links_use_the_last_path_part_and_a_root_page(tmp_path):
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "b" / "c.py").write_text("print(1)\n")
    block = block_of("", '--8<-- "a/b/c.py"', tmp_path, page="index.md")
    assert source_block(block)[0] == '```python title="c.py"'
    assert command_line(block)[0].endswith("[:material-download: Download c.py](snippets/a/b/c.py)"
                                           '{ download="c.py" .dpg-download }')
    titled = block_of('title="mine"', '--8<-- "a/b/c.py"', tmp_path)
    assert source_block(titled)[0] == '```python title="mine"'


def test_an_inline_block_gets_no_title_and_keeps_its_lines_whole():
    assert source_block(block_of("", "x = 1\nprint( x )")) == ["```python", "x = 1", "print( x )", "```"]


def test_anchor_names_drop_leading_and_trailing_separators(tmp_path):
    (tmp_path / "_t").mkdir()
    (tmp_path / "_t" / "x_.py").write_text("print(1)\n")
    assert anchor_base(block_of("", '--8<-- "_t/x_.py"', tmp_path)) == "run-t-x"


def test_replace_blocks_keeps_lines_with_spaces_whole():
    assert replace_blocks("a b\n```python\nx\n```\nc d", {2: (4, ["new block"])}) == "a b\nnew block\nc d"


def test_a_top_level_snippet_is_named_by_its_file(tmp_path):
    (tmp_path / "top.py").write_text("print(1)\n")
    block = block_of("", '--8<-- "top.py"', tmp_path)
    assert source_block(block)[0] == '```python title="top.py"' and "Download top.py" in command_line(block)[0]


def test_rank_tabs_are_exactly_title_blank_boxes_blank():
    out = output_tabs(result_of([line("rank 0", "a"), gap("g"), line("rank 0", "b")]), ranks=1)
    assert out[:14] == ['=== "rank 0"', "", "    ```text", "    a", "    ```", "", '    !!! warning "Output not kept here"',
                        "", "        g", "", "    ```text", "    b", "    ```", ""]
    assert out[14] == f'=== "{MERGED_TAB}"'


def test_no_line_of_any_tab_is_only_spaces():
    out = output_tabs(result_of([line("rank 0", "a"), gap("g"), line("rank 1", "b")]))
    assert "" in out and not [text for text in out if text and not text.strip()]


def test_the_provenance_link_to_how_the_build_ends_its_processes_points_at_a_real_section():
    from pathlib import Path

    from dpguide.render import CLEAN_ENDING, _relative_url

    page, _, section = CLEAN_ENDING.partition("#")
    text = (Path(__file__).resolve().parents[1] / "docs" / page).read_text()
    assert "{ #" + section + " }" in text
    assert _relative_url("learn/ddp.md", CLEAN_ENDING) == "../../how-outputs-are-made/#the-clean-ending"
    assert _relative_url("index.md", CLEAN_ENDING) == "how-outputs-are-made/#the-clean-ending"
    assert _relative_url("learn/index.md", CLEAN_ENDING) == "../how-outputs-are-made/#the-clean-ending"


def test_the_ending_line_counts_every_process_that_reached_pythons_exit_failed_ones_too():
    block = block_of('launch="torchrun" nproc="2" expect="fail"', "print(1)")
    notes = [{"rank": 0, "teardown": False}, {"rank": 1, "teardown": True}]  # rank 1 failed: whole exit
    text = provenance(block, result_of([], returncode=1, exit_notes=notes))
    assert "without Python's teardown (1 of the 2 processes that reached Python&#x27;s exit)" in text
    every = provenance(block, result_of([], exit_notes=[{"rank": 0, "teardown": False}]))
    assert "without Python's teardown (<a" in every                  # all of them: no count
    assert "teardown" not in provenance(block, result_of([], exit_notes=[{"rank": 0, "teardown": True}]))
