// Benchmark scenes shared by the benchmark programs.
#ifndef SINEW_BENCH_SCENES_H
#define SINEW_BENCH_SCENES_H

#include "sinew/sinew.h"

// A hanging chain of n hinge-jointed boxes (0.1 x 0.1 x 0.5 m, 1 kg), the first hinged to the world at
// the origin, laid out horizontally along +x, hinge axes along y, gravity along -z.
typedef struct chain_scene
{
	sn_world* world;
	int n;
	sn_body_id* bodies;
	sn_joint_id* joints;
} chain_scene;

// Build the chain in a new world with the given solver settings. Returns 0 on success.
int chain_scene_create(chain_scene* scene, int n, sn_solver solver, double dt, int position_iterations,
					   int velocity_iterations);
void chain_scene_destroy(chain_scene* scene);
// Largest distance between a joint's two anchors, m.
double chain_scene_max_joint_error(const chain_scene* scene);

// A sheet of side x side plates (0.25 x 0.25 x 0.04 m, 1 kg) in the horizontal x-y plane, each joined by
// a hinge about y to the plate before it along x (the first row to the world at x = 0) and to the plate
// before it along y: side + 2 side (side - 1) hinges, every square of four a closed loop. Released flat,
// it swings down about its pinned edge like one wide chain; its loops repeat constraints (parallel hinge
// axes), which stresses iterative solvers and the direct solver's factorisation (fill-in) alike.
typedef struct grid_scene
{
	sn_world* world;
	int side;
	int joint_count;
	sn_body_id* bodies;
	sn_joint_id* joints;
} grid_scene;

int grid_scene_create(grid_scene* scene, int side, sn_solver solver, double dt, int position_iterations,
					  int velocity_iterations);
void grid_scene_destroy(grid_scene* scene);

// Largest distance between a joint's two anchors over the given joints, m.
double joints_max_anchor_gap(sn_world* world, const sn_joint_id* joints, int count);
// Largest angle between a joint's two frame x axes (the hinge axes), rad.
double joints_max_axis_error(sn_world* world, const sn_joint_id* joints, int count);

// The same chain as an articulation in its own world: link 0 is a fixed base at the origin, links 1..n
// are the boxes, each hinged (axis along y) to the previous one at its end. Returns 0 on success.
typedef struct artic_chain_scene
{
	sn_world* world;
	int n;
	sn_articulation_id chain;
} artic_chain_scene;

// midpoint: sn_articulation_def.midpoint_velocity_terms (true is the default).
int artic_chain_scene_create(artic_chain_scene* scene, int n, sn_solver solver, double dt, int position_iterations,
							 int velocity_iterations, bool midpoint);
void artic_chain_scene_destroy(artic_chain_scene* scene);

// The driven arm of issue 3: seven 0.3 m, 2 kg links laid along +x from a fixed base at the origin,
// hinge axes alternating y, z, y, ... (root about y), each with an implicit drive kp = 1e6 N*m/rad,
// kd = 1e3 N*m*s/rad towards 0.5 rad from 0. Gravity -z. Returns 0 on success.
enum
{
	ARM_LINKS = 7
};
int arm_scene_create(sn_world** out_world, sn_articulation_id* out_arm, sn_solver solver, double dt);
// The root joint's exact static deflection (rad) at the drive targets: the gravity torque about the root
// axis divided by kp, by hand (each link's centre of mass from the joint rotations).
double arm_scene_root_sag(void);

// Monotonic clock, seconds.
double bench_now(void);

#endif
