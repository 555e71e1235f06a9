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
.eg-badge-unsupported_claim { background: #6a1b9a; }
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

#: The width below which a report page takes its phone layout (a phone held upright).
NARROW_BREAKPOINT_PX = 640

#: How many rows a paged view shows at a time on a phone (the answer table, what changed): each is a card of
#: several lines there, and every card of a run at once made the page tens of thousands of pixels tall.
PHONE_PAGE_ROWS = 4

#: The phone layout, below :data:`NARROW_BREAKPOINT_PX`, for every piece of the page alike:
#:
#: * a table of two columns stays a table; a wider one sits in a ``.eg-wide`` box
#:   (``reporting/page_layout.py`` wraps it) that scrolls sideways within the page, its columns at their
#:   own width, no cell narrower than 64 px. The box is never taller than its table, so a vertical swipe
#:   over it moves the page: no box on the page scrolls vertically on its own;
#: * the answer table and what changed (``.eg-fit``) stack each row into a card whose cells are led by
#:   their column's heading (the ``data-label`` ``page_layout`` writes), and show
#:   :data:`PHONE_PAGE_ROWS` rows at a time with a pager (``.eg-pager``) instead of a box that scrolls;
#: * what has a phone form of its own shows it (``.eg-narrow-only``: the headline as a short list, a chart
#:   re-drawn at phone width) and hides its wide form (``.eg-wide-only``); a long part a reader can open
#:   when they want it (how the numbers are computed, the per-set agreement, the manifest's hashes) is a
#:   ``details.eg-phone-fold``: open on a wider screen and without JavaScript, closed on a phone
#:   (:data:`PHONE_FOLD_JS`).
#:
#: The page puts these rules in its head, before the pieces' own style sheets: ``html body`` and
#: ``!important`` let them win over a piece's rule of the same weight that comes later. ``display`` of a
#: row is never ``!important``: a row a filter or the pager hides (``style="display:none"``) stays hidden.
NARROW_CSS = f"""
.eg-narrow-only {{ display: none !important; }}
.eg-pager {{ display: none; }}
@media (max-width: {NARROW_BREAKPOINT_PX}px) {{
  .eg-narrow-only {{ display: block !important; }}
  .eg-wide-only {{ display: none !important; }}
  .eg-wide {{ overflow-x: auto; overflow-y: hidden; max-width: 100%; }}
  html body .eg-wide > table {{ width: max-content !important; min-width: 100%; max-width: none !important;
    margin-left: 0 !important; margin-right: 0 !important; }}
  html body .eg-wide > table > * > tr > td, html body .eg-wide > table > * > tr > th {{ min-width: 64px;
    max-width: 22em; white-space: normal !important; overflow-wrap: anywhere; }}
  html body table {{ max-width: 100%; }}
  html body table.eg-fit, html body table.eg-fit > tbody, html body table.eg-fit > tbody > tr,
  html body table.eg-fit > tbody > tr > td {{ display: block; width: auto !important; max-width: 100% !important;
    min-width: 0 !important; box-sizing: border-box; }}
  html body table.eg-fit > colgroup, html body table.eg-fit > thead {{ display: none !important; }}
  html body table.eg-fit > tbody > tr {{ border: 1px solid #ccc; margin: 0 0 0.6em; }}
  html body table.eg-fit > tbody > tr > td {{ border: none !important; border-top: 1px solid #eee !important;
    text-align: left !important; overflow-wrap: anywhere; white-space: normal !important; padding: 3px 6px; }}
  html body table.eg-fit > tbody > tr > td[data-label]::before {{ content: attr(data-label); display: block;
    font-size: 11px; font-weight: 600; color: #555; }}
  html body table.eg-results-table > tbody > tr.eg-row {{ display: flex; flex-wrap: wrap; }}
  html body table.eg-results-table > tbody > tr.eg-row > td {{ flex: 1 1 28%; }}
  html body table.eg-results-table > tbody > tr.eg-row > td:nth-child(1) {{ order: 1; }}
  html body table.eg-results-table > tbody > tr.eg-row > td:nth-child(4) {{ order: 2; }}
  html body table.eg-results-table > tbody > tr.eg-row > td:nth-child(5) {{ order: 3; }}
  html body table.eg-results-table > tbody > tr.eg-row > td:nth-child(2),
  html body table.eg-results-table > tbody > tr.eg-row > td:nth-child(3) {{ order: 4; flex-basis: 100%; }}
  html body table.eg-results-table > tbody > tr.eg-row > td:nth-child(6) {{ order: 5; flex: 1 1 60%; }}
  html body table.eg-results-table > tbody > tr.eg-row > td:nth-child(7) {{ order: 6; flex: 0 0 auto;
    min-width: 64px !important; }}
  html body table.eg-results-table > tbody > tr.eg-row > td.num {{ text-align: left !important; }}
  td.answer, td .answer, pre {{ white-space: pre-wrap !important; }}
  .eg-scroll {{ max-height: none !important; overflow: visible !important; border: none !important; }}
  .eg-pager {{ display: flex; gap: 0.8em; align-items: center; margin: 0.4em 0; }}
  .eg-pager button {{ font-size: 14px; padding: 0.3em 0.8em; }}
  .eg-controls input, .eg-controls select {{ max-width: 100%; }}
  img {{ max-width: 100% !important; height: auto !important; }}
  .jp-OutputArea-output pre, .eg-report pre {{ overflow-x: auto; max-width: 100%; }}
}}
"""

#: Closes every ``details.eg-phone-fold`` on a phone, once, as the page opens (they are open in the HTML, so a
#: reader without JavaScript, or on a wider screen, sees them whole).
PHONE_FOLD_JS = f"""
(function () {{
  if (!window.matchMedia || !window.matchMedia('(max-width: {NARROW_BREAKPOINT_PX}px)').matches) {{ return; }}
  var folds = document.querySelectorAll('details.eg-phone-fold');
  for (var i = 0; i < folds.length; i++) {{ folds[i].open = false; }}
}})();
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
