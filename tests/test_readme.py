"""The README's two commands are the ones CI and a newcomer run, and each does its own set-up."""

import re
import subprocess

from conftest import ROOT


def readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    return [block.strip() for block in re.findall(r"```bash\n(.*?)```", text, re.S)]


def test_the_readme_opens_with_two_commands_and_ci_runs_the_test_one():
    serve, test, *_ = readme_commands()
    assert (serve, test) == ("make serve", "make test")
    ci = [line for line in (ROOT / ".ci" / "run").read_text().splitlines() if line and not line.startswith("#")]
    assert ci[-1] == test
    assert not any(re.search(r"\b(pip|venv|pytest|apt-get)\b", line) for line in ci), ci


def make_plan(target: str) -> str:
    """What `make TARGET` would run on a machine with no environment yet (dry run, nothing executed)."""
    return subprocess.run(["make", "-n", "-B", target, "VENV=/nonexistent/venv"], cwd=ROOT, capture_output=True,
                          text=True, check=True).stdout


def test_each_command_sets_up_a_fresh_machine_itself():
    for target, work in (("serve", "mkdocs serve"), ("test", "pytest tests README.md --codeblocks")):
        plan = make_plan(target)
        steps = [plan.index(s) for s in ("-m venv", "pip install", "-c constraints.txt", "vendor_js.py", work)]
        assert steps == sorted(steps), plan
    assert "apt-get install -y chromium" in make_plan("test")


def test_the_lock_pins_torch_without_a_local_label_so_gpu_machines_get_cuda():
    pins = dict(line.split("==") for line in (ROOT / "constraints.txt").read_text().splitlines()
                if "==" in line and not line.startswith("#"))
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert f'"torch=={pins["torch"]}"' in pyproject and pins["torch"] == "2.15.0"
    assert all("+" not in version for version in pins.values())


def test_the_install_reads_no_pip_configuration_of_the_machine():
    """A machine-wide constraints file or a folder of local wheels must not pick the torch (this
    machine's caps torch below 2.15 and offers a local CPU wheel)."""
    install = next(line for line in make_plan("install").splitlines() if "pip install" in line)
    assert "PIP_CONFIG_FILE=/dev/null" in install
    for variable in ("PIP_FIND_LINKS", "PIP_CONSTRAINT", "PIP_EXTRA_INDEX_URL", "PIP_INDEX_URL"):
        assert f"-u {variable}" in install, variable
