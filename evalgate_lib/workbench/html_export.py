"""The report's HTML exporter: nbconvert's ``lab`` page, offline, code hidden, every chart described.

nbconvert's own ``--to html`` page loads require.js and MathJax from a CDN and gives every image
the same placeholder alt text. :class:`ReportExporter` is the one way EvalGate turns an executed
notebook into a page, used by ``evalgate report`` (:func:`evalgate_lib.workbench.report.render_html`)
and, registered as nbconvert's ``evalgate`` exporter (``pyproject.toml``), by hand::

    jupyter nbconvert --to evalgate 05.ipynb      # → 05.html, the same page evalgate report writes

It renders:

* **offline**: the lab template with its script blocks (require.js, MathJax, Mermaid, the widget
  manager) left out, its CSS inlined, images embedded, so the page loads nothing from the network;
* **code hidden**, prompts hidden, the kernel's stderr (progress bars, warnings) dropped;
* **every PNG with the alt text its output carries** (``eg.show_chart`` records the chart's own
  description), a plain "chart" note where a notebook gave none; **on a phone**, the chart drawn again
  at phone width where the output holds that rendition (a ``<picture>``), else the chart's text
  alternative in its place (its small text would be unreadable scaled to a phone);
* **titled as the report**: a notebook without a title of its own takes the report's heading
  (``h1.eg-title``, :func:`~evalgate_lib.reporting.report_html.report_title`), so notebook 05 rendered by
  hand has the tab title ``evalgate report`` gives it;
* **finished** by :func:`evalgate_lib.reporting.page_layout.finish_page`: a table of contents, and
  tables that stack into cards on a phone; and marked as EvalGate's own page (``OUTPUT_MARKER``), so
  a corpus that ends up holding it skips it.
"""

from __future__ import annotations

import copy
from typing import Any

from jinja2 import DictLoader
from nbconvert import HTMLExporter
from traitlets import default

from evalgate_lib.inputs.corpus import OUTPUT_MARKER
from evalgate_lib.reporting.page_layout import embed_appendices, finish_page
from evalgate_lib.reporting.styles import NARROW_BREAKPOINT_PX
from evalgate_lib.workbench.charts import PHONE_MIME

#: Where an image's output records no description (a chart drawn with ``plt.show()``, not ``eg.show_chart``).
NO_DESCRIPTION = "A chart; the notebook recorded no description of it."

_TEMPLATE = (
    """{%- extends 'lab/index.html.j2' -%}
{%- block html_head_js -%}{%- endblock html_head_js -%}
{% block jupyter_widgets %}{% endblock jupyter_widgets %}
{%- block html_head_js_mathjax -%}{%- endblock html_head_js_mathjax -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
{% block data_png scoped %}
{%- set alt = (output | get_metadata('alt', 'image/png')) or '"""
    + NO_DESCRIPTION
    + """' -%}
{%- set phone = output.data.get('"""
    + PHONE_MIME
    + """') -%}
<div class="jp-RenderedImage jp-OutputArea-output {{ extra_class }}">
{%- if phone %}<picture><source media="(max-width: """
    + str(NARROW_BREAKPOINT_PX)
    + """px)" srcset="data:image/png;base64,{{ phone | escape_html }}">{% endif %}
{%- if 'image/png' in output.metadata.get('filenames', {}) %}
<img src="{{ output.metadata.filenames['image/png'] | posix_path | escape_html }}"
{%- else %}
<img src="data:image/png;base64,{{ output.data['image/png'] | escape_html }}"
{%- endif %}
alt="{{ alt | escape_html }}"
{%- if not phone %} class="eg-wide-only"{% endif %}
{%- set font=output | get_metadata('font_px', 'image/png') -%}
{%- if font is not none %} data-font-px="{{ font | escape_html }}"{% endif %}
{%- set phone_font=output | get_metadata('font_px', '"""
    + PHONE_MIME
    + """') -%}
{%- if phone_font is not none %} data-phone-font-px="{{ phone_font | escape_html }}"{% endif %}
{%- set width=output | get_metadata('width', 'image/png') -%}
{%- if width is not none %}
width={{ width | escape_html }}
{%- endif %}
{%- set height=output | get_metadata('height', 'image/png') -%}
{%- if height is not none %}
height={{ height | escape_html }}
{%- endif %}
>
{%- if phone %}</picture>{% else %}<p class="eg-narrow-only eg-chart-text">{{ alt | escape_html }}</p>{% endif %}
</div>
{%- endblock data_png %}
"""
)


def _without_stderr(nb: Any) -> Any:
    """A copy of ``nb`` without stderr streams (model-loading progress bars, warnings): no part of the page."""
    nb = copy.deepcopy(nb)
    for cell in nb.cells:
        if cell.get("cell_type") == "code":
            cell["outputs"] = [
                o
                for o in cell.get("outputs", [])
                if not (o.get("output_type") == "stream" and o.get("name") == "stderr")
            ]
    return nb


class ReportExporter(HTMLExporter):
    """nbconvert's HTML exporter as EvalGate's pages need it (module docstring). Registered as ``evalgate``."""

    export_from_notebook = "EvalGate page (offline HTML)"
    #: ``(notebook name, its rendered page)`` of each appendix to put inside the page (``evalgate report`` sets them).
    appendices: list[tuple[str, str]] = []  # noqa: RUF012 - replaced per exporter, never mutated

    @default("extra_loaders")
    def _extra_loaders_default(self) -> list[Any]:
        return [DictLoader({"evalgate_offline.html.j2": _TEMPLATE})]

    @default("template_file")
    def _template_file_default(self) -> str:
        return "evalgate_offline.html.j2"

    @default("exclude_input")
    def _exclude_input_default(self) -> bool:
        return True

    @default("exclude_input_prompt")
    def _exclude_input_prompt_default(self) -> bool:
        return True

    @default("exclude_output_prompt")
    def _exclude_output_prompt_default(self) -> bool:
        return True

    @default("embed_images")
    def _embed_images_default(self) -> bool:
        return True

    def from_notebook_node(self, nb: Any, resources: dict[str, Any] | None = None, **kw: Any) -> tuple[str, Any]:
        """The finished, offline page of ``nb`` (module docstring)."""
        body, resources = super().from_notebook_node(_without_stderr(nb), resources, **kw)
        page = finish_page(body, title_from_heading=not nb.metadata.get("title"))
        if self.appendices:
            page = embed_appendices(page, self.appendices)
        return page.replace("<head>", f"<head>\n{OUTPUT_MARKER}", 1), resources
