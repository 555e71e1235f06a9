"""Charts in a notebook as PNG images that carry alt text.

matplotlib's inline backend shows a figure as a PNG with no description, so nbconvert's page (the
report and its appendices) gives every chart the same placeholder alt text, which tells a
screen-reader user nothing. :func:`show_chart` shows the figure itself: the same PNG the inline
backend would make, its ``alt`` in the output's metadata (the text the drawing function gave the
chart, :func:`evalgate_lib.reporting.plots.chart_alt`), which the report's exporter writes into the
``<img>`` (:mod:`evalgate_lib.workbench.html_export`). The figure is closed, so the inline backend
does not show it a second time at the end of the cell.
"""

from __future__ import annotations

import io
from typing import Any

from evalgate_lib.reporting.plots import chart_alt


def chart_png(chart: Any) -> tuple[bytes, str]:
    """The PNG of ``chart`` (a matplotlib ``Figure``, or an ``Axes`` of one) and its alt text, as shown.

    Drawn as the inline backend draws it (the figure's own dpi and face colour, a tight bounding box).
    """
    figure = chart if hasattr(chart, "savefig") else chart.figure
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", bbox_inches="tight", facecolor=figure.get_facecolor())
    return buffer.getvalue(), chart_alt(figure)


def show_chart(chart: Any, alt: str | None = None) -> None:
    """Display ``chart`` (a ``Figure`` or an ``Axes``, as the ``Results`` chart views return) with alt text.

    ``alt`` overrides the chart's own description. The notebooks call this instead of ``plt.show()``.
    """
    import matplotlib.pyplot as plt
    from IPython.display import Image, display

    png, described = chart_png(chart)
    plt.close(chart if hasattr(chart, "savefig") else chart.figure)
    display(Image(data=png, format="png", alt=alt or described))
