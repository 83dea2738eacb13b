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

// Monotonic clock, seconds.
double bench_now(void);

#endif
