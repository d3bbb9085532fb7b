"""The mutation command's list of equivalent survivors: every entry carries its reason, once."""

import importlib.util

from conftest import ROOT


def load_tool():
    spec = importlib.util.spec_from_file_location("mutation", ROOT / "tools" / "mutation.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_listed_equivalent_mutant_says_why_and_appears_once():
    tool = load_tool()
    lines = [line for line in tool.EQUIVALENT.read_text().splitlines() if line.strip() and not line.startswith("#")]
    known = tool.listed()
    assert len(known) == len(lines)                           # no entry listed twice
    assert all(" | " in mutant and reason for mutant, reason in known.items())


def test_the_command_mutates_the_modules_pyproject_names():
    assert load_tool().configured_modules() == ["options.py", "api_links.py", "progress.py", "blocks.py", "gpu_records.py",
                                                "render.py", "quiz.py", "quiz_render.py", "coverage.py"]
