"""The Python client against a real sinewd: sessions, worlds, articulations by joint name, state as lists
and arrays, errors with the server's codes, snapshots."""

import math

import pytest

import sinew


G = 9.81  # m/s^2, the world's default gravity magnitude
Y_AXIS = sinew.quat_from_axis_angle((0, 0, 1), math.pi / 2)  # turns the joint x axis onto world y


def arm_links(stiffness=200.0, damping=20.0, mass=2.0, r=0.5):
    """A one-joint arm: link 1 hinged about world y at the origin, its centre of mass r (m) along its
    x axis, held by a PD drive."""
    return [
        sinew.Link("base"),
        sinew.Link("link1", joint="revolute", joint_name="shoulder", parent="base",
                   parent_frame=sinew.Pose((0, 0, 0), Y_AXIS), child_frame=sinew.Pose((-r, 0, 0), Y_AXIS),
                   mass=mass, inertia=(0.01, 0.01, 0.01),
                   drive=sinew.Drive(stiffness=stiffness, damping=damping)),
    ]


def two_joint_links():
    drive = sinew.Drive(stiffness=50.0, damping=5.0)
    return [
        sinew.Link("base"),
        sinew.Link("upper", joint="revolute", joint_name="shoulder", parent_frame=((0, 0, 1), Y_AXIS),
                   child_frame=((-0.25, 0, 0), Y_AXIS), mass=1.0, inertia=(0.01, 0.01, 0.01), drive=drive),
        sinew.Link("lower", joint="revolute", joint_name="elbow", parent="upper",
                   parent_frame=((0.25, 0, 0), Y_AXIS), child_frame=((-0.25, 0, 0), Y_AXIS), mass=1.0,
                   inertia=(0.01, 0.01, 0.01), drive=drive),
    ]


def test_handshake_and_world_list(server, client):
    assert client.session_id != 0
    assert client.role == "controller"
    assert "articulations" in client.capabilities
    assert client.min_receive_bytes_per_s == 65536
    assert client.ping() < 5.0
    assert client.worlds() == []
    w = client.create_world("first", dt=0.002, solver="tgs")
    infos = client.worlds()
    assert [(i.id, i.name, i.role, i.mode) for i in infos] == [(w.id, "first", "owner", "paused")]
    assert infos[0].dt == 0.002


def test_token_is_required_and_checked(start_server):
    s = start_server("--token", "s3cret")
    with pytest.raises(sinew.SinewError) as refused:
        s.connect(token="wrong")
    assert refused.value.code == sinew.ErrorCode.ERR_UNAUTHORISED
    assert refused.value.name == "ERR_UNAUTHORISED"
    with s.connect(token="s3cret") as c:
        assert c.worlds() == []


def test_drive_holds_the_arm_against_gravity(client):
    """At rest the drive's effort balances gravity's torque about the hinge, m g r cos(q), and equals
    the PD law k (target - q) (velocity ~ 0)."""
    k, m, r = 200.0, 2.0, 0.5
    world = client.create_world("arm", dt=0.002)
    arm = world.create_articulation(arm_links(stiffness=k, mass=m, r=r))
    assert arm.joints == ["shoulder"] and arm.dof_count == 1
    # Critically damped at ~20 rad/s: after 3 s the residual motion is below 1e-9 of the deflection.
    world.step(1500)
    state = world.state(sinew.JOINT_POSITIONS | sinew.VELOCITIES | sinew.DRIVE_EFFORTS)
    q = arm.position("shoulder", state)
    effort = arm.efforts(state)[0]
    assert abs(arm.velocities(state)[0]) < 1e-6
    # Gravity pulls the link down; a small static deflection of ~ m g r / k = 0.049 rad.
    assert abs(abs(q) - m * G * r / k) < 0.01 * m * G * r / k + 1e-3
    # Relative 1e-6: the rest state is exact to the solver's convergence, far below that.
    assert abs(abs(effort) - m * G * r * math.cos(q)) < 1e-6 * m * G * r
    assert abs(effort - k * (0.0 - q)) < 1e-6 * m * G * r


def test_targets_by_joint_name_move_the_joints(client):
    world = client.create_world("two", dt=0.002)
    arm = world.create_articulation(two_joint_links())
    assert arm.joints == ["shoulder", "elbow"] and arm.dof(1) == 1 and arm.dof("elbow") == 1
    world.configure(gravity=(0, 0, 0))
    arm.set_targets({"elbow": 0.4, "shoulder": -0.3})
    world.step(2000)  # 4 s; the drive's slowest mode decays within ~1 s
    q = arm.joint_positions()
    # Without gravity the drives reach their targets; 1e-4 rad covers the residual of the decay.
    assert abs(q["shoulder"] - -0.3) < 1e-4
    assert abs(q["elbow"] - 0.4) < 1e-4
    # A full sequence in dof order, and velocity targets.
    arm.set_targets([0.1, 0.2], velocities=[0.0, 0.0])
    world.step(2000)
    assert [round(v, 4) for v in arm.positions()] == [0.1, 0.2]
    with pytest.raises(KeyError):
        arm.set_targets({"wrist": 1.0})
    with pytest.raises(ValueError):
        arm.set_targets([0.1])


def test_state_as_lists_and_arrays_round_trips_exactly(client):
    import numpy as np  # python3-numpy (scripts/install-deps.sh)
    world = client.create_world("exact", dt=0.002)
    arm = world.create_articulation(two_joint_links())
    values = [0.1 + 1e-17, -2.0 / 3.0]
    arm.set_state(positions=values, velocities=[1.0 / 3.0, 0.0])
    state = world.state(sinew.EVERYTHING)
    # Doubles cross the wire as doubles: bit for bit.
    assert arm.positions(state) == values
    assert arm.velocities(state) == [1.0 / 3.0, 0.0]
    q = arm.positions(state, array=True)
    assert isinstance(q, np.ndarray) and q.dtype == np.float64 and list(q) == values
    a = state.articulation(arm)
    assert len(a.link_poses) == 3
    position, rotation = a.link_poses[0]
    assert position == (0.0, 0.0, 0.0) and rotation == (0.0, 0.0, 0.0, 1.0)
    assert state.tick == 0 and state.time == 0.0


def test_errors_carry_the_servers_code_and_message(server, client):
    world = client.create_world("errors", dt=0.002)
    arm = world.create_articulation(two_joint_links())
    with pytest.raises(sinew.SinewError) as e:
        world.step(0)
    assert e.value.code == sinew.ErrorCode.ERR_INVALID_ARGUMENT and "count" in e.value.message
    assert e.value.command == "step"
    with pytest.raises(sinew.SinewError) as e:
        arm.set_targets({"shoulder": float("nan")})
    assert e.value.code == sinew.ErrorCode.ERR_NOT_FINITE
    world.play()
    with pytest.raises(sinew.SinewError) as e:
        world.step(1)
    assert e.value.code == sinew.ErrorCode.ERR_WRONG_TIME_MODE
    world.pause()
    with pytest.raises(sinew.SinewError) as e:
        client.open_world(987654321)
    assert e.value.code == sinew.ErrorCode.ERR_UNKNOWN_WORLD
    with pytest.raises(sinew.SinewError) as e:
        world.articulation(12345, dof_count=1).set_targets([0.0])
    assert e.value.code == sinew.ErrorCode.ERR_INVALID_ID
    # Someone else's world: an observer session may look but not touch.
    with server.connect(role="observer", name="watcher") as watcher:
        seen = watcher.open_world("errors", role="observer")
        assert seen.role == "observer"
        assert seen.state().tick == world.state().tick
        with pytest.raises(sinew.SinewError) as e:
            seen.step(1)
        assert e.value.code == sinew.ErrorCode.ERR_FORBIDDEN_BY_ROLE
        with pytest.raises(sinew.SinewError) as e:
            watcher.create_world("mine")
        assert e.value.code == sinew.ErrorCode.ERR_FORBIDDEN_BY_ROLE


def test_a_refused_command_changes_nothing(client):
    """Restore a snapshot, step, and compare bit for bit with and without a refused command between."""
    world = client.create_world("same", dt=0.002)
    arm = world.create_articulation(two_joint_links())
    arm.set_targets({"shoulder": 0.5, "elbow": -0.5})
    snap = world.snapshot()
    world.step(300)
    first = world.state(sinew.EVERYTHING)
    world.restore(snap)
    with pytest.raises(sinew.SinewError):
        arm.set_targets({"shoulder": 0.2, "elbow": float("inf")})  # all or nothing: shoulder unchanged too
    world.step(300)
    second = world.state(sinew.EVERYTHING)
    assert first.frame.articulations[0] == second.frame.articulations[0]
    world.reset()
    assert world.state().tick == 0


def test_free_flight_of_a_body(client):
    world = client.create_world("bodies", dt=0.001)
    body = world.create_body(position=(0, 0, 1), mass=2.0, linear_velocity=(1, 0, 0))
    world.step(1000)  # 1 s of free flight
    b = world.state(sinew.POSES | sinew.VELOCITIES).body(body)
    # Free flight: x = v t exactly up to rounding; z = 1 - g t^2 / 2 to the integrator's O(dt) error.
    assert abs(b.position[0] - 1.0) < 1e-9
    assert abs(b.position[2] - (1.0 - 0.5 * G)) < G * 0.001
    assert abs(b.linear_velocity[2] + G) < 1e-9
