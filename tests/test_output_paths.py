"""Where EvalGate writes: the one check of every output path, the writer that names a refused write, stdout.

:func:`evalgate_lib.run.outputs.check_output` is what every ``--out``, ``--json`` and
``--cache-dir`` goes through before any work; :func:`evalgate_lib.files.atomic_write` is what
every file goes through; :class:`evalgate_lib.run.outputs.GuardedStdout` is standard output.
The command-line rows of the same faults are in tests/test_campaign_two.py.
"""

from __future__ import annotations

import errno
import io
import os
from pathlib import Path

import pytest

from evalgate_lib.errors import InputError, OutputError
from evalgate_lib.files import atomic_write
from evalgate_lib.run.outputs import GuardedStdout, check_output


def test_a_good_folder_or_file_passes_and_nothing_is_created(tmp_path: Path) -> None:
    check_output(tmp_path / "new" / "results", "--out", folder=True, corpora=[tmp_path / "corpus"])
    check_output(tmp_path / "changes.json", "--json", folder=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # the probe file is gone, no folder made


@pytest.mark.parametrize(
    ("make", "path", "folder", "message"),
    [
        ("file", "taken", True, "--out {t}/taken is an existing file, not a folder: name a folder to write into"),
        ("dir", "taken", False, "--out {t}/taken is a folder, not a file: name a file to write into, e.g. "
         "{t}/taken/out.json"),
        ("file", "taken/sub", True, "--out {t}/taken/sub: {t}/taken is a file, so no folder can be made there"),
        ("dangling", "taken", True, "--out {t}/taken is a symbolic link to {t}/gone, which does not exist: create "
         "its target, or name another folder"),
        ("dangling", "taken/sub/x.json", False, "--out {t}/taken/sub/x.json lies under {t}/taken, which is a "
         "symbolic link to {t}/gone, which does not exist: create its target, or name another file"),
    ],
)  # fmt: skip
def test_what_is_in_the_way_is_named(tmp_path: Path, make: str, path: str, folder: bool, message: str) -> None:
    target = tmp_path / "taken"
    if make == "file":
        target.write_text("x")
    elif make == "dir":
        target.mkdir()
    else:
        target.symlink_to(tmp_path / "gone")
    with pytest.raises(InputError) as error:
        check_output(tmp_path / path, "--out", folder=folder)
    assert str(error.value) == message.format(t=tmp_path)


def test_inside_a_corpus_is_refused_also_through_a_link(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (tmp_path / "kb").symlink_to(corpus, target_is_directory=True)
    for path in (corpus, corpus / "report", tmp_path / "kb" / "report"):
        with pytest.raises(InputError, match=f"is inside the corpus folder {corpus}: the next run would read"):
            check_output(path, "--out", folder=True, corpora=[None, corpus])
    check_output(tmp_path / "corpus-report", "--out", folder=True, corpora=[corpus])  # a sibling is fine


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write into a folder whatever its mode")
def test_a_folder_that_cannot_be_written_is_named(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        with pytest.raises(InputError, match=rf"--out {locked}/r: cannot write into {locked} \(Permission denied\)"):
            check_output(locked / "r", "--out", folder=True)
    finally:
        locked.chmod(0o755)


def test_atomic_write_names_a_refused_write_and_leaves_the_old_file(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    path.write_text("old\n")
    (tmp_path / "blocked").write_text("a file where a folder goes")
    with pytest.raises(OutputError) as error:
        atomic_write(tmp_path / "blocked" / "x.json", "{}")
    assert str(error.value) == f"cannot write {tmp_path}/blocked/x.json (File exists)"
    assert error.value.reason == "File exists"
    with pytest.raises(OutputError, match=r"holds '\\ud800' at character 3, half of a UTF-16 pair"):
        atomic_write(path, "abc\ud800")
    assert path.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["blocked", "results.jsonl"]  # no temporary file left


def test_atomic_write_through_a_link_writes_its_target(tmp_path: Path) -> None:
    target = tmp_path / "real.json"
    target.write_text("old")
    (tmp_path / "link.json").symlink_to(target)
    atomic_write(tmp_path / "link.json", "new")
    assert (tmp_path / "link.json").is_symlink() and target.read_text() == "new"


class Refusing(io.StringIO):
    """A stream whose every write fails as a full disk does."""

    def write(self, text: str) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")


def test_guarded_stdout_escapes_what_the_encoding_lacks_and_restores_it() -> None:
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="ascii", errors="strict")
    guard = GuardedStdout(stream)
    guard.write("2× in plans → done\n")
    guard.flush()
    assert raw.getvalue() == b"2\\xd7 in plans \\u2192 done\n"
    assert guard.restore() is stream and stream.errors == "strict"


def test_guarded_stdout_turns_a_refused_write_into_one_error() -> None:
    guard = GuardedStdout(Refusing())
    with pytest.raises(OutputError) as error:
        guard.write("table\n")
    assert str(error.value) == (
        "cannot write to standard output (No space left on device): what the command prints was cut short"
    )


# ------------------------------------------------------------------ an output never overwrites an input (issue 45)


def test_a_file_output_that_is_an_input_is_refused(tmp_path: Path) -> None:
    rows = tmp_path / "results.jsonl"
    rows.write_text("rows\n")
    os.link(rows, tmp_path / "same.jsonl")  # another name of the same file: it would be overwritten all the same
    for given in (rows, tmp_path / "same.jsonl", tmp_path / "sub" / ".." / "results.jsonl"):
        with pytest.raises(InputError, match=rf"^--json {given} is the results file this command reads \({rows}\): an "
                           r"output never overwrites an input; name another file$"):  # fmt: skip
            check_output(given, "--json", folder=False, inputs=[("results file", rows)])
    check_output(tmp_path / "other.json", "--json", folder=False, inputs=[("results file", rows), ("plan", None)])
    assert rows.read_text() == "rows\n"


def test_a_folder_output_never_writes_its_files_over_an_input(tmp_path: Path) -> None:
    log = tmp_path / "results.jsonl"  # an answer log that happens to be called what a results folder writes
    log.write_text("{}\n")
    with pytest.raises(InputError, match=rf"^--out {tmp_path} would write its results\.jsonl over the answer log this "
                       rf"command reads \({log}\)"):  # fmt: skip
        check_output(tmp_path, "--out", folder=True, inputs=[("answer log", log)], writes=("results.jsonl",))
    check_output(tmp_path / "out", "--out", folder=True, inputs=[("answer log", log)], writes=("results.jsonl",))


def test_an_empty_path_the_same_file_twice_or_a_place_inside_a_results_folder_is_refused(tmp_path: Path) -> None:
    """Issue 56: ``--out ""`` wrote into the current folder; ``--junit X --markdown X`` kept one of them; ``--json
    R/x.json`` wrote among the files a results folder's checksums cover."""
    from evalgate_lib.run.outputs import check_distinct_outputs

    with pytest.raises(InputError, match=r"^--out is empty: an empty path names no file or folder \(it would be the "):
        check_output("", "--out", folder=True)
    with pytest.raises(InputError, match=r"^--out is empty"):
        check_output("  ", "--out", folder=True)
    check_distinct_outputs([("--json", tmp_path / "a.json"), ("--junit", None), ("--markdown", tmp_path / "b.md")])
    with pytest.raises(InputError, match=r"^--junit and --markdown both name .*/x: each output is written whole"):
        check_distinct_outputs([("--junit", tmp_path / "x"), ("--markdown", tmp_path / "sub" / ".." / "x")])
    results = tmp_path / "R"
    (results / "pair").mkdir(parents=True)
    for inside in (results / "gate.xml", results / "pair" / "results.jsonl"):
        with pytest.raises(InputError, match=rf"^--json {inside} lies inside the results folder {results} this "):
            check_output(inside, "--json", folder=False, results=[results])
    with pytest.raises(InputError, match=r"^--out .*/R lies inside the results folder"):
        check_output(results, "--out", folder=True, results=[results])
    check_output(tmp_path / "gate.xml", "--json", folder=False, results=[results])  # beside it is fine


def test_a_folder_output_never_replaces_a_folder_holding_an_input(tmp_path: Path) -> None:
    """A report replaces its notebooks/ whole: a label file kept in there would be lost."""
    labels = tmp_path / "report" / "notebooks" / "labels.jsonl"
    labels.parent.mkdir(parents=True)
    labels.write_text("")
    with pytest.raises(InputError, match=r"^--out .*/report would write its notebooks/ \(replaced whole\) over the "
                       r"label file this command reads \(.*labels\.jsonl\): an output never overwrites"):  # fmt: skip
        check_output(tmp_path / "report", "--out", folder=True, inputs=[("label file", labels)],
                     writes=("index.html", "notebooks"))  # fmt: skip
