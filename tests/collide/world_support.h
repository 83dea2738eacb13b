// Helpers shared by the world-level collision tests (shapes on bodies and links, the step's collision
// stage, filtering, queries, snapshots): worlds and objects that assert on failure, contact readback
// into fixed arrays, and the check that a refused call changed nothing. Scenes come from the scene
// library (scenes/contacts.h), as the benchmarks build them.
#ifndef SINEW_TEST_COLLIDE_WORLD_SUPPORT_H
#define SINEW_TEST_COLLIDE_WORLD_SUPPORT_H

#include "support.h"

#include "scenes/scenes.h"
#include "sinew/sinew.h"

#include <string.h>

#define report_measure(name, value) print_message("MEASURE %s = %.6g\n", name, (double)(value))

// A world with this time step and gravity, TGS (the solver does not matter for detection).
static inline sn_world* make_world(double dt, sn_vec3 gravity)
{
	sn_world_def wd = sn_default_world_def();
	wd.time_step = dt;
	wd.gravity = gravity;
	sn_world* world = NULL;
	assert_sn_ok(sn_world_create(&wd, &world));
	return world;
}

static inline sn_world* zero_g_world(void)
{
	return make_world(0.001, sn_v3(0, 0, 0));
}

// A body of this type at a pose (1 kg, the default inertia).
static inline sn_body_id make_body(sn_world* world, sn_body_type type, sn_transform pose)
{
	sn_body_def bd = sn_default_body_def();
	bd.type = type;
	bd.pose = pose;
	sn_body_id id;
	assert_sn_ok(sn_create_body(world, &bd, &id));
	return id;
}

static inline sn_transform at(double x, double y, double z)
{
	sn_transform t = { sn_v3(x, y, z), sn_quat_identity() };
	return t;
}

static inline sn_transform posed(sn_vec3 p, sn_quat q)
{
	sn_transform t = { p, q };
	return t;
}

// A shape on a body (null: the world) with this geometry and local pose.
static inline sn_shape_id make_shape(sn_world* world, sn_body_id body, sn_geometry geometry, sn_transform local)
{
	sn_shape_def sd = sn_default_shape_def();
	sd.body = body;
	sd.geometry = geometry;
	sd.local_pose = local;
	sn_shape_id id;
	assert_sn_ok(sn_create_shape(world, &sd, &id));
	return id;
}

static inline sn_shape_id make_ground(sn_world* world)
{
	return make_shape(world, (sn_body_id){ 0, 0 }, sn_geometry_plane(sn_v3(0, 0, 1), 0.0), sn_transform_identity());
}

// A body of this type carrying one box of these half-extents.
static inline sn_body_id box_body(sn_world* world, sn_body_type type, sn_transform pose, sn_vec3 half,
								  sn_shape_id* shape)
{
	sn_body_id b = make_body(world, type, pose);
	sn_shape_id s = make_shape(world, b, sn_geometry_box(half), sn_transform_identity());
	if (shape != NULL)
	{
		*shape = s;
	}
	return b;
}

// Every contact of the world (at most 64 manifolds here).
enum
{
	MAX_TEST_CONTACTS = 256
};
typedef struct contact_list
{
	int count;
	sn_contact items[MAX_TEST_CONTACTS];
} contact_list;

static inline void read_contacts(const sn_world* world, contact_list* out)
{
	out->count = sn_world_get_contacts(world, out->items, MAX_TEST_CONTACTS);
	assert_true(out->count <= MAX_TEST_CONTACTS);
}

// The manifold count between two shapes now.
static inline int pair_contacts(const sn_world* world, sn_shape_id a, sn_shape_id b, sn_contact* out)
{
	sn_contact scratch[SN_MAX_MANIFOLDS];
	return sn_shape_pair_get_contacts(world, a, b, out != NULL ? out : scratch, SN_MAX_MANIFOLDS);
}

static inline double deepest_point(const sn_contact* c)
{
	double d = INFINITY;
	for (int k = 0; k < c->point_count; ++k)
	{
		d = fmin(d, c->points[k].separation);
	}
	return d;
}

static inline void step(sn_world* world, int n)
{
	for (int i = 0; i < n; ++i)
	{
		assert_sn_ok(sn_world_step(world));
	}
}

// What a refused call must leave as it was.
typedef struct world_mark
{
	uint64_t hash;
	int bodies, shapes, contacts;
	size_t bytes;
} world_mark;

static inline world_mark mark_world(const sn_world* world)
{
	world_mark m = { sn_world_state_hash(world), sn_world_get_body_count(world), sn_world_get_shape_count(world),
					 sn_world_get_contacts(world, NULL, 0), sn_world_get_memory_stats(world).bytes_in_use };
	return m;
}

// The call failed with `expected`, left a detail line and changed nothing (not even the memory held).
#define assert_refused(world, call, expected)                                                                          \
	do                                                                                                                 \
	{                                                                                                                  \
		world_mark before_ = mark_world(world);                                                                        \
		assert_sn_error(call, expected);                                                                               \
		world_mark after_ = mark_world(world);                                                                         \
		assert_true(after_.hash == before_.hash);                                                                      \
		assert_int_equal(after_.bodies, before_.bodies);                                                               \
		assert_int_equal(after_.shapes, before_.shapes);                                                               \
		assert_int_equal(after_.contacts, before_.contacts);                                                           \
		assert_int_equal(after_.bytes, before_.bytes);                                                                 \
		assert_true(strlen(sn_world_last_error_detail(world)) > 0);                                                    \
	} while (0)

#endif
