#!/usr/bin/python3
"""check-function-size.py BUILD_DIR FILE...: clang-tidy's readability-function-size
(.clang-tidy: at most 80 lines) over FILE..., with the compile commands of BUILD_DIR.

Why a cache: clang-tidy parses every header a file includes (Eigen, TOML++, JSON), about
2.4 s a file, 150 files, three minutes of every test run for a verdict that rarely
changes. Its verdict on a file is a function of three things only: what the file is
after preprocessing (clang++ -E -C with the file's own compile flags, so comments, and
with them NOLINT and every line count, are part of it), the configuration (.clang-tidy)
and the tool (clang-tidy --version). A pass is remembered under the SHA-256 of the
three, in ${XDG_CACHE_HOME:-~/.cache}/ablate/function-size/; a file whose hash has a
pass is not parsed again, every other file is. A failure is never remembered.
Preprocessing costs about a tenth of the check.

Exit status 1 when a file fails (clang-tidy's messages printed), 2 on a usage error.
"""
import concurrent.futures
import hashlib
import json
import os
import pathlib
import shlex
import subprocess
import sys

CLANG = "clang++-14"  # the frontend clang-tidy 14 parses with: same headers, same macros


def compile_args(build_dir):
    """The compile command of every file in BUILD_DIR/compile_commands.json, by path."""
    path = pathlib.Path(build_dir) / "compile_commands.json"
    try:
        entries = json.loads(path.read_text())
    except (OSError, ValueError) as error:
        sys.exit(f"check-function-size: cannot read {path}: {error}")
    commands = {}
    for entry in entries:
        args = entry.get("arguments") or shlex.split(entry["command"])
        file = os.path.realpath(os.path.join(entry["directory"], entry["file"]))
        commands[file] = (entry["directory"], args)
    return commands


def preprocess_args(args):
    """ARGS with the compiler replaced by clang and -c/-o dropped: the preprocessor alone."""
    out, skip = [CLANG], False
    for arg in args[1:]:
        if skip:
            skip = False
        elif arg == "-o":
            skip = True
        elif arg != "-c":
            out.append(arg)
    # gcc-only warning flags are harmless to -E; -w keeps their complaints out of stderr
    return out + ["-E", "-C", "-w"]


def key(file, commands, fixed, roots):
    """SHA-256 of FILE's flags and preprocessed text, and FIXED (configuration and tool
    version). The checkout's and the build's paths are replaced by names (ROOTS), so
    that a clone elsewhere (CI clones into a new directory each time) finds the passes."""
    directory, args = commands[file]
    result = subprocess.run(preprocess_args(args), cwd=directory, capture_output=True)
    if result.returncode != 0:
        return None  # cannot preprocess: let clang-tidy say why
    text = "\0".join(arg for arg in args if not arg.endswith(".o")).encode() + result.stdout
    for path, name in roots:
        text = text.replace(path, name)
    return hashlib.sha256(fixed + text).hexdigest()


def tidy(build_dir, files):
    result = subprocess.run(["clang-tidy", "-p", build_dir, "--quiet", *files],
                            capture_output=True, text=True)
    return result.returncode, result.stdout


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    build_dir, files = sys.argv[1], [os.path.realpath(f) for f in sys.argv[2:]]
    commands = compile_args(build_dir)
    missing = [f for f in files if f not in commands]
    if missing:
        print(f"check-function-size: no compile command in {build_dir} for: "
              + ", ".join(missing), file=sys.stderr)
        return 2
    version = subprocess.run(["clang-tidy", "--version"], capture_output=True).stdout
    fixed = version + pathlib.Path(".clang-tidy").read_bytes()
    cache = pathlib.Path(os.environ.get("XDG_CACHE_HOME") or pathlib.Path.home() / ".cache")
    cache = cache / "ablate" / "function-size"
    cache.mkdir(parents=True, exist_ok=True)
    # The build directory first: it is usually inside the checkout.
    roots = [(os.path.realpath(build_dir).encode(), b"<build>"), (os.getcwd().encode(), b"<src>")]
    workers = os.cpu_count() or 2
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        keys = dict(zip(files, pool.map(lambda f: key(f, commands, fixed, roots), files)))
        to_check = [f for f in files if keys[f] is None or not (cache / keys[f]).exists()]
        print(f"{len(files) - len(to_check)} of {len(files)} files as at a pass (cache), "
              f"{len(to_check)} checked")
        batches = [to_check[i:i + 8] for i in range(0, len(to_check), 8)]
        status = 0
        for batch, (code, output) in zip(batches, pool.map(lambda b: tidy(build_dir, b), batches)):
            if output:
                print(output, end="")
            if code != 0:
                status = 1
                continue
            for f in batch:  # clang-tidy passed the whole batch: each file passes
                if keys[f] is not None:
                    (cache / keys[f]).touch()
    return status


if __name__ == "__main__":
    sys.exit(main())
