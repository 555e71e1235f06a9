"""The stakeholder report (what ``evalgate report`` runs).

The command executes the numbered notebooks in ``notebooks/`` with papermill
(``02`` runs the evaluation unless ``--results`` names a finished results
folder), then renders ``05_report.ipynb`` with nbconvert, code hidden, into one
self-contained ``<out>/index.html``: first the gate's PASS / FAIL under a thresholds
file with the rules that decided it and what changed, then headline metrics and
deltas (significant ones marked), the questions that changed side by side,
methodology and limits, charts as embedded PNGs, and a table of every answer of
both configs that a reader filters in the browser with no kernel running, then the
executed notebooks themselves as closed appendices inside the same file (it can be
mailed or attached to a CI run as it is). The executed notebooks are also kept in
``<out>/notebooks/`` (``.ipynb`` and ``.html``), for their tracebacks and kernel logs.

The HTML pieces are in :mod:`evalgate_lib.reporting.report_html`; the config overrides and
run-or-load of results that the notebooks share are in :mod:`evalgate_lib.workbench.notebook_support`.
"""

from __future__ import annotations

import errno
import json
import time
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from evalgate_lib.errors import EvalGateError, InputError, OutputError
from evalgate_lib.files import atomic_write
from evalgate_lib.reporting.report_html import report_title
from evalgate_lib.run.folder import read_results_folder
from evalgate_lib.workbench.notebook_support import COMMITTED_NOTEBOOKS

#: The notebooks, in execution order; ``02`` is skipped when results are given.
NOTEBOOKS = (
    "01_corpus_inspection",
    "02_two_config_run",
    "03_coverage_heatmaps",
    "04_flag_explorer",
)
REPORT_NOTEBOOK = "05_report"


def report_entries(results_given: bool) -> tuple[str, ...]:
    """What a report writes into its folder, each entry replaced whole: the page and its executed notebooks, and
    the results folder when the report runs the evaluation (``results_given`` false)."""
    return ("index.html", "notebooks") + (() if results_given else ("results",))


def default_notebook_dir() -> Path:
    """``notebooks/`` of the working directory if present, else the one beside the package (editable install)."""
    here = Path("notebooks")
    if (here / f"{REPORT_NOTEBOOK}.ipynb").is_file():
        return here.resolve()
    # the checkout's notebooks/ (evalgate_lib/workbench/report.py → the folder holding evalgate_lib/);
    # this said parent.parent, evalgate_lib/notebooks, since the module moved into workbench/
    return COMMITTED_NOTEBOOKS


# --------------------------------------------------------------------------- notebooks → HTML


def kernel_config() -> Any:
    """Configuration of the kernel papermill starts: its sockets encrypted with CurveZMQ where that is available.

    ipykernel logs "Kernel is running over TCP without encryption" on every start over plain TCP,
    and the kernel writes it to the stderr it inherits: the terminal of ``evalgate report``, once per
    notebook, ahead of EvalGate's own lines. The remedy the warning names is keys provisioned by
    the kernel manager: jupyter_client's ``KernelManager.transport_encryption = "auto"`` (8.10 and
    later) gives them to every kernel whose kernelspec declares ``supported_encryption`` (ipykernel 7
    does). Nothing is filtered: with an older jupyter_client or a pyzmq built without CurveZMQ this
    returns an empty config and the kernel starts, and warns, as before.
    """
    import zmq
    from jupyter_client.manager import KernelManager
    from traitlets.config import Config

    if "transport_encryption" not in KernelManager.class_trait_names() or not zmq.has("curve"):
        return Config()
    return Config({"KernelManager": {"transport_encryption": "auto"}})


def kernel_log_path(executed: str | Path) -> Path:
    """Where the kernel that executed ``executed`` (``<name>.ipynb``) wrote its own log: ``<name>.kernel.log``."""
    return Path(executed).with_suffix(".kernel.log")


def _kernel_manager_logging_to(handle: Any) -> type:
    """A kernel manager whose kernels write their stderr (their own log) to ``handle``, not to our terminal.

    The kernel's log (``[IPKernelApp] ...`` lines, e.g. when a loaded machine makes a kernel slow
    to shut down) is not the notebook's output, which papermill keeps in the executed copy; on the
    terminal of ``evalgate report`` it would sit among EvalGate's own lines. It is kept in a file
    beside the executed notebook instead, and :func:`build_report` names that file when it holds more
    than the line every busy kernel logs at shutdown (:data:`SHUTDOWN_INTERRUPT`).
    """
    from jupyter_client.manager import AsyncKernelManager

    class _KernelManager(AsyncKernelManager):
        async def _async_launch_kernel(self, kernel_cmd: list[str], **kw: Any) -> None:
            kw["stderr"] = handle
            await super()._async_launch_kernel(kernel_cmd, **kw)

    return _KernelManager


def execute_notebook(
    source: str | Path,
    dest: str | Path,
    parameters: Mapping[str, Any],
    cwd: str | Path | None = None,
    kernel_name: str = "python3",
    timeout: int | None = 1800,
) -> Path:
    """Run one notebook top to bottom with papermill; a failing cell becomes an :class:`EvalGateError`.

    The kernel's own log goes to :func:`kernel_log_path` (removed again when the kernel wrote nothing).
    """
    import papermill as pm
    from papermill.exceptions import PapermillExecutionError

    src, out = Path(source), Path(dest)
    out.parent.mkdir(parents=True, exist_ok=True)
    log_path = kernel_log_path(out)
    try:
        with open(log_path, "wb") as kernel_log:
            pm.execute_notebook(
                str(src),
                str(out),
                parameters=dict(parameters),
                kernel_name=kernel_name,
                cwd=str(cwd or src.parent),
                progress_bar=False,
                log_output=False,
                execution_timeout=timeout,
                config=kernel_config(),
                kernel_manager_class=_kernel_manager_logging_to(kernel_log),
            )
    except OSError as exc:
        if exc.errno not in _WRITE_REFUSALS:
            raise
        raise OutputError(f"cannot write {exc.filename or out} ({exc.strerror})", exc.strerror or "") from None
    except PapermillExecutionError as exc:
        raise EvalGateError(
            f"notebook {src.name} failed in cell {exc.exec_count}: {exc.ename}: {exc.evalue} "
            f"(executed copy with the traceback: {out}{_kernel_log_note(log_path)})"
        ) from None
    finally:
        if log_path.is_file() and log_path.stat().st_size == 0:
            log_path.unlink()
    return out


#: The errors of a file system refusing a write (permissions, read-only, full, quota, file size limit):
#: the executed notebooks are written into the report folder while the notebooks run.
_WRITE_REFUSALS = frozenset({errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOSPC, errno.EDQUOT, errno.EFBIG})


def _kernel_log_note(log_path: Path) -> str:
    return f"; the kernel's own log: {log_path}" if log_path.is_file() and log_path.stat().st_size else ""


#: What ipykernel logs when the interrupt jupyter_client sends before every shutdown finds it still busy
#: (a loaded machine): part of how every kernel stops, not an event of the notebook.
SHUTDOWN_INTERRUPT = "[IPKernelApp] ERROR | KeyboardInterrupt caught in kernel."


def _say_kernel_log(executed: Path, log: Callable[[str], Any]) -> None:
    """One line naming the kernel's log file when it holds anything but the shutdown interrupt's line.

    The file itself is always kept when the kernel wrote to it, that line included.
    """
    path = kernel_log_path(executed)
    if not path.is_file():
        return
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    if any(line.strip() and line.strip() != SHUTDOWN_INTERRUPT for line in lines):
        log(f"kernel of {executed.name} wrote {len(lines)} line(s) to its own log: {path}")


def render_html(
    notebook: str | Path, dest: str | Path, title: str | None = None, appendices: Sequence[tuple[str, str]] = ()
) -> Path:
    """Render an executed notebook to one self-contained, offline HTML file: :class:`ReportExporter`'s page.

    The same page ``jupyter nbconvert --to evalgate`` writes, with ``title`` in its ``<title>`` and each of
    ``appendices`` (``(notebook name, its rendered page)``) inside it.
    """
    import nbformat

    from evalgate_lib.workbench.html_export import ReportExporter

    nb = nbformat.read(str(notebook), as_version=4)
    if title:
        nb.metadata["title"] = title
    exporter = ReportExporter()
    exporter.appendices = list(appendices)
    body, _ = exporter.from_notebook_node(nb)
    out = Path(dest)
    atomic_write(out, body)
    return out


def machine_roots(*folders: str | Path) -> list[str]:
    """The absolute folders a shared report must not name, longest first (the checkout, the report, the notebooks')."""
    roots = {str(Path(f).resolve()) for f in folders}
    return sorted((r for r in roots if len(Path(r).parts) > 1), key=len, reverse=True)


def without_machine_paths(file: str | Path, roots: list[str]) -> None:
    """Rewrite ``file`` (an executed notebook, a rendered page) so no path names this machine's folders.

    papermill records the parameters it injected (absolute config, cache and results paths) in the
    executed notebook's parameters cell and metadata, and outputs may print paths: each ``root/`` is
    cut to a path relative to it (``configs/baseline.toml``, relative to the folder the report was
    built in), and a root on its own becomes ``.``. The figures and verdicts are untouched.
    """
    path = Path(file)
    text = path.read_text(encoding="utf-8")
    new = text
    for root in roots:
        for form in (root, json.dumps(root)[1:-1]):
            new = new.replace(form + "/", "").replace(f'"{form}"', '"."').replace(f"'{form}'", "'.'")
    if new != text:
        atomic_write(path, new)


def notebook_parameters(
    baseline: str | Path,
    candidate: str | Path,
    backend: str = "auto",
    hosts: str | None = None,
    cache_dir: str | Path = "cache",
    limit: int | None = None,
    jobs: int | None = None,
    thresholds: str | Path = "configs/gate.toml",
) -> dict[str, Any]:
    """The parameters every notebook accepts (paths made absolute, so the notebooks' own folder does not matter).

    ``thresholds`` is the gate file whose PASS / FAIL opens the report (notebook 05's
    ``gate_thresholds``); a notebook that does not declare a parameter never receives it.
    """
    return {
        "baseline_config": str(Path(baseline).resolve()),
        "candidate_config": str(Path(candidate).resolve()),
        "backend": backend,
        "hosts": hosts,
        "cache_dir": str(Path(cache_dir).resolve()),
        "limit": limit,
        "jobs": jobs,
        "gate_thresholds": str(Path(thresholds).resolve()),
    }


def declared(notebook: str | Path, parameters: Mapping[str, Any]) -> dict[str, Any]:
    """The subset of ``parameters`` that ``notebook``'s tagged parameters cell declares."""
    import papermill as pm

    known = pm.inspect_notebook(str(notebook))
    return {k: v for k, v in parameters.items() if k in known}


def skipped_notebooks(results_given: bool, external: bool, no_appendices: bool) -> list[tuple[str, str]]:
    """Every numbered notebook a report leaves out, each with why (the report and the command line both say it).

    02 runs EvalGate's pipeline: not needed when a results folder is given. 01 inspects the corpus
    as the configs chunk it: for answers scored from logs neither the configs nor EvalGate's chunking
    played any part. ``no_appendices`` leaves out 01, 03 and 04.
    """
    why: dict[str, str] = {}
    if no_appendices:
        for name in ("01_corpus_inspection", "03_coverage_heatmaps", "04_flag_explorer"):
            why[name] = "left out by --no-appendices"
    if results_given:
        why["02_two_config_run"] = "the results folder was given (--results), so there was nothing to run"
    if external:
        why["01_corpus_inspection"] = (
            "the answers were scored from logs (evalgate score): neither the configs nor EvalGate's chunking "
            "played any part in them, so there is no chunking to inspect"
        )
    return [(name, why[name]) for name in NOTEBOOKS if name in why]


def build_report(
    out: str | Path,
    parameters: Mapping[str, Any],
    results: str | Path | None = None,
    notebooks: str | Path | None = None,
    no_appendices: bool = False,
    log: Callable[[str], Any] = print,
) -> Path:
    """Execute the notebooks and render ``<out>/index.html``; returns its path.

    ``parameters`` come from :func:`notebook_parameters`. With ``results`` (a finished
    results folder) notebook 02 is skipped; without, it runs the evaluation into
    ``<out>/results``. ``no_appendices`` skips notebooks 01, 03 and 04. Every skipped notebook
    is named with why (:func:`skipped_notebooks`), in ``log`` and at the end of the report.
    """
    out = Path(out).resolve()
    nb_dir = Path(notebooks).resolve() if notebooks else default_notebook_dir()
    roots = machine_roots(Path.cwd(), out, nb_dir.parent)
    if not (nb_dir / f"{REPORT_NOTEBOOK}.ipynb").is_file():
        raise InputError(f"notebook folder {nb_dir} has no {REPORT_NOTEBOOK}.ipynb (use --notebooks)")
    executed = out / "notebooks"
    params = dict(parameters)
    results_dir = Path(results).resolve() if results else out / "results"
    # a given folder is verified before any notebook runs: one line, not a report of stale numbers
    external = results is not None and read_results_folder(results).manifest.is_external
    params["results_dir"] = str(results_dir)
    timings: dict[str, float] = {}
    skipped = skipped_notebooks(results is not None, external, no_appendices)
    for name, why in skipped:
        log(f"skipping {name}.ipynb: {why}")
    names = [n for n in NOTEBOOKS if n not in dict(skipped)]
    for name in names:
        started = time.perf_counter()
        nb_params = dict(params, out_dir=str(results_dir if name == "02_two_config_run" else executed))
        log(f"executing {name}.ipynb ...")
        source = nb_dir / f"{name}.ipynb"
        execute_notebook(source, executed / f"{name}.ipynb", declared(source, nb_params), cwd=nb_dir)
        _say_kernel_log(executed / f"{name}.ipynb", log)
        without_machine_paths(executed / f"{name}.ipynb", roots)
        render_html(executed / f"{name}.ipynb", executed / f"{name}.html", title=name)
        timings[name] = round(time.perf_counter() - started, 1)
    started = time.perf_counter()
    appendices = list(names)
    log(f"executing {REPORT_NOTEBOOK}.ipynb ...")
    source = nb_dir / f"{REPORT_NOTEBOOK}.ipynb"
    execute_notebook(
        source,
        executed / f"{REPORT_NOTEBOOK}.ipynb",
        declared(
            source,
            dict(params, out_dir=str(out), appendices=appendices, skipped_notebooks=[list(x) for x in skipped]),
        ),
        cwd=nb_dir,
    )
    _say_kernel_log(executed / f"{REPORT_NOTEBOOK}.ipynb", log)
    without_machine_paths(executed / f"{REPORT_NOTEBOOK}.ipynb", roots)
    title = report_title(read_results_folder(results_dir).summary)
    pages = [(name, (executed / f"{name}.html").read_text(encoding="utf-8")) for name in names]
    index = render_html(executed / f"{REPORT_NOTEBOOK}.ipynb", out / "index.html", title, pages)  # one file
    timings[REPORT_NOTEBOOK] = round(time.perf_counter() - started, 1)
    atomic_write(executed / "timings.json", json.dumps(timings, indent=2) + "\n")
    return index
