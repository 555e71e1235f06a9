"""Charts in a notebook as PNG images that carry alt text.

matplotlib's inline backend shows a figure as a PNG with no description, so nbconvert's page (the
report and its appendices) gives every chart the same placeholder alt text, which tells a
screen-reader user nothing. :func:`show_chart` shows the figure itself: the same PNG the inline
backend would make, its ``alt`` in the output's metadata (the text the drawing function gave the
chart, :func:`evalgate_lib.reporting.plots.chart_alt`), which the report's exporter writes into the
``<img>`` (:mod:`evalgate_lib.workbench.html_export`). The figure is closed, so the inline backend
does not show it a second time at the end of the cell.

A chart drawn by :mod:`evalgate_lib.reporting.plots` can also be drawn at phone width
(:func:`~evalgate_lib.reporting.plots.phone_chart`); :func:`show_chart` then puts that PNG in the same
output under :data:`PHONE_MIME`, a type JupyterLab does not render (it shows the wide PNG) and the report's
exporter puts in a ``<picture>`` for screens below the phone breakpoint. Each PNG's metadata records its
smallest text in image pixels (``font_px``), so a test can tell how large it reads at the width shown.
"""

from __future__ import annotations

import base64
import io
from typing import Any

from evalgate_lib.reporting.plots import chart_alt, phone_chart, smallest_text_px


def chart_png(chart: Any) -> tuple[bytes, str]:
    """The PNG of ``chart`` (a matplotlib ``Figure``, or an ``Axes`` of one) and its alt text, as shown.

    Drawn as the inline backend draws it (the figure's own dpi and face colour, a tight bounding box).
    """
    figure = chart if hasattr(chart, "savefig") else chart.figure
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", bbox_inches="tight", facecolor=figure.get_facecolor())
    return buffer.getvalue(), chart_alt(figure)


#: The output type of a chart's phone rendition (base64 PNG, as ``image/png``); only the report's exporter reads it.
PHONE_MIME = "application/vnd.evalgate.phone+png"


def chart_bundle(chart: Any, alt: str | None = None) -> tuple[dict[str, str], dict[str, dict[str, Any]]]:
    """The output :func:`show_chart` displays: ``(data, metadata)`` with the PNG, its phone rendition when the
    chart has one, the alt text and each PNG's smallest text in image pixels. Every figure drawn is closed."""
    import matplotlib.pyplot as plt

    figure = chart if hasattr(chart, "savefig") else chart.figure
    png, described = chart_png(figure)
    data = {"image/png": base64.b64encode(png).decode("ascii")}
    metadata: dict[str, dict[str, Any]] = {"image/png": {"alt": alt or described, "font_px": smallest_text_px(figure)}}
    phone = phone_chart(figure)
    plt.close(figure)
    if phone is not None:
        small, _ = chart_png(phone)
        data[PHONE_MIME] = base64.b64encode(small).decode("ascii")
        metadata[PHONE_MIME] = {"font_px": smallest_text_px(phone)}
        plt.close(phone)
    return data, metadata


def show_chart(chart: Any, alt: str | None = None) -> None:
    """Display ``chart`` (a ``Figure`` or an ``Axes``, as the ``Results`` chart views return) with alt text.

    ``alt`` overrides the chart's own description. The notebooks call this instead of ``plt.show()``.
    """
    from IPython.display import display

    data, metadata = chart_bundle(chart, alt)
    display(data, metadata=metadata, raw=True)
