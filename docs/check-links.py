#!/usr/bin/env python3
"""Every relative link and image in README.md and docs/*.md must name a file that exists
(and, for links with a #fragment into a Markdown file, a heading that exists there).
Run from the repository root; exits 1 and lists what does not resolve."""
import pathlib
import re
import sys

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def anchors(markdown: pathlib.Path) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens."""
    found = set()
    for line in markdown.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            found.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return found


def main() -> int:
    root = pathlib.Path(".")
    pages = [root / "README.md", *sorted((root / "docs").glob("*.md")), *sorted(root.glob("*/README.md"))]
    broken = []
    for page in pages:
        text = page.read_text(encoding="utf-8")
        text = re.sub(r"```.*?```", "", text, flags=re.S)  # code blocks hold no links
        for target in LINK.findall(text):
            if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                continue  # web addresses, and anchors in the same page
            path, _, fragment = target.partition("#")
            resolved = (page.parent / path).resolve()
            if not resolved.exists():
                broken.append(f"{page}: {target}: no such file")
            elif fragment and resolved.suffix == ".md" and fragment not in anchors(resolved):
                broken.append(f"{page}: {target}: no heading #{fragment} in {path}")
    for line in broken:
        print(line)
    print(f"{len(pages)} pages checked, {len(broken)} broken links")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
