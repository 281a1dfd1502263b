#!/usr/bin/env python3
"""Checks that the documentation refers only to files that exist in the repository.

Scans README.md and every Markdown file under docs/ and reference/ for
  - Markdown links [text](target) that are not URLs: the target must exist (relative to the
    file) and a #fragment must match a heading of the target file;
  - repository paths written in backticks or plain text (`docs/problems.md`,
    `methods/qr/qr_projection.h`, ...): the path must exist relative to the repository root
    or to the file. Paths under results/ and build/ (generated), with wildcards or braces,
    are skipped.
Prints one line per broken reference and exits 1 if there is any. Usage: scripts/check_links.py
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
PATH = re.compile(r"(?<![\w./-])((?:\.\./|\./)?[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)+/?)")
TOP = {"docs", "problems", "methods", "harness", "reference", "tests", "scripts", "cmake",
       "results", "build", ".ci"}
EXTENSIONS = (".md", ".cc", ".h", ".sh", ".py", ".json", ".txt", ".csv", "CMakeLists.txt")
SKIP_PREFIXES = ("results/", "build/")


def anchors(path):
    """GitHub-style anchors of the headings of a Markdown file."""
    found = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        m = re.match(r"#+\s+(.*)", line)
        if m:
            text = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower())
            found.add(text.replace(" ", "-"))
    return found


def looks_like_repo_path(token):
    first = token.lstrip("./").split("/")[0]
    if first not in TOP and not token.startswith(("../", "./")):
        return False
    if any(c in token for c in "*{}<>"):
        return False
    return token.endswith(EXTENSIONS) or token.endswith("/")


def check(md):
    errors = []
    text = md.read_text(encoding="utf-8")
    for n, line in enumerate(text.splitlines(), 1):
        for target in LINK.findall(line):
            if re.match(r"[a-z]+:", target):
                continue
            file_part, _, fragment = target.partition("#")
            dest = (md.parent / file_part).resolve() if file_part else md
            if not dest.exists():
                errors.append(f"{md.relative_to(ROOT)}:{n}: link to missing {target}")
            elif fragment and dest.suffix == ".md" and fragment not in anchors(dest):
                errors.append(f"{md.relative_to(ROOT)}:{n}: no heading for #{fragment}")
        for token in PATH.findall(LINK.sub("", line)):
            token = token.rstrip(".,;:")
            if not looks_like_repo_path(token) or token.lstrip("./").startswith(SKIP_PREFIXES):
                continue
            if not ((ROOT / token).exists() or (md.parent / token).exists()):
                errors.append(f"{md.relative_to(ROOT)}:{n}: path {token} does not exist")
    return errors


def main():
    files = [ROOT / "README.md"] + sorted((ROOT / "docs").rglob("*.md"))
    files += sorted((ROOT / "reference").rglob("*.md"))
    errors = [e for f in files for e in check(f)]
    print("\n".join(errors) if errors else f"{len(files)} files, all references resolve")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
