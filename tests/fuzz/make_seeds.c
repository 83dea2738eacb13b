// Writes a seed corpus for fuzz_dispatch: sessions of valid commands in the fuzz input format (flags byte
// 1: handshake first, then varint-delimited ClientMessages), so the fuzzer starts from inputs that reach
// every handler (shapes, contacts and model assets included). With --http, a corpus for fuzz_http instead: HTTP requests to every endpoint and
// WebSocket sessions (the upgrade, then masked binary frames of commands) as a client sends them.
#include "wire.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct seed
{
	uint8_t bytes[65536];
	size_t size;
} seed;

static void add(seed* s, sinew_v1_ClientMessage* m)
{
	uint8_t* out = NULL;
	size_t n = 0;
	if (!wire_encode_alloc(sinew_v1_ClientMessage_fields, m, 0, &out, &n) || s->size + n + 10 > sizeof(s->bytes))
	{
		free(out);
		return;
	}
	s->size += wire_varint_put(s->bytes + s->size, n);
	memcpy(s->bytes + s->size, out, n);
	s->size += n;
	free(out);
}

typedef struct link_list
{
	const sinew_v1_LinkDef* links;
	int count;
} link_list;

static bool encode_links(pb_ostream_t* stream, const pb_field_t* field, void* const* arg)
{
	const link_list* list = *arg;
	for (int i = 0; i < list->count; ++i)
	{
		if (!pb_encode_tag_for_field(stream, field) ||
			!pb_encode_submessage(stream, sinew_v1_LinkDef_fields, list->links + i))
		{
			return false;
		}
	}
	return true;
}

static sinew_v1_ClientMessage cmd(pb_size_t tag, uint64_t id)
{
	sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
	m.which_command = tag;
	m.request_id = id;
	return m;
}

static void save(const char* dir, const char* name, const seed* s)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE* f = fopen(path, "wb");
	if (f != NULL)
	{
		fwrite(s->bytes, 1, s->size, f);
		fclose(f);
	}
}

// The first world a fresh server creates has id (1 << 32) | 1; its first bodies and joints likewise.
static const uint64_t world = (1ull << 32) | 1u;
static const uint64_t body1 = (1ull << 32) | 1u;
static const uint64_t body2 = (2ull << 32) | 1u;

static void world_with_joint(seed* s, pb_size_t joint_tag)
{
	s->bytes[0] = 1;
	s->size = 1;
	sinew_v1_ClientMessage m = cmd(sinew_v1_ClientMessage_create_world_tag, 1);
	add(s, &m);
	for (int i = 0; i < 2; ++i)
	{
		m = cmd(sinew_v1_ClientMessage_create_body_tag, 2 + (uint64_t)i);
		m.command.create_body.world_id = world;
		m.command.create_body.has_body = true;
		m.command.create_body.body.has_pose = true;
		m.command.create_body.body.pose.has_position = true;
		m.command.create_body.body.pose.position.x = i;
		add(s, &m);
	}
	m = cmd(sinew_v1_ClientMessage_create_joint_tag, 4);
	m.command.create_joint.world_id = world;
	m.command.create_joint.has_base = true;
	m.command.create_joint.base.body_a = body1;
	m.command.create_joint.base.body_b = body2;
	m.command.create_joint.which_type = joint_tag;
	add(s, &m);
}

// ---- fuzz_http ----------------------------------------------------------------------------------------

static void put_text(seed* s, const char* text)
{
	size_t n = strlen(text);
	if (s->size + n <= sizeof(s->bytes))
	{
		memcpy(s->bytes + s->size, text, n);
		s->size += n;
	}
}

// One masked client frame (RFC 6455 section 5.2) holding `message`.
static void put_frame(seed* s, int opcode, const uint8_t* message, size_t n)
{
	static const uint8_t mask[4] = { 0x12, 0x34, 0x56, 0x78 };
	if (s->size + n + 14 > sizeof(s->bytes))
	{
		return;
	}
	s->bytes[s->size++] = (uint8_t)(0x80 | opcode);
	if (n < 126)
	{
		s->bytes[s->size++] = (uint8_t)(0x80 | n);
	}
	else
	{
		s->bytes[s->size++] = 0x80 | 126;
		s->bytes[s->size++] = (uint8_t)(n >> 8);
		s->bytes[s->size++] = (uint8_t)n;
	}
	memcpy(s->bytes + s->size, mask, 4);
	s->size += 4;
	for (size_t i = 0; i < n; ++i)
	{
		s->bytes[s->size++] = message[i] ^ mask[i & 3];
	}
}

static void put_command(seed* s, sinew_v1_ClientMessage* m)
{
	uint8_t* out = NULL;
	size_t n = 0;
	if (wire_encode_alloc(sinew_v1_ClientMessage_fields, m, 0, &out, &n))
	{
		put_frame(s, 2, out, n);
	}
	free(out);
}

static void http_seeds(const char* dir)
{
	static const char* const requests[] = {
		"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
		"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /index.html HTTP/1.1\r\nRange: bytes=0-3\r\n\r\n",
		"GET /a%00.js HTTP/1.1\r\nX-A: a\r\n\r\n",
		"POST /healthz HTTP/1.1\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nabcd\r\n0\r\n\r\n",
		"HEAD /healthz HTTP/1.0\r\n\r\n",
		("GET /assets/e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 HTTP/1.1\r\n"
		 "If-None-Match: \"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\"\r\n\r\n"),
		"GET /assets/xyz HTTP/1.1\r\n\r\nGET /assets/ HTTP/1.1\r\n\r\n",
		// Two requests with bodies, pipelined (the HTTP library once spun on these: ws.c, request_has_body).
		"POST /x HTTP/1.1\r\nContent-Length: 1\r\n\r\naPOST /x HTTP/1.1\r\nContent-Length: 1\r\n\r\na",
	};
	static seed s;
	for (size_t i = 0; i < sizeof(requests) / sizeof(requests[0]); ++i)
	{
		s.size = 0;
		put_text(&s, requests[i]);
		char name[32];
		snprintf(name, sizeof(name), "http-%zu", i);
		save(dir, name, &s);
	}
	// A WebSocket session: the upgrade, a handshake, commands, a ping, a close.
	s.size = 0;
	put_text(&s,
			 "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
			 "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
			 "Sec-WebSocket-Protocol: sinew.v1\r\n\r\n");
	size_t upgrade = s.size;
	sinew_v1_ClientMessage m = cmd(sinew_v1_ClientMessage_handshake_tag, 1);
	m.command.handshake.protocol_version = sinew_v1_ProtocolVersion_PROTOCOL_VERSION_CURRENT;
	snprintf(m.command.handshake.client_name, sizeof(m.command.handshake.client_name), "fuzz");
	put_command(&s, &m);
	save(dir, "ws-handshake", &s);
	m = cmd(sinew_v1_ClientMessage_create_world_tag, 2);
	put_command(&s, &m);
	m = cmd(sinew_v1_ClientMessage_list_worlds_tag, 3);
	put_command(&s, &m);
	m = cmd(sinew_v1_ClientMessage_ping_tag, 4);
	put_command(&s, &m);
	static const uint8_t ping[] = { 'h', 'i' };
	put_frame(&s, 9, ping, sizeof(ping));
	static const uint8_t bye[] = { 0x03, 0xe8 };
	put_frame(&s, 8, bye, sizeof(bye));
	save(dir, "ws-session", &s);
	// A text frame, and a first message that is not a handshake.
	s.size = upgrade;
	put_frame(&s, 1, (const uint8_t*)"text", 4);
	save(dir, "ws-text", &s);
	s.size = upgrade;
	m = cmd(sinew_v1_ClientMessage_ping_tag, 1);
	put_command(&s, &m);
	save(dir, "ws-no-handshake", &s);
}

// ---- shapes, contacts and assets ----------------------------------------------------------------------

typedef struct shape_list
{
	const sinew_v1_ShapeDef* shapes;
	int count;
} shape_list;

static bool encode_shapes(pb_ostream_t* stream, const pb_field_t* field, void* const* arg)
{
	const shape_list* list = *arg;
	for (int i = 0; i < list->count; ++i)
	{
		if (!pb_encode_tag_for_field(stream, field) ||
			!pb_encode_submessage(stream, sinew_v1_ShapeDef_fields, list->shapes + i))
		{
			return false;
		}
	}
	return true;
}

typedef struct doubles
{
	const double* values;
	int count;
} doubles;

static bool encode_doubles(pb_ostream_t* stream, const pb_field_t* field, void* const* arg)
{
	const doubles* d = *arg;
	if (!pb_encode_tag(stream, PB_WT_STRING, field->tag) || !pb_encode_varint(stream, 8u * (uint64_t)d->count))
	{
		return false;
	}
	for (int i = 0; i < d->count; ++i)
	{
		if (!pb_encode_fixed64(stream, d->values + i))
		{
			return false;
		}
	}
	return true;
}

static bool encode_indices(pb_ostream_t* stream, const pb_field_t* field, void* const* arg)
{
	(void)arg;
	static const uint8_t packed[] = { 0, 1, 2 };
	return pb_encode_tag(stream, PB_WT_STRING, field->tag) && pb_encode_varint(stream, sizeof(packed)) &&
		pb_write(stream, packed, sizeof(packed));
}

// Bodies with shapes (box, sphere, capsule, cylinder, hull, mass from density), the world's ground plane
// and a triangle mesh, a link shape, contacts in a state and a subscription with contact events, a mesh
// asked for, a shape destroyed.
static void shape_seeds(const char* dir, seed* s)
{
	s->bytes[0] = 1;
	s->size = 1;
	sinew_v1_ClientMessage m = cmd(sinew_v1_ClientMessage_create_world_tag, 1);
	add(s, &m);
	m = cmd(sinew_v1_ClientMessage_create_shape_tag, 2);
	m.command.create_shape.world_id = world;
	m.command.create_shape.has_shape = true;
	m.command.create_shape.shape.which_geometry = sinew_v1_ShapeDef_plane_tag;
	m.command.create_shape.shape.geometry.plane.has_normal = true;
	m.command.create_shape.shape.geometry.plane.normal.z = 1;
	add(s, &m);
	static const double hull_points[] = { 0, 0, 0, 0.1, 0, 0, 0, 0.1, 0, 0, 0, 0.1 };
	doubles hull = { hull_points, 12 };
	static sinew_v1_ShapeDef shapes[5];
	for (int i = 0; i < 5; ++i)
	{
		shapes[i] = (sinew_v1_ShapeDef)sinew_v1_ShapeDef_init_zero;
	}
	shapes[0].which_geometry = sinew_v1_ShapeDef_box_tag;
	shapes[0].geometry.box.has_half_extents = true;
	shapes[0].geometry.box.half_extents.x = shapes[0].geometry.box.half_extents.y = 0.1;
	shapes[0].geometry.box.half_extents.z = 0.1;
	shapes[0].has_material = true;
	shapes[0].material.has_friction = true;
	shapes[0].material.friction = 0.4;
	shapes[1].which_geometry = sinew_v1_ShapeDef_sphere_tag;
	shapes[1].geometry.sphere.radius = 0.05;
	shapes[1].has_local_pose = true;
	shapes[1].local_pose.has_position = true;
	shapes[1].local_pose.position.z = 0.2;
	shapes[1].sensor = true;
	shapes[2].which_geometry = sinew_v1_ShapeDef_capsule_tag;
	shapes[2].geometry.capsule.radius = 0.02;
	shapes[2].geometry.capsule.half_length = 0.1;
	shapes[3].which_geometry = sinew_v1_ShapeDef_cylinder_tag;
	shapes[3].geometry.cylinder.radius = 0.02;
	shapes[3].geometry.cylinder.half_height = 0.1;
	shapes[3].has_filter = true;
	shapes[3].filter.has_mask = true;
	shapes[3].filter.mask = 6;
	shapes[4].which_geometry = sinew_v1_ShapeDef_hull_tag;
	shapes[4].geometry.hull.points.funcs.encode = encode_doubles;
	shapes[4].geometry.hull.points.arg = &hull;
	shape_list list = { shapes, 5 };
	m = cmd(sinew_v1_ClientMessage_create_body_tag, 3);
	m.command.create_body.world_id = world;
	m.command.create_body.has_body = true;
	m.command.create_body.body.has_pose = true;
	m.command.create_body.body.pose.has_position = true;
	m.command.create_body.body.pose.position.z = 0.099;
	m.command.create_body.shapes.funcs.encode = encode_shapes;
	m.command.create_body.shapes.arg = &list;
	m.command.create_body.has_density = true;
	m.command.create_body.density = 1000;
	add(s, &m);
	static const double tri[] = { -1, -1, -1, 1, -1, -1, 0, 1, -1 };
	doubles vertices = { tri, 9 };
	m = cmd(sinew_v1_ClientMessage_create_shape_tag, 4);
	m.command.create_shape.world_id = world;
	m.command.create_shape.has_shape = true;
	m.command.create_shape.shape.which_geometry = sinew_v1_ShapeDef_mesh_tag;
	m.command.create_shape.shape.geometry.mesh.vertices.funcs.encode = encode_doubles;
	m.command.create_shape.shape.geometry.mesh.vertices.arg = &vertices;
	m.command.create_shape.shape.geometry.mesh.indices.funcs.encode = encode_indices;
	add(s, &m);
	m = cmd(sinew_v1_ClientMessage_subscribe_tag, 5);
	m.command.subscribe.world_id = world;
	m.command.subscribe.rate_hz = 1000;
	m.command.subscribe.include = 255;
	add(s, &m);
	m = cmd(sinew_v1_ClientMessage_step_tag, 6);
	m.command.step.world_id = world;
	m.command.step.count = 3;
	add(s, &m);
	m = cmd(sinew_v1_ClientMessage_get_state_tag, 7);
	m.command.get_state.world_id = world;
	m.command.get_state.include = 127;
	add(s, &m);
	m = cmd(sinew_v1_ClientMessage_describe_world_tag, 8);
	m.command.describe_world.world_id = world;
	add(s, &m);
	m = cmd(sinew_v1_ClientMessage_get_mesh_tag, 9);
	m.command.get_mesh.hash.size = 32;
	m.command.get_mesh.max_bytes = 16;
	add(s, &m);
	m = cmd(sinew_v1_ClientMessage_destroy_shape_tag, 10);
	m.command.destroy_shape.world_id = world;
	m.command.destroy_shape.shape_id = (1ull << 32) | 1u;
	add(s, &m);
	save(dir, "shapes", s);
}

typedef struct asset_seed
{
	const char* uri;
	wire_bytes data;
} asset_seed;

static bool encode_asset_data(pb_ostream_t* stream, const pb_field_t* field, void* const* arg)
{
	return wire_encode_bytes(stream, field, arg);
}

static bool encode_assets(pb_ostream_t* stream, const pb_field_t* field, void* const* arg)
{
	const asset_seed* a = *arg;
	sinew_v1_Asset out = sinew_v1_Asset_init_zero;
	snprintf(out.uri, sizeof(out.uri), "%s", a->uri);
	out.data.funcs.encode = encode_asset_data;
	out.data.arg = (void*)&a->data;
	return pb_encode_tag_for_field(stream, field) && pb_encode_submessage(stream, sinew_v1_Asset_fields, &out);
}

static bool encode_one_hash(pb_ostream_t* stream, const pb_field_t* field, void* const* arg)
{
	(void)arg;
	static const uint8_t zero[32] = { 0 };
	return pb_encode_tag_for_field(stream, field) && pb_encode_string(stream, zero, sizeof(zero));
}

// A file put, asked for and loaded by a URDF whose link has a mesh visual and collision (an ASCII STL).
static void asset_seeds(const char* dir, seed* s)
{
	static const char stl[] = "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\n"
							  "endloop\nendfacet\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 0 1 0\n"
							  "vertex 0 0 1\nendloop\nendfacet\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\n"
							  "vertex 0 0 1\nvertex 1 0 0\nendloop\nendfacet\nfacet normal 1 1 1\nouter loop\n"
							  "vertex 1 0 0\nvertex 0 0 1\nvertex 0 1 0\nendloop\nendfacet\nendsolid t\n";
	static const char robot[] =
		"<robot name=\"m\"><link name=\"a\"><inertial><mass value=\"1\"/><inertia ixx=\"0.1\" ixy=\"0\" ixz=\"0\" "
		"iyy=\"0.1\" iyz=\"0\" izz=\"0.1\"/></inertial><visual><geometry><mesh filename=\"m.stl\" scale=\"1 2 1\"/>"
		"</geometry></visual><collision><geometry><mesh filename=\"m.stl\"/></geometry></collision></link></robot>";
	s->bytes[0] = 1;
	s->size = 1;
	sinew_v1_ClientMessage m = cmd(sinew_v1_ClientMessage_create_world_tag, 1);
	add(s, &m);
	wire_bytes file = { (const uint8_t*)stl, sizeof(stl) - 1 };
	m = cmd(sinew_v1_ClientMessage_put_asset_tag, 2);
	m.command.put_asset.data.funcs.encode = wire_encode_bytes;
	m.command.put_asset.data.arg = &file;
	add(s, &m);
	m = cmd(sinew_v1_ClientMessage_find_assets_tag, 3);
	m.command.find_assets.sha256.funcs.encode = encode_one_hash;
	add(s, &m);
	asset_seed a = { "m.stl", { (const uint8_t*)stl, sizeof(stl) - 1 } };
	wire_bytes text = { (const uint8_t*)robot, sizeof(robot) - 1 };
	m = cmd(sinew_v1_ClientMessage_load_urdf_tag, 4);
	m.command.load_urdf.world_id = world;
	m.command.load_urdf.urdf.funcs.encode = wire_encode_bytes;
	m.command.load_urdf.urdf.arg = &text;
	m.command.load_urdf.assets.funcs.encode = encode_assets;
	m.command.load_urdf.assets.arg = &a;
	add(s, &m);
	m = cmd(sinew_v1_ClientMessage_describe_world_tag, 5);
	m.command.describe_world.world_id = world;
	add(s, &m);
	m = cmd(sinew_v1_ClientMessage_load_urdf_tag, 6);
	m.command.load_urdf.world_id = world;
	snprintf(m.command.load_urdf.model, sizeof(m.command.load_urdf.model), "pkg/urdf/robot.urdf");
	add(s, &m);
	save(dir, "assets", s);
}

int main(int argc, char** argv)
{
	if (argc == 3 && strcmp(argv[1], "--http") == 0)
	{
		http_seeds(argv[2]);
		return 0;
	}
	if (argc != 2)
	{
		fprintf(stderr, "usage: make_seeds [--http] DIR\n");
		return 2;
	}
	const char* dir = argv[1];
	static seed s;
	const pb_size_t joints[] = { sinew_v1_CreateJoint_fixed_tag,     sinew_v1_CreateJoint_hinge_tag,
								 sinew_v1_CreateJoint_prismatic_tag, sinew_v1_CreateJoint_cylindrical_tag,
								 sinew_v1_CreateJoint_spherical_tag, sinew_v1_CreateJoint_distance_tag,
								 sinew_v1_CreateJoint_six_axis_tag };
	for (size_t j = 0; j < sizeof(joints) / sizeof(joints[0]); ++j)
	{
		world_with_joint(&s, joints[j]);
		sinew_v1_ClientMessage m = cmd(sinew_v1_ClientMessage_step_tag, 10);
		m.command.step.world_id = world;
		m.command.step.count = 10;
		add(&s, &m);
		m = cmd(sinew_v1_ClientMessage_get_state_tag, 11);
		m.command.get_state.world_id = world;
		m.command.get_state.include = 31;
		add(&s, &m);
		char name[32];
		snprintf(name, sizeof(name), "joint-%zu", j);
		save(dir, name, &s);
	}
	// Control, subscriptions, snapshots, time modes, lockstep.
	world_with_joint(&s, sinew_v1_CreateJoint_hinge_tag);
	sinew_v1_ClientMessage m = cmd(sinew_v1_ClientMessage_subscribe_tag, 20);
	m.command.subscribe.world_id = world;
	add(&s, &m);
	m = cmd(sinew_v1_ClientMessage_set_drive_targets_tag, 21);
	m.command.set_drive_targets.world_id = world;
	m.command.set_drive_targets.joints_count = 1;
	m.command.set_drive_targets.joints[0].joint_id = body1;
	m.command.set_drive_targets.joints[0].axis = sinew_v1_Axis_AXIS_RX;
	add(&s, &m);
	m = cmd(sinew_v1_ClientMessage_apply_forces_tag, 22);
	m.command.apply_forces.world_id = world;
	m.command.apply_forces.bodies_count = 1;
	m.command.apply_forces.bodies[0].body_id = body2;
	m.command.apply_forces.bodies[0].has_force = true;
	m.command.apply_forces.bodies[0].force.z = 5;
	add(&s, &m);
	m = cmd(sinew_v1_ClientMessage_snapshot_tag, 23);
	m.command.snapshot.world_id = world;
	m.command.snapshot.make_reset_point = true;
	add(&s, &m);
	m = cmd(sinew_v1_ClientMessage_reset_tag, 24);
	m.command.reset.world_id = world;
	add(&s, &m);
	m = cmd(sinew_v1_ClientMessage_clone_world_tag, 25);
	m.command.clone_world.world_id = world;
	add(&s, &m);
	m = cmd(sinew_v1_ClientMessage_join_world_tag, 26);
	m.command.join_world.world_id = world;
	m.command.join_world.role = sinew_v1_Role_ROLE_CONTROLLER;
	add(&s, &m);
	m = cmd(sinew_v1_ClientMessage_set_time_mode_tag, 27);
	m.command.set_time_mode.world_id = world;
	m.command.set_time_mode.has_time = true;
	m.command.set_time_mode.time.mode = sinew_v1_TimeMode_TIME_LOCKSTEP;
	add(&s, &m);
	m = cmd(sinew_v1_ClientMessage_lockstep_input_tag, 28);
	m.command.lockstep_input.world_id = world;
	add(&s, &m);
	m = cmd(sinew_v1_ClientMessage_set_time_mode_tag, 29);
	m.command.set_time_mode.world_id = world;
	m.command.set_time_mode.has_time = true;
	m.command.set_time_mode.time.mode = sinew_v1_TimeMode_TIME_FAST;
	add(&s, &m);
	m = cmd(sinew_v1_ClientMessage_list_worlds_tag, 30);
	add(&s, &m);
	m = cmd(sinew_v1_ClientMessage_destroy_world_tag, 31);
	m.command.destroy_world.world_id = world;
	add(&s, &m);
	save(dir, "control", &s);
	// Articulations: a three-link arm with drives, targets, joint state, a mimic coupling, a step.
	s.bytes[0] = 1;
	s.size = 1;
	m = cmd(sinew_v1_ClientMessage_create_world_tag, 1);
	add(&s, &m);
	static sinew_v1_LinkDef links[3];
	for (int i = 0; i < 3; ++i)
	{
		links[i] = (sinew_v1_LinkDef)sinew_v1_LinkDef_init_zero;
		links[i].parent = i - 1;
		if (i > 0)
		{
			links[i].joint_type = sinew_v1_LinkJointType_LINK_REVOLUTE;
			links[i].has_parent_frame = true;
			links[i].parent_frame.has_position = true;
			links[i].parent_frame.position.x = 0.5;
			links[i].drives_count = 1;
			links[i].drives[0].enabled = true;
			links[i].drives[0].stiffness = 100;
			links[i].drives[0].damping = 10;
		}
	}
	link_list list = { links, 3 };
	m = cmd(sinew_v1_ClientMessage_create_articulation_tag, 2);
	m.command.create_articulation.world_id = world;
	m.command.create_articulation.links.funcs.encode = encode_links;
	m.command.create_articulation.links.arg = &list;
	add(&s, &m);
	const uint64_t arm = (1ull << 32) | 1u;
	m = cmd(sinew_v1_ClientMessage_set_drive_targets_tag, 3);
	m.command.set_drive_targets.world_id = world;
	m.command.set_drive_targets.has_articulation = true;
	m.command.set_drive_targets.articulation.articulation_id = arm;
	m.command.set_drive_targets.articulation.dofs_count = 2;
	m.command.set_drive_targets.articulation.dofs[1] = 1;
	m.command.set_drive_targets.articulation.positions_count = 2;
	m.command.set_drive_targets.articulation.positions[0] = 0.5;
	add(&s, &m);
	m = cmd(sinew_v1_ClientMessage_set_joint_state_tag, 4);
	m.command.set_joint_state.world_id = world;
	m.command.set_joint_state.articulation_id = arm;
	m.command.set_joint_state.positions_count = 2;
	m.command.set_joint_state.positions[1] = 0.25;
	add(&s, &m);
	m = cmd(sinew_v1_ClientMessage_create_mimic_tag, 5);
	m.command.create_mimic.world_id = world;
	m.command.create_mimic.has_mimic = true;
	m.command.create_mimic.mimic.articulation_id = arm;
	m.command.create_mimic.mimic.dofs_count = 2;
	m.command.create_mimic.mimic.dofs[1] = 1;
	m.command.create_mimic.mimic.gearing_count = 2;
	m.command.create_mimic.mimic.gearing[1] = -1;
	add(&s, &m);
	m = cmd(sinew_v1_ClientMessage_step_tag, 6);
	m.command.step.world_id = world;
	m.command.step.count = 5;
	add(&s, &m);
	m = cmd(sinew_v1_ClientMessage_get_state_tag, 7);
	m.command.get_state.world_id = world;
	m.command.get_state.include = 31;
	add(&s, &m);
	save(dir, "articulation", &s);
	// Robot models: a URDF with a mimic joint, drives and initial values, then a state; and a bad URDF.
	s.bytes[0] = 1;
	s.size = 1;
	m = cmd(sinew_v1_ClientMessage_create_world_tag, 1);
	add(&s, &m);
	static const char urdf[] =
		"<robot name=\"g\"><link name=\"a\"><inertial><mass value=\"1\"/><inertia ixx=\"0.1\" ixy=\"0\" ixz=\"0\" "
		"iyy=\"0.1\" iyz=\"0\" izz=\"0.1\"/></inertial></link><link name=\"b\"><inertial><mass value=\"1\"/>"
		"<inertia ixx=\"0.1\" ixy=\"0\" ixz=\"0\" iyy=\"0.1\" iyz=\"0\" izz=\"0.1\"/></inertial><visual><geometry>"
		"<box size=\"1 1 1\"/></geometry><material name=\"m\"><color rgba=\"1 0 0 1\"/></material></visual></link>"
		"<link name=\"c\"><inertial><mass value=\"1\"/><inertia ixx=\"0.1\" ixy=\"0\" ixz=\"0\" iyy=\"0.1\" "
		"iyz=\"0\" izz=\"0.1\"/></inertial></link><joint name=\"j\" type=\"revolute\"><parent link=\"a\"/>"
		"<child link=\"b\"/><axis xyz=\"0 1 0\"/><limit lower=\"-1\" upper=\"1\" effort=\"5\" velocity=\"2\"/>"
		"</joint><joint name=\"k\" type=\"continuous\"><parent link=\"a\"/><child link=\"c\"/><origin xyz=\"0 0 1\"/>"
		"<mimic joint=\"j\" multiplier=\"-2\" offset=\"0.1\"/></joint></robot>";
	wire_bytes text = { (const uint8_t*)urdf, sizeof(urdf) - 1 };
	m = cmd(sinew_v1_ClientMessage_load_urdf_tag, 2);
	m.command.load_urdf.world_id = world;
	m.command.load_urdf.urdf.funcs.encode = wire_encode_bytes;
	m.command.load_urdf.urdf.arg = &text;
	m.command.load_urdf.has_drive_all = true;
	m.command.load_urdf.drive_all.has_drive = true;
	m.command.load_urdf.drive_all.drive.enabled = true;
	m.command.load_urdf.drive_all.drive.stiffness = 100;
	add(&s, &m);
	m = cmd(sinew_v1_ClientMessage_step_tag, 3);
	m.command.step.world_id = world;
	m.command.step.count = 3;
	add(&s, &m);
	m = cmd(sinew_v1_ClientMessage_get_state_tag, 4);
	m.command.get_state.world_id = world;
	m.command.get_state.include = 63;
	add(&s, &m);
	m = cmd(sinew_v1_ClientMessage_describe_world_tag, 6);
	m.command.describe_world.world_id = world;
	add(&s, &m);
	wire_bytes bad = { (const uint8_t*)urdf, 40 };
	m = cmd(sinew_v1_ClientMessage_load_urdf_tag, 5);
	m.command.load_urdf.world_id = world;
	m.command.load_urdf.urdf.funcs.encode = wire_encode_bytes;
	m.command.load_urdf.urdf.arg = &bad;
	add(&s, &m);
	save(dir, "urdf", &s);
	shape_seeds(dir, &s);
	asset_seeds(dir, &s);
	return 0;
}
