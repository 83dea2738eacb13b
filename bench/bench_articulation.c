// Articulation benchmarks (issue 3), each on one core:
//   chain   the hanging chain of bench_chain as a reduced-coordinate articulation (N = 10, 50, 200 boxes,
//           0.1 x 0.1 x 0.5 m, 1 kg, root fixed, released horizontally, gravity -z, dt = 1 ms, 5 s), with
//           the velocity terms at the midpoint speeds (the default) and at the start speeds (explicit)
//   arm     the 7-link driven arm (kp = 1e6 N*m/rad, kd = 1e3 N*m*s/rad, targets 0.5 rad) at dt = 1 ms
//           and 1/60 s, 5 s, with the root joint's settled deviation against its exact gravity sag
//   worlds  1000 independent worlds holding one 10-link chain each, stepped 1000 times each,
//           interleaved (world 0 step 1, world 1 step 1, ..., world 0 step 2, ...): each world with its own
//           step scratch (sn_world_step), and all of them with one lent scratch (sn_world_step_with), as
//           the server's workers step them, each asking for the next world's memory first
//           (sn_world_prefetch; --prefetch off: not)
//   capacity  the world of bench_server's real-time capacity (ten thin 0.5 m links, without and with a
//           PD drive on every dof, the server's default world: TGS, 1 ms) in the core alone, without the
//           server: its time per step, and how many such worlds one core could step at 1 kHz if the
//           server cost nothing (an upper bound on what bench_server measures); then 1000 such worlds with
//           their PD drives stepped in turn, 200 steps each, each with its own step scratch and with one lent
//           to all (what a server's worker does)
//   whip    the energy of the midpoint velocity terms on a whip: a 50-link chain of thin 0.1 m links (1 kg
//           boxes 0.1 x 0.02 x 0.02 m, root fixed, TGS) released from eight angles of its root joint below
//           horizontal, 10 s at 0.2 ms and at 1 ms; per start, the largest energy gain over the run as a
//           share of the potential drop to hanging, and the share of steps that took a second pass
// Prints a table and BENCH key=value lines: steps per second, nanoseconds per link per step,
// link-steps per second, the share of steps that took a second pass at their own midpoint
// (second_pass_share), the whip's energy gain as a share of its potential drop (energy_gain_share).
#include "clock.h"

#include "scenes/scenes.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(void)
{
	fprintf(stderr,
			"usage: bench_articulation [--seconds S] [--n N]... [--solver pgs|tgs]... [--worlds W]\n"
			"  [--only chain|arm|worlds|capacity|whip] [--terms midpoint|explicit] [--drives none|pd]\n"
			"  [--scratch own|lent] [--prefetch on|off] [--repeats R]\n"
			"  --repeats: run the chain and capacity scenes exactly R times each (default: until 0.5 s)\n"
			"  --drives: the capacity world without or with its PD drives only (default both)\n"
			"  --scratch: the worlds each with their own step scratch, or one lent to all (default both)\n"
			"  --prefetch: worlds stepped in turn prefetch the next world's memory first (default on)\n");
}

static int solver_from_name(const char* name)
{
	for (int s = 0; s < SN_SOLVER_COUNT; ++s)
	{
		if (strcmp(name, sn_solver_name((sn_solver)s)) == 0)
		{
			return s;
		}
	}
	return -1;
}

// One articulation in its own world.
typedef struct artic_world
{
	sn_world* world;
	sn_articulation_id id;
} artic_world;

// The hanging chain of n links in a world with this solver and step, 8 position iterations and 1
// velocity iteration.
static sn_error create_chain(artic_world* a, int n, sn_solver solver, double dt, bool midpoint)
{
	sn_world_def wd = scene_world_def(solver, dt);
	wd.position_iterations = 8;
	wd.velocity_iterations = 1;
	sn_error err = sn_world_create(&wd, &a->world);
	return err != SN_ERR_OK ? err : scene_artic_chain(a->world, n, midpoint, &a->id);
}

static const char* terms_name(bool midpoint)
{
	return midpoint ? "midpoint" : "explicit";
}

static void bench_chains(double seconds, const int* sizes, int size_count, const sn_solver* solvers, int solver_count,
						 const bool* terms, int term_count)
{
	const double dt = 0.001;
	int steps = (int)(seconds / dt + 0.5);
	printf("# hanging chain, articulation, dt = %g s, %d steps, default iterations (8 position, 1 velocity)\n", dt,
		   steps);
	printf("# second passes: the share of steps whose predicted midpoint missed (artic_midpoint_passes)\n");
	printf("# each run repeated from its start until the runs add up to %g s (at least %d, at most %d): the median\n",
		   BENCH_MIN_WALL_S, BENCH_MIN_REPEATS, BENCH_MAX_REPEATS);
	printf("# %-7s %-9s %5s %12s %16s %18s %16s %14s %8s\n", "solver", "terms", "n", "steps/s", "ns/link/step",
		   "link-steps/s", "energy change J", "second passes", "repeats");
	for (int run = 0; run < term_count * solver_count; ++run)
	{
		int ti = run / solver_count, si = run % solver_count;
		for (int ni = 0; ni < size_count; ++ni)
		{
			int n = sizes[ni];
			// The same run repeated from its start (bench_repeat_more); every repetition steps the same
			// numbers, so the energy and second passes are the last one's.
			double times[BENCH_MAX_REPEATS];
			int repeats = 0, done = 0;
			long second = 0;
			double energy = 0.0;
			do
			{
				artic_world scene;
				if (create_chain(&scene, n, solvers[si], dt, terms[ti]) != SN_ERR_OK)
				{
					fprintf(stderr, "could not build the chain\n");
					exit(1);
				}
				done = 0;
				second = 0;
				double t0 = bench_now();
				for (; done < steps; ++done)
				{
					if (sn_world_step(scene.world) != SN_ERR_OK)
					{
						break;
					}
					second += sn_world_get_solver_stats(scene.world).artic_midpoint_passes;
				}
				times[repeats++] = bench_now() - t0;
				// Potential energy of the boxes (centres at z = 0 at the start) plus kinetic energy.
				energy = sn_articulation_get_kinetic_energy(scene.world, scene.id);
				for (int i = 1; i <= n; ++i)
				{
					energy += 9.81 * sn_articulation_get_link_pose(scene.world, scene.id, i).p.z;
				}
				sn_world_destroy(scene.world);
			} while (done == steps && bench_repeat_more(times, repeats));
			double share = done > 0 ? (double)second / done : 0.0;
			double elapsed = bench_median(times, repeats);
			double sps = done / elapsed;
			double ns = 1e9 * elapsed / ((double)done * n);
			double ns_min = 1e9 * times[0] / ((double)done * n);
			const char* name = sn_solver_name(solvers[si]);
			printf("  %-7s %-9s %5d %12.1f %16.1f %18.4g %16.4g %14.3f %8d%s\n", name, terms_name(terms[ti]), n, sps,
				   ns, sps * n, energy, share, repeats, done < steps ? "  (diverged)" : "");
			printf("BENCH scene=chain coords=reduced solver=%s velocity_terms=%s n=%d dt_s=%g steps=%d repeats=%d "
				   "steps_per_s=%.1f ns_per_link_step=%.1f ns_per_link_step_min=%.1f link_steps_per_s=%.4g "
				   "energy_change_j=%.4g second_pass_share=%.3f diverged=%d\n",
				   name, terms_name(terms[ti]), n, dt, done, repeats, sps, ns, ns_min, sps * n, energy, share,
				   done < steps);
			fflush(stdout);
		}
	}
}

// The whip (file header): the thin chain released at q0 below horizontal, stepped `seconds` at dt.
static void whip_run(double dt, double seconds, double q0, double* gain, double* second, bool* diverged)
{
	enum
	{
		N = 50
	};
	const double length = 0.1, half = 0.5 * length, mass = 1.0, g = SCENE_GRAVITY;
	sn_world_def wd = scene_world_def(SN_SOLVER_TGS, dt);
	sn_world* world = NULL;
	sn_link_def links[N + 1];
	links[0] = sn_default_link_def();
	for (int i = 1; i <= N; ++i)
	{
		sn_link_def* l = links + i;
		*l = sn_default_link_def();
		l->parent = i - 1;
		l->joint_type = SN_LINK_JOINT_REVOLUTE;
		l->mass = mass;
		l->inertia = sn_inertia_box(mass, sn_v3(half, 0.01, 0.01));
		l->parent_frame.p = sn_v3(i == 1 ? 0.0 : half, 0, 0);
		l->parent_frame.q = scene_x_to_y();
		l->child_frame.p = sn_v3(-half, 0, 0);
		l->child_frame.q = scene_x_to_y();
	}
	links[1].initial_position[0] = q0;
	sn_articulation_def ad = sn_default_articulation_def();
	sn_articulation_id id;
	if (sn_world_create(&wd, &world) != SN_ERR_OK || sn_create_articulation(world, &ad, links, N + 1, &id) != SN_ERR_OK)
	{
		fprintf(stderr, "could not build the whip\n");
		exit(1);
	}
	// Energy: kinetic plus the boxes' potential; hanging, box i's centre is (i - 1/2) L below the root.
	double e0 = sn_articulation_get_kinetic_energy(world, id), hanging = 0.0;
	for (int i = 1; i <= N; ++i)
	{
		e0 += mass * g * sn_articulation_get_link_pose(world, id, i).p.z;
		hanging -= mass * g * (i - 0.5) * length;
	}
	const double drop = e0 - hanging;
	const int steps = (int)(seconds / dt + 0.5), every = (int)(0.01 / dt + 0.5);
	long passes = 0;
	*gain = 0.0;
	*diverged = false;
	int done = 0;
	for (; done < steps; ++done)
	{
		if (sn_world_step(world) != SN_ERR_OK)
		{
			*diverged = true;
			break;
		}
		passes += sn_world_get_solver_stats(world).artic_midpoint_passes;
		if ((done + 1) % every == 0)
		{
			double e = sn_articulation_get_kinetic_energy(world, id);
			for (int i = 1; i <= N; ++i)
			{
				e += mass * g * sn_articulation_get_link_pose(world, id, i).p.z;
			}
			*gain = fmax(*gain, (e - e0) / drop);
		}
	}
	*second = done > 0 ? (double)passes / done : 0.0;
	sn_world_destroy(world);
}

static void bench_whip(void)
{
	const double dts[2] = { 0.0002, 0.001 };
	const double angles[8] = { 0.0, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 0.8 };
	printf("# whip: 50 links of 0.1 m, TGS, midpoint terms, 10 s; largest energy gain over the potential drop\n");
	printf("# %-8s %8s %14s %14s\n", "dt (s)", "q0 (rad)", "largest gain", "second passes");
	for (int d = 0; d < 2; ++d)
	{
		double worst = 0.0, best = INFINITY;
		for (int k = 0; k < 8; ++k)
		{
			double gain, second;
			bool diverged;
			whip_run(dts[d], 10.0, angles[k], &gain, &second, &diverged);
			worst = fmax(worst, gain);
			best = fmin(best, gain);
			printf("  %-8g %8.2f %14.4f %14.3f%s\n", dts[d], angles[k], gain, second, diverged ? "  (diverged)" : "");
			printf("BENCH scene=whip links=50 link_m=0.1 dt_s=%g q0_rad=%g seconds=10 energy_gain_share=%.4f "
				   "second_pass_share=%.3f diverged=%d\n",
				   dts[d], angles[k], gain, second, diverged);
			fflush(stdout);
		}
		printf("BENCH scene=whip_range dt_s=%g energy_gain_share_min=%.4f energy_gain_share_max=%.4f\n", dts[d], best,
			   worst);
	}
}

static void bench_arm(double seconds, const sn_solver* solvers, int solver_count)
{
	const double dts[2] = { 0.001, 1.0 / 60.0 };
	double sag = scene_arm_root_sag();
	printf("# driven 7-link arm, %g s, exact root sag %.6e rad\n", seconds, sag);
	printf("# %-7s %9s %12s %16s %20s\n", "solver", "dt (s)", "steps/s", "ns/link/step", "sag error (rel)");
	for (int si = 0; si < solver_count; ++si)
	{
		for (int di = 0; di < 2; ++di)
		{
			double dt = dts[di];
			sn_world_def wd = scene_world_def(solvers[si], dt);
			sn_world* world = NULL;
			sn_articulation_id arm;
			if (sn_world_create(&wd, &world) != SN_ERR_OK || scene_arm(world, &arm) != SN_ERR_OK)
			{
				fprintf(stderr, "could not build the arm\n");
				exit(1);
			}
			int steps = (int)(seconds / dt + 0.5);
			int done = 0;
			double t0 = bench_now();
			for (; done < steps; ++done)
			{
				if (sn_world_step(world) != SN_ERR_OK)
				{
					break;
				}
			}
			double elapsed = bench_now() - t0;
			double dev = sn_articulation_get_joint_position(world, arm, 0) - SCENE_ARM_TARGET;
			double rel = (dev - sag) / sag;
			double sps = done / elapsed;
			double ns = 1e9 * elapsed / ((double)done * SCENE_ARM_LINKS);
			const char* name = sn_solver_name(solvers[si]);
			printf("  %-7s %9.6f %12.1f %16.1f %20.3e%s\n", name, dt, sps, ns, rel, done < steps ? "  (diverged)" : "");
			printf("BENCH scene=arm solver=%s dt_s=%.17g steps=%d steps_per_s=%.1f ns_per_link_step=%.1f "
				   "root_sag_rad=%.6e exact_sag_rad=%.6e sag_rel_error=%.3e diverged=%d\n",
				   name, dt, done, sps, ns, dev, sag, rel, done < steps);
			fflush(stdout);
			sn_world_destroy(world);
		}
	}
}

// Whether a world stepped in turn asks for the next one's memory first (sn_world_prefetch), as the server's
// workers do (--prefetch).
static bool prefetch_next = true;

// Step `worlds` worlds in turn, `steps` rounds, each step with scratch `use` (NULL: the world's own):
// the seconds taken; failed steps are counted into *failed.
static double step_in_turn(artic_world* scenes, int worlds, int steps, sn_step_scratch* use, int* failed)
{
	double t0 = bench_now();
	for (int s = 0; s < steps; ++s)
	{
		for (int w = 0; w < worlds; ++w)
		{
			if (prefetch_next)
			{
				sn_world_prefetch(scenes[(w + 1) % worlds].world);
			}
			*failed += sn_world_step_with(scenes[w].world, use) != SN_ERR_OK;
		}
	}
	return bench_now() - t0;
}

static void destroy_all(artic_world* scenes, int worlds)
{
	for (int w = 0; w < worlds; ++w)
	{
		sn_world_destroy(scenes[w].world);
	}
}

static void bench_worlds(int worlds, int steps, const sn_solver* solvers, int solver_count, const bool* terms,
						 int term_count, const bool* lent, int lent_count)
{
	const int n = 10;
	printf("# %d worlds x one %d-link chain, %d steps each, interleaved, dt = 1 ms\n", worlds, n, steps);
	printf("# %-7s %-9s %-8s %14s %16s %18s\n", "solver", "terms", "scratch", "world-steps/s", "ns/link/step",
		   "link-steps/s");
	artic_world* scenes = calloc((size_t)worlds, sizeof(artic_world));
	sn_step_scratch* scratch = NULL;
	if (scenes == NULL || sn_step_scratch_create(NULL, &scratch) != SN_ERR_OK)
	{
		exit(1);
	}
	for (int run = 0; run < term_count * solver_count * lent_count; ++run)
	{
		int ti = run / (solver_count * lent_count), si = run / lent_count % solver_count;
		sn_step_scratch* use = lent[run % lent_count] ? scratch : NULL;
		const char* scratch_name = use != NULL ? "lent" : "own";
		for (int w = 0; w < worlds; ++w)
		{
			if (create_chain(scenes + w, n, solvers[si], 0.001, terms[ti]) != SN_ERR_OK)
			{
				fprintf(stderr, "could not build world %d\n", w);
				exit(1);
			}
		}
		int failed = 0;
		double elapsed = step_in_turn(scenes, worlds, steps, use, &failed);
		double world_steps = (double)worlds * steps;
		double ns = 1e9 * elapsed / (world_steps * n);
		const char* name = sn_solver_name(solvers[si]);
		printf("  %-7s %-9s %-8s %14.1f %16.1f %18.4g\n", name, terms_name(terms[ti]), scratch_name,
			   world_steps / elapsed, ns, world_steps * n / elapsed);
		printf("BENCH scene=worlds solver=%s velocity_terms=%s scratch=%s prefetch=%s worlds=%d links=%d steps=%d "
			   "world_steps_per_s=%.1f ns_per_link_step=%.1f link_steps_per_s=%.4g failed_steps=%d\n",
			   name, terms_name(terms[ti]), scratch_name, prefetch_next ? "on" : "off", worlds, n, steps,
			   world_steps / elapsed, ns, world_steps * n / elapsed, failed);
		fflush(stdout);
		destroy_all(scenes, worlds);
	}
	free(scenes);
	sn_step_scratch_destroy(scratch);
}

// The articulation bench_server's capacity section builds through the protocol (its build_articulation:
// ten 1 kg links of 0.5 m along x, thin boxes 0.05 m across, revolute joints whose axes alternate between
// y and z; driven: kp 200 N*m/rad, kd 2 N*m*s/rad, target 0.05 rad), in a world of the server's defaults.
static sn_error create_capacity_world(artic_world* a, bool driven)
{
	sn_world_def wd = sn_default_world_def();
	sn_error err = sn_world_create(&wd, &a->world);
	if (err != SN_ERR_OK)
	{
		return err;
	}
	const double link = 0.5, half_width = 0.05, s = sqrt(0.5);
	sn_link_def links[11];
	for (int i = 0; i <= 10; ++i)
	{
		sn_link_def* l = links + i;
		*l = sn_default_link_def();
		l->parent = i - 1;
		l->mass = 1.0;
		double along = (link * link + half_width * half_width) / 12.0, across = 2 * half_width * half_width / 12.0;
		l->inertia = sn_mat33_diag(across, along, along);
		l->center_of_mass = sn_v3(0.5 * link, 0, 0);
		if (i == 0)
		{
			continue;
		}
		l->joint_type = SN_LINK_JOINT_REVOLUTE;
		// x onto y (about z) for odd links, x onto z (about y) for even ones.
		sn_quat axis = i % 2 == 1 ? (sn_quat){ 0, 0, s, s } : (sn_quat){ 0, -s, 0, s };
		l->parent_frame = (sn_transform){ sn_v3(i == 1 ? 0.0 : link, 0, 0), axis };
		l->child_frame.q = axis;
		if (driven)
		{
			l->drive[0] = sn_default_drive();
			l->drive[0].enabled = true;
			l->drive[0].stiffness = 200.0;
			l->drive[0].damping = 2.0;
			l->drive[0].target_position = 0.05;
		}
	}
	sn_articulation_def ad = sn_default_articulation_def();
	return sn_create_articulation(a->world, &ad, links, 11, &a->id);
}

// drives: -1 both, 0 without, 1 with PD drives.
static void bench_capacity(double seconds, int drives)
{
	const double dt = 0.001;
	int steps = (int)(seconds / dt + 0.5);
	printf("# bench_server's capacity world in the core alone, %d steps of 1 ms; worlds per core at 1 kHz if the "
		   "server cost nothing\n",
		   steps);
	printf("# each run repeated from its start until the runs add up to %g s (at least %d, at most %d): the median\n",
		   BENCH_MIN_WALL_S, BENCH_MIN_REPEATS, BENCH_MAX_REPEATS);
	printf("# %-7s %14s %22s %8s\n", "drives", "us/step", "worlds/core at 1 kHz", "repeats");
	for (int driven = 0; driven < 2; ++driven)
	{
		if (drives >= 0 && driven != drives)
		{
			continue;
		}
		double times[BENCH_MAX_REPEATS];
		int repeats = 0, done = 0;
		do
		{
			artic_world scene;
			if (create_capacity_world(&scene, driven != 0) != SN_ERR_OK)
			{
				fprintf(stderr, "could not build the capacity world\n");
				exit(1);
			}
			done = 0;
			double t0 = bench_now();
			for (; done < steps; ++done)
			{
				if (sn_world_step(scene.world) != SN_ERR_OK)
				{
					break;
				}
			}
			times[repeats++] = bench_now() - t0;
			sn_world_destroy(scene.world);
		} while (done == steps && bench_repeat_more(times, repeats));
		double us = 1e6 * bench_median(times, repeats) / done;
		double us_min = 1e6 * times[0] / done;
		// One core has 1000 us per 1 ms tick.
		double per_core = 1000.0 / us;
		printf("  %-7s %14.2f %22.0f %8d%s\n", driven ? "pd" : "none", us, per_core, repeats,
			   done < steps ? "  (diverged)" : "");
		printf("BENCH scene=capacity drives=%s links=10 dt_s=%g steps=%d repeats=%d us_per_step=%.3f "
			   "us_per_step_min=%.3f worlds_per_core_1khz=%.0f diverged=%d\n",
			   driven ? "pd" : "none", dt, done, repeats, us, us_min, per_core, done < steps);
		fflush(stdout);
	}
}

// The capacity world with its PD drives, `worlds` of them stepped in turn (200 steps each), each with its own
// step scratch or all with one lent scratch: the cost of a step among many, as a server's worker pays it.
static void bench_capacity_worlds(int worlds, const bool* lent, int lent_count)
{
	const int steps = 200;
	printf("# %d capacity worlds with PD drives, stepped in turn, %d steps each\n", worlds, steps);
	printf("# %-8s %14s %22s\n", "scratch", "us/step", "worlds/core at 1 kHz");
	artic_world* scenes = calloc((size_t)worlds, sizeof(artic_world));
	sn_step_scratch* scratch = NULL;
	if (scenes == NULL || sn_step_scratch_create(NULL, &scratch) != SN_ERR_OK)
	{
		exit(1);
	}
	for (int run = 0; run < lent_count; ++run)
	{
		sn_step_scratch* use = lent[run] ? scratch : NULL;
		for (int w = 0; w < worlds; ++w)
		{
			if (create_capacity_world(scenes + w, true) != SN_ERR_OK)
			{
				fprintf(stderr, "could not build capacity world %d\n", w);
				exit(1);
			}
		}
		int failed = 0;
		double us = 1e6 * step_in_turn(scenes, worlds, steps, use, &failed) / ((double)worlds * steps);
		const char* name = use != NULL ? "lent" : "own";
		printf("  %-8s %14.3f %22.0f\n", name, us, 1000.0 / us);
		printf("BENCH scene=capacity_worlds drives=pd scratch=%s prefetch=%s worlds=%d links=10 steps=%d "
			   "us_per_step=%.3f worlds_per_core_1khz=%.0f failed_steps=%d\n",
			   name, prefetch_next ? "on" : "off", worlds, steps, us, 1000.0 / us, failed);
		fflush(stdout);
		destroy_all(scenes, worlds);
	}
	free(scenes);
	sn_step_scratch_destroy(scratch);
}

int main(int argc, char** argv)
{
	double seconds = 5.0;
	int sizes[8] = { 10, 50, 200 };
	int size_count = 3, user_sizes = 0;
	sn_solver solvers[SN_SOLVER_COUNT] = { SN_SOLVER_PGS, SN_SOLVER_TGS };
	int solver_count = 2, user_solvers = 0;
	int worlds = 1000, world_steps = 1000;
	const char* only = NULL;
	int drives = -1;
	bool terms[2] = { true, false };
	int term_count = 2;
	bool lent[2] = { false, true };
	int lent_count = 2;
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
			int s = solver_from_name(argv[++i]);
			if (s != SN_SOLVER_PGS && s != SN_SOLVER_TGS)
			{
				usage();
				return 2;
			}
			solvers[user_solvers++] = (sn_solver)s;
			solver_count = user_solvers;
		}
		else if (strcmp(argv[i], "--worlds") == 0 && i + 1 < argc)
		{
			worlds = atoi(argv[++i]);
		}
		else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
		{
			only = argv[++i];
		}
		else if (strcmp(argv[i], "--drives") == 0 && i + 1 < argc)
		{
			const char* d = argv[++i];
			if (strcmp(d, "none") != 0 && strcmp(d, "pd") != 0)
			{
				usage();
				return 2;
			}
			drives = strcmp(d, "pd") == 0;
		}
		else if (strcmp(argv[i], "--scratch") == 0 && i + 1 < argc)
		{
			const char* t = argv[++i];
			if (strcmp(t, "own") != 0 && strcmp(t, "lent") != 0)
			{
				usage();
				return 2;
			}
			lent[0] = strcmp(t, "lent") == 0;
			lent_count = 1;
		}
		else if (strcmp(argv[i], "--prefetch") == 0 && i + 1 < argc)
		{
			const char* t = argv[++i];
			if (strcmp(t, "on") != 0 && strcmp(t, "off") != 0)
			{
				usage();
				return 2;
			}
			prefetch_next = strcmp(t, "on") == 0;
		}
		else if (strcmp(argv[i], "--repeats") == 0 && i + 1 < argc)
		{
			const int r = atoi(argv[++i]);
			if (r < 1 || r > BENCH_MAX_REPEATS)
			{
				usage();
				return 2;
			}
			bench_set_repeats(r);
		}
		else if (strcmp(argv[i], "--terms") == 0 && i + 1 < argc)
		{
			const char* t = argv[++i];
			if (strcmp(t, "midpoint") != 0 && strcmp(t, "explicit") != 0)
			{
				usage();
				return 2;
			}
			terms[0] = strcmp(t, "midpoint") == 0;
			term_count = 1;
		}
		else
		{
			usage();
			return 2;
		}
	}
	if (!(seconds > 0.0) || worlds < 1)
	{
		usage();
		return 2;
	}
	if (only == NULL || strcmp(only, "chain") == 0)
	{
		bench_chains(seconds, sizes, size_count, solvers, solver_count, terms, term_count);
	}
	if (only == NULL || strcmp(only, "arm") == 0)
	{
		bench_arm(seconds, solvers, solver_count);
	}
	if (only == NULL || strcmp(only, "worlds") == 0)
	{
		bench_worlds(worlds, world_steps, solvers, solver_count, terms, term_count, lent, lent_count);
	}
	if (only == NULL || strcmp(only, "whip") == 0)
	{
		bench_whip();
	}
	if (only == NULL || strcmp(only, "capacity") == 0)
	{
		bench_capacity(seconds, drives);
		if (drives != 0)
		{
			bench_capacity_worlds(worlds, lent, lent_count);
		}
	}
	return 0;
}
