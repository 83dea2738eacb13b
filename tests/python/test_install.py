"""The package installs as Python users install packages: into a virtual environment that sees Debian's
python3-protobuf and python3-numpy (--system-site-packages), with pip and no package index
(--no-index --no-build-isolation: setuptools and wheel from Debian too). The installed package carries
its own protocol module (no SINEW_PYTHON_GEN, nothing from the source tree) and runs a session against a
live sinewd."""

import os
import subprocess
import sys
import textwrap

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

SESSION = textwrap.dedent("""
    import os, sys
    import numpy
    import sinew
    assert "site-packages" in sinew.__file__, sinew.__file__
    assert sinew.pb.__name__ == "sinew.sinew_pb2", sinew.pb.__name__
    with sinew.connect(name="installed") as client:   # SINEW_TCP_PORT says where
        world = client.create_world("installed", dt=0.002)
        arm = world.load_urdf_file(sys.argv[1], drive_all=sinew.Drive(200.0, 20.0))
        arm.set_targets({"wrist": 0.3})
        world.step(500)
        q = arm.positions(array=True)
        assert isinstance(q, numpy.ndarray) and q.shape == (arm.dof_count,)
        print("installed session ok: %d dofs, wrist %.3f rad" % (arm.dof_count, arm.position("wrist")))
""")


def test_pip_install_into_a_venv_with_debians_packages(server, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True, timeout=120)
    python = str(venv / "bin" / "python")
    env = {k: v for k, v in os.environ.items() if k not in ("SINEW_PYTHON_GEN", "PYTHONPATH")}
    out = subprocess.run([python, "-m", "pip", "install", "--no-index", "--no-build-isolation", "--quiet",
                          os.path.join(ROOT, "clients", "python")], capture_output=True, text=True, timeout=300,
                         env=env)
    assert out.returncode == 0, out.stdout + out.stderr
    script = tmp_path / "session.py"
    script.write_text(SESSION)
    env["SINEW_TCP_PORT"] = str(server.tcp_port)
    out = subprocess.run([python, str(script), os.path.join(ROOT, "tests", "model", "urdf", "gripper.urdf")],
                         capture_output=True, text=True, timeout=120, env=env, cwd=str(tmp_path))
    assert out.returncode == 0, out.stdout + out.stderr
    assert "installed session ok: 4 dofs" in out.stdout
