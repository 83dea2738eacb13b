// Runs of the contact scenes: each function builds one scene of contacts.h in a world of the given solver
// and time step, steps it for the scene's duration and measures what shared/bench/contact-scenes.md (and
// issue 13, for the gripper and the simple cases) asks to report, so that the tests, the conformance
// matrix and bench_contacts compute every figure once, the same way. The figures and their keys are
// those of the peer engines' runner (bench/peers/bench_peers.c), which measures the same scenes in
// MuJoCo, Bullet and ODE from the same definitions:
//   - a body's position is its centre of mass; velocities are the centre's and the angular velocity;
//   - contacts per step: the contact points of each step (sn_collision_stats.points, speculative ones
//     included), averaged over the steps; penetration: the deepest point at collision-detection time
//     (-sn_collision_stats.deepest), the largest over the run;
//   - the time is that spent in the sn_world_step calls only (collision detection included), by a
//     monotonic clock: building the scene, measuring and setting drive targets are not timed.
// Unlike the builders, runners read a clock (the time is part of what they return). They never assert: a
// build or step that fails ends the run with its error in the result (scene_run_info), figures measured
// on the state reached. Units SI, as in the core.
#ifndef SINEW_SCENES_CONTACT_RUNS_H
#define SINEW_SCENES_CONTACT_RUNS_H

#include "scenes/contacts.h"

#ifdef __cplusplus
extern "C" {
#endif

// How to run a scene.
typedef struct scene_run_options
{
	sn_solver solver;
	double dt;       // s, > 0 (the scene file's: 1 ms, and 1/240 s for C5, C6, C7)
	double duration; // s; 0: the scene's own duration (contact-scenes.md, the gripper's script)
	// Stop once the step calls have taken this long (s; 0: never). The figures are then those of the state
	// reached (scene_run_info.truncated).
	double max_step_seconds;
	// Called after every successful step with the world and the step number (1-based), outside the
	// timed region: a test may look at the world as the run goes (NULL: none). user is passed along.
	void (*observe)(sn_world* world, int step, void* user);
	void* user;
} scene_run_options;

// Solver and time step; the scene's duration, no time limit, no observer.
scene_run_options scene_run_options_make(sn_solver solver, double dt);

// What every run reports.
typedef struct scene_run_info
{
	// SN_ERR_OK, or the first error: of building the scene (nothing stepped, the figures are NAN) or of a
	// step (the run stops there; SN_ERR_DIVERGED when the state stopped being finite).
	sn_error error;
	int steps;                // steps taken
	int steps_planned;        // the duration's steps
	double step_seconds;      // s spent in sn_world_step, summed
	bool truncated;           // stopped at max_step_seconds
	bool diverged;            // a step reported SN_ERR_DIVERGED, or a figure's body state is not finite
	int contacts_end;         // contact points of the last step
	double contacts_per_step; // contact points per step, mean over the steps taken
	double penetration_max;   // m, deepest contact at collision-detection time over the run (>= 0)
} scene_run_info;

// Steps per second of a run (steps / step_seconds; 0 without steps).
double scene_run_steps_per_s(const scene_run_info* info);

// ---- C1: the resting box -----------------------------------------------------------------------------------
typedef struct scene_c1_result
{
	scene_run_info run;
	double contact_force_z_N;      // total contact force on the box along +z, last step
	double contact_force_z_mean_N; // the same, mean over the last 0.1 s
	double weight_N;               // m g
	double penetration_end_m;      // deepest contact of the last step (>= 0)
	double kinetic_energy_end_J;
} scene_c1_result;
void scene_run_c1(const scene_run_options* options, scene_c1_result* out);

// ---- C2: the box on the 30 degree incline ------------------------------------------------------------------
#define SCENE_C2A_FRICTION 0.7 // stays put
#define SCENE_C2B_FRICTION 0.3 // slides at SCENE_C2_SLIDE_ACCEL
typedef struct scene_c2_result
{
	scene_run_info run;
	double friction;
	double slope_displacement_m; // along the downhill direction at the end (exact 0 with mu = 0.7)
	// 2 a2 of the least-squares quadratic fit s(t) = a0 + a1 t + a2 t^2 of the displacement along the slope
	// over t in [0.5, 1.5] s (NAN when the run ended before 1.5 s)
	double slope_accel_mps2;
	double exact_mps2;    // g (sin 30 - mu cos 30), 0 when that is negative (the box stays)
	double accel_err_rel; // (accel - exact) / exact (mu = 0.3; NAN when exact is 0)
} scene_c2_result;
void scene_run_c2(const scene_run_options* options, double friction, scene_c2_result* out);

// ---- C3: the ball bouncing with restitution 0.5 --------------------------------------------------------------
typedef struct scene_c3_result
{
	scene_run_info run;
	double apex_m;       // highest bottom of the ball between its first rebound and its next fall (NAN: none)
	double exact_m;      // e^2 1 m = 0.25
	double apex_err_rel; // (apex - exact) / exact
} scene_c3_result;
void scene_run_c3(const scene_run_options* options, scene_c3_result* out);

// ---- C4: the sphere rolling down the 20 degree incline -------------------------------------------------------
typedef struct scene_c4_result
{
	scene_run_info run;
	double roll_accel_mps2; // (v(1.5) - v(0.5)) / 1 s along the slope
	double exact_mps2;      // (5/7) g sin 20
	double accel_err_rel;
	double slip_max_mps; // largest speed of the sphere's point on the plane, along the plane, after 0.5 s
} scene_c4_result;
void scene_run_c4(const scene_run_options* options, scene_c4_result* out);

// ---- C5 and C6: the stack and the pyramid ---------------------------------------------------------------------
typedef struct scene_stack_result
{
	scene_run_info run;
	double top_drift_m;        // horizontal distance of the top box from its start, at the end
	double top_sink_m;         // how far the top box came down, at the end
	double displacement_max_m; // largest distance of any box from its start, at the end (INFINITY: not finite)
	bool stable;               // displacement_max_m < 0.05 m and every state finite (C6's criterion)
} scene_stack_result;
void scene_run_c5(const scene_run_options* options, scene_stack_result* out);
void scene_run_c6(const scene_run_options* options, scene_stack_result* out);

// ---- C7: the spheres in the open box --------------------------------------------------------------------------
typedef struct scene_c7_result
{
	scene_run_info run;
	double kinetic_energy_end_J; // of all spheres
	// Spheres whose centre is outside the box at the end: beyond a wall's inner face (|x| or |y| > 0.75),
	// below the floor, or not finite (exact 0).
	int escaped;
} scene_c7_result;
void scene_run_c7(const scene_run_options* options, scene_c7_result* out);

// ---- C8: the capsule chains -----------------------------------------------------------------------------------
typedef struct scene_c8_result
{
	scene_run_info run;
	bool articulated;       // as articulations (coords=reduced), or maximal bodies with hinges
	double lowest_link_z_m; // lowest link centre at the end (-INFINITY: not finite)
} scene_c8_result;
void scene_run_c8(const scene_run_options* options, bool articulated, scene_c8_result* out);

// ---- the gripper (contacts.h) -----------------------------------------------------------------------------------
typedef struct scene_gripper_result
{
	scene_run_info run;
	double lift_m;            // the box's rise from its start at the end of the lift (LIFT_END)
	double slip_m;            // how far the box moved relative to the palm over the hold (LIFT_END to the end)
	double effort_before_N;   // the lift drive's force, mean over (0.4, 0.5] s (the box on the ground)
	double effort_hold_N;     // the same, mean over the last second
	double effort_rise_N;     // hold - before
	double effort_expected_N; // the box's weight times the lift's arm (a slider: 1)
	bool held;                // the box ends more than half the lift above its start
	// Beyond bench_peers' figures. Before the lift the fingers already grip the box on the ground, whose
	// static friction may carry part of the palm's weight (a rigid contact holds the palm where its drive
	// had sagged to when the grip closed), so effort_rise_N need not be the box's weight. At rest in the
	// hold the drive carries everything above it: the load the box adds is the hold effort less the
	// gripper's own weight.
	double rise_end_m;        // the box's rise from its start at the end
	double effort_unloaded_N; // (palm + two fingers) g: the lift drive's force at rest holding nothing
	double effort_load_N;     // effort_hold_N - effort_unloaded_N
} scene_gripper_result;
void scene_run_gripper(const scene_run_options* options, scene_gripper_result* out);

// ---- simple cases (issue 13's closed forms) ----------------------------------------------------------------------

// The box sliding on flat ground (scene_sliding_box) from v0 (m/s) with friction mu: the distance it
// slides until it stops, against v0^2 / (2 mu g). The default duration is the stopping time
// v0 / (mu g) plus 0.5 s.
typedef struct scene_sliding_result
{
	scene_run_info run;
	double distance_m; // along +x, at the end
	double exact_m;    // v0^2 / (2 mu g)
	double distance_err_rel;
	double stop_time_s; // first time the box's speed along x fell to 1e-6 m/s or below (NAN: never)
	double speed_end_mps;
} scene_sliding_result;
void scene_run_sliding_box(const scene_run_options* options, double v0, double friction, scene_sliding_result* out);

// A soft contact under a static load: a 1 kg body resting on the plane z = 0, its material compliant
// (sn_soft_compliance(compliance, damping_time); the ground rigid), either a ball of radius 0.1 m (one
// contact point) or a 0.2 m cube (four points: the manifold's stiffness is shared among them). It starts
// touching and settles (default duration 3 s); it must sink by F c, F = m g.
typedef struct scene_soft_result
{
	scene_run_info run;
	double sink_m;     // touching height minus the centre's height, at the end
	double expected_m; // m g c
	double sink_err_rel;
	double speed_end_mps;
} scene_soft_result;
void scene_run_soft_contact(const scene_run_options* options, bool box, double compliance, double damping_time,
							scene_soft_result* out);

#ifdef __cplusplus
}
#endif

#endif
