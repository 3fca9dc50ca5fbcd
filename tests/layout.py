#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# layout.py - the source tree keeps the shape docs/design.md describes:
#   - no include cycle between files, nor between folders (a folder's files
#     count as one node: api/, api/ops/, storage/, ...);
#   - the folders' layering: storage/ and conf/ include nothing of the
#     project's other folders, api/ nothing of server/;
#   - no .c file over 1,200 lines; at most 3 .c files at api/'s top;
#   - no HTML in C files (the live view is real files under api/admin/ui/);
#   - README.md's layout section names every file git tracks.
# Run by `make check`; `tests/layout.py -v` prints the folder graph.
import os
import re
import subprocess
import sys

MAX_LINES = 1200
API_TOP_MAX = 3
SRC_DIRS = ("server", "api", "storage", "conf")
# Files README need not name: repository plumbing.
UNNAMED_OK = {".gitignore", ".clang-format"}


def git_files(top):
    """The project's files, and whether they come from git (a tarball,
    as in make distcheck, also holds what autotools generated)."""
    out = subprocess.run(["git", "ls-files", "--cached", "--others",
                          "--exclude-standard"], cwd=top,
                         capture_output=True, text=True)
    # A tarball unpacked inside some checkout (make distcheck in a work
    # tree) is not that checkout's top: walk it like any tarball.
    prefix = subprocess.run(["git", "rev-parse", "--show-prefix"], cwd=top,
                            capture_output=True, text=True)
    if out.returncode != 0 or prefix.stdout.strip():
        files = []
        for d, _, fs in os.walk(top):
            for f in fs:
                files.append(os.path.relpath(os.path.join(d, f), top))
        return sorted(files), False
    return sorted(set(f for f in out.stdout.split("\n")
                      if f and os.path.exists(os.path.join(top, f)))), True


def sources(files):
    return [f for f in files if f.split("/")[0] in SRC_DIRS and
            f.endswith((".c", ".h"))]


def includes(top, path):
    inc = []
    with open(os.path.join(top, path), encoding="utf-8") as fh:
        for line in fh:
            m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
            if m and m.group(1) != "config.h":
                inc.append(m.group(1))
    return inc


def find_cycle(graph):
    """A cycle in graph (dict node -> set of nodes) as a list, or None."""
    color = {}
    stack = []

    def visit(n):
        color[n] = 1
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if color.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if m not in color:
                c = visit(m)
                if c:
                    return c
        stack.pop()
        color[n] = 2
        return None

    for n in sorted(graph):
        if n not in color:
            c = visit(n)
            if c:
                return c
    return None


def main():
    top = os.environ.get("top_srcdir") or os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..")
    top = os.path.abspath(top)
    verbose = "-v" in sys.argv
    files, from_git = git_files(top)
    srcs = sources(files)
    problems = []

    fgraph, dgraph = {}, {}
    for f in srcs:
        for inc in includes(top, f):
            if inc not in srcs:
                problems.append(f"{f}: includes {inc}, not a project file")
                continue
            fgraph.setdefault(f, set()).add(inc)
            a, b = os.path.dirname(f), os.path.dirname(inc)
            if a != b:
                dgraph.setdefault(a, set()).add(b)
    c = find_cycle(fgraph)
    if c:
        problems.append("include cycle between files: " + " -> ".join(c))
    c = find_cycle(dgraph)
    if c:
        problems.append("include cycle between folders: " + " -> ".join(c))
    for d, targets in sorted(dgraph.items()):
        for t in sorted(targets):
            root_d, root_t = d.split("/")[0], t.split("/")[0]
            if root_d in ("storage", "conf") and root_t != root_d:
                problems.append(f"{d}/ includes {t}/ (storage/ and conf/ "
                                "include no other folder)")
            if root_d == "api" and root_t == "server":
                problems.append(f"{d}/ includes {t}/ (server -> api only)")
    if verbose:
        for d, targets in sorted(dgraph.items()):
            print(f"{d}/ -> " + ", ".join(t + "/" for t in sorted(targets)))

    for f in srcs:
        if not f.endswith(".c"):
            continue
        with open(os.path.join(top, f), encoding="utf-8") as fh:
            text = fh.read()
        n = text.count("\n")
        if n > MAX_LINES:
            problems.append(f"{f}: {n} lines (at most {MAX_LINES})")
        if re.search(r"<(!doctype|html|head|body|div|script|style|svg)\b", text,
                     re.IGNORECASE):
            problems.append(f"{f}: HTML in a C file")
    top_c = [f for f in srcs if f.startswith("api/") and f.count("/") == 1
             and f.endswith(".c")]
    if len(top_c) > API_TOP_MAX:
        problems.append(f"api/ has {len(top_c)} .c files at its top "
                        f"(at most {API_TOP_MAX}): {', '.join(top_c)}")

    with open(os.path.join(top, "README.md"), encoding="utf-8") as fh:
        readme = fh.read()
    m = re.search(r"^## Source code layout\n(.*?)(?=^## )", readme,
                  re.MULTILINE | re.DOTALL)
    layout = m.group(1) if m else ""
    if not layout:
        problems.append("README.md has no '## Source code layout' section")
    for f in files if from_git else []:
        if f in UNNAMED_OK:
            continue
        if f"`{f}`" not in layout and not named_in_group(f, layout):
            problems.append(f"README's layout section does not name {f}")

    for p in problems:
        print("layout: " + p)
    print(f"layout: {len(srcs)} source files, {len(problems)} problems")
    return 1 if problems else 0


def named_in_group(f, layout):
    """A file named in a group like `api/ops/`: `item.c`, `query.c` (the
    folder in backticks, then its files' base names in backticks on the
    same bullet)."""
    d, base = os.path.dirname(f), os.path.basename(f)
    for bullet in re.split(r"\n(?=- )", layout):
        if f"`{d}/" in bullet and f"`{base}`" in bullet:
            return True
    return False


if __name__ == "__main__":
    sys.exit(main())
