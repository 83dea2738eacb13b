// The joint scenes of the first solver issue (pendulum, chains of each joint type, limits, motors,
// reactions, breaking), built for any solver so the XPBD and DIRECT tests run the same scenes and
// compare them with closed forms and with PGS/TGS.
#ifndef SINEW_TEST_JOINT_SCENES_H
#define SINEW_TEST_JOINT_SCENES_H

#include "sinew/sinew.h"

// A world with the default settings and this solver and time step (s); asserts on failure.
sn_world* scene_world(sn_solver solver, double dt);

// The 1 m pendulum of test_pendulum.c (point-like 1 kg bob on a hinge, released at 90 degrees).
typedef struct pendulum_run
{
	double first_period; // s, between the first two downward crossings of x = 0
	double energy_min;   // J, relative to the release
	double energy_max;
	double max_arm_error; // m, pivot anchor drift
	double angle_at_1s;   // rad, the arm's angle below the horizontal at t = 1 s
} pendulum_run;
pendulum_run scene_pendulum(sn_solver solver, double dt, double seconds);
// 4 sqrt(L/g) K(sin 45 degrees): the exact period of the 90 degree swing.
double scene_pendulum_exact_period(void);

// A chain of `links` boxes (0.5 x 0.1 x 0.1 m, 1 kg, the last one 5 kg as a load) joined end to end by
// joints of `type`, the first to the world, released horizontally along +x with gravity -z. Hinges turn
// about y; prismatic and cylindrical joints slide along the chain within +-0.05 m; the six-axis joint
// locks X, Y, Z, RX, limits RY to +-1 rad and frees RZ; distance joints keep 0.05 m between link ends.
typedef struct chain_run
{
	double max_linear_error;  // m: the largest locked linear coordinate (distance: length error)
	double max_angular_error; // rad: the largest locked angular coordinate
	double tip_z;             // m, the last link's centre at the end
	bool diverged;
} chain_run;
chain_run scene_chain(sn_solver solver, sn_joint_type type, int links, double dt, double seconds);

// How far a limit is exceeded, at worst over the run (m or rad; <= 0 when it holds).
// Hinge pendulum with a limit [-0.5, 0.5] rad, released at 0 and falling onto the upper limit.
double scene_hinge_limit_excess(sn_solver solver, double dt, double seconds);
// Body on a vertical prismatic joint falling onto its lower limit at -0.2 m.
double scene_prismatic_limit_excess(sn_solver solver, double dt, double seconds);
// Ball-joint pendulum (thrown sideways at 1.5 m/s) inside a swing cone of half-angles (y_angle, z_angle)
// rad: the largest ellipse norm sqrt((s_y/y_angle)^2 + (s_z/z_angle)^2) minus 1 (dimensionless).
double scene_cone_limit_excess(sn_solver solver, double y_angle, double z_angle, double dt, double seconds);
// Ball joint twisted by a 2 N*m torque against a twist limit of [-0.2, 0.2] rad.
double scene_twist_limit_excess(sn_solver solver, double dt, double seconds);
// A soft distance joint (spring) with a maximum length of 1.2 m: a 1 kg body falls onto it.
double scene_distance_limit_excess(sn_solver solver, double dt, double seconds);

// A wheel (inertia 0.1 kg*m^2 about its hinge, no gravity) driven by a hinge motor at `speed` rad/s
// with `max_torque` N*m; returns its spin at `seconds` and the largest reported motor torque about the
// axis.
typedef struct motor_run
{
	double speed;      // rad/s at the end
	double max_torque; // N*m, the largest |torque about the hinge axis| reported
} motor_run;
motor_run scene_hinge_motor(sn_solver solver, double speed, double max_torque, double dt, double seconds);

// A 2 kg body hanging at rest below a joint of `type` (anchor 0.3 m above its centre): the reported
// force on the body after `steps` steps (N).
sn_vec3 scene_hanging_reaction(sn_solver solver, sn_joint_type type, int steps);

// A 1 kg bar held horizontally by a fixed joint at the world, its centre 0.5 m along +x from the anchor:
// the reported force (N) and torque about B's anchor (N*m) after `steps` steps.
void scene_cantilever_reaction(sn_solver solver, int steps, sn_vec3* force, sn_vec3* torque);

// A fixed joint holding 2 kg (19.62 N) with the given break force: the step at which it broke (0 based),
// or -1 if it held for `steps` steps.
int scene_break_step(sn_solver solver, double break_force, int steps);

// A side x side sheet of 0.25 m square plates, each hinged about y to its neighbours in x and in y
// (the first column to the world): closed loops of redundant hinges, as bench_chain's grid. Runs
// `steps` steps of 1 ms and reports the largest anchor gap (m) and swing-lock error (rad).
typedef struct sheet_run
{
	double max_linear_error;
	double max_angular_error;
} sheet_run;
sheet_run scene_sheet(sn_solver solver, int side, double warm_start, int steps);

#endif
