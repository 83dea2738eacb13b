// Helpers shared by the solver-core tests: worlds and bodies that assert on failure, and measurements of
// joint error made from the public body poses and joint frames only, so they check the core instead of
// repeating its own numbers. The scenes themselves come from the scene library (scenes/scenes.h) that
// the benchmarks share.
#ifndef SINEW_TEST_CORE_SUPPORT_H
#define SINEW_TEST_CORE_SUPPORT_H

#include "support.h"

#include "scenes/scenes.h"
#include "sinew/sinew.h"

#include <string.h>

// Print a measured figure so that a test log shows the number behind each tolerance.
#define report_measure(name, value) print_message("MEASURE %s = %.6g\n", name, (double)(value))

// A world with the given solver, step and gravity, other settings at their defaults.
static inline sn_world* test_world(sn_solver solver, double time_step, sn_vec3 gravity)
{
	sn_world_def wd = sn_default_world_def();
	wd.solver = solver;
	wd.time_step = time_step;
	wd.gravity = gravity;
	sn_world* world = NULL;
	assert_sn_ok(sn_world_create(&wd, &world));
	return world;
}

// A world with the scenes' def (scene_world_def: this solver and step, gravity (0, 0, -9.81)).
static inline sn_world* test_scene_world(sn_solver solver, double time_step)
{
	sn_world_def wd = scene_world_def(solver, time_step);
	sn_world* world = NULL;
	assert_sn_ok(sn_world_create(&wd, &world));
	return world;
}

// A dynamic body at a position with the given mass and inertia (body frame = centre of mass).
static inline sn_body_id test_body(sn_world* world, sn_vec3 position, double mass, sn_mat33 inertia)
{
	sn_body_def bd = sn_default_body_def();
	bd.pose.p = position;
	bd.mass = mass;
	bd.inertia = inertia;
	sn_body_id id;
	assert_sn_ok(sn_create_body(world, &bd, &id));
	return id;
}

// The joint's frame on one side, in the world.
static inline sn_transform joint_world_frame(const sn_world* world, sn_joint_id joint, bool side_b)
{
	sn_body_id body = side_b ? sn_joint_get_body_b(world, joint) : sn_joint_get_body_a(world, joint);
	sn_transform local = side_b ? sn_joint_get_frame_b(world, joint) : sn_joint_get_frame_a(world, joint);
	if (sn_body_id_is_null(body))
	{
		return local;
	}
	return sn_transform_mul(sn_body_get_pose(world, body), local);
}

// Anchor B minus anchor A, in frame A's axes, m.
static inline sn_vec3 joint_separation(const sn_world* world, sn_joint_id joint)
{
	sn_transform fa = joint_world_frame(world, joint, false);
	sn_transform fb = joint_world_frame(world, joint, true);
	return sn_inv_rotate(fa.q, sn_sub(fb.p, fa.p));
}

// Rotation of frame B relative to frame A (in frame A), with w >= 0.
static inline sn_quat joint_relative_rotation(const sn_world* world, sn_joint_id joint)
{
	sn_transform fa = joint_world_frame(world, joint, false);
	sn_transform fb = joint_world_frame(world, joint, true);
	sn_quat q = sn_quat_mul_conj_a(fa.q, fb.q);
	if (q.w < 0.0)
	{
		q.x = -q.x;
		q.y = -q.y;
		q.z = -q.z;
		q.w = -q.w;
	}
	return q;
}

// Angle of a rotation, rad, in [0, pi].
static inline double quat_angle(sn_quat q)
{
	return 2.0 * atan2(sqrt(q.x * q.x + q.y * q.y + q.z * q.z), fabs(q.w));
}

// Angle between two directions, rad (atan2 form: accurate for tiny angles).
static inline double angle_between(sn_vec3 a, sn_vec3 b)
{
	return atan2(sn_length(sn_cross(a, b)), sn_dot(a, b));
}

// Angle between the x axes of the joint's two frames, rad: what a hinge or cylinder must keep at zero.
static inline double joint_axis_misalignment(const sn_world* world, sn_joint_id joint)
{
	sn_transform fa = joint_world_frame(world, joint, false);
	sn_transform fb = joint_world_frame(world, joint, true);
	return angle_between(sn_rotate(fa.q, sn_v3(1, 0, 0)), sn_rotate(fb.q, sn_v3(1, 0, 0)));
}

// Twist angle of a rotation about x, rad: the angle of the twist factor in q = swing * twist.
static inline double quat_twist_x(sn_quat q)
{
	return 2.0 * atan2(q.x, q.w);
}

static inline double max_abs3(sn_vec3 v)
{
	return fmax(fabs(v.x), fmax(fabs(v.y), fabs(v.z)));
}

// Deterministic pseudo-random numbers for test poses (xorshift64*), uniform in [lo, hi).
typedef struct test_rng
{
	uint64_t s;
} test_rng;

static inline double rng_uniform(test_rng* r, double lo, double hi)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	uint64_t x = r->s * 2685821657736338717ull;
	return lo + (hi - lo) * (double)(x >> 11) * (1.0 / 9007199254740992.0);
}

static inline sn_vec3 rng_vec3(test_rng* r, double lo, double hi)
{
	double x = rng_uniform(r, lo, hi);
	double y = rng_uniform(r, lo, hi);
	double z = rng_uniform(r, lo, hi);
	return sn_v3(x, y, z);
}

// A rotation by an angle in [0, max_angle) about a random axis.
static inline sn_quat rng_rotation(test_rng* r, double max_angle)
{
	sn_vec3 axis = sn_normalize(rng_vec3(r, -1.0, 1.0));
	return sn_quat_from_axis_angle(axis, rng_uniform(r, 0.0, max_angle));
}

// The rotation vector v as a quaternion (angle |v| about v / |v|).
static inline sn_quat quat_from_rotation_vector(sn_vec3 v)
{
	double angle = sn_length(v);
	if (angle == 0.0)
	{
		return sn_quat_identity();
	}
	return sn_quat_from_axis_angle(sn_scale(1.0 / angle, v), angle);
}

#endif
