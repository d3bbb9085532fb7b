"""The claims check's count of GPU sentences that nothing backs: which sentences it counts and which not."""

from __future__ import annotations

import textwrap

import pytest

from dpguide.claims import prose_lines
from dpguide.source_citations import uncited_gpu_sentences

pytestmark = pytest.mark.unit


def counted(page_text: str) -> list[tuple[int, str]]:
    text = textwrap.dedent(page_text).lstrip("\n")
    return [(s.line, s.text) for s in uncited_gpu_sentences("p.md", text, list(prose_lines(text)))]


def test_a_gpu_sentence_with_nothing_behind_it_is_counted_at_its_paragraph():
    assert counted("""
        # Title

        Plain words here. NCCL picks the ring algorithm
        for large messages. Nothing else.
        """) == [(3, "NCCL picks the ring algorithm for large messages.")]


def test_a_citation_in_the_paragraph_backs_all_its_sentences():
    assert counted("""
        The first sentence names a GPU. The second cites it `{source} torch/cuda/__init__.py:is_available`.

        A new paragraph about CUDA streams.
        """) == [(3, "A new paragraph about CUDA streams.")]


def test_a_gpu_block_backs_its_section_only():
    assert counted("""
        ## Run on a GPU

        The output lands on cuda:0.

        ```python device="cuda" gpus="1"
        print(1)
        ```

        ## Another section

        The output lands on cuda:0 here too.
        """) == [(11, "The output lands on cuda:0 here too.")]


def test_code_link_words_and_headings_are_not_statements():
    assert counted("""
        ## GPUs and NCCL

        See [the NCCL page](nccl.md) for more.

        ```python
        x = torch.zeros(1, device="cuda")   # a GPU in code
        ```
        """) == []


def test_a_citation_badge_keeps_its_underscores_through_markdown():
    import html

    import markdown

    from dpguide.source_citations import citation_html

    shown = markdown.markdown("See " + citation_html("torch/cuda/__init__.py:_lazy_init", "2.15.0+cu132") + ".")
    assert "<strong>" not in shown and "<em>" not in shown
    assert "<code>__init__.py</code> <code>_lazy_init</code>" in html.unescape(shown)
    assert 'href="https://github.com/pytorch/pytorch/blob/v2.15.0/torch/cuda/__init__.py"' in shown
