"""Gold evidence copied from HTML pages as a browser renders them: each matrix set's ``gold.jsonl``.

For every page of a set under ``tests/data/html-docs/<set>/corpus`` this opens the page in
headless Chromium (Debian's ``chromium`` and ``chromium-driver``, through selenium), takes the
rendered text (``innerText``: what a reader selects and copies) of the paragraphs, list items
and definitions of its main content that hold an inline element (a link, a code span, emphasis …),
whitespace-normalised, and writes up to three of them per page as gold questions whose
evidence is that text (its first sentence). ``tests/test_html_documents.py`` checks that ``gold
check`` finds every one in the article EvalGate reads from the page, and, where Chromium is
installed, that the browser still renders each one exactly so.

    .venv/bin/python scripts/html_browser_evidence.py            # every set
    .venv/bin/python scripts/html_browser_evidence.py texinfo-mpfr
"""

from __future__ import annotations

import gzip
import json
import re
import sys
import tempfile
import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SETS = ROOT / "tests" / "data" / "html-docs"
PER_PAGE = 3
MIN_WORDS = 6
MAX_CHARS = 220

#: innerText of the blocks worth copying: inside the content, outside navigation, holding an inline element, no
#: line break, superscript or nested block inside (their rendered text is not one line).
_SCRIPT = """
const root = document.querySelector(arguments[0]) || document.body;
const nav = arguments[1];
const out = [];
for (const el of root.querySelectorAll('p, li, dd')) {
  if (nav.some(s => el.closest(s))) continue;
  if (el.querySelector('br, sup, sub, p, ul, ol, pre, div, dl, table, blockquote')) continue;
  if (!el.querySelector('a, code, em, strong, var, samp, tt, b, i, kbd, span')) continue;
  out.push(el.innerText);
}
return out;
"""


def page_id(path: Path) -> str:
    """The article id EvalGate gives a page: its file name without ``.html`` / ``.htm`` (and ``.gz``)."""
    return re.sub(r"\.html?$", "", path.name.removesuffix(".gz"))


def first_sentence(text: str) -> str:
    """The text's first sentence (a ``.`` before a space and a capital), else the text, cut at a word within
    :data:`MAX_CHARS`."""
    found = re.search(r"(?<=[a-z)\]])\.\s+(?=[A-Z])", text)
    if found and len(text[: found.start() + 1].split()) >= MIN_WORDS:
        text = text[: found.start() + 1]
    if len(text) > MAX_CHARS:
        text = text[:MAX_CHARS].rsplit(" ", 1)[0]
    return text


def rendered_blocks(driver: Any, page: Path, content: str, navigation: list[str]) -> list[str]:
    """The whitespace-normalised rendered text of the page's copyable blocks, in page order."""
    with tempfile.TemporaryDirectory() as folder:
        if page.name.endswith(".gz"):  # a browser shows a .html.gz file as a download, not a page
            shown = Path(folder) / page.name.removesuffix(".gz")
            shown.write_bytes(gzip.decompress(page.read_bytes()))
        else:
            shown = page
        driver.get(shown.resolve().as_uri())
        if driver.current_url.split("#")[0] != shown.resolve().as_uri():
            return []  # a page that redirects the browser elsewhere (EvalGate skips it: no reader sees it)
        texts = driver.execute_script(_SCRIPT, content, navigation)
    normalised = [" ".join(text.split()) for text in texts]
    return [text for text in normalised if len(text.split()) >= MIN_WORDS]


def page_evidence(driver: Any, page: Path, content: str, navigation: list[str]) -> list[str]:
    """Up to :data:`PER_PAGE` evidence strings of one page: the first sentences of its first, middle and last blocks."""
    blocks = rendered_blocks(driver, page, content, navigation)
    if len(blocks) > PER_PAGE:
        step = (len(blocks) - 1) / (PER_PAGE - 1)
        blocks = [blocks[round(i * step)] for i in range(PER_PAGE)]
    return list(dict.fromkeys(first_sentence(block) for block in blocks))


def set_questions(driver: Any, folder: Path) -> list[dict[str, Any]]:
    """The gold questions of one set: one per evidence string, its accept string the evidence's longest word."""
    spec = tomllib.loads((folder / "set.toml").read_text(encoding="utf-8"))
    questions = []
    for page in sorted((folder / "corpus").iterdir()):
        for n, evidence in enumerate(page_evidence(driver, page, spec["content"], spec["navigation"]), 1):
            word = max(re.findall(r"[A-Za-z][\w-]*", evidence), key=len)
            questions.append(
                {
                    "id": f"{page_id(page)}-{n}",
                    "question": f"What does the page {page_id(page)} say (rendered block {n})?",
                    "type": "answerable",
                    "article": page_id(page),
                    "accept": [word],
                    "evidence": [evidence],
                    "note": "evidence: Chromium's innerText of the page, whitespace-normalised "
                    "(scripts/html_browser_evidence.py)",
                }
            )
    return questions


def chromium() -> Any:
    """Headless Debian Chromium through selenium."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def main(names: list[str]) -> int:
    folders = [SETS / name for name in names] if names else sorted(p for p in SETS.iterdir() if p.is_dir())
    driver = chromium()
    try:
        for folder in folders:
            questions = set_questions(driver, folder)
            lines = "".join(json.dumps(q, ensure_ascii=False) + "\n" for q in questions)
            (folder / "gold.jsonl").write_text(lines, encoding="utf-8")
            print(f"{folder.name}: {len(questions)} evidence strings from the rendered pages")
    finally:
        driver.quit()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
