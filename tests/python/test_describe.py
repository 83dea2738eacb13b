"""Robots over the wire: LoadUrdf from Python, DescribeWorld (what a client that joins a world learns of
its articulations: names, dofs, limits, drives, visuals), drive targets in state frames, and the demo
robot handing its controls to a client that sets targets."""

import os
import time

import pytest

import sinew
from sinew import pb

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
GRIPPER = os.path.join(ROOT, "tests", "model", "urdf", "gripper.urdf")


def test_describe_the_demo_robot(start_server):
    s = start_server(demo=True)
    with s.connect(role="observer") as watcher:
        demo = watcher.open_world("demo", role="observer")
        arms = demo.describe()
        assert len(arms) == 1
        arm = arms[0]
        assert arm.robot == "sinew_arm"
        # Seven arm joints and two fingers have dofs, in dof order; the right finger mimics the left.
        assert arm.joints == ["joint%d" % i for i in range(1, 8)] + ["finger_left_joint", "finger_right_joint"]
        assert arm.mimics == {"finger_right_joint": ("finger_left_joint", 1.0, 0.0)}
        info = arm.info
        assert info.dof_count == 9 and info.fixed_base and info.link_count == len(info.links)
        driven = [d.enabled for link in info.links for d in link.drives]
        assert driven == [True] * 8 + [False]  # a mimic follower has no drive of its own
        lim = info.links[1].limits[0]
        assert lim.enabled and (lim.lower, lim.upper) == (-2.9, 2.9)  # joint1's URDF limit, exactly
        visuals = arm.urdf.visuals
        assert len(visuals) >= 9
        assert all(0 <= v.link < info.link_count for v in visuals)
        assert {v.geometry for v in visuals} <= {pb.GEOMETRY_BOX, pb.GEOMETRY_CYLINDER, pb.GEOMETRY_SPHERE}
        assert all(len(v.rgba) == 4 and 0 <= min(v.rgba) and max(v.rgba) <= 1 for v in visuals)
        base = [v for v in visuals if v.link_name == "base"][0]
        assert base.geometry == pb.GEOMETRY_CYLINDER and (base.radius, base.length) == (0.1, 0.1)
        # One articulation by id, and an id that is not in the world.
        assert [a.id for a in demo.describe(arm.id)] == [arm.id]
        with pytest.raises(sinew.SinewError) as e:
            demo.describe(arm.id + 1)
        assert e.value.code == sinew.ErrorCode.ERR_INVALID_ID
        with pytest.raises(sinew.SinewError) as e:
            watcher.request("describe_world", pb.DescribeWorld(world_id=12345))
        assert e.value.code == sinew.ErrorCode.ERR_UNKNOWN_WORLD


def test_load_urdf_names_joints_and_keeps_the_mimic(client):
    world = client.create_world("gripper", dt=0.001, gravity=(0, 0, 0))
    arm = world.load_urdf_file(GRIPPER, drive_all=sinew.Drive(stiffness=200.0, damping=20.0))
    assert arm.robot == "gripper"
    assert set(arm.joints) == {"wrist", "finger_left_joint", "finger_right_joint", "thumb_joint"}
    assert arm.mimics["finger_right_joint"] == ("finger_left_joint", -1.0, 0.01)
    arm.set_targets({"finger_left_joint": 0.03, "wrist": 0.4})
    world.step(2000)
    q = arm.joint_positions()
    # The drives reach their targets (no gravity; 1e-3 covers the residual of the decay) and the mimic
    # rows hold URDF's q_follower = multiplier q_leader + offset to the solver's tolerance.
    assert abs(q["finger_left_joint"] - 0.03) < 1e-3
    assert abs(q["finger_right_joint"] - (-1.0 * q["finger_left_joint"] + 0.01)) < 1e-6
    assert abs(q["thumb_joint"] - (-0.5 * q["wrist"] + 0.1)) < 1e-6
    # Another client that opens the world learns the same names.
    with sinew.connect("127.0.0.1", client.port) as other:
        seen = other.open_world("gripper", role="observer").robot("gripper")
        assert seen.id == arm.id and seen.joints == arm.joints
    # A bad model names the file and line, and changes nothing.
    with pytest.raises(sinew.SinewError) as e:
        world.load_urdf("<robot name='x'><link name='a'/><joint name='j' type='revolute'>", file_name="bad.urdf")
    assert e.value.code == sinew.ErrorCode.ERR_INVALID_ARGUMENT and "bad.urdf:1" in e.value.message
    assert len(world.describe()) == 1


def test_descriptions_follow_destroy_clone_and_restore(client):
    world = client.create_world("life", dt=0.002)
    before = world.snapshot()  # no robot yet
    arm = world.load_urdf_file(GRIPPER)
    with_robot = world.snapshot()
    clone_id = client.request("clone_world", pb.CloneWorld(world_id=world.id, name="life-clone")).created.id
    clone = client.open_world(clone_id)
    assert [a.robot for a in clone.describe()] == ["gripper"]
    # A restore may bring another world's articulations under the same ids: descriptions are dropped,
    # the links stay described from the core.
    world.restore(with_robot)
    [plain] = world.describe()
    assert plain.id == arm.id and plain.robot == "" and not plain.info.HasField("urdf")
    assert plain.joints == ["link1", "link2", "link3", "link4"] and plain.info.dof_count == 4
    # Restoring a state without it removes the articulation and its description.
    world.restore(before)
    assert world.describe() == []
    again = world.load_urdf_file(GRIPPER)
    assert [a.robot for a in world.describe()] == ["gripper"]
    again.destroy()
    assert world.describe() == []


def test_drive_targets_stream_with_the_state(client):
    world = client.create_world("targets", dt=0.002)
    arm = world.load_urdf_file(GRIPPER, drive_all=sinew.Drive(stiffness=50.0, damping=5.0))
    arm.set_targets({"wrist": 0.25, "finger_left_joint": 0.02})
    with world.subscribe(rate_hz=100, include=sinew.DRIVE_TARGETS | sinew.JOINT_POSITIONS) as sub:
        state = sub.get(timeout=10)
        targets = arm.targets(state)
        assert len(targets) == arm.dof_count
        assert targets[arm.dof("wrist")] == 0.25 and targets[arm.dof("finger_left_joint")] == 0.02  # exactly
        # Mimic followers have no drive: their target reads 0.
        assert targets[arm.dof("finger_right_joint")] == 0.0 and targets[arm.dof("thumb_joint")] == 0.0
    # Include bits beyond CONTACT_EVENTS are refused.
    with pytest.raises(sinew.SinewError) as e:
        world.subscribe(rate_hz=10, include=256)
    assert e.value.code == sinew.ErrorCode.ERR_INVALID_ARGUMENT


def test_the_demo_hands_over_its_controls_until_a_reset(start_server):
    s = start_server(demo=True)
    with s.connect(name="taker") as c:
        demo = c.open_world("demo", role="owner")
        assert demo.role == "owner"
        arm = demo.robot()
        moving = [arm.targets(demo.state(sinew.DRIVE_TARGETS))]
        time.sleep(0.3)
        moving.append(arm.targets(demo.state(sinew.DRIVE_TARGETS)))
        assert moving[0] != moving[1], "the demo motion moves the targets"
        arm.set_targets({"joint2": 0.5})
        held = arm.targets(demo.state(sinew.DRIVE_TARGETS))
        assert held[arm.dof("joint2")] == 0.5
        # The motion stands by: the targets stay where the client and the hold left them, and the arm,
        # stopped mid-motion, rings down (about tenfold per 0.5 s, measured) to rest within 5 s.
        deadline = time.monotonic() + 5.0
        while True:
            state = demo.state(sinew.DRIVE_TARGETS | sinew.JOINT_POSITIONS | sinew.VELOCITIES)
            assert arm.targets(state) == held
            if max(abs(v) for v in arm.velocities(state)) < 0.01 or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        assert max(abs(v) for v in arm.velocities(state)) < 0.01
        assert abs(arm.position("joint2", state) - 0.5) < 0.05
        demo.reset()
        time.sleep(0.3)
        after = arm.targets(demo.state(sinew.DRIVE_TARGETS))
        assert after != held, "after a reset the demo motion drives the robot again"
