// Snapshots of worlds with shapes: a snapshot taken mid-run and restored continues bit for bit, contact
// readback (points, feature ids, warm starts), events and the state hash included, with a stale pair
// (a shape destroyed just before the snapshot), links, sensors, meshes, hulls, exclusions and joints
// with collide_connected in the scene; forged shape and contact fields are rejected.
#include "world_support.h"

// To write warm-start impulses, as the contact solver will.
#include "world.h"

#include <stdlib.h>

typedef struct scene
{
	sn_world* world;
	sn_shape_id doomed;
	sn_body_id shelf; // static, moved by a setter right before the snapshot
} scene;

static const sn_body_id world_body = { 0, 0 };

static scene build(void)
{
	scene s;
	s.world = zero_g_world();
	sn_world* w = s.world;
	make_ground(w);
	const sn_vec3 v[4] = { { 3, -1, 0.5 }, { 5, -1, 0.5 }, { 5, 1, 0.5 }, { 3, 1, 0.5 } };
	const int32_t idx[6] = { 0, 1, 2, 0, 2, 3 };
	make_shape(w, world_body, sn_geometry_mesh(v, 4, idx, 2), sn_transform_identity());
	// Boxes sliding into each other on the ground, a hull tumbling over the mesh.
	for (int i = 0; i < 6; ++i)
	{
		sn_body_def bd = sn_default_body_def();
		bd.pose = posed(sn_v3(-1.0 + 0.35 * i, 0.05 * i, 0.1), sn_quat_from_axis_angle(sn_v3(0, 0, 1), 0.1 * i));
		bd.linear_velocity = sn_v3(i % 2 ? -0.4 : 0.4, 0.02 * i, 0);
		bd.angular_velocity = sn_v3(0, 0, 0.5 - 0.2 * i);
		sn_body_id b;
		assert_sn_ok(sn_create_body(w, &bd, &b));
		sn_shape_id sh = make_shape(w, b, sn_geometry_box(sn_v3(0.1, 0.1, 0.1)), sn_transform_identity());
		if (i == 4)
		{
			s.doomed = sh;
		}
	}
	const sn_vec3 points[6] = { { 0.1, 0, 0 },  { -0.1, 0, 0 }, { 0, 0.12, 0 },
								{ 0, -0.1, 0 }, { 0, 0, 0.1 },  { 0, 0, -0.11 } };
	sn_body_def bd = sn_default_body_def();
	bd.pose.p = sn_v3(3.5, 0, 0.6);
	bd.linear_velocity = sn_v3(0.3, 0, 0);
	bd.angular_velocity = sn_v3(0.7, 0.2, 0);
	sn_body_id hull_body;
	assert_sn_ok(sn_create_body(w, &bd, &hull_body));
	make_shape(w, hull_body, sn_geometry_hull(points, 6), sn_transform_identity());
	// A sensor on the ground the boxes cross.
	sn_shape_def sd = sn_default_shape_def();
	sd.geometry = sn_geometry_box(sn_v3(0.2, 0.5, 0.2));
	sd.local_pose = at(0, 0, 0.1);
	sd.is_sensor = true;
	sn_shape_id sensor;
	assert_sn_ok(sn_create_shape(w, &sd, &sensor));
	// A fixed-base arm whose links rest on the ground; a self-colliding one.
	sn_link_def links[3] = { sn_default_link_def(), sn_default_link_def(), sn_default_link_def() };
	for (int l = 1; l < 3; ++l)
	{
		links[l].parent = l - 1;
		links[l].parent_frame = posed(sn_v3(0.2, 0, 0), scene_x_to_y());
		links[l].child_frame.q = scene_x_to_y();
		links[l].initial_velocity[0] = 0.3;
	}
	sn_articulation_def ad = sn_default_articulation_def();
	ad.base_pose.p = sn_v3(0, 2, 0.06);
	ad.self_collision = true;
	sn_articulation_id art;
	assert_sn_ok(sn_create_articulation(w, &ad, links, 3, &art));
	for (int l = 0; l < 3; ++l)
	{
		make_shape(w, sn_articulation_get_link_body(w, art, l), sn_geometry_capsule(0.05, 0.1),
				   posed(sn_v3(0.1, 0, 0), sn_quat_from_axis_angle(sn_v3(0, 1, 0), 0.5 * SN_PI)));
	}
	// A static shelf, out of the way until it is moved.
	s.shelf = make_body(w, SN_BODY_STATIC, at(0, -5, 0.1));
	make_shape(w, s.shelf, sn_geometry_box(sn_v3(0.3, 0.3, 0.1)), sn_transform_identity());
	// An exclusion and a joint that keeps its bodies colliding.
	sn_body_id ids[8];
	sn_world_get_bodies(w, ids, 8);
	assert_sn_ok(sn_world_set_pair_collision(w, ids[0], ids[1], false));
	sn_hinge_joint_def hd = sn_default_hinge_joint_def();
	hd.base.body_a = ids[2];
	hd.base.body_b = ids[3];
	hd.base.collide_connected = true;
	hd.base.frame_a.p = sn_v3(0.175, 0, 0);
	hd.base.frame_b.p = sn_v3(-0.175, 0, 0);
	sn_joint_id j;
	assert_sn_ok(sn_create_hinge_joint(w, &hd, &j));
	return s;
}

// What the contact solver will do each step: change every point's warm starts from what they carried.
static void solve(sn_world* world)
{
	contact_state* c = &world->contacts;
	for (int m = 0; m < c->manifold_count; ++m)
	{
		for (int k = 0; k < c->manifolds[m].point_count; ++k)
		{
			contact_point* p = c->manifolds[m].points + k;
			p->normal_impulse = 0.5 * p->normal_impulse + 1.0 + (double)(p->id & 0xff);
			p->tangent_impulse[0] = -0.25 * p->normal_impulse;
			p->tangent_impulse[1] += 0.125;
		}
	}
}

static uint8_t* take(sn_world* world, size_t* size)
{
	*size = sn_world_snapshot_size(world);
	uint8_t* bytes = malloc(*size);
	assert_non_null(bytes);
	size_t written;
	assert_sn_ok(sn_world_snapshot_write(world, bytes, *size, &written));
	assert_int_equal(written, *size);
	return bytes;
}

static sn_contact contacts_a[MAX_TEST_CONTACTS], contacts_b[MAX_TEST_CONTACTS];

static void assert_same_contacts(const sn_world* a, const sn_world* b)
{
	int na = sn_world_get_contacts(a, contacts_a, MAX_TEST_CONTACTS);
	int nb = sn_world_get_contacts(b, contacts_b, MAX_TEST_CONTACTS);
	assert_int_equal(na, nb);
	assert_true(na <= MAX_TEST_CONTACTS);
	// The records are cleared before they are filled, so whole records compare.
	assert_memory_equal(contacts_a, contacts_b, (size_t)na * sizeof(sn_contact));
	sn_contact_events ea = sn_world_get_contact_events(a), eb = sn_world_get_contact_events(b);
	assert_int_equal(ea.begin_count, eb.begin_count);
	assert_int_equal(ea.end_count, eb.end_count);
	assert_int_equal(ea.sensor_begin_count, eb.sensor_begin_count);
	assert_int_equal(ea.sensor_end_count, eb.sensor_end_count);
	assert_memory_equal(ea.begin, eb.begin, (size_t)ea.begin_count * sizeof(sn_contact_event));
	assert_memory_equal(ea.end, eb.end, (size_t)ea.end_count * sizeof(sn_contact_event));
	assert_true(sn_world_state_hash(a) == sn_world_state_hash(b));
}

static void test_restored_world_continues(void** state)
{
	(void)state;
	scene s = build();
	int events = 0, persisted = 0;
	for (int i = 0; i < 400; ++i)
	{
		step(s.world, 1);
		solve(s.world);
	}
	// A shape destroyed right before the snapshot: its pairs are stale until the next step ends them. A
	// static body moved into the sliding boxes (its shapes follow in the next step).
	assert_sn_ok(sn_destroy_shape(s.world, s.doomed));
	assert_sn_ok(sn_body_set_pose(s.world, s.shelf, at(-0.2, 0.1, 0.1)));
	size_t size;
	uint8_t* bytes = take(s.world, &size);
	sn_world* copy = NULL;
	assert_sn_ok(sn_world_create_from_snapshot(bytes, size, NULL, &copy));
	assert_int_equal(sn_world_get_shape_count(copy), sn_world_get_shape_count(s.world));
	assert_true(sn_world_state_hash(copy) == sn_world_state_hash(s.world));
	for (int i = 0; i < 300; ++i)
	{
		step(s.world, 1);
		step(copy, 1);
		assert_same_contacts(s.world, copy);
		solve(s.world);
		solve(copy);
		sn_contact_events e = sn_world_get_contact_events(s.world);
		events += e.begin_count + e.end_count + e.sensor_begin_count + e.sensor_end_count;
		sn_collision_stats st = sn_world_get_collision_stats(s.world);
		persisted += st.points;
	}
	report_measure("events in the 300 steps after the restore", events);
	report_measure("contact points in them", persisted);
	assert_true(events > 0 && persisted > 0); // the scene does exercise pairs and events
	// A snapshot of the copy is the same bytes as one of the original.
	size_t size2;
	uint8_t* again = take(copy, &size2);
	uint8_t* orig = take(s.world, &size);
	assert_int_equal(size, size2);
	assert_memory_equal(orig, again, size);
	free(again);
	free(orig);
	free(bytes);
	sn_world_destroy(copy);
	sn_world_destroy(s.world);
}

static uint64_t fnv1a(const uint8_t* p, size_t n)
{
	uint64_t h = 14695981039346656037ull;
	for (size_t i = 0; i < n; ++i)
	{
		h ^= p[i];
		h *= 1099511628211ull;
	}
	return h;
}

// Replace the first occurrence of a double's bits and fix the payload hash: the hash no longer protects
// the field, the validation must.
static bool forge_from(uint8_t* bytes, size_t size, size_t from, double needle, double patch)
{
	uint8_t n[8], p[8];
	memcpy(n, &needle, 8);
	memcpy(p, &patch, 8);
	for (size_t i = from; i + 8 <= size; ++i)
	{
		if (memcmp(bytes + i, n, 8) == 0)
		{
			memcpy(bytes + i, p, 8);
			uint64_t h = fnv1a(bytes + 32, size - 32);
			for (int k = 0; k < 8; ++k)
			{
				bytes[24 + k] = (uint8_t)(h >> (8 * k));
			}
			return true;
		}
	}
	return false;
}

static bool forge(uint8_t* bytes, size_t size, double needle, double patch)
{
	return forge_from(bytes, size, 32, needle, patch);
}

// Where a section's tag is.
static size_t section_at(const uint8_t* bytes, size_t size, const char tag[4])
{
	for (size_t i = 32; i + 4 <= size; ++i)
	{
		if (memcmp(bytes + i, tag, 4) == 0)
		{
			return i;
		}
	}
	return 0;
}

static void test_forged_fields_rejected(void** state)
{
	(void)state;
	// Distinctive values to find in the bytes: a sphere radius, a hull point, a friction, a fat box corner.
	const double cases[][2] = {
		{ 0.123456789, -0.123456789 }, // sphere radius negative
		{ 0.0987654321, 0.0 },         // the hull's one point off the plane z = 0 flattened: coplanar
		{ 0.31415, -1.0 },             // friction negative
	};
	for (int k = 0; k < 3; ++k)
	{
		sn_world* w = zero_g_world();
		make_ground(w);
		sn_body_id b = make_body(w, SN_BODY_DYNAMIC, at(0, 0, 0.3));
		make_shape(w, b, sn_geometry_sphere(0.123456789), sn_transform_identity());
		const sn_vec3 points[4] = { { 0, 0, 0 }, { 1, 0, 0 }, { 0, 1, 0 }, { 0.25, 0.25, 0.0987654321 } };
		make_shape(w, b, sn_geometry_hull(points, 4), at(0, 0, 1));
		sn_shape_def sd = sn_default_shape_def();
		sd.body = b;
		sd.material.friction = 0.31415;
		sd.geometry = sn_geometry_box(sn_v3(0.1, 0.1, 0.1));
		sn_shape_id id;
		assert_sn_ok(sn_create_shape(w, &sd, &id));
		step(w, 2);
		size_t size;
		uint8_t* bytes = take(w, &size);
		sn_world* out = NULL;
		assert_sn_ok(sn_world_create_from_snapshot(bytes, size, NULL, &out));
		sn_world_destroy(out);
		out = NULL;
		assert_true(forge(bytes, size, cases[k][0], cases[k][1]));
		assert_sn_error(sn_world_create_from_snapshot(bytes, size, NULL, &out), SN_ERR_BAD_SNAPSHOT);
		assert_null(out);
		free(bytes);
		sn_world_destroy(w);
	}
	// A contact normal that is not unit (the first manifold's, the ground's (0, 0, 1), in the contact
	// section), and every bit flip and truncation of a world with contacts.
	scene s = build();
	step(s.world, 50);
	size_t size;
	uint8_t* bytes = take(s.world, &size);
	sn_contact c;
	assert_true(sn_world_get_contacts(s.world, &c, 1) >= 1);
	assert_true(c.normal.z == 1.0);
	size_t cont = section_at(bytes, size, "CONT");
	assert_true(cont > 0);
	assert_true(forge_from(bytes, size, cont, 1.0, 2.0));
	sn_world* out = NULL;
	assert_sn_error(sn_world_create_from_snapshot(bytes, size, NULL, &out), SN_ERR_BAD_SNAPSHOT);
	free(bytes);
	bytes = take(s.world, &size);
	for (size_t i = 0; i < size; i += 61)
	{
		bytes[i] ^= (uint8_t)(1u << (i % 8));
		assert_sn_error(sn_world_create_from_snapshot(bytes, size, NULL, &out), SN_ERR_BAD_SNAPSHOT);
		bytes[i] ^= (uint8_t)(1u << (i % 8));
	}
	for (size_t cut = 0; cut < size; cut += 97)
	{
		assert_sn_error(sn_world_create_from_snapshot(bytes, cut, NULL, &out), SN_ERR_BAD_SNAPSHOT);
	}
	assert_null(out);
	free(bytes);
	sn_world_destroy(s.world);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_restored_world_continues),
		cmocka_unit_test(test_forged_fields_rejected),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
