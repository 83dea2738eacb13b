"""Fixtures: real sinewd processes on loopback ports chosen free (--tcp-port 0 --ws-port 0 --port-file),
stopped with SIGTERM at the end of each test that started one.

SINEWD names the server binary (CTest sets it; default build/release/server/sinewd of this checkout);
SINEW_PYTHON_GEN the directory of the generated sinew_pb2.py (see clients/python/sinew/_pb.py): these
tests use the package from this source tree (test_install.py installs it into a virtual environment)."""

import os
import signal
import subprocess
import sys
import tempfile
import time

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "clients", "python"))

import sinew  # noqa: E402  (after the path above)

SINEWD = os.environ.get("SINEWD", os.path.join(ROOT, "build", "release", "server", "sinewd"))
# Every wait in these tests is bounded; an ASan server starts and steps more slowly.
START_TIMEOUT_S = 15.0


class Server:
    """A sinewd of our own: `tcp_port`, `ws_port`, `pid`; stop() sends SIGTERM and returns the exit code."""

    def __init__(self, *args, demo=False):
        self.dir = tempfile.mkdtemp(prefix="sinew-pytest-")
        port_file = os.path.join(self.dir, "ports")
        self.log_path = os.path.join(self.dir, "sinewd.log")
        argv = [SINEWD, "--tcp-port", "0", "--ws-port", "0", "--port-file", port_file, "--host", "127.0.0.1"]
        if not demo:
            argv.append("--no-demo")
        argv.extend(args)
        self._log = open(self.log_path, "w")
        self.proc = subprocess.Popen(argv, stdout=self._log, stderr=subprocess.STDOUT)
        self.pid = self.proc.pid
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError("sinewd exited (%d) before listening:\n%s" % (self.proc.returncode, self.log()))
            try:
                with open(port_file) as f:
                    ports = dict(line.strip().split("=") for line in f if "=" in line)
                if "tcp" in ports and "ws" in ports:
                    self.tcp_port = int(ports["tcp"])
                    self.ws_port = int(ports["ws"])
                    break
            except FileNotFoundError:
                pass
            if time.monotonic() > deadline:
                self.proc.kill()
                raise RuntimeError("sinewd did not write its port file within %g s" % START_TIMEOUT_S)
            time.sleep(0.02)

    def connect(self, **kwargs):
        kwargs.setdefault("timeout", 20.0)
        return sinew.connect("127.0.0.1", self.tcp_port, **kwargs)

    def log(self):
        if not self._log.closed:
            self._log.flush()
        with open(self.log_path) as f:
            return f.read()

    def stop(self, timeout=10.0):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log.close()
        return self.proc.returncode


@pytest.fixture
def start_server():
    """start_server(*flags, demo=False) -> Server; every server started is stopped after the test, which
    fails if one did not exit cleanly (status 0)."""
    servers = []

    def start(*args, demo=False):
        s = Server(*args, demo=demo)
        servers.append(s)
        return s

    yield start
    bad = []
    for s in servers:
        code = s.stop()
        if code != 0:
            bad.append("sinewd exited with %s:\n%s" % (code, s.log()[-4000:]))
    assert not bad, "\n".join(bad)


@pytest.fixture
def server(start_server):
    return start_server()


@pytest.fixture
def client(server):
    c = server.connect(name="pytest")
    yield c
    c.close()
