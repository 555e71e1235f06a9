"""A few rows at a time on a phone: the pager the answer table and "what changed" share.

On a phone every row of those views is a card several lines tall; all of them at once made the
report tens of thousands of pixels tall, and putting them in a box that scrolls on its own trapped
the reader's swipe inside it. Below the phone breakpoint a view shows
:data:`~evalgate_lib.reporting.styles.PHONE_PAGE_ROWS` of the rows its filters keep, with a pager
above and below them (*◀ previous*, "6–10 of 202", *next ▶*); on a wider screen the pager is hidden and
every row kept is shown. Every row stays reachable: the pager walks through all of them, and a link
from another view (:func:`egPager`'s ``reveal``) turns to the page holding its row.

:data:`PAGER_JS` defines ``window.egPager(root, size, onPage)`` once per page (each view embeds it; a
second copy keeps the first), plain JavaScript, nothing loaded. A view calls ``set(rows)`` with the
rows its filters keep, in order, and the pager calls ``onPage(row, shown)`` for each of them.
"""

from __future__ import annotations

from evalgate_lib.reporting.styles import NARROW_BREAKPOINT_PX

PAGER_JS = """
window.egPager = window.egPager || function (root, size, onPage) {
  var bars = root.querySelectorAll('.eg-pager');
  var narrow = window.matchMedia('(max-width: NARROW_PXpx)');
  var rows = [], page = 0;
  function per() { return narrow.matches ? size : Math.max(rows.length, 1); }
  function show() {
    var n = per(), pages = Math.max(1, Math.ceil(rows.length / n));
    page = Math.min(Math.max(page, 0), pages - 1);
    var first = page * n, last = Math.min(first + n, rows.length);
    for (var i = 0; i < rows.length; i++) { onPage(rows[i], i >= first && i < last); }
    for (var b = 0; b < bars.length; b++) {
      bars[b].querySelector('.eg-pager-at').textContent =
        rows.length ? (first + 1) + '–' + last + ' of ' + rows.length : '0 of 0';
      bars[b].querySelector('.eg-pager-prev').disabled = page === 0;
      bars[b].querySelector('.eg-pager-next').disabled = page >= pages - 1;
    }
  }
  function turn(step, bar) {
    page += step;
    show();
    if (bar !== bars[0] && bars[0].getBoundingClientRect().top < 0) { bars[0].scrollIntoView({block: 'start'}); }
  }
  Array.prototype.forEach.call(bars, function (bar) {
    bar.querySelector('.eg-pager-prev').addEventListener('click', function () { turn(-1, bar); });
    bar.querySelector('.eg-pager-next').addEventListener('click', function () { turn(1, bar); });
  });
  if (narrow.addEventListener) { narrow.addEventListener('change', show); }
  return {
    set: function (kept) { rows = kept; page = 0; show(); },
    reveal: function (row) {
      var i = rows.indexOf(row);
      if (i >= 0) { page = Math.floor(i / per()); show(); }
    }
  };
};
""".replace("NARROW_PX", str(NARROW_BREAKPOINT_PX))


def pager_html(what: str) -> str:
    """One pager bar (the views put one above their rows and one below); ``what`` names the rows ("answers")."""
    return (
        f'<div class="eg-pager" role="navigation" aria-label="pages of {what}">'
        '<button type="button" class="eg-pager-prev">◀ previous</button>'
        f'<span><b class="eg-pager-at"></b> {what}</span>'
        '<button type="button" class="eg-pager-next">next ▶</button></div>'
    )
