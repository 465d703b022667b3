"""Every relative link in README.md and docs/ leads somewhere: to a file
that exists and, for a #anchor, to a heading of that page. A page moved or
a heading renamed breaks the links to it; this says which, where."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])

FENCE = re.compile(r"^ *(```|~~~).*?^ *\1", re.S | re.M)
CODE_SPAN = re.compile(r"(`+).+?\1", re.S)
INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s.*)?$", re.M)
HEADING = re.compile(r"^ {0,3}#{1,6}\s+(.+?)\s*#*\s*$", re.M)
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)  # https:, mailto:, ...


def blank(match: re.Match) -> str:
    return re.sub(r"[^\n]", " ", match.group(0))


def prose(text: str) -> str:
    """The text with code blocks and code spans blanked: a link shown as
    code is not one. Newlines are kept, so line numbers hold."""
    return CODE_SPAN.sub(blank, FENCE.sub(blank, text))


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: its text in lower case, punctuation
    (backticks included) dropped, spaces made hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link in a heading: its text
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    seen: dict[str, int] = {}
    found = set()
    for heading in HEADING.findall(FENCE.sub(blank, page.read_text())):  # a code span stays: `x` is x
        base = slug(heading)
        n = seen.get(base, 0)
        seen[base] = n + 1
        found.add(base if n == 0 else f"{base}-{n}")
    return found


def links(page: Path) -> list[tuple[int, str]]:
    text = prose(page.read_text())
    found = [(m.start(), m.group(1)) for m in INLINE_LINK.finditer(text)]
    found += [(m.start(), m.group(1)) for m in REFERENCE.finditer(text)]
    return [(text.count("\n", 0, at) + 1, target) for at, target in sorted(found)]


def broken(page: Path, root: Path = ROOT) -> list[str]:
    problems = []
    for line, target in links(page):
        if EXTERNAL.match(target):
            continue
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        where = f"{page.relative_to(root)}:{line}: ({target})"
        if not dest.exists():
            problems.append(f"{where} no such file")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            problems.append(f"{where} {dest.relative_to(root)} has no heading #{anchor}")
    return problems


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_every_relative_link_leads_to_a_file_and_heading(page):
    problems = broken(page)
    assert not problems, "broken links:\n" + "\n".join(problems)


def test_the_checker_sees_links_and_headings(tmp_path):
    """The checker itself: a link it cannot see is one it cannot find broken."""
    (tmp_path / "b.md").write_text("# B page\n\n## Cells: past one Redis\n\n```\n# not a heading\n```\n")
    page = tmp_path / "a.md"
    page.write_text("# A\n\nSee [b](b.md#cells-past-one-redis), [the\nlink](b.md#not-a-heading),\n"
                    "[gone](c.md), ![pic](b.md), `[code](nowhere.md)`, [web](https://example.com)\n")
    assert broken(page, tmp_path) == ["a.md:3: (b.md#not-a-heading) b.md has no heading #not-a-heading",
                                      "a.md:5: (c.md) no such file"]
