"""How long a run waits on Ollama, and what it says while it waits and when it gives up.

``--timeout``/``--retries`` and ``[shared.models.ollama] timeout/retries`` are checked with one
error line each, the command line overrides the config, and neither reaches a cache key or a
published file. Each failure of a real server process on loopback (tests/fake_ollama_server.py)
ends ``evalgate run`` with one line naming the URL and what happened, exit 2; a hung server
says what the run waits for before the timeout. The only time bound is the subprocess timeout.
"""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest
from fake_ollama import ROOT, FakeOllama, evalgate_run, published, run_stats, serving
from fake_ollama_server import server_process

from evalgate_lib.cli import main
from evalgate_lib.errors import InputError
from evalgate_lib.generation.backends import resolve_backend
from evalgate_lib.generation.backends.ollama import WaitNotice, notice_interval
from evalgate_lib.inputs.config import load_config

CONFIGS = ROOT / "configs"
FIX = "Start Ollama with 'ollama serve' (or set OLLAMA_HOST to a running server) and pull the models: "
FIX += "'ollama pull qwen2.5:7b' and 'ollama pull nomic-embed-text'"


def write_configs(folder: Path, ollama_table: str) -> Path:
    """The shipped pair with ``ollama_table`` as the body of [shared.models.ollama] in both files."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("baseline", "candidate"):
        text = (CONFIGS / f"{name}.toml").read_text(encoding="utf-8")
        text = text.replace('corpus = "../corpus"', f'corpus = "{ROOT / "corpus"}"')
        text = text.replace('gold = "../gold/questions.jsonl"', f'gold = "{ROOT / "gold" / "questions.jsonl"}"')
        head, _, rest = text.partition("[shared.models.ollama]\n")
        rest = rest.split("\n\n", 1)[1]
        (folder / f"{name}.toml").write_text(
            f"{head}[shared.models.ollama]\n{ollama_table}\n\n{rest}", encoding="utf-8"
        )
    return folder


MODELS = 'generator = "qwen2.5:7b"\nembedder = "nomic-embed-text"\n'


# ------------------------------------------------------------------ validation


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("timeout = 0", "timeout must be a number of seconds > 0 and at most 86,400 (a day), got 0"),
        ("timeout = -5.5", "timeout must be a number of seconds > 0 and at most 86,400 (a day), got -5.5"),
        ('timeout = "60"', "timeout must be a number of seconds > 0 and at most 86,400 (a day), got '60'"),
        ("timeout = true", "timeout must be a number of seconds > 0 and at most 86,400 (a day), got True"),
        ("retries = -1", "retries must be a whole number from 0 to 100, got -1"),
        ("retries = 1.5", "retries must be a whole number from 0 to 100, got 1.5"),
        ("timeout = 1e308", "timeout must be a number of seconds > 0 and at most 86,400 (a day), got 1e+308"),
        ("timeout = nan", "timeout must be a number of seconds > 0 and at most 86,400 (a day), got nan"),
        ("retries = 101", "retries must be a whole number from 0 to 100, got 101"),
    ],
)
def test_config_values_are_checked_with_the_key_named(tmp_path, line, message):
    folder = write_configs(tmp_path, MODELS + line)
    with pytest.raises(InputError) as caught:
        load_config(folder / "baseline.toml")
    assert str(caught.value) == f"{folder / 'baseline.toml'}: [shared.models.ollama] {message}"


def test_a_misspelt_key_is_refused_with_the_nearest_one(tmp_path):
    folder = write_configs(tmp_path, MODELS + "timeuot = 30")
    with pytest.raises(InputError, match=r"unknown key 'timeuot' in \[shared.models.ollama\]; did you mean 'timeout'"):
        load_config(folder / "baseline.toml")


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--timeout", "0", "--timeout must be a number of seconds > 0 and at most 86,400 (a day), got '0'"),
        ("--timeout", "-3", "--timeout must be a number of seconds > 0 and at most 86,400 (a day), got '-3'"),
        ("--timeout", "soon", "--timeout must be a number of seconds > 0 and at most 86,400 (a day), got 'soon'"),
        ("--timeout", "inf", "--timeout must be a number of seconds > 0 and at most 86,400 (a day), got 'inf'"),
        ("--retries", "-1", "--retries must be a whole number from 0 to 100, got '-1'"),
        ("--retries", "2.5", "--retries must be a whole number from 0 to 100, got '2.5'"),
        ("--timeout", "1e308", "--timeout must be a number of seconds > 0 and at most 86,400 (a day), got '1e308'"),
        ("--retries", "1000000", "--retries must be a whole number from 0 to 100, got '1000000'"),
    ],
)
def test_command_line_values_are_checked_in_one_line(tmp_path, capsys, option, value, message):
    rc = main(["run", "--backend", "ollama", "--out", str(tmp_path / "out"), f"{option}={value}"])
    assert rc == 2
    assert capsys.readouterr().err.splitlines() == [f"evalgate: error: {message}"]


def test_the_command_line_overrides_the_config_and_unset_means_the_defaults():
    models = {"ollama": {"generator": "g", "embedder": "e", "timeout": 45, "retries": 1}}
    from_config = dict(resolve_backend("ollama", models, "127.0.0.1:1").options)
    assert (from_config["read_timeout"], from_config["max_retries"]) == (45.0, 1)
    overridden = dict(resolve_backend("ollama", models, "127.0.0.1:1", timeout=2.5, retries=0).options)
    assert (overridden["read_timeout"], overridden["max_retries"]) == (2.5, 0)
    unset = dict(resolve_backend("ollama", {"ollama": {"generator": "g", "embedder": "e"}}, "127.0.0.1:1").options)
    assert "read_timeout" not in unset and "max_retries" not in unset  # the backend's own 300 s and 3


def test_different_timeouts_in_the_two_configs_break_the_fairness_contract(tmp_path, capsys):
    folder = write_configs(tmp_path, MODELS + "timeout = 60")
    candidate = folder / "candidate.toml"
    candidate.write_text(candidate.read_text().replace("timeout = 60", "timeout = 90"))
    rc = main(
        ["run", "--backend", "ollama", "--baseline", str(folder / "baseline.toml"), "--candidate", str(candidate)]
    )
    err = capsys.readouterr().err.splitlines()
    assert rc == 2
    assert err[1] == "  shared.models.ollama.timeout: 60 (baseline.toml) vs 90 (candidate.toml)"


def test_timeout_and_retries_change_no_cache_key_and_no_published_byte(tmp_path):
    srv = FakeOllama()
    with serving(srv):
        assert evalgate_run(tmp_path / "cache", tmp_path / "a", limit=4) == 0
        assert evalgate_run(tmp_path / "cache", tmp_path / "b", "--timeout", "9", "--retries", "0", limit=4) == 0
    assert srv.seen["/api/chat"] == 8  # the second run answered everything from the cache
    assert run_stats(tmp_path / "b")["model_calls"]["generate_calls"] == 0
    assert run_stats(tmp_path / "b")["ollama"] == {"timeout": 9.0, "retries": 0}
    assert published(tmp_path / "a") == published(tmp_path / "b")


# ------------------------------------------------------------------ the notice


def test_the_notice_interval_is_ten_seconds_or_half_a_short_timeout():
    assert notice_interval(300) == 10.0
    assert notice_interval(20) == 10.0
    assert notice_interval(2) == 1.0


def test_a_quick_block_says_nothing():
    said: list[str] = []
    with WaitNotice(lambda s: f"waited {s:.0f}", 60.0, said.append):
        pass
    assert said == []


# --------------------------------------- failures of a real server process, end to end


def evalgate_cli(tmp_path: Path, hosts: str, *extra: str, configs: Path = CONFIGS) -> subprocess.CompletedProcess[str]:
    """``evalgate run --backend ollama`` as its own process against ``hosts``; a stuck run fails after 120 s."""
    argv = [
        sys.executable,
        "-m",
        "evalgate_lib.cli",
        "run",
        "--backend",
        "ollama",
        "--hosts",
        hosts,
        "--cache-dir",
        str(tmp_path / "cache"),
        "--out",
        str(tmp_path / "out"),
        "--baseline",
        str(configs / "baseline.toml"),
        "--candidate",
        str(configs / "candidate.toml"),
        "--limit",
        "2",
        "--no-progress",
        *extra,
    ]
    return subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=120, env=_env())


def _env() -> dict[str, str]:
    import os

    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def free_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_connection_refused(tmp_path):
    url = f"http://127.0.0.1:{free_port()}"
    done = evalgate_cli(tmp_path, url, "--retries", "1")
    assert done.returncode == 2
    assert done.stderr.splitlines()[0] == (
        f"evalgate: error: Ollama request to {url}/api/show failed after 2 attempts: "
        f"could not connect (ConnectError: [Errno 111] Connection refused). {FIX}"
    )


def test_dns_failure(tmp_path):
    url = "http://no-such-ollama-host.invalid:11434"
    done = evalgate_cli(tmp_path, url, "--retries", "0")
    assert done.returncode == 2
    assert done.stderr.splitlines()[0] == (
        f"evalgate: error: Ollama request to {url}/api/show failed after 1 attempt: "
        f"could not resolve the host name 'no-such-ollama-host.invalid' (DNS lookup failed). {FIX}"
    )


def test_http_500(tmp_path):
    with server_process(tmp_path, "--status-5xx-every", "1") as (url, _):
        done = evalgate_cli(tmp_path, url, "--retries", "1")
    assert done.returncode == 2
    assert done.stderr.splitlines()[0] == (
        f"evalgate: error: Ollama request to {url}/api/embed failed after 2 attempts: "
        "HTTP 500: injected failure (HTTP 500). The server is up but failed with HTTP 500: its own log says why "
        "(often a model that could not be loaded, e.g. out of memory); fix that and rerun"
    )


def test_malformed_json(tmp_path):
    with server_process(tmp_path, "--malformed") as (url, _):
        done = evalgate_cli(tmp_path, url)
    assert done.returncode == 2
    assert done.stderr.splitlines()[0] == (
        f"evalgate: error: malformed response from {url}/api/embed: body is not JSON: "
        "'<html>502 Bad Gateway</html>' (is OLLAMA_HOST pointing at an Ollama server?)"
    )


def test_model_not_found(tmp_path):
    configs = write_configs(tmp_path / "configs", 'generator = "no-such-model:1b"\nembedder = "nomic-embed-text"\n')
    with server_process(tmp_path) as (url, _):
        done = evalgate_cli(tmp_path, url, configs=configs)
    assert done.returncode == 2
    assert done.stderr.splitlines()[0] == (
        f"evalgate: error: model 'no-such-model:1b' is not available on {url}: run 'ollama pull no-such-model:1b'"
    )


def test_a_hung_server_says_what_the_run_waits_for_then_times_out(tmp_path):
    with server_process(tmp_path, "--hang") as (url, _):
        done = evalgate_cli(tmp_path, url, "--timeout", "2", "--retries", "1")
    lines = done.stderr.splitlines()
    assert done.returncode == 2
    waiting = f"evalgate: waiting for {url}/api/embed (model nomic-embed-text), 1 s of 2 s, try "
    assert f"{waiting}1 of 2" in lines and f"{waiting}2 of 2" in lines  # each try said it waited
    errors = [line for line in lines if line.startswith("evalgate: error:")]
    assert errors == [
        f"evalgate: error: Ollama request to {url}/api/embed failed after 2 attempts: timed out "
        "(ReadTimeout: timed out). No answer within 2 s; if the server is only slow (a first request loads "
        "the model into memory), wait longer with --timeout SECONDS or [shared.models.ollama] timeout"
    ]
    assert lines[: lines.index(errors[0])] == [f"{waiting}1 of 2", f"{waiting}2 of 2"]  # nothing else before it


def test_a_quick_server_prints_no_waiting_notice(tmp_path):
    with server_process(tmp_path) as (url, _):
        done = evalgate_cli(tmp_path, url, "--timeout", "30")
    assert done.returncode == 0, done.stderr
    assert "waiting for" not in done.stderr
