#!/usr/bin/env python3
"""Checks of contacts_table.py on made-up BENCH lines (no engine needed): which peer is the best one of
an accuracy scene and of a speed scene, that a truncated or failing run never counts as meeting a
criterion, that Sinew's lines of every solver get their ratio, and that other benchmarks' lines are
skipped. Run by CTest (contacts_table) as `python3 test_contacts_table.py`."""

import contextlib
import io
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import contacts_table  # noqa: E402

PEERS = """\
BENCH bench=contacts engine=mujoco scene=C2b coords=maximal dt_s=0.001 supported=1 steps_per_s=500000 accel_err_rel=-2.9e-04 diverged=0
BENCH bench=contacts engine=bullet scene=C2b coords=maximal dt_s=0.001 supported=1 steps_per_s=600000 accel_err_rel=-3.9e-02 diverged=0
BENCH bench=contacts engine=ode scene=C2b coords=maximal dt_s=0.001 supported=1 steps_per_s=250000 accel_err_rel=-2.4e-07 diverged=0
BENCH bench=contacts engine=mujoco scene=C3 coords=maximal dt_s=0.001 supported=0 reason=no_restitution
BENCH bench=contacts engine=bullet scene=C3 coords=maximal dt_s=0.001 supported=1 steps_per_s=1e6 apex_m=0.227 apex_err_rel=-9.1e-02 diverged=0
BENCH bench=contacts engine=mujoco scene=C6 coords=maximal dt_s=0.00416666667 supported=1 steps_per_s=35 displacement_max_m=4e-3 stable=1 diverged=0 truncated_at_s=2.9
BENCH bench=contacts engine=bullet scene=C6 coords=maximal dt_s=0.00416666667 supported=1 steps_per_s=850 displacement_max_m=0.9 stable=0 diverged=0
BENCH bench=contacts engine=ode scene=C6 coords=maximal dt_s=0.00416666667 supported=1 steps_per_s=390 displacement_max_m=7e-3 stable=1 diverged=0
BENCH bench=contacts engine=bullet scene=C7 coords=maximal dt_s=0.001 supported=1 steps_per_s=100 escaped=3 diverged=0
BENCH bench=contacts engine=ode scene=C7 coords=maximal dt_s=0.001 supported=1 steps_per_s=230 escaped=1 diverged=0
"""

SINEW = """\
BENCH scene=C6 solver=tgs dt_s=0.004166666667 steps_per_s=1000 displacement_max_m=1e-3 stable=1
BENCH scene=C6 solver=pgs dt_s=0.004166666667 steps_per_s=1950 displacement_max_m=2e-3 stable=1
BENCH scene=C2b solver=tgs dt=0.001 steps_per_s=400000 accel_err_rel=1e-5
BENCH section=world scene=C6 shapes=210 steps=50 dt_s=0.004166666667 steps_per_s=1
"""


def run(text):
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write(text)
        path = f.name
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            code = contacts_table.main(["contacts_table.py", path])
    finally:
        os.unlink(path)
    return code, out.getvalue()


def ratio_lines(text):
    rows = []
    for line in text.splitlines():
        if line.startswith("BENCH bench=contacts_ratio "):
            rows.append(dict(f.split("=", 1) for f in line.split()[1:]))
    return rows


def main():
    failures = []
    checks = []

    def check(condition, what):
        checks.append(what)
        if not condition:
            failures.append(what)

    # Peers alone: every peer listed, the best one starred, unsupported ones say why.
    code, text = run(PEERS)
    check(code == 0, "peers alone: exit 0")
    check("cannot: no_restitution" in text, "an unsupported peer says why")
    c2b = [l for l in text.splitlines() if l.startswith("C2b") and "*" in l]
    check(len(c2b) == 1 and "ode" in c2b[0], "C2b: the most accurate peer (ode) is the best")
    c6 = [l for l in text.splitlines() if l.startswith("C6") and "*" in l]
    # Bullet is fastest but collapses, MuJoCo stable but truncated: ODE is the fastest that meets it.
    check(len(c6) == 1 and "ode" in c6[0], "C6: the fastest stable, finished peer (ode) is the best")
    c7 = [l for l in text.splitlines() if l.startswith("C7") and "*" in l]
    check(len(c7) == 1 and "ode" in c7[0] and "(fails)" in c7[0], "C7: none meets it: the fastest, marked")
    check(not ratio_lines(text), "peers alone: no ratio lines")

    # With Sinew: one row and one ratio per solver, against the best peer; bench_collide's line skipped.
    code, text = run(PEERS + SINEW)
    ratios = ratio_lines(text)
    check(code == 0, "with Sinew: exit 0")
    by_solver = {(r["scene"], r["solver"]): r for r in ratios}
    check(len(ratios) == 3, "three ratio lines (C6 tgs, C6 pgs, C2b tgs), got %d" % len(ratios))
    c6_tgs = by_solver.get(("C6", "tgs"))
    check(c6_tgs is not None and c6_tgs["peer"] == "ode" and abs(float(c6_tgs["ratio"]) - 1000 / 390) < 1e-3,
          "C6 tgs: against ode, ratio 1000/390")
    c6_pgs = by_solver.get(("C6", "pgs"))
    check(c6_pgs is not None and abs(float(c6_pgs["ratio"]) - 5.0) < 1e-3, "C6 pgs: ratio 1950/390 = 5")
    c2b_tgs = by_solver.get(("C2b", "tgs"))
    check(c2b_tgs is not None and c2b_tgs["peer"] == "ode" and c2b_tgs["peer_meets_criterion"] == "1",
          "C2b tgs: against the most accurate peer, with dt given as dt=")

    # Nothing to show: exit 1.
    with contextlib.redirect_stderr(io.StringIO()):
        code, _ = run("BENCH section=world scene=C6 steps=50\n")
    check(code == 1, "no contact lines: exit 1")

    for f in failures:
        print("FAIL:", f)
    print("%d passed, %d failed" % (len(checks) - len(failures), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
