"""Tables and charts the notebooks and the report show.

Every function here takes plain data (articles, gold questions, result rows,
the summary dict of :func:`evalgate_lib.statistics.metrics.compare`) and returns a pandas
DataFrame, an HTML string, or draws on a matplotlib ``Axes``, so the notebooks
stay thin and the tests can call the same code without a kernel.

matplotlib is imported lazily: importing this module never picks a backend.

Every chart a function here creates carries its text alternative as the figure's label (what the
chart shows, with its figures: :func:`chart_alt` reads it), so a page that shows the chart as an
image can give it alt text that says something (``workbench/charts.py``).
"""

from __future__ import annotations

import html
import re
from collections import Counter
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

from evalgate_lib.chunks.chunking import chunk_corpus
from evalgate_lib.inputs.corpus import Article
from evalgate_lib.inputs.gold import GoldQuestion
from evalgate_lib.judging.rows import ResultRow, SentenceVerdict
from evalgate_lib.judging.scorers import scorer_floor
from evalgate_lib.judging.terms import terms_of
from evalgate_lib.statistics.metrics import METRICS, Summary, direction, format_value
from evalgate_lib.text.stopwords import STOPWORDS
from evalgate_lib.text.tokens import token_spans

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

_HEADING = re.compile(r"^#{1,6}\s+\S", re.MULTILINE)


def _describe(figure: Any, text: str, created: bool = True) -> None:
    """Give a chart its text alternative (the figure's label, which :func:`chart_alt` reads).

    Only a figure the drawing function ``created``: on axes the caller passed in, the figure is the
    caller's, holding other charts, and its description is the caller's to give.
    """
    if created:
        figure.set_label(" ".join(text.split()))


#: A chart's phone rendition: this wide (inches) and no text under :data:`PHONE_FONT_PT`, so that shown across a
#: phone held upright (about 340 CSS px of a 390 px screen) its smallest text is at least 9 px.
PHONE_WIDTH_IN = 3.8
PHONE_FONT_PT = 9.0


def _phone_version(figure: Any, redraw: Any, created: bool) -> None:
    """Attach to a chart the function that draws it again at phone width (:func:`phone_chart` calls it)."""
    if created:
        figure.evalgate_phone = redraw


#: The widest a phone rendition's image may be, labels included (inches): shown 330 px wide (a 390 px screen less
#: the page's margins and an appendix's indent), its 9 pt text is then at least 9 px (9 / 72 × 330 / 4.5 = 9.17).
PHONE_MAX_IN = 4.5


def phone_chart(figure: Any) -> Any:
    """The chart drawn again for a phone (a ``Figure``), or ``None`` when its drawing function gave no such version.

    Labels outside the axes (a heatmap's sentences, a legend below) widen the saved image beyond the figure; the
    figure is narrowed until the image, labels included, is at most :data:`PHONE_MAX_IN` wide, so no label is cut
    and none is scaled below 9 px.
    """
    redraw = getattr(figure, "evalgate_phone", None)
    if redraw is None:
        return None
    drawn = redraw()
    phone = drawn if hasattr(drawn, "savefig") else drawn.figure
    width, height = phone.get_size_inches()
    for _ in range(8):
        tight = phone.get_tightbbox(phone.canvas.get_renderer()).width + 0.2  # the saved image's padding, both sides
        if tight <= PHONE_MAX_IN or width <= 1.5:
            break
        width = max(1.5, width - (tight - PHONE_MAX_IN) - 0.05)
        phone.set_size_inches(width, height)
    return phone


def smallest_text_px(figure: Any) -> float:
    """The smallest text of ``figure`` in pixels of its image (font size in points × dpi / 72): what a reader sees
    at the image's own size, scaled by how wide the page shows it."""
    from matplotlib.text import Text

    sizes = [t.get_fontsize() for t in figure.findobj(Text) if t.get_visible() and t.get_text().strip()]
    return round(min(sizes, default=0.0) * figure.dpi / 72.0, 2)


def _pt(size: float, phone: bool) -> float:
    """A font size: as given, or never under :data:`PHONE_FONT_PT` in a phone rendition."""
    return max(size, PHONE_FONT_PT) if phone else size


def chart_alt(figure: Any) -> str:
    """A chart's text alternative: the description its drawing function gave it, else its titles and axis labels.

    ``figure`` is a matplotlib ``Figure``. Never empty: a chart with no text at all is "a chart
    with no title or axis labels", which says so rather than leaving the image undescribed.
    """
    label = figure.get_label()
    if label:
        return label
    parts = []
    for ax in figure.axes:
        x, y = ax.get_xlabel(), ax.get_ylabel()
        said = ", ".join(b for b in (ax.get_title(), x and f"x: {x}", y and f"y: {y}") if b)
        if said:
            parts.append(said)
    return "Chart: " + "; ".join(parts) if parts else "A chart with no title or axis labels."


# --------------------------------------------------------------------------- corpus inspection


def word_count(text: str) -> int:
    """Whitespace-separated words, the unit the chunkers count in."""
    return len(text.split())


def article_table(articles: Sequence[Article]) -> pd.DataFrame:
    """One row per article: id, title, characters, words, Markdown headings."""
    import pandas as pd

    return pd.DataFrame(
        [
            {
                "article": a.id,
                "title": a.title,
                "chars": len(a.body),
                "words": word_count(a.body),
                "headings": len(_HEADING.findall(a.body)),
            }
            for a in articles
        ]
    )


def chunk_lengths(articles: Sequence[Article], chunking: Mapping[str, Any]) -> list[int]:
    """Word count of every chunk the chunker ``chunking`` (a config's ``[chunking]`` table) makes."""
    return [word_count(c.text) for c in chunk_corpus(articles, chunking)]


def chunk_table(articles: Sequence[Article], chunkings: Mapping[str, Mapping[str, Any]]) -> pd.DataFrame:
    """Chunks per article for each named chunking: columns are the chunking names."""
    import pandas as pd

    counts = {name: Counter(c.article_id for c in chunk_corpus(articles, spec)) for name, spec in chunkings.items()}
    frame = pd.DataFrame({name: [counts[name].get(a.id, 0) for a in articles] for name in chunkings})
    frame.insert(0, "article", [a.id for a in articles])
    return frame


def chunk_summary(articles: Sequence[Article], chunkings: Mapping[str, Mapping[str, Any]]) -> pd.DataFrame:
    """Per chunking: method, number of chunks, and chunk length statistics in words."""
    import pandas as pd

    records = []
    for name, spec in chunkings.items():
        lengths = chunk_lengths(articles, spec)
        series = pd.Series(lengths, dtype=float)
        records.append(
            {
                "config": name,
                "method": spec.get("method"),
                "parameters": ", ".join(f"{k}={v}" for k, v in spec.items() if k != "method"),
                "chunks": len(lengths),
                "min words": int(series.min()) if lengths else 0,
                "median words": float(series.median()) if lengths else 0.0,
                "mean words": round(float(series.mean()), 1) if lengths else 0.0,
                "max words": int(series.max()) if lengths else 0,
            }
        )
    return pd.DataFrame(records)


def chunk_length_histograms(
    articles: Sequence[Article],
    chunkings: Mapping[str, Mapping[str, Any]],
    axes: Sequence[Axes] | None = None,
    phone: bool = False,
) -> Figure:
    """One histogram of chunk lengths (words) per chunking, side by side (``phone``: one above the other)."""
    import matplotlib.pyplot as plt

    made = axes is None
    if axes is None:
        count = len(chunkings)
        shape, size = ((count, 1), (PHONE_WIDTH_IN, 2.6 * count)) if phone else ((1, count), (5 * count, 3.2))
        fig, created = plt.subplots(*shape, figsize=size, sharex=True, squeeze=False)
        axes = list(created.flat)
        _phone_version(fig, lambda: chunk_length_histograms(articles, chunkings, phone=True), not phone)
    fig = axes[0].figure
    said: list[str] = []
    for ax, (name, spec) in zip(axes, chunkings.items(), strict=True):
        lengths = chunk_lengths(articles, spec)
        ax.hist(lengths, bins=20, color="#4c72b0", edgecolor="white")
        ax.set_title(f"{name}: {spec.get('method')} ({len(lengths)} chunks)", fontsize=_pt(12, phone))
        ax.set_xlabel("chunk length (words)")
        ax.set_ylabel("chunks")
        ax.tick_params(labelsize=_pt(10, phone))
        said.append(f"{name}, {spec.get('method')}: {len(lengths)} chunks" + (
            f" of {min(lengths)} to {max(lengths)} words" if lengths else ""
        ))  # fmt: skip
    fig.tight_layout()
    _describe(fig, "Histograms of chunk lengths in words, one per chunking: " + "; ".join(said) + ".", made)
    return fig


def gold_composition(questions: Sequence[GoldQuestion]) -> pd.DataFrame:
    """Questions per gold article and type; no-answer questions appear under ``(no answer)``."""
    import pandas as pd

    frame = pd.DataFrame(
        [{"article": q.article if q.article is not None else "(no answer)", "type": q.type} for q in questions]
    )
    if frame.empty:
        return pd.DataFrame(columns=["article", "answerable", "no_answer", "total"])
    table = frame.pivot_table(index="article", columns="type", aggfunc="size", fill_value=0)
    for column in ("answerable", "no_answer"):
        if column not in table:
            table[column] = 0
    table = table[["answerable", "no_answer"]]
    table["total"] = table.sum(axis=1)
    return table.sort_values("total", ascending=False).reset_index()


def missing_gold_articles(questions: Iterable[GoldQuestion], articles: Iterable[Article]) -> list[tuple[str, str]]:
    """``(question id, article id)`` for every gold question whose article is not in the corpus."""
    known = {a.id for a in articles}
    return [(q.id, q.article) for q in questions if q.article is not None and q.article not in known]


# --------------------------------------------------------------------------- headline


def delta_frame(summary: Summary) -> pd.DataFrame:
    """Metrics side by side: one row per metric, both configs, the delta, and the unit."""
    import pandas as pd

    base, cand = summary.baseline, summary.candidate
    b, c, d = summary.baseline_metrics, summary.candidate_metrics, summary.delta
    return pd.DataFrame(
        [
            {"metric": m.label, "key": m.key, "kind": m.kind, base: b[m.key], cand: c[m.key], "delta": d[m.key]}
            for m in METRICS
        ]
    )


#: Bar colour by which way a delta moved (:func:`~evalgate_lib.statistics.metrics.direction`): grey for no change.
_COLOURS = {"better": "#2e7d32", "worse": "#c62828", "unchanged": "#9e9e9e"}


def delta_bar_chart(summary: Summary, axes: Sequence[Axes] | None = None, phone: bool = False) -> Figure:
    """Candidate-minus-baseline deltas as bars: rates and groundedness in points (left), flag counts (right).

    Green is better, red is worse: a rise in a rate is good (in the rate of answers with an unsupported claim,
    bad), a rise in a flag count is bad; grey, no change
    (a delta the table prints as zero). ``phone``: the two panels one above the other, at phone width.
    """
    import matplotlib.pyplot as plt

    made = axes is None
    if axes is None:
        rates = sum(1 for m in METRICS if m.kind != "count")
        if phone:
            counts = len(METRICS) - rates
            fig, created = plt.subplots(
                2,
                1,
                figsize=(PHONE_WIDTH_IN, 0.24 * (rates + counts) + 1.8),
                gridspec_kw={"height_ratios": [rates, counts]},
            )
        else:
            fig, created = plt.subplots(1, 2, figsize=(12, 0.3 * rates + 1.4), gridspec_kw={"width_ratios": [5, 4]})
        axes = list(created)
        _phone_version(fig, lambda: delta_bar_chart(summary, phone=True), not phone)
    fig = axes[0].figure
    delta = summary.delta
    panels = (
        (
            [m for m in METRICS if m.kind != "count"],
            "bar length: percentage points (scores × 100); labels as in the table",
            100.0,
            True,
        ),
        ([m for m in METRICS if m.kind == "count"], "delta (number of answers)", 1.0, False),
    )
    for ax, (metrics, ylabel, scale, _higher) in zip(axes, panels, strict=True):
        labels = [m.label for m in metrics]
        values = [0.0 if delta.get(m.key) is None else delta[m.key] * scale for m in metrics]
        colors = [_COLOURS[direction(delta.get(m.key), m.kind, m.lower_is_better)] for m in metrics]
        bars = ax.barh(labels, values, color=colors)
        for bar, m, value in zip(bars, metrics, values, strict=True):
            text = format_value(delta.get(m.key), m.kind, signed=True)  # as the table prints it: +0.010, not +1.0
            ax.annotate(
                text,
                (bar.get_width(), bar.get_y() + bar.get_height() / 2),
                xytext=(4 if value >= 0 else -4, 0),
                textcoords="offset points",
                ha="left" if value >= 0 else "right",
                va="center",
                fontsize=9,
            )
        ax.axvline(0, color="black", linewidth=0.8)
        ax.invert_yaxis()
        ax.set_xlabel("points (scores × 100)" if phone and scale != 1.0 else ylabel, fontsize=_pt(10, phone))
        ax.tick_params(labelsize=_pt(10, phone))
        lo, hi = min(values + [0.0]), max(values + [0.0])
        pad = max(hi - lo, 1.0) * 0.25
        ax.set_xlim(lo - pad, hi + pad)
    from matplotlib.ticker import MaxNLocator

    axes[1].xaxis.set_major_locator(MaxNLocator(integer=True))
    axes[0].set_title(f"{summary.candidate} − {summary.baseline}: rates", fontsize=_pt(12, phone))
    axes[1].set_title("flag counts (lower is better)", fontsize=_pt(12, phone))
    fig.tight_layout()
    moves = Counter(
        direction(delta.get(m.key), m.kind, m.lower_is_better) for m in METRICS if delta.get(m.key) is not None
    )
    _describe(
        fig,
        f"Horizontal bar charts of each metric's change from {summary.baseline} to {summary.candidate}: rates in "
        "percentage points on the left, flag counts on the right, green better, red worse. "
        f"{moves['better']} metrics moved the better way, {moves['worse']} the worse way, {moves['unchanged']} not "
        "at all; each value, and whether it is beyond noise, is in the headline table.",
        made,
    )
    return fig


# --------------------------------------------------------------------------- coverage


def _short(text: str, width: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _scorer_of(rows: Sequence[ResultRow]) -> str:
    return next((r.scorer for r in rows if r.scorer), "")


def _verdict_image(ax: Axes, values: Any, missing_color: str) -> Any:
    """Sentence verdicts as cells: red unsupported (0), green supported (1), ``missing_color`` where nothing is claimed.

    The colour is the verdict the run published, never a score compared with some floor here:
    the scorers differ in what their scores mean (a word share, a token coverage).
    """
    import numpy as np
    from matplotlib.colors import BoundaryNorm, ListedColormap

    cmap = ListedColormap(["#f4a6a0", "#a6d9a0"]).with_extremes(bad=missing_color)
    return ax.imshow(np.ma.masked_invalid(values), cmap=cmap, norm=BoundaryNorm([-0.5, 0.5, 1.5], 2), aspect="auto")


def _verdict_legend(ax: Axes, image: Any, scorer: str, phone: bool = False) -> None:
    if phone:  # a legend under the cells: a colour bar beside them leaves the sentences no room at phone width
        from matplotlib.patches import Patch

        ax.legend(
            handles=[Patch(color="#a6d9a0", label="supported"), Patch(color="#f4a6a0", label="unsupported")],
            loc="upper center", bbox_to_anchor=(0.5, -0.02), ncol=2, fontsize=PHONE_FONT_PT, frameon=False,
            title=f"verdict of {scorer or 'the scorer'}", title_fontsize=PHONE_FONT_PT,
        )  # fmt: skip
        return
    colorbar = ax.figure.colorbar(image, ax=ax, fraction=0.05, pad=0.02, ticks=[0, 1])
    colorbar.ax.set_yticklabels(["unsupported", "supported"], fontsize=8)
    floor = scorer_floor(scorer) if scorer else None
    scale = f", floor {floor:.2f}" if floor is not None else ""
    colorbar.set_label(f"verdict of {scorer or 'the scorer'} (cell text: its support score{scale})", fontsize=8)


def _verdict_value(s: SentenceVerdict) -> float:
    return float("nan") if s.supported is None else float(s.supported)


def coverage_heatmap(row: ResultRow, ax: Axes | None = None, width: int = 60, phone: bool = False) -> Axes:
    """Each answer sentence as one cell coloured by the run's verdict, with the scorer's support score in it.

    Green: supported; red: unsupported; grey: the sentence claims nothing (a decline, courtesy,
    a heading) and reads ``n/a``. The legend names the scorer (``row.scorer``) and its floor.
    """
    import matplotlib.pyplot as plt
    import numpy as np

    sentences = row.sentences
    created = ax is None
    if ax is None:
        size = (
            (PHONE_WIDTH_IN, 0.5 * max(len(sentences), 1) + 1.6) if phone else (8, 0.45 * max(len(sentences), 1) + 1.1)
        )
        _, ax = plt.subplots(figsize=size)
        _phone_version(ax.figure, lambda: coverage_heatmap(row, phone=True), not phone)
    if phone:
        width = min(width, 22)
    values = np.array([[_verdict_value(s)] for s in sentences] or [[np.nan]])
    image = _verdict_image(ax, values, missing_color="#d9d9d9")
    for i, s in enumerate(sentences):
        cov = s.coverage
        label = "n/a (refusal)" if s.refusal else ("n/a" if cov is None else f"{cov:.2f}")
        mark = "" if s.supported is None else ("  ✓" if s.supported else "  ✗ unsupported")
        mark += " (undecided)" if s.undecided else ""
        ax.text(0, i, label + mark, ha="center", va="center", fontsize=9)
    ax.set_yticks(range(len(sentences)) if sentences else [0])
    ax.set_yticklabels([_short(s.text, width) for s in sentences] or ["(empty answer)"], fontsize=_pt(8, phone))
    ax.set_xticks([])
    _verdict_legend(ax, image, row.scorer, phone)
    title = f"{row.config} · {row.question_id}: {_short(row.question, 34 if phone else 70)}"
    ax.set_title(title, fontsize=9)
    kinds = Counter("no claim" if s.supported is None else "supported" if s.supported else "unsupported"
                    for s in sentences)  # fmt: skip
    _describe(
        ax.figure,
        f"Heatmap of the {len(sentences)} sentence(s) of {row.config}'s answer to {row.question_id} "
        f"({_short(row.question, 70)}), coloured by the verdict of {row.scorer or 'the scorer'}: "
        f"{kinds['supported']} supported, {kinds['unsupported']} unsupported, {kinds['no claim']} claiming nothing.",
        created,
    )
    return ax


def coverage_matrix_heatmap(
    rows: Sequence[ResultRow], ax: Axes | None = None, max_sentences: int = 6, title: str = "", phone: bool = False
) -> Axes:
    """Several answers at once: one heatmap row per answer, one cell per sentence (up to ``max_sentences``).

    Cells are coloured by the run's verdict and show the scorer's support score; ``title`` says
    which answers are drawn when they are not all of them.
    """
    import matplotlib.pyplot as plt
    import numpy as np

    created = ax is None
    if ax is None:
        lines = max(len(rows), 1)
        size = (PHONE_WIDTH_IN, 0.3 * lines + 1.8) if phone else (1.1 * max_sentences + 3, 0.35 * lines + 1.2)
        _, ax = plt.subplots(figsize=size)
        _phone_version(ax.figure, lambda: coverage_matrix_heatmap(rows, None, max_sentences, title, True), not phone)
    values = np.full((max(len(rows), 1), max_sentences), np.nan)
    scores = np.full_like(values, np.nan)
    for i, row in enumerate(rows):
        for j, s in enumerate(row.sentences[:max_sentences]):
            values[i, j] = _verdict_value(s)
            if s.coverage is not None:
                scores[i, j] = s.coverage
    image = _verdict_image(ax, values, missing_color="#f0f0f0")
    for (i, j), v in np.ndenumerate(scores):
        if not np.isnan(v):
            ax.text(j, i, f"{v:.2f}"[1:] if phone else f"{v:.2f}", ha="center", va="center", fontsize=_pt(7, phone))
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([f"{r.config} {r.question_id}" for r in rows], fontsize=_pt(8, phone))
    ax.set_xticks(range(max_sentences))
    ax.set_xticklabels([f"s{j + 1}" for j in range(max_sentences)], fontsize=_pt(8, phone))
    ax.set_xlabel(
        "sentence (grey: none, or no claim)" if phone else "answer sentence (grey: no sentence, or nothing claimed)",
        fontsize=_pt(10, phone),
    )
    if phone:
        ax.xaxis.set_label_position("top")
        ax.xaxis.tick_top()
    _verdict_legend(ax, image, _scorer_of(rows), phone)
    if title:
        ax.set_title(title, fontsize=9, wrap=phone)
    cells = Counter(int(v) for v in values.flat if not np.isnan(v))
    _describe(
        ax.figure,
        f"Heatmap of {len(rows)} answers, one line each, one cell per sentence (up to {max_sentences}), coloured by "
        f"the verdict of {_scorer_of(rows) or 'the scorer'}: {cells[1]} supported, {cells[0]} unsupported"
        + (f"; {title}" if title else "")
        + ".",
        created,
    )
    return ax


def sentence_coverages(rows: Iterable[ResultRow]) -> pd.DataFrame:
    """Long table of every scored sentence: config, question id, coverage, supported."""
    import pandas as pd

    return pd.DataFrame(
        [
            {
                "config": r.config,
                "question_id": r.question_id,
                "sentence": i + 1,
                "coverage": s.coverage,
                "supported": s.supported,
            }
            for r in rows
            for i, s in enumerate(r.sentences)
            if s.coverage is not None
        ],
        columns=["config", "question_id", "sentence", "coverage", "supported"],
    )


def coverage_distribution(rows: Sequence[ResultRow], ax: Axes | None = None, phone: bool = False) -> Axes:
    """Histogram of sentence support scores per config, with the run's scorer's floor as a vertical line."""
    import matplotlib.pyplot as plt
    import numpy as np

    created = ax is None
    if ax is None:
        _, ax = plt.subplots(figsize=(PHONE_WIDTH_IN, 3.4) if phone else (8, 3.4))
        _phone_version(ax.figure, lambda: coverage_distribution(rows, phone=True), not phone)
    frame = sentence_coverages(rows)
    configs = list(dict.fromkeys(r.config for r in rows))
    bins = np.linspace(0, 1, 21)
    counted = []  # the legend's words, which the text alternative repeats
    for name in configs:
        picked = frame.loc[frame["config"] == name]
        values = picked["coverage"].to_numpy(dtype=float)
        unsupported = int((picked["supported"] == False).sum())  # noqa: E712 - a pandas mask, not a truth test
        counted.append(f"{name}: {len(values)} sentences, {unsupported} unsupported")
        ax.hist(values, bins=bins, alpha=0.55, label=f"{name} ({len(values)} sentences, {unsupported} unsupported)")
    scorer = _scorer_of(rows)
    floor = scorer_floor(scorer) if scorer else None
    if floor is not None:
        ax.axvline(floor, color="black", linestyle="--", linewidth=1.2)
        ax.text(
            floor,
            ax.get_ylim()[1] * 0.95,
            f" floor {floor:.2f}" if phone else f" {scorer} floor {floor:.2f}",
            va="top",
            fontsize=_pt(8, phone),
        )
    ax.set_xlabel(
        f"support score of {scorer or 'the scorer'}"
        if phone
        else f"sentence support score of {scorer or 'the scorer'} (its verdicts are counted in the legend)",
        fontsize=_pt(10, phone),
    )
    ax.set_ylabel("sentences", fontsize=_pt(10, phone))
    ax.tick_params(labelsize=_pt(10, phone))
    if phone:
        ax.legend(fontsize=PHONE_FONT_PT, loc="upper center", bbox_to_anchor=(0.5, -0.25), frameon=False)
    else:
        ax.legend(fontsize=8)
    counts = "; ".join(counted)
    floor_said = f", the {scorer} floor at {floor:.2f}" if floor is not None else ""
    _describe(
        ax.figure,
        f"Histograms of sentence support scores from 0 to 1 of {scorer or 'the scorer'}, one per config{floor_said}: "
        f"{counts}.",
        created,
    )
    return ax


def token_marks_html(sentence: SentenceVerdict) -> str:
    """A sentence with each content token marked found (green) or not found (red, struck) in the context.

    ``sentence`` is one of a row's sentence verdicts. Stopwords and
    punctuation stay unmarked. Every piece of text is HTML-escaped: answers are model output.
    """
    text = sentence.text
    # the scorer names what it missed as it compares words: as written (lexical) or stemmed (prose)
    missing = set(sentence.missing)
    claims = sentence.claims

    def lacks(token: str) -> bool:
        return token in missing or bool(missing & terms_of(token).words)

    spans = token_spans(text)
    if spans is None:  # exotic case mapping changed lengths: fall back to a token list
        return " ".join(_mark(t, lacks(t), claims) for t in sentence.tokens) or html.escape(text)
    out, cursor = [], 0
    for start, end, token in spans:
        out.append(html.escape(text[cursor:start]))
        piece = text[start:end]
        if token in STOPWORDS:
            out.append(html.escape(piece))
        else:
            out.append(_mark(piece, lacks(token), claims))
        cursor = end
    out.append(html.escape(text[cursor:]))
    return "".join(out)


def _mark(piece: str, is_missing: bool, claims: bool) -> str:
    if not claims:
        return f'<span class="eg-tok eg-tok-na" title="not scored">{html.escape(piece)}</span>'
    if is_missing:
        return (
            '<span class="eg-tok eg-tok-missing" title="not in the span the verdict names" '
            'style="background:#ffcdd2;text-decoration:line-through">'
            f"{html.escape(piece)}</span>"
        )
    return (
        '<span class="eg-tok eg-tok-found" title="in the span the verdict names" style="background:#c8e6c9">'
        f"{html.escape(piece)}</span>"
    )


def support_figure(s: SentenceVerdict) -> str:
    """The figure a sentence's verdict rests on, as every view prints it: ``0.80`` (the share of its words its span
    holds), or for an answer fragment ("Superseded.") the share of the question's words its span holds, which is
    what decides a fragment (its own one or two words do not); ``n/a`` when it claims nothing.
    """
    if s.coverage is None or s.supported is None:
        return "n/a"
    evidence = s.steps[-1].evidence if s.steps else {}
    if s.rule == "S.words" and evidence.get("kind") == "an answer fragment" and evidence.get("question_needed"):
        held, needed = evidence.get("question_held") or [], evidence["question_needed"]
        return f"an answer fragment: its span holds {len(held)}/{len(needed)} of the question's words"
    return f"{s.coverage:.2f}"


def verdict_word(s: SentenceVerdict) -> str:
    """A sentence's verdict with its figure (:func:`support_figure`): ``supported (0.80)``, never a bare
    ``supported (0.00)`` of a fragment's own words."""
    figure = support_figure(s)
    return s.outcome if figure == "n/a" else f"{s.outcome} ({figure})"


def sentences_html(row: ResultRow) -> str:
    """Table of an answer's sentences: score, the scorer's verdict and reason, tokens marked found / not found."""
    lines = [
        '<table class="eg-sentences"><thead><tr><th>#</th><th>score</th><th>verdict</th>'
        "<th>sentence (green: held by the span its verdict names, red: not)</th><th>why</th></tr></thead><tbody>"
    ]
    for i, s in enumerate(row.sentences, start=1):
        verdict = s.outcome
        shown = support_figure(s)
        lines.append(
            f"<tr><td>{i}</td><td>{shown}</td><td>{html.escape(verdict)}</td><td>{token_marks_html(s)}</td>"
            f"<td>{html.escape(s.reason)}</td></tr>"
        )
    if not row.sentences:
        lines.append('<tr><td colspan="5">(empty answer)</td></tr>')
    lines.append("</tbody></table>")
    return "".join(lines)


def example_html(row: ResultRow) -> str:
    """One chosen answer of notebook 03: which it is (config and question id, escaped), then :func:`sentences_html`.

    Built here rather than in a notebook cell: a config name or a question id is user text, and an
    f-string in a cell put it into the page unescaped (a ``<script>`` in a name ran in the appendix).
    """
    return (
        f"<p><b>{html.escape(row.config)} · {html.escape(row.question_id)}</b> — tokens found (green) / "
        "not found (red) in the context:</p>" + sentences_html(row)
    )


def pick_examples(rows: Sequence[ResultRow], question_ids: Sequence[str] | None = None, n: int = 4) -> list[ResultRow]:
    """Answers worth a heatmap: the rows of ``question_ids`` (every config), else up to ``n`` chosen ones.

    Without ids: hallucination-flagged answers first, then review-queue ones, then any
    answer with a scored sentence, alternating between configs so both are shown.
    """
    if question_ids:
        wanted = list(question_ids)
        return sorted((r for r in rows if r.question_id in wanted), key=lambda r: wanted.index(r.question_id))

    def rank(row: ResultRow) -> int:
        return 0 if row.flags.hallucination else 1 if row.flags.review else 2

    scored = [r for r in rows if any(s.claims for s in r.sentences)]
    configs = list(dict.fromkeys(r.config for r in rows))
    queues = {c: sorted((r for r in scored if r.config == c), key=rank) for c in configs}
    picked: list[ResultRow] = []
    while len(picked) < n and any(queues.values()):
        for c in configs:
            if queues[c] and len(picked) < n:
                picked.append(queues[c].pop(0))
    return picked


def interval_narrowing_plot(
    steps: Sequence[Any], ax: Axes | None = None, label: str = "accuracy on answerable", progress: Any = None
) -> Axes:
    """The corrected delta and its 95% interval against the number of questions labelled under the plan.

    ``steps`` are :class:`~evalgate_lib.statistics.label_correction.NarrowingStep` (from
    ``narrowing``); the labels-only (classical) interval at each step and the judge-only delta are
    drawn beside it, so a reviewer sees what each label buys. ``progress``
    (:class:`~evalgate_lib.statistics.label_correction.PlanProgress`) titles the chart with the plan
    answers labelled so far, so a saved label is counted even before the delta can use it. Nothing is
    computed here.
    """
    import matplotlib.pyplot as plt

    created = ax is None
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 3.2))
    counted = progress.line() if progress is not None else "no count of the plan's labels given"
    if not steps:
        labelled = progress is not None and progress.labelled > 0
        why = (
            f"{counted}; the corrected delta appears once, in the plan's order,\nevery answer of a question "
            f"is labelled and each of the plan's {progress.strata} strata has one"
            if labelled
            else "no label under the plan yet"
        )
        ax.text(0.5, 0.5, why, ha="center", va="center", transform=ax.transAxes, fontsize=9)
        ax.set_axis_off()
        _describe(ax.figure, f"The corrected delta of {label} under the plan: not drawn yet, {why}.", created)
        return ax
    x = [s.questions for s in steps]
    pts = [s.delta * 100 for s in steps]
    ax.plot(x, pts, color="#1565c0", label="corrected delta")
    with_ci = [s for s in steps if s.ci_low is not None and s.ci_high is not None]
    if with_ci:
        low, high = [s.ci_low * 100 for s in with_ci], [s.ci_high * 100 for s in with_ci]
        ax.fill_between([s.questions for s in with_ci], low, high, color="#1565c0", alpha=0.2, label="95% interval")
    classical = [s for s in steps if s.classical_low is not None and s.classical_high is not None]
    if classical:
        cx = [s.questions for s in classical]
        lows = [s.classical_low * 100 for s in classical]
        ax.plot(cx, lows, color="#757575", linestyle=":", label="labels only")
        ax.plot(cx, [s.classical_high * 100 for s in classical], color="#757575", linestyle=":")
    ax.axhline(steps[-1].judge_delta * 100, color="#e65100", linestyle="--", label="judge only")
    ax.axhline(0, color="black", linewidth=0.6)
    ax.set_xlabel("questions labelled under the plan (every config's answer)")
    ax.set_ylabel(f"delta, {label} (points)")
    if progress is not None:
        ax.set_title(counted, fontsize=9)
    ax.legend(fontsize=8, loc="best")
    last = steps[-1]
    bounded = last.ci_low is not None and last.ci_high is not None
    interval = f" [{last.ci_low * 100:+.1f}, {last.ci_high * 100:+.1f}]" if bounded else ""
    _describe(
        ax.figure,
        f"Line chart of the corrected delta of {label} after each of the first {last.questions} questions "
        f"labelled under the plan ({counted}): now {last.delta * 100:+.1f} points{interval}, "
        f"the judge alone {last.judge_delta * 100:+.1f} points.",
        created,
    )
    return ax
