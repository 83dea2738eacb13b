#!/usr/bin/python3
"""A first Sinew script: build a two-joint arm on a running sinewd, move it by joint name, read its
joints back, stream its state, and look at the other worlds on the server.

    bash scripts/run.sh                                   # in one terminal: the server
    /usr/bin/python3 clients/python/examples/hello_arm.py # in another

Options: --host, --port (the TCP port, default 7420), --token.
"""

import argparse
import math
import os
import sys

# Run from a checkout: the package is next to this folder (installing it puts it on the path instead).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import sinew  # noqa: E402

# Each joint's x axis is its hinge axis: turn it onto world y, so the arm swings in the x-z plane.
ABOUT_Y = sinew.quat_from_axis_angle((0, 0, 1), math.pi / 2)


def build_arm(world):
    drive = sinew.Drive(stiffness=400.0, damping=40.0)  # N*m/rad, N*m*s/rad
    return world.create_articulation([
        sinew.Link("base"),
        sinew.Link("upper_arm", joint="revolute", joint_name="shoulder", parent="base",
                   parent_frame=((0, 0, 0.5), ABOUT_Y), child_frame=((-0.2, 0, 0), ABOUT_Y),
                   mass=1.5, inertia=(0.002, 0.02, 0.02), limit=(-2.0, 2.0), drive=drive),
        sinew.Link("forearm", joint="revolute", joint_name="elbow", parent="upper_arm",
                   parent_frame=((0.2, 0, 0), ABOUT_Y), child_frame=((-0.15, 0, 0), ABOUT_Y),
                   mass=1.0, inertia=(0.001, 0.008, 0.008), limit=(-2.5, 2.5), drive=drive),
    ])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=7420)
    parser.add_argument("--token", default=None)
    args = parser.parse_args()

    try:
        client = sinew.connect(args.host, args.port, token=args.token, name="hello_arm")
    except ConnectionRefusedError:
        sys.exit("hello_arm: no sinewd on %s:%d (start one with: bash scripts/run.sh)" % (args.host, args.port))
    with client:
        print("connected to sinewd %s as session %d" % (client.server_version, client.session_id))

        # A world of our own, paused: it steps only when we say so. It goes away when we disconnect.
        world = client.create_world("hello_arm", dt=0.002, solver="tgs")
        arm = build_arm(world)
        print("arm: %d dofs, joints %s" % (arm.dof_count, ", ".join(arm.joints)))

        # Move by joint name, step, read the joints back (lists, or numpy arrays with array=True).
        print("%8s  %10s  %10s" % ("time_s", "shoulder", "elbow"))
        for shoulder, elbow in ((0.5, -0.8), (-0.3, 1.2), (0.0, 0.0)):
            arm.set_targets({"shoulder": shoulder, "elbow": elbow})
            result = world.step(500)  # 1 s
            q = arm.joint_positions()
            print("%8.3f  %10.4f  %10.4f   (targets %.2f, %.2f rad)"
                  % (result.time, q["shoulder"], q["elbow"], shoulder, elbow))

        # Errors carry the server's code and message, and change nothing.
        try:
            arm.set_targets({"shoulder": float("nan")})
        except sinew.SinewError as err:
            print("refused as expected: %s" % err)

        # Stream the state while the world runs in real time for half a second.
        world.play()
        arm.set_targets({"shoulder": 1.0})
        start = world.state().time
        with world.subscribe(rate_hz=10, include=sinew.JOINT_POSITIONS | sinew.DRIVE_EFFORTS) as sub:
            for state in sub:
                a = state.articulation(arm)
                print("stream: t=%.3f s  q=%s  effort=%s N*m" % (
                    state.time, ["%.3f" % v for v in a.positions], ["%.2f" % v for v in a.efforts]))
                if state.time >= start + 0.5:
                    break
        world.pause()

        print("worlds on this server:")
        for info in client.worlds():
            print("  %-12s id=%d mode=%s t=%.2f s bodies=%d articulations=%d (you: %s)" % (
                info.name, info.id, info.mode, info.time, info.body_count, info.articulation_count, info.role))


if __name__ == "__main__":
    main()
