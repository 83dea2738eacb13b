// Helpers shared by the articulation tests: the scene library's articulation scenes
// (scenes/articulations.h) behind calls that assert, and an allocator that counts.
#ifndef SINEW_TEST_ARTIC_SUPPORT_H
#define SINEW_TEST_ARTIC_SUPPORT_H

#include "support.h"

#include "scenes/scenes.h"
#include "sinew/sinew.h"

#include <stdlib.h>
#include <string.h>

static const double artic_g = SCENE_GRAVITY;

// Rotations that turn a joint frame's x axis onto world y and z.
static inline sn_quat quat_x_to_y(void)
{
	return scene_x_to_y();
}

static inline sn_quat quat_x_to_z(void)
{
	return scene_x_to_z();
}

static inline sn_world* make_world(sn_solver solver, double dt)
{
	sn_world_def wd = scene_world_def(solver, dt);
	sn_world* world = NULL;
	assert_sn_ok(sn_world_create(&wd, &world));
	return world;
}

// scene_hinge_link: a link of mass m whose centre of mass is `arm` metres along +x from its inbound
// joint, hinged about world y when its parent's frame is aligned with the world.
static inline sn_link_def hinge_link(int parent, sn_vec3 joint_in_parent, double mass, double arm, sn_mat33 inertia)
{
	return scene_hinge_link(parent, joint_in_parent, mass, arm, inertia);
}

// scene_artic_pendulum: a point-like bob `length` metres along +x, hinged about world y at the origin,
// released horizontally (q = 0); positive q turns the bob down.
static inline sn_articulation_id make_pendulum(sn_world* world, double length, double mass)
{
	sn_articulation_id id;
	assert_sn_ok(scene_artic_pendulum(world, length, mass, &id));
	return id;
}

// scene_artic_chain: the benchmarks' hanging chain of n boxes as an articulation.
static inline sn_articulation_id make_chain(sn_world* world, int n)
{
	sn_articulation_id id;
	assert_sn_ok(scene_artic_chain(world, n, true, &id));
	return id;
}

// scene_arm: the driven 7-link arm of the benchmarks.
enum
{
	ARM_LINKS = SCENE_ARM_LINKS
};
static const double arm_length = SCENE_ARM_LENGTH, arm_mass = SCENE_ARM_MASS, arm_kp = SCENE_ARM_KP,
					arm_kd = SCENE_ARM_KD, arm_target = SCENE_ARM_TARGET;

static inline sn_articulation_id make_arm(sn_world* world)
{
	sn_articulation_id id;
	assert_sn_ok(scene_arm(world, &id));
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
