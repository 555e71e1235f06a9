"""The flag explorer widget: step through the answers of one config that carry one flag.

The selection and the text shown are :mod:`evalgate_lib.reporting.explorer`'s plain functions
(testable without a kernel, escaped); this module only wires them to ipywidgets.
"""

from __future__ import annotations

import html
from typing import Any, Iterable, Sequence

from evalgate_lib.inputs.corpus import Article
from evalgate_lib.judging.rows import ResultRow
from evalgate_lib.reporting.explorer import FLAG_CHOICES, chunk_texts, describe_row, filter_rows


def flag_explorer(
    rows: Sequence[ResultRow], articles: Iterable[Article] | None = None, flag: str = "Hallucination"
) -> Any:
    """An ipywidgets box: config and flag dropdowns, previous / next buttons, and the selected row's description."""
    import ipywidgets as widgets

    bodies = chunk_texts(articles) if articles is not None else None
    configs = list(dict.fromkeys(r.config for r in rows))
    config_box = widgets.Dropdown(options=configs, value=configs[0] if configs else None, description="config")
    flag_box = widgets.Dropdown(options=list(FLAG_CHOICES), value=flag, description="flag")
    prev_button = widgets.Button(description="◀ previous")
    next_button = widgets.Button(description="next ▶")
    # 1-based, as the status line counts: the slider and the words never disagree
    position = widgets.IntSlider(min=1, max=1, value=1, description="answer", continuous_update=False)
    status = widgets.HTML()
    body = widgets.HTML()
    state: dict[str, list[ResultRow]] = {"rows": []}

    def show(*_: Any) -> None:
        selected = state["rows"]
        if not selected:
            status.value = f"<b>0</b> answers of <b>{e(config_box.value)}</b> carry <b>{e(flag_box.value)}</b>."
            body.value = ""
            return
        i = position.value
        row = selected[i - 1]
        status.value = f"answer <b>{i}</b> of <b>{len(selected)}</b> ({e(flag_box.value)}, {e(config_box.value)})"
        prev_button.disabled, next_button.disabled = i <= 1, i >= len(selected)
        body.value = describe_row(row, bodies)

    def refilter(*_: Any) -> None:
        state["rows"] = filter_rows(rows, config_box.value, flag_box.value)
        position.max = max(len(state["rows"]), 1)
        position.value = 1
        show()

    def step(delta: int) -> None:
        """Move within the list; at either end the button does nothing (it is disabled there)."""
        if state["rows"]:
            position.value = min(max(position.value + delta, 1), len(state["rows"]))

    e = html.escape
    config_box.observe(refilter, names="value")
    flag_box.observe(refilter, names="value")
    position.observe(show, names="value")
    prev_button.on_click(lambda _: step(-1))
    next_button.on_click(lambda _: step(1))
    refilter()
    return widgets.VBox(
        [widgets.HBox([config_box, flag_box]), widgets.HBox([prev_button, next_button, position]), status, body]
    )
