"""Shapes, contacts, model assets and meshes from Python: bodies created with shapes in the client's style,
the world's own ground, shapes described back; contacts in frames and contact events in a subscription;
load_urdf_file sending the mesh files a URDF names, once (a second load sends none); meshes fetched by
hash; a model on the server's model path."""

import os

import pytest

import sinew

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
MESHES = os.path.join(ROOT, "tests", "model", "meshes")
MESHBOT = os.path.join(MESHES, "meshbot", "urdf", "meshbot.urdf")


def still_world(client, name):
    """A world without gravity: bodies stay where they are put."""
    return client.create_world(name, gravity=(0.0, 0.0, 0.0))


def test_bodies_with_shapes(client):
    world = still_world(client, "shapes")
    ground = world.create_shape(sinew.Plane())
    body = world.create_body(position=(0, 0, 1), shapes=[
        sinew.Box((0.1, 0.2, 0.3)),
        sinew.Shape(sinew.Sphere(0.05), pose=((0, 0, 0.4), (0, 0, 0, 1)), material=sinew.Material(friction=0.25),
                    filter=sinew.Filter(category=2), sensor=True),
        sinew.Hull([(0, 0, 0), (0.1, 0, 0), (0, 0.1, 0), (0, 0, 0.1)]),
    ], density=500.0)
    assert isinstance(body, int) and len(body.shape_ids) == 3
    shapes = {s.id: s for s in world.shapes()}
    assert set(shapes) == set(body.shape_ids) | {ground}
    box, ball, hull = (shapes[i] for i in body.shape_ids)
    assert box.type == "box" and box.size == (0.1, 0.2, 0.3) and box.body == body and box.link is None
    assert ball.type == "sphere" and ball.size == (0.05,) and ball.pose.position == (0, 0, 0.4)
    assert ball.friction == 0.25 and ball.sensor and ball.info.filter.category == 2
    assert hull.type == "hull" and len(hull.size) == 4
    assert shapes[ground].type == "plane" and shapes[ground].body is None
    assert shapes[ground].size == (0.0, 0.0, 1.0, 0.0)
    # A bad shape is refused with what is wrong, and nothing is created (the body neither).
    with pytest.raises(sinew.InvalidArgument) as err:
        world.create_body(shapes=[sinew.Box((0.1, 0.1, 0.1)), sinew.Sphere(-1.0)])
    assert "shapes[1]" in str(err.value)
    with pytest.raises(sinew.InvalidArgument):
        world.create_body(shapes=[sinew.Plane()])  # a plane on a dynamic body
    assert world.info().body_count == 1 and len(world.shapes()) == 4
    world.destroy_shape(ground)
    assert len(world.shapes()) == 3


def test_contacts_and_events(client):
    world = still_world(client, "contacts")
    ground = world.create_shape(sinew.Plane())
    box = world.create_body(position=(0, 0, 0.099), shapes=[sinew.Box((0.1, 0.1, 0.1))])
    with world.subscribe(rate_hz=1000, include=sinew.POSES | sinew.CONTACTS | sinew.CONTACT_EVENTS) as sub:
        world.step(1)
        state = world.state(sinew.CONTACTS)
        assert state.contacts_dropped == 0
        (contact,) = [c for c in state.contacts if {c.a.shape, c.b.shape} == {ground, box.shape_ids[0]}]
        assert contact.touching and len(contact.points) == 4
        assert abs(abs(contact.normal[2]) - 1.0) < 1e-9
        sides = {contact.a.shape: contact.a, contact.b.shape: contact.b}
        assert sides[ground].body is None and sides[box.shape_ids[0]].body == box
        # The first frame after the step brings the begin event with it.
        deadline = 50
        changes = []
        while not changes and deadline > 0:
            sub.get(timeout=5)
            changes = sub.contact_changes()
            deadline -= 1
        assert [c.kind for c in changes] == ["begin"] and changes[0].tick == 1


def test_load_urdf_file_sends_each_mesh_once(client, monkeypatch):
    sent = []
    real_put = client.put_asset

    def counting_put(data):
        sent.append(len(data))
        return real_put(data)

    monkeypatch.setattr(client, "put_asset", counting_put)
    world = client.create_world("meshbot")
    # Its package://meshbot files are found above the URDF (tests/model/meshes/meshbot), its relative one
    # beside it; all three go to the server.
    arm = world.load_urdf_file(MESHBOT)
    assert len(sent) == 3
    visuals = [v for v in arm.urdf.visuals if v.HasField("mesh_ref")]
    assert len(visuals) == 2
    mesh = client.get_mesh(visuals[0].mesh_ref.hash)
    assert mesh.triangle_count == visuals[0].mesh_ref.triangle_count > 0
    assert mesh.hash == visuals[0].mesh_ref.hash
    assert len(mesh.positions) == 3 * mesh.vertex_count and len(mesh.normals) == len(mesh.positions)
    # Loading the same robot again, from another world, sends nothing new.
    again = client.create_world("meshbot again")
    again.load_urdf_file(MESHBOT)
    assert len(sent) == 3
    # Collision meshes became hulls on the links.
    assert sum(1 for s in again.shapes() if s.type == "hull") == 2
    with pytest.raises(sinew.NotFound):
        client.get_mesh(b"\x01" * 32)


def test_model_files_found_as_the_importer_finds_them(tmp_path):
    files = sinew.read_model_files(MESHBOT)
    assert sorted(files.assets) == ["../meshes/cube.obj", "package://meshbot/meshes/box_yup_mm.dae",
                                    "package://meshbot/meshes/cube.stl"]
    assert files.missing == []
    # A package the URDF's folders do not hold: found on the package path, else missing.
    urdf = tmp_path / "robot.urdf"
    urdf.write_text('<robot name="r"><link name="a"><visual><geometry><mesh filename="package://meshbot/meshes/'
                    'cube.stl"/></geometry></visual></link></robot>')
    assert sinew.read_model_files(str(urdf)).missing == ["package://meshbot/meshes/cube.stl"]
    found = sinew.read_model_files(str(urdf), package_path=MESHES)
    assert list(found.assets) == ["package://meshbot/meshes/cube.stl"] and found.missing == []


def test_a_model_on_the_server_model_path(start_server):
    server = start_server("--model-path", MESHES)
    with server.connect() as client:
        world = client.create_world("from the server")
        arm = world.load_model("meshbot/urdf/meshbot.urdf")
        assert arm.robot == "meshbot"
        assert sum(1 for v in arm.urdf.visuals if v.HasField("mesh_ref")) == 2
        with pytest.raises(sinew.InvalidArgument) as err:
            world.load_model("meshbot/../../urdf/pendulum.urdf")
        assert "refused" in str(err.value) or "not found" in str(err.value)
