// The contact scenes in Sinew (issue 13): C1..C8 of shared/bench/contact-scenes.md and the gripper, in each
// solver (PGS, TGS, XPBD, DIRECT) at its default settings, C5, C6 and C7 at 1/240 s and 1 ms, C8 as
// articulations (coords=reduced) and as maximal bodies with hinges (coords=maximal). The scenes are built,
// stepped and measured by the scene library's runners (scenes/contact_runs.h), which the tests and the
// conformance matrix share; bench/peers/bench_peers.c measures the same scenes in MuJoCo, Bullet and ODE,
// and bench/peers/contacts_table.py sets the two side by side (bash scripts/bench.sh contacts).
//
// One BENCH line per case and solver, with the keys of bench_peers (its header describes each figure):
//   bench=contacts engine=sinew solver=pgs|tgs|xpbd|direct scene=C1..C8|C2a|C2b|gripper coords=maximal|reduced
//   dt_s supported=1 steps runs steps_per_s (median of --runs runs, timing only the step calls, collision
//   detection included) and the scene's figures, then diverged=0|1 warnings (none, or the error a step
//   returned). Numbers are printed with %.17g; steps_per_s is a median of timings on a shared machine
//   (rough to +-30%). Runs alternate the solvers (run 1 of each, then run 2 of each, ...) so that they
//   meet the same load; the figures come from the first run (every solver is deterministic: the runs agree).
//   A first run whose step calls pass --max-run-s stops there and is the only timed run; its line says
//   truncated_at_s and its figures are those of the state reached.
#include "contact_cases.h"
#include "scenes/scenes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum
{
	MAX_RUNS = 9,
	LINE = 1024,
};

typedef struct options
{
	bool scene[CONTACT_SCENE_COUNT];
	bool solver[SN_SOLVER_COUNT];
	int runs;
	double max_run_s;
} options;

// ---- one run --------------------------------------------------------------------------------------------

// A case's figures: for the BENCH line (%.17g) and for the table (4 digits).
typedef struct figures
{
	char bench[LINE];
	char human[LINE];
} figures;

static void put(figures* f, const char* key, double value)
{
	size_t n = strlen(f->bench), m = strlen(f->human);
	snprintf(f->bench + n, LINE - n, " %s=%.17g", key, value);
	snprintf(f->human + m, LINE - m, " %s=%.4g", key, value);
}

static void put_int(figures* f, const char* key, long value)
{
	size_t n = strlen(f->bench), m = strlen(f->human);
	snprintf(f->bench + n, LINE - n, " %s=%ld", key, value);
	snprintf(f->human + m, LINE - m, " %s=%ld", key, value);
}

typedef struct outcome
{
	double seconds[MAX_RUNS]; // in the step calls
	int steps[MAX_RUNS];
	int runs;       // timed runs done
	bool truncated; // the first run stopped at max_run_s (and is the only one)
	bool failed;    // the scene could not be built (no figures)
	figures figures;
	char warnings[96];
} outcome;

// Run the case once; on the first run, write its figures.
static const scene_run_info* run_case(const contact_case* c, sn_solver solver, const options* o, int run, figures* fig)
{
	static scene_c1_result c1;
	static scene_c2_result c2;
	static scene_c3_result c3;
	static scene_c4_result c4;
	static scene_stack_result stack;
	static scene_c7_result c7;
	static scene_c8_result c8;
	static scene_gripper_result gripper;
	scene_run_options ro = scene_run_options_make(solver, c->dt);
	ro.max_step_seconds = run == 0 ? o->max_run_s : 0.0;
	const scene_run_info* info = NULL;
	fig->bench[0] = fig->human[0] = '\0';
	switch (c->scene)
	{
		case CONTACT_C1:
			scene_run_c1(&ro, &c1);
			info = &c1.run;
			put(fig, "contact_force_z_N", c1.contact_force_z_N);
			put(fig, "contact_force_z_mean_N", c1.contact_force_z_mean_N);
			put(fig, "weight_N", c1.weight_N);
			put(fig, "penetration_end_m", c1.penetration_end_m);
			put(fig, "kinetic_energy_end_J", c1.kinetic_energy_end_J);
			break;
		case CONTACT_C2A:
			scene_run_c2(&ro, SCENE_C2A_FRICTION, &c2);
			info = &c2.run;
			put(fig, "slope_displacement_m", c2.slope_displacement_m);
			break;
		case CONTACT_C2B:
			scene_run_c2(&ro, SCENE_C2B_FRICTION, &c2);
			info = &c2.run;
			put(fig, "slope_accel_mps2", c2.slope_accel_mps2);
			put(fig, "exact_mps2", c2.exact_mps2);
			put(fig, "accel_err_rel", c2.accel_err_rel);
			break;
		case CONTACT_C3:
			scene_run_c3(&ro, &c3);
			info = &c3.run;
			put(fig, "apex_m", c3.apex_m);
			put(fig, "exact_m", c3.exact_m);
			put(fig, "apex_err_rel", c3.apex_err_rel);
			break;
		case CONTACT_C4:
			scene_run_c4(&ro, &c4);
			info = &c4.run;
			put(fig, "roll_accel_mps2", c4.roll_accel_mps2);
			put(fig, "exact_mps2", c4.exact_mps2);
			put(fig, "accel_err_rel", c4.accel_err_rel);
			put(fig, "slip_max_mps", c4.slip_max_mps);
			break;
		case CONTACT_C5:
		case CONTACT_C6:
			if (c->scene == CONTACT_C5)
			{
				scene_run_c5(&ro, &stack);
				put(fig, "top_drift_m", stack.top_drift_m);
			}
			else
			{
				scene_run_c6(&ro, &stack);
				put(fig, "displacement_max_m", stack.displacement_max_m);
				put_int(fig, "stable", stack.stable ? 1 : 0);
			}
			info = &stack.run;
			put(fig, "top_sink_m", stack.top_sink_m);
			put(fig, "penetration_max_m", stack.run.penetration_max);
			put(fig, "contacts_per_step", stack.run.contacts_per_step);
			break;
		case CONTACT_C7:
			scene_run_c7(&ro, &c7);
			info = &c7.run;
			put_int(fig, "contacts_end", c7.run.contacts_end);
			put(fig, "contacts_per_step", c7.run.contacts_per_step);
			put(fig, "penetration_max_m", c7.run.penetration_max);
			put(fig, "kinetic_energy_end_J", c7.kinetic_energy_end_J);
			put_int(fig, "escaped", c7.escaped);
			break;
		case CONTACT_C8:
			scene_run_c8(&ro, c->reduced, &c8);
			info = &c8.run;
			put(fig, "contacts_per_step", c8.run.contacts_per_step);
			put(fig, "penetration_max_m", c8.run.penetration_max);
			put(fig, "lowest_link_z_m", c8.lowest_link_z_m);
			break;
		case CONTACT_GRIPPER:
			scene_run_gripper(&ro, &gripper);
			info = &gripper.run;
			put(fig, "lift_m", gripper.lift_m);
			put(fig, "slip_m", gripper.slip_m);
			put(fig, "effort_before_N", gripper.effort_before_N);
			put(fig, "effort_hold_N", gripper.effort_hold_N);
			put(fig, "effort_rise_N", gripper.effort_rise_N);
			put(fig, "effort_expected_N", gripper.effort_expected_N);
			put_int(fig, "held", gripper.held ? 1 : 0);
			put(fig, "rise_end_m", gripper.rise_end_m);
			put(fig, "effort_unloaded_N", gripper.effort_unloaded_N);
			put(fig, "effort_load_N", gripper.effort_load_N);
			break;
		default:
			break;
	}
	put_int(fig, "diverged", info->diverged ? 1 : 0);
	return info;
}

static void run_once(const contact_case* c, sn_solver solver, const options* o, int run, outcome* out)
{
	figures f;
	const scene_run_info* info = run_case(c, solver, o, run, &f);
	out->seconds[run] = info->step_seconds;
	out->steps[run] = info->steps;
	out->runs = run + 1;
	if (run == 0)
	{
		out->truncated = info->truncated;
		out->failed = info->steps == 0 && info->error != SN_ERR_OK;
		out->figures = f;
		if (info->error == SN_ERR_OK)
		{
			snprintf(out->warnings, sizeof(out->warnings), "none");
		}
		else
		{
			snprintf(out->warnings, sizeof(out->warnings), "step_error_%s_at_step_%d", sn_error_name(info->error),
					 info->steps + 1);
		}
	}
}

static int compare_doubles(const void* a, const void* b)
{
	double x = *(const double*)a, y = *(const double*)b;
	return (x > y) - (x < y);
}

static double median_steps_per_s(const outcome* out)
{
	double rates[MAX_RUNS];
	for (int r = 0; r < out->runs; ++r)
	{
		rates[r] = out->steps[r] / fmax(out->seconds[r], 1e-12);
	}
	qsort(rates, (size_t)out->runs, sizeof(rates[0]), compare_doubles);
	int n = out->runs;
	return n % 2 == 1 ? rates[n / 2] : 0.5 * (rates[n / 2 - 1] + rates[n / 2]);
}

// ---- options ----------------------------------------------------------------------------------------------

static void usage(void)
{
	fprintf(stderr,
			"usage: bench_contacts [--scene NAME]... [--solver pgs|tgs|xpbd|direct]... [--runs N] [--max-run-s S]\n"
			"                      [--quick]\n"
			"  NAME: C1 C2a C2b C3 C4 C5 C6 C7 C8 gripper (default: all)\n"
			"  --runs N       timed runs per case, steps/s is their median (default 3, at most %d)\n"
			"  --max-run-s S  stop a run after S s in the step calls, report the figures of the state reached and\n"
			"                 the steps/s of the steps done, and time no further runs of that case (default 30;\n"
			"                 0: run every scene to its end); the line then says truncated_at_s\n"
			"  --quick        one run per case (--runs 1): the same figures, steps/s from a single run\n",
			MAX_RUNS);
}

static bool parse(int argc, char** argv, options* o)
{
	memset(o, 0, sizeof(*o));
	o->runs = 3;
	o->max_run_s = 30.0;
	bool any_scene = false, any_solver = false;
	for (int i = 1; i < argc; ++i)
	{
		const char* a = argv[i];
		const char* v = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(a, "--scene") == 0 && v != NULL)
		{
			int found = -1;
			for (int s = 0; s < CONTACT_SCENE_COUNT; ++s)
			{
				found = strcmp(v, contact_scene_names[s]) == 0 ? s : found;
			}
			if (found < 0)
			{
				fprintf(stderr, "bench_contacts: unknown scene '%s'\n", v);
				return false;
			}
			o->scene[found] = any_scene = true;
			++i;
		}
		else if (strcmp(a, "--solver") == 0 && v != NULL)
		{
			int found = -1;
			for (int s = 0; s < SN_SOLVER_COUNT; ++s)
			{
				found = strcmp(v, sn_solver_name((sn_solver)s)) == 0 ? s : found;
			}
			if (found < 0)
			{
				fprintf(stderr, "bench_contacts: unknown solver '%s'\n", v);
				return false;
			}
			o->solver[found] = any_solver = true;
			++i;
		}
		else if (strcmp(a, "--runs") == 0 && v != NULL)
		{
			char* end = NULL;
			o->runs = (int)strtol(v, &end, 10);
			if (end == v || *end != '\0')
			{
				return false;
			}
			++i;
		}
		else if (strcmp(a, "--max-run-s") == 0 && v != NULL)
		{
			char* end = NULL;
			o->max_run_s = strtod(v, &end);
			if (end == v || *end != '\0')
			{
				return false;
			}
			++i;
		}
		else if (strcmp(a, "--quick") == 0)
		{
			o->runs = 1;
		}
		else
		{
			return false;
		}
	}
	if (o->runs < 1 || o->runs > MAX_RUNS || !(o->max_run_s >= 0.0) || !isfinite(o->max_run_s))
	{
		return false;
	}
	for (int s = 0; s < CONTACT_SCENE_COUNT && !any_scene; ++s)
	{
		o->scene[s] = true;
	}
	for (int s = 0; s < SN_SOLVER_COUNT && !any_solver; ++s)
	{
		o->solver[s] = true;
	}
	return true;
}

int main(int argc, char** argv)
{
	options o;
	if (!parse(argc, argv, &o))
	{
		usage();
		return 2;
	}
	printf("# contact scenes in Sinew, this machine, one core; steps/s is the median of %d runs (timings on a shared "
		   "machine are rough)\n",
		   o.runs);
	printf("# every solver at its defaults (sn_default_world_def): 8 position and 1 velocity iterations, erp 0.2, "
		   "contact slop 0.0005 m\n");
	printf("# %-8s %-9s %-8s %-7s %12s  %s\n", "scene", "dt_s", "coords", "solver", "steps/s", "figures");
	fflush(stdout);
	static outcome results[SN_SOLVER_COUNT];
	for (int id = 0; id < CONTACT_SCENE_COUNT; ++id)
	{
		if (!o.scene[id])
		{
			continue;
		}
		contact_case cases[CONTACT_MAX_CASES];
		int case_count = contact_scene_cases((contact_scene)id, cases);
		for (int c = 0; c < case_count; ++c)
		{
			memset(results, 0, sizeof(results));
			for (int run = 0; run < o.runs; ++run)
			{
				for (int s = 0; s < SN_SOLVER_COUNT; ++s)
				{
					const outcome* r = results + s;
					if (o.solver[s] && (run == 0 || (!r->failed && !r->truncated)))
					{
						run_once(cases + c, (sn_solver)s, &o, run, results + s);
					}
				}
			}
			const char* coords = cases[c].reduced ? "reduced" : "maximal";
			for (int s = 0; s < SN_SOLVER_COUNT; ++s)
			{
				if (!o.solver[s])
				{
					continue;
				}
				const outcome* r = results + s;
				const char* solver = sn_solver_name((sn_solver)s);
				char head[256];
				snprintf(head, sizeof(head), "bench=contacts engine=sinew solver=%s scene=%s coords=%s dt_s=%.17g",
						 solver, contact_scene_names[id], coords, cases[c].dt);
				if (r->failed)
				{
					printf("# %-8s %-9.6g %-8s %-7s %12s  cannot: %s\n", contact_scene_names[id], cases[c].dt, coords,
						   solver, "-", r->warnings);
					printf("BENCH %s supported=0 reason=%s\n", head, r->warnings);
					continue;
				}
				double rate = median_steps_per_s(r);
				char tail[96] = "";
				if (r->truncated)
				{
					snprintf(tail, sizeof(tail), " truncated_at_s=%.17g", r->steps[0] * cases[c].dt);
				}
				printf("# %-8s %-9.6g %-8s %-7s %12.1f %s%s\n", contact_scene_names[id], cases[c].dt, coords, solver,
					   rate, r->figures.human, tail);
				printf("BENCH %s supported=1 steps=%d runs=%d steps_per_s=%.17g%s%s warnings=%s\n", head, r->steps[0],
					   r->runs, rate, r->figures.bench, tail, r->warnings);
				fflush(stdout);
			}
		}
	}
	return 0;
}
