// Hanging chain benchmark (issue 2): N hinge-jointed boxes released horizontally, dt = 1 ms, 5 s of
// simulated time, for N = 10, 50, 200 in each maximal-coordinate solver. Prints a table and one BENCH
// line per run: steps per second, nanoseconds per joint per step, and the largest joint position error
// at the end (distance between a joint's two anchors).
#include "scenes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(void)
{
	fprintf(stderr, "usage: bench_chain [--seconds S] [--n N]... [--solver pgs|tgs]...\n"
					"  Simulates S seconds (default 5) of each chain and prints BENCH lines.\n");
}

int main(int argc, char** argv)
{
	double seconds = 5.0;
	int sizes[8] = { 10, 50, 200 };
	int size_count = 3, user_sizes = 0;
	sn_solver solvers[SN_SOLVER_COUNT] = { SN_SOLVER_PGS, SN_SOLVER_TGS };
	int solver_count = 2, user_solvers = 0;
	for (int i = 1; i < argc; ++i)
	{
		if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc)
		{
			seconds = atof(argv[++i]);
		}
		else if (strcmp(argv[i], "--n") == 0 && i + 1 < argc && user_sizes < 8)
		{
			sizes[user_sizes++] = atoi(argv[++i]);
			size_count = user_sizes;
		}
		else if (strcmp(argv[i], "--solver") == 0 && i + 1 < argc && user_solvers < SN_SOLVER_COUNT)
		{
			const char* name = argv[++i];
			int found = -1;
			for (int s = 0; s < SN_SOLVER_COUNT; ++s)
			{
				if (strcmp(name, sn_solver_name((sn_solver)s)) == 0)
				{
					found = s;
				}
			}
			if (found < 0)
			{
				usage();
				return 2;
			}
			solvers[user_solvers++] = (sn_solver)found;
			solver_count = user_solvers;
		}
		else
		{
			usage();
			return 2;
		}
	}
	const double dt = 0.001;
	int steps = (int)(seconds / dt + 0.5);
	printf("# hanging chain, maximal coordinates, dt = %g s, %d steps, default iterations (8 position, 1 velocity)\n",
		   dt, steps);
	printf("# %-7s %5s %12s %18s %20s\n", "solver", "n", "steps/s", "ns/joint/step", "max joint error (m)");
	for (int si = 0; si < solver_count; ++si)
	{
		for (int ni = 0; ni < size_count; ++ni)
		{
			int n = sizes[ni];
			chain_scene scene;
			if (chain_scene_create(&scene, n, solvers[si], dt, 8, 1) != 0)
			{
				fprintf(stderr, "could not build the scene\n");
				return 1;
			}
			int done = 0;
			double t0 = bench_now();
			for (; done < steps; ++done)
			{
				if (sn_world_step(scene.world) != SN_ERR_OK)
				{
					break;
				}
			}
			double elapsed = bench_now() - t0;
			double err = chain_scene_max_joint_error(&scene);
			double sps = done / elapsed;
			double ns = 1e9 * elapsed / ((double)done * n);
			const char* name = sn_solver_name(solvers[si]);
			printf("  %-7s %5d %12.1f %18.1f %20.3e%s\n", name, n, sps, ns, err,
				   done < steps ? "  (diverged)" : "");
			printf("BENCH scene=chain coords=maximal solver=%s n=%d dt_s=%g steps=%d steps_per_s=%.1f "
				   "ns_per_joint_step=%.1f max_joint_error_m=%.3e diverged=%d\n",
				   name, n, dt, done, sps, ns, err, done < steps);
			fflush(stdout);
			chain_scene_destroy(&scene);
		}
	}
	return 0;
}
