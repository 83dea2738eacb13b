// Bad input of every kind the API can receive is rejected with the right sn_error, a one-line detail,
// and no change to the world; batches of control inputs are all or nothing.
//
// Each rejected call runs on a fresh copy of one scene (a body and a joint of every type, a kinematic and
// a static body, all moving). "No change" is checked three ways: the state hash and the counts; every
// value the getters show, for every body and joint, flattened and compared bit for bit; and a twin of
// the scene that never saw the call, stepped alongside for 20 steps, must end with the same state hash
// (which catches a hidden field, such as damping or a joint length, half-changed by a failed call).
// Ids are values: the scene is built the same way every time, so its ids are valid in every copy.
#include "core_support.h"

#include <float.h>
#include <stdlib.h>

typedef struct scene
{
	sn_body_id bodies[SN_JOINT_TYPE_COUNT];  // dynamic, body i is body_b of joint i
	sn_body_id kinematic, fixed_post;        // a kinematic and a static body
	sn_joint_id joints[SN_JOINT_TYPE_COUNT]; // joint i has type i
	sn_body_id stale_body;                   // destroyed while building
	sn_joint_id stale_joint;
} scene;

static scene ids; // the scene's ids, the same in every copy

static sn_body_id null_body(void)
{
	return (sn_body_id){ 0, 0 };
}

static sn_joint_base scene_base(sn_body_id a, sn_body_id b)
{
	sn_joint_base base = sn_default_joint_base();
	base.body_a = a;
	base.body_b = b;
	base.frame_a.p = sn_v3(0.25, 0, 0);
	base.frame_b.p = sn_v3(-0.25, 0, 0);
	return base;
}

// Create a joint of a type with a base and that type's defaults.
static sn_error create_typed(sn_world* world, sn_joint_type type, sn_joint_base base, sn_joint_id* id)
{
	switch (type)
	{
		case SN_JOINT_FIXED:
		{
			sn_fixed_joint_def d = sn_default_fixed_joint_def();
			d.base = base;
			return sn_create_fixed_joint(world, &d, id);
		}
		case SN_JOINT_HINGE:
		{
			sn_hinge_joint_def d = sn_default_hinge_joint_def();
			d.base = base;
			return sn_create_hinge_joint(world, &d, id);
		}
		case SN_JOINT_PRISMATIC:
		{
			sn_prismatic_joint_def d = sn_default_prismatic_joint_def();
			d.base = base;
			return sn_create_prismatic_joint(world, &d, id);
		}
		case SN_JOINT_SPHERICAL:
		{
			sn_spherical_joint_def d = sn_default_spherical_joint_def();
			d.base = base;
			return sn_create_spherical_joint(world, &d, id);
		}
		case SN_JOINT_DISTANCE:
		{
			sn_distance_joint_def d = sn_default_distance_joint_def();
			d.base = base;
			d.length = 0.5;
			return sn_create_distance_joint(world, &d, id);
		}
		case SN_JOINT_CYLINDRICAL:
		{
			sn_cylindrical_joint_def d = sn_default_cylindrical_joint_def();
			d.base = base;
			return sn_create_cylindrical_joint(world, &d, id);
		}
		default:
		{
			sn_six_axis_joint_def d = sn_default_six_axis_joint_def();
			d.base = base;
			d.axes[SN_AXIS_RX].mode = SN_AXIS_FREE;
			return sn_create_six_axis_joint(world, &d, id);
		}
	}
}

static sn_world* build_scene(scene* s)
{
	sn_world* world = test_world(SN_SOLVER_TGS, 0.001, sn_v3(0, 0, -9.81));
	sn_body_def bd = sn_default_body_def();
	sn_body_id doomed;
	assert_sn_ok(sn_create_body(world, &bd, &doomed));
	for (int i = 0; i < SN_JOINT_TYPE_COUNT; ++i)
	{
		bd.pose.p = sn_v3(0.25 + 0.5 * i, 0, 0);
		bd.linear_damping = 0.1 * i;
		assert_sn_ok(sn_create_body(world, &bd, s->bodies + i));
	}
	sn_body_def kd = sn_default_body_def();
	kd.type = SN_BODY_KINEMATIC;
	kd.pose.p = sn_v3(0, 2, 0);
	kd.linear_velocity = sn_v3(0.1, 0, 0);
	assert_sn_ok(sn_create_body(world, &kd, &s->kinematic));
	kd.type = SN_BODY_STATIC;
	kd.pose.p = sn_v3(0, -2, 0);
	assert_sn_ok(sn_create_body(world, &kd, &s->fixed_post));
	for (int i = 0; i < SN_JOINT_TYPE_COUNT; ++i)
	{
		sn_joint_base base = scene_base(i > 0 ? s->bodies[i - 1] : null_body(), s->bodies[i]);
		if (i == 0)
		{
			base.frame_a.p = sn_v3(0, 0, 0);
		}
		assert_sn_ok(create_typed(world, (sn_joint_type)i, base, s->joints + i));
	}
	assert_sn_ok(create_typed(world, SN_JOINT_SPHERICAL, scene_base(s->kinematic, doomed), &s->stale_joint));
	assert_sn_ok(sn_destroy_body(world, doomed)); // takes stale_joint with it
	s->stale_body = doomed;
	for (int i = 0; i < 5; ++i)
	{
		assert_sn_ok(sn_world_step(world));
	}
	return world;
}

// Everything the getters show, flattened into numbers.
typedef struct flat
{
	double v[4096];
	int n;
} flat;

static void put(flat* f, double x)
{
	assert_true(f->n < 4096);
	f->v[f->n++] = x;
}

static void put3(flat* f, sn_vec3 a)
{
	put(f, a.x);
	put(f, a.y);
	put(f, a.z);
}

static void put_transform(flat* f, sn_transform t)
{
	put3(f, t.p);
	put(f, t.q.x);
	put(f, t.q.y);
	put(f, t.q.z);
	put(f, t.q.w);
}

static void flatten(const sn_world* w, flat* f)
{
	f->n = 0;
	sn_world_def d = sn_world_get_def(w);
	put3(f, d.gravity);
	put(f, d.time_step);
	put(f, d.solver);
	put(f, d.position_iterations);
	put(f, d.velocity_iterations);
	put(f, d.substeps);
	put(f, d.erp);
	put(f, d.divergence_speed);
	put(f, sn_world_get_time(w));
	put(f, (double)sn_world_get_step_count(w));
	put(f, sn_world_is_diverged(w));
	put(f, (double)sn_world_state_hash(w));
	put(f, sn_world_get_body_count(w));
	put(f, sn_world_get_joint_count(w));
	sn_body_id bodies[32];
	int nb = sn_world_get_bodies(w, bodies, 32);
	for (int i = 0; i < nb; ++i)
	{
		sn_body_id b = bodies[i];
		put(f, b.index1);
		put(f, b.generation);
		put(f, sn_body_get_type(w, b));
		put_transform(f, sn_body_get_pose(w, b));
		put3(f, sn_body_get_center_of_mass(w, b));
		put3(f, sn_body_get_linear_velocity(w, b));
		put3(f, sn_body_get_angular_velocity(w, b));
		put(f, sn_body_get_mass(w, b));
		sn_mat33 in = sn_body_get_inertia(w, b);
		put3(f, in.cx);
		put3(f, in.cy);
		put3(f, in.cz);
		put(f, (double)sn_body_get_user_data(w, b));
		put3(f, sn_body_get_applied_force(w, b));
		put3(f, sn_body_get_applied_torque(w, b));
	}
	sn_joint_id joints[32];
	int nj = sn_world_get_joints(w, joints, 32);
	for (int i = 0; i < nj; ++i)
	{
		sn_joint_id j = joints[i];
		put(f, j.index1);
		put(f, j.generation);
		put(f, sn_joint_get_type(w, j));
		put(f, sn_joint_get_body_a(w, j).index1);
		put(f, sn_joint_get_body_b(w, j).index1);
		put_transform(f, sn_joint_get_frame_a(w, j));
		put_transform(f, sn_joint_get_frame_b(w, j));
		put(f, (double)sn_joint_get_user_data(w, j));
		put(f, sn_joint_is_enabled(w, j));
		put(f, sn_joint_is_broken(w, j));
		sn_vec3 force, torque;
		assert_sn_ok(sn_joint_get_reaction(w, j, &force, &torque));
		put3(f, force);
		put3(f, torque);
		for (int a = 0; a < SN_AXIS_COUNT; ++a)
		{
			sn_limit l = sn_joint_get_limit(w, j, (sn_axis)a);
			sn_motor m = sn_joint_get_motor(w, j, (sn_axis)a);
			sn_spring s = sn_joint_get_spring(w, j, (sn_axis)a);
			put(f, l.enabled);
			put(f, l.lower);
			put(f, l.upper);
			put(f, l.soft.kind);
			put(f, l.soft.stiffness);
			put(f, l.soft.damping);
			put(f, l.soft.frequency);
			put(f, l.soft.damping_ratio);
			put(f, m.enabled);
			put(f, m.speed);
			put(f, m.max_force);
			put(f, s.enabled);
			put(f, s.target);
			put(f, s.max_force);
			put(f, s.soft.kind);
			put(f, s.soft.stiffness);
			put(f, s.soft.damping);
			put(f, sn_joint_get_coordinate(w, j, (sn_axis)a));
			put(f, sn_joint_get_coordinate_speed(w, j, (sn_axis)a));
		}
	}
}

static flat before_flat, after_flat; // big: kept off the stack

// One rejected call on a fresh copy of the scene: right error, one-line detail, nothing changed.
typedef struct fixture
{
	sn_world* world;
	sn_world* twin;
} fixture;

static void fixture_begin(fixture* f)
{
	scene s, t;
	f->world = build_scene(&s);
	f->twin = build_scene(&t);
	assert_memory_equal(&s, &ids, sizeof(s));
	flatten(f->world, &before_flat);
}

static int checked_cases;

static void fixture_end(fixture* f, sn_error got, sn_error expected, const char* call)
{
	if (got != expected)
	{
		fail_msg("%s returned %s, expected %s (detail: %s)", call, sn_error_name(got), sn_error_name(expected),
				 sn_world_last_error_detail(f->world));
	}
	const char* detail = sn_world_last_error_detail(f->world);
	if (strlen(detail) == 0 || strchr(detail, '\n') != NULL)
	{
		fail_msg("%s: detail must be one non-empty line, got \"%s\"", call, detail);
	}
	flatten(f->world, &after_flat);
	size_t bytes = sizeof(double) * (size_t)before_flat.n;
	if (after_flat.n != before_flat.n || memcmp(after_flat.v, before_flat.v, bytes) != 0)
	{
		for (int i = 0; i < before_flat.n && i < after_flat.n; ++i)
		{
			if (memcmp(after_flat.v + i, before_flat.v + i, sizeof(double)) != 0)
			{
				fail_msg("%s changed the world: value %d was %.17g, now %.17g", call, i, before_flat.v[i],
						 after_flat.v[i]);
			}
		}
		fail_msg("%s changed the number of values the getters show", call);
	}
	for (int i = 0; i < 20; ++i)
	{
		assert_sn_ok(sn_world_step(f->world));
		assert_sn_ok(sn_world_step(f->twin));
	}
	if (sn_world_state_hash(f->world) != sn_world_state_hash(f->twin))
	{
		fail_msg("%s changed something the getters do not show: the world no longer steps like its twin", call);
	}
	sn_world_destroy(f->world);
	sn_world_destroy(f->twin);
	checked_cases += 1;
}

// REJECT(expected error, call): the call may use `w` (the world copy).
#define REJECT(expected, ...)                                                                                          \
	do                                                                                                                 \
	{                                                                                                                  \
		fixture f_;                                                                                                    \
		fixture_begin(&f_);                                                                                            \
		sn_world* w = f_.world;                                                                                        \
		(void)w;                                                                                                       \
		fixture_end(&f_, (__VA_ARGS__), (expected), #__VA_ARGS__);                                                     \
	} while (0)

// ACCEPT(call): a boundary value that must be accepted.
#define ACCEPT(...)                                                                                                    \
	do                                                                                                                 \
	{                                                                                                                  \
		fixture f_;                                                                                                    \
		fixture_begin(&f_);                                                                                            \
		sn_world* w = f_.world;                                                                                        \
		sn_error got_ = (__VA_ARGS__);                                                                                 \
		if (got_ != SN_ERR_OK)                                                                                         \
		{                                                                                                              \
			fail_msg("%s returned %s (%s), expected OK", #__VA_ARGS__, sn_error_name(got_),                            \
					 sn_world_last_error_detail(w));                                                                   \
		}                                                                                                              \
		sn_world_destroy(f_.world);                                                                                    \
		sn_world_destroy(f_.twin);                                                                                     \
	} while (0)

static int setup(void** state)
{
	(void)state;
	sn_world* w = build_scene(&ids);
	sn_world_destroy(w);
	return 0;
}

static const double nan_ = NAN;
static const double inf_ = INFINITY;

// ---- world defs and world setters ----------------------------------------------------------------

static void reject_world_def(sn_world_def d, sn_error expected, const char* what)
{
	char detail[256];
	detail[0] = '\0';
	sn_error got = sn_world_def_check(&d, detail, sizeof(detail));
	if (got != expected)
	{
		fail_msg("world def with %s: check returned %s, expected %s", what, sn_error_name(got),
				 sn_error_name(expected));
	}
	if (strlen(detail) == 0 || strchr(detail, '\n') != NULL)
	{
		fail_msg("world def with %s: detail must be one non-empty line, got \"%s\"", what, detail);
	}
	sn_world* out = (sn_world*)&detail; // a sentinel that must survive
	got = sn_world_create(&d, &out);
	if (got != expected || out != (sn_world*)&detail)
	{
		fail_msg("world def with %s: create returned %s and touched *out", what, sn_error_name(got));
	}
	checked_cases += 1;
}

#define BAD_WORLD_DEF(assignment, expected)                                                                            \
	do                                                                                                                 \
	{                                                                                                                  \
		sn_world_def d = sn_default_world_def();                                                                       \
		d.assignment;                                                                                                  \
		reject_world_def(d, expected, #assignment);                                                                    \
	} while (0)

static void* dummy_alloc(void* context, size_t size)
{
	(void)context;
	(void)size;
	return NULL;
}

static void dummy_free(void* context, void* pointer, size_t size)
{
	(void)context;
	(void)pointer;
	(void)size;
}

static void test_world_def(void** state)
{
	(void)state;
	BAD_WORLD_DEF(gravity.x = nan_, SN_ERR_NOT_FINITE);
	BAD_WORLD_DEF(gravity.z = -inf_, SN_ERR_NOT_FINITE);
	BAD_WORLD_DEF(time_step = nan_, SN_ERR_NOT_FINITE);
	BAD_WORLD_DEF(time_step = inf_, SN_ERR_NOT_FINITE);
	BAD_WORLD_DEF(time_step = 0.0, SN_ERR_INVALID_ARGUMENT);
	BAD_WORLD_DEF(time_step = -0.001, SN_ERR_INVALID_ARGUMENT);
	BAD_WORLD_DEF(time_step = 1.0000001, SN_ERR_INVALID_ARGUMENT);
	BAD_WORLD_DEF(solver = (sn_solver)-1, SN_ERR_INVALID_ARGUMENT);
	BAD_WORLD_DEF(solver = SN_SOLVER_COUNT, SN_ERR_INVALID_ARGUMENT);
	BAD_WORLD_DEF(solver = (sn_solver)77, SN_ERR_INVALID_ARGUMENT);
	BAD_WORLD_DEF(implicit_alpha = nan_, SN_ERR_NOT_FINITE);
	BAD_WORLD_DEF(implicit_alpha = 0.49, SN_ERR_INVALID_ARGUMENT);
	BAD_WORLD_DEF(implicit_beta = inf_, SN_ERR_NOT_FINITE);
	BAD_WORLD_DEF(implicit_beta = 1.01, SN_ERR_INVALID_ARGUMENT);
	BAD_WORLD_DEF(position_iterations = 0, SN_ERR_INVALID_ARGUMENT);
	BAD_WORLD_DEF(position_iterations = 1001, SN_ERR_INVALID_ARGUMENT);
	BAD_WORLD_DEF(position_iterations = -5, SN_ERR_INVALID_ARGUMENT);
	BAD_WORLD_DEF(velocity_iterations = -1, SN_ERR_INVALID_ARGUMENT);
	BAD_WORLD_DEF(velocity_iterations = 1001, SN_ERR_INVALID_ARGUMENT);
	BAD_WORLD_DEF(substeps = 0, SN_ERR_INVALID_ARGUMENT);
	BAD_WORLD_DEF(substeps = 1001, SN_ERR_INVALID_ARGUMENT);
	BAD_WORLD_DEF(erp = nan_, SN_ERR_NOT_FINITE);
	BAD_WORLD_DEF(erp = -0.01, SN_ERR_INVALID_ARGUMENT);
	BAD_WORLD_DEF(erp = 1.01, SN_ERR_INVALID_ARGUMENT);
	BAD_WORLD_DEF(divergence_speed = nan_, SN_ERR_NOT_FINITE);
	BAD_WORLD_DEF(divergence_speed = inf_, SN_ERR_NOT_FINITE);
	BAD_WORLD_DEF(divergence_speed = 0.0, SN_ERR_INVALID_ARGUMENT);
	BAD_WORLD_DEF(divergence_speed = -1.0, SN_ERR_INVALID_ARGUMENT);
	BAD_WORLD_DEF(allocator.alloc = dummy_alloc, SN_ERR_INVALID_ARGUMENT);
	BAD_WORLD_DEF(allocator.free = dummy_free, SN_ERR_INVALID_ARGUMENT);
	char detail[64];
	assert_sn_error(sn_world_def_check(NULL, detail, sizeof(detail)), SN_ERR_INVALID_ARGUMENT);
	assert_true(strlen(detail) > 0);
	sn_world* out = NULL;
	assert_sn_error(sn_world_create(NULL, &out), SN_ERR_INVALID_ARGUMENT);
	assert_null(out);
	sn_world_def d = sn_default_world_def();
	assert_sn_error(sn_world_create(&d, NULL), SN_ERR_INVALID_ARGUMENT);
	// Boundaries that are allowed.
	d.time_step = 1.0;
	d.erp = 0.0;
	d.velocity_iterations = 0;
	d.position_iterations = 1000;
	d.substeps = 1000;
	assert_sn_ok(sn_world_def_check(&d, NULL, 0));
	d.erp = 1.0;
	d.solver = SN_SOLVER_PGS;
	assert_sn_ok(sn_world_def_check(&d, detail, sizeof(detail)));
	assert_string_equal(detail, "");
}

static void test_world_setters(void** state)
{
	(void)state;
	REJECT(SN_ERR_NOT_FINITE, sn_world_set_gravity(w, sn_v3(0, nan_, 0)));
	REJECT(SN_ERR_NOT_FINITE, sn_world_set_gravity(w, sn_v3(inf_, 0, 0)));
	REJECT(SN_ERR_NOT_FINITE, sn_world_set_time_step(w, nan_));
	REJECT(SN_ERR_INVALID_ARGUMENT, sn_world_set_time_step(w, 0.0));
	REJECT(SN_ERR_INVALID_ARGUMENT, sn_world_set_time_step(w, 2.0));
	REJECT(SN_ERR_INVALID_ARGUMENT, sn_world_set_solver(w, (sn_solver)-3));
	REJECT(SN_ERR_INVALID_ARGUMENT, sn_world_set_implicit_factors(w, 0.2, 1.0));
	REJECT(SN_ERR_NOT_FINITE, sn_world_set_implicit_factors(w, 1.0, nan_));
	REJECT(SN_ERR_INVALID_ARGUMENT, sn_world_set_iterations(w, 0, 1));
	REJECT(SN_ERR_INVALID_ARGUMENT, sn_world_set_iterations(w, 8, -1));
	REJECT(SN_ERR_INVALID_ARGUMENT, sn_world_set_iterations(w, 1001, 1));
	REJECT(SN_ERR_INVALID_ARGUMENT, sn_world_set_substeps(w, 0));
	REJECT(SN_ERR_INVALID_ARGUMENT, sn_world_set_substeps(w, -2));
	REJECT(SN_ERR_NOT_FINITE, sn_world_set_erp(w, nan_));
	REJECT(SN_ERR_INVALID_ARGUMENT, sn_world_set_erp(w, 1.5));
	REJECT(SN_ERR_INVALID_ARGUMENT, sn_world_set_erp(w, -0.5));
}

// ---- bodies -------------------------------------------------------------------------------------------

static sn_body_id out_body;

#define BAD_BODY_DEF(assignment, expected)                                                                             \
	do                                                                                                                 \
	{                                                                                                                  \
		sn_body_def bd = sn_default_body_def();                                                                        \
		bd.assignment;                                                                                                 \
		REJECT(expected, sn_create_body(w, &bd, &out_body));                                                           \
	} while (0)

static void test_body_def(void** state)
{
	(void)state;
	BAD_BODY_DEF(type = (sn_body_type)3, SN_ERR_INVALID_ARGUMENT);
	BAD_BODY_DEF(type = (sn_body_type)-1, SN_ERR_INVALID_ARGUMENT);
	BAD_BODY_DEF(pose.p.y = nan_, SN_ERR_NOT_FINITE);
	BAD_BODY_DEF(pose.p.x = inf_, SN_ERR_NOT_FINITE);
	BAD_BODY_DEF(pose.q.w = nan_, SN_ERR_NOT_FINITE);
	BAD_BODY_DEF(pose.q = ((sn_quat){ 0, 0, 0, 0 }), SN_ERR_ZERO_AXIS);
	BAD_BODY_DEF(pose.q = ((sn_quat){ 1e-12, 0, 0, 0 }), SN_ERR_ZERO_AXIS);
	BAD_BODY_DEF(linear_velocity.z = inf_, SN_ERR_NOT_FINITE);
	BAD_BODY_DEF(angular_velocity.x = nan_, SN_ERR_NOT_FINITE);
	BAD_BODY_DEF(mass = 0.0, SN_ERR_NON_POSITIVE_MASS);
	BAD_BODY_DEF(mass = -1.0, SN_ERR_NON_POSITIVE_MASS);
	BAD_BODY_DEF(mass = -0.0, SN_ERR_NON_POSITIVE_MASS);
	BAD_BODY_DEF(mass = nan_, SN_ERR_NOT_FINITE);
	BAD_BODY_DEF(mass = inf_, SN_ERR_NOT_FINITE);
	BAD_BODY_DEF(inertia = sn_mat33_zero(), SN_ERR_INERTIA_NOT_PD);
	BAD_BODY_DEF(inertia = sn_mat33_diag(1, 1, -1), SN_ERR_INERTIA_NOT_PD);
	BAD_BODY_DEF(inertia = sn_mat33_diag(1, 0, 1), SN_ERR_INERTIA_NOT_PD);
	BAD_BODY_DEF(inertia = sn_mat33_diag(-1, -1, -1), SN_ERR_INERTIA_NOT_PD);
	// Symmetric but indefinite: off-diagonal terms larger than the diagonal.
	BAD_BODY_DEF(inertia = ((sn_mat33){ { 1, 2, 0 }, { 2, 1, 0 }, { 0, 0, 1 } }), SN_ERR_INERTIA_NOT_PD);
	// Asymmetric, though its symmetric part is positive definite.
	BAD_BODY_DEF(inertia = ((sn_mat33){ { 1, 0.1, 0 }, { 0, 1, 0 }, { 0, 0, 1 } }), SN_ERR_INERTIA_NOT_PD);
	BAD_BODY_DEF(inertia.cy.y = nan_, SN_ERR_NOT_FINITE);
	BAD_BODY_DEF(inertia.cz.x = inf_, SN_ERR_NOT_FINITE);
	BAD_BODY_DEF(center_of_mass.z = nan_, SN_ERR_NOT_FINITE);
	BAD_BODY_DEF(linear_damping = -0.1, SN_ERR_NEGATIVE_VALUE);
	BAD_BODY_DEF(angular_damping = -1e-9, SN_ERR_NEGATIVE_VALUE);
	BAD_BODY_DEF(linear_damping = inf_, SN_ERR_NOT_FINITE);
	BAD_BODY_DEF(angular_damping = nan_, SN_ERR_NOT_FINITE);
	BAD_BODY_DEF(gravity_scale = nan_, SN_ERR_NOT_FINITE);
	BAD_BODY_DEF(gravity_scale = -inf_, SN_ERR_NOT_FINITE);
	// Static and kinematic bodies still need finite poses and centres of mass.
	BAD_BODY_DEF(type = SN_BODY_STATIC; bd.pose.p.x = nan_, SN_ERR_NOT_FINITE);
	BAD_BODY_DEF(type = SN_BODY_KINEMATIC; bd.center_of_mass.x = inf_, SN_ERR_NOT_FINITE);
	REJECT(SN_ERR_INVALID_ARGUMENT, sn_create_body(w, NULL, &out_body));
	sn_body_def bd = sn_default_body_def();
	REJECT(SN_ERR_INVALID_ARGUMENT, sn_create_body(w, &bd, NULL));
	// Mass is ignored for static and kinematic bodies; a tiny but positive mass is a mass.
	bd.type = SN_BODY_KINEMATIC;
	bd.mass = 0.0;
	bd.inertia = sn_mat33_zero();
	ACCEPT(sn_create_body(w, &bd, &out_body));
	bd = sn_default_body_def();
	bd.mass = DBL_MIN;
	ACCEPT(sn_create_body(w, &bd, &out_body));
	bd = sn_default_body_def();
	bd.pose.q = (sn_quat){ 0, 0, 0, 5.0 }; // normalised on creation
	ACCEPT(sn_create_body(w, &bd, &out_body));
}

static sn_body_id foreign_body;
static sn_joint_id foreign_joint;

static void test_body_setters(void** state)
{
	(void)state;
	const sn_body_id b = ids.bodies[2];
	const sn_body_id bad_ids[5] = {
		ids.stale_body, null_body(), foreign_body, { -5, 1 }, { b.index1, b.generation + 1 }
	};
	for (int i = 0; i < 5; ++i)
	{
		sn_body_id x = bad_ids[i];
		REJECT(SN_ERR_INVALID_ID, sn_body_set_pose(w, x, sn_transform_identity()));
		REJECT(SN_ERR_INVALID_ID, sn_body_set_linear_velocity(w, x, sn_v3(1, 0, 0)));
		REJECT(SN_ERR_INVALID_ID, sn_body_set_angular_velocity(w, x, sn_v3(1, 0, 0)));
		REJECT(SN_ERR_INVALID_ID, sn_body_set_mass_properties(w, x, 1.0, sn_mat33_diag(1, 1, 1), sn_v3(0, 0, 0)));
		REJECT(SN_ERR_INVALID_ID, sn_body_set_damping(w, x, 0.1, 0.1));
		REJECT(SN_ERR_INVALID_ID, sn_body_set_gravity_scale(w, x, 0.5));
		REJECT(SN_ERR_INVALID_ID, sn_body_set_type(w, x, SN_BODY_KINEMATIC));
		REJECT(SN_ERR_INVALID_ID, sn_body_set_user_data(w, x, 5));
		REJECT(SN_ERR_INVALID_ID, sn_body_apply_force(w, x, sn_v3(1, 0, 0), sn_v3(0, 0, 0)));
		REJECT(SN_ERR_INVALID_ID, sn_body_apply_force_at_center(w, x, sn_v3(1, 0, 0)));
		REJECT(SN_ERR_INVALID_ID, sn_body_apply_torque(w, x, sn_v3(1, 0, 0)));
		REJECT(SN_ERR_INVALID_ID, sn_destroy_body(w, x));
	}
	REJECT(SN_ERR_NOT_FINITE, sn_body_set_pose(w, b, (sn_transform){ { 0, nan_, 0 }, { 0, 0, 0, 1 } }));
	REJECT(SN_ERR_NOT_FINITE, sn_body_set_pose(w, b, (sn_transform){ { 0, 0, 0 }, { inf_, 0, 0, 1 } }));
	REJECT(SN_ERR_ZERO_AXIS, sn_body_set_pose(w, b, (sn_transform){ { 0, 0, 0 }, { 0, 0, 0, 0 } }));
	REJECT(SN_ERR_NOT_FINITE, sn_body_set_linear_velocity(w, b, sn_v3(nan_, 0, 0)));
	REJECT(SN_ERR_NOT_FINITE, sn_body_set_angular_velocity(w, b, sn_v3(0, 0, -inf_)));
	REJECT(SN_ERR_WRONG_TYPE, sn_body_set_linear_velocity(w, ids.fixed_post, sn_v3(1, 0, 0)));
	REJECT(SN_ERR_WRONG_TYPE, sn_body_set_angular_velocity(w, ids.fixed_post, sn_v3(1, 0, 0)));
	REJECT(SN_ERR_NON_POSITIVE_MASS, sn_body_set_mass_properties(w, b, 0.0, sn_mat33_diag(1, 1, 1), sn_v3(0, 0, 0)));
	REJECT(SN_ERR_NON_POSITIVE_MASS, sn_body_set_mass_properties(w, b, -2.0, sn_mat33_diag(1, 1, 1), sn_v3(0, 0, 0)));
	REJECT(SN_ERR_NOT_FINITE, sn_body_set_mass_properties(w, b, nan_, sn_mat33_diag(1, 1, 1), sn_v3(0, 0, 0)));
	REJECT(SN_ERR_INERTIA_NOT_PD, sn_body_set_mass_properties(w, b, 1.0, sn_mat33_diag(1, -1, 1), sn_v3(0, 0, 0)));
	const sn_mat33 asymmetric = { { 1, 0, 0.2 }, { 0, 1, 0 }, { 0, 0, 1 } };
	REJECT(SN_ERR_INERTIA_NOT_PD, sn_body_set_mass_properties(w, b, 1.0, asymmetric, sn_v3(0, 0, 0)));
	REJECT(SN_ERR_NOT_FINITE, sn_body_set_mass_properties(w, b, 1.0, sn_mat33_diag(1, 1, 1), sn_v3(0, inf_, 0)));
	REJECT(SN_ERR_NEGATIVE_VALUE, sn_body_set_damping(w, b, -1.0, 0.0));
	REJECT(SN_ERR_NEGATIVE_VALUE, sn_body_set_damping(w, b, 0.0, -1.0));
	REJECT(SN_ERR_NOT_FINITE, sn_body_set_damping(w, b, nan_, 0.0));
	REJECT(SN_ERR_NOT_FINITE, sn_body_set_damping(w, b, 0.0, inf_));
	REJECT(SN_ERR_NOT_FINITE, sn_body_set_gravity_scale(w, b, nan_));
	REJECT(SN_ERR_INVALID_ARGUMENT, sn_body_set_type(w, b, (sn_body_type)9));
	// A static body was created without a mass: it cannot become dynamic before it gets one.
	REJECT(SN_ERR_NON_POSITIVE_MASS, sn_body_set_type(w, ids.fixed_post, SN_BODY_DYNAMIC));
	REJECT(SN_ERR_NOT_FINITE, sn_body_apply_force(w, b, sn_v3(nan_, 0, 0), sn_v3(0, 0, 0)));
	REJECT(SN_ERR_NOT_FINITE, sn_body_apply_force(w, b, sn_v3(1, 0, 0), sn_v3(0, inf_, 0)));
	REJECT(SN_ERR_NOT_FINITE, sn_body_apply_force_at_center(w, b, sn_v3(0, 0, inf_)));
	REJECT(SN_ERR_NOT_FINITE, sn_body_apply_torque(w, b, sn_v3(0, nan_, 0)));
}

// ---- joint defs ------------------------------------------------------------------------------------------

static sn_joint_id out_joint;

// The checks every joint def shares (sn_joint_base), on every joint type.
static void test_joint_base(void** state)
{
	(void)state;
	const sn_body_id a = ids.bodies[3], b = ids.bodies[4];
	for (int t = 0; t < SN_JOINT_TYPE_COUNT; ++t)
	{
		sn_joint_type type = (sn_joint_type)t;
		sn_joint_base base;
#define BAD_BASE(assignment, expected)                                                                                 \
	do                                                                                                                 \
	{                                                                                                                  \
		base = scene_base(a, b);                                                                                       \
		base.assignment;                                                                                               \
		REJECT(expected, create_typed(w, type, base, &out_joint));                                                     \
	} while (0)
		BAD_BASE(body_a = ids.stale_body, SN_ERR_INVALID_ID);
		BAD_BASE(body_b = ids.stale_body, SN_ERR_INVALID_ID);
		BAD_BASE(body_b = foreign_body, SN_ERR_INVALID_ID);
		BAD_BASE(body_a = ((sn_body_id){ -7, 1 }), SN_ERR_INVALID_ID);
		BAD_BASE(body_b = ((sn_body_id){ b.index1, b.generation + 3 }), SN_ERR_INVALID_ID);
		BAD_BASE(body_b = a, SN_ERR_SELF_JOINT);
		BAD_BASE(body_a = null_body(); base.body_b = null_body(), SN_ERR_SELF_JOINT);
		BAD_BASE(frame_a.p.x = nan_, SN_ERR_NOT_FINITE);
		BAD_BASE(frame_b.p.z = inf_, SN_ERR_NOT_FINITE);
		BAD_BASE(frame_a.q.y = nan_, SN_ERR_NOT_FINITE);
		// Finite but absurd offsets (a distance joint with one of 1e308 once streamed inf positions).
		BAD_BASE(frame_a.p.x = 1e308, SN_ERR_INVALID_ARGUMENT);
		BAD_BASE(frame_b.p.y = -2.0 * SN_MAX_OFFSET, SN_ERR_INVALID_ARGUMENT);
		BAD_BASE(frame_b.p = sn_v3(0.8 * SN_MAX_OFFSET, 0.8 * SN_MAX_OFFSET, 0), SN_ERR_INVALID_ARGUMENT);
		BAD_BASE(frame_a.q = ((sn_quat){ 0, 0, 0, 0 }), SN_ERR_ZERO_AXIS);
		BAD_BASE(frame_b.q = ((sn_quat){ 0, 0, 0, 0 }), SN_ERR_ZERO_AXIS);
		BAD_BASE(lock_soft = sn_soft_stiffness(-1.0, 0.0), SN_ERR_NEGATIVE_VALUE);
		BAD_BASE(lock_soft = sn_soft_stiffness(1.0, -1.0), SN_ERR_NEGATIVE_VALUE);
		BAD_BASE(lock_soft = sn_soft_stiffness(nan_, 0.0), SN_ERR_NOT_FINITE);
		BAD_BASE(lock_soft = sn_soft_frequency(-5.0, 0.5), SN_ERR_NEGATIVE_VALUE);
		BAD_BASE(lock_soft = sn_soft_frequency(5.0, inf_), SN_ERR_NOT_FINITE);
		BAD_BASE(lock_soft.kind = (sn_soft_kind)7, SN_ERR_INVALID_ARGUMENT);
		BAD_BASE(break_force = nan_, SN_ERR_NOT_FINITE);
		BAD_BASE(break_torque = nan_, SN_ERR_NOT_FINITE);
		BAD_BASE(break_force = -1.0, SN_ERR_NEGATIVE_VALUE);
		BAD_BASE(break_torque = -inf_, SN_ERR_NEGATIVE_VALUE);
#undef BAD_BASE
		// Accepted: a joint to the world on either side, zero break thresholds, unnormalised frames.
		base = scene_base(null_body(), b);
		ACCEPT(create_typed(w, type, base, &out_joint));
		base = scene_base(b, null_body());
		base.break_force = 0.0;
		base.break_torque = 0.0;
		base.frame_a.q = (sn_quat){ 0, 0, 2, 2 };
		ACCEPT(create_typed(w, type, base, &out_joint));
	}
}

static void test_joint_defs(void** state)
{
	(void)state;
	const sn_joint_base base = scene_base(ids.bodies[3], ids.bodies[4]);
	const sn_limit rigid_limit = { true, -0.5, 0.5, sn_soft_rigid() };

	// Hinge: angle limit in [-pi, pi] and in order, finite motor and spring, non-negative bounds.
#define BAD_HINGE(assignment, expected)                                                                                \
	do                                                                                                                 \
	{                                                                                                                  \
		sn_hinge_joint_def d = sn_default_hinge_joint_def();                                                           \
		d.base = base;                                                                                                 \
		d.limit = rigid_limit;                                                                                         \
		d.assignment;                                                                                                  \
		REJECT(expected, sn_create_hinge_joint(w, &d, &out_joint));                                                    \
	} while (0)
	BAD_HINGE(limit.lower = 0.6, SN_ERR_LIMITS_ORDER);
	BAD_HINGE(limit.upper = nan_, SN_ERR_NOT_FINITE);
	BAD_HINGE(limit.lower = -inf_, SN_ERR_NOT_FINITE);
	BAD_HINGE(limit.upper = 3.5, SN_ERR_INVALID_ARGUMENT);
	BAD_HINGE(limit.lower = -3.5, SN_ERR_INVALID_ARGUMENT);
	BAD_HINGE(limit.soft = sn_soft_stiffness(-10.0, 1.0), SN_ERR_NEGATIVE_VALUE);
	BAD_HINGE(motor = ((sn_motor){ true, nan_, 1.0 }), SN_ERR_NOT_FINITE);
	BAD_HINGE(motor = ((sn_motor){ true, 1.0, -1.0 }), SN_ERR_NEGATIVE_VALUE);
	BAD_HINGE(motor = ((sn_motor){ true, 1.0, nan_ }), SN_ERR_NOT_FINITE);
	BAD_HINGE(spring = ((sn_spring){ true, inf_, sn_soft_stiffness(1, 1), 1.0 }), SN_ERR_NOT_FINITE);
	BAD_HINGE(spring = ((sn_spring){ true, 0.0, sn_soft_stiffness(-1, 1), 1.0 }), SN_ERR_NEGATIVE_VALUE);
	BAD_HINGE(spring = ((sn_spring){ true, 0.0, sn_soft_stiffness(1, 1), -2.0 }), SN_ERR_NEGATIVE_VALUE);
	BAD_HINGE(spring = ((sn_spring){ true, 0.0, sn_soft_frequency(nan_, 1), 1.0 }), SN_ERR_NOT_FINITE);
	REJECT(SN_ERR_INVALID_ARGUMENT, sn_create_hinge_joint(w, NULL, &out_joint));
#undef BAD_HINGE

#define BAD_PRISMATIC(assignment, expected)                                                                            \
	do                                                                                                                 \
	{                                                                                                                  \
		sn_prismatic_joint_def d = sn_default_prismatic_joint_def();                                                   \
		d.base = base;                                                                                                 \
		d.assignment;                                                                                                  \
		REJECT(expected, sn_create_prismatic_joint(w, &d, &out_joint));                                                \
	} while (0)
	BAD_PRISMATIC(limit = ((sn_limit){ true, 0.2, 0.1, sn_soft_rigid() }), SN_ERR_LIMITS_ORDER);
	BAD_PRISMATIC(limit = ((sn_limit){ true, nan_, 0.1, sn_soft_rigid() }), SN_ERR_NOT_FINITE);
	BAD_PRISMATIC(limit = ((sn_limit){ true, -0.1, 0.1, sn_soft_stiffness(1, -1) }), SN_ERR_NEGATIVE_VALUE);
	BAD_PRISMATIC(motor = ((sn_motor){ true, 0.5, -0.1 }), SN_ERR_NEGATIVE_VALUE);
	BAD_PRISMATIC(motor = ((sn_motor){ true, inf_, 1.0 }), SN_ERR_NOT_FINITE);
	BAD_PRISMATIC(spring = ((sn_spring){ true, nan_, sn_soft_stiffness(1, 1), 1.0 }), SN_ERR_NOT_FINITE);
	REJECT(SN_ERR_INVALID_ARGUMENT, sn_create_prismatic_joint(w, NULL, &out_joint));
#undef BAD_PRISMATIC

#define BAD_CYLINDER(assignment, expected)                                                                             \
	do                                                                                                                 \
	{                                                                                                                  \
		sn_cylindrical_joint_def d = sn_default_cylindrical_joint_def();                                               \
		d.base = base;                                                                                                 \
		d.assignment;                                                                                                  \
		REJECT(expected, sn_create_cylindrical_joint(w, &d, &out_joint));                                              \
	} while (0)
	BAD_CYLINDER(linear_limit = ((sn_limit){ true, 1.0, -1.0, sn_soft_rigid() }), SN_ERR_LIMITS_ORDER);
	BAD_CYLINDER(angular_limit = ((sn_limit){ true, -1.0, 4.0, sn_soft_rigid() }), SN_ERR_INVALID_ARGUMENT);
	BAD_CYLINDER(angular_limit = ((sn_limit){ true, 1.0, 0.0, sn_soft_rigid() }), SN_ERR_LIMITS_ORDER);
	BAD_CYLINDER(angular_motor = ((sn_motor){ true, nan_, 1.0 }), SN_ERR_NOT_FINITE);
	BAD_CYLINDER(linear_motor = ((sn_motor){ true, 1.0, -3.0 }), SN_ERR_NEGATIVE_VALUE);
	BAD_CYLINDER(linear_spring = ((sn_spring){ true, 0.0, sn_soft_stiffness(-1, 0), 1.0 }), SN_ERR_NEGATIVE_VALUE);
	BAD_CYLINDER(angular_spring = ((sn_spring){ true, 0.0, sn_soft_frequency(1, -0.5), 1.0 }), SN_ERR_NEGATIVE_VALUE);
	REJECT(SN_ERR_INVALID_ARGUMENT, sn_create_cylindrical_joint(w, NULL, &out_joint));
#undef BAD_CYLINDER

	// Spherical: cone half-angles in (0, pi), finite; twist limit in [-pi, pi] and in order.
#define BAD_BALL(assignment, expected)                                                                                 \
	do                                                                                                                 \
	{                                                                                                                  \
		sn_spherical_joint_def d = sn_default_spherical_joint_def();                                                   \
		d.base = base;                                                                                                 \
		d.swing = (sn_cone_limit){ true, 0.5, 0.8, sn_soft_rigid() };                                                  \
		d.assignment;                                                                                                  \
		REJECT(expected, sn_create_spherical_joint(w, &d, &out_joint));                                                \
	} while (0)
	BAD_BALL(swing.y_angle = 0.0, SN_ERR_INVALID_ARGUMENT);
	BAD_BALL(swing.z_angle = -0.1, SN_ERR_INVALID_ARGUMENT);
	BAD_BALL(swing.y_angle = SN_PI, SN_ERR_INVALID_ARGUMENT);
	BAD_BALL(swing.z_angle = 4.0, SN_ERR_INVALID_ARGUMENT);
	BAD_BALL(swing.y_angle = nan_, SN_ERR_NOT_FINITE);
	BAD_BALL(swing.z_angle = inf_, SN_ERR_NOT_FINITE);
	BAD_BALL(swing.soft = sn_soft_stiffness(-1, 0), SN_ERR_NEGATIVE_VALUE);
	BAD_BALL(twist = ((sn_limit){ true, 0.5, -0.5, sn_soft_rigid() }), SN_ERR_LIMITS_ORDER);
	BAD_BALL(twist = ((sn_limit){ true, -4.0, 0.5, sn_soft_rigid() }), SN_ERR_INVALID_ARGUMENT);
	BAD_BALL(twist = ((sn_limit){ true, -0.5, nan_, sn_soft_rigid() }), SN_ERR_NOT_FINITE);
	REJECT(SN_ERR_INVALID_ARGUMENT, sn_create_spherical_joint(w, NULL, &out_joint));
#undef BAD_BALL

	// Distance: length > 0 and finite; an enabled spring is not rigid; 0 <= min <= max.
#define BAD_DISTANCE(assignment, expected)                                                                             \
	do                                                                                                                 \
	{                                                                                                                  \
		sn_distance_joint_def d = sn_default_distance_joint_def();                                                     \
		d.base = base;                                                                                                 \
		d.assignment;                                                                                                  \
		REJECT(expected, sn_create_distance_joint(w, &d, &out_joint));                                                 \
	} while (0)
	BAD_DISTANCE(length = 0.0, SN_ERR_INVALID_ARGUMENT);
	BAD_DISTANCE(length = -1.0, SN_ERR_INVALID_ARGUMENT);
	BAD_DISTANCE(length = nan_, SN_ERR_NOT_FINITE);
	BAD_DISTANCE(length = inf_, SN_ERR_NOT_FINITE);
	BAD_DISTANCE(spring_enabled = true; d.spring = sn_soft_rigid(), SN_ERR_INVALID_ARGUMENT);
	BAD_DISTANCE(spring_enabled = true; d.spring = sn_soft_stiffness(-5, 0), SN_ERR_NEGATIVE_VALUE);
	BAD_DISTANCE(spring_enabled = true; d.spring = sn_soft_frequency(nan_, 0), SN_ERR_NOT_FINITE);
	BAD_DISTANCE(limit = ((sn_limit){ true, -0.1, 1.0, sn_soft_rigid() }), SN_ERR_NEGATIVE_VALUE);
	BAD_DISTANCE(limit = ((sn_limit){ true, 1.0, 0.5, sn_soft_rigid() }), SN_ERR_LIMITS_ORDER);
	BAD_DISTANCE(limit = ((sn_limit){ true, nan_, 1.0, sn_soft_rigid() }), SN_ERR_NOT_FINITE);
	BAD_DISTANCE(limit = ((sn_limit){ true, inf_, inf_, sn_soft_rigid() }), SN_ERR_NOT_FINITE);
	BAD_DISTANCE(limit = ((sn_limit){ true, 0.1, nan_, sn_soft_rigid() }), SN_ERR_NOT_FINITE);
	BAD_DISTANCE(limit = ((sn_limit){ true, 0.1, 1.0, sn_soft_stiffness(1, -1) }), SN_ERR_NEGATIVE_VALUE);
	REJECT(SN_ERR_INVALID_ARGUMENT, sn_create_distance_joint(w, NULL, &out_joint));
#undef BAD_DISTANCE

	// Six-axis: a known mode per axis; limited axes in order (angles within [-pi, pi]); finite motors
	// and springs on the axes that move.
#define BAD_SIX(assignment, expected)                                                                                  \
	do                                                                                                                 \
	{                                                                                                                  \
		sn_six_axis_joint_def d = sn_default_six_axis_joint_def();                                                     \
		d.base = base;                                                                                                 \
		d.assignment;                                                                                                  \
		REJECT(expected, sn_create_six_axis_joint(w, &d, &out_joint));                                                 \
	} while (0)
	BAD_SIX(axes[SN_AXIS_Y].mode = (sn_axis_mode)9, SN_ERR_INVALID_ARGUMENT);
	BAD_SIX(axes[SN_AXIS_RZ].mode = (sn_axis_mode)-1, SN_ERR_INVALID_ARGUMENT);
	BAD_SIX(axes[SN_AXIS_X].mode = SN_AXIS_LIMITED; d.axes[SN_AXIS_X].lower = 0.3, SN_ERR_LIMITS_ORDER);
	BAD_SIX(axes[SN_AXIS_Z].mode = SN_AXIS_LIMITED; d.axes[SN_AXIS_Z].upper = nan_, SN_ERR_NOT_FINITE);
	BAD_SIX(axes[SN_AXIS_RY].mode = SN_AXIS_LIMITED; d.axes[SN_AXIS_RY].lower = -3.2, SN_ERR_INVALID_ARGUMENT);
	BAD_SIX(axes[SN_AXIS_RX].mode = SN_AXIS_LIMITED; d.axes[SN_AXIS_RX].lower = -1.0; d.axes[SN_AXIS_RX].upper = 1.0;
			d.axes[SN_AXIS_RX].limit_soft = sn_soft_stiffness(-1, 1), SN_ERR_NEGATIVE_VALUE);
	BAD_SIX(axes[SN_AXIS_Y].mode = SN_AXIS_FREE;
			d.axes[SN_AXIS_Y].motor = ((sn_motor){ true, nan_, 1 }), SN_ERR_NOT_FINITE);
	BAD_SIX(axes[SN_AXIS_RZ].mode = SN_AXIS_FREE;
			d.axes[SN_AXIS_RZ].motor = ((sn_motor){ true, 1, -1 }), SN_ERR_NEGATIVE_VALUE);
	BAD_SIX(axes[SN_AXIS_X].mode = SN_AXIS_FREE;
			d.axes[SN_AXIS_X].spring = ((sn_spring){ true, 0.0, sn_soft_stiffness(-1, 0), 1.0 }),
			SN_ERR_NEGATIVE_VALUE);
	REJECT(SN_ERR_INVALID_ARGUMENT, sn_create_six_axis_joint(w, NULL, &out_joint));
#undef BAD_SIX

	sn_fixed_joint_def fd = sn_default_fixed_joint_def();
	fd.base = base;
	REJECT(SN_ERR_INVALID_ARGUMENT, sn_create_fixed_joint(w, NULL, &out_joint));
	REJECT(SN_ERR_INVALID_ARGUMENT, sn_create_fixed_joint(w, &fd, NULL));

	// Boundaries that are accepted: equal limits (a lock), +-pi angles, INFINITY force bounds, cone
	// angles just inside (0, pi), a distance max of INFINITY.
	sn_hinge_joint_def hd = sn_default_hinge_joint_def();
	hd.base = base;
	hd.limit = (sn_limit){ true, -SN_PI, SN_PI, sn_soft_rigid() };
	hd.motor = (sn_motor){ true, 1.0, INFINITY };
	ACCEPT(sn_create_hinge_joint(w, &hd, &out_joint));
	hd.limit = (sn_limit){ true, 0.25, 0.25, sn_soft_rigid() };
	ACCEPT(sn_create_hinge_joint(w, &hd, &out_joint));
	sn_spherical_joint_def sd = sn_default_spherical_joint_def();
	sd.base = base;
	sd.swing = (sn_cone_limit){ true, 1e-6, SN_PI - 1e-6, sn_soft_rigid() };
	ACCEPT(sn_create_spherical_joint(w, &sd, &out_joint));
	sn_distance_joint_def dd = sn_default_distance_joint_def();
	dd.base = base;
	dd.spring_enabled = true;
	dd.spring = sn_soft_frequency(2.0, 0.5);
	dd.limit = (sn_limit){ true, 0.0, INFINITY, sn_soft_rigid() };
	ACCEPT(sn_create_distance_joint(w, &dd, &out_joint));
}

// ---- joint setters ---------------------------------------------------------------------------------------

static void test_joint_setters(void** state)
{
	(void)state;
	const sn_joint_id fixed = ids.joints[SN_JOINT_FIXED], hinge = ids.joints[SN_JOINT_HINGE];
	const sn_joint_id slider = ids.joints[SN_JOINT_PRISMATIC], ball = ids.joints[SN_JOINT_SPHERICAL];
	const sn_joint_id rod = ids.joints[SN_JOINT_DISTANCE], cylinder = ids.joints[SN_JOINT_CYLINDRICAL];
	const sn_joint_id six = ids.joints[SN_JOINT_SIX_AXIS];
	const sn_limit limit = { true, -0.5, 0.5, sn_soft_rigid() };
	const sn_motor motor = { true, 1.0, 1.0 };
	const sn_spring spring = { true, 0.0, sn_soft_stiffness(10.0, 1.0), 1.0 };
	const sn_cone_limit cone = { true, 0.5, 0.5, sn_soft_rigid() };

	// Invalid ids, for every setter.
	const sn_joint_id bad_ids[5] = {
		ids.stale_joint, { 0, 0 }, foreign_joint, { -1, 1 }, { hinge.index1, hinge.generation + 1 }
	};
	for (int i = 0; i < 5; ++i)
	{
		sn_joint_id x = bad_ids[i];
		REJECT(SN_ERR_INVALID_ID, sn_joint_set_enabled(w, x, false));
		REJECT(SN_ERR_INVALID_ID, sn_joint_set_break_thresholds(w, x, 1.0, 1.0));
		REJECT(SN_ERR_INVALID_ID, sn_joint_set_lock_soft(w, x, sn_soft_stiffness(1, 1)));
		REJECT(SN_ERR_INVALID_ID, sn_joint_set_limit(w, x, SN_AXIS_RX, limit));
		REJECT(SN_ERR_INVALID_ID, sn_joint_set_motor(w, x, SN_AXIS_RX, motor));
		REJECT(SN_ERR_INVALID_ID, sn_joint_set_spring(w, x, SN_AXIS_RX, spring));
		REJECT(SN_ERR_INVALID_ID, sn_joint_set_motor_speed(w, x, SN_AXIS_RX, 1.0));
		REJECT(SN_ERR_INVALID_ID, sn_joint_set_drive_target(w, x, SN_AXIS_RX, 1.0));
		REJECT(SN_ERR_INVALID_ID, sn_joint_set_cone_limit(w, x, cone));
		REJECT(SN_ERR_INVALID_ID, sn_distance_joint_set_length(w, x, 1.0));
		REJECT(SN_ERR_INVALID_ID, sn_distance_joint_set_spring(w, x, false, sn_soft_stiffness(1, 1)));
		REJECT(SN_ERR_INVALID_ID, sn_destroy_joint(w, x));
	}

	REJECT(SN_ERR_NOT_FINITE, sn_joint_set_break_thresholds(w, hinge, nan_, 1.0));
	REJECT(SN_ERR_NEGATIVE_VALUE, sn_joint_set_break_thresholds(w, hinge, 1.0, -1.0));
	REJECT(SN_ERR_NEGATIVE_VALUE, sn_joint_set_lock_soft(w, fixed, sn_soft_stiffness(-1, 1)));
	REJECT(SN_ERR_NOT_FINITE, sn_joint_set_lock_soft(w, fixed, sn_soft_frequency(inf_, 1)));
	REJECT(SN_ERR_INVALID_ARGUMENT, sn_joint_set_lock_soft(w, fixed, (sn_soft){ (sn_soft_kind)5, 0, 0, 0, 0, 0, 0 }));

	// Wrong axis for the joint type: an axis the type locks, or no axis at all.
	REJECT(SN_ERR_INVALID_ARGUMENT, sn_joint_set_limit(w, hinge, SN_AXIS_X, limit));
	REJECT(SN_ERR_INVALID_ARGUMENT, sn_joint_set_limit(w, hinge, SN_AXIS_RY, limit));
	REJECT(SN_ERR_INVALID_ARGUMENT, sn_joint_set_limit(w, hinge, (sn_axis)6, limit));
	REJECT(SN_ERR_INVALID_ARGUMENT, sn_joint_set_limit(w, hinge, (sn_axis)-1, limit));
	REJECT(SN_ERR_INVALID_ARGUMENT, sn_joint_set_limit(w, fixed, SN_AXIS_RX, limit));
	REJECT(SN_ERR_INVALID_ARGUMENT, sn_joint_set_limit(w, slider, SN_AXIS_RX, limit));
	REJECT(SN_ERR_INVALID_ARGUMENT, sn_joint_set_motor(w, slider, SN_AXIS_Y, motor));
	REJECT(SN_ERR_INVALID_ARGUMENT, sn_joint_set_motor(w, cylinder, SN_AXIS_RY, motor));
	REJECT(SN_ERR_INVALID_ARGUMENT, sn_joint_set_spring(w, six, SN_AXIS_Z, spring));
	REJECT(SN_ERR_INVALID_ARGUMENT, sn_joint_set_motor_speed(w, fixed, SN_AXIS_X, 1.0));
	REJECT(SN_ERR_INVALID_ARGUMENT, sn_joint_set_drive_target(w, hinge, SN_AXIS_Z, 1.0));
	REJECT(SN_ERR_INVALID_ARGUMENT, sn_joint_set_limit(w, ball, SN_AXIS_RY, limit)); // the cone's job
	// Types that have no motor or generic spring on their moving axis.
	REJECT(SN_ERR_UNSUPPORTED, sn_joint_set_motor(w, ball, SN_AXIS_RX, motor));
	REJECT(SN_ERR_UNSUPPORTED, sn_joint_set_motor(w, rod, SN_AXIS_X, motor));
	REJECT(SN_ERR_UNSUPPORTED, sn_joint_set_spring(w, ball, SN_AXIS_RX, spring));
	REJECT(SN_ERR_UNSUPPORTED, sn_joint_set_spring(w, rod, SN_AXIS_X, spring));
	// Calls for one type on another.
	REJECT(SN_ERR_WRONG_TYPE, sn_joint_set_cone_limit(w, hinge, cone));
	REJECT(SN_ERR_WRONG_TYPE, sn_distance_joint_set_length(w, slider, 1.0));
	REJECT(SN_ERR_WRONG_TYPE, sn_distance_joint_set_spring(w, ball, true, sn_soft_stiffness(1, 1)));

	// Bad values on the right axis.
	REJECT(SN_ERR_LIMITS_ORDER,
		   sn_joint_set_limit(w, hinge, SN_AXIS_RX, (sn_limit){ true, 0.5, -0.5, sn_soft_rigid() }));
	REJECT(SN_ERR_NOT_FINITE, sn_joint_set_limit(w, hinge, SN_AXIS_RX, (sn_limit){ true, nan_, 0.5, sn_soft_rigid() }));
	REJECT(SN_ERR_INVALID_ARGUMENT,
		   sn_joint_set_limit(w, hinge, SN_AXIS_RX, (sn_limit){ true, 0.0, 3.3, sn_soft_rigid() }));
	REJECT(SN_ERR_NEGATIVE_VALUE,
		   sn_joint_set_limit(w, slider, SN_AXIS_X, (sn_limit){ true, -1.0, 1.0, sn_soft_stiffness(-1, 0) }));
	REJECT(SN_ERR_LIMITS_ORDER,
		   sn_joint_set_limit(w, cylinder, SN_AXIS_X, (sn_limit){ true, 2.0, 1.0, sn_soft_rigid() }));
	REJECT(SN_ERR_NEGATIVE_VALUE,
		   sn_joint_set_limit(w, rod, SN_AXIS_X, (sn_limit){ true, -0.1, 1.0, sn_soft_rigid() }));
	REJECT(SN_ERR_LIMITS_ORDER, sn_joint_set_limit(w, rod, SN_AXIS_X, (sn_limit){ true, 1.0, 0.5, sn_soft_rigid() }));
	REJECT(SN_ERR_NOT_FINITE, sn_joint_set_motor(w, hinge, SN_AXIS_RX, (sn_motor){ true, nan_, 1.0 }));
	REJECT(SN_ERR_NEGATIVE_VALUE, sn_joint_set_motor(w, slider, SN_AXIS_X, (sn_motor){ true, 1.0, -1.0 }));
	REJECT(SN_ERR_NOT_FINITE, sn_joint_set_motor(w, six, SN_AXIS_RX, (sn_motor){ true, 1.0, nan_ }));
	REJECT(SN_ERR_NOT_FINITE,
		   sn_joint_set_spring(w, hinge, SN_AXIS_RX, (sn_spring){ true, inf_, sn_soft_stiffness(1, 1), 1.0 }));
	REJECT(SN_ERR_NEGATIVE_VALUE,
		   sn_joint_set_spring(w, cylinder, SN_AXIS_RX, (sn_spring){ true, 0.0, sn_soft_stiffness(1, -1), 1.0 }));
	REJECT(SN_ERR_NEGATIVE_VALUE,
		   sn_joint_set_spring(w, slider, SN_AXIS_X, (sn_spring){ true, 0.0, sn_soft_stiffness(1, 1), -1.0 }));
	REJECT(SN_ERR_NOT_FINITE, sn_joint_set_motor_speed(w, hinge, SN_AXIS_RX, nan_));
	REJECT(SN_ERR_NOT_FINITE, sn_joint_set_drive_target(w, slider, SN_AXIS_X, -inf_));
	REJECT(SN_ERR_INVALID_ARGUMENT,
		   sn_joint_set_cone_limit(w, ball, (sn_cone_limit){ true, 0.0, 0.5, sn_soft_rigid() }));
	REJECT(SN_ERR_INVALID_ARGUMENT,
		   sn_joint_set_cone_limit(w, ball, (sn_cone_limit){ true, 0.5, 3.2, sn_soft_rigid() }));
	REJECT(SN_ERR_NOT_FINITE, sn_joint_set_cone_limit(w, ball, (sn_cone_limit){ true, nan_, 0.5, sn_soft_rigid() }));
	REJECT(SN_ERR_NEGATIVE_VALUE,
		   sn_joint_set_cone_limit(w, ball, (sn_cone_limit){ true, 0.5, 0.5, sn_soft_frequency(-1, 0) }));
	REJECT(SN_ERR_INVALID_ARGUMENT, sn_distance_joint_set_length(w, rod, 0.0));
	REJECT(SN_ERR_NOT_FINITE, sn_distance_joint_set_length(w, rod, nan_));
	REJECT(SN_ERR_INVALID_ARGUMENT, sn_distance_joint_set_spring(w, rod, true, sn_soft_rigid()));
	REJECT(SN_ERR_NEGATIVE_VALUE, sn_distance_joint_set_spring(w, rod, true, sn_soft_stiffness(-1, 0)));

	// Accepted: what a def accepts, a setter accepts too.
	ACCEPT(sn_joint_set_limit(w, rod, SN_AXIS_X, (sn_limit){ true, 0.2, INFINITY, sn_soft_rigid() }));
	ACCEPT(sn_joint_set_limit(w, ball, SN_AXIS_RX, (sn_limit){ true, -SN_PI, SN_PI, sn_soft_rigid() }));
	ACCEPT(sn_joint_set_motor(w, cylinder, SN_AXIS_X, (sn_motor){ true, -1.0, INFINITY }));
	ACCEPT(sn_joint_set_cone_limit(w, ball, (sn_cone_limit){ false, nan_, nan_, sn_soft_rigid() }));
	ACCEPT(sn_joint_set_break_thresholds(w, fixed, INFINITY, 0.0));
	ACCEPT(sn_distance_joint_set_spring(w, rod, false, sn_soft_rigid()));
}

// ---- batch control inputs, all or nothing ---------------------------------------------------------------

// The single setters' verdict on one joint target entry (the target first, then the motor speed).
static sn_error single_joint_target(sn_world* w, const sn_joint_target* t)
{
	sn_error err = sn_joint_set_drive_target(w, t->joint, t->axis, t->target);
	if (err == SN_ERR_OK && t->has_motor_speed)
	{
		err = sn_joint_set_motor_speed(w, t->joint, t->axis, t->motor_speed);
	}
	return err;
}

static sn_error single_body_state(sn_world* w, const sn_body_state* s)
{
	sn_error err = SN_ERR_OK;
	if (s->has_pose)
	{
		err = sn_body_set_pose(w, s->body, s->pose);
	}
	if (err == SN_ERR_OK && s->has_linear_velocity)
	{
		err = sn_body_set_linear_velocity(w, s->body, s->linear_velocity);
	}
	if (err == SN_ERR_OK && s->has_angular_velocity)
	{
		err = sn_body_set_angular_velocity(w, s->body, s->angular_velocity);
	}
	return err;
}

typedef enum batch_kind
{
	BATCH_JOINT_TARGETS,
	BATCH_BODY_STATES,
} batch_kind;

static sn_error run_batch(sn_world* w, batch_kind kind, bool apply, const void* entries, int count)
{
	if (kind == BATCH_JOINT_TARGETS)
	{
		return apply ? sn_world_set_joint_targets(w, entries, count) : sn_world_check_joint_targets(w, entries, count);
	}
	return apply ? sn_world_set_body_states(w, entries, count) : sn_world_check_body_states(w, entries, count);
}

// A batch whose last entry is bad: the check and the set each fail with the error the single setters give
// that entry, with one detail line that names it, and change nothing (the fixture's three ways).
static void reject_batch(batch_kind kind, const void* entries, int count, sn_error expected, const char* what)
{
	char check_detail[256];
	for (int apply = 0; apply < 2; ++apply)
	{
		fixture f;
		fixture_begin(&f);
		sn_error got = run_batch(f.world, kind, apply != 0, entries, count);
		const char* detail = sn_world_last_error_detail(f.world);
		if (apply == 0)
		{
			snprintf(check_detail, sizeof(check_detail), "%s", detail);
		}
		else if (strcmp(check_detail, detail) != 0)
		{
			fail_msg("%s: the check said \"%s\", the set \"%s\"", what, check_detail, detail);
		}
		char entry[32];
		snprintf(entry, sizeof(entry), "entry %d", count - 1);
		if (count > 0 && entries != NULL && strstr(detail, entry) == NULL)
		{
			fail_msg("%s: the detail \"%s\" does not name %s", what, detail, entry);
		}
		fixture_end(&f, got, expected, what);
	}
	if (count > 0 && entries != NULL)
	{
		scene s;
		sn_world* w = build_scene(&s);
		sn_error single = kind == BATCH_JOINT_TARGETS
			? single_joint_target(w, (const sn_joint_target*)entries + count - 1)
			: single_body_state(w, (const sn_body_state*)entries + count - 1);
		if (single != expected)
		{
			fail_msg("%s: the single setters give %s, the batch %s", what, sn_error_name(single),
					 sn_error_name(expected));
		}
		sn_world_destroy(w);
	}
}

enum
{
	GOOD_TARGETS = 4,
	GOOD_STATES = 3,
};

// Valid entries for every moving axis kind, then room for one bad entry.
static void good_targets(sn_joint_target* t)
{
	t[0] = (sn_joint_target){ ids.joints[SN_JOINT_HINGE], SN_AXIS_RX, 0.3, true, 1.0 };
	t[1] = (sn_joint_target){ ids.joints[SN_JOINT_PRISMATIC], SN_AXIS_X, 0.1, false, 0.0 };
	t[2] = (sn_joint_target){ ids.joints[SN_JOINT_CYLINDRICAL], SN_AXIS_RX, -0.2, true, -0.5 };
	t[3] = (sn_joint_target){ ids.joints[SN_JOINT_SIX_AXIS], SN_AXIS_RX, 0.4, true, 0.0 };
}

static void good_states(sn_body_state* s)
{
	sn_transform pose = { { 0.3, 0.1, -0.2 }, { 0.0, 0.0, 0.6, 0.8 } };
	s[0] = (sn_body_state){ ids.bodies[1], true, pose, true, { 0.1, 0, 0 }, true, { 0, 0, 0.5 } };
	s[1] = (sn_body_state){ ids.kinematic, false, sn_transform_identity(), true, { 0, 0.2, 0 }, false, { 0, 0, 0 } };
	// A static body may be moved, not set moving.
	s[2] = (sn_body_state){ ids.fixed_post, true, pose, false, { 0, 0, 0 }, false, { 0, 0, 0 } };
}

#define REJECT_TARGET(expected, ...)                                                                                   \
	do                                                                                                                 \
	{                                                                                                                  \
		sn_joint_target t_[GOOD_TARGETS + 1];                                                                          \
		good_targets(t_);                                                                                              \
		t_[GOOD_TARGETS] = (sn_joint_target)__VA_ARGS__;                                                               \
		reject_batch(BATCH_JOINT_TARGETS, t_, GOOD_TARGETS + 1, expected, #__VA_ARGS__);                               \
	} while (0)

#define REJECT_STATE(expected, ...)                                                                                    \
	do                                                                                                                 \
	{                                                                                                                  \
		sn_body_state s_[GOOD_STATES + 1];                                                                             \
		good_states(s_);                                                                                               \
		s_[GOOD_STATES] = (sn_body_state)__VA_ARGS__;                                                                  \
		reject_batch(BATCH_BODY_STATES, s_, GOOD_STATES + 1, expected, #__VA_ARGS__);                                  \
	} while (0)

static void test_joint_target_batches(void** state)
{
	(void)state;
	const sn_joint_id hinge = ids.joints[SN_JOINT_HINGE];
	const sn_joint_id bad_ids[5] = {
		ids.stale_joint, { 0, 0 }, foreign_joint, { -1, 1 }, { hinge.index1, hinge.generation + 1 }
	};
	for (int i = 0; i < 5; ++i)
	{
		REJECT_TARGET(SN_ERR_INVALID_ID, { bad_ids[i], SN_AXIS_RX, 0.1, false, 0.0 });
	}
	REJECT_TARGET(SN_ERR_INVALID_ARGUMENT, { hinge, SN_AXIS_Z, 0.1, false, 0.0 });
	REJECT_TARGET(SN_ERR_INVALID_ARGUMENT, { hinge, (sn_axis)6, 0.1, false, 0.0 });
	REJECT_TARGET(SN_ERR_INVALID_ARGUMENT, { hinge, (sn_axis)-1, 0.1, false, 0.0 });
	REJECT_TARGET(SN_ERR_INVALID_ARGUMENT, { ids.joints[SN_JOINT_FIXED], SN_AXIS_X, 0.1, true, 1.0 });
	REJECT_TARGET(SN_ERR_INVALID_ARGUMENT, { ids.joints[SN_JOINT_PRISMATIC], SN_AXIS_RX, 0.1, false, 0.0 });
	REJECT_TARGET(SN_ERR_INVALID_ARGUMENT, { ids.joints[SN_JOINT_SIX_AXIS], SN_AXIS_Z, 0.1, false, 0.0 });
	REJECT_TARGET(SN_ERR_NOT_FINITE, { hinge, SN_AXIS_RX, nan_, false, 0.0 });
	REJECT_TARGET(SN_ERR_NOT_FINITE, { ids.joints[SN_JOINT_PRISMATIC], SN_AXIS_X, -inf_, true, 1.0 });
	REJECT_TARGET(SN_ERR_NOT_FINITE, { hinge, SN_AXIS_RX, 0.1, true, nan_ });
	REJECT_TARGET(SN_ERR_NOT_FINITE, { ids.joints[SN_JOINT_CYLINDRICAL], SN_AXIS_X, 0.1, true, inf_ });
	sn_joint_target t[GOOD_TARGETS];
	good_targets(t);
	reject_batch(BATCH_JOINT_TARGETS, t, -1, SN_ERR_INVALID_ARGUMENT, "count -1");
	reject_batch(BATCH_JOINT_TARGETS, NULL, 2, SN_ERR_INVALID_ARGUMENT, "no entries");
	// Accepted: an empty batch, and a motor speed that is not sent (has_motor_speed false) is not read.
	ACCEPT(sn_world_set_joint_targets(w, NULL, 0));
	ACCEPT(sn_world_set_joint_targets(w, (sn_joint_target[]){ { hinge, SN_AXIS_RX, 0.2, false, nan_ } }, 1));
}

static void test_body_state_batches(void** state)
{
	(void)state;
	const sn_body_id b = ids.bodies[2];
	const sn_body_id bad_ids[5] = {
		ids.stale_body, null_body(), foreign_body, { -5, 1 }, { b.index1, b.generation + 1 }
	};
	const sn_transform id_pose = sn_transform_identity();
	for (int i = 0; i < 5; ++i)
	{
		REJECT_STATE(SN_ERR_INVALID_ID, { bad_ids[i], true, id_pose, false, { 0, 0, 0 }, false, { 0, 0, 0 } });
	}
	REJECT_STATE(SN_ERR_NOT_FINITE,
				 { b, true, { { 0, nan_, 0 }, { 0, 0, 0, 1 } }, false, { 0, 0, 0 }, false, { 0, 0, 0 } });
	REJECT_STATE(SN_ERR_NOT_FINITE,
				 { b, true, { { 0, 0, 0 }, { inf_, 0, 0, 1 } }, true, { 1, 0, 0 }, false, { 0, 0, 0 } });
	REJECT_STATE(SN_ERR_ZERO_AXIS,
				 { b, true, { { 0, 0, 0 }, { 0, 0, 0, 0 } }, false, { 0, 0, 0 }, false, { 0, 0, 0 } });
	REJECT_STATE(SN_ERR_NOT_FINITE, { b, true, id_pose, true, { nan_, 0, 0 }, false, { 0, 0, 0 } });
	REJECT_STATE(SN_ERR_NOT_FINITE, { b, false, id_pose, false, { 0, 0, 0 }, true, { 0, 0, -inf_ } });
	REJECT_STATE(SN_ERR_WRONG_TYPE, { ids.fixed_post, true, id_pose, true, { 1, 0, 0 }, false, { 0, 0, 0 } });
	REJECT_STATE(SN_ERR_WRONG_TYPE, { ids.fixed_post, false, id_pose, false, { 0, 0, 0 }, true, { 1, 0, 0 } });
	sn_body_state s[GOOD_STATES];
	good_states(s);
	reject_batch(BATCH_BODY_STATES, s, -3, SN_ERR_INVALID_ARGUMENT, "count -3");
	reject_batch(BATCH_BODY_STATES, NULL, 1, SN_ERR_INVALID_ARGUMENT, "no entries");
	// Accepted: an empty batch, and parts that are not sent are not read.
	ACCEPT(sn_world_set_body_states(w, NULL, 0));
	ACCEPT(sn_world_set_body_states(
		w,
		(sn_body_state[]){
			{ b, false, { { nan_, 0, 0 }, { 0, 0, 0, 0 } }, false, { nan_, 0, 0 }, false, { 0, 0, 0 } } },
		1));
}

// A valid batch leaves the world exactly as the single setters called in order leave it (a later entry on
// the same joint axis or body part wins), and its check alone changes nothing.
static void test_batches_equal_single_setters(void** state)
{
	(void)state;
	sn_joint_target t[GOOD_TARGETS + 2];
	good_targets(t);
	t[GOOD_TARGETS] = (sn_joint_target){ ids.joints[SN_JOINT_HINGE], SN_AXIS_RX, -0.7, false, 0.0 };
	t[GOOD_TARGETS + 1] = (sn_joint_target){ ids.joints[SN_JOINT_CYLINDRICAL], SN_AXIS_RX, 0.05, true, 2.0 };
	sn_body_state s[GOOD_STATES + 1];
	good_states(s);
	s[GOOD_STATES] =
		(sn_body_state){ ids.bodies[1], false, sn_transform_identity(), true, { -0.3, 0, 0 }, false, { 0, 0, 0 } };
	// A quaternion that is not of unit length, which both paths normalise.
	s[0].pose.q = (sn_quat){ 0.0, 0.0, 1.2, 1.6 };

	scene sa, sb;
	sn_world* single = build_scene(&sa);
	sn_world* batch = build_scene(&sb);
	flatten(batch, &before_flat);
	assert_sn_ok(sn_world_check_joint_targets(batch, t, GOOD_TARGETS + 2));
	assert_sn_ok(sn_world_check_body_states(batch, s, GOOD_STATES + 1));
	flatten(batch, &after_flat);
	assert_int_equal(after_flat.n, before_flat.n);
	assert_memory_equal(after_flat.v, before_flat.v, sizeof(double) * (size_t)before_flat.n);

	for (int i = 0; i < GOOD_TARGETS + 2; ++i)
	{
		assert_sn_ok(single_joint_target(single, t + i));
	}
	for (int i = 0; i < GOOD_STATES + 1; ++i)
	{
		assert_sn_ok(single_body_state(single, s + i));
	}
	assert_sn_ok(sn_world_set_joint_targets(batch, t, GOOD_TARGETS + 2));
	assert_sn_ok(sn_world_set_body_states(batch, s, GOOD_STATES + 1));
	assert_true(sn_joint_get_spring(batch, ids.joints[SN_JOINT_HINGE], SN_AXIS_RX).target == -0.7);
	assert_true(sn_joint_get_motor(batch, ids.joints[SN_JOINT_HINGE], SN_AXIS_RX).speed == 1.0);
	assert_true(sn_body_get_linear_velocity(batch, ids.bodies[1]).x == -0.3);

	flatten(single, &before_flat);
	flatten(batch, &after_flat);
	assert_int_equal(after_flat.n, before_flat.n);
	assert_memory_equal(after_flat.v, before_flat.v, sizeof(double) * (size_t)before_flat.n);
	// Every bit, including what the getters do not show, through the snapshot bytes.
	size_t size = sn_world_snapshot_size(single);
	assert_int_equal(size, sn_world_snapshot_size(batch));
	unsigned char* bytes_single = malloc(size);
	unsigned char* bytes_batch = malloc(size);
	assert_non_null(bytes_single);
	assert_non_null(bytes_batch);
	assert_sn_ok(sn_world_snapshot_write(single, bytes_single, size, NULL));
	assert_sn_ok(sn_world_snapshot_write(batch, bytes_batch, size, NULL));
	assert_memory_equal(bytes_single, bytes_batch, size);
	free(bytes_single);
	free(bytes_batch);
	for (int i = 0; i < 20; ++i)
	{
		assert_sn_ok(sn_world_step(single));
		assert_sn_ok(sn_world_step(batch));
	}
	assert_true(sn_world_state_hash(single) == sn_world_state_hash(batch));
	sn_world_destroy(single);
	sn_world_destroy(batch);
}

static void test_case_count(void** state)
{
	(void)state;
	print_message("MEASURE rejected calls checked = %d\n", checked_cases);
	assert_true(checked_cases > 300);
}

int main(void)
{
	// Ids of another world: a world with more bodies and joints than the scene has slots.
	sn_world* other = test_world(SN_SOLVER_TGS, 0.001, sn_v3(0, 0, 0));
	for (int i = 0; i < 30; ++i)
	{
		sn_body_def bd = sn_default_body_def();
		if (sn_create_body(other, &bd, &foreign_body) != SN_ERR_OK ||
			create_typed(other, SN_JOINT_SPHERICAL, scene_base(foreign_body, null_body()), &foreign_joint) != SN_ERR_OK)
		{
			return 1;
		}
	}
	sn_world_destroy(other);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_world_def),          cmocka_unit_test(test_world_setters),
		cmocka_unit_test(test_body_def),           cmocka_unit_test(test_body_setters),
		cmocka_unit_test(test_joint_base),         cmocka_unit_test(test_joint_defs),
		cmocka_unit_test(test_joint_setters),      cmocka_unit_test(test_joint_target_batches),
		cmocka_unit_test(test_body_state_batches), cmocka_unit_test(test_batches_equal_single_setters),
		cmocka_unit_test(test_case_count),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
