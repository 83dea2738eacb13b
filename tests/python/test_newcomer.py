"""What a newcomer meets first: where the client connects (the SINEW_* variables), errors as an IntEnum
with a class per family, worlds that go with their session unless kept, unique world names, the
protected demo world, maximal joints from keyword arguments, links by URDF name, targets refused outside
a joint's limits, states whose lists iterate as lists, and type hints on the whole public API."""

import math
import os

import pytest

import sinew
from sinew import Limit, Motor, Soft, Spring

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
GRIPPER = os.path.join(ROOT, "tests", "model", "urdf", "gripper.urdf")


def test_connect_reads_the_servers_variables(server, monkeypatch):
    monkeypatch.setenv("SINEW_HOST", "127.0.0.1")
    monkeypatch.setenv("SINEW_TCP_PORT", str(server.tcp_port))
    with sinew.connect(name="from-env") as c:
        assert c.port == server.tcp_port and c.worlds() == []
    monkeypatch.setenv("SINEW_TCP_PORT", "http")
    with pytest.raises(ValueError, match="SINEW_TCP_PORT"):
        sinew.connect()
    # The HTTP/WebSocket port is named for what it is, not a bare connection reset.
    with pytest.raises(sinew.ProtocolError, match="HTTP/WebSocket port"):
        sinew.connect("127.0.0.1", server.ws_port, timeout=5)


def test_errors_come_as_codes_and_families(server, client):
    assert sinew.ErrorCode.ERR_UNKNOWN_WORLD == -108 and sinew.ErrorCode(-117).name == "ERR_NAME_TAKEN"
    world = client.create_world("first", dt=0.002)
    with pytest.raises(sinew.Conflict) as e:
        client.create_world("first")
    assert e.value.code == sinew.ErrorCode.ERR_NAME_TAKEN and str(world.id) in e.value.message
    with pytest.raises(LookupError) as e:  # NotFound is a LookupError
        client.open_world("nowhere")
    assert isinstance(e.value, sinew.NotFound) and "first" in e.value.message
    with pytest.raises(ValueError) as e:  # InvalidArgument is a ValueError
        world.step(0)
    assert isinstance(e.value, sinew.InvalidArgument) and e.value.code == sinew.ErrorCode.ERR_INVALID_ARGUMENT
    with server.connect(role="observer") as watcher:
        with pytest.raises(PermissionError) as e:  # Forbidden is a PermissionError
            watcher.open_world("first", role="observer").step(1)
        assert isinstance(e.value, sinew.Forbidden)
    world.play()
    with pytest.raises(sinew.Conflict) as e:
        world.step(1)
    assert e.value.code == sinew.ErrorCode.ERR_WRONG_TIME_MODE


def test_a_world_goes_with_its_session_unless_kept(server):
    with server.connect() as c:
        c.create_world("mine")
        c.create_world("kept", keep_after_disconnect=True)
    with server.connect() as c:
        names = {w.name for w in c.worlds()}
        assert names == {"kept"}
        kept = c.open_world("kept", role="owner")  # ownerless now: anyone may own it
        assert kept.role == "owner"
        kept.destroy()
        assert c.worlds() == []


def test_the_demo_world_is_protected(start_server):
    s = start_server(demo=True)
    with s.connect() as c:
        [info] = c.worlds()
        # The demo arm: base, seven links with the hand merged into the last (a fixed joint), two fingers.
        assert info.name == "demo" and info.destroy_protected and info.link_count == 10
        demo = c.open_world("demo", role="owner")
        with pytest.raises(sinew.Forbidden) as e:
            demo.destroy()
        assert e.value.code == sinew.ErrorCode.ERR_PROTECTED and "--allow-demo-destroy" in e.value.message
        assert [w.name for w in c.worlds()] == ["demo"]


def test_maximal_joints_from_keywords(client):
    """A pendulum on a hinge with a motor: the motor holds its speed (no limit reached within 1 s); every
    kind of joint is made without protobuf."""
    world = client.create_world("joints", dt=0.001, gravity=(0, 0, 0))
    bob = world.create_body(position=(1, 0, 0), mass=1.0)
    hinge = world.create_joint("hinge", 0, bob, frame_b=((-1, 0, 0), (0, 0, 0, 1)),
                               limit=Limit(-3.0, 3.0), motor=Motor(speed=0.5, max_force=100.0))
    world.step(1000)
    [joint] = world.state(sinew.JOINT_POSITIONS | sinew.VELOCITIES).joints
    assert joint.id == hinge
    # Rigid motor row without gravity: the joint turns at the motor's speed; 1e-3 rad/s covers the
    # solver's convergence at its default iterations.
    assert abs(joint.velocity[0] - 0.5) < 1e-3
    assert abs(joint.position[0] - 0.5) < 1e-2
    others = [
        ("fixed", {}),
        ("prismatic", {"limit": Limit(-0.1, 0.1), "spring": Spring(0.05, Soft.frequency(5.0))}),
        ("cylindrical", {"linear_limit": Limit(-0.1, 0.1), "angular_motor": Motor(1.0)}),
        ("spherical", {"swing": sinew.Cone(0.5, 0.4), "twist": Limit(-0.2, 0.2)}),
        ("distance", {"length": 0.5, "spring": Soft(stiffness=100.0, damping=1.0)}),
        ("six_axis", {"axes": [sinew.Axis("x", -0.1, 0.1), sinew.Axis("rz", motor=Motor(0.3))]}),
    ]
    for kind, options in others:
        a = world.create_body(position=(0, 0, 2), mass=1.0)
        b = world.create_body(position=(0, 0, 2.5), mass=1.0)
        world.create_joint(kind, a, b, frame_b=((0, 0, -0.5), (0, 0, 0, 1)), break_force=1e6, **options)
    assert world.info().joint_count == 1 + len(others)
    with pytest.raises(TypeError, match="hinge joint has no option swing"):
        world.create_joint("hinge", 0, bob, swing=sinew.Cone())
    with pytest.raises(ValueError, match="joint kind"):
        world.create_joint("rope", 0, bob)


def test_links_by_urdf_name_and_targets_within_limits(client):
    world = client.create_world("gripper", dt=0.001, gravity=(0, 0, 0))
    arm = world.load_urdf_file(GRIPPER, base_pose=sinew.Pose((1.0, 2.0, 3.0)),
                               drive_all=sinew.Drive(stiffness=200.0, damping=20.0))
    state = world.state(sinew.POSES | sinew.JOINT_POSITIONS)
    # At q = 0 each link's frame is its joint's origin in the URDF, added up from the base (exact sums
    # of the URDF's numbers up to rounding: 1e-12 m).
    expected = {"palm": (1.0, 2.0, 3.0), "hand": (1.0, 2.0, 3.03), "finger_left": (1.0, 2.02, 3.08),
                "thumb": (1.03, 2.0, 3.07)}
    for name, position in expected.items():
        pose = arm.link_pose(name, state)
        assert max(abs(p - q) for p, q in zip(pose.position, position)) < 1e-12, (name, pose)
    assert set(arm.link_poses(state)) >= set(expected)
    with pytest.raises(KeyError, match="no link named 'elbow'"):
        arm.link_pose("elbow", state)
    # Limits come from the URDF; a target outside them is refused before anything is sent.
    assert arm.limits["wrist"] == (-3.0, 3.0) and arm.limits["finger_left_joint"] == (0.0, 0.04)
    before = arm.targets(world.state(sinew.DRIVE_TARGETS))
    with pytest.raises(ValueError, match=r"wrist: target 3.5 is outside its limits \[-3, 3\]"):
        arm.set_targets({"finger_left_joint": 0.02, "wrist": 3.5})
    assert arm.targets(world.state(sinew.DRIVE_TARGETS)) == before
    arm.set_targets({"wrist": 3.0})  # the limit itself is allowed
    # The same limits for a client that only describes the world.
    [seen] = world.describe()
    assert seen.limits["wrist"] == (-3.0, 3.0)


def test_state_lists_iterate_as_lists(client):
    world = client.create_world("lists", dt=0.002)
    bodies = [world.create_body(position=(i, 0, 0)) for i in range(3)]
    arm = world.load_urdf_file(GRIPPER)
    state = world.state(sinew.EVERYTHING)
    assert [b.id for b in state.bodies] == bodies
    assert [a.id for a in state.articulations] == [arm.id]
    for a in state.articulations:
        assert len(a.positions) == arm.dof_count
    assert state.body(bodies[1]).position == (1.0, 0.0, 0.0)
    assert state.articulation(arm) is state.articulations[0]
    with pytest.raises(KeyError):
        state.body(12345)


def test_hello_arm_finds_the_server_through_the_variables(start_server):
    import subprocess
    import sys
    s = start_server(demo=True)
    env = dict(os.environ, SINEW_TCP_PORT=str(s.tcp_port), SINEW_HOST="127.0.0.1")
    examples = os.environ.get("SINEW_EXAMPLES", os.path.join(ROOT, "clients", "python", "examples"))
    out = subprocess.run([sys.executable, os.path.join(examples, "hello_arm.py")], capture_output=True, text=True,
                         timeout=60, env=env)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "the demo robot sinew_arm" in out.stdout


def test_the_public_api_has_type_hints():
    # Every public function and method of the modules users call (and every one of their parameters
    # but self, cls, *args and **kwargs collectors, which are hinted as a whole) is annotated, return
    # type included.
    import inspect

    from sinew import articulation, client, connection, joints, placement, state, world

    missing = []
    for module in (client, world, articulation, state, joints, placement, connection):
        for name, obj in vars(module).items():
            if name.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
                continue
            functions = [(name, obj)] if inspect.isfunction(obj) else []
            if inspect.isclass(obj):
                for attr, member in vars(obj).items():
                    member = getattr(member, "fget", member)
                    member = getattr(member, "__func__", member)
                    if inspect.isfunction(member) and (not attr.startswith("_") or attr == "__init__"):
                        functions.append(("%s.%s" % (name, attr), member))
            for qualified, function in functions:
                signature = inspect.signature(function)
                if signature.return_annotation is inspect.Signature.empty and not qualified.endswith("__init__"):
                    missing.append("%s.%s: return" % (module.__name__, qualified))
                for parameter in list(signature.parameters.values()):
                    if parameter.name in ("self", "cls"):
                        continue
                    if parameter.annotation is inspect.Parameter.empty:
                        missing.append("%s.%s: %s" % (module.__name__, qualified, parameter.name))
    assert not missing, "not annotated: " + ", ".join(missing)
