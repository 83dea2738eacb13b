// Solver benchmark (issues 2 and 4): the hanging chain of N hinge-jointed boxes (released horizontally,
// dt = 1 ms) for N = 10, 50, 200, and a 20 x 20 sheet of plates joined by hinges in closed loops, each in
// every maximal-coordinate solver (PGS, TGS, XPBD, DIRECT) at its default settings. Prints a table and
// one BENCH line per run: steps per second, nanoseconds per joint per step, the joint position error at
// the end (largest distance between a joint's two anchors), and the largest anchor gap and hinge-axis
// misalignment seen during the run (sampled every 10 ms of simulated time; sampling is not timed).
// Ends with the 200-link chain's figures side by side.
#include "clock.h"

#include "scenes/scenes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum
{
	MAX_SIZES = 8,
	SAMPLE_STEPS = 10
};

typedef struct run_result
{
	int steps;
	double steps_per_s;
	double ns_per_joint_step;
	double end_error_m;    // largest anchor gap at the end
	double worst_error_m;  // largest anchor gap seen
	double worst_axis_rad; // largest hinge-axis misalignment seen
	bool diverged;
} run_result;

static void usage(void)
{
	fprintf(stderr,
			"usage: bench_chain [--seconds S] [--grid-seconds S] [--n N]... [--grid SIDE] "
			"[--solver pgs|tgs|xpbd|direct]... [--warm-start F]\n"
			"  Chains of N links (default 10, 50, 200) for S seconds (default 5), a SIDE x SIDE sheet\n"
			"  (default 20, 0 for none) for its own seconds (default 1), in each solver (default all).\n"
			"  --warm-start F sets every world's warm start (default 1); the sheet also runs in TGS at 0.9,\n"
			"  which its closed loops need (sn_world_def.warm_start).\n");
}

// Step for `seconds`, timing only the steps; sample the joints' errors every SAMPLE_STEPS steps.
static run_result run(sn_world* world, const sn_joint_id* joints, int joint_count, double dt, double seconds)
{
	run_result r;
	memset(&r, 0, sizeof(r));
	int steps = (int)(seconds / dt + 0.5);
	double elapsed = 0.0;
	while (r.steps < steps && !r.diverged)
	{
		int chunk = steps - r.steps < SAMPLE_STEPS ? steps - r.steps : SAMPLE_STEPS;
		double t0 = bench_now();
		for (int i = 0; i < chunk; ++i)
		{
			if (sn_world_step(world) != SN_ERR_OK)
			{
				r.diverged = true;
				break;
			}
			r.steps += 1;
		}
		elapsed += bench_now() - t0;
		if (r.diverged)
		{
			break;
		}
		double gap = scene_joints_max_anchor_gap(world, joints, joint_count);
		double axis = scene_joints_max_axis_error(world, joints, joint_count);
		r.worst_error_m = gap > r.worst_error_m ? gap : r.worst_error_m;
		r.worst_axis_rad = axis > r.worst_axis_rad ? axis : r.worst_axis_rad;
	}
	r.end_error_m = scene_joints_max_anchor_gap(world, joints, joint_count);
	r.steps_per_s = r.steps / elapsed;
	r.ns_per_joint_step = 1e9 * elapsed / ((double)r.steps * joint_count);
	return r;
}

static void print_run(const char* scene, sn_solver solver, int n, int joints, double dt, const run_result* r,
					  sn_world* world)
{
	const char* name = sn_solver_name(solver);
	printf("  %-7s %-9s %5d %6d %11.1f %14.1f %13.3e %13.3e %12.3e%s\n", name, scene, n, joints, r->steps_per_s,
		   r->ns_per_joint_step, r->end_error_m, r->worst_error_m, r->worst_axis_rad,
		   r->diverged ? "  (diverged)" : "");
	printf("BENCH scene=%s coords=maximal solver=%s n=%d joints=%d dt_s=%g steps=%d steps_per_s=%.1f "
		   "ns_per_joint_step=%.1f max_joint_error_m=%.3e worst_joint_error_m=%.3e worst_axis_error_rad=%.3e "
		   "diverged=%d",
		   scene, name, n, joints, dt, r->steps, r->steps_per_s, r->ns_per_joint_step, r->end_error_m, r->worst_error_m,
		   r->worst_axis_rad, r->diverged);
	printf(" warm_start=%g", sn_world_get_warm_start(world));
	if (solver == SN_SOLVER_DIRECT)
	{
		sn_solver_stats st = sn_world_get_solver_stats(world);
		printf(" graph_edges=%d factor_blocks=%d dependent_rows=%d", st.direct_graph_edges, st.direct_factor_blocks,
			   st.direct_dependent_rows);
	}
	printf("\n");
	fflush(stdout);
}

// A world for the scenes with this solver and step, 8 position iterations and 1 velocity iteration.
static sn_error create_world(sn_solver solver, double dt, sn_world** world)
{
	sn_world_def wd = scene_world_def(solver, dt);
	wd.position_iterations = 8;
	wd.velocity_iterations = 1;
	return sn_world_create(&wd, world);
}

static int parse_solver(const char* name, sn_solver* out)
{
	for (int s = 0; s < SN_SOLVER_COUNT; ++s)
	{
		if (strcmp(name, sn_solver_name((sn_solver)s)) == 0)
		{
			*out = (sn_solver)s;
			return 0;
		}
	}
	return -1;
}

int main(int argc, char** argv)
{
	double seconds = 5.0, grid_seconds = 1.0, warm_start = 1.0;
	int sizes[MAX_SIZES] = { 10, 50, 200 };
	int size_count = 3, user_sizes = 0, grid = 20;
	sn_solver solvers[SN_SOLVER_COUNT] = { SN_SOLVER_PGS, SN_SOLVER_TGS, SN_SOLVER_XPBD, SN_SOLVER_DIRECT };
	int solver_count = 4, user_solvers = 0;
	for (int i = 1; i < argc; ++i)
	{
		if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc)
		{
			seconds = atof(argv[++i]);
		}
		else if (strcmp(argv[i], "--warm-start") == 0 && i + 1 < argc)
		{
			warm_start = atof(argv[++i]);
		}
		else if (strcmp(argv[i], "--grid-seconds") == 0 && i + 1 < argc)
		{
			grid_seconds = atof(argv[++i]);
		}
		else if (strcmp(argv[i], "--n") == 0 && i + 1 < argc && user_sizes < MAX_SIZES)
		{
			sizes[user_sizes++] = atoi(argv[++i]);
			size_count = user_sizes;
		}
		else if (strcmp(argv[i], "--grid") == 0 && i + 1 < argc)
		{
			grid = atoi(argv[++i]);
		}
		else if (strcmp(argv[i], "--solver") == 0 && i + 1 < argc && user_solvers < SN_SOLVER_COUNT)
		{
			if (parse_solver(argv[++i], solvers + user_solvers) != 0)
			{
				usage();
				return 2;
			}
			solver_count = ++user_solvers;
		}
		else
		{
			usage();
			return 2;
		}
	}
	if (!(seconds > 0.0 && seconds < 3600.0 && grid_seconds > 0.0 && grid_seconds < 3600.0) || grid < 0 || grid > 100)
	{
		usage();
		return 2;
	}
	for (int i = 0; i < size_count; ++i)
	{
		if (sizes[i] < 1 || sizes[i] > 100000)
		{
			usage();
			return 2;
		}
	}
	const double dt = 0.001;
	printf("# maximal coordinates, dt = %g s, default settings (8 position iterations, 1 velocity)\n", dt);
	printf("# chains: %g s of simulated time; %dx%d sheet: %g s\n", seconds, grid, grid, grid_seconds);
	printf("# %-7s %-9s %5s %6s %11s %14s %13s %13s %12s\n", "solver", "scene", "n", "joints", "steps/s",
		   "ns/joint/step", "end error m", "worst gap m", "worst axis rad");
	run_result chain200[SN_SOLVER_COUNT];
	bool have200[SN_SOLVER_COUNT] = { false };
	for (int si = 0; si < solver_count; ++si)
	{
		sn_solver solver = solvers[si];
		for (int ni = 0; ni < size_count; ++ni)
		{
			int n = sizes[ni];
			sn_world* world = NULL;
			sn_body_id* bodies = calloc((size_t)n, sizeof(sn_body_id));
			sn_joint_id* joints = calloc((size_t)n, sizeof(sn_joint_id));
			if (bodies == NULL || joints == NULL || create_world(solver, dt, &world) != SN_ERR_OK ||
				scene_hinge_chain(world, n, bodies, joints) != SN_ERR_OK ||
				sn_world_set_warm_start(world, warm_start) != SN_ERR_OK)
			{
				fprintf(stderr, "could not build the chain\n");
				return 1;
			}
			run_result r = run(world, joints, n, dt, seconds);
			print_run("chain", solver, n, n, dt, &r, world);
			if (n == 200)
			{
				chain200[si] = r;
				have200[si] = true;
			}
			sn_world_destroy(world);
			free(bodies);
			free(joints);
		}
		// The sheet in TGS runs a second time at warm start 0.9, which its closed loops need.
		double grid_warm[2] = { warm_start, 0.9 };
		int grid_runs = solver == SN_SOLVER_TGS && warm_start != 0.9 ? 2 : 1;
		for (int g = 0; grid > 0 && g < grid_runs; ++g)
		{
			int joint_count = scene_sheet_joint_count(grid, grid);
			sn_world* world = NULL;
			sn_body_id* bodies = calloc((size_t)(grid * grid), sizeof(sn_body_id));
			sn_joint_id* joints = calloc((size_t)joint_count, sizeof(sn_joint_id));
			if (bodies == NULL || joints == NULL || create_world(solver, dt, &world) != SN_ERR_OK ||
				scene_sheet(world, grid, grid, bodies, joints) != SN_ERR_OK ||
				sn_world_set_warm_start(world, grid_warm[g]) != SN_ERR_OK)
			{
				fprintf(stderr, "could not build the grid (warm start must be in [0, 1])\n");
				return 1;
			}
			run_result r = run(world, joints, joint_count, dt, grid_seconds);
			print_run(g == 0 ? "grid" : "grid_w0.9", solver, grid, joint_count, dt, &r, world);
			sn_world_destroy(world);
			free(bodies);
			free(joints);
		}
	}
	bool any200 = false;
	for (int si = 0; si < solver_count; ++si)
	{
		any200 = any200 || have200[si];
	}
	if (any200)
	{
		printf("# 200-link chain after %g s, side by side\n", seconds);
		printf("# %-7s %11s %22s %18s\n", "solver", "steps/s", "end joint error (m)", "worst gap (m)");
	}
	for (int si = 0; si < solver_count; ++si)
	{
		if (have200[si])
		{
			printf("  %-7s %11.1f %22.3e %18.3e\n", sn_solver_name(solvers[si]), chain200[si].steps_per_s,
				   chain200[si].end_error_m, chain200[si].worst_error_m);
		}
	}
	return 0;
}
