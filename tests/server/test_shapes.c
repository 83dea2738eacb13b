// Collision shapes over the wire against a real sinewd: bodies created with their shapes (and their mass
// from them), shapes added to bodies, links and the world itself, all described back by DescribeWorld
// with their sizes, poses and materials; a bad shape is a typed error that creates nothing (the body
// neither); the shape limits; a static triangle mesh described by hash and fetched once, over the
// protocol and over HTTP with caching headers; and contacts in state frames and contact events in
// subscriptions. (Forces are the contact solver's: this tests the plumbing, positions, normals and
// counts.)
#include "fixture.h"

#include "content.h"
#include "wire.h"

#include "sinew/sinew.h"

#include <pb_encode.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

static snc_client* c;

static int setup(void** state)
{
	(void)state;
	static const char* const args[] = { "--max-shapes-per-body", "4", "--max-mesh-triangles-per-world", "6", NULL };
	test_group_start(args);
	c = test_connect(&group_server, SNC_TCP, "shapes", sinew_v1_Role_ROLE_CONTROLLER);
	return 0;
}

static int teardown(void** state)
{
	snc_close(c);
	return test_group_teardown(state);
}

// A world without gravity: bodies stay where they are put (contacts are detected whether they push or not).
static uint64_t still_world(const char* name)
{
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_create_world_tag);
	snprintf(m.command.create_world.name, sizeof(m.command.create_world.name), "%s", name);
	m.command.create_world.has_settings = true;
	m.command.create_world.settings.has_gravity = true;
	return test_created(c, &m);
}

static sinew_v1_BodyDef body_at(double x, double y, double z, sinew_v1_BodyType type)
{
	sinew_v1_BodyDef b = sinew_v1_BodyDef_init_zero;
	b.type = type;
	b.has_pose = true;
	b.pose.has_position = true;
	b.pose.position.x = x;
	b.pose.position.y = y;
	b.pose.position.z = z;
	return b;
}

static void describe(uint64_t world, uint64_t articulation, snc_message* reply)
{
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_describe_world_tag);
	m.command.describe_world.world_id = world;
	m.command.describe_world.articulation_id = articulation;
	test_expect(c, &m, 0, reply);
}

static const sinew_v1_ShapeInfo* shape_info(const snc_message* m, uint64_t id)
{
	for (int i = 0; i < m->shape_info_count; ++i)
	{
		if (m->shape_infos[i].id == id)
		{
			return m->shape_infos + i;
		}
	}
	fail_msg("shape %llu is not described", (unsigned long long)id);
	return NULL;
}

static sinew_v1_WorldInfo world_info(uint64_t world)
{
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_list_worlds_tag);
	snc_message reply;
	test_expect(c, &m, 0, &reply);
	sinew_v1_WorldInfo out = sinew_v1_WorldInfo_init_zero;
	for (int i = 0; i < reply.world_count; ++i)
	{
		if (reply.worlds[i].world_id == world)
		{
			out = reply.worlds[i];
		}
	}
	snc_message_free(&reply);
	return out;
}

static void test_body_with_shapes(void** state)
{
	(void)state;
	uint64_t world = still_world("bodies");
	snc_shape shapes[2] = { snc_shape_box(0.1, 0.2, 0.3), snc_shape_sphere(0.05) };
	shapes[1].def.has_local_pose = true;
	shapes[1].def.local_pose.has_position = true;
	shapes[1].def.local_pose.position.z = 0.4;
	shapes[1].def.has_material = true;
	shapes[1].def.material.has_friction = true;
	shapes[1].def.material.friction = 0.25;
	shapes[1].def.material.has_restitution = true;
	shapes[1].def.material.restitution = 0.5;
	shapes[1].def.has_filter = true;
	shapes[1].def.filter.has_category = true;
	shapes[1].def.filter.category = 4;
	shapes[1].def.sensor = true;
	sinew_v1_BodyDef body = body_at(1, 0, 0, sinew_v1_BodyType_BODY_DYNAMIC);
	double density = 1000.0;
	snc_message reply;
	assert_int_equal(snc_create_body(c, world, &body, shapes, 2, &density, &reply, TEST_TIMEOUT_MS), 0);
	assert_int_equal(snc_reply_code(&reply), 0);
	uint64_t id = reply.msg.message.reply.result.created.id;
	assert_int_equal(reply.shape_id_count, 2);
	uint64_t box = reply.shape_ids[0], ball = reply.shape_ids[1];
	snc_message_free(&reply);

	describe(world, 0, &reply);
	assert_int_equal(reply.shape_info_count, 2);
	const sinew_v1_ShapeInfo* b = shape_info(&reply, box);
	assert_int_equal(b->type, sinew_v1_ShapeType_SHAPE_BOX);
	assert_true(b->body_id == id && b->articulation_id == 0 && b->link == -1);
	assert_true(b->half_extents.x == 0.1 && b->half_extents.y == 0.2 && b->half_extents.z == 0.3);
	// The core's defaults: friction 0.6, restitution 0, every mask bit.
	assert_true(b->material.friction == 0.6 && b->material.restitution == 0.0 && !b->sensor);
	assert_true(b->filter.category == 1 && b->filter.mask == UINT64_MAX);
	const sinew_v1_ShapeInfo* s = shape_info(&reply, ball);
	assert_int_equal(s->type, sinew_v1_ShapeType_SHAPE_SPHERE);
	assert_true(s->radius == 0.05 && s->local_pose.position.z == 0.4);
	assert_true(s->material.friction == 0.25 && s->material.restitution == 0.5 && s->sensor);
	assert_true(s->filter.category == 4);
	snc_message_free(&reply);
	assert_int_equal(world_info(world).shape_count, 2);

	// The mass came from the solid shape (the sensor sphere adds none): 1000 kg/m^3 x 0.2 x 0.4 x 0.6 m^3.
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_snapshot_tag);
	m.command.snapshot.world_id = world;
	test_expect(c, &m, 0, NULL);
	// (The mass itself is the core's, tested there; here: no error and the shapes are on the body.)

	// Destroying the body takes its shapes.
	m = test_command(sinew_v1_ClientMessage_destroy_body_tag);
	m.command.destroy_body.world_id = world;
	m.command.destroy_body.body_id = id;
	test_expect(c, &m, 0, NULL);
	assert_int_equal(world_info(world).shape_count, 0);
}

// A shape the core refuses, or the server's limits: a typed error naming the shape, and nothing made.
static void test_bad_shapes_create_nothing(void** state)
{
	(void)state;
	uint64_t world = still_world("bad shapes");
	sinew_v1_BodyDef dynamic = body_at(0, 0, 1, sinew_v1_BodyType_BODY_DYNAMIC);
	static const double flat[] = { 0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0 }; // coplanar
	static const double tri[] = { 0, 0, 0, 1, 0, 0, 0, 1, 0 };
	static const uint32_t tri_index[] = { 0, 1, 2 };
	static const uint32_t tri_out_of_range[] = { 0, 1, 3 };
	static const double not_three[] = { 0, 0, 0, 1 };
	struct
	{
		snc_shape shape;
		int32_t code;
		const char* says;
	} cases[] = {
		{ snc_shape_sphere(-1.0), sinew_v1_ErrorCode_ERR_NEGATIVE_VALUE, "shapes[1]" },
		{ snc_shape_sphere(NAN), sinew_v1_ErrorCode_ERR_NOT_FINITE, "shapes[1]" },
		{ snc_shape_box(0.1, 0.0, 0.1), sinew_v1_ErrorCode_ERR_INVALID_ARGUMENT, "shapes[1]" },
		{ snc_shape_hull(flat, 12), sinew_v1_ErrorCode_ERR_INVALID_ARGUMENT, "shapes[1]" },
		{ snc_shape_hull(not_three, 4), sinew_v1_ErrorCode_ERR_INVALID_ARGUMENT, "multiple of 3" },
		{ snc_shape_mesh(tri, 9, tri_index, 3), sinew_v1_ErrorCode_ERR_WRONG_TYPE,
		  "shapes[1]" },                                                                 // a mesh on a dynamic body
		{ snc_shape_plane(0, 0, 1, 0), sinew_v1_ErrorCode_ERR_WRONG_TYPE, "shapes[1]" }, // a plane too
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i)
	{
		snc_shape shapes[2] = { snc_shape_box(0.1, 0.1, 0.1), cases[i].shape };
		snc_message reply;
		assert_int_equal(snc_create_body(c, world, &dynamic, shapes, 2, NULL, &reply, TEST_TIMEOUT_MS), 0);
		if (snc_reply_code(&reply) != cases[i].code || strstr(snc_reply_text(&reply), cases[i].says) == NULL)
		{
			fail_msg("case %zu: %d %s", i, (int)snc_reply_code(&reply), snc_reply_text(&reply));
		}
		snc_message_free(&reply);
	}
	// No geometry at all.
	snc_shape none = snc_shape_sphere(1.0);
	none.def.which_geometry = 0;
	snc_message reply;
	assert_int_equal(snc_create_body(c, world, &dynamic, &none, 1, NULL, &reply, TEST_TIMEOUT_MS), 0);
	assert_int_equal(snc_reply_code(&reply), sinew_v1_ErrorCode_ERR_INVALID_ARGUMENT);
	assert_non_null(strstr(snc_reply_text(&reply), "geometry is missing"));
	snc_message_free(&reply);
	// A density without a solid shape: the body's mass cannot come from its shapes.
	double density = 1000.0;
	snc_shape sensor = snc_shape_sphere(0.1);
	sensor.def.sensor = true;
	assert_int_equal(snc_create_body(c, world, &dynamic, &sensor, 1, &density, &reply, TEST_TIMEOUT_MS), 0);
	assert_int_equal(snc_reply_code(&reply), sinew_v1_ErrorCode_ERR_INVALID_ARGUMENT);
	snc_message_free(&reply);
	// More than max_shapes_per_body (4 here).
	snc_shape five[5] = { snc_shape_sphere(0.1), snc_shape_sphere(0.1), snc_shape_sphere(0.1), snc_shape_sphere(0.1),
						  snc_shape_sphere(0.1) };
	assert_int_equal(snc_create_body(c, world, &dynamic, five, 5, NULL, &reply, TEST_TIMEOUT_MS), 0);
	assert_int_equal(snc_reply_code(&reply), sinew_v1_ErrorCode_ERR_LIMIT_REACHED);
	assert_non_null(strstr(snc_reply_text(&reply), "max_shapes_per_body"));
	snc_message_free(&reply);
	// Nothing of it is in the world: no body, no shape.
	sinew_v1_WorldInfo info = world_info(world);
	assert_int_equal(info.body_count, 0);
	assert_int_equal(info.shape_count, 0);

	// CreateShape: a mesh with an index out of range on the world, on a body that does not exist, on a link
	// that does not exist, both at once.
	snc_shape broken = snc_shape_mesh(tri, 9, tri_out_of_range, 3);
	assert_int_equal(snc_create_shape(c, world, 0, 0, 0, &broken, &reply, TEST_TIMEOUT_MS), 0);
	assert_int_equal(snc_reply_code(&reply), sinew_v1_ErrorCode_ERR_INVALID_ARGUMENT);
	snc_message_free(&reply);
	snc_shape ball = snc_shape_sphere(0.1);
	assert_int_equal(snc_create_shape(c, world, 12345, 0, 0, &ball, &reply, TEST_TIMEOUT_MS), 0);
	assert_int_equal(snc_reply_code(&reply), sinew_v1_ErrorCode_ERR_INVALID_ID);
	snc_message_free(&reply);
	assert_int_equal(snc_create_shape(c, world, 0, 12345, 0, &ball, &reply, TEST_TIMEOUT_MS), 0);
	assert_int_equal(snc_reply_code(&reply), sinew_v1_ErrorCode_ERR_INVALID_ID);
	snc_message_free(&reply);
	assert_int_equal(snc_create_shape(c, world, 1, 1, 0, &ball, &reply, TEST_TIMEOUT_MS), 0);
	assert_int_equal(snc_reply_code(&reply), sinew_v1_ErrorCode_ERR_INVALID_ARGUMENT);
	snc_message_free(&reply);
	assert_int_equal(world_info(world).shape_count, 0);
}

// LinkDef.shapes of one shape (arg: an snc_shape).
static bool encode_one_shape(pb_ostream_t* stream, const pb_field_t* field, void* const* arg)
{
	snc_shape shape = *(const snc_shape*)*arg;
	snc_shape_bind(&shape);
	return pb_encode_tag_for_field(stream, field) && pb_encode_submessage(stream, sinew_v1_ShapeDef_fields, &shape.def);
}

// Shapes on links: with CreateArticulation, and added to a link later; DescribeWorld of one articulation
// lists its links' shapes only.
static void test_link_shapes(void** state)
{
	(void)state;
	uint64_t world = still_world("links");
	snc_shape ground = snc_shape_plane(0, 0, 1, 0);
	snc_message reply;
	assert_int_equal(snc_create_shape(c, world, 0, 0, 0, &ground, &reply, TEST_TIMEOUT_MS), 0);
	assert_int_equal(snc_reply_code(&reply), 0);
	uint64_t plane = reply.msg.message.reply.result.created.id;
	snc_message_free(&reply);

	sinew_v1_LinkDef links[2] = { sinew_v1_LinkDef_init_zero, sinew_v1_LinkDef_init_zero };
	links[0].parent = -1;
	links[1].parent = 0;
	links[1].joint_type = sinew_v1_LinkJointType_LINK_REVOLUTE;
	links[1].has_parent_frame = true;
	links[1].parent_frame.has_position = true;
	links[1].parent_frame.position.x = 0.5;
	// Link 1 comes with a hull (through LinkDef.shapes, built off the loop); a capsule is added to it
	// afterwards. A hull the core refuses (flat) creates nothing, the articulation neither.
	static const double flat[] = { 0, 0, 0, 0.1, 0, 0, 0, 0.1, 0, 0.1, 0.1, 0 };
	snc_shape link_hull = snc_shape_hull(flat, 12);
	links[1].shapes.funcs.encode = encode_one_shape;
	links[1].shapes.arg = &link_hull;
	uint64_t art = 0;
	uint32_t dofs = 0;
	assert_int_equal(test_create_articulation(c, world, links, 2, &art, &dofs),
					 sinew_v1_ErrorCode_ERR_INVALID_ARGUMENT);
	assert_int_equal(world_info(world).articulation_count, 0);
	assert_int_equal(world_info(world).shape_count, 1); // the plane
	static const double tetra[] = { 0, 0, 0, 0.1, 0, 0, 0, 0.1, 0, 0, 0, 0.1 };
	link_hull = snc_shape_hull(tetra, 12);
	assert_int_equal(test_create_articulation(c, world, links, 2, &art, &dofs), 0);
	assert_int_equal(dofs, 1);
	snc_shape capsule = snc_shape_capsule(0.05, 0.2);
	assert_int_equal(snc_create_shape(c, world, 0, art, 1, &capsule, &reply, TEST_TIMEOUT_MS), 0);
	assert_int_equal(snc_reply_code(&reply), 0);
	uint64_t on_link = reply.msg.message.reply.result.created.id;
	snc_message_free(&reply);
	assert_int_equal(snc_create_shape(c, world, 0, art, 2, &capsule, &reply, TEST_TIMEOUT_MS), 0);
	assert_int_equal(snc_reply_code(&reply), sinew_v1_ErrorCode_ERR_INVALID_ARGUMENT); // no link 2
	snc_message_free(&reply);

	describe(world, art, &reply);
	assert_int_equal(reply.shape_info_count, 2); // the link's, not the world's plane
	for (int i = 0; i < 2; ++i)
	{
		assert_true(reply.shape_infos[i].articulation_id == art && reply.shape_infos[i].link == 1);
	}
	const sinew_v1_ShapeInfo* s = shape_info(&reply, on_link);
	assert_true(s->articulation_id == art && s->link == 1 && s->body_id == 0);
	assert_true(s->type == sinew_v1_ShapeType_SHAPE_CAPSULE && s->radius == 0.05 && s->half_length == 0.2);
	int hulls = 0;
	for (int i = 0; i < reply.shape_info_count; ++i)
	{
		if (reply.shape_infos[i].type == sinew_v1_ShapeType_SHAPE_HULL)
		{
			hulls += 1;
			assert_int_equal(reply.shape_infos[i].hull_vertices_count, 4);
		}
	}
	assert_int_equal(hulls, 1);
	snc_message_free(&reply);
	describe(world, 0, &reply);
	assert_int_equal(reply.shape_info_count, 3);
	const sinew_v1_ShapeInfo* p = shape_info(&reply, plane);
	assert_true(p->type == sinew_v1_ShapeType_SHAPE_PLANE && p->body_id == 0 && p->link == -1);
	assert_true(p->normal.z == 1.0 && p->offset == 0.0);
	snc_message_free(&reply);

	// DestroyShape, then its id is stale.
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_destroy_shape_tag);
	m.command.destroy_shape.world_id = world;
	m.command.destroy_shape.shape_id = on_link;
	test_expect(c, &m, 0, NULL);
	test_expect(c, &m, sinew_v1_ErrorCode_ERR_INVALID_ID, NULL);
	// The articulation goes with the shapes of its links.
	assert_int_equal(snc_create_shape(c, world, 0, art, 0, &capsule, &reply, TEST_TIMEOUT_MS), 0);
	snc_message_free(&reply);
	assert_int_equal(world_info(world).shape_count, 3);
	m = test_command(sinew_v1_ClientMessage_destroy_articulation_tag);
	m.command.destroy_articulation.world_id = world;
	m.command.destroy_articulation.articulation_id = art;
	test_expect(c, &m, 0, NULL);
	assert_int_equal(world_info(world).shape_count, 1);
}

// The hash of a mesh as the server names it: bytes to hex.
static void hex_of(const uint8_t* hash, char out[65])
{
	wire_hash_hex(hash, out);
}

static void test_mesh_shape_fetched_by_hash(void** state)
{
	(void)state;
	uint64_t world = still_world("terrain");
	// Two triangles of a 2 m square at z = 0, facing up.
	static const double vertices[] = { -1, -1, 0, 1, -1, 0, 1, 1, 0, -1, 1, 0 };
	static const uint32_t indices[] = { 0, 1, 2, 0, 2, 3 };
	snc_shape terrain = snc_shape_mesh(vertices, 12, indices, 6);
	snc_message reply;
	assert_int_equal(snc_create_shape(c, world, 0, 0, 0, &terrain, &reply, TEST_TIMEOUT_MS), 0);
	assert_int_equal(snc_reply_code(&reply), 0);
	uint64_t id = reply.msg.message.reply.result.created.id;
	snc_message_free(&reply);
	describe(world, 0, &reply);
	const sinew_v1_ShapeInfo* s = shape_info(&reply, id);
	assert_int_equal(s->type, sinew_v1_ShapeType_SHAPE_MESH);
	assert_true(s->has_mesh && s->mesh.hash.size == 32);
	assert_int_equal(s->mesh.vertex_count, 4);
	assert_int_equal(s->mesh.triangle_count, 2);
	uint8_t hash[32];
	memcpy(hash, s->mesh.hash.bytes, 32);
	uint64_t size = s->mesh.size;
	snc_message_free(&reply);

	// Over the protocol: the bytes are the mesh format, their SHA-256 is the hash.
	uint8_t* mesh = NULL;
	size_t mesh_size = 0;
	int32_t status = 0;
	assert_int_equal(snc_get_mesh(c, hash, &mesh, &mesh_size, &status, TEST_TIMEOUT_MS), 0);
	assert_int_equal(status, 0);
	assert_int_equal(mesh_size, size);
	uint8_t check[32];
	assert_true(wire_sha256(mesh, mesh_size, check));
	assert_memory_equal(check, hash, 32);
	wire_mesh view;
	char why[128];
	assert_true(wire_mesh_check(mesh, mesh_size, &view, why, sizeof(why)));
	assert_int_equal(view.vertex_count, 4);
	assert_int_equal(view.triangle_count, 2);
	assert_int_equal(view.part_count, 0);
	for (int i = 0; i < 12; ++i)
	{
		assert_true(view.positions[i] == (float)vertices[i]);
	}
	for (int i = 0; i < 4; ++i)
	{
		assert_true(view.normals[3 * i + 2] == 1.0f); // facing up
	}
	// In chunks: the client asks again from where the last reply ended.
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_get_mesh_tag);
	m.command.get_mesh.hash.size = 32;
	memcpy(m.command.get_mesh.hash.bytes, hash, 32);
	m.command.get_mesh.offset = 10;
	m.command.get_mesh.max_bytes = 7;
	test_expect(c, &m, 0, &reply);
	assert_int_equal(reply.byte_count, 7);
	assert_memory_equal(reply.bytes, mesh + 10, 7);
	assert_true(reply.msg.message.reply.result.mesh.total_bytes == size);
	snc_message_free(&reply);
	m.command.get_mesh.offset = size + 1;
	test_expect(c, &m, sinew_v1_ErrorCode_ERR_INVALID_ARGUMENT, NULL);
	m.command.get_mesh.offset = 0;
	m.command.get_mesh.hash.bytes[0] ^= 1;
	test_expect(c, &m, sinew_v1_ErrorCode_ERR_UNKNOWN_ASSET, NULL);
	m.command.get_mesh.hash.size = 31;
	test_expect(c, &m, sinew_v1_ErrorCode_ERR_INVALID_ARGUMENT, NULL);

	// Over HTTP, with the headers that let a browser keep it for good.
	char hex[65], path[128], headers[2048];
	hex_of(hash, hex);
	snprintf(path, sizeof(path), "/assets/%s", hex);
	uint8_t* body = NULL;
	size_t body_size = 0;
	assert_int_equal(test_http_fetch(&group_server, path, NULL, headers, sizeof(headers), &body, &body_size), 200);
	assert_int_equal(body_size, mesh_size);
	assert_memory_equal(body, mesh, mesh_size);
	assert_non_null(strstr(headers, "immutable"));
	assert_non_null(strstr(headers, hex)); // the ETag
	free(body);
	char if_none[128];
	snprintf(if_none, sizeof(if_none), "If-None-Match: \"%s\"\r\n", hex);
	assert_int_equal(test_http_fetch(&group_server, path, if_none, NULL, 0, &body, &body_size), 304);
	assert_int_equal(body_size, 0);
	free(body);
	char text[256];
	hex[0] = hex[0] == 'a' ? 'b' : 'a';
	snprintf(path, sizeof(path), "/assets/%s", hex);
	assert_int_equal(test_http_get(&group_server, path, text, sizeof(text)), 404);
	assert_int_equal(test_http_get(&group_server, "/assets/xyz", text, sizeof(text)), 400);
	free(mesh);

	// max_mesh_triangles_per_world (6 here): 2 and 2 fit, 2 more do not.
	assert_int_equal(snc_create_shape(c, world, 0, 0, 0, &terrain, &reply, TEST_TIMEOUT_MS), 0);
	assert_int_equal(snc_reply_code(&reply), 0);
	snc_message_free(&reply);
	static const double bigger[] = { -1, -1, 1, 1, -1, 1, 1, 1, 1, -1, 1, 1, 0, 0, 2 };
	static const uint32_t three[] = { 0, 1, 2, 0, 2, 3, 0, 1, 4 };
	snc_shape roof = snc_shape_mesh(bigger, 15, three, 9);
	assert_int_equal(snc_create_shape(c, world, 0, 0, 0, &roof, &reply, TEST_TIMEOUT_MS), 0);
	assert_int_equal(snc_reply_code(&reply), sinew_v1_ErrorCode_ERR_LIMIT_REACHED);
	assert_non_null(strstr(snc_reply_text(&reply), "max_mesh_triangles_per_world"));
	snc_message_free(&reply);
	assert_int_equal(world_info(world).shape_count, 2);
}

static const sinew_v1_Contact* contact_between(const snc_message* m, uint64_t shape_a, uint64_t shape_b)
{
	for (int i = 0; i < m->contact_count; ++i)
	{
		const sinew_v1_Contact* k = m->contacts + i;
		if ((k->a.shape_id == shape_a && k->b.shape_id == shape_b) ||
			(k->a.shape_id == shape_b && k->b.shape_id == shape_a))
		{
			return k;
		}
	}
	return NULL;
}

static void set_z(uint64_t world, uint64_t body, double z)
{
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_set_body_state_tag);
	m.command.set_body_state.world_id = world;
	m.command.set_body_state.body_id = body;
	m.command.set_body_state.has_pose = true;
	m.command.set_body_state.pose.has_position = true;
	m.command.set_body_state.pose.position.z = z;
	test_expect(c, &m, 0, NULL);
}

// The next contact events of a subscription (other messages are dropped), within the timeout.
static void next_contact_events(snc_message* out)
{
	for (;;)
	{
		test_wait_for(c, sinew_v1_ServerMessage_event_tag, out);
		if (out->msg.message.event.which_event == sinew_v1_Event_contacts_tag)
		{
			return;
		}
		snc_message_free(out);
	}
}

static void test_contacts_and_events(void** state)
{
	(void)state;
	uint64_t world = still_world("contacts");
	snc_shape ground = snc_shape_plane(0, 0, 1, 0);
	snc_message reply;
	assert_int_equal(snc_create_shape(c, world, 0, 0, 0, &ground, &reply, TEST_TIMEOUT_MS), 0);
	uint64_t plane = reply.msg.message.reply.result.created.id;
	snc_message_free(&reply);
	// A box of half-height 0.1 m whose bottom is 1 mm into the ground: touching.
	sinew_v1_BodyDef box_body = body_at(0, 0, 0.099, sinew_v1_BodyType_BODY_DYNAMIC);
	snc_shape box = snc_shape_box(0.1, 0.1, 0.1);
	assert_int_equal(snc_create_body(c, world, &box_body, &box, 1, NULL, &reply, TEST_TIMEOUT_MS), 0);
	uint64_t body = reply.msg.message.reply.result.created.id;
	uint64_t box_shape = reply.shape_ids[0];
	snc_message_free(&reply);
	uint64_t sub = test_subscribe(c, world, 1000,
								  sinew_v1_Include_INCLUDE_POSES | sinew_v1_Include_INCLUDE_CONTACTS |
									  sinew_v1_Include_INCLUDE_CONTACT_EVENTS);
	test_step(c, world, 1);
	snc_message state_reply;
	test_get_state(c, world, sinew_v1_Include_INCLUDE_CONTACTS, &state_reply);
	const sinew_v1_StateFrame* frame = &state_reply.msg.message.reply.result.state;
	assert_int_equal(frame->contacts_dropped, 0);
	const sinew_v1_Contact* k = contact_between(&state_reply, plane, box_shape);
	assert_non_null(k);
	assert_true(k->touching);
	const sinew_v1_ContactSide* ground_side = k->a.shape_id == plane ? &k->a : &k->b;
	const sinew_v1_ContactSide* box_side = k->a.shape_id == plane ? &k->b : &k->a;
	assert_true(ground_side->body_id == 0 && ground_side->articulation_id == 0 && ground_side->link == -1);
	assert_true(box_side->body_id == body && box_side->link == -1);
	// The normal is vertical (from A to B), the four corners of the box's face touch at about 1 mm depth.
	assert_true(fabs(fabs(k->normal.z) - 1.0) < 1e-9);
	assert_int_equal(k->points_count, 4);
	for (pb_size_t i = 0; i < k->points_count; ++i)
	{
		// The box moved at most by what a contact solver did in one step of 1 ms: a tolerance of 1 mm.
		assert_true(fabs(fabs(k->points[i].position.x) - 0.1) < 1e-3 &&
					fabs(fabs(k->points[i].position.y) - 0.1) < 1e-3);
		assert_true(k->points[i].separation < 0.0 && k->points[i].separation > -0.002);
		assert_true(isfinite(k->points[i].normal_force) && isfinite(k->points[i].friction_force));
	}
	snc_message_free(&state_reply);
	// GetState takes no contact events; unknown bits are refused.
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_get_state_tag);
	m.command.get_state.world_id = world;
	m.command.get_state.include = sinew_v1_Include_INCLUDE_CONTACT_EVENTS;
	test_expect(c, &m, sinew_v1_ErrorCode_ERR_INVALID_ARGUMENT, NULL);
	m.command.get_state.include = 256;
	test_expect(c, &m, sinew_v1_ErrorCode_ERR_INVALID_ARGUMENT, NULL);

	// The subscription got the begin event with its frame.
	snc_message events;
	next_contact_events(&events);
	const sinew_v1_ContactEvents* e = &events.msg.message.event.event.contacts;
	assert_true(e->subscription_id == sub && e->dropped == 0);
	assert_int_equal(events.contact_change_count, 1);
	assert_int_equal(events.contact_changes[0].kind, sinew_v1_ContactChangeKind_CONTACT_BEGIN);
	assert_int_equal(events.contact_changes[0].tick, 1);
	assert_true(events.contact_changes[0].a.shape_id == plane || events.contact_changes[0].b.shape_id == plane);
	snc_message_free(&events);
	// Lifted: the pair ends; put back: it begins again.
	set_z(world, body, 1.0);
	test_step(c, world, 1);
	next_contact_events(&events);
	assert_int_equal(events.contact_change_count, 1);
	assert_int_equal(events.contact_changes[0].kind, sinew_v1_ContactChangeKind_CONTACT_END);
	snc_message_free(&events);
	test_get_state(c, world, sinew_v1_Include_INCLUDE_CONTACTS, &state_reply);
	assert_null(contact_between(&state_reply, plane, box_shape));
	snc_message_free(&state_reply);
	set_z(world, body, 0.099);
	test_step(c, world, 1);
	next_contact_events(&events);
	assert_int_equal(events.contact_changes[0].kind, sinew_v1_ContactChangeKind_CONTACT_BEGIN);
	snc_message_free(&events);
}

// Many contacts in one frame: at most max_contacts_per_frame go, the rest are counted.
static void test_contacts_bounded(void** state)
{
	(void)state;
	test_server server;
	static const char* const args[] = { "--max-contacts-per-frame", "3", NULL };
	test_server_start(&server, args);
	snc_client* k = test_connect(&server, SNC_TCP, "bounded", sinew_v1_Role_ROLE_CONTROLLER);
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_create_world_tag);
	m.command.create_world.has_settings = true;
	m.command.create_world.settings.has_gravity = true;
	uint64_t world = test_created(k, &m);
	snc_message reply;
	snc_shape ground = snc_shape_plane(0, 0, 1, 0);
	assert_int_equal(snc_create_shape(k, world, 0, 0, 0, &ground, &reply, TEST_TIMEOUT_MS), 0);
	snc_message_free(&reply);
	for (int i = 0; i < 5; ++i)
	{
		sinew_v1_BodyDef b = body_at(i, 0, 0.099, sinew_v1_BodyType_BODY_DYNAMIC);
		snc_shape box = snc_shape_box(0.1, 0.1, 0.1);
		assert_int_equal(snc_create_body(k, world, &b, &box, 1, NULL, &reply, TEST_TIMEOUT_MS), 0);
		assert_int_equal(snc_reply_code(&reply), 0);
		snc_message_free(&reply);
	}
	test_step(k, world, 1);
	test_get_state(k, world, sinew_v1_Include_INCLUDE_CONTACTS, &reply);
	assert_int_equal(reply.contact_count, 3);
	assert_int_equal(reply.msg.message.reply.result.state.contacts_dropped, 2);
	snc_message_free(&reply);
	snc_close(k);
	assert_int_equal(test_server_stop(&server), 0);
}

static void test_urdf_world_meshes_count(void** state)
{
	(void)state;
	// A massless root above a floating joint is the world, and its collision meshes become the world's
	// triangle meshes. LoadUrdf made them without counting max_mesh_triangles_per_world (6 here), so one
	// load naming one mesh thousands of times could take gigabytes. Now it is refused before any is made,
	// and the world stays as it was.
	static const char obj[] = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n"
							  "f 1 3 2\nf 1 4 3\nf 5 6 7\nf 5 7 8\nf 1 2 6\nf 1 6 5\n"
							  "f 2 3 7\nf 2 7 6\nf 3 4 8\nf 3 8 7\nf 4 1 5\nf 4 5 8\n";
	static const char urdf[] =
		"<robot name=\"floor\"><link name=\"ground\"><collision><geometry><mesh filename=\"box.obj\"/></geometry>"
		"</collision></link><joint name=\"free\" type=\"floating\"><parent link=\"ground\"/><child link=\"body\"/>"
		"</joint><link name=\"body\"><inertial><mass value=\"1\"/><inertia ixx=\"0.01\" iyy=\"0.01\" izz=\"0.01\" "
		"ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial></link></robot>";
	uint64_t world = still_world("urdf world meshes");
	snc_urdf_request r;
	memset(&r, 0, sizeof(r));
	r.world_id = world;
	r.urdf = urdf;
	r.urdf_size = sizeof(urdf) - 1;
	snc_asset box = { "box.obj", NULL, obj, sizeof(obj) - 1 };
	snc_message reply;
	assert_int_equal(snc_load_urdf_assets(c, &r, &box, 1, NULL, &reply, TEST_TIMEOUT_MS), 0);
	assert_int_equal(snc_reply_code(&reply), sinew_v1_ErrorCode_ERR_LIMIT_REACHED);
	assert_non_null(strstr(snc_reply_text(&reply), "max_mesh_triangles_per_world"));
	assert_non_null(strstr(snc_reply_text(&reply), "12 triangles"));
	snc_message_free(&reply);
	sinew_v1_WorldInfo info = world_info(world);
	assert_int_equal(info.shape_count, 0);
	assert_int_equal(info.articulation_count, 0);
	// The same body without the world's mesh loads.
	static const char bare[] =
		"<robot name=\"floor\"><link name=\"ground\"/><joint name=\"free\" type=\"floating\"><parent "
		"link=\"ground\"/><child link=\"body\"/></joint><link name=\"body\"><inertial><mass value=\"1\"/><inertia "
		"ixx=\"0.01\" iyy=\"0.01\" izz=\"0.01\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial></link></robot>";
	r.urdf = bare;
	r.urdf_size = sizeof(bare) - 1;
	assert_int_equal(snc_load_urdf_assets(c, &r, NULL, 0, NULL, &reply, TEST_TIMEOUT_MS), 0);
	if (snc_reply_code(&reply) != 0)
	{
		fail_msg("load: %s", snc_reply_text(&reply));
	}
	snc_message_free(&reply);
	assert_int_equal(world_info(world).articulation_count, 1);
}

// A core world with one sphere body and, if `mesh`, a 12-triangle closed box mesh as the world's own;
// its snapshot in a malloc'd buffer.
static uint8_t* core_snapshot(bool mesh, size_t* size)
{
	sn_world_def def = sn_default_world_def();
	sn_world* w = NULL;
	assert_int_equal(sn_world_create(&def, &w), SN_ERR_OK);
	sn_body_def b = sn_default_body_def();
	b.type = SN_BODY_DYNAMIC;
	sn_body_id body;
	assert_int_equal(sn_create_body(w, &b, &body), SN_ERR_OK);
	sn_shape_def sphere = sn_default_shape_def();
	sphere.body = body;
	sn_shape_id id;
	assert_int_equal(sn_create_shape(w, &sphere, &id), SN_ERR_OK);
	if (mesh)
	{
		static const sn_vec3 v[] = { { 0, 0, 0 }, { 1, 0, 0 }, { 1, 1, 0 }, { 0, 1, 0 },
									 { 0, 0, 1 }, { 1, 0, 1 }, { 1, 1, 1 }, { 0, 1, 1 } };
		static const int32_t t[] = { 0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4,
									 1, 2, 6, 1, 6, 5, 2, 3, 7, 2, 7, 6, 3, 0, 4, 3, 4, 7 };
		sn_shape_def box = sn_default_shape_def();
		box.geometry = sn_geometry_mesh(v, 8, t, 12);
		assert_int_equal(sn_create_shape(w, &box, &id), SN_ERR_OK);
	}
	size_t need = sn_world_snapshot_size(w);
	uint8_t* bytes = malloc(need);
	assert_non_null(bytes);
	assert_int_equal(sn_world_snapshot_write(w, bytes, need, size), SN_ERR_OK);
	sn_world_destroy(w);
	return bytes;
}

static void test_restore_counts_shapes(void** state)
{
	(void)state;
	// A world restored from a snapshot meets the limits a world built command by command meets. Restore
	// counted bodies and joints only, so a snapshot could bring in meshes past max_mesh_triangles_per_world
	// (6 here) and articulations past what a state frame carries. Now a 12-triangle world mesh is refused,
	// and the world stays as it was.
	uint64_t world = still_world("restore limits");
	sinew_v1_BodyDef b = body_at(0, 0, 1, sinew_v1_BodyType_BODY_DYNAMIC);
	snc_shape ball = snc_shape_sphere(0.2);
	snc_message reply;
	assert_int_equal(snc_create_body(c, world, &b, &ball, 1, NULL, &reply, TEST_TIMEOUT_MS), 0);
	assert_int_equal(snc_reply_code(&reply), 0);
	snc_message_free(&reply);
	size_t size = 0;
	uint8_t* bytes = core_snapshot(true, &size);
	char why[300];
	assert_int_equal(test_restore(c, world, bytes, size, why, sizeof(why)), sinew_v1_ErrorCode_ERR_LIMIT_REACHED);
	free(bytes);
	assert_non_null(strstr(why, "max_mesh_triangles_per_world"));
	assert_non_null(strstr(why, "12 triangles"));
	sinew_v1_WorldInfo info = world_info(world);
	assert_int_equal(info.body_count, 1);
	assert_int_equal(info.shape_count, 1);
	// Without the mesh it fits, and replaces the world.
	bytes = core_snapshot(false, &size);
	assert_int_equal(test_restore(c, world, bytes, size, why, sizeof(why)), 0);
	free(bytes);
	info = world_info(world);
	assert_int_equal(info.body_count, 1);
	assert_int_equal(info.shape_count, 1);
}

// One message whose command is CreateArticulation, then CreateBody: protobuf keeps the last member of a
// oneof, so it is a CreateBody. The shapes were gathered outside the oneof, and the links' went with the
// body (past max_shapes_per_body too). Now the body gets its own shape alone, or none if it has none.
// Send the messages as one (concatenated: protobuf merges them); the reply into `reply`.
static void send_concatenated(const sinew_v1_ClientMessage* const* messages, int count, snc_message* reply)
{
	static uint8_t bytes[4096];
	uint8_t* body = bytes + 10;
	pb_ostream_t out = pb_ostream_from_buffer(body, sizeof(bytes) - 10);
	for (int i = 0; i < count; ++i)
	{
		assert_true(pb_encode(&out, sinew_v1_ClientMessage_fields, messages[i]));
	}
	uint8_t prefix[10];
	size_t n = wire_varint_put(prefix, out.bytes_written);
	memcpy(body - n, prefix, n);
	assert_int_equal(snc_send_raw(c, body - n, n + out.bytes_written), 0);
	test_wait_for(c, sinew_v1_ServerMessage_reply_tag, reply);
}

static void test_switched_command_keeps_its_own_shapes(void** state)
{
	(void)state;
	uint64_t world = still_world("switched");
	snc_shape ball = snc_shape_sphere(0.1);
	sinew_v1_LinkDef link = sinew_v1_LinkDef_init_zero;
	link.parent = -1;
	link.shapes.funcs.encode = encode_one_shape;
	link.shapes.arg = &ball;
	sinew_v1_ClientMessage first = test_command(sinew_v1_ClientMessage_create_articulation_tag);
	first.request_id = 7001;
	first.command.create_articulation.world_id = world;
	sinew_v1_LinkDef links[3] = { link, link, link };
	links[1].parent = 0;
	links[1].joint_type = sinew_v1_LinkJointType_LINK_REVOLUTE;
	links[2] = links[1];
	links[2].parent = 1;
	// Three links of a ball each: link 0's run of shapes is the body's if they are not told apart.
	first.command.create_articulation.links.funcs.encode = test_encode_links;
	test_links_arg arg = { links, 3 };
	first.command.create_articulation.links.arg = &arg;
	snc_shape box = snc_shape_box(0.1, 0.1, 0.1);
	sinew_v1_ClientMessage second = test_command(sinew_v1_ClientMessage_create_body_tag);
	second.request_id = 7001;
	second.command.create_body.world_id = world;
	second.command.create_body.has_body = true;
	second.command.create_body.body = body_at(0, 0, 1, sinew_v1_BodyType_BODY_DYNAMIC);
	second.command.create_body.shapes.funcs.encode = encode_one_shape;
	second.command.create_body.shapes.arg = &box;
	const sinew_v1_ClientMessage* pair[2] = { &first, &second };
	snc_message reply;
	send_concatenated(pair, 2, &reply);
	if (snc_reply_code(&reply) != 0)
	{
		fail_msg("%s", snc_reply_text(&reply));
	}
	assert_int_equal(reply.shape_id_count, 1);
	snc_message_free(&reply);
	sinew_v1_WorldInfo info = world_info(world);
	assert_int_equal(info.body_count, 1);
	assert_int_equal(info.articulation_count, 0);
	assert_int_equal(info.shape_count, 1);
	describe(world, 0, &reply);
	assert_int_equal(reply.shape_info_count, 1);
	assert_int_equal(reply.shape_infos[0].type, sinew_v1_ShapeType_SHAPE_BOX);
	snc_message_free(&reply);
	// A CreateBody of no shapes of its own after the links' gets none either.
	second.command.create_body.shapes.funcs.encode = NULL;
	send_concatenated(pair, 2, &reply);
	if (snc_reply_code(&reply) != 0)
	{
		fail_msg("%s", snc_reply_text(&reply));
	}
	assert_int_equal(reply.shape_id_count, 0);
	snc_message_free(&reply);
	info = world_info(world);
	assert_int_equal(info.body_count, 2);
	assert_int_equal(info.shape_count, 1);
	// CreateArticulation, CreateBody, CreateArticulation: the last starts anew (protobuf), so the articulation
	// has the last command's two links and their shapes, not the first's three besides. Given twice in a row,
	// CreateArticulation merges: the second's links follow the first's.
	sinew_v1_ClientMessage third = first;
	test_links_arg two = { links, 2 };
	third.command.create_articulation.links.arg = &two;
	sinew_v1_LinkDef tail[2] = { links[1], links[1] };
	tail[0].parent = 2;
	tail[1].parent = 3;
	test_links_arg more = { tail, 2 };
	sinew_v1_ClientMessage fourth = first;
	fourth.command.create_articulation.links.arg = &more;
	const sinew_v1_ClientMessage* sequences[2][3] = { { &first, &second, &third }, { &first, &fourth, NULL } };
	const int lengths[2] = { 3, 2 };
	const uint32_t links_after[2] = { 2, 2 + 5 };
	const uint32_t shapes_after[2] = { 1 + 2, 1 + 2 + 5 };
	for (int q = 0; q < 2; ++q)
	{
		send_concatenated(sequences[q], lengths[q], &reply);
		if (snc_reply_code(&reply) != 0)
		{
			fail_msg("sequence %d: %s", q, snc_reply_text(&reply));
		}
		snc_message_free(&reply);
		info = world_info(world);
		assert_int_equal(info.articulation_count, (uint32_t)q + 1);
		assert_int_equal(info.link_count, links_after[q]);
		assert_int_equal(info.shape_count, shapes_after[q]);
	}
}

// Hull.points as `count` doubles, one field each (not packed, as protobuf also allows).
typedef struct unpacked_points
{
	const double* values;
	int count;
} unpacked_points;

static bool encode_unpacked(pb_ostream_t* stream, const pb_field_t* field, void* const* arg)
{
	const unpacked_points* p = *arg;
	for (int i = 0; i < p->count; ++i)
	{
		if (!pb_encode_tag(stream, PB_WT_64BIT, field->tag) || !pb_encode_fixed64(stream, &p->values[i]))
		{
			return false;
		}
	}
	return true;
}

// A CreateShape on the world, its geometry a hull of `points` (NULL: a sphere).
static sinew_v1_ClientMessage world_shape(uint64_t world, const unpacked_points* points)
{
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_create_shape_tag);
	m.request_id = 7101;
	m.command.create_shape.world_id = world;
	m.command.create_shape.has_shape = true;
	if (points != NULL)
	{
		m.command.create_shape.shape.which_geometry = sinew_v1_ShapeDef_hull_tag;
		m.command.create_shape.shape.geometry.hull.points.funcs.encode = encode_unpacked;
		m.command.create_shape.shape.geometry.hull.points.arg = (void*)points;
	}
	else
	{
		m.command.create_shape.shape.which_geometry = sinew_v1_ShapeDef_sphere_tag;
		m.command.create_shape.shape.geometry.sphere.radius = 0.5;
	}
	return m;
}

// send_concatenated, then the hull's largest x in the world's description (the shape the reply created),
// or -1 if the shape is not a hull.
static double concatenated_hull_extent(uint64_t world, const sinew_v1_ClientMessage* const* messages, int count)
{
	snc_message reply;
	send_concatenated(messages, count, &reply);
	if (snc_reply_code(&reply) != 0)
	{
		fail_msg("%s", snc_reply_text(&reply));
	}
	assert_int_equal(reply.msg.message.reply.which_result, sinew_v1_Reply_created_tag);
	uint64_t shape = reply.msg.message.reply.result.created.id;
	snc_message_free(&reply);
	describe(world, 0, &reply);
	double extent = -1.0;
	for (int i = 0; i < reply.shape_info_count; ++i)
	{
		const sinew_v1_ShapeInfo* info = reply.shape_infos + i;
		if (info->id == shape && info->type == sinew_v1_ShapeType_SHAPE_HULL)
		{
			for (pb_size_t v = 0; v < info->hull_vertices_count; ++v)
			{
				extent = fmax(extent, info->hull_vertices[v].x);
			}
		}
	}
	snc_message_free(&reply);
	return extent;
}

static void test_replaced_geometry_keeps_no_points(void** state)
{
	(void)state;
	// Hull points given one field each reach the server one value at a time, and a hull whose geometry or
	// command was replaced later in the message must leave none of them behind: protobuf keeps the last
	// member of a oneof, and merges a member given twice in a row.
	uint64_t world = still_world("replaced hulls");
	const double far[12] = { 5, 0, 0, 6, 0, 0, 5, 1, 0, 5, 0, 1 };  // a tetrahedron out to x = 6
	const double near[12] = { 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1 }; // and one out to x = 1
	const unpacked_points p_far = { far, 12 }, p_near = { near, 12 };
	const sinew_v1_ClientMessage hull_far = world_shape(world, &p_far), hull_near = world_shape(world, &p_near);
	const sinew_v1_ClientMessage sphere = world_shape(world, NULL);
	sinew_v1_ClientMessage ping = test_command(sinew_v1_ClientMessage_ping_tag);
	ping.request_id = 7101;
	// CreateShape, Ping, CreateShape: the second command is the message.
	const sinew_v1_ClientMessage* replaced_command[3] = { &hull_far, &ping, &hull_near };
	assert_true(fabs(concatenated_hull_extent(world, replaced_command, 3) - 1.0) < 1e-9);
	// One CreateShape whose geometry is a hull, then a sphere, then a hull: the last hull.
	const sinew_v1_ClientMessage* replaced_geometry[3] = { &hull_far, &sphere, &hull_near };
	assert_true(fabs(concatenated_hull_extent(world, replaced_geometry, 3) - 1.0) < 1e-9);
	// A hull given twice in a row merges: both sets of points.
	const sinew_v1_ClientMessage* merged[2] = { &hull_far, &hull_near };
	assert_true(fabs(concatenated_hull_extent(world, merged, 2) - 6.0) < 1e-9);
	// A hull, a sphere, then a hull without points: the last hull has none, and is refused.
	const unpacked_points none = { NULL, 0 };
	const sinew_v1_ClientMessage hull_empty = world_shape(world, &none);
	const sinew_v1_ClientMessage* emptied[3] = { &hull_far, &sphere, &hull_empty };
	snc_message reply;
	send_concatenated(emptied, 3, &reply);
	assert_int_equal(snc_reply_code(&reply), SN_ERR_INVALID_ARGUMENT);
	snc_message_free(&reply);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_body_with_shapes),
		cmocka_unit_test(test_bad_shapes_create_nothing),
		cmocka_unit_test(test_link_shapes),
		cmocka_unit_test(test_mesh_shape_fetched_by_hash),
		cmocka_unit_test(test_contacts_and_events),
		cmocka_unit_test(test_contacts_bounded),
		cmocka_unit_test(test_urdf_world_meshes_count),
		cmocka_unit_test(test_restore_counts_shapes),
		cmocka_unit_test(test_switched_command_keeps_its_own_shapes),
		cmocka_unit_test(test_replaced_geometry_keeps_no_points),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
