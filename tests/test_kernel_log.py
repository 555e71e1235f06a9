"""A notebook kernel's own log goes to a file beside its executed copy, not to the terminal of ``evalgate report``."""

from __future__ import annotations

from pathlib import Path

import nbformat

from evalgate_lib.workbench.report import SHUTDOWN_INTERRUPT, _say_kernel_log, execute_notebook, kernel_log_path


def _notebook(folder: Path, name: str, source: str) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source)]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path = folder / f"{name}.ipynb"
    nbformat.write(nb, path)
    return path


def test_what_the_kernel_writes_to_its_stderr_is_kept_in_its_log_file(tmp_path, capfd):
    source = _notebook(
        tmp_path,
        "talks",
        "import sys\nprint('output')\n"
        "sys.__stderr__.write('[IPKernelApp] ERROR | a log line\\n'); sys.__stderr__.flush()",
    )
    out = execute_notebook(source, tmp_path / "out" / "talks.ipynb", {})
    assert "a log line" not in capfd.readouterr().err  # not on the terminal
    assert kernel_log_path(out) == tmp_path / "out" / "talks.kernel.log"
    # On a loaded machine the kernel may still be busy when jupyter_client interrupts it before shutdown,
    # and it then logs that interrupt after the notebook's own line: kept in the file like any other.
    lines = kernel_log_path(out).read_text(encoding="utf-8").splitlines()
    assert lines in (["[IPKernelApp] ERROR | a log line"], ["[IPKernelApp] ERROR | a log line", SHUTDOWN_INTERRUPT])
    said: list[str] = []
    _say_kernel_log(out, said.append)
    assert said == [f"kernel of talks.ipynb wrote {len(lines)} line(s) to its own log: {kernel_log_path(out)}"]
    assert "output" in out.read_text(encoding="utf-8")  # the notebook's own output stays in the notebook


def test_a_silent_kernel_leaves_no_line(tmp_path):
    """No log, or (on a loaded machine) only the line of the interrupt jupyter_client sends before every shutdown."""
    out = execute_notebook(_notebook(tmp_path, "quiet", "print('output')"), tmp_path / "out" / "quiet.ipynb", {})
    log = kernel_log_path(out)
    assert not log.exists() or log.read_text(encoding="utf-8").splitlines() == [SHUTDOWN_INTERRUPT]
    said: list[str] = []
    _say_kernel_log(out, said.append)
    assert said == []


def test_the_shutdown_interrupt_line_alone_is_kept_but_not_announced(tmp_path):
    executed = tmp_path / "nb.ipynb"
    kernel_log_path(executed).write_text(SHUTDOWN_INTERRUPT + "\n", encoding="utf-8")
    said: list[str] = []
    _say_kernel_log(executed, said.append)
    assert said == [] and kernel_log_path(executed).is_file()
    more = SHUTDOWN_INTERRUPT + "\nTraceback (most recent call last):\n"
    kernel_log_path(executed).write_text(more, encoding="utf-8")
    _say_kernel_log(executed, said.append)
    assert said == [f"kernel of nb.ipynb wrote 2 line(s) to its own log: {kernel_log_path(executed)}"]
