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
