// Sinew core: joints between two bodies, or a body and the world, in maximal coordinates.
//
// Every joint has a frame on each body; its x axis is the joint axis. The joint's six coordinates
// (sn_axis) measure frame B relative to frame A. Each joint type locks some axes and lets others move,
// with limits, velocity motors and springs on the moving ones:
//   fixed        all six locked
//   hinge        RX free (limit, motor, spring)
//   prismatic    X free (limit, motor, spring)
//   cylindrical  X and RX free (each with limit, motor, spring)
//   spherical    RX, RY, RZ free; elliptic swing cone and twist limit
//   distance     the distance between the frame origins (axis X), rigid or a spring with min/max
//   six-axis     each axis locked, limited or free, with a motor and a spring per axis
//
// Forces out: after a step each joint reports the force it applied to body B (N) and the torque about
// B's anchor (N*m), both in the world frame, from the row impulses accumulated in that step.
//
// The same defs in every solver (world.h): a user switches solver, not code. What each field becomes
// (XPBD's blocks LimitAngle, RestrictToAxis, Servo and the velocity motor are those of Mueller's XPBD
// joint notes, after Mueller et al. 2020; DIRECT's compliant rows are Faure's):
//   softness (lock_soft, a limit's, a spring's)  PGS/TGS: implicit spring rows; XPBD: compliance
//       alpha = c = 1/k in the position pass and the damping b in the velocity pass; DIRECT: Faure's
//       compliant rows with the world's implicit factors. One mapping (types.h, sn_soft): a constant load
//       F deflects a soft row by F c in all four.
//   limits      PGS/TGS: speculative unilateral rows; XPBD: LimitAngle or the axial part of
//       RestrictToAxis while violated (inelastic: no restitution); DIRECT: complementarity solved by the
//       active set.
//   motors      PGS/TGS/DIRECT: a velocity row within max_force; XPBD: hinge, prismatic and cylindrical
//       motors are XPBD's velocity motor, a position target (angle at the substep's start plus
//       hx speed) with the multiplier capped at max_force hx^2; six-axis motors act in XPBD's velocity
//       pass, so a world with velocity_iterations = 0 leaves them off in XPBD.
//   springs     a rigid spring is a position servo in every solver (XPBD: the Servo block), capped at
//       max_force; a soft one is a spring-damper as above.
//   swing cone  XPBD: LimitAngle when y_angle == z_angle; an elliptic cone uses XPBD's generic
//       per-row correction on the PGS/TGS cone row.
//   twist       the swing-twist angle of the frames in every solver (XPBD measures it on frame B's y axis
//       turned back through the swing; the notes' bisector projection is another angle at large swing).
//   break_force, break_torque  from the reported force and torque in every solver.
// XPBD projects an error present when a substep starts at once (the others at erp per step): a joint
// created out of place snaps into place with the velocity of that correction. Create joints in place.
// No joint def field is ignored by any solver. Of the world settings, XPBD ignores erp, DIRECT ignores
// the iteration counts, and only DIRECT reads implicit_alpha and implicit_beta.
#ifndef SINEW_JOINT_H
#define SINEW_JOINT_H

#include "sinew/world.h"

#ifdef __cplusplus
extern "C" {
#endif

sn_joint_base sn_default_joint_base(void);
sn_fixed_joint_def sn_default_fixed_joint_def(void);
sn_hinge_joint_def sn_default_hinge_joint_def(void);
sn_prismatic_joint_def sn_default_prismatic_joint_def(void);
sn_cylindrical_joint_def sn_default_cylindrical_joint_def(void);
sn_spherical_joint_def sn_default_spherical_joint_def(void);
sn_distance_joint_def sn_default_distance_joint_def(void);
sn_six_axis_joint_def sn_default_six_axis_joint_def(void);

sn_error sn_create_fixed_joint(sn_world* world, const sn_fixed_joint_def* def, sn_joint_id* out_id);
sn_error sn_create_hinge_joint(sn_world* world, const sn_hinge_joint_def* def, sn_joint_id* out_id);
sn_error sn_create_prismatic_joint(sn_world* world, const sn_prismatic_joint_def* def, sn_joint_id* out_id);
sn_error sn_create_cylindrical_joint(sn_world* world, const sn_cylindrical_joint_def* def, sn_joint_id* out_id);
sn_error sn_create_spherical_joint(sn_world* world, const sn_spherical_joint_def* def, sn_joint_id* out_id);
sn_error sn_create_distance_joint(sn_world* world, const sn_distance_joint_def* def, sn_joint_id* out_id);
sn_error sn_create_six_axis_joint(sn_world* world, const sn_six_axis_joint_def* def, sn_joint_id* out_id);

sn_error sn_destroy_joint(sn_world* world, sn_joint_id id);
bool sn_joint_is_valid(const sn_world* world, sn_joint_id id);

sn_joint_type sn_joint_get_type(const sn_world* world, sn_joint_id id);
sn_body_id sn_joint_get_body_a(const sn_world* world, sn_joint_id id);
sn_body_id sn_joint_get_body_b(const sn_world* world, sn_joint_id id);
sn_transform sn_joint_get_frame_a(const sn_world* world, sn_joint_id id);
sn_transform sn_joint_get_frame_b(const sn_world* world, sn_joint_id id);
uint64_t sn_joint_get_user_data(const sn_world* world, sn_joint_id id);

// Enable or disable at run time. A broken joint stays broken until re-enabled.
sn_error sn_joint_set_enabled(sn_world* world, sn_joint_id id, bool enabled);
bool sn_joint_is_enabled(const sn_world* world, sn_joint_id id);
bool sn_joint_is_broken(const sn_world* world, sn_joint_id id);
// Whether the two bodies' shapes collide with each other (sn_joint_base.collide_connected); takes effect
// in the next step.
sn_error sn_joint_set_collide_connected(sn_world* world, sn_joint_id id, bool collide);
bool sn_joint_get_collide_connected(const sn_world* world, sn_joint_id id);
sn_error sn_joint_set_break_thresholds(sn_world* world, sn_joint_id id, double break_force, double break_torque);
sn_error sn_joint_set_lock_soft(sn_world* world, sn_joint_id id, sn_soft soft);
// Softness of the locked axes (rigid for an invalid id).
sn_soft sn_joint_get_lock_soft(const sn_world* world, sn_joint_id id);

// Force (N) on body B and torque (N*m) on body B about its anchor, world frame, in the last step.
// Either pointer may be NULL.
sn_error sn_joint_get_reaction(const sn_world* world, sn_joint_id id, sn_vec3* force, sn_vec3* torque);

// Current coordinate (m or rad) and its rate (m/s or rad/s) on one axis (see sn_axis).
double sn_joint_get_coordinate(const sn_world* world, sn_joint_id id, sn_axis axis);
double sn_joint_get_coordinate_speed(const sn_world* world, sn_joint_id id, sn_axis axis);

// Run-time control of a moving axis. The axis must move in this joint type (for example RX on a hinge,
// X on a prismatic joint, any non-locked axis of a six-axis joint); otherwise SN_ERR_INVALID_ARGUMENT.
sn_error sn_joint_set_limit(sn_world* world, sn_joint_id id, sn_axis axis, sn_limit limit);
sn_error sn_joint_set_motor(sn_world* world, sn_joint_id id, sn_axis axis, sn_motor motor);
sn_error sn_joint_set_spring(sn_world* world, sn_joint_id id, sn_axis axis, sn_spring spring);
sn_error sn_joint_set_motor_speed(sn_world* world, sn_joint_id id, sn_axis axis, double speed);
// Target of the axis spring (m or rad): the call a controller makes every step.
sn_error sn_joint_set_drive_target(sn_world* world, sn_joint_id id, sn_axis axis, double target);
sn_limit sn_joint_get_limit(const sn_world* world, sn_joint_id id, sn_axis axis);
sn_motor sn_joint_get_motor(const sn_world* world, sn_joint_id id, sn_axis axis);
sn_spring sn_joint_get_spring(const sn_world* world, sn_joint_id id, sn_axis axis);

// Control inputs for many joints at once, all or nothing (what a controller or a server command sends
// each step). Each entry is checked as sn_joint_set_drive_target and sn_joint_set_motor_speed check it
// (a live joint, an axis that moves in its type, finite numbers), with the same errors; the detail line
// (sn_world_last_error_detail) names the first bad entry. A later entry on the same joint and axis
// overrides an earlier one.
typedef struct sn_joint_target
{
	sn_joint_id joint;
	sn_axis axis;  // the axis whose spring target (and motor speed) is set
	double target; // spring target, m or rad (what sn_joint_set_drive_target sets)
	bool has_motor_speed;
	double motor_speed; // m/s or rad/s (what sn_joint_set_motor_speed sets)
} sn_joint_target;
// Validate count >= 0 entries without changing anything but the detail line.
sn_error sn_world_check_joint_targets(sn_world* world, const sn_joint_target* targets, int count);
// Validate every entry first, then apply them in order; on failure nothing changed.
sn_error sn_world_set_joint_targets(sn_world* world, const sn_joint_target* targets, int count);

// Spherical joint: swing cone.
sn_error sn_joint_set_cone_limit(sn_world* world, sn_joint_id id, sn_cone_limit cone);
// Distance joint: rest length (m), spring and min/max limit.
sn_error sn_distance_joint_set_length(sn_world* world, sn_joint_id id, double length);
sn_error sn_distance_joint_set_spring(sn_world* world, sn_joint_id id, bool enabled, sn_soft spring);

#ifdef __cplusplus
}
#endif

#endif
