// Internal rigid body record. Hot solver state is copied into solver_body arrays for each step.
#ifndef SINEW_BODY_INTERNAL_H
#define SINEW_BODY_INTERNAL_H

#include "sinew/types.h"

typedef struct sn_world sn_world;

typedef struct body
{
	uint32_t generation; // changes when the slot is freed
	int32_t next_free;   // free-list link while dead
	bool live;
	sn_body_type type;
	double mass, inv_mass;  // kg, 1/kg (0 for static and kinematic bodies)
	sn_mat33 inertia;       // about the centre of mass, body axes, kg*m^2
	sn_mat33 inv_inertia;   // body axes (zero for static and kinematic bodies)
	sn_vec3 local_com;      // centre of mass in the body frame, m
	double linear_damping;  // 1/s
	double angular_damping; // 1/s
	double gravity_scale;
	sn_vec3 com;           // world centre of mass, m
	sn_quat q;             // orientation of the body frame
	sn_vec3 v, w;          // m/s, rad/s (world)
	sn_vec3 force, torque; // accumulated for the next step, N and N*m about the centre of mass
	int32_t solver_index;  // scratch: index into the step's solver bodies (0 for static)
	uint64_t user_data;
} body;

// The body at a valid id, or NULL.
body* body_get(const sn_world* world, sn_body_id id);
// Solver body index of a body slot, or 0 for the world (index -1) and static bodies.
int32_t body_solver_index(const sn_world* world, int32_t body_index);
// World-frame inverse inertia.
sn_mat33 body_inv_inertia_world(const body* b);
// Pose of the body frame.
sn_transform body_pose(const body* b);
// Velocities of a dynamic body after h: scaled gravity, applied force and torque, implicit gyroscopic
// torque (one Newton step, derived in body.c) and damping. Every maximal-coordinate solver integrates
// with it (solver/pgs_tgs.c, solver/xpbd.c, solver/direct.c).
void body_integrate_velocity(const body* b, sn_vec3 gravity, double h, sn_vec3* v, sn_vec3* w);
// Solver body slots for a (sub)step: slot 0 is the static ground; every non-static body gets a slot with
// its velocities, inverse mass and world inverse inertia, and its solver_index. Every maximal-coordinate
// solver lays its bodies out with it, so rows (constraint/row.h) index the same arrays in each.
void body_prepare_solver_slots(sn_world* world);
// Copy the solver slots' velocities back into the dynamic bodies.
void body_store_solver_velocities(sn_world* world);

#endif
