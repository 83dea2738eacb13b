// Sinew core: rigid bodies in maximal coordinates (6 dofs each).
//
// A body's pose is the pose of its body frame; its centre of mass sits at def.center_of_mass in that
// frame. Getters on an invalid id return zero values (identity for rotations); use sn_body_is_valid to
// tell. Setters return SN_ERR_INVALID_ID for an invalid id.
//
// Articulation links have bodies too (SN_BODY_LINK, articulation.h): the getters read the link (its frame's
// pose, centre of mass, velocities, mass, inertia, kinetic energy) from the articulation; the forces
// applied to it go to the articulation's link force; setters that would move or reshape it (pose,
// velocities, mass, damping, gravity scale, type, body states) and sn_destroy_body fail with
// SN_ERR_WRONG_TYPE. sn_world_get_bodies and sn_world_get_body_count do not count link bodies.
#ifndef SINEW_BODY_H
#define SINEW_BODY_H

#include "sinew/world.h"

#ifdef __cplusplus
extern "C" {
#endif

sn_body_def sn_default_body_def(void);

// Inertia tensors of solid shapes about their centre, kg*m^2, for sn_body_def.inertia.
// Box with half-extents (m); sphere of radius r; cylinder along z of radius r and height h.
sn_mat33 sn_inertia_box(double mass, sn_vec3 half_extents);
sn_mat33 sn_inertia_sphere(double mass, double radius);
sn_mat33 sn_inertia_cylinder(double mass, double radius, double height);

// Create a body. Validates: finite numbers, unit-normalisable rotation, positive mass and a symmetric
// positive definite inertia for dynamic bodies, non-negative damping. SN_BODY_LINK is refused
// (SN_ERR_INVALID_ARGUMENT): link bodies are made by their articulation.
sn_error sn_create_body(sn_world* world, const sn_body_def* def, sn_body_id* out_id);
// Destroy a body, its shapes and every joint attached to it.
sn_error sn_destroy_body(sn_world* world, sn_body_id id);
bool sn_body_is_valid(const sn_world* world, sn_body_id id);
// Sleeping (types.h, sn_sleep_settings): whether the body moves in the next step (false for static and
// resting kinematic bodies... and for a dynamic body whose island sleeps; a link: its articulation), and
// waking it with its island. sn_body_wake on a static body or the world does nothing.
bool sn_body_is_awake(const sn_world* world, sn_body_id id);
sn_error sn_body_wake(sn_world* world, sn_body_id id);

sn_body_type sn_body_get_type(const sn_world* world, sn_body_id id);
// The articulation and link index of a link's body; SN_ERR_WRONG_TYPE for other bodies.
sn_error sn_body_get_link(const sn_world* world, sn_body_id id, sn_articulation_id* articulation, int* link);
// Pose of the body frame, m and unit quaternion.
sn_transform sn_body_get_pose(const sn_world* world, sn_body_id id);
// World position of the centre of mass, m.
sn_vec3 sn_body_get_center_of_mass(const sn_world* world, sn_body_id id);
// Velocity of the centre of mass (m/s) and angular velocity (rad/s), world frame.
sn_vec3 sn_body_get_linear_velocity(const sn_world* world, sn_body_id id);
sn_vec3 sn_body_get_angular_velocity(const sn_world* world, sn_body_id id);
// Velocity of a world point moving with the body, m/s.
sn_vec3 sn_body_get_point_velocity(const sn_world* world, sn_body_id id, sn_vec3 world_point);
double sn_body_get_mass(const sn_world* world, sn_body_id id);
// Inertia about the centre of mass in body axes, kg*m^2.
sn_mat33 sn_body_get_inertia(const sn_world* world, sn_body_id id);
// Kinetic energy, J.
double sn_body_get_kinetic_energy(const sn_world* world, sn_body_id id);
uint64_t sn_body_get_user_data(const sn_world* world, sn_body_id id);

sn_error sn_body_set_pose(sn_world* world, sn_body_id id, sn_transform pose);
sn_error sn_body_set_linear_velocity(sn_world* world, sn_body_id id, sn_vec3 velocity);
sn_error sn_body_set_angular_velocity(sn_world* world, sn_body_id id, sn_vec3 velocity);

// The state of many bodies at once, all or nothing (what a server command or a controller that teleports
// bodies sends). Each entry is checked as sn_body_set_pose, sn_body_set_linear_velocity and
// sn_body_set_angular_velocity check it (a live body, finite numbers, a rotation that normalises, no
// velocity for a static body), with the same errors; the detail line (sn_world_last_error_detail) names
// the first bad entry. A later entry on the same body overrides an earlier one, part by part.
typedef struct sn_body_state
{
	sn_body_id body;
	bool has_pose;
	sn_transform pose; // m, unit quaternion (normalised like sn_body_set_pose)
	bool has_linear_velocity;
	sn_vec3 linear_velocity; // m/s, of the centre of mass, world frame
	bool has_angular_velocity;
	sn_vec3 angular_velocity; // rad/s, world frame
} sn_body_state;
// Validate count >= 0 entries without changing anything but the detail line.
sn_error sn_world_check_body_states(sn_world* world, const sn_body_state* states, int count);
// Validate every entry first, then apply them in order; on failure nothing changed.
sn_error sn_world_set_body_states(sn_world* world, const sn_body_state* states, int count);

sn_error sn_body_set_mass_properties(sn_world* world, sn_body_id id, double mass, sn_mat33 inertia,
									 sn_vec3 center_of_mass);
sn_error sn_body_set_damping(sn_world* world, sn_body_id id, double linear_damping, double angular_damping);
sn_error sn_body_set_gravity_scale(sn_world* world, sn_body_id id, double gravity_scale);
sn_error sn_body_set_type(sn_world* world, sn_body_id id, sn_body_type type);
sn_error sn_body_set_user_data(sn_world* world, sn_body_id id, uint64_t user_data);

// Add a force (N) at a world point for the next step; it also adds the torque about the centre of mass.
sn_error sn_body_apply_force(sn_world* world, sn_body_id id, sn_vec3 force, sn_vec3 world_point);
sn_error sn_body_apply_force_at_center(sn_world* world, sn_body_id id, sn_vec3 force);
// Add a torque (N*m, world frame) for the next step.
sn_error sn_body_apply_torque(sn_world* world, sn_body_id id, sn_vec3 torque);
// The force and torque (about the centre of mass) accumulated for the next step.
sn_vec3 sn_body_get_applied_force(const sn_world* world, sn_body_id id);
sn_vec3 sn_body_get_applied_torque(const sn_world* world, sn_body_id id);

#ifdef __cplusplus
}
#endif

#endif
