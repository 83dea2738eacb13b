// Scenes shared by the articulation tests (header-only: each test is its own executable).
#ifndef SINEW_TEST_ARTIC_SCENES_H
#define SINEW_TEST_ARTIC_SCENES_H

#include "support.h"

#include "sinew/sinew.h"

#include <stdlib.h>
#include <string.h>

static const double artic_g = 9.81;

// Rotations that turn a joint frame's x axis onto world y and z.
static inline sn_quat quat_x_to_y(void)
{
	return sn_quat_from_axis_angle(sn_v3(0, 0, 1), 0.5 * SN_PI);
}

static inline sn_quat quat_x_to_z(void)
{
	return sn_quat_from_axis_angle(sn_v3(0, 1, 0), -0.5 * SN_PI);
}

static inline sn_world* make_world(sn_solver solver, double dt)
{
	sn_world_def wd = sn_default_world_def();
	wd.solver = solver;
	wd.time_step = dt;
	wd.gravity = sn_v3(0, 0, -artic_g);
	sn_world* world = NULL;
	assert_sn_ok(sn_world_create(&wd, &world));
	return world;
}

// A link of mass m whose centre of mass is `arm` metres along +x from its inbound joint, hinged about
// world y when its parent's frame is aligned with the world.
static inline sn_link_def hinge_link(int parent, sn_vec3 joint_in_parent, double mass, double arm, sn_mat33 inertia)
{
	sn_link_def l = sn_default_link_def();
	l.parent = parent;
	l.joint_type = SN_LINK_JOINT_REVOLUTE;
	l.parent_frame.p = joint_in_parent;
	l.parent_frame.q = quat_x_to_y();
	l.child_frame.q = quat_x_to_y();
	l.mass = mass;
	l.inertia = inertia;
	l.center_of_mass = sn_v3(arm, 0, 0);
	return l;
}

// A pendulum: fixed base at the origin, one link hinged about world y with a point-like bob (inertia
// 4e-5 kg*m^2 about its centre) `length` metres along +x, released horizontally (q = 0). Positive q
// turns the bob down (rotation about +y takes +x towards -z).
static inline sn_articulation_id make_pendulum(sn_world* world, double length, double mass)
{
	sn_link_def links[2];
	links[0] = sn_default_link_def();
	links[1] = hinge_link(0, sn_v3(0, 0, 0), mass, length, sn_mat33_diag(4e-5, 4e-5, 4e-5));
	sn_articulation_def ad = sn_default_articulation_def();
	sn_articulation_id id;
	assert_sn_ok(sn_create_articulation(world, &ad, links, 2, &id));
	return id;
}

// The hanging chain of bench/scenes.c as an articulation: n boxes 0.1 x 0.1 x 0.5 m, 1 kg, laid along
// +x from a fixed base at the origin, hinge axes along y, each link's frame at its box centre.
static inline sn_articulation_id make_chain(sn_world* world, int n)
{
	const double half = 0.25;
	sn_link_def* links = calloc((size_t)n + 1, sizeof(sn_link_def));
	assert_non_null(links);
	links[0] = sn_default_link_def();
	for (int i = 1; i <= n; ++i)
	{
		links[i] = sn_default_link_def();
		links[i].parent = i - 1;
		links[i].mass = 1.0;
		links[i].inertia = sn_inertia_box(1.0, sn_v3(half, 0.05, 0.05));
		links[i].parent_frame.p = i == 1 ? sn_v3(0, 0, 0) : sn_v3(half, 0, 0);
		links[i].parent_frame.q = quat_x_to_y();
		links[i].child_frame.p = sn_v3(-half, 0, 0);
		links[i].child_frame.q = quat_x_to_y();
	}
	sn_articulation_def ad = sn_default_articulation_def();
	sn_articulation_id id;
	assert_sn_ok(sn_create_articulation(world, &ad, links, n + 1, &id));
	free(links);
	return id;
}

// The driven arm of issue 3 (bench/scenes.c): seven 0.3 m, 2 kg links along +x from a fixed base,
// hinge axes alternating y, z, y, ..., drives kp = 1e6 N*m/rad, kd = 1e3 N*m*s/rad to 0.5 rad.
enum
{
	ARM_LINKS = 7
};
static const double arm_length = 0.3, arm_mass = 2.0, arm_kp = 1e6, arm_kd = 1e3, arm_target = 0.5;

static inline sn_articulation_id make_arm(sn_world* world)
{
	sn_link_def links[ARM_LINKS + 1];
	for (int i = 0; i <= ARM_LINKS; ++i)
	{
		sn_link_def* l = links + i;
		*l = sn_default_link_def();
		l->mass = arm_mass;
		l->inertia = sn_inertia_box(arm_mass, sn_v3(0.5 * arm_length, 0.025, 0.025));
		l->center_of_mass = sn_v3(0.5 * arm_length, 0, 0);
		if (i == 0)
		{
			continue;
		}
		l->parent = i - 1;
		sn_quat axis = (i % 2 == 1) ? quat_x_to_y() : quat_x_to_z();
		l->parent_frame.q = axis;
		l->child_frame.q = axis;
		l->parent_frame.p = i == 1 ? sn_v3(0, 0, 0) : sn_v3(arm_length, 0, 0);
		l->drive[0].enabled = true;
		l->drive[0].stiffness = arm_kp;
		l->drive[0].damping = arm_kd;
		l->drive[0].target_position = arm_target;
	}
	sn_articulation_def ad = sn_default_articulation_def();
	sn_articulation_id id;
	assert_sn_ok(sn_create_articulation(world, &ad, links, ARM_LINKS + 1, &id));
	return id;
}

// Allocation counter for the world's allocator hook.
typedef struct counting_allocator
{
	uint64_t allocations;
	uint64_t frees;
	int64_t bytes;
} counting_allocator;

static inline void* counting_alloc(void* context, size_t size)
{
	counting_allocator* c = context;
	c->allocations += 1;
	c->bytes += (int64_t)size;
	return malloc(size);
}

static inline void counting_free(void* context, void* pointer, size_t size)
{
	counting_allocator* c = context;
	c->frees += 1;
	c->bytes -= (int64_t)size;
	free(pointer);
}

#endif
