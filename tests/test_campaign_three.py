"""The third bad-input and fault campaign (issue 45), as one table of cases like tests/test_campaign_two.py.

The first campaign's harness runs every row (:func:`test_campaign.run_case`): a fresh workspace,
one fault, one command through the real command line, its exit code and first line checked
exactly. The rows are grouped by what the campaign found:

* security: a script in a name that reached the report unescaped; a signature that an edit of
  ``candidates.json`` defeated; a signing variable set but empty that turned the checks off;
* silent wrong results: two labels of one answer (across files, or two reviewers) decided by file
  or name order; a plan edited to cover fewer questions; a skeleton written into the corpus; an
  answer ending in 100,000 dots (a quadratic sentence-end search); an NFD answer against an NFC
  accept string;
* data loss: ``sample`` writing over the run's rows, a reviewer's labels or an earlier plan;
* tracebacks: input nested 100,000 levels deep through every reader of JSON, TOML, YAML and CSV
  (now one bounded reader: evalgate_lib/inputs/structured.py), a negative seed, an index naming a
  candidate twice, a manifest of the wrong shape with its checksum recomputed, a plan naming a
  question the run does not have;
* unclear messages: a key file that is a device or a pipe, a ``signature.json`` that is a folder,
  a plan from another folder, labels of questions their plan never drew, a sentence chunker that
  cannot cut a sentence, an NFD article id.

Most rows read a folder ``evalgate score`` writes from hand-made answer logs over twelve gold
questions (no model); the rows that need ``evalgate run`` use the in-process fake Ollama. The
table goes to ``build/campaign-3.txt``.
"""

from __future__ import annotations

import hashlib
import json
import os
import unicodedata
from pathlib import Path
from typing import Any, Callable

from test_campaign import ERR, ROOT, Case, Workspace, campaign_tests, nothing_written
from test_campaign_two import KEY, environment, fake_run, key_file, warnings_on_stderr

from evalgate_lib.inputs.labels import Label, answer_sha256, dumps_labels
from evalgate_lib.judging.rows import SCHEMA_VERSION

SUMMARY = ROOT / "build" / "campaign-3.txt"
DEEP = "[" * 100_000 + "]" * 100_000
NESTED = r"nested 100,000 levels deep; EvalGate reads at most 64 levels of arrays and objects \(its own files use 6\): "
NESTED += r"the file is damaged or not the file meant"
PAYLOAD = "b<script>document.title+='|PWNED'</script>"
#: A file name as macOS writes it: decomposed (NFD), "e" then a combining acute accent.
MAC_NAME = unicodedata.normalize("NFD", "café-refunds")

# ------------------------------------------------------------------------------ twelve questions, three logs

#: Twelve answerable questions; the accepted answer of question n is "n widgets".
QUESTIONS = [
    {"id": f"q{n:02d}", "question": f"How many widgets does plan {n} include?", "type": "answerable",
     "article": "plans-and-pricing-2026", "accept": [f"{n} widgets"]}
    for n in range(1, 13)
]  # fmt: skip
#: Which questions each log answers right: the baseline 8, candidate "c" 6 (it regresses), "d" the same 8.
RIGHT = {"b": range(1, 9), "c": range(1, 7), "d": range(1, 9)}
#: Thresholds that fail on any drop of accuracy on answerable questions.
POINT_GATE = 'mode = "point"\n\n[[rule]]\nmetric = "accuracy_answerable"\nmax_drop = 0.0\n'


def twelve(ws: Workspace) -> None:
    ws.gold.write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS))


def log(ws: Workspace, name: str, right: range | None = None, answer: Callable[[int], str] | None = None) -> Path:
    """An answer log of the twelve questions: right ones say "n widgets", wrong ones "999 widgets"."""
    right = RIGHT.get(name, range(0)) if right is None else right

    def said(n: int) -> str:
        return answer(n) if answer is not None else f"Plan {n} includes {n if n in right else 999} widgets."

    path = ws.root / f"{name}.jsonl"
    lines = [{"question_id": q["id"], "answer": said(n), "passages": []} for n, q in enumerate(QUESTIONS, 1)]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def score(ws: Workspace, *names: str, out: str = "R", extra: tuple[str, ...] = (), front: tuple[str, ...] = ()) -> Path:
    """``evalgate score`` of the named logs (first the baseline) into ``<ws>/out``; must succeed."""
    from evalgate_lib.cli import main

    twelve(ws)
    logs = [str(log(ws, name)) for name in names]
    argv = [*front, "score", *logs, "--gold", str(ws.gold), "--out", str(ws.root / out), *extra]
    assert main(argv) == 0
    return ws.root / out


def gate_file(ws: Workspace) -> Path:
    path = ws.root / "gate.toml"
    path.write_text(POINT_GATE)
    return path


def rows_of(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines() if line.strip()]


def labels_file(ws: Workspace, name: str, labels: list[Label]) -> Path:
    """Labels written as the labelling widget writes them (no key: unsigned)."""
    path = ws.root / name
    path.write_text(dumps_labels(labels))
    return path


def census(folder: Path, reviewer: str = "ann", flip: bool = False, plan: str | None = None) -> list[Label]:
    """A label for every answer of ``folder``: the judge's verdict, or its opposite with ``flip``."""
    return [
        Label(r["config"], r["question_id"], answer_sha256(r["answer"]), r["judgement"]["correct"] != flip, False,
              reviewer, plan_sha256=plan)
        for r in rows_of(folder)
    ]  # fmt: skip


def gate(results: Path, *extra: str | Path) -> list[str]:
    return ["gate", "--results", str(results), *map(str, extra)]


def deep(path: Path) -> None:
    path.write_text(DEEP)


# ------------------------------------------------------------------------------ setups: security


def xss_names(ws: Workspace) -> list[str]:
    twelve(ws)
    logs = [str(log(ws, name)) for name in ("b", "c", "d")]
    return ["score", *logs, "--gold", str(ws.gold), "--names", f"{PAYLOAD},c,d", "--out", str(ws.root / "X")]


def escaped_on_first_screen(folder: str) -> Callable[[Workspace], None]:
    """Every pair's first screen (and the candidates' table it opens on) shows the name as text, never as markup."""

    def check(ws: Workspace) -> None:
        import evalgate_lib as eg

        family = eg.load_candidates(ws.root / folder)
        for pair in family.pairs:
            page = pair.first_screen_html(ROOT / "configs" / "gate.toml")
            assert "<script>" not in page and "&lt;script&gt;" in page, page

    return check


def xss_toml_baseline(ws: Workspace) -> list[str]:
    ws.config("baseline", ('name = "baseline"', f"name = {json.dumps(PAYLOAD)}"))
    second = ws.config("candidate", ('name = "candidate"', 'name = "other"'))
    second.rename(ws.root / "other.toml")
    ws.config("candidate")
    return [*ws.run(), "--candidate", str(ws.root / "other.toml")]


def signed_family(ws: Workspace) -> tuple[Path, Path]:
    keys = key_file(ws)
    return score(ws, "b", "c", "d", front=("--key-file", str(keys))), keys


def signed_family_untouched(ws: Workspace) -> list[str]:
    folder, keys = signed_family(ws)
    return gate(folder, "--thresholds", gate_file(ws), "--key-file", keys)


def index_cut_to_the_passing_one(ws: Workspace) -> list[str]:
    folder, keys = signed_family(ws)
    path = folder / "candidates.json"
    index = json.loads(path.read_text())
    index["candidates"] = [c for c in index["candidates"] if c["name"] == "d"]  # "c" fails: drop it
    path.write_text(json.dumps(index, indent=2, sort_keys=True) + "\n")
    return gate(folder, "--thresholds", gate_file(ws), "--key-file", keys)


def unsigned_labels_with_key(ws: Workspace) -> list[str]:
    keys = key_file(ws)
    folder = score(ws, "b", "c", front=("--key-file", str(keys)))
    labels = labels_file(ws, "A.jsonl", census(folder, flip=True))  # written by hand, without the key
    return gate(folder, "--thresholds", gate_file(ws), "--labels", labels, "--key-file", keys)


def forged_with_empty_key_file_variable(ws: Workspace) -> list[str]:
    from test_campaign_two import forge_refusals

    keys = key_file(ws)
    folder = score(ws, "b", "d", front=("--key-file", str(keys)))
    forge_refusals(folder, summary_too=True)  # rows and summary forged, checksums recomputed
    return gate(folder, "--thresholds", gate_file(ws))


# ------------------------------------------------------------------------------ setups: labels


def two_label_files(ws: Workspace) -> list[str]:
    folder = score(ws, "b", "c")
    one = labels_file(ws, "A.jsonl", census(folder))
    flipped = labels_file(ws, "A_flipped.jsonl", census(folder, flip=True))
    return gate(folder, "--thresholds", gate_file(ws), "--labels", one, "--labels", flipped)


def two_reviewers(ws: Workspace) -> Path:
    folder = score(ws, "b", "c")
    labels_file(ws, "two.jsonl", census(folder, "ann") + census(folder, "bob", flip=True))
    return folder


def gate_two_reviewers(ws: Workspace) -> list[str]:
    folder = two_reviewers(ws)
    return gate(folder, "--thresholds", gate_file(ws), "--labels", ws.root / "two.jsonl")


def gate_one_reviewer(ws: Workspace) -> list[str]:
    return [*gate_two_reviewers(ws), "--reviewer", "ann"]


def agreement_two_reviewers(ws: Workspace) -> list[str]:
    folder = two_reviewers(ws)
    return ["agreement", "--results", str(folder), "--labels", str(ws.root / "two.jsonl"), "--resamples", "200"]


def agreement_one_reviewer(ws: Workspace) -> list[str]:
    return [*agreement_two_reviewers(ws), "--reviewer", "bob"]


def planned(ws: Workspace, budget: int = 12) -> tuple[Path, Path, dict[str, Any]]:
    """A scored folder, a plan drawn into it, and ``plan.jsonl``: a label of every answer the plan drew."""
    from evalgate_lib.cli import main

    folder = score(ws, "b", "c")
    assert main(["sample", "--results", str(folder), "--budget", str(budget), "--seed", "7"]) == 0
    plan_path = folder / "label-plan.json"
    plan = json.loads(plan_path.read_text())
    relabel(ws, folder, plan_path)
    return folder, plan_path, plan


def relabel(ws: Workspace, folder: Path, plan_path: Path, questions: list[str] | None = None) -> Path:
    """Label the plan's drawn questions (or ``questions``), each label naming the plan's SHA-256 as it is now."""
    plan = json.loads(plan_path.read_text())
    digest = hashlib.sha256(plan_path.read_bytes()).hexdigest()
    drawn = questions if questions is not None else [q for s in plan["strata"] for q in s["drawn"]]
    labels = [lb for lb in census(folder, plan=digest) if lb.question_id in drawn]
    return labels_file(ws, "plan.jsonl", labels)


def rewrite_plan(plan_path: Path, plan: dict[str, Any]) -> None:
    """Write an edited plan with its inclusion probabilities recomputed, as a careful forger would."""
    for s in plan["strata"]:
        s["inclusion_probability"] = round(len(s["drawn"]) / len(s["questions"]), 6) if s["questions"] else 0.0
    plan["inclusion_probabilities"] = {q: s["inclusion_probability"] for s in plan["strata"] for q in s["questions"]}
    plan_path.write_text(json.dumps(plan, indent=1, sort_keys=True) + "\n")


def plan_cut(ws: Workspace) -> list[str]:
    folder, plan_path, plan = planned(ws)
    for s in plan["strata"]:  # every stratum cut to its drawn questions: "consistent", 12 → fewer
        s["questions"] = list(s["drawn"])
    rewrite_plan(plan_path, plan)
    relabel(ws, folder, plan_path)  # the labels' plan_sha256 recomputed for the edited plan
    return gate(folder, "--thresholds", gate_file(ws), "--labels", ws.root / "plan.jsonl")


def plan_names_q999(ws: Workspace) -> list[str]:
    folder, plan_path, plan = planned(ws)
    plan["strata"][-1]["questions"].append("q999")
    rewrite_plan(plan_path, plan)
    relabel(ws, folder, plan_path)
    return gate(folder, "--thresholds", gate_file(ws), "--labels", ws.root / "plan.jsonl")


def plan_labels_gated(ws: Workspace) -> list[str]:
    folder, _, _ = planned(ws, budget=8)
    return gate(folder, "--thresholds", gate_file(ws), "--labels", ws.root / "plan.jsonl")


def sampled_twice(ws: Workspace) -> list[str]:
    folder, _, _ = planned(ws, budget=8)
    return ["sample", "--results", str(folder), "--budget", "10", "--seed", "8"]


def first_plan_kept(ws: Workspace) -> None:
    from evalgate_lib.cli import main

    folder = ws.root / "R"
    assert sorted(p.name for p in folder.glob("label-plan*.json")) == ["label-plan-2.json", "label-plan.json"]
    # the labels drawn under the first plan are still used, and the gate names that plan
    assert main(gate(folder, "--thresholds", gate_file(ws), "--labels", ws.root / "plan.jsonl")) in (0, 1)


def gate_after_second_plan(ws: Workspace) -> list[str]:
    from evalgate_lib.cli import main

    argv = sampled_twice(ws)
    assert main(argv) == 0
    return gate(ws.root / "R", "--thresholds", gate_file(ws), "--labels", ws.root / "plan.jsonl")


def plan_of_another_folder(ws: Workspace) -> list[str]:
    from evalgate_lib.cli import main

    folder, plan_path, _ = planned(ws, budget=8)
    other = ws.root / "R2"
    assert main(["score", str(log(ws, "b")), str(log(ws, "d")), "--gold", str(ws.gold), "--out", str(other)]) == 0
    return gate(other, "--thresholds", gate_file(ws), "--labels", ws.root / "plan.jsonl", "--plan", plan_path)


def labels_of_undrawn_questions(ws: Workspace) -> list[str]:
    folder, plan_path, plan = planned(ws, budget=8)
    drawn = [q for s in plan["strata"] for q in s["drawn"]]
    undrawn = [q["id"] for q in QUESTIONS if q["id"] not in drawn]
    relabel(ws, folder, plan_path, questions=drawn + undrawn[:4])  # four questions the plan never drew, too
    return gate(folder, "--thresholds", gate_file(ws), "--labels", ws.root / "plan.jsonl")


# ------------------------------------------------------------------------------ setups: outputs and inputs


def sample_over(target: str) -> Callable[[Workspace], list[str]]:
    def setup(ws: Workspace) -> list[str]:
        folder = score(ws, "b", "c")
        labels_file(ws, "labels.jsonl", census(folder))
        path = folder / "results.jsonl" if target == "rows" else ws.root / "labels.jsonl"
        return ["sample", "--results", str(folder), "--budget", "8", "--out", str(path)]

    return setup


def untouched(ws: Workspace) -> None:
    """The run's rows and the reviewer's labels are still what they were (a plan was written over them before)."""
    assert json.loads((ws.root / "R" / "results.jsonl").read_text().splitlines()[0])["schema"] == SCHEMA_VERSION
    assert all(json.loads(line)["reviewer"] == "ann" for line in (ws.root / "labels.jsonl").read_text().splitlines())


def diff_json_over_rows(ws: Workspace) -> list[str]:
    folder = score(ws, "b", "c")
    return ["diff", "--results", str(folder), "--json", str(folder / "results.jsonl")]


def agreement_json_over_labels(ws: Workspace) -> list[str]:
    folder = score(ws, "b", "c")
    labels = labels_file(ws, "labels.jsonl", census(folder))
    return ["agreement", "--results", str(folder), "--labels", str(labels), "--json", str(labels)]


def retrieve_into(target: str) -> Callable[[Workspace], list[str]]:
    def setup(ws: Workspace) -> list[str]:
        out = ws.corpus / "skeleton.md" if target == "corpus" else ws.gold
        return ["retrieve", "--backend", "ollama", "--config", str(ws.root / "baseline.toml"),
                "--cache-dir", str(ws.root / "cache"), "--out", str(out), "--force"]  # fmt: skip

    return setup


def sets_json_over_the_set_file(ws: Workspace) -> list[str]:
    folder = score(ws, "b", "c")
    labels_file(ws, "labels.jsonl", census(folder))
    sets = ws.root / "sets.toml"
    sets.write_text(
        '[[set]]\nname = "mine"\ngenerator = "fluent"\ngold = "gold.jsonl"\nlabels = "labels.jsonl"\n'
        'answers = { b = "b.jsonl", c = "c.jsonl" }\n'
    )
    return ["agreement", "--sets", str(sets), "--json", str(sets)]


def gold_import_over_itself(ws: Workspace) -> list[str]:
    source = ws.root / "ragas.jsonl"
    source.write_text(json.dumps({"question": "How many seats?", "ground_truth": "3 seats"}) + "\n")
    return ["gold", "import", str(source), "--out", str(source), "--force"]


# ------------------------------------------------------------------------------ setups: deep input, every reader


def deep_results_file(name: str) -> Callable[[Workspace], list[str]]:
    def setup(ws: Workspace) -> list[str]:
        from test_campaign_two import redigest_manifest

        folder = score(ws, "b", "c")
        deep(folder / name)
        if name == "results.jsonl":
            redigest_manifest(folder)  # as a forger would: the reader of the rows is reached
        return gate(folder)

    return setup


def deep_signature(ws: Workspace) -> list[str]:
    keys = key_file(ws)
    folder = score(ws, "b", "c", front=("--key-file", str(keys)))
    deep(folder / "signature.json")
    return gate(folder, "--key-file", keys)


def deep_index(ws: Workspace) -> list[str]:
    folder = score(ws, "b", "c", "d")
    deep(folder / "candidates.json")
    return gate(folder)


def deep_family_stats(ws: Workspace) -> list[str]:
    keys = key_file(ws)
    folder = score(ws, "b", "c", "d", front=("--key-file", str(keys)))
    deep(folder / "run_stats.json")
    return gate(folder, "--key-file", keys)


def deep_plan(ws: Workspace) -> list[str]:
    folder, plan_path, _ = planned(ws, budget=8)
    deep(plan_path)
    return gate(folder, "--labels", ws.root / "plan.jsonl", "--plan", plan_path)


def deep_line(where: str) -> Callable[[Workspace], list[str]]:
    """Line 1 of a JSON Lines input nested 100,000 levels deep."""

    def setup(ws: Workspace) -> list[str]:
        if where == "gold":
            ws.gold.write_text(DEEP + "\n")
            return ws.run()
        if where == "answer log":
            twelve(ws)
            path = ws.root / "b.jsonl"
            path.write_text(DEEP + "\n")
            return ["score", str(path), str(log(ws, "c")), "--gold", str(ws.gold), "--out", str(ws.root / "R")]
        if where == "labels":
            folder = score(ws, "b", "c")
            (ws.root / "labels.jsonl").write_text(DEEP + "\n")
            return gate(folder, "--labels", ws.root / "labels.jsonl")
        path = ws.root / "ragas.jsonl"  # an import line
        path.write_text(DEEP + "\n")
        return ["gold", "import", str(path), "--out", str(ws.root / "imported.jsonl")]

    return setup


def deep_csv_cell(ws: Workspace) -> list[str]:
    path = ws.root / "ragas.csv"
    path.write_text('question,ground_truth,contexts\nHow many seats?,3 seats,"' + DEEP + '"\n')
    return ["gold", "import", str(path), "--out", str(ws.root / "imported.jsonl")]


def deep_thresholds(ws: Workspace) -> list[str]:
    folder = score(ws, "b", "c")
    path = ws.root / "gate.toml"
    path.write_text("alpha = " + DEEP + "\n")
    return gate(folder, "--thresholds", path)


def deep_sets(ws: Workspace) -> list[str]:
    path = ws.root / "sets.toml"
    path.write_text("set = " + DEEP + "\n")
    return ["agreement", "--sets", str(path)]


def deep_config(ws: Workspace) -> list[str]:
    path = ws.config("baseline")
    path.write_text(path.read_text() + "\n[extra]\nkey = " + DEEP + "\n")
    return ws.run()


def dotted_config(ws: Workspace) -> list[str]:
    path = ws.config("baseline")
    path.write_text(path.read_text() + "\n" + "a" + ".a" * 100_000 + " = 1\n")
    return ws.run()


def deep_front_matter(ws: Workspace) -> list[str]:
    (ws.corpus / "deep.md").write_text("---\nid: " + DEEP + "\n---\n# Deep\n\nText.\n")
    return ws.run()


def deep_cache_entry(ws: Workspace) -> list[str]:
    fake_run(ws)
    entry = sorted((ws.root / "cache" / "evalgate-v1" / "generate").glob("*/*.json"))[0]
    deep(entry)
    return ws.run()


def corpus_edited_after_the_run(ws: Workspace) -> list[str]:
    folder = score(ws, "b", "c", extra=("--corpus", str(ws.corpus)))
    labels = labels_file(ws, "labels.jsonl", census(folder))
    path = ws.corpus / "refunds.md"
    path.write_text(path.read_text().replace("14 days", "40 days"))  # the rows keep the text they were judged on
    return ["agreement", "--results", str(folder), "--labels", str(labels), "--resamples", "200"]


def report_after_corpus_edit(ws: Workspace) -> list[str]:
    argv = corpus_edited_after_the_run(ws)
    return ["report", "--results", argv[2], "--out", str(ws.root / "report"), "--cache-dir", str(ws.root / "cache")]


def gzip_bomb(ws: Workspace) -> list[str]:
    import gzip

    (ws.corpus / "bomb.md.gz").write_bytes(gzip.compress(b"# Bomb\n\n" + b"a " * (40 * 1024 * 1024)))  # 80 KB, 80 MB
    return ws.run()


def answer_over_1_mib(ws: Workspace) -> list[str]:
    twelve(ws)
    base = log(ws, "b", answer=lambda n: "x " * 600_000)
    return ["score", str(base), str(log(ws, "c")), "--gold", str(ws.gold), "--out", str(ws.root / "R")]


def rows_a_pipe(ws: Workspace) -> list[str]:
    folder = score(ws, "b", "c")
    (folder / "results.jsonl").unlink()
    os.mkfifo(folder / "results.jsonl")  # reading it would wait forever
    return gate(folder)


def long_label_line(ws: Workspace) -> list[str]:
    folder = score(ws, "b", "c")
    (ws.root / "labels.jsonl").write_text('"' + "x" * (17 * 1024 * 1024) + '"\n')
    return gate(folder, "--labels", ws.root / "labels.jsonl")


# ------------------------------------------------------------------------------ setups: other tracebacks


def index_names_one_twice(ws: Workspace) -> list[str]:
    folder = score(ws, "b", "c", "d")
    path = folder / "candidates.json"
    index = json.loads(path.read_text())
    index["candidates"].append(dict(index["candidates"][0]))
    path.write_text(json.dumps(index, indent=2, sort_keys=True) + "\n")
    return gate(folder)


def manifest_files_a_string(ws: Workspace) -> list[str]:
    from evalgate_lib.run.manifest import manifest_digest

    folder = score(ws, "b", "c")
    path = folder / "manifest.json"
    data = json.loads(path.read_text())
    data["files"] = "x"
    data["manifest_sha256"] = manifest_digest(data)  # its own checksum recomputed
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    return gate(folder)


# ------------------------------------------------------------------------------ setups: unclear messages


def pipe_key(ws: Workspace) -> list[str]:
    """``--key-file <(cat key)``: the shell passes /dev/fd/N, a pipe the key was written into."""
    read, write = os.pipe()
    os.write(write, (KEY + "\n").encode())
    os.close(write)
    ws.cleanups.append(lambda: os.close(read))
    return ["--key-file", f"/dev/fd/{read}", *gate(score(ws, "b", "c"))]


def fifo_key(ws: Workspace) -> list[str]:
    os.mkfifo(ws.root / "key.fifo")
    return ["--key-file", str(ws.root / "key.fifo"), *gate(score(ws, "b", "c"))]


def signature_a_folder(ws: Workspace) -> list[str]:
    folder = score(ws, "b", "c")
    (folder / "signature.json").mkdir()
    return gate(folder, "--key-file", key_file(ws))


def sentence_run(ws: Workspace) -> list[str]:
    (ws.corpus / "log.md").write_text("# Log\n\n" + "event logged and kept on the server " * 1_500 + "\n")
    ws.config("candidate", ('method = "markdown"', 'method = "sentence"\nwindow = 1\noverlap = 0'),
              ("max_words = 250\n", ""))  # fmt: skip
    return ws.run()


def nfd_article_id(ws: Workspace) -> list[str]:
    body = (ws.corpus / "refunds.md").read_text().replace("id: refunds\n", "")  # the id is then the file's name
    (ws.corpus / "refunds.md").unlink()
    (ws.corpus / f"{MAC_NAME}.md").write_text(body)  # a file name macOS wrote
    rows = [dict(q, article="café-refunds") if q["article"] else q for q in map(dict, _gold(ws))]
    rows[0]["evidence"] = None
    rows[0]["accept"] = ["14 days"]
    ws.gold.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    return ws.gold_check()


def _gold(ws: Workspace) -> list[dict[str, Any]]:
    return [json.loads(line) for line in ws.gold.read_text().splitlines()]


def nfd_answer_token(ws: Workspace) -> list[str]:
    twelve(ws)
    rows = [dict(q, accept=["Café Plus"]) if q["id"] == "q01" else q for q in QUESTIONS]
    ws.gold.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    nfd = unicodedata.normalize("NFD", "The plan is called Café Plus.")
    base = log(ws, "b", answer=lambda n: nfd if n == 1 else "I don't know.")
    return ["score", str(base), str(log(ws, "c")), "--gold", str(ws.gold), "--matching", "token",
            "--out", str(ws.root / "R")]  # fmt: skip


def nfd_judged_right(ws: Workspace) -> None:
    row = next(r for r in rows_of(ws.root / "R") if r["config"] == "b" and r["question_id"] == "q01")
    assert row["judgement"]["correct"] is True, row["judgement"]["matching"]


def dots_answer(ws: Workspace) -> list[str]:
    twelve(ws)
    base = log(ws, "b", answer=lambda n: f"Plan {n} includes {n} widgets" + "." * 100_000)
    return ["score", str(base), str(log(ws, "c")), "--gold", str(ws.gold), "--out", str(ws.root / "R")]


def seed_negative(ws: Workspace) -> list[str]:
    return ["sample", "--results", str(score(ws, "b", "c")), "--budget", "8", "--seed", "-1"]


# ------------------------------------------------------------------------------ the table

RERUN_SCORE = r"; rerun 'evalgate score .*'"
NOT_EDITED = r"{ws}/R/label-plan\.json: not the plan EvalGate drew for this run \(edited by hand\?\): "
REDRAW = r"; redraw it with 'evalgate sample --results {ws}/R --budget 12 --seed 7 --review-share 0\.5'"
OVERWRITE = r": an output never overwrites an input; name another file"
GATE_LINE = r"gate \(point mode\): c vs b"

CASES: tuple[Case, ...] = (
    # ---------------------------------------------------------------- security
    Case(
        "xss-names-three-logs",
        "score b c d --names '<script>…,c,d': the baseline's name on every first screen",
        xss_names,
        0,
        r"scored 48 answers in [\d.]+ s",
        stdout=True,
        check=escaped_on_first_screen("X"),
    ),
    Case(
        "xss-toml-baseline-two-candidates",
        "a TOML name = '<script>…' for the baseline, two --candidate",
        xss_toml_baseline,
        0,
        r"model calls: \d+ generations, \d+ embedding batches; cache hits: \d+; wall time .*",
        stdout=True,
        check=escaped_on_first_screen("out"),
    ),
    Case(
        "signed-family-untouched",
        "a signed folder of two candidates, one regressing: FAIL",
        signed_family_untouched,
        1,
        r"FAIL: 1 of 2 candidates regress \(c\); passing: d; best that passes: d",
        stdout=True,
    ),
    Case(
        "signed-index-cut",
        "the same with candidates.json cut to the passing candidate (PASS before)",
        index_cut_to_the_passing_one,
        2,
        ERR + r"{ws}/R/candidates\.json: its signature does not match it: it was changed after it was signed; "
        r"rerun 'evalgate score .*'",
    ),
    Case(
        "labels-unsigned-with-key",
        "labels written without the key, gated with it (they decide the corrected delta)",
        unsigned_labels_with_key,
        2,
        ERR + r"{ws}/A\.jsonl:1: label not signed, but a signing key is set \(written without the key, or its "
        r"signature was removed\); a label decides the corrected delta, so with a key set only signed labels count: "
        r"label it again with the key set, or vouch for the file with 'evalgate --key-file KEY sign {ws}/A\.jsonl'",
    ),
    Case(
        "key-file-variable-empty",
        "EVALGATE_SIGNING_KEY_FILE= (set, empty) over a forged signed folder",
        forged_with_empty_key_file_variable,
        2,
        ERR + r"EVALGATE_SIGNING_KEY_FILE is set but empty: a signing variable that is set must hold the key file's "
        r"path; unset it to run without a key \(then nothing is signed or checked\), or give it a value",
        patch=environment(EVALGATE_SIGNING_KEY_FILE=""),
    ),
    Case(
        "key-variable-empty",
        "EVALGATE_SIGNING_KEY= (set, empty)",
        lambda ws: ws.run(),
        2,
        ERR + r"EVALGATE_SIGNING_KEY is set but empty: a signing variable that is set must hold the key; unset it "
        r"to run without a key \(then nothing is signed or checked\), or give it a value",
        patch=environment(EVALGATE_SIGNING_KEY=""),
        check=nothing_written,
    ),
    # ---------------------------------------------------------------- labels that disagree
    Case(
        "labels-twice-across-files",
        "gate --labels A --labels A_flipped (one label per answer, in two files)",
        two_label_files,
        2,
        ERR + r"{ws}/A_flipped\.jsonl:1: duplicate label config='b' question_id='q01' answer_sha256=[0-9a-f]{12}… "
        r"reviewer='ann' pass=1 \(also at {ws}/A\.jsonl:1\): one reviewer labels one answer once per pass, so a "
        r"second copy would count twice or let the file order decide; keep one",
    ),
    Case(
        "labels-same-file-twice",
        "gate --labels A --labels A",
        lambda ws: [*two_label_files(ws)[:-2], "--labels", str(ws.root / "A.jsonl")],
        2,
        ERR + r"label file {ws}/A\.jsonl is given twice: each label would count twice; name it once",
    ),
    Case(
        "labels-two-reviewers",
        "two reviewers' pass-1 labels of every answer in one file (ann and bob)",
        gate_two_reviewers,
        2,
        ERR + r"two pass-1 labels of one answer \(config 'b', question 'q01'\): reviewer 'ann' at {ws}/two\.jsonl:1 "
        r"\(correct\) and reviewer 'bob' at {ws}/two\.jsonl:2 \(wrong\); one label per answer and pass counts: keep "
        r"one, mark the other reviewer's as 'pass': 2 \(an independent second pass\), or choose whose labels count "
        r"with --reviewer NAME",
    ),
    Case(
        "labels-reviewer-policy",
        "the same with --reviewer ann: the gate states whose labels counted",
        gate_one_reviewer,
        1,
        r"  labels: 48 read from {ws}/two\.jsonl; reviewer 'ann' only \(--reviewer\): 24 kept, set aside: 24 of 'bob'",
        stdout=True,
    ),
    Case(
        "agreement-two-reviewers",
        "agreement over the two reviewers' file (it used 40 of 80 silently)",
        agreement_two_reviewers,
        2,
        ERR + r"two pass-1 labels of one answer \(config 'b', question 'q01'\): reviewer 'ann' at {ws}/two\.jsonl:1 .*",
    ),
    Case(
        "agreement-says-what-it-used",
        "agreement --reviewer bob: how many labels it used, and why",
        agreement_one_reviewer,
        0,
        r"labels used: 24 answers \(pass 1\) and 0 second-pass labels \(agreement between passes\), of 24 labels "
        r"considered; not used: 0 stale \(answer changed since it was labelled\), 0 unknown \(no such answer in the "
        r"run\), 0 of a later pass only \(no pass-1 label of the answer, or a third pass\)",
        stdout=True,
    ),
    # ---------------------------------------------------------------- plans
    Case(
        "plan-cut-consistently",
        "a plan cut to its drawn questions, probabilities and labels' plan_sha256 redone",
        plan_cut,
        2,
        ERR + NOT_EDITED + r"its strata hold 2 of the run's 12 questions \(missing q\d\d, q\d\d, q\d\d, q\d\d, q\d\d "
        r"…\): a plan's strata hold every question, so the corrected delta covers the whole run" + REDRAW,
    ),
    Case(
        "plan-names-q999",
        "a plan naming q999 with its probabilities, the labels' plan_sha256 recomputed",
        plan_names_q999,
        2,
        ERR + NOT_EDITED + r"it names question\(s\) the run does not have \(q999\)" + REDRAW,
    ),
    Case(
        "gate-names-its-plan",
        "gate --labels of a plan's labels: which plan file it used",
        plan_labels_gated,
        1,
        r"deltas corrected by labels: 4 of 24 answers labelled under plan {ws}/R/label-plan\.json \(SHA-256 "
        r"[0-9a-f]{12}…\) \(the stratified PPI\+\+ estimate: the judge's verdicts on every answer corrected by the "
        r"labels; its interval the hull of a stratified bootstrap and a floored t interval, which decide each rule; "
        r"where a stratum has a single label, the census bound, else the judge\); labels used: "
        r"4 labels: 4 whose file does not record whether EvalGate's verdicts were hidden",
        stdout=True,
    ),
    Case(
        "sample-twice",
        "a second sample: written beside the first plan, never over it",
        sampled_twice,
        0,
        r"written: {ws}/R/label-plan-2\.json \(SHA-256 [0-9a-f]{64}\); label its answers in this order in notebook 06",
        stdout=True,
        check=first_plan_kept,
    ),
    Case(
        "gate-after-second-plan",
        "the first plan's labels after a second draw: that plan is used, and named",
        gate_after_second_plan,
        1,
        r"deltas corrected by labels: 4 of 24 answers labelled under plan {ws}/R/label-plan\.json \(SHA-256 .*",
        stdout=True,
    ),
    Case(
        "plan-of-another-folder",
        "--plan drawn from another results folder",
        plan_of_another_folder,
        2,
        ERR + r"{ws}/R/label-plan\.json: drawn from the results folder {ws}/R, not {ws}/R2 \(its results\.jsonl had "
        r"SHA-256 [0-9a-f]{12}…, this folder's has [0-9a-f]{12}…\): a plan describes the answers of the folder it was "
        r"drawn from; draw one for this folder with 'evalgate sample --results {ws}/R2 --budget 8 --seed 7 "
        r"--review-share 0\.5'",
    ),
    Case(
        "plan-labels-of-undrawn-questions",
        "labels naming a plan, of questions it never drew (they waited forever)",
        labels_of_undrawn_questions,
        1,
        r"  note: 8 label\(s\) name this plan but are of question\(s\) it never drew \(q\d\d, q\d\d, q\d\d, q\d\d\): "
        r"never used for the corrected delta \(labelled outside the plan's draw\); agreement figures only",
        stdout=True,
    ),
    # ---------------------------------------------------------------- outputs never overwrite inputs
    Case(
        "sample-over-rows",
        "sample --out R/results.jsonl (overwrote the run's rows)",
        sample_over("rows"),
        2,
        ERR + r"--out {ws}/R/results\.jsonl is the results folder's results\.jsonl this command reads "
        r"\({ws}/R/results\.jsonl\)" + OVERWRITE,
        check=untouched,
    ),
    Case(
        "sample-over-labels",
        "sample --out labels.jsonl (overwrote a reviewer's labels)",
        sample_over("labels"),
        2,
        ERR + r"--out {ws}/labels\.jsonl exists: a plan is never written over a file \(it may hold the run's rows, a "
        r"reviewer's labels, or a plan whose labels name it\); name a new file, or drop --out to write it beside the "
        r"folder's plans \({ws}/R/label-plan\.json\)",
        check=untouched,
    ),
    Case(
        "diff-json-over-rows",
        "diff --json R/results.jsonl",
        diff_json_over_rows,
        2,
        ERR + r"--json {ws}/R/results\.jsonl is the results folder's results\.jsonl this command reads .*",
    ),
    Case(
        "agreement-json-over-labels",
        "agreement --json over its own --labels file",
        agreement_json_over_labels,
        2,
        ERR + r"--json {ws}/labels\.jsonl is the label file this command reads \({ws}/labels\.jsonl\)" + OVERWRITE,
    ),
    Case(
        "retrieve-into-corpus",
        "retrieve --out <corpus>/skeleton.md (the next run indexed it)",
        retrieve_into("corpus"),
        2,
        ERR + r"--out {ws}/corpus/skeleton\.md is inside the corpus folder {ws}/corpus: the next run would read what "
        r"is written there as articles; write it outside the corpus",
    ),
    Case(
        "retrieve-over-gold",
        "retrieve --out <its gold file> --force",
        retrieve_into("gold"),
        2,
        ERR + r"--out {ws}/gold\.jsonl is the gold file this command reads \({ws}/gold\.jsonl\)" + OVERWRITE,
    ),
    Case(
        "agreement-sets-json-over-the-set-file",
        "agreement --sets S --json S",
        sets_json_over_the_set_file,
        2,
        ERR + r"--json {ws}/sets\.toml is the set file this command reads \({ws}/sets\.toml\)" + OVERWRITE,
    ),
    Case(
        "gold-check-json-over-a-config",
        "gold check --json <the baseline config>",
        lambda ws: [
            "gold",
            "check",
            "--baseline",
            str(ws.config("baseline")),
            "--candidate",
            str(ws.config("candidate")),
            "--json",
            str(ws.root / "baseline.toml"),
        ],
        2,
        ERR + r"--json {ws}/baseline\.toml is the config this command reads \({ws}/baseline\.toml\)" + OVERWRITE,
    ),
    Case(
        "gold-import-over-its-input",
        "gold import x.jsonl --out x.jsonl --force",
        gold_import_over_itself,
        2,
        ERR + r"--out {ws}/ragas\.jsonl is the input file this command reads \({ws}/ragas\.jsonl\)" + OVERWRITE,
    ),
    # ---------------------------------------------------------------- the hang and Unicode
    Case(
        "answer-ending-in-100k-dots",
        "an answer ending in 100,000 dots (score ran past 120 s)",
        dots_answer,
        0,
        r"scored 24 answers in [\d.]+ s",
        stdout=True,
    ),
    Case(
        "nfd-answer-token-matching",
        "--matching token, the answer in NFD, the accept string in NFC",
        nfd_answer_token,
        0,
        r"scored 24 answers in [\d.]+ s",
        stdout=True,
        check=nfd_judged_right,
    ),
    Case(
        "nfd-article-id",
        "a corpus file name in NFD (macOS), the gold article id in NFC",
        nfd_article_id,
        0,
        r"  accept '14 days': \d+× in café-refunds \(first at {ws}/corpus/" + MAC_NAME + r"\.md:\d+\); 0 other "
        r"article\(s\)",  # the id composed (NFC) as the gold file writes it; the path as the file system holds it
        stdout=True,
    ),
    # ---------------------------------------------------------------- 100,000 levels deep, every reader
    Case(
        "deep-summary",
        "summary.json nested 100,000 deep",
        deep_results_file("summary.json"),
        2,
        ERR + r"{ws}/R/summary\.json: " + NESTED + RERUN_SCORE,
    ),
    Case(
        "deep-manifest",
        "manifest.json nested 100,000 deep",
        deep_results_file("manifest.json"),
        2,
        ERR + r"{ws}/R/manifest\.json: " + NESTED + r"; rerun 'evalgate run --out {ws}/R' \(or 'evalgate score'\)",
    ),
    Case(
        "deep-rows",
        "results.jsonl line 1 nested 100,000 deep, its digest recomputed",
        deep_results_file("results.jsonl"),
        2,
        ERR + r"{ws}/R/results\.jsonl:1: " + NESTED + RERUN_SCORE,
    ),
    Case(
        "deep-run-stats",
        "run_stats.json nested 100,000 deep",
        deep_results_file("run_stats.json"),
        2,
        ERR + r"{ws}/R/run_stats\.json: " + NESTED + RERUN_SCORE,
    ),
    Case(
        "deep-signature",
        "signature.json nested 100,000 deep (a key set)",
        deep_signature,
        2,
        ERR + r"{ws}/R/signature\.json: " + NESTED + RERUN_SCORE,
    ),
    Case(
        "deep-index",
        "candidates.json nested 100,000 deep",
        deep_index,
        2,
        ERR + r"{ws}/R/candidates\.json: " + NESTED + r"; rerun the command that wrote {ws}/R",
    ),
    Case(
        "deep-family-run-stats",
        "a family's run_stats.json nested 100,000 deep (a key set: must verify)",
        deep_family_stats,
        2,
        ERR + r"{ws}/R/run_stats\.json: " + NESTED + RERUN_SCORE,
    ),
    Case("deep-plan", "a plan nested 100,000 deep", deep_plan, 2, ERR + r"{ws}/R/label-plan\.json: " + NESTED),
    Case(
        "deep-gold-line",
        "a gold line nested 100,000 deep",
        deep_line("gold"),
        2,
        ERR + r"{ws}/gold\.jsonl:1: " + NESTED,
        check=nothing_written,
    ),
    Case(
        "deep-answer-log-line",
        "an answer-log line nested 100,000 deep",
        deep_line("answer log"),
        2,
        ERR + r"{ws}/b\.jsonl:1: " + NESTED,
    ),
    Case(
        "deep-label-line",
        "a label line nested 100,000 deep",
        deep_line("labels"),
        2,
        ERR + r"{ws}/labels\.jsonl:1: " + NESTED,
    ),
    Case(
        "deep-import-line",
        "a gold import line nested 100,000 deep",
        deep_line("import"),
        2,
        ERR + r"{ws}/ragas\.jsonl:1: " + NESTED,
    ),
    Case(
        "deep-csv-list-cell",
        "a CSV list cell nested 100,000 deep",
        deep_csv_cell,
        2,
        ERR + r"{ws}/ragas\.csv:2: column 'contexts': " + NESTED,
    ),
    Case(
        "deep-thresholds",
        "a thresholds TOML value nested 100,000 deep",
        deep_thresholds,
        2,
        ERR + r"{ws}/gate\.toml: " + NESTED,
    ),
    Case(
        "deep-sets", "a labelled-sets TOML value nested 100,000 deep", deep_sets, 2, ERR + r"{ws}/sets\.toml: " + NESTED
    ),
    Case(
        "deep-config",
        "a config TOML value nested 100,000 deep",
        deep_config,
        2,
        ERR + r"{ws}/baseline\.toml: " + NESTED,
        check=nothing_written,
    ),
    Case(
        "dotted-key-config",
        "a config key of 100,001 dotted parts (tomllib took gigabytes)",
        dotted_config,
        2,
        ERR + r"{ws}/baseline\.toml: nested more than 64 levels deep; .*",
        check=nothing_written,
    ),
    Case(
        "deep-front-matter",
        "a document's YAML front matter nested 100,000 deep",
        deep_front_matter,
        2,
        ERR + r"{ws}/corpus/deep\.md: front matter: " + NESTED,
        check=nothing_written,
    ),
    Case(
        "deep-cache-entry",
        "a cache entry nested 100,000 deep: corrupt, said, recomputed",
        deep_cache_entry,
        0,
        r"evalgate: WARNING: corrupt generate cache entry {ws}/cache/evalgate-v1/generate/[0-9a-f]{2}/[0-9a-f]{64}"
        r"\.json: " + NESTED + "; recomputed it",
        patch=warnings_on_stderr,
    ),
    Case(
        "label-line-17-mib",
        "a label line of 17 MiB",
        long_label_line,
        2,
        ERR + r"{ws}/labels\.jsonl:1: a line of 17,825,794 characters; EvalGate reads lines of at most 16,777,216 "
        r"characters \(16 MiB\): one record is never that long, so the file is damaged or not the file meant",
    ),
    Case(
        "corpus-edited-after-the-run",
        "agreement after an article changed: it judges again the passages the rows carry, never the new text",
        corpus_edited_after_the_run,
        0,
        r"labels used: 24 answers \(pass 1\) and 0 second-pass labels .*",
        stdout=True,
    ),
    Case(
        "report-after-corpus-edit",
        "report after an article changed: refused before any notebook runs",
        report_after_corpus_edit,
        2,
        ERR + r"corpus {ws}/corpus has changed since the run of {ws}/R .*",
    ),
    Case(
        "corpus-gzip-bomb",
        "a corpus .md.gz of 80 KB that decompresses to 80 MB",
        gzip_bomb,
        2,
        ERR + r"{ws}/corpus/bomb\.md\.gz: more than 67,108,864 bytes once decompressed \(from [\d,]+ bytes of gzip\); "
        r"EvalGate reads documents of at most 67,108,864 bytes \(64 MiB\): split it, or move it out of the corpus",
        check=nothing_written,
    ),
    Case(
        "answer-over-1-mib",
        "an answer of 1.2 million characters",
        answer_over_1_mib,
        2,
        ERR + r"{ws}/b\.jsonl:1: an answer of 1,200,000 characters; EvalGate judges answers of at most 1,048,576 "
        r"\(1 MiB\): no generator's answer is that long, so the log is damaged or holds something else where the "
        r"answer goes",
    ),
    Case(
        "rows-a-pipe",
        "results.jsonl is a FIFO ('does not exist')",
        rows_a_pipe,
        2,
        ERR
        + r"{ws}/R/results\.jsonl is a pipe \(a FIFO, or what <\(cat FILE\) passes\), not the file a results folder "
        r"holds; rerun 'evalgate run --out {ws}/R' \(or 'evalgate score'\)",
    ),
    # ---------------------------------------------------------------- other tracebacks
    Case(
        "sample-seed-negative",
        "sample --seed -1 (ValueError)",
        seed_negative,
        2,
        ERR + r"--seed must be a whole number >= 0 \(the draw's random seed\), got -1",
    ),
    Case(
        "index-names-one-twice",
        "candidates.json naming one candidate twice (ValueError)",
        index_names_one_twice,
        2,
        ERR + r"{ws}/R/candidates\.json: candidates 1 and 3 have the same name 'c': each candidate is listed once, in "
        r"its own folder; rerun 'evalgate score .*'",
    ),
    Case(
        "manifest-files-a-string",
        "manifest 'files': 'x' with its own checksum recomputed (AttributeError)",
        manifest_files_a_string,
        2,
        ERR + r"{ws}/R/manifest\.json: 'files' must be an object of one object per file \(sha256, rows\), got 'x'; "
        r"rerun 'evalgate run --out {ws}/R' \(or 'evalgate score'\)",
    ),
    # ---------------------------------------------------------------- the real cause
    Case(
        "key-file-dev-null",
        "--key-file /dev/null ('does not exist')",
        lambda ws: ["--key-file", "/dev/null", *gate(score(ws, "b", "c"))],
        2,
        ERR + r"signing key file /dev/null is a character device \(as /dev/null is\), not a regular file holding the "
        r"key; write the key into a file \(chmod 600\) and name that, or set EVALGATE_SIGNING_KEY",
    ),
    Case(
        "key-file-fifo",
        "--key-file a FIFO ('does not exist')",
        fifo_key,
        2,
        ERR + r"signing key file {ws}/key\.fifo is a pipe \(a FIFO, or what <\(cat FILE\) passes\), not a regular "
        r"file holding the key: EvalGate reads the key again for every folder it signs or checks and in each "
        r"notebook a report runs, which a pipe cannot give twice; write the key into a file \(chmod 600\) and name "
        r"that, or set EVALGATE_SIGNING_KEY",
    ),
    Case(
        "key-file-process-substitution",
        "--key-file <(cat key) ('does not exist')",
        pipe_key,
        2,
        ERR + r"signing key file /dev/fd/\d+ is a pipe \(a FIFO, or what <\(cat FILE\) passes\), not a regular file "
        r"holding the key: .*",
    ),
    Case(
        "signature-a-folder",
        "signature.json is a folder ('no signature.json')",
        signature_a_folder,
        2,
        ERR + r"{ws}/R/signature\.json is a folder, not the signature file: a folder written with the key holds its "
        r"signature there as a file; rerun 'evalgate score .* --out {ws}/R' with the key set",
    ),
    Case(
        "sentence-chunker-one-sentence",
        "the sentence chunker, window = 1, a long run with no sentence end",
        sentence_run,
        2,
        ERR + r"{ws}/candidate\.toml: the prompt cannot fit the generator's context: .*; its longest chunk \(log, at "
        r"character \d+\) is mostly one sentence of [\d,]+ words with no sentence end in it, which the sentence "
        r"chunker never cuts \(no window makes it shorter\): break that text into sentences, or chunk with the "
        r"markdown or fixed chunker, which cut such a run by words",
        check=nothing_written,
    ),
)

campaign_summary, test_campaign_three = campaign_tests(CASES, SUMMARY, without_keys=True)


def test_every_case_of_the_issue_is_a_row() -> None:
    """The rows the issue lists (and the readers it names) are all in the table, each once."""
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids))
    readers = [i for i in ids if i.startswith(("deep-", "dotted-"))]
    assert len(readers) >= 16, readers  # the sixteen readers of the issue, and the front matter and cache entry
