#!/usr/bin/env python3
"""Side-by-side table of the contact benchmark: Sinew against the best peer engine, per scene.

Reads BENCH key=value lines (files named on the command line, or standard input) of the contact scenes
(scene=C1..C8, C2a, C2b, gripper): Sinew's from bench_contacts (no engine key, or engine=sinew; one line
per solver=...) and the peers' from bench_peers (engine=mujoco|bullet|ode). Lines of other benchmarks are
ignored. For each scene, time step and kind of coordinates it prints each Sinew solver's figure and
steps/s beside the best peer's, and the ratio of steps/s (Sinew / peer: above 1, Sinew is faster); with no
Sinew lines, every peer's figures.

The best peer of an accuracy scene (C1-C4, the gripper) is the one closest to the exact figure; of a
speed scene (C5-C8), the fastest that meets the scene's criterion (C5: top box drift under 5 mm, the
issue's stack test; C6: stable, every box within 0.05 m of its start; C7: no sphere escaped; C8: no link
centre below the ground), over the whole run (a truncated run meets none). When no peer meets it, the
fastest one, marked "(fails)".

Also prints one line per comparison for scripts:
  BENCH bench=contacts_ratio scene=C5 dt_s=0.00416666667 coords=maximal solver=tgs peer=bullet
        sinew_steps_per_s=... peer_steps_per_s=... ratio=... (figure keys of both)
Usage: contacts_table.py [FILE...]   (bash scripts/bench.sh contacts runs it on both programs' output)
"""

import math
import sys

SCENES = ["C1", "C2a", "C2b", "C3", "C4", "C5", "C6", "C7", "C8", "gripper"]


def num(kv, key, default=math.nan):
    try:
        return float(kv[key])
    except (KeyError, ValueError):
        return default


def rel_error(kv, key):
    return abs(num(kv, key))


def finished(kv):
    return "truncated_at_s" not in kv and kv.get("diverged", "0") == "0"


# Per scene: the figure shown (key, label), an error to minimise (accuracy scenes) or a criterion to meet
# (speed scenes).
SPEC = {
    "C1": dict(figure="contact_force_z_N", label="force z (N, mg 9.81)",
               error=lambda kv: abs(num(kv, "contact_force_z_N") / num(kv, "weight_N", 9.81) - 1.0)),
    "C2a": dict(figure="slope_displacement_m", label="slide (m, exact 0)",
                error=lambda kv: abs(num(kv, "slope_displacement_m"))),
    "C2b": dict(figure="accel_err_rel", label="accel rel err",
                error=lambda kv: rel_error(kv, "accel_err_rel")),
    "C3": dict(figure="apex_m", label="apex (m, exact 0.25)",
               error=lambda kv: rel_error(kv, "apex_err_rel")),
    "C4": dict(figure="accel_err_rel", label="accel rel err",
               error=lambda kv: rel_error(kv, "accel_err_rel")),
    "C5": dict(figure="top_drift_m", label="top drift (m)",
               ok=lambda kv: finished(kv) and num(kv, "top_drift_m") < 5e-3),
    "C6": dict(figure="displacement_max_m", label="max displ (m)",
               ok=lambda kv: finished(kv) and num(kv, "stable") == 1),
    "C7": dict(figure="escaped", label="escaped",
               ok=lambda kv: finished(kv) and num(kv, "escaped") == 0),
    "C8": dict(figure="lowest_link_z_m", label="lowest link z (m)",
               ok=lambda kv: finished(kv) and num(kv, "lowest_link_z_m") >= 0.0),
    "gripper": dict(figure="slip_m", label="slip (m)",
                    error=lambda kv: num(kv, "slip_m") if num(kv, "held") == 1 else math.inf),
}


def parse(lines):
    """The contact scenes' BENCH lines as dicts, with 'engine', 'coords' and 'dt' normalised."""
    out = []
    for line in lines:
        if not line.startswith("BENCH "):
            continue
        kv = {}
        for field in line.split()[1:]:
            key, sep, value = field.partition("=")
            if sep:
                kv[key] = value
        scene = kv.get("scene")
        # Other benchmarks' lines name scenes too (bench_collide's section=world scene=C6): skip them.
        if scene not in SPEC or kv.get("bench", "contacts") != "contacts" or "section" in kv or "name" in kv:
            continue
        kv["engine"] = kv.get("engine", "sinew")
        dt = num(kv, "dt_s", num(kv, "dt"))
        if not math.isfinite(dt):
            continue
        kv["dt"] = dt
        coords = kv.get("coords", "")
        if coords in ("articulation", "articulated", "reduced"):
            coords = "reduced"
        elif coords in ("maximal", "bodies"):
            coords = "maximal"
        else:
            coords = "reduced" if scene in ("C8", "gripper") else "maximal"
        kv["coords"] = coords
        out.append(kv)
    return out


def same_dt(a, b):
    return abs(a - b) <= 1e-6 * max(a, b)


def fmt(value, key):
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            return value
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if key in ("escaped", "stable", "held"):
        return "%d" % value
    return "%.4g" % value


def dt_label(dt):
    hz = 1.0 / dt
    return "1/%d" % round(hz) if abs(hz - round(hz)) < 1e-6 * hz else "%g" % dt


def best_peer(scene, peers):
    """The best supported peer line and whether it meets the scene's criterion."""
    spec = SPEC[scene]
    usable = [p for p in peers if p.get("supported", "1") == "1"]
    if not usable:
        return None, False
    if "error" in spec:
        ranked = sorted(usable, key=lambda p: (not finished(p), nan_last(spec["error"](p))))
        return ranked[0], finished(ranked[0]) and math.isfinite(spec["error"](ranked[0]))
    passing = [p for p in usable if spec["ok"](p)]
    pool = passing or usable
    best = max(pool, key=lambda p: num(p, "steps_per_s", 0.0))
    return best, bool(passing)


def nan_last(x):
    return math.inf if math.isnan(x) else x


def describe(kv, scene):
    key = SPEC[scene]["figure"]
    text = fmt(kv.get(key), key)
    if "truncated_at_s" in kv:
        text += " (at %ss)" % kv["truncated_at_s"]
    return text


def main(argv):
    lines = []
    if len(argv) > 1:
        for path in argv[1:]:
            with open(path, encoding="utf-8") as f:
                lines.extend(f.read().splitlines())
    else:
        lines = sys.stdin.read().splitlines()
    rows = parse(lines)
    if not rows:
        print("contacts_table: no contact-scene BENCH lines", file=sys.stderr)
        return 1
    cases = []
    for kv in rows:
        key = (kv["scene"], kv["dt"], kv["coords"])
        if not any(c[0] == key[0] and same_dt(c[1], key[1]) and c[2] == key[2] for c in cases):
            cases.append(key)
    cases.sort(key=lambda c: (SCENES.index(c[0]), -c[1], c[2]))
    have_sinew = any(kv["engine"] == "sinew" for kv in rows)
    print("# contact scenes side by side (steps/s ratio = Sinew / peer; above 1 Sinew is faster)")
    header = "%-8s %-7s %-8s %-22s | %-12s %-22s %10s | %-14s %-22s %10s | %7s" % (
        "scene", "dt_s", "coords", "figure", "sinew", "", "steps/s", "best peer", "", "steps/s", "ratio")
    if not have_sinew:
        header = "%-8s %-7s %-8s %-22s | %-8s %-30s %10s" % ("scene", "dt_s", "coords", "figure", "engine", "",
                                                            "steps/s")
    print(header)
    ratios = []
    for scene, dt, coords in cases:
        group = [kv for kv in rows if kv["scene"] == scene and same_dt(kv["dt"], dt) and kv["coords"] == coords]
        sinew = [kv for kv in group if kv["engine"] == "sinew"]
        peers = [kv for kv in group if kv["engine"] != "sinew"]
        label = SPEC[scene]["label"]
        if not have_sinew:
            best, meets = best_peer(scene, peers)
            for p in peers:
                if p.get("supported", "1") != "1":
                    print("%-8s %-7s %-8s %-22s | %-8s %-30s %10s" % (scene, dt_label(dt), coords, label,
                                                                      p["engine"], "cannot: " + p.get("reason", "?"),
                                                                      "-"))
                    continue
                mark = " *" if p is best else ""
                if p is best and not meets:
                    mark = " *(fails)"
                print("%-8s %-7s %-8s %-22s | %-8s %-30s %10s" % (scene, dt_label(dt), coords, label, p["engine"],
                                                                  describe(p, scene) + mark,
                                                                  fmt(p.get("steps_per_s"), "steps_per_s")))
            continue
        best, meets = best_peer(scene, peers)
        if not sinew:
            sinew = [{"solver": "-", "engine": "sinew"}]
        for s in sinew:
            solver = s.get("solver", "sinew")
            peer_name = "-" if best is None else best["engine"] + ("" if meets else " (fails)")
            peer_fig = "-" if best is None else describe(best, scene)
            peer_rate = num(best, "steps_per_s") if best is not None else math.nan
            rate = num(s, "steps_per_s")
            ratio = rate / peer_rate if math.isfinite(rate) and math.isfinite(peer_rate) and peer_rate > 0 else math.nan
            print("%-8s %-7s %-8s %-22s | %-12s %-22s %10s | %-14s %-22s %10s | %7s" % (
                scene, dt_label(dt), coords, label, solver,
                describe(s, scene) if "steps_per_s" in s else "-", fmt(rate, "steps_per_s"),
                peer_name, peer_fig, fmt(peer_rate, "steps_per_s"),
                "-" if math.isnan(ratio) else "%.2fx" % ratio))
            if best is not None and math.isfinite(ratio):
                key = SPEC[scene]["figure"]
                ratios.append("BENCH bench=contacts_ratio scene=%s dt_s=%.9g coords=%s solver=%s peer=%s "
                              "peer_meets_criterion=%d sinew_steps_per_s=%s peer_steps_per_s=%s ratio=%.3f "
                              "sinew_%s=%s peer_%s=%s" % (
                                  scene, dt, coords, solver, best["engine"], 1 if meets else 0,
                                  s.get("steps_per_s"), best.get("steps_per_s"), ratio,
                                  key, s.get(key, "-"), key, best.get(key, "-")))
    for line in ratios:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
