#!/usr/bin/python3
"""Runs the README's marked snippets, as a reader would type them, against a live sinewd.

A fenced block right after an HTML comment ``<!-- test: sh -->`` runs in bash (-e -u -o pipefail);
after ``<!-- test: python -->`` it runs with the virtual environment's interpreter that an earlier
snippet made (``.venv/bin/python``). They run in order, in a directory that looks like a fresh checkout
(every top-level entry of the repository linked, ``build/release`` linked to the build tree under test,
a ``.venv`` of its own), with HOME in a scratch directory and the server's address in the variables the
server, the CLI and the Python client read (SINEW_HOST, SINEW_TCP_PORT, SINEW_WS_PORT): sinewd runs on
free loopback ports with its demo world. Each snippet has 300 s.

    run_readme.py README.md --sinewd build/release/server/sinewd --build build/release
"""

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

MARK = re.compile(r"<!--\s*test:\s*(sh|python)\s*-->\s*\n```[a-z]*\n(.*?)\n```", re.S)


def snippets(text):
    """[(kind, code, line)] of the marked blocks, in order."""
    return [(m.group(1), m.group(2), text.count("\n", 0, m.start()) + 1) for m in MARK.finditer(text)]


def start_server(sinewd, scratch):
    port_file = os.path.join(scratch, "ports")
    log = open(os.path.join(scratch, "sinewd.log"), "w")
    proc = subprocess.Popen([sinewd, "--host", "127.0.0.1", "--tcp-port", "0", "--ws-port", "0", "--port-file",
                             port_file], stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit("run_readme: sinewd exited (%d) before listening" % proc.returncode)
        if os.path.exists(port_file):
            ports = dict(line.strip().split("=") for line in open(port_file) if "=" in line)
            return proc, int(ports["tcp"]), int(ports["ws"])
        time.sleep(0.05)
    proc.kill()
    raise SystemExit("run_readme: sinewd did not write its port file within 15 s")


def checkout_view(root, build, scratch):
    """A directory that looks like a built checkout: links to the repository's entries, build/release."""
    view = os.path.join(scratch, "checkout")
    os.makedirs(os.path.join(view, "build"))
    for entry in os.listdir(root):
        if entry not in ("build", ".venv", ".git"):
            os.symlink(os.path.join(root, entry), os.path.join(view, entry))
    os.symlink(os.path.abspath(build), os.path.join(view, "build", "release"))
    return view


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("readme")
    parser.add_argument("--sinewd", required=True)
    parser.add_argument("--build", required=True, help="the build tree under test (its clients, its dashboard)")
    args = parser.parse_args()
    root = os.path.dirname(os.path.abspath(args.readme))
    found = snippets(open(args.readme).read())
    if not found:
        raise SystemExit("run_readme: no marked snippets in %s" % args.readme)
    scratch = tempfile.mkdtemp(prefix="sinew-readme-")
    proc, tcp, ws = start_server(args.sinewd, scratch)
    passed = failed = 0
    try:
        view = checkout_view(root, args.build, scratch)
        home = os.path.join(scratch, "home")
        os.makedirs(home)
        env = {k: v for k, v in os.environ.items() if not k.startswith("SINEW_") and k != "PYTHONPATH"}
        env.update(HOME=home, SINEW_HOST="127.0.0.1", SINEW_TCP_PORT=str(tcp), SINEW_WS_PORT=str(ws))
        for kind, code, line in found:
            if kind == "sh":
                argv = ["bash", "-euo", "pipefail", "-c", code]
            else:
                argv = [os.path.join(view, ".venv", "bin", "python"), "-c", code]
            print("== README.md:%d (%s)\n%s" % (line, kind, code), flush=True)
            try:
                out = subprocess.run(argv, cwd=view, env=env, capture_output=True, text=True, timeout=300)
                status = out.returncode
                output = out.stdout + out.stderr
            except subprocess.TimeoutExpired as exc:
                status, output = "timeout", "timed out after 300 s\n%s" % (exc.stdout or "")
            ok = status == 0
            print("-- output:\n%s-- %s\n" % (output, "ok" if ok else "FAILED (status %s)" % status), flush=True)
            passed += ok
            failed += not ok
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            code = proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            code = proc.wait()
        if code != 0:
            failed += 1
            print("sinewd exited with %s:\n%s" % (code, open(os.path.join(scratch, "sinewd.log")).read()[-3000:]))
        shutil.rmtree(scratch, ignore_errors=True)
    print("%d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
