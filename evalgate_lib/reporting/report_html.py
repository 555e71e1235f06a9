"""HTML pieces of the stakeholder report, built from result rows, summary and manifest.

Built here, not in the notebooks, so that tests reach them: :func:`headline_html`,
:func:`fairness_html`, :func:`manifest_html`, :func:`methodology_html`,
:func:`report_intro_html`, :func:`agreement_html`. The bigger views have modules of their own
and are re-exported here: the answer table (:mod:`~evalgate_lib.reporting.results_table`), the
first screen (:mod:`~evalgate_lib.reporting.first_screen`) and what changed per question
(:mod:`~evalgate_lib.reporting.changes_view`). Every string that comes from the
model, the gold file, the configs or the corpus goes through :func:`html.escape`.
The page loads nothing from the network: no CDN, no fonts.
"""

from __future__ import annotations

import difflib
import html
import json
from pathlib import Path
from typing import Any, Mapping, Sequence

from evalgate_lib.inputs.labels import LabelProvenance
from evalgate_lib.judging.flags import REVIEW_CONFIDENCE
from evalgate_lib.judging.grounding import COVERAGE_FLOOR
from evalgate_lib.judging.lexicon import table as lexicon_table
from evalgate_lib.judging.rows import ResultRow
from evalgate_lib.judging.scorers import known_scorer
from evalgate_lib.judging.support import NEAR_MISS, WORD_FLOOR
from evalgate_lib.reporting.first_screen import significant_mark
from evalgate_lib.reporting.paths import input_root, shareable_path
from evalgate_lib.reporting.results_table import FILTER_LABELS, results_table_html, table_page_html
from evalgate_lib.reporting.styles import BASE_CSS
from evalgate_lib.run.manifest import Manifest
from evalgate_lib.statistics.agreement_measures import interval_text, small_sample_note
from evalgate_lib.statistics.beyond_noise import significance_evidence, with_adjusted_p
from evalgate_lib.statistics.metrics import (
    METRICS,
    Metric,
    Summary,
    direction,
    format_interval,
    format_p,
    format_value,
    metric_label,
    not_measurable,
)

__all__ = [
    "FILTER_LABELS",
    "agreement_html",
    "appendix_links_html",
    "fairness_html",
    "headline_html",
    "manifest_html",
    "methodology_html",
    "models_used_html",
    "provenance_sentence",
    "report_intro_html",
    "report_title",
    "report_title_html",
    "results_table_html",
    "table_page_html",
    "unused_model_keys",
]

e = html.escape


# --------------------------------------------------------------------------- HTML pieces

_CSS = BASE_CSS


def _delta_class(metric: Metric, value: float | None) -> str:
    """The delta cell's colour class: ``better``, ``worse``, or none for a change the table prints as zero."""
    moved = direction(value, metric.kind, metric.lower_is_better)
    return "" if moved == "unchanged" else moved


def _headline_list(summary: Summary, alpha: float, adjusted_p: Mapping[str, float | None] | None) -> str:
    """The headline as a short list, one line per metric, for a phone (the table is shown on a wider screen)."""
    base, cand = summary.baseline, summary.candidate
    shallow = set(not_measurable(summary.depth))
    items = []
    for m in METRICS:
        name = e(metric_label(m.key, summary.depth))
        if m.key in shallow:
            items.append(f"<li><b>{name}</b>: not measurable at the depth the answers hold</li>")
            continue
        s = summary.significance.get(m.key) or {}
        judged = with_adjusted_p(s, adjusted_p, m.key)
        evidence = significance_evidence(judged, alpha)
        delta = summary.delta.get(m.key)
        moved = _delta_class(m, delta)
        interval = f" {e(format_interval(s, m.kind))}" if s else ""
        p = s.get("p_value")
        items.append(
            f"<li><b>{name}</b>: {e(format_value(summary.baseline_metrics.get(m.key), m.kind))} → "
            f"{e(format_value(summary.candidate_metrics.get(m.key), m.kind))} "
            f"(<span class=\"{moved}\">{e(format_value(delta, m.kind, signed=True))}</span>{interval}"
            + ("" if p is None else f", p {p:.3f}")
            + f"){significant_mark(evidence, judged, alpha, 'McNemar p')}</li>"
        )
    return (
        f'<ul class="eg-narrow-only eg-headline-list"><li><i>{e(base)} → {e(cand)} (delta, its 95% interval'
        f"{', McNemar p' if any('p_value' in (summary.significance.get(m.key) or {}) for m in METRICS) else ''})"
        f"</i></li>{''.join(items)}</ul>"
    )


def headline_html(summary: Summary, alpha: float = 0.05, adjusted_p: Mapping[str, float | None] | None = None) -> str:
    """Per-config metrics side by side with the delta, its 95% interval and McNemar p: the judge's figures.

    The interval is the one the deciding test gives (exact McNemar for a yes/no metric, the percentile
    bootstrap for a score); rank metrics the rows are too shallow for read "not measurable" and MRR is
    named with its depth. The caption says these are the judge's figures (every answer judged by
    EvalGate's rules); the first screen shows the figures reviewers' labels correct.

    Each number cell carries its exact value in ``data-value`` (``data-metric``,
    ``data-config`` = a config name or ``delta``), so a test or a script can read
    the numbers back without parsing the formatting. A delta beyond noise by the gate's own test
    (McNemar p < ``alpha`` for a yes/no metric, an interval excluding 0 for a score:
    :func:`~evalgate_lib.statistics.beyond_noise.significance_evidence`) carries a visible
    *significant* mark; its row has ``data-significant="1"``. For one candidate of several,
    ``adjusted_p`` holds each yes/no metric's Holm-adjusted p: shown beside McNemar's, it decides the mark.
    """
    base, cand = summary.baseline, summary.candidate
    b, c, d = summary.baseline_metrics, summary.candidate_metrics, summary.delta
    sig = summary.significance

    def cell(key: str, kind: str, config: str, value: float | None, signed: bool = False, cls: str = "") -> str:
        raw = "" if value is None else repr(value)
        return (
            f'<td class="num {cls}" data-metric="{e(key)}" data-config="{e(config)}" data-value="{raw}">'
            f"{e(format_value(value, kind, signed=signed))}</td>"
        )

    lines = [
        f'<div class="eg-report"><style>{_CSS}</style><div class="eg-wide-only">'
        '<table class="eg-headline" id="eg-headline">'
        f"<thead><tr><th>metric</th><th>{e(base)}</th><th>{e(cand)}</th><th>delta ({e(cand)} − {e(base)})</th>"
        "<th>95% CI of the delta</th><th>McNemar p</th></tr></thead><tbody>"
    ]
    shallow = set(not_measurable(summary.depth))
    for m in METRICS:
        s = sig.get(m.key) or {}
        if m.key in shallow:
            lines.append(
                f'<tr data-metric="{e(m.key)}" data-significant="0"><td>{e(m.label)}</td>'
                '<td class="num" colspan="5">not measurable at the depth the answers hold</td></tr>'
            )
            continue
        p = s.get("p_value")
        judged = with_adjusted_p(s, adjusted_p, m.key)
        holm = "" if judged.get("p_value") == p else f" <small>(Holm {judged['p_value']:.3f})</small>"
        evidence = significance_evidence(judged, alpha)
        lines.append(
            f'<tr data-metric="{e(m.key)}" data-significant="{int(bool(evidence))}">'
            f"<td>{e(metric_label(m.key, summary.depth))}</td>"
            f"{cell(m.key, m.kind, base, b.get(m.key))}"
            f"{cell(m.key, m.kind, cand, c.get(m.key))}"
            f"{cell(m.key, m.kind, 'delta', d.get(m.key), signed=True, cls=_delta_class(m, d.get(m.key)))}"
            f'<td class="num">{e(format_interval(s, m.kind)) if s else "n/a"}'
            f"{significant_mark(evidence, judged, alpha, 'McNemar p' if not holm else 'Holm-adjusted p')}</td>"
            f'<td class="num">{e(format_p(p, m.binary))}{holm}</td></tr>'
        )
    lines.append("</tbody></table></div>")
    lines.append(_headline_list(summary, alpha, adjusted_p))
    boot = summary.bootstrap
    lines.append(
        "<p><b>The judge's figures</b>: every answer judged by EvalGate's rules, no reviewer label (the first screen "
        "shows the figures reviewers' labels correct, where they were given). "
        f"Questions per config: <b>{b['questions']}</b> ({b['answerable']} answerable, "
        f"{b['no_answer']} no-answer). Rates are shares of the questions they name; flag counts are numbers of "
        "answers (lower is better). Green: the candidate is better, red: worse. An interval that contains 0 "
        "means the difference is within noise at this sample size; a delta beyond noise is marked "
        f'<span class="eg-sig eg-sig-legend">significant</span> (the gate\'s test: McNemar p &lt; {alpha:g} for a '
        "yes/no metric, an interval excluding 0 for a score)"
        + ("; McNemar p Holm-adjusted for the candidates tried against the baseline" if adjusted_p is not None else "")
        + ". Intervals: exact McNemar for a yes/no metric (it excludes 0 exactly when p &lt; 0.05), the paired "
        "percentile bootstrap for a score"
        + (f" (seed {e(str(boot.get('seed')))}, paired by question id)" if boot else "")
        + ".</p></div>"
    )
    return "".join(lines)


#: Held-constant settings that are paths: shown relative to the project, not as this machine's absolute path.
#: The manifest names them ``shared.corpus`` and ``shared.gold`` (``inputs.config.shared_settings``); the bare
#: names were all this matched before, so the report printed both paths in full.
_PATH_KEYS = frozenset({"shared.corpus", "shared.gold", "corpus", "gold"})


def _value(v: Any) -> str:
    text = json.dumps(v, ensure_ascii=False) if not isinstance(v, str) else v
    return e(text)


def unused_model_keys(manifest: Manifest) -> list[str]:
    """The held-constant keys that name models of a backend this run did not use (``shared.models.<other>.*``).

    The configs name each backend's models (``[shared.models.ollama]``); a run on the embedded
    local backend never touched them, and listing them in its report made readers believe the
    run used them. Empty when the manifest does not say which backend ran (nothing is hidden then).
    """
    used = manifest.backend_name
    if not used:
        return []
    keys = []
    for key in manifest.fairness["shared"]:
        parts = key.split(".")
        if len(parts) > 2 and parts[:2] == ["shared", "models"] and parts[2] != used:
            keys.append(key)
    return sorted(keys)


def manifest_root(manifest: Manifest) -> Path | None:
    """The folder the run's inputs share (corpus, gold file, configs or answer logs): where their paths are shown
    from when the report is built outside it (:func:`~evalgate_lib.reporting.paths.input_root`)."""
    paths = [manifest.corpus.get("path"), manifest.gold.get("path")]
    paths += [config.get("path") for config in manifest.configs.values()]
    return input_root(paths)


def fairness_html(manifest: Manifest) -> str:
    """What differs between the configs and what is held constant (from the manifest).

    Models of a backend the run did not use are left out (:func:`unused_model_keys`); a note
    names that backend, not its models.
    """
    if manifest.is_external:
        return external_fairness_html(manifest)
    fairness = manifest.fairness
    differs = ", ".join(f"<code>{e(k)}</code>" for k in fairness["differs"]) or "nothing"
    used = manifest.backend_name
    unused = unused_model_keys(manifest)
    others = sorted({key.split(".")[2] for key in unused})
    root = manifest_root(manifest)
    shared = "".join(
        f"<tr><td><code>{e(k)}</code></td><td>{e(shareable_path(v, root)) if k in _PATH_KEYS else _value(v)}</td></tr>"
        for k, v in sorted(fairness["shared"].items())
        if k not in unused
    )
    skipped = (
        f"<p><small>The configs also name models for the {e(', '.join(others))} backend "
        f"(<code>[shared.models.{e(others[0])}]</code>); this run used the {e(used)} backend, so they played no "
        "part and are not listed. The models it used are in the run manifest.</small></p>"
        if others
        else ""
    )
    configs = "".join(
        f"<tr><td>{e(name)}</td><td><code>{e(json.dumps(c['chunking'], sort_keys=True))}</code></td>"
        f"<td class='num'>{e(str(c.get('chunks')))}</td><td><code>{e(c['sha256'][:12])}</code></td>"
        f"<td><code>{e(c['prompt_sha256'][:12])}</code></td></tr>"
        for name, c in manifest.configs.items()
    )
    return (
        f'<div class="eg-report"><style>{_CSS}</style>'
        f"<p><b>Allowed to differ</b> (what is being evaluated): {differs}.</p>"
        "<table><thead><tr><th>config</th><th>chunking</th><th>chunks</th><th>config sha256</th>"
        f"<th>prompt sha256</th></tr></thead><tbody>{configs}</tbody></table>"
        f"{prompts_side_by_side_html(manifest)}"
        "<p><b>Held constant</b> (evalgate refuses to run the pair if any of these differs):</p>"
        f"<table><thead><tr><th>key</th><th>value</th></tr></thead><tbody>{shared}</tbody></table>{skipped}</div>"
    )


def external_fairness_html(manifest: Manifest) -> str:
    """Answers scored from logs (``evalgate score``): the logs by hash, and what EvalGate can and cannot say of them.

    Nothing was declared about such a pair and nothing was checked: the page says exactly that, never that the
    contract "is declared by the user" (the manifest's own words for it are kept in the manifest).
    """
    logs = "".join(
        f"<tr><td>{e(name)}</td><td><code>{e(shareable_path(c['path'], manifest_root(manifest)))}</code></td>"
        f"<td><code>{e(c['sha256'][:12])}</code></td>"
        f"<td class='num'>{c['answer_log']['answers']}</td><td class='num'>{c['answer_log']['passages']}</td>"
        f"<td>{'yes' if c['answer_log']['doc_ids'] else 'no (retrieval metrics left empty)'}</td></tr>"
        for name, c in manifest.configs.items()
    )
    return (
        f'<div class="eg-report"><style>{_CSS}</style>'
        "<p><b>External pipeline.</b> These answers were produced by a pipeline EvalGate did not run and scored "
        "from its answer logs with EvalGate's own judges. <b>The fairness contract is not checked for them</b>: for "
        "a pair it runs, EvalGate refuses two configurations that differ in more than chunking and prompt; here it "
        "saw only the logs, which do not say how the two pipelines differ (model, retriever, top-k, decoding could "
        "all have changed). Read the deltas as the difference between these two logs, whatever made it.</p>"
        "<table><thead><tr><th>config</th><th>answer log</th><th>sha256</th><th>answers</th><th>passages</th>"
        f"<th>document ids</th></tr></thead><tbody>{logs}</tbody></table></div>"
    )


def prompts_side_by_side_html(manifest: Manifest) -> str:
    """The two prompt templates side by side, the lines that differ marked (empty for an older manifest).

    The prompt is one of the two things a comparison evaluates, so a reader sees it, not a hash.
    Lines present on one side only, or changed, are highlighted (``difflib``, line by line).
    """
    names = [manifest.baseline, manifest.candidate]
    templates = [manifest.configs.get(n, {}).get("prompt_template") for n in names]
    if not all(isinstance(t, str) for t in templates):
        return ""
    left, right = (t.splitlines() for t in templates)
    cells: tuple[list[str], list[str]] = ([], [])
    matcher = difflib.SequenceMatcher(a=left, b=right, autojunk=False)
    for op, a0, a1, b0, b1 in matcher.get_opcodes():
        changed = op != "equal"
        for side, lines in ((0, left[a0:a1]), (1, right[b0:b1])):
            for line in lines:
                style = ' class="eg-prompt-diff"' if changed else ""
                cells[side].append(f"<span{style}>{e(line) or '&nbsp;'}</span>")
    same = "identical" if templates[0] == templates[1] else "lines that differ are marked"
    columns = "".join(f"<td><pre class='eg-prompt'>{chr(10).join(c)}</pre></td>" for c in cells)
    return (
        f"<p><b>Prompt templates</b> ({same}):</p>"
        "<style>.eg-prompt { white-space: pre-wrap; margin: 0; font-size: 12px; }"
        " .eg-prompt-diff { background: #fff3c4; display: inline-block; width: 100%; }</style>"
        f"<table class='eg-prompts'><thead><tr><th>{e(str(names[0]))}</th><th>{e(str(names[1]))}</th></tr></thead>"
        f"<tbody><tr>{columns}</tr></tbody></table>"
    )


#: What a report says about who made the answers of a pipeline EvalGate did not run (``evalgate score``).
EXTERNAL_ANSWERS = "answers supplied by the team's pipeline"


def manifest_html(manifest: Manifest) -> str:
    """Hashes and model identities: what a reader needs to tell whether two reports measured the same thing.

    For answers scored from logs there are no models, top-k or decoding to name (EvalGate did not run
    the pipeline): the rows say so and name the logs by hash instead.
    """
    corpus = (
        f"{manifest.corpus['articles']} articles, sha256 {manifest.corpus['sha256']}"
        if manifest.corpus.get("articles") is not None
        else "not given (the logs were scored without --corpus)"
    )
    if manifest.is_external:
        made = [
            ("answers", f"{EXTERNAL_ANSWERS}; EvalGate called no model (its generator, embedder, top-k and decoding "
             "are not known to EvalGate)"),
            *((f"answer log: {name}", f"sha256 {c.get('sha256')}") for name, c in manifest.configs.items()),
        ]  # fmt: skip
    else:
        made = [
            ("top-k", manifest.top_k),
            ("generation", json.dumps(manifest.generation, sort_keys=True)),
            *((f"backend: {k}", v) for k, v in sorted(manifest.backend.items())),
        ]
    rows = [
        ("evalgate version", manifest.evalgate_version),
        ("corpus", corpus),
        (
            "gold set",
            f"{manifest.gold['questions_run']} of {manifest.gold['questions_in_file']} questions run, "
            f"sha256 {manifest.gold['sha256']}",
        ),
        *made,
        ("python", manifest.python),
        (
            "packages",
            ", ".join(f"{k} {v}" for k, v in sorted(manifest.packages.items()) if v is not None),
        ),
    ]
    body = "".join(f"<tr><td>{e(str(k))}</td><td><code>{e(str(v))}</code></td></tr>" for k, v in rows)
    return (
        f'<div class="eg-report"><style>{_CSS}</style>{models_used_html(manifest)}'
        '<details class="eg-phone-fold" open><summary><b>Versions and hashes</b></summary>'
        f'<table class="eg-manifest"><tbody>{body}</tbody></table></details></div>'
    )


_BACKEND_WORDS = {
    "local": "the embedded local backend (models shipped inside PyPI packages, run in-process)",
    "ollama": "the Ollama backend",
}


def models_used_html(manifest: Manifest) -> str:
    """One sentence naming the backend and the models the run actually used, from the manifest's ``backend``."""
    backend = manifest.backend
    if manifest.is_external:
        return (
            f'<p class="eg-models-used">The answers and passages were {e(EXTERNAL_ANSWERS)} (answer logs scored with '
            "<code>evalgate score</code>): EvalGate ran no generator and no embedder, and cannot say which ones "
            "the pipeline used.</p>"
        )
    if not backend:
        return "<p>The manifest does not record which backend and models were used.</p>"
    name = str(backend.get("backend", ""))

    def model(role: str) -> str:
        digest = backend.get(f"{role}_digest")
        return f"<b>{e(str(backend.get(role)))}</b>" + (f" (<code>{e(str(digest)[:19])}…</code>)" if digest else "")

    runtime = backend.get("generator_runtime")
    hosts = backend.get("host") or backend.get("hosts")
    return (
        f'<p class="eg-models-used">This run used {e(_BACKEND_WORDS.get(name, f"the {name} backend"))}: '
        f"generator {model('generator')}, embedder {model('embedder')}"
        + (f", runtime <code>{e(str(runtime))}</code>" if runtime else "")
        + (f", host <code>{e(str(hosts))}</code>" if hosts and name != "local" else "")
        + ".</p>"
    )


_MATCHING_TEXT = {
    "claim": "the answer states an accepted string on token boundaries (or a value after normalising number words, "
    "units and money, or a short accepted phrase in its own words) outside any decline, and gives no competing value "
    "as its answer (values mentioned around the answer do not count against it); a decline (\"the context does not "
    "say\") is a refusal, and a decline that also gives an answer is an answer.",
    "token": "an accepted string occurs on token boundaries (case-insensitive) in what the answer states, outside its "
    "declines, so '3 seats' is not inside '13 seats'.",
    "raw": "the answer contains one of the question's accepted strings (case-insensitive, literal substring).",
    "normalised": "an accepted string occurs on token boundaries after normalising number words, units and money "
    "on both sides.",
}
_SCORER_TEXT = {
    "prose": "answers and passages are read through their markup (Markdown, reStructuredText, HTML), once; each "
    "clause gets a role (a claim, a decline, a statement about the context, courtesy, a heading, code …) "
    "and only claims are judged. A claim is supported when one place of one passage (a sentence, or two adjacent "
    "ones of one section, with its heading or API signature) holds every number, version, option, path and name "
    f"of it exactly and, compared by word stems in any order, at least {WORD_FLOOR:.0%} of its other content words; "
    f"under {NEAR_MISS:.0%} it is unsupported, and in between, or with a value held apart from the rest of the "
    "claim, it is undecided: it counts at its lean in the rates and sends the answer to the review queue, which "
    "reads no gold answer. Every verdict names the rule that decided it and its evidence "
    "(<code>evalgate explain</code>).",
    "lexical": f"the share of a sentence's content tokens found anywhere in the retrieved context; supported at "
    f"≥ {COVERAGE_FLOOR:.2f}.",
}


def _review_rule(scorer: str) -> str:
    """The review queue's rule for the run's scorer, in words (the one in :mod:`evalgate_lib.judging.flags`)."""
    if getattr(known_scorer(scorer), "marks_undecided", False):
        return (
            "a sentence verdict the scorer left undecided, an answer that declines and answers at once, or confidence "
            f"= min(top retrieval similarity, groundedness) below {REVIEW_CONFIDENCE:.2f}."
        )
    return (
        "an unsupported sentence, or confidence = min(top retrieval similarity, groundedness) below "
        f"{REVIEW_CONFIDENCE:.2f}."
    )


def matching_example(rows: Sequence[ResultRow], mode: str) -> str:
    """The "matching is by strings" limit told with this run's own answers (HTML, escaped).

    The first answer whose deciding rule (``mode``) and another matching rule disagree, in words; when
    no rule disagrees anywhere, the run's first accepted string as the thing an answer must state.
    """
    for row in rows:
        verdicts = {"raw": row.matching.raw, "token": row.matching.token, "normalised": row.matching.normalised}
        for name, verdict in verdicts.items():
            if name == mode or verdict is None or verdict.correct == row.correct:
                continue
            accept = ", ".join(f"“{a}”" for a in row.accept) or "a refusal"
            decided, other = ("correct" if v else "wrong" for v in (row.correct, verdict.correct))
            return (
                f"In this run, {e(row.config)}'s answer to {e(row.question_id)} is {decided} "
                f"by the {e(mode)} rule and {other} by the {e(name)} rule "
                f"(accepted: {e(accept)}): how an answer words a fact decides its verdict."
            )
    first = next((r for r in rows if r.accept), None)
    if first is None:
        return "An answer is correct only by what it says, matched against the accepted strings."
    return (
        f"An answer to {e(first.question_id)} is correct when it states “{e(first.accept[0])}” (or another accepted "
        "string) in words the rule matches; the same fact put otherwise can count as wrong. No answer of this run "
        "is judged differently by the other matching rules."
    )


def _decline_patterns() -> str:
    """The decline patterns, collapsed: a page-long list of them helps no reader of the report."""
    phrases = [str(p) for p in lexicon_table("declines")["phrases"]]  # type: ignore[union-attr]
    listed = ", ".join(f"<code>{e(p)}</code>" for p in phrases)
    return (
        f"<li><details><summary>Decline patterns: {len(phrases)} phrases (lower-cased, any match; "
        f"e.g. <code>{e(phrases[0])}</code>)</summary><p>{listed}</p></details></li>"
        if phrases
        else ""
    )


def methodology_html(manifest: Manifest, rows: Sequence[ResultRow] = ()) -> str:
    """How every number is computed, and the honest limits of those numbers, told with ``rows`` (the run's answers)."""
    gold = manifest.gold
    partial = ""
    if gold["questions_run"] < gold["questions_in_file"]:
        partial = (
            f"<li><b>This is a partial run:</b> only {gold['questions_run']} of the {gold['questions_in_file']} "
            "gold questions were run (a quick <code>--limit</code> slice). Its numbers are a smoke test, "
            "not a verdict.</li>"
        )
    n = gold["questions_run"]
    one_answer = f"{100 / n:.1f}" if n else "n/a"
    backend = manifest.backend
    scorer = manifest.sentence_scorer
    matching_text = _MATCHING_TEXT.get(manifest.answer_matching, "")
    scorer_text = _SCORER_TEXT.get(scorer.split("@")[0], "a registered plug-in scorer; see its documentation.")
    names = f"<b>{e(manifest.baseline)}</b> and <b>{e(manifest.candidate)}</b>"
    if manifest.is_external:
        same = (
            f"<li><b>Same questions, answers from outside.</b> {names} answer the same gold questions; the answers "
            f"and the passages they were built from are {e(EXTERNAL_ANSWERS)}, read from its answer logs. "
            "EvalGate did not run that pipeline, so it cannot say which generator, embedder, top-k or decoding "
            "made them, nor check that the two differ only in chunking and prompt (the fairness contract is "
            "declared, not enforced). The judges, tests and gate below are EvalGate's own.</li>"
        )
        models = (
            "<li><b>The pipeline.</b> The numbers describe the team's pipeline as it was logged; EvalGate cannot "
            "say what changed between the two logs beyond what the answers and passages show.</li>"
        )
    else:
        same = (
            f"<li><b>Same questions, same models, same decoding.</b> {names} answer the same gold questions with the "
            f"same generator ({e(str(backend.get('generator')))}) and embedder ({e(str(backend.get('embedder')))}), "
            "the same top-k and the same decoding options; only chunking and the prompt differ (see the fairness "
            "contract).</li>"
        )
        models = (
            "<li><b>The models.</b> The numbers describe this generator and embedder with these decoding options; "
            "another model can rank the two configs differently. The embedded local backend uses very small models, "
            "so absolute accuracy is low; compare the configs, not the absolute levels.</li>"
        )
    return f"""<div class="eg-report"><style>{_CSS}</style>
<details class="eg-phone-fold" open><summary><b>How the numbers are computed</b></summary>
<ul>
{same}
<li><b>Retrieval recall</b>: share of answerable questions where a chunk of the gold article is among the
top-k retrieved chunks (document-level hit).</li>
<li><b>Accuracy on answerable</b>: {matching_text} <b>Refusal accuracy</b>: on questions the knowledge base cannot
answer, the answer declines: a sentence matches one of the decline patterns below (outside a conditional clause) and
no sentence gives an answer of its own; every correctness rule reads declines this way.</li>
<li><b>Sentence support</b> (scorer <code>{e(scorer)}</code>): {scorer_text} <b>Groundedness</b>: mean support
score over the sentences that claim something.</li>
<li><b>Flags.</b> <i>Wrong</i>: not correct. <i>Hallucination</i>: wrong and at least one unsupported sentence.
<i>Grounded-but-wrong</i>: wrong although every claim is supported by the context (the context misled, or the
wrong passage was retrieved). <i>Review queue</i>: computable in production, never reading a gold answer:
{_review_rule(scorer)}</li>
{_decline_patterns()}
</ul></details>
<h3>Honest limits</h3>
<ul>
{partial}
<li><b>Small sample.</b> {n} questions per config: one answer moves a rate on all questions by
{one_answer} points. Deltas of a few points can be noise; treat them as a direction to check, not a proof.</li>
<li><b>Matching is by strings.</b> {matching_example(rows, manifest.answer_matching)} A correct paraphrase can
count as wrong; the verdicts are measured against reviewers in the agreement section.</li>
<li><b>Support is measured, not proven.</b> The sentence scorer is a function of strings; its agreement with
reviewers' labels is measured with <code>evalgate agreement</code> (see the README): it says "this was in front of
the model", not "this is true".</li>
{models}
<li><b>The gold set</b> was written by people and can itself be wrong or incomplete; every question, answer and
accepted string is in the table below so a reader can check.</li>
</ul></div>"""


def report_intro_html(manifest: Manifest, summary: Summary) -> str:
    """A one-paragraph verdict line: which config leads on overall accuracy and by how much."""
    base, cand = summary.baseline, summary.candidate
    delta = summary.delta.get("accuracy_overall")
    if delta is None:
        verdict = "Overall accuracy is not defined for this run."
    elif delta == 0:
        verdict = f"<b>{e(cand)}</b> and <b>{e(base)}</b> have the same overall accuracy."
    else:
        word = "higher" if delta > 0 else "lower"
        verdict = (
            f"<b>{e(cand)}</b> scores <b>{abs(delta) * 100:.1f} points {word}</b> than <b>{e(base)}</b> on accuracy "
            "over all questions (answerable and no-answer together; the gate above reads accuracy on answerable "
            "questions only)."
        )
    gold = manifest.gold
    articles = manifest.corpus.get("articles")
    over = f" over {articles} knowledge-base articles" if articles is not None else ""
    if manifest.is_external:
        made = f"; {e(EXTERNAL_ANSWERS)} (answer logs scored with <code>evalgate score</code>), judged by EvalGate"
    else:
        made = f", backend <code>{e(str(manifest.backend.get('backend')))}</code>"
    return (
        f'<div class="eg-report"><style>{_CSS}</style><p>{verdict} '
        f"Run on {gold['questions_run']} of {gold['questions_in_file']} gold questions{over}{made}.</p></div>"
    )


def report_title_html(summary: Summary) -> str:
    """The report's heading, with the two configs' names as the run or ``evalgate score --names`` gave them."""
    return f'<h1 class="eg-title">EvalGate report: {e(summary.candidate)} vs {e(summary.baseline)}</h1>'


def report_title(summary: Summary) -> str:
    """The report page's title (the browser tab): plain text, the names as given."""
    return f"EvalGate report: {summary.candidate} vs {summary.baseline}"


def _interval_cell(stat: Mapping[str, Any]) -> str:
    """One agreement figure with its interval, as ``evalgate agreement`` prints it (:func:`interval_text`)."""
    return e(interval_text(stat))


def _agreement_rows(items: Sequence[Mapping[str, Any]]) -> str:
    rows = []
    for item in items:
        c = item["confusion"]
        rows.append(
            f'<tr data-judgement="{e(item["name"])}" data-scorer="{e(item.get("scorer") or "")}">'
            f"<td>{e(item['name'])}</td><td>{e(item.get('scorer') or '')}</td>"
            f"<td class='num'>{c['tp'] + c['fp'] + c['fn'] + c['tn']}</td>"
            f"<td class='num'>{c['tp']} / {c['fp']} / {c['fn']} / {c['tn']}</td>"
            + "".join(
                f"<td class='num'>{_interval_cell(item[key])}</td>"
                for key in ("agreement", "precision", "recall", "kappa")
            )
            + "</tr>"
        )
    return "".join(rows)


def provenance_sentence(provenance: LabelProvenance) -> str:
    """Who labelled, and whether EvalGate's verdicts were hidden, as the label files record it (plain text).

    Nothing is claimed that the files do not say: labels that do not record ``verdicts_hidden``
    are counted as such; labels made in the audit flow (``mode``) are named among those shown.
    """
    who = ", ".join(provenance.reviewers) or "nobody named"
    said = f"Labelled by {who} ({len(provenance.reviewers)} reviewer{'s' if len(provenance.reviewers) != 1 else ''})"
    parts = []
    if provenance.hidden:
        parts.append(f"{provenance.hidden} with EvalGate's verdicts hidden")
    if provenance.shown:
        audit = (
            f" ({provenance.audit} of them audit labels: the reviewer judged EvalGate's verdicts)"
            if provenance.audit
            else ""
        )
        parts.append(f"{provenance.shown} with EvalGate's verdicts shown to the reviewer{audit}")
    if provenance.unrecorded:
        parts.append(f"{provenance.unrecorded} whose file does not record whether EvalGate's verdicts were hidden")
    return f"{said}; of {provenance.labels} labels, " + ", ".join(parts) + "."


def agreement_html(report: Mapping[str, Any], provenance: LabelProvenance | None = None) -> str:
    """How far each automatic judgement agrees with reviewers' labels (the ``evalgate agreement`` figures).

    ``report`` is :func:`evalgate_lib.statistics.run_agreement.report_json`. Every flag of the
    run is listed with its confusion matrix, agreement, precision, recall and Cohen's κ, each with
    its bootstrap interval, for every sentence scorer measured; then the headline rates corrected
    by the labelled sample. ``provenance`` (:func:`~evalgate_lib.inputs.labels.label_provenance` of
    the label files) says who labelled and whether the verdicts were hidden, as recorded.
    """
    said = "" if provenance is None else e(provenance_sentence(provenance)) + " "
    head = (
        "<tr><th>judgement</th><th>scorer / rule</th><th>answers labelled</th><th>TP / FP / FN / TN</th>"
        "<th>agreement</th><th>precision</th><th>recall</th><th>Cohen's κ</th></tr>"
    )
    items = list(report["correctness"]) + [a for scorer in report["by_scorer"].values() for a in scorer]
    small = any(
        item[key].get("method") in ("exact", "too few labels", "no spread")
        for item in items
        for key in ("agreement", "precision", "recall", "kappa")
    )
    census_rows = "".join(
        f"<tr><td>{e(group)}</td><td>{e(name)}</td><td class='num'>{est['naive_auto_rate'] * 100:.1f}%</td>"
        f"<td class='num'>{est['estimate'] * 100:.1f}% [{est['ci_low'] * 100:.1f}, {est['ci_high'] * 100:.1f}]</td>"
        f"<td class='num'>{est['n_total']}</td></tr>"
        for group, estimates in report.get("census", {}).items()
        for name, est in estimates.items()
    )
    return (
        f'<div class="eg-report eg-agreement"><style>{_CSS}</style>'
        f"<p>Measured against {report['labelled']} reviewer-labelled answers "
        f"({report['stale']} stale labels of changed answers not used). {said}"
        "Intervals: 95% bootstrap over answers, as <code>evalgate agreement</code> prints them."
        + (f" {e(small_sample_note())}" if small else "")
        + "</p>"
        f"<table class='eg-headline'><thead>{head}</thead><tbody>{_agreement_rows(items)}</tbody></table>"
        f"<p class='eg-label-sample'>{e(report.get('sample', ''))}</p>"
        + (
            "<p>Headline rates over every answer of the run by the reviewers' labels (a census: every answer "
            "labelled, so no label-sampling error; 95% Clopper-Pearson interval over the answers), beside the "
            "judge's:</p>"
            "<table class='eg-headline'><thead><tr><th></th><th>rate</th><th>judge</th>"
            f"<th>labels [95% CI]</th><th>answers</th></tr></thead><tbody>{census_rows}</tbody></table>"
            if census_rows
            else ""
        )
        + "</div>"
    )


def appendix_name(link: str) -> str:
    """An appendix's notebook name from what the report was given: ``03_coverage_heatmaps``, or a link to its page."""
    return link.rsplit("/", 1)[-1].removesuffix(".html").removesuffix(".ipynb")


def appendix_links_html(links: Sequence[str], skipped: Sequence[Sequence[str]] = ()) -> str:
    """The report's closing list of the executed notebooks, then every notebook not executed and why.

    ``links`` name the appendices (``03_coverage_heatmaps``, or the link to its page as older callers gave
    it): each is listed with a link to its place further down this page, and a slot
    (``div.eg-appendix-slot``) where ``evalgate report`` puts the executed notebook itself
    (:func:`~evalgate_lib.reporting.page_layout.embed_appendices`), so the report is one file.
    ``skipped`` are ``(notebook, why)`` pairs. Every string is escaped, so a path is never markup. Empty when
    there are neither.
    """
    parts = []
    if links:
        names = [appendix_name(link) for link in links]
        items = "".join(f'<li><a href="#appendix-{e(name)}">{e(name)}.ipynb</a></li>' for name in names)
        slots = "".join(f'<div class="eg-appendix-slot" data-notebook="{e(name)}"></div>' for name in names)
        parts.append(
            f"<p>Executed notebooks (appendices, inside this page below, each closed until you open it):</p>"
            f"<ul>{items}</ul>{slots}"
        )
    if skipped:
        items = "".join(f'<li data-notebook="{e(name)}"><b>{e(name)}</b>: {e(why)}</li>' for name, why in skipped)
        parts.append(f'<p>Notebooks not executed for this report:</p><ul class="eg-skipped">{items}</ul>')
    return "".join(parts)


def kappa_cell(stat: Mapping[str, Any]) -> str:
    """Cohen's κ of one judgement (``JudgementAgreement.to_dict()``) as "0.58 [0.42, 0.72]", as ``evalgate agreement
    --sets`` and the README print it (:func:`interval_text`, 2 places); "—" when undefined."""
    return e(interval_text(stat["kappa"], 2))


_NUMBER_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def domain_count(sets: Sequence[Mapping[str, Any]]) -> int:
    """How many domains the labelled sets cover: one per gold file (a set without one counts by its name)."""
    return len({item.get("gold") or item["set"] for item in sets})


def sets_agreement_html(sets: Sequence[Mapping[str, Any]]) -> str:
    """The judges' agreement with reviewers on every labelled set, one table per set, never pooled.

    ``sets`` is :func:`evalgate_lib.statistics.set_agreement.set_json` of each set. Each table has
    one row per judge (the default first), with κ for correctness, unsupported claim and
    hallucination, and the share of the judge's own errors the review queue holds.
    """
    blocks = []
    for item in sets:
        rows = "".join(
            f"<tr><td>{e(j['judge']['name'])}</td><td class='num'>{sum(j['correct']['confusion'].values())}</td>"
            f"<td class='num'>{kappa_cell(j['correct'])}</td>"
            f"<td class='num'>{kappa_cell(j['unsupported_claim'])}</td>"
            f"<td class='num'>{kappa_cell(j['hallucination'])}</td>"
            f"<td class='num'>{j['queue']['size']} of {j['queue']['n']}; holds {j['queue']['caught']} of "
            f"{j['queue']['errors']} errors</td></tr>"
            for j in item["judges"]
        )
        blocks.append(
            f"<h4>{e(item['set'])} <small>({'held out: measured, never tuned on; ' if item.get('held_out') else ''}"
            f"{e(item['generator'])} answers, {item['labelled']} labelled)</small></h4>"
            "<table class='eg-headline'><thead><tr><th>judge</th><th>answers</th><th>correct κ</th>"
            "<th>unsupported claim κ</th><th>hallucination κ</th><th>review queue</th></tr></thead>"
            f"<tbody>{rows}</tbody></table>"
        )
    domains = domain_count(sets)
    said = _NUMBER_WORDS[domains] if domains < len(_NUMBER_WORDS) else str(domains)
    return (
        f'<div class="eg-report eg-agreement"><style>{_CSS}</style>'
        f'<details class="eg-phone-fold" open><summary><b>Agreement on each of the {len(sets)} labelled sets '
        "EvalGate ships</b></summary>"
        "<p>How far each judge agrees with blind reviewers on every labelled set EvalGate ships "
        "(<code>labels/sets.toml</code>): the demo model's answers and fluent answers written in the style of "
        f"capable generators, in {said} domain{'' if domains == 1 else 's'} (one gold file each). Figures are "
        "per set, never pooled: a judge can agree on one kind of answer and not on another. κ with 95% bootstrap "
        "intervals.</p>" + "".join(blocks) + "</details></div>"
    )
