#!/usr/bin/env python3
"""scripts/figures/check_docs_numbers.py: every page marker in docs/ names a measurement of
its paper's manifest (the real tree, no recipe runs), and on a tiny fixture (a manifest, a
generated page.json and a Markdown file written here) a quote that agrees with the page at
its printed precision passes while a stale one fails, naming FILE:LINE, the quote and the
page's value. The values themselves are compared after `mbbench figures all` in
scripts/nightly (the pages take minutes). usage: docs_numbers_test.py SOURCE_DIR
"""
import json
import os
import subprocess
import sys
import tempfile

SRC = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                      os.path.join(os.path.dirname(__file__), ".."))
SCRIPT = os.path.join(SRC, "scripts", "figures", "check_docs_numbers.py")
failures = []


def check(ok, message):
    if not ok:
        failures.append(message)


def run(*args):
    p = subprocess.run([sys.executable, SCRIPT] + list(args), capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


# 1. The real docs: every marker resolves against the real manifests, and there are some.
code, out = run()
check(code == 0, "markers of docs/ against scripts/figures/pages: exit %d\n%s" % (code, out))
count = int(out.rsplit("check_docs_numbers.py: ", 1)[-1].split()[0]) if "numbers checked" in out \
    else 0
check(count >= 20, "docs/ has only %d page markers (expected the quoted tables)" % count)

# 2. The fixture: a page whose measurement reads 16345.2 and whose paper text is "1.6e+04".
with tempfile.TemporaryDirectory() as tmp:
    manifests, pages, docs = (os.path.join(tmp, d) for d in ("manifests", "pages", "docs"))
    for d in (manifests, os.path.join(pages, "002"), docs):
        os.makedirs(d)
    label = "constrained scheme, dt = 5e-2"
    json.dump({"paper": "002", "entries": [{"id": "Table II", "measures": [{"label": label}]}]},
              open(os.path.join(manifests, "002.json"), "w"))
    json.dump({"paper": "002", "entries": [{"id": "Table II", "measures": [
        {"label": label, "paper": "1.6e+04", "ours": "1.635e+04", "value": 16345.2}]}]},
        open(os.path.join(pages, "002", "page.json"), "w"))
    marker = '<!-- page 002 "Table II" "%s" -->' % label
    paper_marker = '<!-- page 002 "Table II" "%s" paper -->' % label

    def write(text):
        with open(os.path.join(docs, "quotes.md"), "w") as f:
            f.write(text)

    def checker(*extra):
        return run("--docs", docs, "--manifests", manifests, *extra)

    # Agreeing quotes at several precisions, the paper's value, two markers on a line.
    write("# Quotes\n\nours 1.63e4%s and 1.6345e4 %s; 16345%s; the paper 1.6e4%s.\n"
          % (marker, marker, marker, paper_marker))
    code, out = checker("--pages", pages)
    check(code == 0, "agreeing quotes: exit %d\n%s" % (code, out))
    check("4 quoted numbers" in out, "agreeing quotes: not all 4 counted\n" + out)

    # A stale quote (1.64e4 is not 16345.2 at 3 digits) on line 3, and one of the paper's.
    write("# Quotes\n\nours 1.63e4%s,\nstale 1.64e4%s, paper 1.7e4%s\n"
          % (marker, marker, paper_marker))
    code, out = checker("--pages", pages)
    check(code == 1, "stale quote: exit %d, expected 1\n%s" % (code, out))
    check("quotes.md:4: quotes 1.64e4" in out and "16345.2" in out,
          "stale quote: message does not name quotes.md:4, 1.64e4 and 16345.2\n" + out)
    check("quotes.md:4: quotes 1.7e4" in out and "(paper)" in out,
          "stale paper quote not reported\n" + out)
    check("quotes.md:3" not in out, "the agreeing quote on line 3 was reported\n" + out)

    # A marker naming no measurement of the manifest fails even without pages.
    write("x 1.63e4<!-- page 002 \"Table II\" \"no such label\" -->\n")
    code, out = checker()
    check(code == 1 and "quotes.md:1: marker names no measurement" in out,
          "unknown marker: exit %d\n%s" % (code, out))

    # A marker with no number before it.
    write("nothing here%s\n" % marker)
    code, out = checker()
    check(code == 1 and "no number before the marker" in out, "numberless marker: %s" % out)

    # A quoted page that was not generated.
    write("ours 1.63e4%s\n" % marker)
    code, out = checker("--pages", os.path.join(tmp, "empty"))
    check(code == 1 and "was not generated" in out, "missing page: exit %d\n%s" % (code, out))

for f in failures:
    print("FAIL:", f)
print("docs_numbers_test: %d failures" % len(failures))
sys.exit(1 if failures else 0)
