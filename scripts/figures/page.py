#!/usr/bin/env python3
"""The reproduction page of one paper: OUT/index.html, OUT/README.md and OUT/page.json.

usage: page.py PAPER OUT_DIR [MANIFEST]
  PAPER     000 ... 004
  OUT_DIR   the paper's figure directory (results/figures/PAPER), where its recipes wrote
  MANIFEST  default scripts/figures/pages/PAPER.json

`mbbench figures PAPER` calls this after the paper's recipes. The manifest lists every figure
and table of the paper that docs/reproduction.md names, in the paper's order (an entry's
`covers` names them: "Fig 3", "Table II"), each with our picture(s), the paper's value or
description and the measurements that judge it. Every verdict is computed here from the
numbers the run wrote, never typed in the manifest:

  measurement  {"label", "paper" (the paper's value as text), "value" (where ours is read),
                "rule" (how the two are compared), "why" (why that rule and tolerance)}
  value        {"json": FILE, "key": "metrics.a.b"}          a number or string of a result
               {"csv": FILE, "column": C, "agg": A}          A: min, max, max_abs, last, first,
                                                             count, sign_changes,
                                                             sign_change_episodes (changes
                                                             closer than "gap" s in t: one),
                                                             changes (of the value), change_at
                                                             (the "x" column, default t, at
                                                             change "n")
                 optional "where": {"column", "lo", "hi"} keeps rows with lo <= column <= hi;
                 "expr" in place of "column": a formula of the row's columns (math functions)
               {"regex": FILE, "pattern": P}                 group 1 of the first match
               {"ratio": [VALUE, VALUE]}                     the first over the second
               {"norm": VALUE}                               Euclidean norm of a list
               {"absdiff": [VALUE, VALUE]}                   |first - second|
               {"has": VALUE, "text": T}                     "yes" when T is in the value (a
                                                             string, or one of a list's), else "no"
               FILE may be a glob (the first match, sorted, is used).
  rule         {"kind": "rel", "ref": X, "tol": T}   |ours - X| <= T |X|
               {"kind": "factor", "ref": X, "tol": F} X / F <= ours <= X F
               {"kind": "abs", "ref": X, "tol": T}   |ours - X| <= T
               {"kind": "le"|"lt"|"ge"|"gt", "ref": X}
               {"kind": "range", "lo": A, "hi": B}   A <= ours <= B
               {"kind": "eq"|"ne", "ref": X}         equal / not equal (numbers or strings)
               {"kind": "shown"}                     shown beside the paper's, not judged
An entry is "reproduced" when every judged measurement passes, "differs" (with each failing
measurement's difference) when one fails, "not covered" when it has no judged measurement
(the manifest says why) and "not run" when a value's file is missing. The entry's
`difference` text (the reason for a difference) is shown only when the verdict differs.
page.json holds each entry's verdict and each measurement's paper text, our value as printed
("ours") and as read ("value"), which check_docs_numbers.py compares with the numbers docs/
quotes from the page.
"""
import csv
import glob
import html
import json
import math
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


class Missing(Exception):
    """A value's file (or its key) is not there: the run did not happen."""


def first_file(out, pattern):
    files = sorted(f for f in glob.glob(os.path.join(out, pattern))
                   if os.path.basename(f) not in ("index.json", "page.json"))
    if not files:
        raise Missing(pattern)
    return files[0]


def evaluate_expr(expr, row):
    """expr (Python syntax, math's functions) over one CSV row's numeric columns."""
    names = {k: v for k, v in vars(math).items() if not k.startswith("_")}
    for key, text in row.items():
        try:
            names[key] = float(text)
        except (TypeError, ValueError):
            pass
    return float(eval(expr, {"__builtins__": {}}, names))  # manifests are the suite's own


def read_value(out, spec):
    if "ratio" in spec:
        a, b = (read_value(out, x) for x in spec["ratio"])
        return a / b if b else float("inf")
    if "absdiff" in spec:
        a, b = (read_value(out, x) for x in spec["absdiff"])
        return abs(a - b)
    if "has" in spec:
        value = read_value(out, spec["has"])
        items = value if isinstance(value, list) else [value]
        return "yes" if any(spec["text"] in str(x) for x in items) else "no"
    if "norm" in spec:
        return math.sqrt(sum(float(x) ** 2 for x in read_value(out, spec["norm"])))
    if "json" in spec:
        path = first_file(out, spec["json"])
        with open(path) as f:
            value = json.load(f)
        for key in spec["key"].split("."):
            if isinstance(value, list) and key.isdigit():
                value = value[int(key)] if int(key) < len(value) else None
            elif isinstance(value, dict):
                value = value.get(key)
            else:
                value = None
            if value is None:
                raise Missing("%s: %s" % (spec["json"], spec["key"]))
        return value
    if "csv" in spec:
        path = first_file(out, spec["csv"])
        with open(path) as f:
            rows = list(csv.DictReader(f))
        column = spec.get("column", spec.get("expr"))
        where = spec.get("where")
        xcol = spec.get("x", "t")
        values, times = [], []
        for row in rows:
            try:
                v = evaluate_expr(spec["expr"], row) if "expr" in spec else float(row[column])
                t = float(row.get(xcol, "nan"))
                if where and not where["lo"] <= float(row[where["column"]]) <= where["hi"]:
                    continue
            except (KeyError, TypeError, ValueError):
                continue
            if not math.isnan(v):
                values.append(v)
                times.append(t)
        if not values:
            raise Missing("%s: column %s" % (spec["csv"], column))
        agg = spec.get("agg", "last")
        if agg == "min":
            return min(values)
        if agg == "max":
            return max(values)
        if agg == "max_abs":
            return max(abs(v) for v in values)
        if agg == "first":
            return values[0]
        if agg == "count":
            return len(values)
        if agg == "sign_changes":
            signs = [v > 0 for v in values if v != 0]
            return sum(1 for a, b in zip(signs, signs[1:]) if a != b)
        if agg == "changes":
            return sum(1 for a, b in zip(values, values[1:]) if a != b)
        if agg == "change_at":  # x of the n-th (0-based) change of the column's value
            at = [times[i] for i in range(1, len(values)) if values[i] != values[i - 1]]
            if len(at) <= spec.get("n", 0):
                raise Missing("%s: change %d of %s" % (spec["csv"], spec.get("n", 0), column))
            return at[spec.get("n", 0)]
        if agg == "sign_change_episodes":  # runs of sign changes closer than `gap` in t
            changes = [times[i] for i in range(1, len(values))
                       if (values[i] > 0) != (values[i - 1] > 0)]
            gap = spec.get("gap", 0.01)
            return sum(1 for i, t in enumerate(changes) if i == 0 or t - changes[i - 1] > gap)
        return values[-1]
    if "regex" in spec:
        path = first_file(out, spec["regex"])
        with open(path) as f:
            match = re.search(spec["pattern"], f.read(), re.M)
        if not match:
            raise Missing("%s: /%s/" % (spec["regex"], spec["pattern"]))
        text = match.group(1)
        try:
            return float(text)
        except ValueError:
            return text
    raise ValueError("value spec without json/csv/regex: %r" % (spec,))


def fmt(x, spec=None):
    if isinstance(x, bool) or x is None:
        return str(x)
    if isinstance(x, (int, float)):
        if spec:
            return spec % x
        if isinstance(x, int) or (float(x).is_integer() and abs(x) < 1e9):
            return "%d" % x
        return "%.4g" % x
    return str(x)


def judge(rule, ours):
    """(passed or None when not judged, text of the comparison)."""
    kind = rule["kind"]
    if kind == "shown":
        return None, "shown, not judged"
    if kind == "eq":
        ok = ours == rule["ref"]
        return ok, "equal" if ok else "%s instead of %s" % (fmt(ours), fmt(rule["ref"]))
    if kind == "ne":
        ok = ours != rule["ref"]
        return ok, "%s, not %s" % (fmt(ours), fmt(rule["ref"])) if ok else "%s" % fmt(ours)
    if not isinstance(ours, (int, float)) or isinstance(ours, bool):
        return False, "not a number: %s" % ours
    if math.isnan(ours):
        return False, "NaN"
    if kind == "rel":
        ref, tol = rule["ref"], rule["tol"]
        d = (ours - ref) / abs(ref)
        ok = abs(d) <= tol
        return ok, "%+.3g %% (tolerance %g %%)" % (100 * d, 100 * tol) if ok else \
            "differs by %+.3g %% (tolerance %g %%)" % (100 * d, 100 * tol)
    if kind == "factor":
        ref, f = rule["ref"], rule["tol"]
        ratio = ours / ref if ref else float("inf")
        ok = ratio > 0 and 1 / f <= ratio <= f
        return ok, ("ratio %.3g (within a factor %g)" if ok else
                    "differs by a factor %.3g (allowed %g)") % (ratio, f)
    if kind == "abs":
        ref, tol = rule["ref"], rule["tol"]
        d = ours - ref
        ok = abs(d) <= tol
        return ok, ("%+.3g (tolerance %g)" if ok else "differs by %+.3g (tolerance %g)") % (d, tol)
    if kind in ("le", "lt", "ge", "gt"):
        ref = rule["ref"]
        ok = {"le": ours <= ref, "lt": ours < ref, "ge": ours >= ref, "gt": ours > ref}[kind]
        sym = {"le": "<=", "lt": "<", "ge": ">=", "gt": ">"}[kind]
        return ok, ("%s %s %s" % (fmt(ours), sym, fmt(ref))) if ok else \
            "%s, not %s %s" % (fmt(ours), sym, fmt(ref))
    if kind == "range":
        lo, hi = rule["lo"], rule["hi"]
        ok = lo <= ours <= hi
        return ok, ("%s in [%s, %s]" if ok else "%s, outside [%s, %s]") % (fmt(ours), fmt(lo), fmt(hi))
    raise ValueError("unknown rule kind %r" % kind)


def evaluate(manifest, out):
    """The manifest's entries with each measurement's value and verdict and the entry's."""
    entries = []
    for entry in manifest["entries"]:
        e = dict(entry)
        e["images_found"] = []
        for pattern in entry.get("images", []):
            found = sorted(glob.glob(os.path.join(out, pattern)))
            e["images_found"] += [(os.path.relpath(f, out), True) for f in found] or \
                [(pattern, False)]
        rows, failures, judged, missing = [], [], 0, []
        for m in entry.get("measures", []):
            row = dict(m)
            try:
                ours = read_value(out, m["value"])
                row["ours"], row["value_read"] = fmt(ours, m.get("format")), ours
                passed, text = judge(m["rule"], ours)
            except Missing as why:
                row["ours"] = "(not run)"
                passed, text = None, "missing: %s" % why
                if m["rule"]["kind"] != "shown":
                    missing.append(str(why))
            row["passed"], row["comparison"] = passed, text
            if passed is not None:
                judged += 1
                if not passed:
                    failures.append("%s: %s" % (m["label"], text))
            rows.append(row)
        e["rows"] = rows
        if missing:
            e["verdict"], e["verdict_text"] = "not run", "not run (missing: %s)" % "; ".join(missing)
        elif judged == 0:
            e["verdict"] = "not covered"
            e["verdict_text"] = "not covered" + (": " + entry["not_covered"]
                                                 if entry.get("not_covered") else "")
        elif failures:
            e["verdict"] = "differs"
            e["verdict_text"] = "differs: " + "; ".join(failures)
        else:
            e["verdict"], e["verdict_text"] = "reproduced", "reproduced (%d of %d judged " \
                "measurements within their tolerance)" % (judged, judged)
        entries.append(e)
    return entries


def commit():
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, cwd=HERE).stdout.strip() or "unknown"
    except OSError:
        return "unknown"


COLOURS = {"reproduced": "#d8f0d8", "differs": "#f8d8d0", "not covered": "#e8e8e8",
           "not run": "#f0e8c0"}


def counts(entries):
    c = {}
    for e in entries:
        c[e["verdict"]] = c.get(e["verdict"], 0) + 1
    return ", ".join("%d %s" % (n, v) for v, n in sorted(c.items()))


def rule_text(m):
    r = m["rule"]
    k = r["kind"]
    fmt = lambda x: ("%.7g" % x) if isinstance(x, float) else globals()["fmt"](x)  # noqa: E731
    text = {"rel": lambda: "within %g %% of %s" % (100 * r["tol"], fmt(r["ref"])),
            "factor": lambda: "within a factor %g of %s" % (r["tol"], fmt(r["ref"])),
            "abs": lambda: "within %g of %s" % (r["tol"], fmt(r["ref"])),
            "le": lambda: "<= %s" % fmt(r["ref"]), "lt": lambda: "< %s" % fmt(r["ref"]),
            "ge": lambda: ">= %s" % fmt(r["ref"]), "gt": lambda: "> %s" % fmt(r["ref"]),
            "range": lambda: "in [%s, %s]" % (fmt(r["lo"]), fmt(r["hi"])),
            "eq": lambda: "= %s" % fmt(r["ref"]), "ne": lambda: "not %s" % fmt(r["ref"]),
            "shown": lambda: "not judged"}[k]()
    return text + ("; " + m["why"] if m.get("why") else "")


def write_html(manifest, entries, out):
    esc = html.escape
    p = ["<!DOCTYPE html>", "<html><head><meta charset='utf-8'>",
         "<title>Paper %s reproduction</title>" % esc(manifest["paper"]),
         "<style>body{font-family:sans-serif;max-width:1150px;margin:1em auto;padding:0 1em}"
         "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #aaa;padding:3px 6px;"
         "vertical-align:top;font-size:90%}img{max-width:100%;border:1px solid #ccc;margin:4px 0}"
         ".v{padding:4px 8px;font-weight:bold}.entry{border-top:2px solid #444;margin-top:1.5em}"
         ".missing{color:#a00}</style></head><body>",
         "<h1>Paper %s: %s</h1>" % (esc(manifest["paper"]), esc(manifest["title"])),
         "<p>Generated by <code>mbbench figures %s</code> (scripts/figures/page.py, manifest "
         "scripts/figures/pages/%s.json) at commit %s. Every verdict is computed from the "
         "numbers of this run by the rule shown beside it.</p>" % (
             esc(manifest["paper"]), esc(manifest["paper"]), esc(commit())),
         "<p>%s</p>" % esc(manifest.get("intro", "")),
         "<p><b>Summary:</b> %s.</p>" % esc(counts(entries)),
         "<table><tr><th>paper item</th><th>title</th><th>verdict</th></tr>"]
    for e in entries:
        p.append("<tr><td><a href='#%s'>%s</a></td><td>%s</td><td style='background:%s'>%s</td>"
                 "</tr>" % (esc(anchor(e)), esc(e["id"]), esc(e["title"]),
                            COLOURS[e["verdict"]], esc(e["verdict"])))
    p.append("</table>")
    for e in entries:
        p.append("<div class='entry' id='%s'><h2>%s: %s</h2>" % (esc(anchor(e)), esc(e["id"]),
                                                                 esc(e["title"])))
        p.append("<p><b>Paper:</b> %s</p>" % esc(e["paper"]))
        if e.get("ours"):
            p.append("<p><b>Ours:</b> %s</p>" % esc(e["ours"]))
        p.append("<p class='v' style='background:%s'>Verdict: %s</p>" % (
            COLOURS[e["verdict"]], esc(e["verdict_text"])))
        if e["verdict"] == "differs" and e.get("difference"):
            p.append("<p><b>Why it differs:</b> %s</p>" % esc(e["difference"]))
        if e.get("note"):
            p.append("<p><b>Note:</b> %s</p>" % esc(e["note"]))
        if e["rows"]:
            p.append("<table><tr><th>quantity</th><th>paper</th><th>ours</th><th>rule (why)</th>"
                     "<th>comparison</th></tr>")
            for r in e["rows"]:
                colour = {True: COLOURS["reproduced"], False: COLOURS["differs"],
                          None: "#fff"}[r["passed"]]
                p.append("<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td>"
                         "<td style='background:%s'>%s</td></tr>" % (
                             esc(r["label"]), esc(r["paper"]), esc(r["ours"]), esc(rule_text(r)),
                             colour, esc(r["comparison"])))
            p.append("</table>")
        for src, ok in e["images_found"]:
            p.append("<div><img src='%s' alt='%s'></div>" % (esc(src), esc(src)) if ok else
                     "<p class='missing'>image not produced: %s</p>" % esc(src))
        for link in e.get("links", []):
            p.append("<p>Data: <a href='%s'>%s</a></p>" % (esc(link), esc(link)))
        p.append("</div>")
    p.append("</body></html>")
    with open(os.path.join(out, "index.html"), "w") as f:
        f.write("\n".join(p) + "\n")


def anchor(e):
    return re.sub(r"[^A-Za-z0-9]+", "-", e["id"]).strip("-").lower()


def md_cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def write_markdown(manifest, entries, out):
    L = ["# Paper %s: %s" % (manifest["paper"], manifest["title"]), "",
         "Generated by `mbbench figures %s` (scripts/figures/page.py, manifest "
         "scripts/figures/pages/%s.json) at commit %s; the same content as index.html. Every "
         "verdict is computed from the numbers of this run." % (manifest["paper"],
                                                                manifest["paper"], commit()), "",
         manifest.get("intro", ""), "", "Summary: %s." % counts(entries), "",
         "| paper item | title | verdict |", "|---|---|---|"]
    for e in entries:
        L.append("| %s | %s | %s |" % (md_cell(e["id"]), md_cell(e["title"]),
                                       md_cell(e["verdict_text"])))
    for e in entries:
        L += ["", "## %s: %s" % (e["id"], e["title"]), "", "Paper: " + e["paper"], ""]
        if e.get("ours"):
            L += ["Ours: " + e["ours"], ""]
        L += ["Verdict: **%s**" % e["verdict_text"], ""]
        if e["verdict"] == "differs" and e.get("difference"):
            L += ["Why it differs: " + e["difference"], ""]
        if e.get("note"):
            L += ["Note: " + e["note"], ""]
        if e["rows"]:
            L += ["| quantity | paper | ours | rule (why) | comparison |", "|---|---|---|---|---|"]
            for r in e["rows"]:
                L.append("| %s | %s | %s | %s | %s |" % tuple(md_cell(x) for x in (
                    r["label"], r["paper"], r["ours"], rule_text(r), r["comparison"])))
            L.append("")
        for src, ok in e["images_found"]:
            L.append("![%s](%s)" % (src, src) if ok else "(image not produced: %s)" % src)
        for link in e.get("links", []):
            L.append("Data: [%s](%s)" % (link, link))
    with open(os.path.join(out, "README.md"), "w") as f:
        f.write("\n".join(L) + "\n")


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    paper, out = argv[1], argv[2]
    path = argv[3] if len(argv) > 3 else os.path.join(HERE, "pages", paper + ".json")
    with open(path) as f:
        manifest = json.load(f)
    os.makedirs(out, exist_ok=True)
    entries = evaluate(manifest, out)
    write_html(manifest, entries, out)
    write_markdown(manifest, entries, out)
    with open(os.path.join(out, "page.json"), "w") as f:
        json.dump({"schema": "mbbench.page/1", "paper": manifest["paper"], "commit": commit(),
                   "entries": [{"id": e["id"], "covers": e["covers"], "verdict": e["verdict"],
                                "verdict_text": e["verdict_text"],
                                "measures": [{"label": r["label"], "paper": r["paper"],
                                              "ours": r["ours"], "value": r.get("value_read"),
                                              "passed": r["passed"]}
                                             for r in e["rows"]]} for e in entries]},
                  f, indent=1)
    print("page.py: wrote %s (%s)" % (os.path.join(out, "index.html"), counts(entries)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
