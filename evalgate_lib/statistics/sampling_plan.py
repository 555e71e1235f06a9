"""Which answers a reviewer labels: a seeded, stratified sampling plan over a run's questions.

A reviewer who labels the review queue first, in the explorer, labels answers chosen *because*
the judge doubted them: rates or deltas corrected with such labels as if they were a random
sample are biased. A plan draws the labels instead, so the estimator knows each question's
inclusion probability (:mod:`evalgate_lib.statistics.label_estimates`):

* the **sampling unit is the question**: every config's answer of a drawn question is labelled, so
  the before/after delta stays paired;
* stratum ``review``: the questions with an answer in the review queue (``row.flags.review`` of any
  config), all of them when they fit in ``review_share`` of the budget (inclusion probability 1, a
  census), else a uniform random sample of that many;
* stratum ``rest``: a uniform random sample of the other questions with the rest of the budget
  (what the review stratum does not use goes to the rest, and the reverse);
* stratum ``no-answer`` (issue 53): when the run has at least two no-answer questions and the budget
  leaves two questions for the answerable ones, the no-answer questions form a stratum of their own
  (review and rest, or one ``all`` stratum on a small budget, then hold the answerable ones), drawn in
  proportion to their share and never fewer than two: the refusal rule's population always has labels
  (a plan of 4 questions drew none of 20 no-answer questions before);
* stratum ``same`` (issue 53), never drawn: the questions whose every config gave the byte-identical answer
  shown the same passages (:func:`identical_questions`). A label reads the answer, the question's reference
  and the passages, so the two labels of such a question are equal and its labels' delta is 0 for every
  labelled metric; the judge's verdicts, equal too (checked: the question goes here only when they are), give
  a judge delta of 0. Its rectifier ``y − λ f`` is then 0 whatever λ, so labelling it would change neither
  the paired estimate nor its variance (:func:`~evalgate_lib.statistics.label_estimates.known_zero`): the
  budget goes to the questions where a label can tell something. Identical answers shown *different*
  passages stay drawable: whether an answer's claim is supported (hallucination, unsupported claim) depends
  on the passages, so those labels may differ. The per-config corrected rates, which would need the labels
  of these questions, are then not estimated (the gate decides on the delta). The other strata are drawn
  over the remaining questions exactly as they would be over a run without them;
* each stratum with questions gets at least two (a variance needs two values); a budget too small
  for that, or a stratum that would hold a single question (every plan would draw it, and it could
  say nothing of the stratum's spread), draws one uniform stratum ``all`` instead;
* the draw is ``numpy.random.default_rng(seed).permutation`` of each stratum's questions (gold
  order), the first ``n_h`` drawn; that order is the order to label them in, interleaved across
  strata in proportion to their sizes at random (:meth:`LabelPlan.order`), so labels made from the
  start of the order are, in every stratum, a simple random sample of it at every moment, and an
  answer's place in the order does not tell its reviewer whether it is in the review queue. What a
  reviewer is told of a plan (:func:`format_plan_for_reviewer`) names no stratum either.

The plan is JSON written beside the results (``label-plan.json``): the strata (every question and
the drawn ones, in order), every question's inclusion probability, the seed, and the results folder's
digests (the SHA-256 of ``results.jsonl`` and ``summary.json`` from its manifest), and a plan whose
folder has changed since is refused (:func:`check_plan`): its strata came from verdicts that are no
longer the run's. So is a plan that does not describe the run's questions: every question of the run
in exactly one stratum, the review stratum exactly the questions in the review queue, no more drawn
than the budget (a plan edited by hand, cut to fewer questions or naming one the run lacks).
Labels made under a plan carry the plan's SHA-256 (``plan_sha256``): of its text without a
signature, which is the file's own SHA-256 when no signing key signed it (:func:`plan_digest`).

A plan is never written over: a second draw into the same folder goes beside the first
(``label-plan-2.json``, then ``-3`` …), since labels made under the first name it; the gate uses the
plan whose SHA-256 the labels record, and names it.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from evalgate_lib.errors import InputError
from evalgate_lib.files import atomic_write
from evalgate_lib.inputs.structured import parse_json, read_bytes
from evalgate_lib.judging.rows import ResultRow, row_passages
from evalgate_lib.signing import SIGNATURE_KEY, check_signed_json, sign_json, signing_key
from evalgate_lib.statistics.paired_tests import DEFAULT_SEED

PLAN_FORMAT = "evalgate-label-plan/1"
PLAN_FILE = "label-plan.json"
#: The plans of one folder: ``label-plan.json``, then ``label-plan-2.json`` … (never written over).
_PLAN_NAME = re.compile(r"label-plan(?:-([2-9]|[1-9]\d+))?\.json")
REVIEW, REST, ALL, NO_ANSWER, SAME = "review", "rest", "all", "no-answer", "same"
DEFAULT_REVIEW_SHARE = 0.5
_PLAN_KEYS = ("format", "results", "configs", "budget", "seed", "review_share", "inclusion_probabilities", "strata")
_STRATUM_KEYS = ("name", "questions", "drawn", "inclusion_probability")


@dataclass(frozen=True)
class PlanStratum:
    """One stratum: every question in it (gold order) and the drawn ones in the order to label them."""

    name: str
    questions: tuple[str, ...]
    drawn: tuple[str, ...]

    @property
    def inclusion_probability(self) -> float:
        """``n_h / N_h``: the chance each question of the stratum had to be drawn (1: a census)."""
        return len(self.drawn) / len(self.questions) if self.questions else 0.0


@dataclass(frozen=True)
class LabelPlan:
    """A drawn plan: which questions to label, with what inclusion probability, from which results."""

    results_folder: str
    results_digests: Mapping[str, str]
    configs: tuple[str, ...]
    budget: int
    seed: int
    review_share: float
    strata: tuple[PlanStratum, ...]

    def order(self) -> list[str]:
        """The drawn questions in labelling order: each stratum's draw order, interleaved by its share at random.

        Question ``r`` (0-based) of a stratum drawing ``n`` comes at ``(r + u) / n``, ``u`` uniform in
        [0, 1) from the plan's seed (:func:`interleave_keys`), so any prefix of this order holds a prefix of
        every stratum's draw (``(r + u) / n < (r + 1 + u') / n``), while where an answer stands says
        nothing of its stratum: with ``u = 0.5`` every position was a fixed function of the two strata's
        sizes, which the plan prints, so a reviewer could tell which answers the review queue held.
        """
        keys = interleave_keys(self.seed, [len(s.drawn) for s in self.strata])
        keyed = [
            (keys[index][r], index, qid) for index, s in enumerate(self.strata) for r, qid in enumerate(s.drawn)
        ]
        return [qid for _, _, qid in sorted(keyed)]

    def stratum_of(self, question_id: str) -> PlanStratum:
        for s in self.strata:
            if question_id in s.questions:
                return s
        raise InputError(f"question {question_id!r} is in no stratum of the plan")

    def redraw_command(self, folder: str | Path | None = None) -> str:
        """The command that draws this plan again on ``folder`` (default: the one it was drawn from) as it is now."""
        return (
            f"evalgate sample --results {folder if folder is not None else self.results_folder} --budget "
            f"{self.budget} --seed {self.seed} --review-share {self.review_share:g}"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "format": PLAN_FORMAT,
            "results": {"folder": self.results_folder, **dict(sorted(self.results_digests.items()))},
            "configs": list(self.configs),
            "budget": self.budget,
            "seed": self.seed,
            "review_share": self.review_share,
            "inclusion_probabilities": {
                qid: round(s.inclusion_probability, 6) for s in self.strata for qid in s.questions
            },
            "strata": [
                {
                    "name": s.name,
                    "questions": list(s.questions),
                    "drawn": list(s.drawn),
                    "inclusion_probability": round(s.inclusion_probability, 6),
                }
                for s in self.strata
            ],
        }


def interleave_keys(seed: int, sizes: Sequence[int]) -> list[list[float]]:
    """Each stratum's labelling keys ``(r + u_r) / n``, one per drawn question (``u_r`` uniform, from ``seed``).

    A generator of its own (``default_rng([seed, 1])``): the draw itself (``default_rng(seed)``) is not
    changed by it, so a plan's questions are what they were; only the order they are labelled in is.
    """
    rng = np.random.default_rng([seed, 1])
    return [[(r + float(u)) / n for r, u in enumerate(rng.random(n))] if n else [] for n in sizes]


def plan_text(plan: LabelPlan) -> str:
    """The plan file's text: sorted-keys JSON, so a redraw of the same plan is byte-identical; with a signing key
    set, signed (:func:`~evalgate_lib.signing.sign_json`): which questions were drawn, and with what probability,
    decides the corrected delta the gate rests on."""
    return json.dumps(sign_json(plan.to_json()), indent=1, sort_keys=True) + "\n"


def _allocate(budget_questions: int, review: int, rest: int, share: float) -> tuple[int, int]:
    """``(n_review, n_rest)``: the review stratum up to ``share`` of the budget, the rest after it, spare to either.

    Each stratum that has questions gets at least two of them (or all, if it has fewer): the
    estimator measures the judge's error in every stratum, and a variance needs two values.
    """
    floor_review, floor_rest = min(2, review), min(2, rest)
    n_review = max(floor_review, min(review, math.floor(share * budget_questions), budget_questions - floor_rest))
    n_rest = min(rest, budget_questions - n_review)
    n_review = min(review, budget_questions - n_rest)
    return n_review, n_rest


def draw_plan(
    rows: Sequence[ResultRow],
    configs: Sequence[str],
    budget: int,
    results_folder: str,
    results_digests: Mapping[str, str],
    seed: int = DEFAULT_SEED,
    review_share: float = DEFAULT_REVIEW_SHARE,
) -> LabelPlan:
    """Draw a plan of ``budget`` answers (``budget // len(configs)`` questions) over ``rows`` (module docstring).

    Pure: the same rows, budget, seed and share give the same plan. Raises :class:`InputError` for
    a budget below one question's answers, a share outside [0, 1], or a question missing a config.
    """
    if not 0.0 <= review_share <= 1.0:
        raise InputError(f"--review-share must be between 0 and 1, got {review_share:g}")
    if seed < 0:
        raise InputError(f"--seed must be a whole number >= 0 (the draw's random seed), got {seed}")
    per_question = len(configs)
    if budget < per_question:
        raise InputError(
            f"--budget {budget} is less than one question's answers ({per_question}: every config of a "
            "question is labelled together)"
        )
    by_question: dict[str, dict[str, ResultRow]] = {}
    for row in rows:
        by_question.setdefault(row.question_id, {})[row.config] = row
    for qid, answers in by_question.items():
        missing = [c for c in configs if c not in answers]
        if missing:
            raise InputError(f"question {qid!r} has no answer of config(s) {', '.join(missing)}")
    same = identical_questions(by_question, configs)
    if len(by_question) - len(same) < 2:  # nothing (or one question) left to draw: label them as before
        same = []
    drawable = [q for q in by_question if q not in set(same)]
    review = {q: any(by_question[q][c].flags.review for c in configs) for q in drawable}
    no_answer = [q for q in drawable if by_question[q][configs[0]].type == "no_answer"]
    strata = draw_strata(review, budget // per_question, seed, review_share, no_answer)
    return LabelPlan(
        results_folder=results_folder,
        results_digests=dict(results_digests),
        configs=tuple(configs),
        budget=budget,
        seed=seed,
        review_share=review_share,
        strata=(*strata, PlanStratum(SAME, tuple(same), ())) if same else strata,
    )


def identical(answers: Sequence[ResultRow]) -> bool:
    """Whether a question's answers (one per config) are interchangeable for every label and judge verdict.

    The same answer text (exact string equality, nothing normalised), the same passages shown
    (:func:`~evalgate_lib.judging.rows.row_passages`: titles and texts in rank order) and the same judge
    verdicts of every labelled metric (correct, hallucination, unsupported claim). The verdicts follow from the
    first two (the judge reads the answer, the question, its reference and the passages), and are checked
    anyway: the plan's skipping rests on a judge delta of exactly 0, not on that argument.
    """
    first = answers[0]
    return all(
        r.answer == first.answer
        and row_passages(r) == row_passages(first)
        and (r.correct, r.flags.hallucination, r.flags.unsupported_claim)
        == (first.correct, first.flags.hallucination, first.flags.unsupported_claim)
        for r in answers[1:]
    )


def identical_questions(by_question: Mapping[str, Mapping[str, ResultRow]], configs: Sequence[str]) -> list[str]:
    """The questions (gold order) whose answers are :func:`identical` across ``configs``: stratum ``same``."""
    return [q for q, answers in by_question.items() if identical([answers[c] for c in configs])]


def draw_strata(
    in_review: Mapping[str, bool],
    questions: int,
    seed: int,
    review_share: float = DEFAULT_REVIEW_SHARE,
    no_answer: Sequence[str] = (),
) -> tuple[PlanStratum, ...]:
    """The draw itself: ``questions`` of the questions of ``in_review`` (question id → in the review queue,
    in gold order), the review stratum first, the no-answer one last when ``no_answer`` (their ids) gives one
    (module docstring). The benchmark draws with it too."""
    apart = set(no_answer)
    answerable = {q: v for q, v in in_review.items() if q not in apart}
    if len(apart) >= 2 and answerable:
        n_apart = min(len(apart), max(2, round(questions * len(apart) / len(in_review))))
        inner = draw_strata(answerable, questions - n_apart, seed, review_share)
        if questions - n_apart >= 2:
            order = [q for q in in_review if q in apart]
            rng = np.random.default_rng([seed, 2])  # its own stream: the answerable strata draw as they would alone
            drawn = [order[i] for i in rng.permutation(len(order))][:n_apart]
            return (*inner, PlanStratum(NO_ANSWER, tuple(order), tuple(drawn)))
    ids = list(in_review)
    review = [q for q in ids if in_review[q]]
    rest = [q for q in ids if not in_review[q]]
    rng = np.random.default_rng(seed)
    if questions < min(2, len(review)) + min(2, len(rest)) or 1 in (len(review), len(rest)):
        # too few to give each stratum two, or a stratum of one question: one uniform stratum (merged)
        order = [ids[i] for i in rng.permutation(len(ids))]
        return (PlanStratum(ALL, tuple(ids), tuple(order[:questions])),)
    n_review, n_rest = _allocate(questions, len(review), len(rest), review_share)
    strata = []
    for name, members, n in ((REVIEW, review, n_review), (REST, rest, n_rest)):
        order = [members[i] for i in rng.permutation(len(members))] if members else []
        strata.append(PlanStratum(name, tuple(members), tuple(order[:n])))
    return tuple(strata)


def write_plan(plan: LabelPlan, path: str | Path) -> str:
    """Write the plan atomically; returns its SHA-256 (what labels made under it record: :func:`plan_digest`)."""
    atomic_write(Path(path), plan_text(plan))
    return plan_digest_of(plan)


def plan_digest_of(plan: LabelPlan) -> str:
    """The SHA-256 labels made under ``plan`` record (:func:`_digest` of its JSON), written or not."""
    return _digest(plan.to_json())


def _digest(data: Mapping[str, Any]) -> str:
    """SHA-256 of a plan's text without its signature, as EvalGate writes it (a plan's identity, signed or not)."""
    rest = {k: v for k, v in data.items() if k != SIGNATURE_KEY}
    return hashlib.sha256((json.dumps(rest, indent=1, sort_keys=True) + "\n").encode("utf-8")).hexdigest()


def plan_digest(path: str | Path) -> str | None:
    """The SHA-256 labels record of the plan at ``path`` (``None`` when it is not a readable plan)."""
    try:
        return load_plan(path)[1]
    except InputError:
        return None


def _plan_number(path: Path) -> int:
    stem = path.name.removesuffix(".json")
    return 1 if stem == PLAN_FILE.removesuffix(".json") else int(stem.rsplit("-", 1)[1])


def plan_files(folder: str | Path) -> list[Path]:
    """The plans drawn into ``folder`` (``label-plan.json``, ``label-plan-2.json``, …), in the order they were drawn."""
    found = [p for p in Path(folder).glob("label-plan*.json") if _PLAN_NAME.fullmatch(p.name)]
    return sorted(found, key=_plan_number)


def next_plan_path(folder: str | Path) -> Path:
    """Where the next plan drawn into ``folder`` goes: ``label-plan.json``, or beside the earlier ones, never over."""
    taken = plan_files(folder)
    number = _plan_number(taken[-1]) + 1 if taken else 1
    return Path(folder) / (PLAN_FILE if number == 1 else f"label-plan-{number}.json")


def _field(data: Mapping[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    value = data.get(key)
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise InputError(f"{where}: '{key}' is missing or not {getattr(kind, '__name__', kind)}")
    return value


def load_plan(path: str | Path, verify: bool = True) -> tuple[LabelPlan, str]:
    """Read a plan file back, checked; returns the plan and its SHA-256 (:func:`plan_digest`).

    With a signing key set (and ``verify``) the plan's own signature must verify.
    """
    file = Path(path)
    if not file.exists() and not file.is_symlink():
        raise InputError(f"{file}: no such plan file; draw one with 'evalgate sample --results DIR --budget N'")
    raw = read_bytes(file, "plan file", "JSON file")
    try:
        data = parse_json(raw.decode("utf-8"), str(file))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"{file}: not a JSON plan ({exc})") from None
    where = str(file)
    if not isinstance(data, dict) or data.get("format") != PLAN_FORMAT:
        raise InputError(f'{where}: not a label plan (expected "format": "{PLAN_FORMAT}")')
    if verify:
        check_signed_json(
            data,
            where,
            f"if it is the plan your labels were made under, vouch for it with 'evalgate --key-file KEY sign {where}' "
            "(its SHA-256, which the labels name, stays the same); a plan drawn again is a new plan, which labels "
            "made under this one do not name",
        )
    unknown = sorted(set(data) - set(_PLAN_KEYS) - {SIGNATURE_KEY})
    if unknown:
        raise InputError(f"{where}: unknown key(s) {', '.join(map(repr, unknown))}; allowed: {', '.join(_PLAN_KEYS)}")
    results = _field(data, "results", dict, where)
    configs = _field(data, "configs", list, where)
    strata = []
    for i, item in enumerate(_field(data, "strata", list, where)):
        at = f"{where}: strata[{i}]"
        if not isinstance(item, dict) or set(item) != set(_STRATUM_KEYS):
            raise InputError(f"{at}: expected the keys {', '.join(_STRATUM_KEYS)}")
        questions, drawn = tuple(_field(item, "questions", list, at)), tuple(_field(item, "drawn", list, at))
        if not set(drawn) <= set(questions) or len(set(drawn)) != len(drawn):
            raise InputError(f"{at}: 'drawn' must list distinct questions of the stratum")
        strata.append(PlanStratum(str(_field(item, "name", str, at)), questions, drawn))
    seed = int(_field(data, "seed", int, where))
    if seed < 0:
        raise InputError(f"{where}: 'seed' must be a whole number >= 0, got {seed}")
    plan = LabelPlan(
        results_folder=str(results.get("folder", "")),
        results_digests={k: v for k, v in results.items() if k != "folder"},
        configs=tuple(map(str, configs)),
        budget=int(_field(data, "budget", int, where)),
        seed=seed,
        review_share=float(_field(data, "review_share", (int, float), where)),
        strata=tuple(strata),
    )
    recorded = data.get("inclusion_probabilities")
    if recorded != plan.to_json()["inclusion_probabilities"]:
        raise InputError(f"{where}: 'inclusion_probabilities' do not match the strata's draws (a plan edited by hand?)")
    return plan, _digest(data)


def sign_plan_file(path: str | Path) -> str:
    """Sign the plan at ``path`` with the team's key (rewritten atomically); returns its SHA-256, which signing keeps.

    ``evalgate sign``: a plan drawn before the key was set. Its identity (:func:`plan_digest`, what labels
    record) is its text without the signature, so labels made under it still name it.
    """
    if signing_key() is None:
        raise InputError("evalgate sign needs the team's signing key: --key-file FILE or EVALGATE_SIGNING_KEY")
    plan, digest = load_plan(path, verify=False)  # the point is to sign a plan that is not signed yet
    write_plan(plan, path)
    return digest


def check_plan(
    plan: LabelPlan,
    plan_path: str | Path,
    digests: Mapping[str, str],
    configs: Sequence[str],
    rows: Sequence[ResultRow] = (),
    folder: str | Path | None = None,
) -> None:
    """Refuse a plan that does not describe ``folder``'s run as it is, with the command that draws one that does.

    Drawn from another results folder, or from this one before it changed, or for other configs; and,
    with ``rows``, a plan whose strata are not the run's questions (module docstring).
    """
    here = str(folder) if folder is not None else plan.results_folder
    redraw = plan.redraw_command(here)
    for name, digest in plan.results_digests.items():
        now = digests.get(name)
        if now != digest:
            if folder is not None and not _same_folder(plan.results_folder, folder):
                raise InputError(
                    f"{plan_path}: drawn from the results folder {plan.results_folder}, not {folder} (its {name} had "
                    f"SHA-256 {str(digest)[:12]}…, this folder's has {str(now)[:12]}…): a plan describes the answers "
                    f"of the folder it was drawn from; draw one for this folder with '{redraw}'"
                )
            raise InputError(
                f"{plan_path}: drawn when {name} had SHA-256 {str(digest)[:12]}…, and the results folder has changed "
                f"since (now {str(now)[:12]}…): its strata no longer describe these answers; redraw it with "
                f"'{redraw}'"
            )
    if tuple(plan.configs) != tuple(configs):
        raise InputError(
            f"{plan_path}: drawn for configs {', '.join(plan.configs)}, the run compares {', '.join(configs)}; "
            f"redraw it with '{redraw}'"
        )
    if rows:
        _check_strata(plan, plan_path, rows, redraw)


def _same_folder(recorded: str, folder: str | Path) -> bool:
    try:
        return Path(recorded).resolve() == Path(folder).resolve()
    except (OSError, ValueError):
        return False


def _check_strata(plan: LabelPlan, plan_path: str | Path, rows: Sequence[ResultRow], redraw: str) -> None:
    """The strata are the run's questions, each once, split by the review queue (and, with a no-answer stratum,
    by type); no more drawn than the budget."""
    in_review: dict[str, bool] = {}
    refusals = {r.question_id for r in rows if r.type == "no_answer"}
    for r in rows:
        in_review[r.question_id] = in_review.get(r.question_id, False) or (r.config in plan.configs and r.flags.review)
    counts = Counter(q for s in plan.strata for q in s.questions)
    where = f"{plan_path}: not the plan EvalGate drew for this run (edited by hand?)"
    again = f"redraw it with '{redraw}'"
    unknown = [q for q in counts if q not in in_review]
    if unknown:
        raise InputError(f"{where}: it names question(s) the run does not have ({', '.join(unknown[:5])}); {again}")
    twice = [q for q, n in counts.items() if n > 1]
    if twice:
        raise InputError(f"{where}: question(s) in more than one stratum ({', '.join(twice[:5])}); {again}")
    missing = [q for q in in_review if q not in counts]
    if missing:
        more = " …" if len(missing) > 5 else ""
        raise InputError(
            f"{where}: its strata hold {len(counts)} of the run's {len(in_review)} questions (missing "
            f"{', '.join(missing[:5])}{more}): a plan's strata hold every question, so the corrected delta covers "
            f"the whole run; {again}"
        )
    apart = any(s.name == NO_ANSWER for s in plan.strata)
    by_question: dict[str, dict[str, ResultRow]] = {}
    for r in rows:
        if r.config in plan.configs:
            by_question.setdefault(r.question_id, {})[r.config] = r
    for s in plan.strata:
        if s.name not in (REVIEW, REST, ALL, NO_ANSWER, SAME):
            raise InputError(f"{where}: an unknown stratum {s.name!r}; {again}")
        if s.name == SAME:  # never drawn, and only questions whose labels' and judge's deltas are known to be 0
            differ = [
                q for q in s.questions
                if set(by_question.get(q, {})) != set(plan.configs)
                or not identical([by_question[q][c] for c in plan.configs])
            ]  # fmt: skip
            if differ or s.drawn:
                why = f"holds {', '.join(differ[:5])}, whose answers differ" if differ else "draws questions"
                raise InputError(f"{where}: stratum {SAME!r} {why}; {again}")
            continue
        if s.name == NO_ANSWER or apart:
            typed = [q for q in s.questions if (q in refusals) != (s.name == NO_ANSWER)]
            if typed:
                held = ", ".join(typed[:5])
                raise InputError(f"{where}: stratum {s.name!r} holds {held}, of the other question type; {again}")
            if s.name == NO_ANSWER:
                continue
        wrong = [q for q in s.questions if s.name != ALL and in_review[q] != (s.name == REVIEW)]
        if wrong:
            state = "not in" if s.name == REVIEW else "in"
            held = ", ".join(wrong[:5])
            raise InputError(f"{where}: stratum {s.name!r} holds {held}, {state} the review queue; {again}")
    drawn = sum(len(s.drawn) for s in plan.strata) * len(plan.configs)
    if drawn > plan.budget:
        raise InputError(f"{where}: it draws {drawn} answers, over its budget of {plan.budget}; {again}")


def format_plan_for_reviewer(plan: LabelPlan, path: str | Path, digest: str) -> str:
    """What a reviewer is told of the plan they label (notebook 06, the labelling page): how many answers, the file.

    No stratum, size of the review queue or inclusion probability: which answers the judge doubted is a
    verdict, and a reviewer who knows it is no longer blind to it.
    """
    drawn = sum(len(s.drawn) for s in plan.strata)
    return (
        f"plan {path} (SHA-256 {digest[:12]}…): {drawn * len(plan.configs)} answers to label ({drawn} questions, "
        "every config of a question together), in the plan's order"
    )


def format_plan(plan: LabelPlan, path: str | Path, digest: str) -> str:
    """What ``evalgate sample`` prints: each stratum's size, draw and inclusion probability, the file."""
    per = len(plan.configs)
    drawn = sum(len(s.drawn) for s in plan.strata)
    lines = [
        f"plan: {drawn} questions ({drawn * per} answers, every config of a question together) of "
        f"{sum(len(s.questions) for s in plan.strata)}, budget {plan.budget} answers, seed {plan.seed}, "
        f"review share {plan.review_share:g}"
    ]
    if len(plan.strata) == 1 and plan.strata[0].name == ALL:
        lines.append(
            "  one stratum for every question (the review queue and the rest merged: the budget is too small for "
            "two questions of each, or one of them would hold a single question)"
        )
    for s in plan.strata:
        if s.name == SAME:
            by = "both configs" if per == 2 else f"all {per} configs"
            lines.append(
                f"  skipped: {len(s.questions)} questions answered identically by {by}, with the same passages: their "
                "delta is 0, no label needed (stratum same, never drawn)"
            )
            continue
        kind = "a census" if s.questions and len(s.drawn) == len(s.questions) else "a uniform random sample"
        lines.append(
            f"  stratum {s.name}: {len(s.drawn)} of {len(s.questions)} questions, inclusion probability "
            f"{s.inclusion_probability:.3f} ({kind})"
        )
    lines.append(f"written: {path} (SHA-256 {digest}); label its answers in this order in notebook 06")
    lines.append(
        "  (the strata say how many answers of the review queue the plan holds: keep this to whoever draws the plan; "
        "notebook 06 and the labelling page tell a reviewer only how many answers to label)"
    )
    return "\n".join(lines)
