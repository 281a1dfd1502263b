#!/usr/bin/env python3
"""Size limits of the sources (docs/style.md, "Shape of the code"): no file above 600 lines and
no function above 120 lines outside the tests; fails naming every file and function over.

Files: every .cc and .h under harness/, methods/, problems/, conformance/, reference/, bench/
and examples/ (tests/ is not scanned). A file may exceed 600 lines only if it is listed in
EXEMPT_FILES below with its reason; an exemption whose file is gone or back under the limit
fails too, so that the list cannot outlive its reason.

Functions: a brace-matching scan, not a C++ parser. Comments, string and character literals
(raw strings included) and preprocessor lines are blanked first; then every '{' is classed
by the text between it and the previous ';', '{' or '}': `namespace` or `extern "C"` opens
a namespace, `class`/`struct`/`union`/`enum` without a ')' a class body, text with a ')' a
function body, anything else (a brace initialiser, `= {`) a block that is skipped. A
function is a function body whose enclosing scope is a namespace or a class (members
defined in the class count); lambdas and blocks inside it count as its lines. Its length
runs from the first line of its declaration (template line included, comments not) to its
closing brace. Limits of the scan: a constructor whose initialiser list uses braces
(`a_{1}`) is measured from after the last such brace, so it may read short; a function
defined inside a macro invocation's parentheses is not seen; a namespace-level brace
initialiser of a variable is skipped whole.

Usage: source_sizes.py [ROOT]      (ROOT: the source tree, default: the parent of scripts/)
       source_sizes.py --self-test (the scan on inputs that must fail and must pass)
Exit 0 when every source is within the limits, 1 otherwise (each violation on stdout).
"""
import os
import re
import sys

MAX_FILE_LINES = 600
MAX_FUNCTION_LINES = 120
SCANNED_DIRS = ("harness", "methods", "problems", "conformance", "reference", "bench", "examples")

# path (from ROOT) -> why it may exceed MAX_FILE_LINES. Catalogue data files may be listed
# here only if they are data (tables of a paper's values), never for code.
EXEMPT_FILES = {}

ACCESS = re.compile(r"\s*(public|protected|private)\s*:(?!:)")
RAW_STRING = re.compile(r'R"([^()\\ ]{0,16})\(')


def blank(text):
    """The text with comments, literals and preprocessor lines replaced by spaces (newlines
    kept, so line numbers stay)."""
    out = []
    i, n = 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c in " \t":
            out.append(c)
            i += 1
            continue
        if line_start and c == "#":  # preprocessor line, with its continuations
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    out.append("  \n")
                    i += 2
                    continue
                out.append(" ")
                i += 1
            continue
        line_start = False
        if c == "\n":
            out.append(c)
            line_start = True
            i += 1
        elif text.startswith("//", i):
            while i < n and text[i] != "\n":
                out.append(" ")
                i += 1
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
        elif RAW_STRING.match(text, i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            delim = RAW_STRING.match(text, i).group(1)
            end = text.find(")" + delim + '"', i)
            end = n if end < 0 else end + len(delim) + 2
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
        elif c in "\"'":
            if c == "'" and i > 0 and text[i - 1].isalnum():  # digit separator: 1'000
                out.append(" ")
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(" " * (min(j + 1, n) - i))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def classify(head):
    """The kind of scope a '{' opens, from the text since the previous ';', '{' or '}'."""
    if re.search(r"\bnamespace\b", head) or re.search(r'\bextern\s+"?C?"?\s*$', head):
        return "namespace"
    if re.search(r"\bextern\s*$", head.strip()):
        return "namespace"
    if ")" in head:
        return "function"
    if re.search(r"\b(class|struct|union|enum)\b", head) and "=" not in head:
        return "class"
    return "block"


def functions(text):
    """(name, first line, last line) of every function body at namespace or class level."""
    code = blank(text)
    found = []
    stack = []  # (kind, start line of the declaration, head text)
    last_delim = 0
    for i, c in enumerate(code):
        if c not in "{};":
            continue
        if c == ";":
            last_delim = i + 1
            continue
        if c == "{":
            head = code[last_delim:i]
            enclosing = stack[-1][0] if stack else "namespace"
            if enclosing in ("namespace", "class"):
                kind = classify(head)
                # An access specifier ends a class's previous declaration, not this one.
                access = ACCESS.match(head)
                offset = access.end() if access else 0
                stripped = offset + len(head[offset:]) - len(head[offset:].lstrip())
                start = code.count("\n", 0, last_delim + stripped) + 1
                words = head.split("(")[0].split()
                stack.append((kind, start, words[-1] if words else "?"))
            else:
                stack.append(("inner", 0, ""))
            last_delim = i + 1
            continue
        # c == "}"
        if stack:
            kind, start, name = stack.pop()
            enclosing = stack[-1][0] if stack else "namespace"
            if kind == "function" and enclosing in ("namespace", "class"):
                found.append((name, start, code.count("\n", 0, i) + 1))
        last_delim = i + 1
    return found


def violations(root):
    out = []
    seen_exempt = set()
    for top in SCANNED_DIRS:
        base = os.path.join(root, top)
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames[:] = sorted(d for d in dirnames if d != "tests")
            for name in sorted(filenames):
                if not name.endswith((".cc", ".h")):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                with open(path, encoding="utf-8") as f:
                    text = f.read()
                out.extend(check_text(rel, text, seen_exempt))
    for rel in sorted(set(EXEMPT_FILES) - seen_exempt):
        out.append(f"{rel}: listed in EXEMPT_FILES but not above {MAX_FILE_LINES} lines "
                   "(or gone): remove the exemption")
    return out


def check_text(rel, text, seen_exempt=None):
    out = []
    lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
    if lines > MAX_FILE_LINES:
        if rel in EXEMPT_FILES:
            if seen_exempt is not None:
                seen_exempt.add(rel)
        else:
            out.append(f"{rel}: {lines} lines (limit {MAX_FILE_LINES}): split it along its seams")
    for name, first, last in functions(text):
        length = last - first + 1
        if length > MAX_FUNCTION_LINES:
            out.append(f"{rel}:{first}: function {name} has {length} lines "
                       f"(limit {MAX_FUNCTION_LINES}): split it into named steps")
    return out


def self_test():
    """Inputs the scan must refuse and inputs it must accept; 0 if it tells them apart."""
    def body(n, indent="  "):
        return "".join(f"{indent}x += {k};\n" for k in range(n))

    long_fn = "int Long(int x) {\n" + body(MAX_FUNCTION_LINES - 1) + "}\n"  # 121 lines
    short_fn = "int Short(int x) {\n" + body(MAX_FUNCTION_LINES - 2) + "}\n"  # 120 lines
    member = ("namespace a {\nclass C {\n public:\n  int F(int x) const {\n" +
              body(MAX_FUNCTION_LINES, "    ") + "  }\n};\n}  // namespace a\n")
    braces_in_text = ('int G() {\n  // } } }\n  const char* s = "}}}{";\n  char c = \'}\';\n'
                      '  /* { */\n  auto f = [] { return 1; };\n' + body(MAX_FUNCTION_LINES) +
                      "  return f();\n}\n")
    raw = 'const char* kDoc = R"x(\n' + "}\n" * 200 + ')x";\nint H() { return 0; }\n'
    cases = [
        ("a function of 121 lines", long_fn, ["function Long has 121 lines"]),
        ("a function of 120 lines", short_fn, []),
        ("a member function defined in its class", member, ["function F has 122 lines"]),
        ("braces in comments, strings, characters and a lambda", braces_in_text,
         ["function G has"]),
        ("a raw string of 200 closing braces", raw, []),
        ("a file of 601 lines", "\n" * (MAX_FILE_LINES + 1), ["601 lines"]),
        ("a file of 600 lines", "\n" * MAX_FILE_LINES, []),
    ]
    failed = 0
    for what, text, expected in cases:
        got = check_text("input.cc", text)
        ok = len(got) == len(expected) and all(e in g for e, g in zip(expected, got))
        print(("ok   " if ok else "FAIL ") + what + (": " + "; ".join(got) if got else ""))
        failed += 0 if ok else 1
    return 1 if failed else 0


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--self-test":
        return self_test()
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(
        os.path.dirname(os.path.abspath(__file__)))
    found = violations(root)
    for line in found:
        print(line)
    if not found:
        print(f"every source within {MAX_FILE_LINES} lines per file and "
              f"{MAX_FUNCTION_LINES} per function ({len(EXEMPT_FILES)} file(s) exempt)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
