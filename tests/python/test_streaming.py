"""Subscriptions (iterator and callback), lockstep control, events, and the end of a connection."""

import math
import threading
import time

import pytest

import sinew


Y_AXIS = sinew.quat_from_axis_angle((0, 0, 1), math.pi / 2)


def pendulum(world, drive=None):
    return world.create_articulation([
        sinew.Link("base"),
        sinew.Link("bob", joint="revolute", joint_name="hinge", parent_frame=((0, 0, 1), Y_AXIS),
                   child_frame=((-0.5, 0, 0), Y_AXIS), mass=1.0, inertia=(0.01, 0.01, 0.01), drive=drive),
    ])


def test_iterator_streams_frames_of_a_paused_world_as_it_steps(client):
    world = client.create_world("stream", dt=0.002)
    arm = pendulum(world)
    with world.subscribe(rate_hz=1000, include=sinew.JOINT_POSITIONS | sinew.POSES) as sub:
        first = sub.get(timeout=10)  # the current state at once
        assert first.tick == 0 and first.subscription_id == sub.id
        world.step(10)
        # The latest state is sent when a world stops stepping: tick 10 arrives.
        ticks = [first.tick]
        for state in sub:
            ticks.append(state.tick)
            assert len(state.articulation(arm).positions) == 1
            if state.tick == 10:
                break
        assert ticks == sorted(ticks)
    assert sub.latest() is None or sub.latest().tick <= 10


def test_callback_runs_on_its_own_thread_and_may_call_the_client(client):
    world = client.create_world("callback", dt=0.002, mode="realtime")
    pendulum(world)
    seen = []
    done = threading.Event()

    def on_state(state):
        # Calling the client from a callback must not deadlock (replies are read on another thread).
        seen.append((state.tick, world.state().tick))
        if len(seen) >= 5:
            done.set()

    sub = world.subscribe(rate_hz=50, callback=on_state)
    assert done.wait(10), "5 frames at 50 Hz did not come within 10 s"
    sub.close()
    ticks = [t for t, _ in seen]
    assert ticks == sorted(ticks) and ticks[-1] > ticks[0]
    assert all(now >= t for t, now in seen)


def test_callback_exception_is_raised_by_close(client):
    world = client.create_world("raising", dt=0.002)
    sub = world.subscribe(rate_hz=10, callback=lambda state: 1 / 0)
    deadline = time.monotonic() + 10
    while sub.callback_error is None and time.monotonic() < deadline:
        time.sleep(0.01)
    with pytest.raises(ZeroDivisionError):
        sub.close()


def test_time_mode_events_and_pause_stops_time(client):
    world = client.create_world("modes", dt=0.001)
    world.play(rate=1.0)
    event = client.wait_event("time_mode", world, timeout=10)
    assert event is not None and event.time_mode.time.mode == sinew.pb.TIME_REALTIME
    time.sleep(0.2)
    world.pause()
    paused_at = world.state().tick
    assert paused_at > 0
    time.sleep(0.2)
    assert world.state().tick == paused_at
    assert world.info().mode == "paused"


def test_lockstep_two_controllers(server):
    """Tick k steps only when both controllers sent tick k; a controller that stops sending is demoted
    after the world's lockstep timeout and the other goes on alone."""
    owner = server.connect(name="owner")
    other = server.connect(name="other")
    try:
        world = owner.create_world("lock", dt=0.002)
        arm = pendulum(world, drive=sinew.Drive(stiffness=50, damping=5))
        world.set_time_mode("lockstep", lockstep_timeout_ms=300)
        mine = world.lockstep()
        theirs_world = other.open_world(world.id, role="controller")
        theirs = theirs_world.lockstep()
        assert mine.tick == theirs.tick == 0
        results = {}

        def run_other():
            for _ in range(3):
                results.setdefault("other", []).append(theirs.step().step_count)

        t = threading.Thread(target=run_other)
        t.start()
        for _ in range(3):
            results.setdefault("owner", []).append(mine.step(targets={arm: {"hinge": 0.3}}).step_count)
        t.join(10)
        assert results == {"owner": [1, 2, 3], "other": [1, 2, 3]}
        # The other controller stops sending: after 300 ms it is demoted and the tick steps anyway.
        start = time.monotonic()
        assert mine.step().step_count == 4
        assert time.monotonic() - start < 10
        demoted = owner.wait_event("demoted", world, timeout=10)
        assert demoted is not None and demoted.demoted.session_id == other.session_id
        with pytest.raises(sinew.SinewError) as e:
            theirs.step()
        assert e.value.code in (sinew.ErrorCode.ERR_FORBIDDEN_BY_ROLE, sinew.ErrorCode.ERR_STALE_TICK)
    finally:
        other.close()
        owner.close()


def test_lockstep_controllers_by_key(server):
    """With a controller key only the clients that know it control the world, so a stranger cannot join
    and hold its ticks: it stays an observer, and the ticks step on the keyed controllers alone."""
    owner = server.connect(name="owner")
    friend = server.connect(name="friend")
    stranger = server.connect(name="stranger")
    try:
        world = owner.create_world("keyed", dt=0.002)
        pendulum(world, drive=sinew.Drive(stiffness=50, damping=5))
        world.set_time_mode("lockstep", lockstep_timeout_ms=60000)
        world.set_controller_key("team key")
        assert [w.controller_key for w in stranger.worlds() if w.id == world.id] == [True]
        with pytest.raises(sinew.Forbidden) as refused:
            stranger.open_world(world.id, role="controller")
        assert "controller key" in refused.value.message
        assert stranger.open_world(world.id, role="observer").role == "observer"
        mine = world.lockstep()
        theirs = friend.open_world(world.id, role="controller", controller_key="team key").lockstep()
        results = {}
        t = threading.Thread(target=lambda: results.update(friend=[theirs.step().step_count for _ in range(3)]))
        t.start()
        results["owner"] = [mine.step().step_count for _ in range(3)]
        t.join(10)
        assert results == {"owner": [1, 2, 3], "friend": [1, 2, 3]}
    finally:
        stranger.close()
        friend.close()
        owner.close()


def test_stopping_the_server_ends_calls_and_streams(start_server):
    s = start_server()
    c = s.connect()
    world = c.create_world("end", dt=0.002, mode="realtime")
    sub = world.subscribe(rate_hz=30)
    sub.get(timeout=10)
    assert s.stop() == 0
    # Every later call says why the connection ended: the server's Closing (shutting down).
    with pytest.raises(sinew.ConnectionClosed) as e:
        for _ in range(100):
            c.ping()
            time.sleep(0.05)
    assert e.value.code == sinew.ErrorCode.ERR_SHUTTING_DOWN
    assert c.closed is not None
    # The stream ends: iteration stops after what was already received.
    frames = list(sub)
    assert all(f.world_id == world.id for f in frames)
    c.close()
