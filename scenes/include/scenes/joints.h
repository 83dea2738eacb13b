// Scenes of maximal-coordinate joints. Bodies are boxes or point-like bobs; hinges turn about world y
// (joint frames scene_x_to_y()) unless a scene says otherwise; "released" means from rest, under gravity.
#ifndef SINEW_SCENES_JOINTS_H
#define SINEW_SCENES_JOINTS_H

#include "scenes/common.h"

#ifdef __cplusplus
extern "C" {
#endif

// ---- pendulums and chains ---------------------------------------------------------------------------

// The 1 m pendulum: a point-like 1 kg bob (the inertia of a 1 cm solid sphere) at (1, 0, 0) hinged
// about world y to the world at the origin, released horizontally (90 degrees from the bottom).
sn_error scene_pendulum(sn_world* world, sn_body_id* bob, sn_joint_id* hinge);
// Its exact period, s: T = 4 sqrt(L / g) K(sin 45 degrees), K the complete elliptic integral of the first
// kind, here by the arithmetic-geometric mean: K(k) = pi / (2 AGM(1, sqrt(1 - k^2))).
double scene_pendulum_exact_period(void);
double scene_complete_elliptic_k(double k);

// The hanging chain of the benchmarks: n boxes (0.1 x 0.1 x 0.5 m, 1 kg) laid end to end along +x from
// the origin, each hinged about y to the one before it (the first to the world), released horizontally.
// bodies and joints hold n ids each.
sn_error scene_hinge_chain(sn_world* world, int n, sn_body_id* bodies, sn_joint_id* joints);

// A sheet of rows x cols plates (0.25 x 0.25 x 0.04 m, 1 kg) in the horizontal x-y plane, each hinged
// about y to the plate before it along x (the first row to the world at x = 0) and to the plate before
// it along y: every square of four is a closed loop of parallel hinges. Released flat, it swings down
// about its pinned edge like one wide chain; its loops repeat constraints, which stresses iterative
// solvers and the direct solver's factorisation (fill-in) alike. bodies holds rows * cols ids (plate
// (i, k) at i * cols + k), joints scene_sheet_joint_count(rows, cols).
int scene_sheet_joint_count(int rows, int cols);
sn_error scene_sheet(sn_world* world, int rows, int cols, sn_body_id* bodies, sn_joint_id* joints);

// A joint of `type` between a and b (a null id: the world) with anchors pa on a and pb on b, in the
// configuration of the joint chains below: hinges about world y (for bodies aligned with the world);
// prismatic and cylindrical joints slide along x within +-0.05 m; distance joints keep 0.05 m; the
// six-axis joint locks X, Y, Z and RX, limits RY to +-1 rad and frees RZ; the rest at their defaults.
sn_error scene_joint(sn_world* world, sn_joint_type type, sn_body_id a, sn_body_id b, sn_vec3 pa, sn_vec3 pb,
					 sn_joint_id* joint);
// A chain of `links` boxes (0.5 x 0.1 x 0.1 m along x, 1 kg, the last one 5 kg as a load) joined end to
// end by scene_joint of `type`, the first to the world at the origin, released horizontally along +x.
// Distance-joint chains leave their 0.05 m between the links. bodies and joints hold `links` ids each.
sn_error scene_joint_chain(sn_world* world, sn_joint_type type, int links, sn_body_id* bodies, sn_joint_id* joints);
// The length a distance joint of the chain keeps (0.05 m; 0 for the other types).
double scene_joint_chain_gap(sn_joint_type type);

// ---- limits ----------------------------------------------------------------------------------------------

// The pendulum's bob (inertia of a 5 cm sphere) on a hinge limited to [-0.5, 0.5] rad, released at 0:
// it falls onto the upper limit.
sn_error scene_hinge_limit(sn_world* world, sn_body_id* bob, sn_joint_id* hinge);
// A 3 kg body on a vertical prismatic joint (x up) at the origin, limited to [-0.2, 1] m: it falls onto
// its lower limit.
sn_error scene_prismatic_limit(sn_world* world, sn_body_id* body, sn_joint_id* slider);
// A ball-joint pendulum (1 kg bob at (1, 0, 0), pivot at the origin) thrown sideways at 1.5 m/s inside a
// swing cone of half-angles y_angle and z_angle (rad).
sn_error scene_cone_limit(sn_world* world, double y_angle, double z_angle, sn_body_id* bob, sn_joint_id* ball);
// A ball joint (1 kg, a 10 cm sphere's inertia, at (1, 0, 0), pivot at the origin) with a twist limit
// of [-0.2, 0.2] rad; twist it with SCENE_TWIST_TORQUE about x every step, in a world without gravity.
#define SCENE_TWIST_TORQUE 2.0
sn_error scene_twist_limit(sn_world* world, sn_body_id* bob, sn_joint_id* ball);
// A 1 kg body hanging at (0, 0, -1) from the world by a distance joint of length 1 m made soft (a spring
// of 20 N/m, 1 N*s/m: its static stretch m g / k = 0.49 m) with a maximum length of 1.2 m: the limit
// must stop it.
sn_error scene_distance_limit(sn_world* world, sn_body_id* body, sn_joint_id* rod);

// ---- motors, loads, breaking -------------------------------------------------------------------------

// A wheel (2 kg, inertia 0.1 kg*m^2 about every axis) at the origin on a hinge about y driven by its
// motor at `speed` rad/s with at most `max_torque` N*m. Use a world without gravity.
sn_error scene_motor_wheel(sn_world* world, double speed, double max_torque, sn_body_id* wheel, sn_joint_id* hinge);
// The same wheel (1 kg) on a six-axis joint whose RX is free and motorised: the generic rows' motor.
sn_error scene_six_axis_motor_wheel(sn_world* world, double speed, double max_torque, sn_body_id* wheel,
									sn_joint_id* joint);
// A 2 kg body at rest 0.3 m below the world anchor of a scene_joint of `type` (a distance joint of
// 0.3 m for SN_JOINT_DISTANCE).
sn_error scene_hanging_body(sn_world* world, sn_joint_type type, sn_body_id* body, sn_joint_id* joint);
// A 1 kg bar (1 x 0.1 x 0.1 m) held horizontally by a fixed joint at the world, its centre 0.5 m along +x
// from the anchor.
sn_error scene_cantilever(sn_world* world, sn_body_id* bar, sn_joint_id* weld);
// A 2 kg body held 0.3 m below the world by a fixed joint that breaks above break_force N.
sn_error scene_hook(sn_world* world, double break_force, sn_body_id* body, sn_joint_id* weld);

#ifdef __cplusplus
}
#endif

#endif
