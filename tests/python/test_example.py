"""The README's example script runs against a server and exits cleanly."""

import os
import subprocess
import sys

EXAMPLES = os.environ.get("SINEW_EXAMPLES",
                          os.path.join(os.path.dirname(__file__), "..", "..", "clients", "python", "examples"))


def test_hello_arm(start_server):
    s = start_server(demo=True)
    out = subprocess.run([sys.executable, os.path.join(EXAMPLES, "hello_arm.py"), "--port", str(s.tcp_port)],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "loaded sinew_arm: 9 dofs, joints joint1, joint2" in out.stdout
    assert "finger_right_joint follows finger_left_joint" in out.stdout
    assert "refused as expected: set_drive_targets: ERR_NOT_FINITE" in out.stdout
    assert "the demo robot sinew_arm: joint1=" in out.stdout  # the server's demo world, described


def test_hello_arm_without_a_server_says_what_to_do(start_server):
    s = start_server()
    port = s.tcp_port
    s.stop()
    out = subprocess.run([sys.executable, os.path.join(EXAMPLES, "hello_arm.py"), "--port", str(port)],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode != 0 and "scripts/run.sh" in out.stderr
