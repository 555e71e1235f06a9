"""The report's CSS, in one place, so every HTML piece looks the same wherever it is shown.

Each piece (headline, first screen, what changed, the answer table) embeds the style sheet
it needs in its own ``<style>`` element: a piece shown alone in a notebook output must look
right too, and the report stays one file with no external style sheet. The rules are scoped
under ``.eg-report`` and win over JupyterLab's rendered-HTML rules (which right-align cells and
fix table layouts) by coming later in the page, with ``!important`` where Lab's selector is
more specific.
"""

from __future__ import annotations

#: Shared rules: tables, numbers, flag badges, verdict colours, the filter bar.
BASE_CSS = """
.eg-report { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; font-size: 14px; }
.eg-report table { border-collapse: collapse; margin: 0.5em 0 1em; }
.eg-report th, .eg-report td { border: 1px solid #ccc; padding: 4px 8px; vertical-align: top;
  text-align: left !important; }
.eg-report th { background: #f3f3f3; }
.eg-report td.num { text-align: right !important; font-variant-numeric: tabular-nums; }
.eg-report .better { color: #1b5e20; font-weight: 600; }
.eg-report .worse { color: #b71c1c; font-weight: 600; }
.eg-report a { color: #1565c0; text-decoration: underline; }
.eg-controls { display: flex; gap: 1.2em; align-items: center; flex-wrap: wrap; margin: 0.6em 0;
  padding: 0.6em; background: #f7f7f7; border: 1px solid #ddd; }
.eg-controls label { font-weight: 600; }
.eg-report table { table-layout: auto !important; }
.eg-badge { display: inline-block; padding: 0 6px; margin: 1px; border-radius: 8px; font-size: 11px;
  color: white; white-space: nowrap; }
.eg-badge-wrong { background: #757575; }
.eg-badge-hallucination { background: #c62828; }
.eg-badge-grounded_but_wrong { background: #ef6c00; }
.eg-badge-review { background: #1565c0; }
.eg-ok { color: #1b5e20; font-weight: 600; }
.eg-miss { color: #b71c1c; font-weight: 600; }
.eg-sig { display: inline-block; padding: 0 6px; margin-left: 4px; border-radius: 3px; font-size: 11px;
  font-weight: 700; color: #fff; background: #6a1b9a; white-space: nowrap; }
.eg-sentences td, .eg-sentences th, .eg-retrieved td, .eg-retrieved th { font-size: 12px; }
"""

#: A table that scrolls inside the viewport: never wider than the page, at most one screen tall,
#: header row kept in view. Its scrollbars are at the edge of the screen, not thousands of pixels below.
SCROLL_CSS = """
.eg-scroll { max-height: calc(100vh - 140px); overflow: auto; max-width: 100%; border: 1px solid #ddd; }
.eg-report table.eg-fit { table-layout: fixed !important; width: 100% !important; margin: 0; }
.eg-fit > thead th { position: sticky; top: 0; z-index: 2; background: #f3f3f3; box-shadow: inset 0 -1px 0 #ccc; }
.eg-fit table th { position: static; }
.eg-fit tr { scroll-margin-top: 5em; }
.eg-fit td { overflow-wrap: anywhere; word-break: normal; }
.eg-fit td table td { overflow-wrap: break-word; }
.eg-fit td.answer, .eg-fit .answer { white-space: pre-wrap; }
.eg-fit .eg-badge { white-space: normal; }
"""

#: The width below which every table of a report page is laid out as stacked cards (a phone held upright).
NARROW_BREAKPOINT_PX = 640

#: Below :data:`NARROW_BREAKPOINT_PX`, every table stacks: each row a card, each cell a full-width block led
#: by its column's heading (the ``data-label`` that ``reporting/page_layout.py`` writes), so no cell is a
#: few pixels wide and nothing sticks out of the screen. Wider screens keep the tables as they are. The page
#: puts these rules in its head, before the pieces' own style sheets: ``html body`` and ``!important`` let
#: them win over a piece's rule of the same weight that comes later (``.eg-report td.num``). ``display``
#: is never ``!important``: a row a filter hides (``style="display:none"``: a closed details row, an answer
#: filtered out) must stay hidden.
NARROW_CSS = f"""
@media (max-width: {NARROW_BREAKPOINT_PX}px) {{
  html body table, html body tbody, html body tfoot, html body tr, html body th, html body td {{ display: block;
    width: auto !important; max-width: 100% !important; min-width: 0 !important; box-sizing: border-box; }}
  table {{ width: 100% !important; margin-left: 0 !important; margin-right: 0 !important; }}
  colgroup, col, thead {{ display: none !important; }}
  tr {{ border: 1px solid #ccc; margin: 0 0 0.6em; }}
  html body th, html body td, html body .eg-report td.num {{ border: none !important;
    border-top: 1px solid #eee !important; text-align: left !important; overflow-wrap: anywhere;
    white-space: normal !important; }}
  td.answer, td .answer, pre {{ white-space: pre-wrap !important; }}
  td[data-label]::before {{ content: attr(data-label); display: block; font-size: 11px; font-weight: 600;
    color: #555; }}
  .eg-scroll {{ max-height: calc(100vh - 60px); }}
  .eg-controls input, .eg-controls select {{ max-width: 100%; }}
  img {{ max-width: 100% !important; height: auto !important; }}
  .jp-OutputArea-output pre, .eg-report pre {{ overflow-x: auto; max-width: 100%; }}
}}
"""

#: The whole page's rules: its table of contents, and inline code that wraps where it must (a long pattern in
#: the methodology ran thousands of pixels past the page's edge, cut off by the cell around it).
PAGE_CSS = """
.jp-RenderedHTMLCommon code, .eg-report code { overflow-wrap: anywhere; }
nav.eg-contents { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; font-size: 14px;
  margin: 1em 0; padding: 0.6em 1em; background: #f7f7f7; border: 1px solid #ddd; }
nav.eg-contents h2 { font-size: 15px; margin: 0 0 0.3em; }
nav.eg-contents ol { margin: 0; padding-left: 1.4em; columns: 2 16em; }
nav.eg-contents a { color: #1565c0; }
"""
