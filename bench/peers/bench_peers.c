// The contact scenes in the peer engines (issue 13): C1..C8 of shared/bench/contact-scenes.md and the
// gripper (scenes.c) in MuJoCo, Bullet and ODE, as Debian 12 ships them, on this machine, so that the Sinew
// figures of bench_contacts sit beside them in the same run (scripts/bench.sh contacts, then
// bench/peers/contacts_table.py prints the ratios).
//
// Each engine runs with its documented defaults for a contact simulation; the settings and the reasons
// are in each engine's file and printed as '#' lines. Where an engine cannot express a scene (MuJoCo has
// no restitution and no maximal joints, ODE no articulations), the BENCH line says supported=0 and why,
// and carries no figure.
//
// What is reported is each scene's row of the scene file, under the keys of BENCH lines that the table
// reads (shared with bench_contacts):
//   every line   bench=contacts engine=mujoco|bullet|ode scene=C1..C8|C2a|C2b|gripper coords=maximal|reduced
//                dt_s steps steps_per_s (median of --runs runs, timing only the step calls, collision
//                detection included) runs diverged=0|1 warnings
//   C1           contact_force_z_N (on the box, last step) contact_force_z_mean_N (over the last 0.1 s)
//                weight_N penetration_end_m kinetic_energy_end_J
//   C2a          slope_displacement_m (along the downhill direction after 2 s; exact 0)
//   C2b          slope_accel_mps2 (2 a2 of the least-squares quadratic fit of the displacement along the
//                slope over t in [0.5, 1.5] s) exact_mps2 accel_err_rel
//   C3           apex_m (highest bottom of the sphere between its first rebound and its next fall)
//                exact_m (e^2 1 m) apex_err_rel
//   C4           roll_accel_mps2 ((v(1.5) - v(0.5)) / 1 s along the slope) exact_mps2 accel_err_rel
//                slip_max_mps (largest speed of the sphere's point on the plane, along the plane, after 0.5 s)
//   C5           top_drift_m (horizontal) top_sink_m penetration_max_m contacts_per_step
//   C6           displacement_max_m (largest box displacement from the start at the end) stable (that under
//                0.05 m and every figure finite) top_sink_m penetration_max_m contacts_per_step
//   C7           contacts_end contacts_per_step penetration_max_m kinetic_energy_end_J escaped (centre beyond
//                a wall's inner face, |x| or |y| > 0.75, below the floor, or not finite)
//   C8           contacts_per_step penetration_max_m lowest_link_z_m (lowest link centre at the end)
//   gripper      lift_m (box's rise at the end of the lift) slip_m (change of the box's position relative to
//                the palm over the hold) effort_before_N effort_hold_N effort_rise_N (lift drive's force, mean
//                over [0.4, 0.5] s and over the last second) effort_expected_N (the box's weight) held
// Penetration is the deepest contact at collision-detection time over the whole run; contacts per step
// counts the points the solver uses. Runs alternate the engines (run 1 of each, then run 2 of each, ...) so
// that they meet the same load; the figures other than steps/s come from the first run (every engine
// here is deterministic: the runs agree). A first run whose step calls pass --max-run-s (default 30 s:
// MuJoCo in C6 and C7, whose dense constraint rows make a step cost 25-250 ms) stops there: its figures
// are those at that time, it is the only timed run, and its line says truncated_at_s. Timings on a
// shared machine are rough.
#include "clock.h"
#include "contact_cases.h"
#include "peer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

enum
{
	MAX_RUNS = 9,
	MAX_ENGINES = 3,
	MAX_CASES = 16,
	LINE = 1024,
};

typedef struct options
{
	bool scene[PEER_SCENE_COUNT];
	bool engine[MAX_ENGINES];
	int runs;
	double max_run_s; // stop a run whose step calls have taken this long (0: never)
	bool describe_only;
} options;

static const peer_engine* const engines[MAX_ENGINES] = { &peer_mujoco, &peer_bullet, &peer_ode };

// The cases come from the table bench_contacts uses (contact_cases.h), whose scenes are peer.h's.
_Static_assert(PEER_C1 == (int)CONTACT_C1 && PEER_C2A == (int)CONTACT_C2A && PEER_C2B == (int)CONTACT_C2B &&
				   PEER_C3 == (int)CONTACT_C3 && PEER_C4 == (int)CONTACT_C4 && PEER_C5 == (int)CONTACT_C5 &&
				   PEER_C6 == (int)CONTACT_C6 && PEER_C7 == (int)CONTACT_C7 && PEER_C8 == (int)CONTACT_C8 &&
				   PEER_GRIPPER == (int)CONTACT_GRIPPER && PEER_SCENE_COUNT == (int)CONTACT_SCENE_COUNT,
			   "peer.h's scenes in contact_cases.h's order");

// ---- measurement ------------------------------------------------------------------------------------------

typedef struct measure
{
	const peer_scene* scene;
	int steps;
	bool diverged;
	peer_state start[4]; // of the bodies the figures follow (C2, C3, C5, C6, gripper)
	// contacts
	double contacts_total;
	int contacts_end;
	double penetration_max;
	// C1: the contact force on the box along z, summed over the last 0.1 s
	double force_sum;
	int force_n;
	// C2b: sums of the least-squares fit of s(t) over t in [0.5, 1.5] (t centred at 1)
	double fit[5][2]; // sum t^k (k = 0..4) and sum s t^k (k = 0..2)
	// C3
	int phase; // 0 falling, 1 rising after the first rebound, 2 done
	double apex;
	// C4
	double v_early, v_late, slip_max;
	// gripper
	double effort_before, effort_hold;
	int effort_before_n, effort_hold_n;
	double rel_lift_end[3];
	double box_lift_end_z;
} measure;

static double dot3(const double a[3], const double b[3])
{
	return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static bool finite_state(const peer_state* s)
{
	for (int k = 0; k < 3; ++k)
	{
		if (!isfinite(s->p[k]) || !isfinite(s->v[k]) || !isfinite(s->w[k]))
		{
			return false;
		}
	}
	return true;
}

// Kinetic energy of body i: 1/2 m v^2 + 1/2 w' R I R' w (the principal moments in body axes).
static double kinetic(const peer_scene* scene, int i, const peer_state* s)
{
	const peer_body* b = &scene->bodies[i];
	double qc[4] = { s->q[0], -s->q[1], -s->q[2], -s->q[3] }, wl[3];
	peer_quat_rotate(qc, s->w, wl);
	double rot = b->inertia[0] * wl[0] * wl[0] + b->inertia[1] * wl[1] * wl[1] + b->inertia[2] * wl[2] * wl[2];
	return 0.5 * b->mass * dot3(s->v, s->v) + 0.5 * rot;
}

static void downhill(const peer_scene* scene, double d[3])
{
	// The plane's normal is (sin a, 0, cos a); downhill is (cos a, 0, -sin a).
	const double* n = scene->planes[0].n;
	d[0] = n[2];
	d[1] = 0.0;
	d[2] = -n[0];
}

static void measure_begin(measure* m, const peer_scene* scene, const peer_engine* e, void* w)
{
	memset(m, 0, sizeof(*m));
	m->scene = scene;
	int follow[4] = { 0, 0, 0, 0 }, count = 1;
	switch (scene->id)
	{
		case PEER_C5:
			follow[0] = 9;
			break;
		case PEER_C6:
			follow[0] = scene->body_count - 1;
			break;
		case PEER_GRIPPER:
			follow[0] = PEER_GRIPPER_PALM;
			follow[1] = PEER_GRIPPER_BOX;
			count = 2;
			break;
		default:
			break;
	}
	for (int i = 0; i < count; ++i)
	{
		e->state(w, follow[i], &m->start[i]);
	}
}

// After step number `step` (1-based), at time t = step dt.
static void measure_step(measure* m, const peer_engine* e, void* w, int step)
{
	const peer_scene* scene = m->scene;
	double dt = scene->dt, t = step * dt;
	m->steps = step;
	peer_contacts c;
	e->contacts(w, &c);
	m->contacts_total += c.count;
	m->contacts_end = c.count;
	m->penetration_max = fmax(m->penetration_max, c.penetration);
	peer_state s;
	switch (scene->id)
	{
		case PEER_C1:
			if (t > scene->duration - 0.1 + 0.5 * dt)
			{
				double f[3];
				e->contact_force(w, 0, f);
				m->force_sum += f[2];
				m->force_n++;
			}
			break;
		case PEER_C2B:
			if (t >= 0.5 - 0.5 * dt && t <= 1.5 + 0.5 * dt)
			{
				double d[3], rel[3];
				downhill(scene, d);
				e->state(w, 0, &s);
				for (int k = 0; k < 3; ++k)
				{
					rel[k] = s.p[k] - m->start[0].p[k];
				}
				double x = t - 1.0, y = dot3(rel, d), xk = 1.0;
				for (int k = 0; k < 5; ++k)
				{
					m->fit[k][0] += xk;
					if (k < 3)
					{
						m->fit[k][1] += y * xk;
					}
					xk *= x;
				}
			}
			break;
		case PEER_C3:
			e->state(w, 0, &s);
			if (m->phase == 0 && s.v[2] > 0.0 && s.p[2] < 0.5)
			{
				m->phase = 1;
			}
			if (m->phase == 1)
			{
				m->apex = fmax(m->apex, s.p[2] - scene->bodies[0].half[0]);
				if (s.v[2] < 0.0)
				{
					m->phase = 2;
				}
			}
			break;
		case PEER_C4:
		{
			long early = lround(0.5 / dt), late = lround(1.5 / dt);
			if (step < early)
			{
				break;
			}
			double d[3];
			downhill(scene, d);
			e->state(w, 0, &s);
			if (step == early)
			{
				m->v_early = dot3(s.v, d);
			}
			if (step == late)
			{
				m->v_late = dot3(s.v, d);
			}
			// The sphere's point on the plane: centre - r n; its velocity v + w x (-r n), along the plane.
			const double* n = scene->planes[0].n;
			double r = scene->bodies[0].half[0], arm[3] = { -r * n[0], -r * n[1], -r * n[2] };
			double u[3] = { s.v[0] + s.w[1] * arm[2] - s.w[2] * arm[1], s.v[1] + s.w[2] * arm[0] - s.w[0] * arm[2],
							s.v[2] + s.w[0] * arm[1] - s.w[1] * arm[0] };
			double un = dot3(u, n);
			double tangential[3] = { u[0] - un * n[0], u[1] - un * n[1], u[2] - un * n[2] };
			m->slip_max = fmax(m->slip_max, sqrt(dot3(tangential, tangential)));
			break;
		}
		case PEER_GRIPPER:
		{
			double f = e->drive_force(w, PEER_GRIPPER_PALM);
			if (t > 0.4 + 0.5 * dt && t <= PEER_GRIPPER_LIFT_START + 0.5 * dt)
			{
				m->effort_before += f;
				m->effort_before_n++;
			}
			if (t > scene->duration - 1.0 + 0.5 * dt)
			{
				m->effort_hold += f;
				m->effort_hold_n++;
			}
			if (step == lround(PEER_GRIPPER_LIFT_END / dt))
			{
				peer_state palm, box;
				e->state(w, PEER_GRIPPER_PALM, &palm);
				e->state(w, PEER_GRIPPER_BOX, &box);
				for (int k = 0; k < 3; ++k)
				{
					m->rel_lift_end[k] = box.p[k] - palm.p[k];
				}
				m->box_lift_end_z = box.p[2];
			}
			break;
		}
		default:
			break;
	}
}

// Append " key=value" to line: value in fixed notation with `decimals` decimals, or, with decimals < 0,
// in scientific notation with -decimals - 1 digits after the point.
static void put(char* line, const char* key, int decimals, double value)
{
	size_t n = strlen(line);
	if (decimals >= 0)
	{
		snprintf(line + n, LINE - n, " %s=%.*f", key, decimals, value);
	}
	else
	{
		snprintf(line + n, LINE - n, " %s=%.*e", key, -decimals - 1, value);
	}
}

// The scene's figures at the end, appended to line.
static void measure_end(measure* m, const peer_engine* e, void* w, char* line)
{
	const peer_scene* scene = m->scene;
	peer_state s;
	bool finite = true;
	for (int i = 0; i < scene->body_count; ++i)
	{
		e->state(w, i, &s);
		finite = finite && finite_state(&s);
	}
	m->diverged = !finite;
	switch (scene->id)
	{
		case PEER_C1:
		{
			double f[3];
			e->contact_force(w, 0, f);
			peer_contacts c;
			e->contacts(w, &c);
			e->state(w, 0, &s);
			put(line, "contact_force_z_N", 6, f[2]);
			put(line, "contact_force_z_mean_N", 6, m->force_sum / fmax(1, m->force_n));
			put(line, "weight_N", 6, scene->bodies[0].mass * PEER_GRAVITY);
			put(line, "penetration_end_m", -4, c.penetration);
			put(line, "kinetic_energy_end_J", -4, kinetic(scene, 0, &s));
			break;
		}
		case PEER_C2A:
		{
			double d[3], rel[3];
			downhill(scene, d);
			e->state(w, 0, &s);
			for (int k = 0; k < 3; ++k)
			{
				rel[k] = s.p[k] - m->start[0].p[k];
			}
			put(line, "slope_displacement_m", -4, dot3(rel, d));
			break;
		}
		case PEER_C2B:
		{
			// Normal equations of s = a0 + a1 x + a2 x^2 (x = t - 1), by Cramer's rule.
			double(*f)[2] = m->fit;
			double a[3][3] = { { f[0][0], f[1][0], f[2][0] },
							   { f[1][0], f[2][0], f[3][0] },
							   { f[2][0], f[3][0], f[4][0] } };
			double b[3] = { f[0][1], f[1][1], f[2][1] };
			double det = a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) -
				a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
			double det2 = a[0][0] * (a[1][1] * b[2] - b[1] * a[2][1]) - a[0][1] * (a[1][0] * b[2] - b[1] * a[2][0]) +
				b[0] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
			double accel = 2.0 * det2 / det;
			double exact = PEER_GRAVITY * (sin(PI / 6.0) - 0.3 * cos(PI / 6.0));
			put(line, "slope_accel_mps2", 6, accel);
			put(line, "exact_mps2", 6, exact);
			put(line, "accel_err_rel", -4, (accel - exact) / exact);
			break;
		}
		case PEER_C3:
			put(line, "apex_m", 6, m->phase > 0 ? m->apex : NAN);
			put(line, "exact_m", 6, 0.25);
			put(line, "apex_err_rel", -4, m->phase > 0 ? (m->apex - 0.25) / 0.25 : NAN);
			break;
		case PEER_C4:
		{
			double accel = (m->v_late - m->v_early) / 1.0;
			double exact = 5.0 / 7.0 * PEER_GRAVITY * sin(PI / 9.0);
			put(line, "roll_accel_mps2", 6, accel);
			put(line, "exact_mps2", 6, exact);
			put(line, "accel_err_rel", -4, (accel - exact) / exact);
			put(line, "slip_max_mps", -4, m->slip_max);
			break;
		}
		case PEER_C5:
		case PEER_C6:
		{
			int top = scene->id == PEER_C5 ? 9 : scene->body_count - 1;
			e->state(w, top, &s);
			const peer_state* s0 = &m->start[0];
			double dx = s.p[0] - s0->p[0], dy = s.p[1] - s0->p[1];
			if (scene->id == PEER_C5)
			{
				put(line, "top_drift_m", -4, sqrt(dx * dx + dy * dy));
			}
			else
			{
				double worst = 0.0;
				for (int i = 0; i < scene->body_count; ++i)
				{
					peer_state b;
					e->state(w, i, &b);
					double d[3] = { b.p[0] - scene->bodies[i].p[0], b.p[1] - scene->bodies[i].p[1],
									b.p[2] - scene->bodies[i].p[2] };
					double l = sqrt(dot3(d, d));
					worst = isfinite(l) ? fmax(worst, l) : INFINITY;
				}
				put(line, "displacement_max_m", -4, worst);
				put(line, "stable", 0, (worst < 0.05 && finite) ? 1.0 : 0.0);
			}
			put(line, "top_sink_m", -4, s0->p[2] - s.p[2]);
			put(line, "penetration_max_m", -4, m->penetration_max);
			put(line, "contacts_per_step", 1, m->contacts_total / fmax(1, m->steps));
			break;
		}
		case PEER_C7:
		{
			double energy = 0.0;
			int escaped = 0;
			for (int i = 0; i < scene->body_count; ++i)
			{
				e->state(w, i, &s);
				energy += kinetic(scene, i, &s);
				bool inside = finite_state(&s) && fabs(s.p[0]) <= 0.75 && fabs(s.p[1]) <= 0.75 && s.p[2] >= 0.0;
				escaped += inside ? 0 : 1;
			}
			put(line, "contacts_end", 0, m->contacts_end);
			put(line, "contacts_per_step", 1, m->contacts_total / fmax(1, m->steps));
			put(line, "penetration_max_m", -4, m->penetration_max);
			put(line, "kinetic_energy_end_J", -4, energy);
			put(line, "escaped", 0, escaped);
			break;
		}
		case PEER_C8:
		{
			double lowest = INFINITY;
			for (int i = 0; i < scene->body_count; ++i)
			{
				e->state(w, i, &s);
				lowest = fmin(lowest, isfinite(s.p[2]) ? s.p[2] : -INFINITY);
			}
			put(line, "contacts_per_step", 1, m->contacts_total / fmax(1, m->steps));
			put(line, "penetration_max_m", -4, m->penetration_max);
			put(line, "lowest_link_z_m", 4, lowest);
			break;
		}
		case PEER_GRIPPER:
		{
			peer_state palm, box;
			e->state(w, PEER_GRIPPER_PALM, &palm);
			e->state(w, PEER_GRIPPER_BOX, &box);
			double d[3];
			for (int k = 0; k < 3; ++k)
			{
				d[k] = box.p[k] - palm.p[k] - m->rel_lift_end[k];
			}
			double before = m->effort_before / fmax(1, m->effort_before_n);
			double hold = m->effort_hold / fmax(1, m->effort_hold_n);
			put(line, "lift_m", 5, m->box_lift_end_z - m->start[1].p[2]);
			put(line, "slip_m", -4, sqrt(dot3(d, d)));
			put(line, "effort_before_N", 4, before);
			put(line, "effort_hold_N", 4, hold);
			put(line, "effort_rise_N", 4, hold - before);
			put(line, "effort_expected_N", 4, PEER_GRIPPER_BOX_MASS * PEER_GRAVITY);
			put(line, "held", 0, (box.p[2] > m->start[1].p[2] + 0.5 * PEER_GRIPPER_LIFT) ? 1.0 : 0.0);
			break;
		}
		default:
			break;
	}
}

// ---- running ----------------------------------------------------------------------------------------------

typedef struct outcome
{
	bool supported;
	char why[64];
	double seconds[MAX_RUNS]; // in the step calls
	int steps[MAX_RUNS];
	int runs;       // timed runs done
	bool truncated; // the first run stopped at max_run_s (and is the only one)
	char figures[LINE];
	char warnings[128];
} outcome;

// One run: build, step for the scene's duration (or until max_run_s of stepping), measure on the first
// run, destroy.
static void run_once(const peer_engine* e, const peer_scene* scene, const options* o, int run, outcome* out)
{
	void* w = e->create(scene, out->why, sizeof(out->why));
	if (w == NULL)
	{
		out->supported = false;
		return;
	}
	out->supported = true;
	int steps = (int)lround(scene->duration / scene->dt);
	measure m;
	measure_begin(&m, scene, e, w);
	double elapsed = 0.0;
	int done = 0;
	for (int i = 1; i <= steps; ++i)
	{
		if (scene->id == PEER_GRIPPER)
		{
			e->set_target(w, PEER_GRIPPER_PALM, peer_gripper_lift_target((i - 1) * scene->dt));
		}
		double t0 = bench_now();
		e->step(w);
		elapsed += bench_now() - t0;
		done = i;
		measure_step(&m, e, w, i);
		if (run == 0 && o->max_run_s > 0.0 && elapsed > o->max_run_s && i < steps)
		{
			out->truncated = true;
			break;
		}
	}
	out->seconds[run] = elapsed;
	out->steps[run] = done;
	out->runs = run + 1;
	if (run == 0)
	{
		out->figures[0] = '\0';
		measure_end(&m, e, w, out->figures);
		put(out->figures, "diverged", 0, m.diverged ? 1.0 : 0.0);
		snprintf(out->warnings, sizeof(out->warnings), "%s", e->warnings(w));
	}
	e->destroy(w);
}

static int compare_doubles(const void* a, const void* b)
{
	double x = *(const double*)a, y = *(const double*)b;
	return (x > y) - (x < y);
}

static double median_steps_per_s(const outcome* out, int runs)
{
	double rates[MAX_RUNS];
	for (int r = 0; r < runs; ++r)
	{
		rates[r] = out->steps[r] / fmax(out->seconds[r], 1e-12);
	}
	qsort(rates, (size_t)runs, sizeof(rates[0]), compare_doubles);
	return runs % 2 == 1 ? rates[runs / 2] : 0.5 * (rates[runs / 2 - 1] + rates[runs / 2]);
}

static void usage(void)
{
	fprintf(stderr,
			"usage: bench_peers [--scene NAME]... [--engine mujoco|bullet|ode]... [--runs N] [--max-run-s S]\n"
			"                   [--settings]\n"
			"  NAME: C1 C2a C2b C3 C4 C5 C6 C7 C8 gripper (default: all)\n"
			"  --runs N       timed runs per case, steps/s is their median (default 3, at most %d)\n"
			"  --max-run-s S  stop a run after S s in the step calls, report the figures and the steps/s of\n"
			"                 the steps done, and time no further runs of that case (default 30; 0: run\n"
			"                 every scene to its end); the line then says truncated_at_s\n"
			"  --settings     print each engine's settings and exit\n",
			MAX_RUNS);
}

static bool parse(int argc, char** argv, options* o)
{
	memset(o, 0, sizeof(*o));
	o->runs = 3;
	o->max_run_s = 30.0;
	bool any_scene = false, any_engine = false;
	for (int i = 1; i < argc; ++i)
	{
		const char* a = argv[i];
		const char* v = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(a, "--scene") == 0 && v != NULL)
		{
			int found = -1;
			for (int s = 0; s < PEER_SCENE_COUNT; ++s)
			{
				found = strcmp(v, peer_scene_name((peer_scene_id)s)) == 0 ? s : found;
			}
			if (found < 0)
			{
				fprintf(stderr, "bench_peers: unknown scene '%s'\n", v);
				return false;
			}
			o->scene[found] = any_scene = true;
			++i;
		}
		else if (strcmp(a, "--engine") == 0 && v != NULL)
		{
			int found = -1;
			for (int e = 0; e < MAX_ENGINES; ++e)
			{
				found = strcmp(v, engines[e]->name) == 0 ? e : found;
			}
			if (found < 0)
			{
				fprintf(stderr, "bench_peers: unknown engine '%s'\n", v);
				return false;
			}
			o->engine[found] = any_engine = true;
			++i;
		}
		else if (strcmp(a, "--runs") == 0 && v != NULL)
		{
			o->runs = atoi(v);
			++i;
		}
		else if (strcmp(a, "--max-run-s") == 0 && v != NULL)
		{
			o->max_run_s = atof(v);
			++i;
		}
		else if (strcmp(a, "--settings") == 0)
		{
			o->describe_only = true;
		}
		else
		{
			return false;
		}
	}
	if (o->runs < 1 || o->runs > MAX_RUNS || !(o->max_run_s >= 0.0))
	{
		return false;
	}
	for (int s = 0; s < PEER_SCENE_COUNT && !any_scene; ++s)
	{
		o->scene[s] = true;
	}
	for (int e = 0; e < MAX_ENGINES && !any_engine; ++e)
	{
		o->engine[e] = true;
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
	printf("# contact scenes in the peer engines, this machine, one core; steps/s is the median of %d runs\n", o.runs);
	for (int e = 0; e < MAX_ENGINES; ++e)
	{
		if (o.engine[e])
		{
			printf("# %s %s\n", engines[e]->name, engines[e]->version());
			engines[e]->describe();
		}
	}
	fflush(stdout);
	if (o.describe_only)
	{
		return 0;
	}
	static outcome results[MAX_ENGINES];
	printf("# %-8s %-9s %-8s %-7s %12s  %s\n", "scene", "dt_s", "coords", "engine", "steps/s", "figures");
	for (int id = 0; id < PEER_SCENE_COUNT; ++id)
	{
		if (!o.scene[id])
		{
			continue;
		}
		contact_case cases[CONTACT_MAX_CASES];
		int case_count = contact_scene_cases((contact_scene)id, cases);
		for (int c = 0; c < case_count; ++c)
		{
			peer_scene scene;
			if (!peer_scene_build((peer_scene_id)cases[c].scene, cases[c].dt, cases[c].reduced, &scene))
			{
				fprintf(stderr, "bench_peers: out of memory\n");
				return 1;
			}
			memset(results, 0, sizeof(results));
			for (int run = 0; run < o.runs; ++run)
			{
				for (int e = 0; e < MAX_ENGINES; ++e)
				{
					if (o.engine[e] && (run == 0 || (results[e].supported && !results[e].truncated)))
					{
						run_once(engines[e], &scene, &o, run, &results[e]);
					}
				}
			}
			const char* coords = scene.reduced ? "reduced" : "maximal";
			for (int e = 0; e < MAX_ENGINES; ++e)
			{
				if (!o.engine[e])
				{
					continue;
				}
				const outcome* r = &results[e];
				char head[256];
				snprintf(head, sizeof(head), "bench=contacts engine=%s scene=%s coords=%s dt_s=%.9g", engines[e]->name,
						 scene.name, coords, scene.dt);
				if (!r->supported)
				{
					printf("# %-8s %-9.6g %-8s %-7s %12s  cannot: %s\n", scene.name, scene.dt, coords, engines[e]->name,
						   "-", r->why);
					printf("BENCH %s supported=0 reason=%s\n", head, r->why);
					continue;
				}
				double rate = median_steps_per_s(r, r->runs);
				char tail[160] = "";
				if (r->truncated)
				{
					snprintf(tail, sizeof(tail), " truncated_at_s=%.4g", r->steps[0] * scene.dt);
				}
				printf("# %-8s %-9.6g %-8s %-7s %12.1f %s%s\n", scene.name, scene.dt, coords, engines[e]->name, rate,
					   r->figures, tail);
				printf("BENCH %s supported=1 steps=%d runs=%d steps_per_s=%.1f%s%s warnings=%s\n", head, r->steps[0],
					   r->runs, rate, r->figures, tail, r->warnings[0] != '\0' ? r->warnings : "none");
				fflush(stdout);
			}
			peer_scene_free(&scene);
		}
	}
	return 0;
}
