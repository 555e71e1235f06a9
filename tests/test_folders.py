"""Folders written whole (:mod:`evalgate_lib.folders`, issue 56): staged and swapped in, and a results folder's lock.

A report interrupted half-way left the old ``index.html`` linking to the new run's notebooks, and a
report started while ``evalgate run`` rewrote its folder mixed two runs. Here: the new content
replaces the old only when complete (an error or a Ctrl-C leaves the old one exactly), entries the
new content does not have are kept, and a reader waits for a writer (a thread holding the lock, as
another process would). The command-line rows are in tests/test_campaign_four.py.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from evalgate_lib.errors import OutputError
from evalgate_lib.folders import folder_lock, lock_path, staged_folder


def _old(folder: Path) -> None:
    (folder / "notebooks").mkdir(parents=True)
    (folder / "index.html").write_text("old page")
    (folder / "notebooks" / "a.html").write_text("old a")
    (folder / "results").mkdir()
    (folder / "results" / "results.jsonl").write_text("rows")


def _listing(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): p.read_text() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_the_new_content_replaces_the_old_entry_by_entry(tmp_path: Path) -> None:
    _old(tmp_path / "report")
    with staged_folder(tmp_path / "report") as staging:
        assert staging.parent == tmp_path / "report" and staging.name.startswith(".evalgate-staging-")
        (staging / "notebooks").mkdir()
        (staging / "notebooks" / "b.html").write_text("new b")
        (staging / "index.html").write_text("new page")
        assert _listing(tmp_path / "report")["index.html"] == "old page"  # nothing moved before the end
    assert _listing(tmp_path / "report") == {
        "index.html": "new page",
        "notebooks/b.html": "new b",  # the folder replaced whole: the old a.html is not beside the new page
        "results/results.jsonl": "rows",  # an entry the new content does not have is kept
    }


@pytest.mark.parametrize("stop", [KeyboardInterrupt, RuntimeError])
def test_a_stop_before_the_end_leaves_the_old_content_exactly(tmp_path: Path, stop: type[BaseException]) -> None:
    _old(tmp_path / "report")
    before = _listing(tmp_path / "report")
    with pytest.raises(stop), staged_folder(tmp_path / "report") as staging:
        (staging / "index.html").write_text("half")
        raise stop()
    assert _listing(tmp_path / "report") == before
    assert sorted(p.name for p in (tmp_path / "report").iterdir()) == ["index.html", "notebooks", "results"]


def test_a_folder_it_created_is_removed_when_the_block_fails(tmp_path: Path) -> None:
    with pytest.raises(KeyboardInterrupt), staged_folder(tmp_path / "new" / "report"):
        raise KeyboardInterrupt
    assert not (tmp_path / "new" / "report").exists()


def test_a_refused_swap_puts_everything_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The second rename refused (a full or read-only disk): the first is undone, the old content is whole."""
    import os

    _old(tmp_path / "report")
    before = _listing(tmp_path / "report")
    real, calls = os.rename, []

    def rename(src: str | Path, dst: str | Path) -> None:
        calls.append(1)
        if len(calls) == 3:  # old index.html set aside, new index.html in place, then: refused
            raise OSError(28, "No space left on device")
        real(src, dst)

    monkeypatch.setattr(os, "rename", rename)
    with pytest.raises(OutputError, match=r"cannot replace the content of .*report \(No space left on device\); it is"):
        with staged_folder(tmp_path / "report") as staging:
            (staging / "index.html").write_text("new page")
            (staging / "notebooks").mkdir()
    monkeypatch.setattr(os, "rename", real)
    assert _listing(tmp_path / "report") == before


def test_a_reader_waits_for_the_writer(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    folder = tmp_path / "R"
    folder.mkdir()
    assert lock_path(folder) == tmp_path / ".R.evalgate-lock"
    with folder_lock(folder, write=False):  # no writer ever wrote it: no lock file is made by a reader
        pass
    assert not lock_path(folder).exists()
    taken, events = threading.Event(), []

    def writer() -> None:
        with folder_lock(folder, write=True):
            taken.set()
            time.sleep(0.5)
            events.append("written")

    thread = threading.Thread(target=writer)
    thread.start()
    taken.wait()
    with folder_lock(folder, write=False):
        events.append("read")
    thread.join()
    assert events == ["written", "read"]
    assert f"waiting for {folder}: another EvalGate command holds it" in caplog.text
    assert lock_path(folder).exists() and sorted(p.name for p in folder.iterdir()) == []  # the folder holds no lock


def test_readers_share_and_a_family_writes_its_pairs_under_its_own_lock(tmp_path: Path) -> None:
    family = tmp_path / "F"
    with folder_lock(family, write=True), folder_lock(family / "pair", write=True):  # not a second lock: no wait
        (family / "pair").mkdir(parents=True)
    assert sorted(p.name for p in family.iterdir()) == ["pair"]  # no pair lock file among the family's pairs
    with folder_lock(family, write=False), folder_lock(family, write=False):  # two readers at once
        pass


def test_a_writer_that_cannot_make_the_lock_file_writes_without_it_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A results folder on a mount whose parent is read-only: the run's work is written, not lost to the lock."""
    import os

    real = os.open

    def refusing(path: str | Path, *args: object, **kwargs: object) -> int:
        if str(path).endswith(".evalgate-lock"):
            raise PermissionError(13, "Permission denied")
        return real(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", refusing)
    with folder_lock(tmp_path / "R", write=True):
        (tmp_path / "R").mkdir()
    assert (tmp_path / "R").is_dir()
    assert "cannot create the lock file" in caplog.text and "(Permission denied)" in caplog.text
