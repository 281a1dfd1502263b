#!/usr/bin/env python3
"""Every figure and table that docs/reproduction.md names has an entry in its paper's page
manifest (scripts/figures/pages/NNN.json), every judged measurement says why its rule holds,
and page.py computes the verdicts of a tiny fixture manifest (tests/fixtures/figure_page)
correctly. Cheap: no recipe runs. usage: figure_pages_test.py SOURCE_DIR
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

SRC = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                      os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(SRC, "scripts", "figures"))
import page  # noqa: E402
import reproduction_items  # noqa: E402

failures = []


def check(ok, message):
    if not ok:
        failures.append(message)


# 1. Coverage of docs/reproduction.md by the manifests.
named = reproduction_items.items(os.path.join(SRC, "docs", "reproduction.md"))
check(sorted(named) == ["000", "001", "002", "003", "004"],
      "docs/reproduction.md sections: %s" % sorted(named))
KINDS = {"rel", "factor", "abs", "le", "lt", "ge", "gt", "range", "eq", "ne", "shown"}
for paper, items in sorted(named.items()):
    path = os.path.join(SRC, "scripts", "figures", "pages", paper + ".json")
    if not os.path.exists(path):
        check(False, "%s: no manifest %s" % (paper, path))
        continue
    manifest = json.load(open(path))
    check(manifest.get("paper") == paper, "%s: manifest says paper %r" % (paper, manifest.get("paper")))
    covered = [c for e in manifest["entries"] for c in e["covers"]]
    for item in items:
        check(item in covered, "%s: %s named in docs/reproduction.md has no page entry" % (paper, item))
    check(len(covered) == len(set(covered)), "%s: an item is covered twice: %s" % (paper, covered))
    for e in manifest["entries"]:
        judged = [m for m in e.get("measures", []) if m["rule"]["kind"] != "shown"]
        check(judged or e.get("not_covered"),
              "%s %s: no judged measurement and no not_covered reason" % (paper, e["id"]))
        for m in e.get("measures", []):
            check(m["rule"]["kind"] in KINDS, "%s %s: rule %r" % (paper, e["id"], m["rule"]))
            check(m["rule"]["kind"] == "shown" or m.get("why"),
                  "%s %s %s: a judged measurement without its why" % (paper, e["id"], m["label"]))
            check("value" in m and "paper" in m, "%s %s %s: value or paper missing"
                  % (paper, e["id"], m["label"]))
    # The figure entries come in the paper's order.
    numbers = [int(c.split()[1]) for e in manifest["entries"] for c in e["covers"]
               if c.startswith("Fig ")]
    check(numbers == sorted(numbers), "%s: figures out of the paper's order: %s" % (paper, numbers))

# 2. A page rendered from the fixture: verdicts computed from its numbers.
fixture = os.path.join(SRC, "tests", "fixtures", "figure_page")
with tempfile.TemporaryDirectory() as out:
    for name in ("run.json", "series.csv"):
        shutil.copy(os.path.join(fixture, name), out)
    open(os.path.join(out, "plot.png"), "wb").write(b"\x89PNG\r\n\x1a\n")
    rc = subprocess.run([sys.executable, os.path.join(SRC, "scripts", "figures", "page.py"), "999",
                         out, os.path.join(fixture, "manifest.json")], capture_output=True,
                        text=True)
    check(rc.returncode == 0, "page.py failed: " + rc.stderr)
    result = json.load(open(os.path.join(out, "page.json")))
    verdicts = {e["id"]: e for e in result["entries"]}
    check(verdicts["Fig 1"]["verdict"] == "reproduced", "Fig 1: %s" % verdicts["Fig 1"])
    check(verdicts["Fig 2"]["verdict"] == "differs", "Fig 2: %s" % verdicts["Fig 2"])
    check("-49" in verdicts["Fig 2"]["verdict_text"] and "3, outside [0, 1]" in
          verdicts["Fig 2"]["verdict_text"], "Fig 2 text: %s" % verdicts["Fig 2"]["verdict_text"])
    check(verdicts["Table I"]["verdict"] == "not covered", "Table I: %s" % verdicts["Table I"])
    check(verdicts["Fig 3"]["verdict"] == "not run", "Fig 3: %s" % verdicts["Fig 3"])
    html = open(os.path.join(out, "index.html")).read()
    check("<img src='plot.png'" in html, "index.html lacks the image")
    check("image not produced: missing.png" in html, "index.html hides a missing image")
    check("the fixture&#x27;s reason" in html or "the fixture's reason" in html,
          "index.html lacks the reason of a difference")
    readme = open(os.path.join(out, "README.md")).read()
    check("![plot.png](plot.png)" in readme and "differs" in readme, "README.md incomplete")

# 3. The rules themselves.
check(page.judge({"kind": "rel", "ref": 2.0, "tol": 0.1}, 2.1)[0], "rel within")
check(not page.judge({"kind": "rel", "ref": 2.0, "tol": 0.01}, 2.1)[0], "rel outside")
check(page.judge({"kind": "factor", "ref": 100, "tol": 1.5}, 140)[0], "factor within")
check(not page.judge({"kind": "factor", "ref": 100, "tol": 1.5}, 151)[0], "factor outside")
check(page.judge({"kind": "ne", "ref": "ok"}, "unstable")[0], "ne")
check(page.judge({"kind": "shown"}, 1)[0] is None, "shown is not judged")
check(page.evaluate_expr("sin(a) + b", {"a": "0", "b": "2", "c": ""}) == 2.0, "expr")

for f in failures:
    print("FAIL:", f)
print("figure_pages_test: %d failure(s)" % len(failures))
sys.exit(1 if failures else 0)
