"""Where generation runs: one model cache per process, and the joblib backend that spreads the calls.

Generation is the expensive per-question work. It goes through :class:`joblib.Parallel`, so
``jobs`` concurrent requests can keep an Ollama server busy and a registered Dask or Ray
backend can carry it to a cluster. Each worker process builds its own :class:`ModelCache`
(the task carries the backend's spec and the cache folder, never a live model), and the
answers come back in task order, so parallel and serial runs give identical rows.

How many run at once is :func:`generation_workers`'s choice unless the caller sets ``jobs``.
"""

from __future__ import annotations

import contextlib
import os
import threading
from pathlib import Path

import joblib

from evalgate_lib.errors import InputError
from evalgate_lib.generation.backends import BackendSpec, GenerationOptions
from evalgate_lib.generation.cache import ModelCache

_caches: dict[tuple[BackendSpec, str], ModelCache] = {}
_caches_lock = threading.Lock()


def model_cache(spec: BackendSpec, cache_dir: str | Path) -> ModelCache:
    """One :class:`ModelCache` per (backend, folder) and process; joblib workers build their own."""
    key = (spec, str(cache_dir))
    with _caches_lock:
        if key not in _caches:
            _caches[key] = ModelCache(spec.build(), cache_dir)
        return _caches[key]


def usable_cores() -> int:
    """The CPU cores this process may run on (its affinity mask, which a container or ``taskset`` narrows)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def generation_workers(
    in_process: bool, jobs: int | None, joblib_backend: str | None, to_make: int, cores: int
) -> tuple[int, str | None]:
    """How many generations run at once, and on which joblib backend: ``(jobs, joblib_backend)``.

    ``jobs`` given: exactly that, on ``joblib_backend``. ``jobs=None`` (automatic, the default):

    * a generator that runs in this process (``in_process``: the embedded ``local`` backend) on
      the default ``threading`` backend, with at least two generations to make and two cores:
      ``min(cores, to_make)`` ``loky`` worker
      processes. ONNX Runtime GenAI decodes one sequence on about one core whatever its thread
      pool (measured: one busy thread, the other core idle), and one model serves one request at a
      time, so one process per core is how the cores are used. Each worker loads its own model,
      and joblib holds each to ``cores // workers`` threads (``OMP_NUM_THREADS``, which the
      backend passes to ONNX Runtime); the thread count does not change the tokens
      (docs/backends.md, "Same answers").
    * anything else: 1. A run with nothing (or one thing) to generate starts no process; an
      Ollama server, a Dask or Ray cluster, or a caller's own ``parallel_config`` has its own idea
      of concurrency, which ``--jobs N`` states.
    """
    if jobs is not None:
        return jobs, joblib_backend
    if in_process and joblib_backend == "threading" and to_make >= 2 and cores >= 2:
        return min(cores, to_make), "loky"
    return 1, joblib_backend


def generations_at_once(in_process: bool, jobs: int, joblib_backend: str | None) -> int:
    """How many generations ``jobs`` workers make at the same time, for the time estimate.

    An in-process generator serves one request at a time per process (one model, one lock), so
    threads add nothing and only worker processes (``loky``, ``multiprocessing``) multiply it; a
    server or a cluster takes ``jobs`` at once.
    """
    if in_process and joblib_backend not in ("loky", "multiprocessing"):
        return 1
    return jobs


def generate_task(spec: BackendSpec, cache_dir: str, options: GenerationOptions, prompt: str) -> tuple[str, bool, bool]:
    """One question's generation, runnable in any joblib worker; returns (answer, was_model_call, was_corrupt)."""
    return model_cache(spec, cache_dir).generate_with_status(prompt, options)


def check_joblib_backend(name: str | None) -> None:
    """Make sure ``name`` is a usable joblib backend before any model call, or say how to get it.

    ``threading`` (the default), ``loky``, ``multiprocessing`` and ``sequential`` ship
    with joblib. ``dask`` is registered on first use if ``dask.distributed`` is installed;
    it needs a cluster: an existing ``distributed.Client`` (Python API) or
    ``DASK_SCHEDULER_ADDRESS`` (command line). ``ray`` is registered here with
    ``ray.util.joblib.register_ray``; ``ray.init()`` then joins the cluster named by
    ``RAY_ADDRESS``. Any other name must have been registered with
    :func:`joblib.register_parallel_backend` by the caller. ``None`` defers to the
    caller's ``joblib.parallel_config``.
    """
    if name is None:
        return
    from joblib.parallel import BACKENDS, EXTERNAL_BACKENDS

    if name == "dask":
        try:
            if name not in BACKENDS:
                EXTERNAL_BACKENDS[name]()
            from distributed import get_client
        except ImportError:
            raise InputError("--joblib-backend dask needs dask.distributed: pip install 'dask[distributed]'") from None
        address = os.environ.get("DASK_SCHEDULER_ADDRESS")
        try:
            # With an address, get_client returns the current client only if it is connected to that
            # scheduler, and otherwise connects a new one and makes it the default the joblib backend uses.
            get_client(address) if address else get_client()
        except ValueError:
            raise InputError(
                "--joblib-backend dask needs a Dask cluster: set DASK_SCHEDULER_ADDRESS=tcp://<scheduler>:8786 "
                "(or create a distributed.Client before calling run_comparison)"
            ) from None
        except OSError as exc:
            raise InputError(f"--joblib-backend dask: no Dask scheduler reachable at {address}: {exc}") from None
        return
    if name == "ray" and name not in BACKENDS:
        try:
            from ray.util.joblib import register_ray
        except ImportError:
            raise InputError("--joblib-backend ray needs Ray: pip install 'ray[default]'") from None
        register_ray()
        return
    if name not in BACKENDS:
        raise InputError(
            f"unknown joblib backend {name!r}: choose one of {sorted(BACKENDS)}, 'dask' or 'ray', "
            "or register your own with joblib.register_parallel_backend"
        )


def joblib_parallel(name: str | None, jobs: int) -> joblib.Parallel:
    """A :class:`joblib.Parallel` on backend ``name`` (``None``: the caller's ``parallel_config``), in task order.

    A named backend is selected through :func:`joblib.parallel_config`, never by passing the
    name to ``Parallel(backend=...)``: that path builds the backend as ``factory(nesting_level=n)``,
    and joblib's Dask backend takes unknown keyword arguments as ``client.submit`` options, so
    every task reached the workers as ``Batch(tasks=..., nesting_level=0)`` and failed with
    ``TypeError: Batch.__call__() got an unexpected keyword argument 'nesting_level'``
    (joblib 1.6). ``parallel_config`` builds the backend without that argument and sets the
    nesting level as an attribute, the way a plain ``Parallel`` under ``parallel_config`` does.

    Results stream back as a generator (answers are scored, and the progress bar moves, as
    they arrive) where the backend supports it. Ray's joblib backend does not, so there the
    answers come back as one list once all are done: the same rows in the same order.
    """
    with joblib.parallel_config(backend=name) if name is not None else contextlib.nullcontext():
        try:
            return joblib.Parallel(n_jobs=jobs, return_as="generator")
        except ValueError as exc:
            if "does not support return_as=generator" not in str(exc):
                raise
            return joblib.Parallel(n_jobs=jobs, return_as="list")
