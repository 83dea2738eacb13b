// Runs of the contact scenes (contact_runs.h): build, step, measure. The figures follow
// bench/peers/bench_peers.c line by line, so Sinew's and the peer engines' numbers mean the same.
#define _POSIX_C_SOURCE 199309L
#include "scenes/contact_runs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

scene_run_options scene_run_options_make(sn_solver solver, double dt)
{
	scene_run_options o;
	memset(&o, 0, sizeof(o));
	o.solver = solver;
	o.dt = dt;
	return o;
}

double scene_run_steps_per_s(const scene_run_info* info)
{
	return info->steps > 0 && info->step_seconds > 0.0 ? info->steps / info->step_seconds : 0.0;
}

// ---- the run loop -----------------------------------------------------------------------------------------

typedef struct runner
{
	sn_world* world;
	const scene_run_options* options;
	scene_run_info* info;
	double contacts_total;
} runner;

// Create the world for a run of `duration` s (unless the options say otherwise). False: the error is in
// info and there is no world.
static bool run_open(runner* r, const scene_run_options* o, double duration, scene_run_info* info)
{
	memset(r, 0, sizeof(*r));
	memset(info, 0, sizeof(*info));
	r->options = o;
	r->info = info;
	double d = o->duration > 0.0 ? o->duration : duration;
	info->steps_planned = (int)lround(d / o->dt);
	sn_world_def wd = scene_world_def(o->solver, o->dt);
	info->error = sn_world_create(&wd, &r->world);
	return info->error == SN_ERR_OK;
}

// The scene's builder returned err: keep it, and say whether the run may go on.
static bool run_built(runner* r, sn_error err)
{
	r->info->error = err;
	return err == SN_ERR_OK;
}

// Take the next step if the run goes on: true when a step was taken (then measure it). Only the
// sn_world_step call is timed.
static bool run_next(runner* r)
{
	scene_run_info* info = r->info;
	if (info->error != SN_ERR_OK || info->truncated || info->steps >= info->steps_planned)
	{
		return false;
	}
	double t0 = now_s();
	sn_error err = sn_world_step(r->world);
	info->step_seconds += now_s() - t0;
	if (err != SN_ERR_OK)
	{
		info->error = err;
		info->diverged = err == SN_ERR_DIVERGED;
		return false;
	}
	info->steps += 1;
	sn_collision_stats stats = sn_world_get_collision_stats(r->world);
	r->contacts_total += stats.points;
	info->contacts_end = stats.points;
	info->penetration_max = fmax(info->penetration_max, -stats.deepest);
	if (r->options->observe != NULL)
	{
		r->options->observe(r->world, info->steps, r->options->user);
	}
	const double limit = r->options->max_step_seconds;
	if (limit > 0.0 && info->step_seconds > limit && info->steps < info->steps_planned)
	{
		info->truncated = true;
	}
	return true;
}

// The time at the end of the last step taken, s.
static double run_time(const runner* r)
{
	return r->info->steps * r->options->dt;
}

static void run_close(runner* r)
{
	r->info->contacts_per_step = r->contacts_total / fmax(1.0, (double)r->info->steps);
	sn_world_destroy(r->world);
	r->world = NULL;
}

// ---- measurements -----------------------------------------------------------------------------------------

static bool vec_finite(sn_vec3 v)
{
	return isfinite(v.x) && isfinite(v.y) && isfinite(v.z);
}

static bool body_finite(const sn_world* world, sn_body_id body)
{
	return vec_finite(sn_body_get_center_of_mass(world, body)) &&
		vec_finite(sn_body_get_linear_velocity(world, body)) && vec_finite(sn_body_get_angular_velocity(world, body));
}

// The total contact force on a body from the last step (N, world): each point's force on B, negated on A.
static sn_vec3 body_contact_force(const sn_world* world, sn_body_id body)
{
	enum
	{
		LOCAL = 32
	};
	sn_contact local[LOCAL];
	sn_contact* c = local;
	int n = sn_body_get_contacts(world, body, local, LOCAL);
	if (n > LOCAL)
	{
		c = malloc((size_t)n * sizeof(sn_contact));
		n = c != NULL ? sn_body_get_contacts(world, body, c, n) : 0;
	}
	sn_vec3 f = sn_v3(0, 0, 0);
	for (int i = 0; i < n; ++i)
	{
		double sign = sn_body_id_equals(c[i].body_b, body) ? 1.0 : -1.0;
		for (int k = 0; k < c[i].point_count; ++k)
		{
			f = sn_mul_add(f, sign, c[i].points[k].force);
		}
	}
	if (c != local)
	{
		free(c);
	}
	return f;
}

// The deepest contact of the last step (m, >= 0).
static double penetration_now(const sn_world* world)
{
	return fmax(0.0, -sn_world_get_collision_stats(world).deepest);
}

// ---- C1 ---------------------------------------------------------------------------------------------------

void scene_run_c1(const scene_run_options* o, scene_c1_result* out)
{
	memset(out, 0, sizeof(*out));
	out->contact_force_z_N = out->contact_force_z_mean_N = NAN;
	out->penetration_end_m = out->kinetic_energy_end_J = NAN;
	out->weight_N = 1.0 * SCENE_GRAVITY;
	runner r;
	sn_body_id box;
	if (!run_open(&r, o, 2.0, &out->run) || !run_built(&r, scene_c1_resting_box(r.world, &box)))
	{
		sn_world_destroy(r.world);
		return;
	}
	const double duration = out->run.steps_planned * o->dt;
	double sum = 0.0;
	int n = 0;
	while (run_next(&r))
	{
		if (run_time(&r) > duration - 0.1 + 0.5 * o->dt)
		{
			sum += body_contact_force(r.world, box).z;
			n += 1;
		}
	}
	if (out->run.steps > 0)
	{
		out->contact_force_z_N = body_contact_force(r.world, box).z;
		out->contact_force_z_mean_N = n > 0 ? sum / n : NAN;
		out->penetration_end_m = penetration_now(r.world);
	}
	out->kinetic_energy_end_J = sn_body_get_kinetic_energy(r.world, box);
	out->run.diverged = out->run.diverged || !body_finite(r.world, box);
	run_close(&r);
}

// ---- C2 ---------------------------------------------------------------------------------------------------

void scene_run_c2(const scene_run_options* o, double friction, scene_c2_result* out)
{
	memset(out, 0, sizeof(*out));
	out->friction = friction;
	out->slope_displacement_m = out->slope_accel_mps2 = out->accel_err_rel = NAN;
	const double a = SCENE_GRAVITY * (sin(SCENE_C2_ANGLE) - friction * cos(SCENE_C2_ANGLE));
	out->exact_mps2 = fmax(0.0, a);
	runner r;
	sn_body_id box;
	if (!run_open(&r, o, 2.0, &out->run) || !run_built(&r, scene_c2_incline(r.world, friction, &box)))
	{
		sn_world_destroy(r.world);
		return;
	}
	const sn_vec3 down = scene_c2_downhill();
	const sn_vec3 start = sn_body_get_center_of_mass(r.world, box);
	// Sums of the least-squares fit of s over x = t - 1: sum x^k (k = 0..4), sum s x^k (k = 0..2).
	double fit[5][2] = { { 0 } };
	double last_fit_t = -1.0;
	while (run_next(&r))
	{
		double t = run_time(&r);
		if (t >= 0.5 - 0.5 * o->dt && t <= 1.5 + 0.5 * o->dt)
		{
			double x = t - 1.0, s = sn_dot(sn_sub(sn_body_get_center_of_mass(r.world, box), start), down), xk = 1.0;
			for (int k = 0; k < 5; ++k)
			{
				fit[k][0] += xk;
				if (k < 3)
				{
					fit[k][1] += s * xk;
				}
				xk *= x;
			}
			last_fit_t = t;
		}
	}
	out->slope_displacement_m = sn_dot(sn_sub(sn_body_get_center_of_mass(r.world, box), start), down);
	if (last_fit_t >= 1.5 - 0.5 * o->dt)
	{
		// Normal equations of s = a0 + a1 x + a2 x^2, by Cramer's rule.
		double m[3][3] = { { fit[0][0], fit[1][0], fit[2][0] },
						   { fit[1][0], fit[2][0], fit[3][0] },
						   { fit[2][0], fit[3][0], fit[4][0] } };
		double b[3] = { fit[0][1], fit[1][1], fit[2][1] };
		double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
			m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
		double det2 = m[0][0] * (m[1][1] * b[2] - b[1] * m[2][1]) - m[0][1] * (m[1][0] * b[2] - b[1] * m[2][0]) +
			b[0] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
		out->slope_accel_mps2 = 2.0 * det2 / det;
		out->accel_err_rel = out->exact_mps2 > 0.0 ? (out->slope_accel_mps2 - out->exact_mps2) / out->exact_mps2 : NAN;
	}
	out->run.diverged = out->run.diverged || !body_finite(r.world, box);
	run_close(&r);
}

// ---- C3 ---------------------------------------------------------------------------------------------------

void scene_run_c3(const scene_run_options* o, scene_c3_result* out)
{
	memset(out, 0, sizeof(*out));
	out->apex_m = out->apex_err_rel = NAN;
	out->exact_m = 0.25;
	runner r;
	sn_body_id ball;
	if (!run_open(&r, o, 1.2, &out->run) || !run_built(&r, scene_c3_bounce(r.world, 0.5, &ball)))
	{
		sn_world_destroy(r.world);
		return;
	}
	int phase = 0; // 0 falling, 1 rising after the first rebound, 2 done
	double apex = -INFINITY;
	while (run_next(&r))
	{
		sn_vec3 p = sn_body_get_center_of_mass(r.world, ball), v = sn_body_get_linear_velocity(r.world, ball);
		if (phase == 0 && v.z > 0.0 && p.z < 0.5)
		{
			phase = 1;
		}
		if (phase == 1)
		{
			apex = fmax(apex, p.z - 0.1);
			if (v.z < 0.0)
			{
				phase = 2;
			}
		}
	}
	if (phase > 0)
	{
		out->apex_m = apex;
		out->apex_err_rel = (apex - out->exact_m) / out->exact_m;
	}
	out->run.diverged = out->run.diverged || !body_finite(r.world, ball);
	run_close(&r);
}

// ---- C4 ---------------------------------------------------------------------------------------------------

void scene_run_c4(const scene_run_options* o, scene_c4_result* out)
{
	memset(out, 0, sizeof(*out));
	out->roll_accel_mps2 = out->accel_err_rel = out->slip_max_mps = NAN;
	out->exact_mps2 = 5.0 / 7.0 * SCENE_GRAVITY * sin(SCENE_C4_ANGLE);
	runner r;
	sn_body_id ball;
	if (!run_open(&r, o, 2.0, &out->run) || !run_built(&r, scene_c4_rolling_sphere(r.world, &ball)))
	{
		sn_world_destroy(r.world);
		return;
	}
	const sn_vec3 n = sn_v3(sin(SCENE_C4_ANGLE), 0.0, cos(SCENE_C4_ANGLE));
	const sn_vec3 down = sn_v3(n.z, 0.0, -n.x);
	const long early = lround(0.5 / o->dt), late = lround(1.5 / o->dt);
	double v_early = NAN, v_late = NAN, slip = 0.0;
	while (run_next(&r))
	{
		long step = out->run.steps;
		if (step < early)
		{
			continue;
		}
		sn_vec3 v = sn_body_get_linear_velocity(r.world, ball), w = sn_body_get_angular_velocity(r.world, ball);
		if (step == early)
		{
			v_early = sn_dot(v, down);
		}
		if (step == late)
		{
			v_late = sn_dot(v, down);
		}
		// The sphere's point on the plane, centre - r n: its velocity v + w x (-r n), along the plane.
		sn_vec3 u = sn_add(v, sn_cross(w, sn_scale(-0.1, n)));
		sn_vec3 tangential = sn_mul_add(u, -sn_dot(u, n), n);
		slip = fmax(slip, sn_length(tangential));
	}
	out->roll_accel_mps2 = (v_late - v_early) / 1.0;
	out->accel_err_rel = (out->roll_accel_mps2 - out->exact_mps2) / out->exact_mps2;
	out->slip_max_mps = out->run.steps >= early ? slip : NAN;
	out->run.diverged = out->run.diverged || !body_finite(r.world, ball);
	run_close(&r);
}

// ---- C5 and C6 --------------------------------------------------------------------------------------------

static void stack_figures(const sn_world* world, const sn_body_id* boxes, const sn_vec3* start, int count,
						  scene_stack_result* out)
{
	sn_vec3 top = sn_body_get_center_of_mass(world, boxes[count - 1]);
	sn_vec3 d = sn_sub(top, start[count - 1]);
	out->top_drift_m = sqrt(d.x * d.x + d.y * d.y);
	out->top_sink_m = -d.z;
	double worst = 0.0;
	bool finite = true;
	for (int i = 0; i < count; ++i)
	{
		double l = sn_length(sn_sub(sn_body_get_center_of_mass(world, boxes[i]), start[i]));
		finite = finite && body_finite(world, boxes[i]);
		worst = isfinite(l) ? fmax(worst, l) : INFINITY;
	}
	out->displacement_max_m = worst;
	out->run.diverged = out->run.diverged || !finite;
	out->stable = worst < 0.05 && finite;
}

static void run_stack(const scene_run_options* o, bool pyramid, scene_stack_result* out)
{
	memset(out, 0, sizeof(*out));
	out->top_drift_m = out->top_sink_m = out->displacement_max_m = NAN;
	sn_body_id boxes[SCENE_C6_BOXES];
	sn_vec3 start[SCENE_C6_BOXES];
	const int count = pyramid ? SCENE_C6_BOXES : SCENE_C5_BOXES;
	runner r;
	if (!run_open(&r, o, 10.0, &out->run) ||
		!run_built(&r, pyramid ? scene_c6_pyramid(r.world, boxes) : scene_c5_stack(r.world, boxes)))
	{
		sn_world_destroy(r.world);
		return;
	}
	for (int i = 0; i < count; ++i)
	{
		start[i] = sn_body_get_center_of_mass(r.world, boxes[i]);
	}
	while (run_next(&r))
	{
	}
	stack_figures(r.world, boxes, start, count, out);
	run_close(&r);
}

void scene_run_c5(const scene_run_options* o, scene_stack_result* out)
{
	run_stack(o, false, out);
}

void scene_run_c6(const scene_run_options* o, scene_stack_result* out)
{
	run_stack(o, true, out);
}

// ---- C7 ---------------------------------------------------------------------------------------------------

void scene_run_c7(const scene_run_options* o, scene_c7_result* out)
{
	memset(out, 0, sizeof(*out));
	out->kinetic_energy_end_J = NAN;
	sn_body_id* spheres = malloc(SCENE_C7_SPHERES * sizeof(sn_body_id));
	runner r;
	if (spheres == NULL)
	{
		out->run.error = SN_ERR_NO_MEMORY;
		return;
	}
	if (!run_open(&r, o, 5.0, &out->run) || !run_built(&r, scene_c7_spheres(r.world, spheres)))
	{
		sn_world_destroy(r.world);
		free(spheres);
		return;
	}
	while (run_next(&r))
	{
	}
	double energy = 0.0;
	int escaped = 0;
	for (int i = 0; i < SCENE_C7_SPHERES; ++i)
	{
		sn_vec3 p = sn_body_get_center_of_mass(r.world, spheres[i]);
		energy += sn_body_get_kinetic_energy(r.world, spheres[i]);
		bool inside = body_finite(r.world, spheres[i]) && fabs(p.x) <= SCENE_C7_INNER && fabs(p.y) <= SCENE_C7_INNER &&
			p.z >= 0.0;
		escaped += inside ? 0 : 1;
	}
	out->kinetic_energy_end_J = energy;
	out->escaped = escaped;
	out->run.diverged = out->run.diverged || !isfinite(energy);
	run_close(&r);
	free(spheres);
}

// ---- C8 ---------------------------------------------------------------------------------------------------

void scene_run_c8(const scene_run_options* o, bool articulated, scene_c8_result* out)
{
	memset(out, 0, sizeof(*out));
	out->articulated = articulated;
	out->lowest_link_z_m = NAN;
	enum
	{
		BODIES = SCENE_C8_CHAINS * SCENE_C8_LINKS,
		JOINTS = SCENE_C8_CHAINS * (SCENE_C8_LINKS - 1)
	};
	sn_body_id* bodies = malloc(BODIES * sizeof(sn_body_id));
	sn_joint_id* joints = malloc(JOINTS * sizeof(sn_joint_id));
	sn_articulation_id chains[SCENE_C8_CHAINS];
	runner r;
	bool ok = bodies != NULL && joints != NULL;
	if (!ok)
	{
		out->run.error = SN_ERR_NO_MEMORY;
	}
	if (ok && run_open(&r, o, 3.0, &out->run))
	{
		sn_error err = articulated ? scene_c8_chains_articulated(r.world, chains)
								   : scene_c8_chains_maximal(r.world, bodies, joints);
		if (err == SN_ERR_OK && articulated)
		{
			for (int c = 0; c < SCENE_C8_CHAINS; ++c)
			{
				for (int l = 0; l < SCENE_C8_LINKS; ++l)
				{
					bodies[SCENE_C8_LINKS * c + l] = sn_articulation_get_link_body(r.world, chains[c], l);
				}
			}
		}
		if (run_built(&r, err))
		{
			while (run_next(&r))
			{
			}
			double lowest = INFINITY;
			bool finite = true;
			for (int i = 0; i < BODIES; ++i)
			{
				double z = sn_body_get_center_of_mass(r.world, bodies[i]).z;
				finite = finite && body_finite(r.world, bodies[i]);
				lowest = fmin(lowest, isfinite(z) ? z : -INFINITY);
			}
			out->lowest_link_z_m = lowest;
			out->run.diverged = out->run.diverged || !finite;
			run_close(&r);
		}
		else
		{
			sn_world_destroy(r.world);
		}
	}
	else if (ok)
	{
		sn_world_destroy(r.world);
	}
	free(bodies);
	free(joints);
}

// ---- the gripper ------------------------------------------------------------------------------------------

void scene_run_gripper(const scene_run_options* o, scene_gripper_result* out)
{
	memset(out, 0, sizeof(*out));
	out->lift_m = out->slip_m = out->effort_before_N = out->effort_hold_N = out->effort_rise_N = NAN;
	out->effort_expected_N = SCENE_GRIPPER_BOX_MASS * SCENE_GRAVITY;
	out->effort_unloaded_N = (SCENE_GRIPPER_PALM_MASS + 2.0 * SCENE_GRIPPER_FINGER_MASS) * SCENE_GRAVITY;
	out->rise_end_m = out->effort_load_N = NAN;
	runner r;
	scene_gripper g;
	if (!run_open(&r, o, SCENE_GRIPPER_LIFT_END + SCENE_GRIPPER_HOLD, &out->run) ||
		!run_built(&r, scene_gripper_build(r.world, &g)))
	{
		sn_world_destroy(r.world);
		return;
	}
	const double dt = o->dt, duration = out->run.steps_planned * dt;
	const long lift_end = lround(SCENE_GRIPPER_LIFT_END / dt);
	const double box_start_z = sn_body_get_center_of_mass(r.world, g.box).z;
	double before = 0.0, hold = 0.0;
	int before_n = 0, hold_n = 0;
	sn_vec3 rel_lift_end = sn_v3(NAN, NAN, NAN);
	for (;;)
	{
		// The target of the step about to be taken, from the time it starts.
		double target = scene_gripper_lift_target(out->run.steps * dt);
		sn_error err = sn_articulation_set_drive_target(r.world, g.articulation, SCENE_GRIPPER_LIFT_DOF, target, 0.0);
		if (err != SN_ERR_OK)
		{
			out->run.error = err;
			break;
		}
		if (!run_next(&r))
		{
			break;
		}
		double t = run_time(&r), efforts[3] = { 0, 0, 0 };
		sn_articulation_get_drive_efforts(r.world, g.articulation, efforts, 3);
		double f = efforts[SCENE_GRIPPER_LIFT_DOF];
		if (t > 0.4 + 0.5 * dt && t <= SCENE_GRIPPER_LIFT_START + 0.5 * dt)
		{
			before += f;
			before_n += 1;
		}
		if (t > duration - 1.0 + 0.5 * dt)
		{
			hold += f;
			hold_n += 1;
		}
		if (out->run.steps == lift_end)
		{
			sn_vec3 box = sn_body_get_center_of_mass(r.world, g.box);
			rel_lift_end = sn_sub(box, sn_body_get_center_of_mass(r.world, g.palm));
			out->lift_m = box.z - box_start_z;
		}
	}
	sn_vec3 box = sn_body_get_center_of_mass(r.world, g.box);
	sn_vec3 rel = sn_sub(box, sn_body_get_center_of_mass(r.world, g.palm));
	out->slip_m = sn_length(sn_sub(rel, rel_lift_end));
	out->effort_before_N = before_n > 0 ? before / before_n : NAN;
	out->effort_hold_N = hold_n > 0 ? hold / hold_n : NAN;
	out->effort_rise_N = out->effort_hold_N - out->effort_before_N;
	out->effort_load_N = out->effort_hold_N - out->effort_unloaded_N;
	out->rise_end_m = box.z - box_start_z;
	out->held = box.z > box_start_z + 0.5 * SCENE_GRIPPER_LIFT;
	out->run.diverged = out->run.diverged || !body_finite(r.world, g.box) || !body_finite(r.world, g.palm);
	run_close(&r);
}

// ---- simple cases -----------------------------------------------------------------------------------------

void scene_run_sliding_box(const scene_run_options* o, double v0, double friction, scene_sliding_result* out)
{
	memset(out, 0, sizeof(*out));
	out->distance_m = out->distance_err_rel = out->stop_time_s = out->speed_end_mps = NAN;
	const double decel = friction * SCENE_GRAVITY;
	out->exact_m = v0 * v0 / (2.0 * decel);
	runner r;
	sn_body_id box;
	if (!run_open(&r, o, v0 / decel + 0.5, &out->run) || !run_built(&r, scene_sliding_box(r.world, v0, friction, &box)))
	{
		sn_world_destroy(r.world);
		return;
	}
	const sn_vec3 start = sn_body_get_center_of_mass(r.world, box);
	while (run_next(&r))
	{
		if (isnan(out->stop_time_s) && sn_body_get_linear_velocity(r.world, box).x <= 1e-6)
		{
			out->stop_time_s = run_time(&r);
		}
	}
	out->distance_m = sn_body_get_center_of_mass(r.world, box).x - start.x;
	out->distance_err_rel = (out->distance_m - out->exact_m) / out->exact_m;
	out->speed_end_mps = sn_length(sn_body_get_linear_velocity(r.world, box));
	out->run.diverged = out->run.diverged || !body_finite(r.world, box);
	run_close(&r);
}

void scene_run_soft_contact(const scene_run_options* o, bool box, double compliance, double damping_time,
							scene_soft_result* out)
{
	memset(out, 0, sizeof(*out));
	out->sink_m = out->sink_err_rel = out->speed_end_mps = NAN;
	const double mass = 1.0, size = 0.1; // the ball's radius and the cube's half-extent, m
	out->expected_m = mass * SCENE_GRAVITY * compliance;
	runner r;
	if (!run_open(&r, o, 3.0, &out->run))
	{
		return;
	}
	sn_material soft = scene_material(SCENE_CONTACT_FRICTION, 0.0);
	soft.soft = sn_soft_compliance(compliance, damping_time);
	sn_body_id body;
	sn_error err = scene_ground(r.world, sn_v3(0, 0, 1), scene_material(SCENE_CONTACT_FRICTION, 0.0), NULL);
	if (err == SN_ERR_OK)
	{
		sn_transform pose = { sn_v3(0, 0, size), sn_quat_identity() };
		err = box ? scene_box(r.world, pose, size, mass, soft, &body, NULL)
				  : scene_ball(r.world, pose.p, size, mass, soft, &body, NULL);
	}
	if (!run_built(&r, err))
	{
		sn_world_destroy(r.world);
		return;
	}
	while (run_next(&r))
	{
	}
	out->sink_m = size - sn_body_get_center_of_mass(r.world, body).z;
	out->sink_err_rel = (out->sink_m - out->expected_m) / out->expected_m;
	out->speed_end_mps = sn_length(sn_body_get_linear_velocity(r.world, body));
	out->run.diverged = out->run.diverged || !body_finite(r.world, body);
	run_close(&r);
}
