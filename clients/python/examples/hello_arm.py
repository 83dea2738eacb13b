#!/usr/bin/python3
"""A first Sinew script: load a robot arm from its URDF into a world of your own on a running sinewd,
move it by joint name, read its joints back (lists and numpy arrays), stream its state, and look at the
demo robot that the server runs for everyone.

    bash scripts/run.sh                                   # in one terminal: the server
    /usr/bin/python3 clients/python/examples/hello_arm.py # in another

Options: --host, --port (the TCP port), --token, --urdf (default models/sinew_arm.urdf). Without them the
server is where the variables sinewd reads say (SINEW_HOST, SINEW_TCP_PORT, SINEW_TOKEN), else
127.0.0.1:7420.
"""

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
try:
    import sinew  # installed: pip install ./clients/python (README, "The Python client")
except ImportError:
    # Run from a source checkout without installing: the package is next to this folder.
    sys.path.insert(0, os.path.join(HERE, ".."))
    import sinew

DEFAULT_URDF = os.path.join(HERE, "..", "..", "..", "models", "sinew_arm.urdf")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--host", default=None, help="default: SINEW_HOST, else 127.0.0.1")
    parser.add_argument("--port", type=int, default=None, help="the TCP port; default: SINEW_TCP_PORT, else 7420")
    parser.add_argument("--token", default=None, help="default: SINEW_TOKEN")
    parser.add_argument("--urdf", default=os.path.normpath(DEFAULT_URDF))
    args = parser.parse_args()

    try:
        client = sinew.connect(args.host, args.port, token=args.token, name="hello_arm")
    except ConnectionRefusedError:
        sys.exit("hello_arm: no sinewd on %s:%s (start one with: bash scripts/run.sh; SINEW_HOST and "
                 "SINEW_TCP_PORT, or --host and --port, say where it is)"
                 % (args.host or os.environ.get("SINEW_HOST", "127.0.0.1"),
                    args.port or os.environ.get("SINEW_TCP_PORT", "7420")))
    with client:
        print("connected to sinewd %s as session %d" % (client.server_version, client.session_id))

        # A world of our own, paused: it steps only when we say so. It goes away when this script ends
        # (create_world(..., keep_after_disconnect=True) would keep it on the server).
        world = client.create_world("hello_arm-%d" % os.getpid(), dt=0.002, solver="tgs")
        # URDF has no drives: give every joint a PD drive (acceleration-type gains: 1/s^2 and 1/s).
        arm = world.load_urdf_file(args.urdf, drive_all=sinew.Drive(stiffness=2500.0, damping=100.0,
                                                                    type="acceleration"))
        print("loaded %s: %d dofs, joints %s" % (arm.robot, arm.dof_count, ", ".join(arm.joints)))
        for follower, (leader, multiplier, offset) in arm.mimics.items():
            print("  %s follows %s (q = %g q_%s + %g)" % (follower, leader, multiplier, leader, offset))

        # Move by joint name, step, read the joints back.
        print("%8s  %9s  %9s  %9s" % ("time_s", "joint2", "joint4", "fingers"))
        for joint2, joint4, fingers in ((0.6, -1.2, 0.04), (-0.4, -0.6, 0.0), (0.0, 0.0, 0.02)):
            arm.set_targets({"joint2": joint2, "joint4": joint4, "finger_left_joint": fingers})
            result = world.step(500)  # 1 s
            q = arm.joint_positions()
            print("%8.3f  %9.4f  %9.4f  %9.4f   targets %.2f, %.2f rad, %.3f m (the right finger: %.4f m)"
                  % (result.time, q["joint2"], q["joint4"], q["finger_left_joint"], joint2, joint4, fingers,
                     q["finger_right_joint"]))
        try:
            q = arm.positions(array=True)  # a numpy array in dof order
            print("as an array: %s" % q.round(3))
        except ImportError:
            pass  # numpy is optional (Debian: python3-numpy)

        # Errors carry the server's code and message, and change nothing.
        try:
            arm.set_targets({"joint2": float("nan")})
        except sinew.InvalidArgument as err:
            print("refused as expected: %s" % err)

        # Stream the state while the world runs in real time for half a second.
        world.play()
        arm.set_targets({"joint1": 1.0})
        start = world.state().time
        include = sinew.JOINT_POSITIONS | sinew.DRIVE_EFFORTS
        with world.subscribe(rate_hz=10, include=include) as sub:
            for state in sub:
                print("stream: t=%.3f s  joint1=%.3f rad  effort=%.2f N*m" % (
                    state.time, arm.position("joint1", state), arm.efforts(state)[arm.dof("joint1")]))
                if state.time >= start + 0.5:
                    break
        world.pause()

        # Every world on the server, and the demo robot as any client sees it (DescribeWorld).
        print("worlds on this server:")
        for info in client.worlds():
            print("  %-12s id=%d mode=%s t=%.2f s articulations=%d (you: %s)" % (
                info.name, info.id, info.mode, info.time, info.articulation_count, info.role))
        if any(info.name == "demo" for info in client.worlds()):
            demo = client.open_world("demo", role="observer")
            robot = demo.robot()
            q = robot.joint_positions()
            print("the demo robot %s: %s" % (robot.robot, ", ".join("%s=%.2f" % (k, v) for k, v in q.items())))


if __name__ == "__main__":
    main()
