"""The README's commands are the ones CI runs: .ci/run holds its install and test commands verbatim."""

import re

from conftest import ROOT


def readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    return [block.strip() for block in re.findall(r"```bash\n(.*?)```", text, re.S)]


def test_ci_runs_the_readme_install_and_test_commands():
    install, serve, test = readme_commands()
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    for line in install.splitlines():
        assert line in ci and ci.index(line) < ci.index(test)
    assert test in ci
    assert serve == ".venv/bin/mkdocs serve"
