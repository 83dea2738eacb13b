// The solver conformance matrix: the same scenes in every solver (PGS, TGS, XPBD, DIRECT), each measured
// once per solver, each cell of the table with its bound and the reason for that bound. The program
// prints the whole table, every measured value included, so a cell without a bound shows as one; the
// test fails if any bounded cell is out of its bound.
//
// The integrators behind the bounds (world.h describes each step):
//   PGS     one solve of length h per substep: semi-implicit Euler velocities and positions, rows at the
//           pose where the solve starts, Baumgarte position correction at erp per step;
//   TGS     n = position_iterations sub-advances of h / n per substep, each a solve of its own;
//   XPBD    n = position_iterations XPBD substeps of h / n per substep: the same body integration as a
//           TGS sub-advance (velocities, then positions by the exponential map), then positions projected
//           onto the joints and velocities derived back from them; for a free body the derivation gives
//           the integrated velocity back exactly, so free bodies move as in TGS;
//   DIRECT  one solve of length h per substep, exact for the step's linearised rows; positions advance by
//           h (v0 + beta (v1 - v0)), v1 itself for the default beta = 1 up to one rounding of v.
// Free bodies (the free-fall and gyroscopic rows) therefore move by n solves of semi-implicit Euler with
// implicit gyroscopic torque in every solver: n = substeps (PGS, DIRECT) or substeps times
// position_iterations (TGS, XPBD). The bounds of those rows follow from that alone.
//
// Energy and drift in the joint scenes. Solvers that solve the velocity rows at the pose where a solve
// starts (all four) remove the radial velocity the last solve's motion created: a loss of
// (1/2) m (v^2 h / L)^2 per solve of length h, about m g^2 h per second for the pendulum released at 90
// degrees (0.96 J in 10 s at h = 1 ms). A joint's position drifts by (v h)^2 / (2 L) per solve, removed at
// erp per step by PGS, TGS and DIRECT and projected away each substep by XPBD. XPBD's projection sweeps
// (forward, then backward) leave part of the coupling between joints, which shows in stiff chains.
#include "core_support.h"

#include <stdlib.h>
#include <string.h>

static const double g = SCENE_GRAVITY;

enum
{
	SOLVERS = SN_SOLVER_COUNT,
	MAX_FIELDS = 8,
	CHAIN_LINKS = 5
};

// ---- experiments: a scene run once per solver, its measured values ------------------------------------

static sn_world* world_for(sn_solver solver, double dt)
{
	sn_world_def wd = scene_world_def(solver, dt);
	sn_world* world = NULL;
	assert_sn_ok(sn_world_create(&wd, &world));
	return world;
}

static void step_ok(sn_world* world)
{
	sn_error err = sn_world_step(world);
	if (err != SN_ERR_OK)
	{
		fail_msg("step failed: %s (%s)", sn_error_name(err), sn_world_last_error_detail(world));
	}
}

static int steps_for(double seconds, double dt)
{
	return (int)(seconds / dt + 0.5);
}

// The pendulum (scene_pendulum) for 10 s at 1 ms: |first period - exact| / exact, the energy lost and
// gained (J, against the release), the pivot's drift (m) and the arm's angle below the horizontal at 1 s.
enum
{
	PENDULUM_PERIOD,
	PENDULUM_LOST,
	PENDULUM_GAINED,
	PENDULUM_DRIFT,
	PENDULUM_ANGLE_1S
};

static void run_pendulum(sn_solver solver, int param, double* out)
{
	(void)param;
	const double dt = 0.001;
	sn_world* world = world_for(solver, dt);
	sn_body_id bob;
	sn_joint_id hinge;
	assert_sn_ok(scene_pendulum(world, &bob, &hinge));
	double energy_min = 0.0, energy_max = 0.0, drift = 0.0, angle_1s = 0.0, period = 0.0;
	double previous_x = 1.0, first_crossing = -1.0;
	int steps = steps_for(10.0, dt);
	for (int i = 0; i < steps; ++i)
	{
		step_ok(world);
		sn_vec3 p = sn_body_get_center_of_mass(world, bob);
		double energy = sn_body_get_kinetic_energy(world, bob) + g * p.z;
		energy_min = fmin(energy_min, energy);
		energy_max = fmax(energy_max, energy);
		sn_vec3 pivot = sn_transform_point(sn_body_get_pose(world, bob), sn_v3(-1, 0, 0));
		drift = fmax(drift, sn_length(pivot));
		if (previous_x > 0.0 && p.x <= 0.0)
		{
			// Linear interpolation of the downward crossing of x = 0 inside the step.
			double t = sn_world_get_time(world) - dt * p.x / (p.x - previous_x);
			if (first_crossing < 0.0)
			{
				first_crossing = t;
			}
			else if (period == 0.0)
			{
				period = t - first_crossing;
			}
		}
		previous_x = p.x;
		if (i + 1 == steps_for(1.0, dt))
		{
			angle_1s = atan2(-p.z, p.x);
		}
	}
	sn_world_destroy(world);
	double exact = scene_pendulum_exact_period();
	out[PENDULUM_PERIOD] = fabs(period - exact) / exact;
	out[PENDULUM_LOST] = -energy_min;
	out[PENDULUM_GAINED] = energy_max;
	out[PENDULUM_DRIFT] = drift;
	out[PENDULUM_ANGLE_1S] = angle_1s;
}

// A chain of CHAIN_LINKS joints of one type (scene_joint_chain, param: the type) for 2 s: the largest
// locked linear (m) and angular (rad) coordinate seen; both infinite if a step failed.
static void run_joint_chain(sn_solver solver, int param, double* out)
{
	const double dt = 0.001;
	sn_joint_type type = (sn_joint_type)param;
	sn_world* world = world_for(solver, dt);
	sn_body_id bodies[CHAIN_LINKS];
	sn_joint_id joints[CHAIN_LINKS];
	assert_sn_ok(scene_joint_chain(world, type, CHAIN_LINKS, bodies, joints));
	double linear = 0.0, angular = 0.0;
	int steps = steps_for(2.0, dt);
	for (int s = 0; s < steps; ++s)
	{
		if (sn_world_step(world) != SN_ERR_OK)
		{
			linear = angular = INFINITY;
			break;
		}
		for (int i = 0; i < CHAIN_LINKS; ++i)
		{
			scene_joint_error e = scene_joint_locked_error(world, joints[i], type, scene_joint_chain_gap(type));
			linear = fmax(linear, e.linear);
			angular = fmax(angular, e.angular);
		}
	}
	sn_world_destroy(world);
	out[0] = linear;
	out[1] = angular;
}

// The limit scenes (param: which), each for its run: how far the limit was exceeded at worst (m, rad, or
// the cone's ellipse norm minus 1; <= 0 while it holds).
enum
{
	LIMIT_HINGE,
	LIMIT_PRISMATIC,
	LIMIT_TWIST,
	LIMIT_DISTANCE,
	LIMIT_CONE_CIRCULAR,
	LIMIT_CONE_ELLIPTIC
};

static void run_limit(sn_solver solver, int param, double* out)
{
	const double dt = 0.001;
	sn_world* world = world_for(solver, dt);
	sn_body_id body;
	sn_joint_id j;
	double seconds = 2.0, y_angle = 0.5, z_angle = 0.5;
	switch (param)
	{
		case LIMIT_HINGE:
			assert_sn_ok(scene_hinge_limit(world, &body, &j));
			break;
		case LIMIT_PRISMATIC:
			assert_sn_ok(scene_prismatic_limit(world, &body, &j));
			break;
		case LIMIT_TWIST:
			assert_sn_ok(sn_world_set_gravity(world, sn_v3(0, 0, 0)));
			assert_sn_ok(scene_twist_limit(world, &body, &j));
			break;
		case LIMIT_DISTANCE:
			assert_sn_ok(scene_distance_limit(world, &body, &j));
			seconds = 3.0;
			break;
		default:
			y_angle = param == LIMIT_CONE_CIRCULAR ? 0.5 : 0.3;
			z_angle = param == LIMIT_CONE_CIRCULAR ? 0.5 : 0.6;
			assert_sn_ok(scene_cone_limit(world, y_angle, z_angle, &body, &j));
			break;
	}
	double excess = -INFINITY;
	int steps = steps_for(seconds, dt);
	for (int i = 0; i < steps; ++i)
	{
		if (param == LIMIT_TWIST)
		{
			assert_sn_ok(sn_body_apply_torque(world, body, sn_v3(SCENE_TWIST_TORQUE, 0, 0)));
		}
		step_ok(world);
		double e = 0.0;
		switch (param)
		{
			case LIMIT_HINGE:
			{
				double theta = sn_joint_get_coordinate(world, j, SN_AXIS_RX);
				e = fmax(theta - 0.5, -0.5 - theta);
				break;
			}
			case LIMIT_PRISMATIC:
			{
				double x = sn_joint_get_coordinate(world, j, SN_AXIS_X);
				e = fmax(-0.2 - x, x - 1.0);
				break;
			}
			case LIMIT_TWIST:
			{
				double theta = sn_joint_get_coordinate(world, j, SN_AXIS_RX);
				e = fmax(theta - 0.2, -0.2 - theta);
				break;
			}
			case LIMIT_DISTANCE:
				e = sn_joint_get_coordinate(world, j, SN_AXIS_X) - 1.2;
				break;
			default:
			{
				double sy = sn_joint_get_coordinate(world, j, SN_AXIS_RY);
				double sz = sn_joint_get_coordinate(world, j, SN_AXIS_RZ);
				e = sqrt((sy / y_angle) * (sy / y_angle) + (sz / z_angle) * (sz / z_angle)) - 1.0;
				break;
			}
		}
		excess = fmax(excess, e);
	}
	sn_world_destroy(world);
	out[0] = excess;
}

// The motor wheel (scene_motor_wheel, no gravity) for 0.5 s at 10 rad/s: uncapped (100 N*m) its
// |spin - 10| rad/s; capped at 0.5 N*m its |spin - 2.5| rad/s (tau t / I), the largest reported torque
// about the axis (N*m) and |that - 0.5|.
enum
{
	MOTOR_FAST_ERROR,
	MOTOR_CAPPED_ERROR,
	MOTOR_CAPPED_TORQUE,
	MOTOR_CAPPED_TORQUE_ERROR
};

static void wheel(sn_solver solver, double max_torque, double* speed, double* torque_max)
{
	const double dt = 0.001;
	sn_world* world = world_for(solver, dt);
	assert_sn_ok(sn_world_set_gravity(world, sn_v3(0, 0, 0)));
	sn_body_id body;
	sn_joint_id j;
	assert_sn_ok(scene_motor_wheel(world, 10.0, max_torque, &body, &j));
	*torque_max = 0.0;
	int steps = steps_for(0.5, dt);
	for (int i = 0; i < steps; ++i)
	{
		step_ok(world);
		sn_vec3 torque;
		assert_sn_ok(sn_joint_get_reaction(world, j, NULL, &torque));
		*torque_max = fmax(*torque_max, fabs(torque.y));
	}
	*speed = sn_body_get_angular_velocity(world, body).y;
	sn_world_destroy(world);
}

static void run_motor(sn_solver solver, int param, double* out)
{
	(void)param;
	double speed, torque;
	wheel(solver, 100.0, &speed, &torque);
	out[MOTOR_FAST_ERROR] = fabs(speed - 10.0);
	wheel(solver, 0.5, &speed, &torque);
	out[MOTOR_CAPPED_ERROR] = fabs(speed - 2.5);
	out[MOTOR_CAPPED_TORQUE] = torque;
	out[MOTOR_CAPPED_TORQUE_ERROR] = fabs(torque - 0.5);
}

// The six-axis motor wheel (scene_six_axis_motor_wheel, no gravity, 5 rad/s, cap 100 N*m) after 100
// steps: |axis speed - 5| rad/s.
static void run_six_axis_motor(sn_solver solver, int param, double* out)
{
	(void)param;
	sn_world* world = world_for(solver, 0.001);
	assert_sn_ok(sn_world_set_gravity(world, sn_v3(0, 0, 0)));
	sn_body_id body;
	sn_joint_id j;
	assert_sn_ok(scene_six_axis_motor_wheel(world, 5.0, 100.0, &body, &j));
	for (int i = 0; i < 100; ++i)
	{
		step_ok(world);
	}
	out[0] = fabs(sn_joint_get_coordinate_speed(world, j, SN_AXIS_RX) - 5.0);
	sn_world_destroy(world);
}

// A 2 kg body hanging at rest from a joint of one type (scene_hanging_body, param: the type), after 10
// steps: |force_z - m g| and |force_x| on the body (N).
static void run_hanging(sn_solver solver, int param, double* out)
{
	sn_world* world = world_for(solver, 0.001);
	sn_body_id body;
	sn_joint_id j;
	assert_sn_ok(scene_hanging_body(world, (sn_joint_type)param, &body, &j));
	for (int i = 0; i < 10; ++i)
	{
		step_ok(world);
	}
	sn_vec3 force;
	assert_sn_ok(sn_joint_get_reaction(world, j, &force, NULL));
	sn_world_destroy(world);
	out[0] = fabs(force.z - 2.0 * g);
	out[1] = fabs(force.x);
}

// The cantilever (scene_cantilever) after 200 steps: |force_z - m g| (N), |torque_y + 0.5 m g| and
// |torque_x| (N*m, about the bar's anchor; the joint balances gravity's (0.5, 0, 0) x (0, 0, -m g)).
static void run_cantilever(sn_solver solver, int param, double* out)
{
	(void)param;
	sn_world* world = world_for(solver, 0.001);
	sn_body_id bar;
	sn_joint_id j;
	assert_sn_ok(scene_cantilever(world, &bar, &j));
	for (int i = 0; i < 200; ++i)
	{
		step_ok(world);
	}
	sn_vec3 force, torque;
	assert_sn_ok(sn_joint_get_reaction(world, j, &force, &torque));
	sn_world_destroy(world);
	out[0] = fabs(force.z - g);
	out[1] = fabs(torque.y + 0.5 * g);
	out[2] = fabs(torque.x);
}

// The hook (scene_hook) holding 19.62 N: the step at which it broke (0 based, -1 if it held 500 steps),
// with a break force of 25 N and of 18 N.
static int hook_break_step(sn_solver solver, double break_force)
{
	sn_world* world = world_for(solver, 0.001);
	sn_body_id body;
	sn_joint_id j;
	assert_sn_ok(scene_hook(world, break_force, &body, &j));
	int broke = -1;
	for (int i = 0; i < 500 && broke < 0; ++i)
	{
		step_ok(world);
		int count = 0;
		const sn_joint_break_event* events = sn_world_get_break_events(world, &count);
		if (count > 0)
		{
			assert_int_equal(events[0].joint.index1, j.index1);
			assert_true(sn_joint_is_broken(world, j));
			broke = i;
		}
	}
	sn_world_destroy(world);
	return broke;
}

static void run_hook(sn_solver solver, int param, double* out)
{
	(void)param;
	out[0] = hook_break_step(solver, 25.0);
	out[1] = hook_break_step(solver, 18.0);
}

// Solves of semi-implicit Euler per step for a world's settings (see the file header), and their length.
static int solves_per_step(const sn_world* world, double* h)
{
	int n = sn_world_get_substeps(world);
	sn_solver solver = sn_world_get_solver(world);
	if (solver == SN_SOLVER_TGS || solver == SN_SOLVER_XPBD)
	{
		n *= sn_world_get_position_iterations(world);
	}
	*h = sn_world_get_time_step(world) / n;
	return n;
}

// The thrown body (scene_thrown_body) for 1 s at 1 ms with `param` substeps, against the closed form of
// N solves of length h with constant acceleration a from (x0, v0):
//   v_N = v0 + N h a,   x_N = x0 + h sum_{k=1..N} v_k = x0 + N h v0 + h^2 a N (N + 1) / 2.
// Measured: the centre of mass's error (m), the velocity's (m/s), the body frame's offset from the
// centre's (m), |time - 1 s| and the step count.
enum
{
	FALL_POSITION,
	FALL_VELOCITY,
	FALL_FRAME,
	FALL_TIME,
	FALL_STEPS
};

static void run_free_fall(sn_solver solver, int param, double* out)
{
	const double dt = 0.001;
	sn_world_def wd = scene_world_def(solver, dt);
	wd.gravity = scene_thrown_gravity();
	wd.substeps = param;
	sn_world* world = NULL;
	assert_sn_ok(sn_world_create(&wd, &world));
	sn_body_def bd = scene_thrown_body_def();
	sn_body_id id;
	assert_sn_ok(scene_thrown_body(world, &id));
	double h;
	int per_step = solves_per_step(world, &h);
	int steps = 1000;
	for (int i = 0; i < steps; ++i)
	{
		step_ok(world);
	}
	double n = (double)steps * per_step;
	sn_vec3 com0 = sn_add(bd.pose.p, bd.center_of_mass);
	sn_vec3 x = sn_add(sn_mul_add(com0, n * h, bd.linear_velocity), sn_scale(h * h * n * (n + 1.0) / 2.0, wd.gravity));
	sn_vec3 v = sn_mul_add(bd.linear_velocity, n * h, wd.gravity);
	sn_vec3 got_x = sn_body_get_center_of_mass(world, id);
	sn_transform pose = sn_body_get_pose(world, id);
	out[FALL_POSITION] = sn_length(sn_sub(got_x, x));
	out[FALL_VELOCITY] = sn_length(sn_sub(sn_body_get_linear_velocity(world, id), v));
	out[FALL_FRAME] = sn_length(sn_sub(sn_add(pose.p, bd.center_of_mass), got_x));
	out[FALL_TIME] = fabs(sn_world_get_time(world) - 1.0);
	out[FALL_STEPS] = (double)sn_world_get_step_count(world);
	sn_world_destroy(world);
}

// The Dzhanibekov body (scene_dzhanibekov_body, no gravity) for 10 s at 1 ms. Each solve is implicit
// Euler on I (w' - w) + h w' x (I w') = 0 in body axes (one Newton step). For the exact solution, with
// L = I w and L' = I w':
//   L' = L - h w' x L'  and  L' . (w' x L') = 0   =>   |L'|^2 = |L|^2 - h^2 |w' x L'|^2 <= |L|^2
//   w' . L' = w' . L    =>   2 (E - E') = (w - w') . I (w - w') >= 0
// so |L| and the energy never grow, and they shrink per solve by exactly those amounts. The body-frame
// velocity before and after a solve can be read back from the poses (the exponential map turns the body
// about w' itself, so R(q_{n+1})^T w_{n+1} = R(q_n)^T w_{n+1}), which lets the run add up the predicted
// losses along the actual trajectory. Measured: flips of the body's y spin, the worst per-step rise of
// the energy (J) and of |L| (N*m*s), the energy and |L| losses relative to their predictions
// (|loss / predicted - 1|), and the losses relative to the start values.
enum
{
	SPIN_FLIPS,
	SPIN_ENERGY_RISE,
	SPIN_L_RISE,
	SPIN_ENERGY_VS_PREDICTED,
	SPIN_L_VS_PREDICTED,
	SPIN_ENERGY_LOSS,
	SPIN_L_LOSS
};

static void run_dzhanibekov(sn_solver solver, int param, double* out)
{
	(void)param;
	sn_world_def wd = scene_world_def(solver, 0.001);
	wd.gravity = sn_v3(0, 0, 0);
	sn_world* world = NULL;
	assert_sn_ok(sn_world_create(&wd, &world));
	sn_body_def bd = scene_dzhanibekov_body_def();
	sn_body_id id;
	assert_sn_ok(scene_dzhanibekov_body(world, &id));
	sn_mat33 inertia = bd.inertia;
	double h;
	int per_step = solves_per_step(world, &h);

	sn_vec3 wb = sn_inv_rotate(bd.pose.q, bd.angular_velocity);
	sn_vec3 lb = sn_mat33_mul_v(inertia, wb);
	double e0 = 0.5 * sn_dot(wb, lb), l0 = sn_length(lb);
	double energy_loss_predicted = 0.0, worst_energy_rise = 0.0, worst_l_rise = 0.0, l_loss_predicted = 0.0;
	double e_prev = e0, l_prev = l0;
	int flips = 0;
	double y_sign = 1.0;
	for (int i = 0; i < 10000; ++i)
	{
		step_ok(world);
		sn_quat q = sn_body_get_pose(world, id).q;
		sn_vec3 wb_new = sn_inv_rotate(q, sn_body_get_angular_velocity(world, id));
		sn_vec3 lb_new = sn_mat33_mul_v(inertia, wb_new);
		double e = 0.5 * sn_dot(wb_new, lb_new), l = sn_length(lb_new);
		// Predicted losses of this step's solves. With n solves per step the per-solve differences are
		// about 1/n of the step's, so the sum over the solves is about 1/n of the step's square.
		sn_vec3 dw = sn_sub(wb, wb_new);
		energy_loss_predicted += 0.5 * sn_dot(dw, sn_mat33_mul_v(inertia, dw)) / per_step;
		sn_vec3 wxl = sn_cross(wb_new, lb_new);
		l_loss_predicted += h * h * sn_dot(wxl, wxl) / (2.0 * l) * per_step;
		worst_energy_rise = fmax(worst_energy_rise, e - e_prev);
		worst_l_rise = fmax(worst_l_rise, l - l_prev);
		if (wb_new.y * y_sign < 0.0)
		{
			flips += 1;
			y_sign = -y_sign;
		}
		e_prev = e;
		l_prev = l;
		wb = wb_new;
	}
	sn_world_destroy(world);
	double energy_loss = e0 - e_prev, l_loss = l0 - l_prev;
	out[SPIN_FLIPS] = flips;
	out[SPIN_ENERGY_RISE] = worst_energy_rise;
	out[SPIN_L_RISE] = worst_l_rise;
	out[SPIN_ENERGY_VS_PREDICTED] = fabs(energy_loss - energy_loss_predicted) / energy_loss_predicted;
	out[SPIN_L_VS_PREDICTED] = fabs(l_loss - l_loss_predicted) / l_loss_predicted;
	out[SPIN_ENERGY_LOSS] = energy_loss / e0;
	out[SPIN_L_LOSS] = l_loss / l0;
}

// ---- contact scenes (scenes/contact_runs.h: the runners bench_contacts shares) --------------------------

// The runners never assert: a scene that could not be built or a step that failed makes every value of
// the experiment infinite, which no bound admits.
static bool contact_run_ok(const scene_run_info* info, double* out, int fields)
{
	if (info->error == SN_ERR_OK)
	{
		return true;
	}
	print_message("contact run failed at step %d: %s\n", info->steps + 1, sn_error_name(info->error));
	for (int i = 0; i < fields; ++i)
	{
		out[i] = INFINITY;
	}
	return false;
}

// C1, the resting box, 1 ms, 2 s: |contact force z - m g| (N) in the last step, the deepest contact of the
// last step (m) and the kinetic energy at the end (J).
enum
{
	C1_FORCE,
	C1_PENETRATION,
	C1_ENERGY
};

static void run_c1(sn_solver solver, int param, double* out)
{
	(void)param;
	scene_run_options o = scene_run_options_make(solver, 0.001);
	scene_c1_result r;
	scene_run_c1(&o, &r);
	if (contact_run_ok(&r.run, out, 3))
	{
		out[C1_FORCE] = fabs(r.contact_force_z_N - r.weight_N);
		out[C1_PENETRATION] = r.penetration_end_m;
		out[C1_ENERGY] = r.kinetic_energy_end_J;
	}
}

// C2, the box on the 30 degree incline, 1 ms, 2 s (param: friction in hundredths): mu = 0.7, |displacement
// along the slope| (m); mu = 0.3, |fitted acceleration - exact| / exact.
static void run_c2(sn_solver solver, int param, double* out)
{
	scene_run_options o = scene_run_options_make(solver, 0.001);
	scene_c2_result r;
	scene_run_c2(&o, param / 100.0, &r);
	if (contact_run_ok(&r.run, out, 1))
	{
		out[0] = r.exact_mps2 > 0.0 ? fabs(r.accel_err_rel) : fabs(r.slope_displacement_m);
	}
}

// The box sliding on flat ground from 2 m/s with mu = 0.5, 1 ms: |distance - v0^2 / (2 mu g)| / exact.
static void run_slide(sn_solver solver, int param, double* out)
{
	(void)param;
	scene_run_options o = scene_run_options_make(solver, 0.001);
	scene_sliding_result r;
	scene_run_sliding_box(&o, 2.0, 0.5, &r);
	if (contact_run_ok(&r.run, out, 1))
	{
		out[0] = fabs(r.distance_err_rel);
	}
}

// C3, the ball with restitution 0.5 dropped from 1 m, 1 ms: |apex - 0.25| / 0.25.
static void run_c3(sn_solver solver, int param, double* out)
{
	(void)param;
	scene_run_options o = scene_run_options_make(solver, 0.001);
	scene_c3_result r;
	scene_run_c3(&o, &r);
	if (contact_run_ok(&r.run, out, 1))
	{
		out[0] = fabs(r.apex_err_rel);
	}
}

// C4, the sphere rolling down the 20 degree incline, 1 ms, 2 s: |acceleration - exact| / exact and the
// largest slip speed after 0.5 s (m/s).
static void run_c4(sn_solver solver, int param, double* out)
{
	(void)param;
	scene_run_options o = scene_run_options_make(solver, 0.001);
	scene_c4_result r;
	scene_run_c4(&o, &r);
	if (contact_run_ok(&r.run, out, 2))
	{
		out[0] = fabs(r.accel_err_rel);
		out[1] = r.slip_max_mps;
	}
}

// C5, the 10-box stack, 10 s (param: steps per second, 240 or 1000): the top box's horizontal drift (m).
static void run_c5(sn_solver solver, int param, double* out)
{
	scene_run_options o = scene_run_options_make(solver, 1.0 / param);
	scene_stack_result r;
	scene_run_c5(&o, &r);
	if (contact_run_ok(&r.run, out, 1))
	{
		out[0] = r.top_drift_m;
	}
}

// A soft contact under its static load (param: bit 0 set, a 0.2 m cube on four points, else a ball on one;
// bit 1 set, dt 1/240 s, else 1 ms), 3 s: compliance 1e-4 m/N, damping time 0.02 s (critical for 1 kg:
// b = 2 sqrt(k m) = 200 N*s/m = d / c): |sink - m g c| / (m g c).
static void run_soft(sn_solver solver, int param, double* out)
{
	scene_run_options o = scene_run_options_make(solver, (param & 2) ? 1.0 / 240.0 : 0.001);
	scene_soft_result r;
	scene_run_soft_contact(&o, (param & 1) != 0, 1e-4, 0.02, &r);
	if (contact_run_ok(&r.run, out, 1))
	{
		out[0] = fabs(r.sink_err_rel);
	}
}

// ---- the table ------------------------------------------------------------------------------------------

typedef void (*run_fn)(sn_solver solver, int param, double* out);

typedef struct experiment
{
	run_fn run;
	int param;
	bool done[SOLVERS];
	double out[SOLVERS][MAX_FIELDS];
} experiment;

enum
{
	E_PENDULUM,
	E_CHAIN_FIXED,
	E_CHAIN_HINGE,
	E_CHAIN_PRISMATIC,
	E_CHAIN_SPHERICAL,
	E_CHAIN_DISTANCE,
	E_CHAIN_CYLINDRICAL,
	E_CHAIN_SIX_AXIS,
	E_LIMIT_HINGE,
	E_LIMIT_PRISMATIC,
	E_LIMIT_TWIST,
	E_LIMIT_DISTANCE,
	E_LIMIT_CONE_CIRCULAR,
	E_LIMIT_CONE_ELLIPTIC,
	E_MOTOR,
	E_SIX_AXIS_MOTOR,
	E_HANG_FIXED,
	E_HANG_HINGE,
	E_HANG_PRISMATIC,
	E_HANG_SPHERICAL,
	E_HANG_DISTANCE,
	E_HANG_CYLINDRICAL,
	E_HANG_SIX_AXIS,
	E_CANTILEVER,
	E_HOOK,
	E_FALL_1,
	E_FALL_2,
	E_FALL_3,
	E_SPIN,
	E_C1,
	E_C2A,
	E_C2B,
	E_SLIDE,
	E_C3,
	E_C4,
	E_C5_240,
	E_C5_1000,
	E_SOFT_BALL,
	E_SOFT_BOX,
	E_SOFT_BALL_240,
	E_SOFT_BOX_240,
	EXPERIMENTS
};

// Indexed by the enum above; chain and hanging experiments follow sn_joint_type's order.
static experiment experiments[EXPERIMENTS] = {
	[E_PENDULUM] = { run_pendulum, 0, { false }, { { 0 } } },
	[E_CHAIN_FIXED] = { run_joint_chain, SN_JOINT_FIXED, { false }, { { 0 } } },
	[E_CHAIN_HINGE] = { run_joint_chain, SN_JOINT_HINGE, { false }, { { 0 } } },
	[E_CHAIN_PRISMATIC] = { run_joint_chain, SN_JOINT_PRISMATIC, { false }, { { 0 } } },
	[E_CHAIN_SPHERICAL] = { run_joint_chain, SN_JOINT_SPHERICAL, { false }, { { 0 } } },
	[E_CHAIN_DISTANCE] = { run_joint_chain, SN_JOINT_DISTANCE, { false }, { { 0 } } },
	[E_CHAIN_CYLINDRICAL] = { run_joint_chain, SN_JOINT_CYLINDRICAL, { false }, { { 0 } } },
	[E_CHAIN_SIX_AXIS] = { run_joint_chain, SN_JOINT_SIX_AXIS, { false }, { { 0 } } },
	[E_LIMIT_HINGE] = { run_limit, LIMIT_HINGE, { false }, { { 0 } } },
	[E_LIMIT_PRISMATIC] = { run_limit, LIMIT_PRISMATIC, { false }, { { 0 } } },
	[E_LIMIT_TWIST] = { run_limit, LIMIT_TWIST, { false }, { { 0 } } },
	[E_LIMIT_DISTANCE] = { run_limit, LIMIT_DISTANCE, { false }, { { 0 } } },
	[E_LIMIT_CONE_CIRCULAR] = { run_limit, LIMIT_CONE_CIRCULAR, { false }, { { 0 } } },
	[E_LIMIT_CONE_ELLIPTIC] = { run_limit, LIMIT_CONE_ELLIPTIC, { false }, { { 0 } } },
	[E_MOTOR] = { run_motor, 0, { false }, { { 0 } } },
	[E_SIX_AXIS_MOTOR] = { run_six_axis_motor, 0, { false }, { { 0 } } },
	[E_HANG_FIXED] = { run_hanging, SN_JOINT_FIXED, { false }, { { 0 } } },
	[E_HANG_HINGE] = { run_hanging, SN_JOINT_HINGE, { false }, { { 0 } } },
	[E_HANG_PRISMATIC] = { run_hanging, SN_JOINT_PRISMATIC, { false }, { { 0 } } },
	[E_HANG_SPHERICAL] = { run_hanging, SN_JOINT_SPHERICAL, { false }, { { 0 } } },
	[E_HANG_DISTANCE] = { run_hanging, SN_JOINT_DISTANCE, { false }, { { 0 } } },
	[E_HANG_CYLINDRICAL] = { run_hanging, SN_JOINT_CYLINDRICAL, { false }, { { 0 } } },
	[E_HANG_SIX_AXIS] = { run_hanging, SN_JOINT_SIX_AXIS, { false }, { { 0 } } },
	[E_CANTILEVER] = { run_cantilever, 0, { false }, { { 0 } } },
	[E_HOOK] = { run_hook, 0, { false }, { { 0 } } },
	[E_FALL_1] = { run_free_fall, 1, { false }, { { 0 } } },
	[E_FALL_2] = { run_free_fall, 2, { false }, { { 0 } } },
	[E_FALL_3] = { run_free_fall, 3, { false }, { { 0 } } },
	[E_SPIN] = { run_dzhanibekov, 0, { false }, { { 0 } } },
	[E_C1] = { run_c1, 0, { false }, { { 0 } } },
	[E_C2A] = { run_c2, 70, { false }, { { 0 } } },
	[E_C2B] = { run_c2, 30, { false }, { { 0 } } },
	[E_SLIDE] = { run_slide, 0, { false }, { { 0 } } },
	[E_C3] = { run_c3, 0, { false }, { { 0 } } },
	[E_C4] = { run_c4, 0, { false }, { { 0 } } },
	[E_C5_240] = { run_c5, 240, { false }, { { 0 } } },
	[E_C5_1000] = { run_c5, 1000, { false }, { { 0 } } },
	[E_SOFT_BALL] = { run_soft, 0, { false }, { { 0 } } },
	[E_SOFT_BOX] = { run_soft, 1, { false }, { { 0 } } },
	[E_SOFT_BALL_240] = { run_soft, 2, { false }, { { 0 } } },
	[E_SOFT_BOX_240] = { run_soft, 3, { false }, { { 0 } } },
};

// A row: one measured value of one experiment (field), or the difference of an experiment's value from
// TGS's (against_tgs: |value - TGS's value|).
typedef struct row
{
	const char* name;
	int experiment;
	int field;
	bool against_tgs;
} row;

enum
{
	R_PENDULUM_PERIOD,
	R_PENDULUM_LOST,
	R_PENDULUM_GAINED,
	R_PENDULUM_DRIFT,
	R_PENDULUM_VS_TGS,
	R_CHAIN_FIXED_LIN,
	R_CHAIN_FIXED_ANG,
	R_CHAIN_HINGE_LIN,
	R_CHAIN_HINGE_ANG,
	R_CHAIN_PRISMATIC_LIN,
	R_CHAIN_PRISMATIC_ANG,
	R_CHAIN_SPHERICAL_LIN,
	R_CHAIN_SPHERICAL_ANG,
	R_CHAIN_DISTANCE_LIN,
	R_CHAIN_DISTANCE_ANG,
	R_CHAIN_CYLINDRICAL_LIN,
	R_CHAIN_CYLINDRICAL_ANG,
	R_CHAIN_SIX_AXIS_LIN,
	R_CHAIN_SIX_AXIS_ANG,
	R_LIMIT_HINGE,
	R_LIMIT_PRISMATIC,
	R_LIMIT_TWIST,
	R_LIMIT_DISTANCE,
	R_LIMIT_CONE_CIRCULAR,
	R_LIMIT_CONE_ELLIPTIC,
	R_MOTOR_FAST,
	R_MOTOR_CAPPED,
	R_MOTOR_CAPPED_TORQUE,
	R_MOTOR_CAPPED_REACHED,
	R_SIX_AXIS_MOTOR,
	R_HANG_FIXED_Z,
	R_HANG_FIXED_X,
	R_HANG_HINGE_Z,
	R_HANG_HINGE_X,
	R_HANG_PRISMATIC_Z,
	R_HANG_PRISMATIC_X,
	R_HANG_SPHERICAL_Z,
	R_HANG_SPHERICAL_X,
	R_HANG_DISTANCE_Z,
	R_HANG_DISTANCE_X,
	R_HANG_CYLINDRICAL_Z,
	R_HANG_CYLINDRICAL_X,
	R_HANG_SIX_AXIS_Z,
	R_HANG_SIX_AXIS_X,
	R_CANTILEVER_FORCE,
	R_CANTILEVER_TORQUE_Y,
	R_CANTILEVER_TORQUE_X,
	R_HOOK_HOLDS,
	R_HOOK_BREAKS,
	R_FALL_1_POSITION,
	R_FALL_1_VELOCITY,
	R_FALL_1_FRAME,
	R_FALL_1_TIME,
	R_FALL_1_STEPS,
	R_FALL_2_POSITION,
	R_FALL_2_VELOCITY,
	R_FALL_2_FRAME,
	R_FALL_2_TIME,
	R_FALL_2_STEPS,
	R_FALL_3_POSITION,
	R_FALL_3_VELOCITY,
	R_FALL_3_FRAME,
	R_FALL_3_TIME,
	R_FALL_3_STEPS,
	R_SPIN_FLIPS,
	R_SPIN_ENERGY_RISE,
	R_SPIN_L_RISE,
	R_SPIN_ENERGY_VS_PREDICTED,
	R_SPIN_L_VS_PREDICTED,
	R_SPIN_ENERGY_LOSS,
	R_SPIN_L_LOSS,
	R_C1_FORCE,
	R_C1_PENETRATION,
	R_C1_ENERGY,
	R_C2A_DISPLACEMENT,
	R_C2B_ACCEL,
	R_SLIDE_DISTANCE,
	R_C3_APEX,
	R_C4_ACCEL,
	R_C4_SLIP,
	R_C5_240_DRIFT,
	R_C5_1000_DRIFT,
	R_SOFT_BALL_SINK,
	R_SOFT_BOX_SINK,
	R_SOFT_BALL_240_SINK,
	R_SOFT_BOX_240_SINK,
	ROWS
};

#define CHAIN_ROWS_(type, name)                                                                                        \
	[R_CHAIN_##type##_LIN] = { "chain of 5 " name ", 2 s: locked linear error (m)", E_CHAIN_##type, 0, false },        \
	[R_CHAIN_##type##_ANG] = { "chain of 5 " name ", 2 s: locked angular error (rad)", E_CHAIN_##type, 1, false }
#define HANG_ROWS_(type, name)                                                                                         \
	[R_HANG_##type##_Z] = { "2 kg hanging from a " name ": |F_z - m g| (N)", E_HANG_##type, 0, false },                \
	[R_HANG_##type##_X] = { "2 kg hanging from a " name ": |F_x| (N)", E_HANG_##type, 1, false }
#define FALL_ROWS_(n, name)                                                                                            \
	[R_FALL_##n##_POSITION] = { "thrown body, " name ", 1 s: position error (m)", E_FALL_##n, FALL_POSITION, false },  \
	[R_FALL_##n##                                                                                                      \
		_VELOCITY] = { "thrown body, " name ", 1 s: velocity error (m/s)", E_FALL_##n, FALL_VELOCITY, false },         \
	[R_FALL_##n##_FRAME] = { "thrown body, " name ", 1 s: frame offset error (m)", E_FALL_##n, FALL_FRAME, false },    \
	[R_FALL_##n##_TIME] = { "thrown body, " name ", 1 s: |time - 1 s| (s)", E_FALL_##n, FALL_TIME, false },            \
	[R_FALL_##n##_STEPS] = { "thrown body, " name ", 1 s: steps taken", E_FALL_##n, FALL_STEPS, false }

static const row rows[ROWS] = {
	[R_PENDULUM_PERIOD] = { "pendulum 1 m, 90 deg, 10 s: |period - exact| / exact", E_PENDULUM, PENDULUM_PERIOD,
							false },
	[R_PENDULUM_LOST] = { "pendulum 1 m, 90 deg, 10 s: energy lost (J)", E_PENDULUM, PENDULUM_LOST, false },
	[R_PENDULUM_GAINED] = { "pendulum 1 m, 90 deg, 10 s: energy gained (J)", E_PENDULUM, PENDULUM_GAINED, false },
	[R_PENDULUM_DRIFT] = { "pendulum 1 m, 90 deg, 10 s: pivot drift (m)", E_PENDULUM, PENDULUM_DRIFT, false },
	[R_PENDULUM_VS_TGS] = { "pendulum 1 m, 90 deg: |angle at 1 s - TGS's| (rad)", E_PENDULUM, PENDULUM_ANGLE_1S, true },
	CHAIN_ROWS_(FIXED, "fixed joints"),
	CHAIN_ROWS_(HINGE, "hinges"),
	CHAIN_ROWS_(PRISMATIC, "prismatic joints"),
	CHAIN_ROWS_(SPHERICAL, "ball joints"),
	CHAIN_ROWS_(DISTANCE, "distance joints"),
	CHAIN_ROWS_(CYLINDRICAL, "cylindrical joints"),
	CHAIN_ROWS_(SIX_AXIS, "six-axis joints"),
	[R_LIMIT_HINGE] = { "hinge limit +-0.5 rad, bob falls on it, 2 s: excess (rad)", E_LIMIT_HINGE, 0, false },
	[R_LIMIT_PRISMATIC] = { "prismatic limit, 3 kg falls on it, 2 s: excess (m)", E_LIMIT_PRISMATIC, 0, false },
	[R_LIMIT_TWIST] = { "twist limit +-0.2 rad, 2 N*m against it, 2 s: excess (rad)", E_LIMIT_TWIST, 0, false },
	[R_LIMIT_DISTANCE] = { "distance limit 1.2 m on a soft rod, 3 s: excess (m)", E_LIMIT_DISTANCE, 0, false },
	[R_LIMIT_CONE_CIRCULAR] = { "swing cone 0.5 x 0.5 rad, thrown bob, 2 s: norm excess", E_LIMIT_CONE_CIRCULAR, 0,
								false },
	[R_LIMIT_CONE_ELLIPTIC] = { "swing cone 0.3 x 0.6 rad, thrown bob, 2 s: norm excess", E_LIMIT_CONE_ELLIPTIC, 0,
								false },
	[R_MOTOR_FAST] = { "hinge motor 10 rad/s, cap 100 N*m, 0.5 s: |spin - 10| (rad/s)", E_MOTOR, MOTOR_FAST_ERROR,
					   false },
	[R_MOTOR_CAPPED] = { "hinge motor 10 rad/s, cap 0.5 N*m, 0.5 s: |spin - 2.5| (rad/s)", E_MOTOR, MOTOR_CAPPED_ERROR,
						 false },
	[R_MOTOR_CAPPED_TORQUE] = { "hinge motor, cap 0.5 N*m: largest torque (N*m)", E_MOTOR, MOTOR_CAPPED_TORQUE, false },
	[R_MOTOR_CAPPED_REACHED] = { "hinge motor, cap 0.5 N*m: |largest torque - cap| (N*m)", E_MOTOR,
								 MOTOR_CAPPED_TORQUE_ERROR, false },
	[R_SIX_AXIS_MOTOR] = { "six-axis motor 5 rad/s, 100 steps: |axis speed - 5| (rad/s)", E_SIX_AXIS_MOTOR, 0, false },
	HANG_ROWS_(FIXED, "fixed joint"),
	HANG_ROWS_(HINGE, "hinge"),
	HANG_ROWS_(PRISMATIC, "prismatic joint"),
	HANG_ROWS_(SPHERICAL, "ball joint"),
	HANG_ROWS_(DISTANCE, "distance joint"),
	HANG_ROWS_(CYLINDRICAL, "cylindrical joint"),
	HANG_ROWS_(SIX_AXIS, "six-axis joint"),
	[R_CANTILEVER_FORCE] = { "1 kg cantilever, 200 steps: |F_z - m g| (N)", E_CANTILEVER, 0, false },
	[R_CANTILEVER_TORQUE_Y] = { "1 kg cantilever, 200 steps: |T_y + m g / 2| (N*m)", E_CANTILEVER, 1, false },
	[R_CANTILEVER_TORQUE_X] = { "1 kg cantilever, 200 steps: |T_x| (N*m)", E_CANTILEVER, 2, false },
	[R_HOOK_HOLDS] = { "hook of 25 N holding 19.62 N: step it breaks (-1: held)", E_HOOK, 0, false },
	[R_HOOK_BREAKS] = { "hook of 18 N holding 19.62 N: step it breaks", E_HOOK, 1, false },
	FALL_ROWS_(1, "1 substep"),
	FALL_ROWS_(2, "2 substeps"),
	FALL_ROWS_(3, "3 substeps"),
	[R_SPIN_FLIPS] = { "Dzhanibekov spin, 10 s: flips", E_SPIN, SPIN_FLIPS, false },
	[R_SPIN_ENERGY_RISE] = { "Dzhanibekov spin, 10 s: worst energy rise per step (J)", E_SPIN, SPIN_ENERGY_RISE,
							 false },
	[R_SPIN_L_RISE] = { "Dzhanibekov spin, 10 s: worst |L| rise per step (N*m*s)", E_SPIN, SPIN_L_RISE, false },
	[R_SPIN_ENERGY_VS_PREDICTED] = { "Dzhanibekov spin, 10 s: energy loss / predicted - 1", E_SPIN,
									 SPIN_ENERGY_VS_PREDICTED, false },
	[R_SPIN_L_VS_PREDICTED] = { "Dzhanibekov spin, 10 s: |L| loss / predicted - 1", E_SPIN, SPIN_L_VS_PREDICTED,
								false },
	[R_SPIN_ENERGY_LOSS] = { "Dzhanibekov spin, 10 s: energy loss / E0", E_SPIN, SPIN_ENERGY_LOSS, false },
	[R_SPIN_L_LOSS] = { "Dzhanibekov spin, 10 s: |L| loss / |L0|", E_SPIN, SPIN_L_LOSS, false },
	[R_C1_FORCE] = { "C1 resting box, 2 s: |contact force z - m g| (N)", E_C1, C1_FORCE, false },
	[R_C1_PENETRATION] = { "C1 resting box, 2 s: penetration at the end (m)", E_C1, C1_PENETRATION, false },
	[R_C1_ENERGY] = { "C1 resting box, 2 s: kinetic energy at the end (J)", E_C1, C1_ENERGY, false },
	[R_C2A_DISPLACEMENT] = { "C2a incline 30 deg, mu 0.7, 2 s: |slide| (m)", E_C2A, 0, false },
	[R_C2B_ACCEL] = { "C2b incline 30 deg, mu 0.3: |a - exact| / exact", E_C2B, 0, false },
	[R_SLIDE_DISTANCE] = { "box sliding from 2 m/s, mu 0.5: |stop - v0^2/2mu g| / exact", E_SLIDE, 0, false },
	[R_C3_APEX] = { "C3 ball, e 0.5, from 1 m: |apex - 0.25| / 0.25", E_C3, 0, false },
	[R_C4_ACCEL] = { "C4 sphere rolling 20 deg: |a - exact| / exact", E_C4, 0, false },
	[R_C4_SLIP] = { "C4 sphere rolling 20 deg: largest slip speed (m/s)", E_C4, 1, false },
	[R_C5_240_DRIFT] = { "C5 10-box stack, 1/240 s, 10 s: top drift (m)", E_C5_240, 0, false },
	[R_C5_1000_DRIFT] = { "C5 10-box stack, 1 ms, 10 s: top drift (m)", E_C5_1000, 0, false },
	[R_SOFT_BALL_SINK] = { "soft ball on 1 point, c 1e-4, 1 ms: |sink - F c| / F c", E_SOFT_BALL, 0, false },
	[R_SOFT_BOX_SINK] = { "soft box on 4 points, c 1e-4, 1 ms: |sink - F c| / F c", E_SOFT_BOX, 0, false },
	[R_SOFT_BALL_240_SINK] = { "soft ball on 1 point, c 1e-4, 1/240 s: |sink - F c| / F c", E_SOFT_BALL_240, 0, false },
	[R_SOFT_BOX_240_SINK] = { "soft box on 4 points, c 1e-4, 1/240 s: |sink - F c| / F c", E_SOFT_BOX_240, 0, false },
};

typedef enum check_kind
{
	AT_MOST,  // measured <= bound
	AT_LEAST, // measured >= bound
	EQUALS,   // measured == bound
} check_kind;

typedef struct cell
{
	int row;
	sn_solver solver;
	check_kind kind;
	double bound;
	const char* reason;
} cell;

#define P_ SN_SOLVER_PGS
#define T_ SN_SOLVER_TGS
#define X_ SN_SOLVER_XPBD
#define D_ SN_SOLVER_DIRECT

// Reasons used by several cells.
static const char* const why_drift_pgs = "drift (v h)^2 / 2L ~ 1e-5 m per step at erp 0.2: steady ~5e-5 m";
static const char* const why_fall_x = "N solves, N roundings of 2^-53 |x|: |x| <= 3.5 m, N <= 24000 gives 9.3e-12 m";
static const char* const why_fall_v =
	"N roundings of 2^-53 |v|, |v| <= 8 m/s: 1.4e-13 m/s as a random walk, 2e-11 all in one direction (N = 24000)";
static const char* const why_clock = "1000 steps of 1 ms summed: rounding of the clock";
static const char* const why_steps = "one step per call";
static const char* const why_spin_rise =
	"implicit Euler: E' <= E and |L'| <= |L| exactly, up to rounding (1e-13 of E0 ~ 4 J)";
static const char* const why_spin_predicted =
	"the one Newton step leaves O(h^3 w^4 I) per solve, h w ~ 3e-3 below the loss; the 1/n split is first order";
static const char* const why_spin_flips =
	"instability simulated, not damped: 1.7/s growth flips it in ~2 s, again ~4 s later";
static const char* const why_spin_energy = "implicit Euler's dissipation is O(h): under 2% in 10 s at h = 1 ms";
static const char* const why_spin_l = "|L| is kept to O(h^2) per solve: under 1% in 10 s";
static const char* const why_xpbd_cantilever = "cantilever: XPBD's sweeps leave part of the lever-amplified coupling";
static const char* const why_direct_static = "static cantilever: round-off of the exact solve";
static const char* const why_xpbd_swing = "swing: XPBD sweep residual per substep";
static const char* const why_xpbd_swing_ang = "hinge swing locks are projected exactly";
static const char* const why_direct_swing = "swing drift (v h)^2/2L removed at erp 0.2: 2.5e-4 m";
static const char* const why_direct_swing_ang = "swing drift removed at erp 0.2";
static const char* const why_direct_limit = "limit rows solved exactly within the step (active set)";
static const char* const why_xpbd_limit_last = "nothing after the limit in the pass moves the body along its axis";
static const char* const why_xpbd_limit_free =
	"the limit moves the bob along the projected free axis, so the point lock does not undo it";
static const char* const why_direct_cone = "the cone row is its tangent plane at the start pose";
static const char* const why_cap = "constant torque at the cap: omega = tau t / I";
static const char* const why_cap_holds = "the cap holds, to rounding";
static const char* const why_xpbd_weight = "lambda / hx^2 is the weight: round-off of the substeps";
static const char* const why_direct_weight = "at rest the exact solve gives the weight to round-off";
static const char* const why_no_side = "no side force at rest";
static const char* const why_break = "break when the reported force exceeds the threshold (19.62 N at rest)";
static const char* const why_contact_weight = "at rest the normal rows carry the weight: the solve's rounding";
static const char* const why_contact_slop =
	"the split impulse removes only penetration beyond the world's slop (0.5 mm); the box starts touching";
static const char* const why_contact_rest = "issue 13: no jitter at rest (measured 1e-23 J)";
static const char* const why_contact_quadratic =
	"constant Coulomb friction: positions are exactly quadratic in t, the fit recovers a to rounding";
static const char* const why_contact_roll =
	"static friction holds the contact point, constant acceleration: exact to the solve's rounding";
static const char* const why_contact_stack =
	"no horizontal load on the symmetric stack: drift at rounding level (1e-15 m measured)";
static const char* const why_contact_soft =
	"issue 13's 1e-6: the manifold's spring (k/n per point) rests where k s = F, no slop; measured 1e-13";

static const cell cells[] = {
	// The pendulum: the velocity projection's loss m g^2 h per second (file header) shortens a 90 degree
	// swing's period by about half the relative amplitude loss.
	{ R_PENDULUM_PERIOD, P_, AT_MOST, 5e-3, "PGS loses ~0.25% of the energy per period at h = 1 ms" },
	{ R_PENDULUM_PERIOD, T_, AT_MOST, 1e-3, "TGS's O(h/8) dissipation shortens a period by ~0.03%" },
	{ R_PENDULUM_PERIOD, X_, AT_MOST, 2e-3, "XPBD loses 0.6% of the energy in the first period" },
	{ R_PENDULUM_PERIOD, D_, AT_MOST, 5e-4, "exact per-step projection: the integrator's O(h^2) phase error" },
	{ R_PENDULUM_LOST, P_, AT_MOST, 0.96, "PGS loses at most m g^2 h per second" },
	{ R_PENDULUM_LOST, T_, AT_MOST, 0.12, "TGS loses at most m g^2 (h/8) per second" },
	{ R_PENDULUM_LOST, X_, AT_MOST, 0.3, "XPBD loses ~2 m g^2 hx per second" },
	{ R_PENDULUM_LOST, D_, AT_MOST, 0.03, "symplectic Euler: energy oscillation O(h omega) E = 0.03 J, no drift" },
	{ R_PENDULUM_GAINED, P_, AT_MOST, 1e-3, "energy rises only by the drift correction, ~1e-6 m * m g" },
	{ R_PENDULUM_GAINED, T_, AT_MOST, 1e-3, "energy rises only by the drift correction, ~1e-6 m * m g" },
	{ R_PENDULUM_GAINED, X_, AT_MOST, 1e-3, "projections only remove energy" },
	{ R_PENDULUM_GAINED, D_, AT_MOST, 0.03, "symplectic Euler: energy oscillation O(h omega) E = 0.03 J, no drift" },
	{ R_PENDULUM_DRIFT, P_, AT_MOST, 1e-4, why_drift_pgs },
	{ R_PENDULUM_DRIFT, T_, AT_MOST, 1e-5, "drift (v rho)^2 / 2L ~ 1.5e-7 m per sub-advance at erp 0.2: ~1e-6 m" },
	{ R_PENDULUM_DRIFT, X_, AT_MOST, 1e-9, "the pivot is projected exactly each substep: round-off" },
	{ R_PENDULUM_DRIFT, D_, AT_MOST, 1e-4, why_drift_pgs },
	{ R_PENDULUM_VS_TGS, X_, AT_MOST, 5e-3, "each scheme's dissipation shifts the phase by ~1e-3 rad in 1 s" },
	{ R_PENDULUM_VS_TGS, D_, AT_MOST, 5e-3, "each scheme's dissipation shifts the phase by ~1e-3 rad in 1 s" },

	// Chains of each joint type (5 links, a 5 kg tip, released horizontally).
	{ R_CHAIN_FIXED_LIN, X_, AT_MOST, 2e-4, why_xpbd_cantilever },
	{ R_CHAIN_FIXED_ANG, X_, AT_MOST, 1e-3, why_xpbd_cantilever },
	{ R_CHAIN_FIXED_LIN, D_, AT_MOST, 1e-12, why_direct_static },
	{ R_CHAIN_FIXED_ANG, D_, AT_MOST, 1e-12, why_direct_static },
	{ R_CHAIN_PRISMATIC_LIN, X_, AT_MOST, 2e-4, why_xpbd_cantilever },
	{ R_CHAIN_PRISMATIC_ANG, X_, AT_MOST, 1e-3, why_xpbd_cantilever },
	{ R_CHAIN_PRISMATIC_LIN, D_, AT_MOST, 1e-12, why_direct_static },
	{ R_CHAIN_PRISMATIC_ANG, D_, AT_MOST, 1e-12, why_direct_static },
	{ R_CHAIN_CYLINDRICAL_LIN, X_, AT_MOST, 2e-4, why_xpbd_cantilever },
	{ R_CHAIN_CYLINDRICAL_ANG, X_, AT_MOST, 1e-3, why_xpbd_cantilever },
	{ R_CHAIN_CYLINDRICAL_LIN, D_, AT_MOST, 1e-12, why_direct_static },
	{ R_CHAIN_CYLINDRICAL_ANG, D_, AT_MOST, 1e-12, why_direct_static },
	{ R_CHAIN_HINGE_LIN, X_, AT_MOST, 5e-5, why_xpbd_swing },
	{ R_CHAIN_HINGE_ANG, X_, AT_MOST, 1e-6, why_xpbd_swing_ang },
	{ R_CHAIN_HINGE_LIN, D_, AT_MOST, 5e-4, why_direct_swing },
	{ R_CHAIN_HINGE_ANG, D_, AT_MOST, 1e-3, why_direct_swing_ang },
	{ R_CHAIN_SPHERICAL_LIN, X_, AT_MOST, 5e-5, why_xpbd_swing },
	{ R_CHAIN_SPHERICAL_ANG, X_, AT_MOST, 1e-6, "no locked angular axis" },
	{ R_CHAIN_SPHERICAL_LIN, D_, AT_MOST, 5e-4, why_direct_swing },
	{ R_CHAIN_SPHERICAL_ANG, D_, AT_MOST, 1e-3, "no locked angular axis" },
	{ R_CHAIN_DISTANCE_LIN, X_, AT_MOST, 5e-5, why_xpbd_swing },
	{ R_CHAIN_DISTANCE_ANG, X_, AT_MOST, 1e-6, "no locked angular axis" },
	{ R_CHAIN_DISTANCE_LIN, D_, AT_MOST, 5e-4, why_direct_swing },
	{ R_CHAIN_DISTANCE_ANG, D_, AT_MOST, 1e-3, "no locked angular axis" },
	{ R_CHAIN_SIX_AXIS_LIN, X_, AT_MOST, 5e-3,
	  "the tip hits the RY limit at ~6 m/s and the generic rows stop it in a substep, straining the locks" },
	{ R_CHAIN_SIX_AXIS_LIN, D_, AT_MOST, 2e-3,
	  "limit impact at ~6 m/s: drift (v h)^2 / 2L = 7e-5 m per joint, summed, corrected at erp 0.2" },
	{ R_CHAIN_SIX_AXIS_ANG, D_, AT_MOST, 1e-3, "limit impact: per-step drift corrected at erp 0.2" },

	// Limits.
	{ R_LIMIT_HINGE, X_, AT_MOST, 1e-9, why_xpbd_limit_free },
	{ R_LIMIT_HINGE, D_, AT_MOST, 1e-9, why_direct_limit },
	{ R_LIMIT_PRISMATIC, X_, AT_MOST, 1e-9, why_xpbd_limit_last },
	{ R_LIMIT_PRISMATIC, D_, AT_MOST, 1e-9, why_direct_limit },
	{ R_LIMIT_TWIST, X_, AT_MOST, 1e-9, why_xpbd_limit_last },
	{ R_LIMIT_TWIST, D_, AT_MOST, 1e-9, why_direct_limit },
	{ R_LIMIT_DISTANCE, X_, AT_MOST, 1e-9, why_xpbd_limit_last },
	{ R_LIMIT_DISTANCE, D_, AT_MOST, 1e-9, why_direct_limit },
	{ R_LIMIT_CONE_CIRCULAR, X_, AT_MOST, 1e-9, why_xpbd_limit_free },
	{ R_LIMIT_CONE_CIRCULAR, D_, AT_MOST, 2e-4, why_direct_cone },
	{ R_LIMIT_CONE_ELLIPTIC, X_, AT_MOST, 1e-9, why_xpbd_limit_free },
	{ R_LIMIT_CONE_ELLIPTIC, D_, AT_MOST, 2e-4, why_direct_cone },

	// Motors.
	{ R_MOTOR_FAST, X_, AT_MOST, 1e-9, "the motor is a position target phi_start + hx speed: exact speed" },
	{ R_MOTOR_FAST, D_, AT_MOST, 1e-9, "an uncapped velocity row is exact" },
	{ R_MOTOR_CAPPED, X_, AT_MOST, 1e-9, why_cap },
	{ R_MOTOR_CAPPED, D_, AT_MOST, 1e-9, why_cap },
	// The cap is a clamp of the motor row's impulse to cap * h, whatever solves the row; a cap far below
	// what the 10 rad/s target asks is reached in every step, so the wheel turns at tau t / I.
	{ R_MOTOR_CAPPED, P_, AT_MOST, 1e-9, why_cap },
	{ R_MOTOR_CAPPED, T_, AT_MOST, 1e-9, why_cap },
	{ R_MOTOR_CAPPED_TORQUE, P_, AT_MOST, 0.5 * (1.0 + 1e-12), why_cap_holds },
	{ R_MOTOR_CAPPED_TORQUE, T_, AT_MOST, 0.5 * (1.0 + 1e-12), why_cap_holds },
	{ R_MOTOR_CAPPED_REACHED, P_, AT_MOST, 1e-9, "and the cap is reached" },
	{ R_MOTOR_CAPPED_REACHED, T_, AT_MOST, 1e-9, "and the cap is reached" },
	{ R_MOTOR_CAPPED_TORQUE, X_, AT_MOST, 0.5 * (1.0 + 1e-12), why_cap_holds },
	{ R_MOTOR_CAPPED_TORQUE, D_, AT_MOST, 0.5 * (1.0 + 1e-12), why_cap_holds },
	{ R_MOTOR_CAPPED_REACHED, X_, AT_MOST, 1e-9, "and the cap is reached" },
	{ R_MOTOR_CAPPED_REACHED, D_, AT_MOST, 1e-9, "and the cap is reached" },
	{ R_SIX_AXIS_MOTOR, X_, AT_MOST, 1e-9, "velocity-pass motor row, uncapped: at its speed after every substep" },

	// Loads: the reported force and torque at rest.
	{ R_HANG_FIXED_Z, X_, AT_MOST, 1e-6, why_xpbd_weight },
	{ R_HANG_HINGE_Z, X_, AT_MOST, 1e-6, why_xpbd_weight },
	{ R_HANG_PRISMATIC_Z, X_, AT_MOST, 1e-6, why_xpbd_weight },
	{ R_HANG_SPHERICAL_Z, X_, AT_MOST, 1e-6, why_xpbd_weight },
	{ R_HANG_DISTANCE_Z, X_, AT_MOST, 1e-6, why_xpbd_weight },
	{ R_HANG_CYLINDRICAL_Z, X_, AT_MOST, 1e-6, why_xpbd_weight },
	{ R_HANG_SIX_AXIS_Z, X_, AT_MOST, 1e-6, why_xpbd_weight },
	{ R_HANG_FIXED_Z, D_, AT_MOST, 1e-9, why_direct_weight },
	{ R_HANG_HINGE_Z, D_, AT_MOST, 1e-9, why_direct_weight },
	{ R_HANG_PRISMATIC_Z, D_, AT_MOST, 1e-9, why_direct_weight },
	{ R_HANG_SPHERICAL_Z, D_, AT_MOST, 1e-9, why_direct_weight },
	{ R_HANG_DISTANCE_Z, D_, AT_MOST, 1e-9, why_direct_weight },
	{ R_HANG_CYLINDRICAL_Z, D_, AT_MOST, 1e-9, why_direct_weight },
	{ R_HANG_SIX_AXIS_Z, D_, AT_MOST, 1e-9, why_direct_weight },
	// A body hanging straight below its joint has no side load in any solver (symmetry about the
	// vertical through the joint): what a solver reports sideways is round-off.
	{ R_HANG_FIXED_X, P_, AT_MOST, 1e-9, why_no_side },
	{ R_HANG_HINGE_X, P_, AT_MOST, 1e-9, why_no_side },
	{ R_HANG_PRISMATIC_X, P_, AT_MOST, 1e-9, why_no_side },
	{ R_HANG_SPHERICAL_X, P_, AT_MOST, 1e-9, why_no_side },
	{ R_HANG_DISTANCE_X, P_, AT_MOST, 1e-9, why_no_side },
	{ R_HANG_CYLINDRICAL_X, P_, AT_MOST, 1e-9, why_no_side },
	{ R_HANG_SIX_AXIS_X, P_, AT_MOST, 1e-9, why_no_side },
	{ R_HANG_FIXED_X, T_, AT_MOST, 1e-9, why_no_side },
	{ R_HANG_HINGE_X, T_, AT_MOST, 1e-9, why_no_side },
	{ R_HANG_PRISMATIC_X, T_, AT_MOST, 1e-9, why_no_side },
	{ R_HANG_SPHERICAL_X, T_, AT_MOST, 1e-9, why_no_side },
	{ R_HANG_DISTANCE_X, T_, AT_MOST, 1e-9, why_no_side },
	{ R_HANG_CYLINDRICAL_X, T_, AT_MOST, 1e-9, why_no_side },
	{ R_HANG_SIX_AXIS_X, T_, AT_MOST, 1e-9, why_no_side },
	{ R_HANG_FIXED_X, X_, AT_MOST, 1e-9, why_no_side },
	{ R_HANG_HINGE_X, X_, AT_MOST, 1e-9, why_no_side },
	{ R_HANG_PRISMATIC_X, X_, AT_MOST, 1e-9, why_no_side },
	{ R_HANG_SPHERICAL_X, X_, AT_MOST, 1e-9, why_no_side },
	{ R_HANG_DISTANCE_X, X_, AT_MOST, 1e-9, why_no_side },
	{ R_HANG_CYLINDRICAL_X, X_, AT_MOST, 1e-9, why_no_side },
	{ R_HANG_SIX_AXIS_X, X_, AT_MOST, 1e-9, why_no_side },
	{ R_HANG_FIXED_X, D_, AT_MOST, 1e-9, why_no_side },
	{ R_HANG_HINGE_X, D_, AT_MOST, 1e-9, why_no_side },
	{ R_HANG_PRISMATIC_X, D_, AT_MOST, 1e-9, why_no_side },
	{ R_HANG_SPHERICAL_X, D_, AT_MOST, 1e-9, why_no_side },
	{ R_HANG_DISTANCE_X, D_, AT_MOST, 1e-9, why_no_side },
	{ R_HANG_CYLINDRICAL_X, D_, AT_MOST, 1e-9, why_no_side },
	{ R_HANG_SIX_AXIS_X, D_, AT_MOST, 1e-9, why_no_side },
	{ R_CANTILEVER_FORCE, X_, AT_MOST, 1e-6 * SCENE_GRAVITY, "lambda / h^2 at rest: round-off of the substeps" },
	{ R_CANTILEVER_FORCE, D_, AT_MOST, 1e-9 * SCENE_GRAVITY, "the exact solve at rest" },
	{ R_CANTILEVER_TORQUE_Y, X_, AT_MOST, 1e-6 * SCENE_GRAVITY, "lambda / h^2 at rest: round-off of the substeps" },
	{ R_CANTILEVER_TORQUE_Y, D_, AT_MOST, 1e-9 * SCENE_GRAVITY, "the exact solve at rest" },
	{ R_CANTILEVER_TORQUE_X, P_, AT_MOST, 1e-9, "no torque about the bar's axis" },
	{ R_CANTILEVER_TORQUE_X, T_, AT_MOST, 1e-9, "no torque about the bar's axis" },
	{ R_CANTILEVER_TORQUE_X, X_, AT_MOST, 1e-9, "no torque about the bar's axis" },
	{ R_CANTILEVER_TORQUE_X, D_, AT_MOST, 1e-9, "no torque about the bar's axis" },
	// Breaking is a comparison of the reported force with the threshold, the same in every solver.
	{ R_HOOK_HOLDS, P_, EQUALS, -1, why_break },
	{ R_HOOK_HOLDS, T_, EQUALS, -1, why_break },
	{ R_HOOK_BREAKS, P_, EQUALS, 0, why_break },
	{ R_HOOK_BREAKS, T_, EQUALS, 0, why_break },
	{ R_HOOK_HOLDS, X_, EQUALS, -1, why_break },
	{ R_HOOK_HOLDS, D_, EQUALS, -1, why_break },
	{ R_HOOK_BREAKS, X_, EQUALS, 0, why_break },
	{ R_HOOK_BREAKS, D_, EQUALS, 0, why_break },

	// Free fall: the closed form of run_free_fall, N = 1000 steps times the solves per step (1 to 24000).
	{ R_FALL_1_POSITION, P_, AT_MOST, 1e-11, why_fall_x },
	{ R_FALL_1_POSITION, T_, AT_MOST, 1e-11, why_fall_x },
	{ R_FALL_1_POSITION, X_, AT_MOST, 1e-11, why_fall_x },
	{ R_FALL_1_POSITION, D_, AT_MOST, 1e-11, why_fall_x },
	{ R_FALL_1_VELOCITY, P_, AT_MOST, 1e-11, why_fall_v },
	{ R_FALL_1_VELOCITY, T_, AT_MOST, 1e-11, why_fall_v },
	{ R_FALL_1_VELOCITY, X_, AT_MOST, 1e-11, why_fall_v },
	{ R_FALL_1_VELOCITY, D_, AT_MOST, 1e-11, why_fall_v },
	{ R_FALL_1_FRAME, P_, AT_MOST, 1e-12, "rounding of one subtraction" },
	{ R_FALL_1_FRAME, T_, AT_MOST, 1e-12, "rounding of one subtraction" },
	{ R_FALL_1_FRAME, X_, AT_MOST, 1e-12, "rounding of one subtraction" },
	{ R_FALL_1_FRAME, D_, AT_MOST, 1e-12, "rounding of one subtraction" },
	{ R_FALL_1_TIME, P_, AT_MOST, 1e-12, why_clock },
	{ R_FALL_1_TIME, T_, AT_MOST, 1e-12, why_clock },
	{ R_FALL_1_TIME, X_, AT_MOST, 1e-12, why_clock },
	{ R_FALL_1_TIME, D_, AT_MOST, 1e-12, why_clock },
	{ R_FALL_1_STEPS, P_, EQUALS, 1000, why_steps },
	{ R_FALL_1_STEPS, T_, EQUALS, 1000, why_steps },
	{ R_FALL_1_STEPS, X_, EQUALS, 1000, why_steps },
	{ R_FALL_1_STEPS, D_, EQUALS, 1000, why_steps },
	{ R_FALL_2_POSITION, P_, AT_MOST, 1e-11, why_fall_x },
	{ R_FALL_2_POSITION, T_, AT_MOST, 1e-11, why_fall_x },
	{ R_FALL_2_POSITION, X_, AT_MOST, 1e-11, why_fall_x },
	{ R_FALL_2_POSITION, D_, AT_MOST, 1e-11, why_fall_x },
	{ R_FALL_2_VELOCITY, P_, AT_MOST, 1e-11, why_fall_v },
	{ R_FALL_2_VELOCITY, T_, AT_MOST, 1e-11, why_fall_v },
	{ R_FALL_2_VELOCITY, X_, AT_MOST, 1e-11, why_fall_v },
	{ R_FALL_2_VELOCITY, D_, AT_MOST, 1e-11, why_fall_v },
	{ R_FALL_2_FRAME, P_, AT_MOST, 1e-12, "rounding of one subtraction" },
	{ R_FALL_2_FRAME, T_, AT_MOST, 1e-12, "rounding of one subtraction" },
	{ R_FALL_2_FRAME, X_, AT_MOST, 1e-12, "rounding of one subtraction" },
	{ R_FALL_2_FRAME, D_, AT_MOST, 1e-12, "rounding of one subtraction" },
	{ R_FALL_2_TIME, P_, AT_MOST, 1e-12, why_clock },
	{ R_FALL_2_TIME, T_, AT_MOST, 1e-12, why_clock },
	{ R_FALL_2_TIME, X_, AT_MOST, 1e-12, why_clock },
	{ R_FALL_2_TIME, D_, AT_MOST, 1e-12, why_clock },
	{ R_FALL_2_STEPS, P_, EQUALS, 1000, why_steps },
	{ R_FALL_2_STEPS, T_, EQUALS, 1000, why_steps },
	{ R_FALL_2_STEPS, X_, EQUALS, 1000, why_steps },
	{ R_FALL_2_STEPS, D_, EQUALS, 1000, why_steps },
	{ R_FALL_3_POSITION, P_, AT_MOST, 1e-11, why_fall_x },
	{ R_FALL_3_POSITION, T_, AT_MOST, 1e-11, why_fall_x },
	{ R_FALL_3_POSITION, X_, AT_MOST, 1e-11, why_fall_x },
	{ R_FALL_3_POSITION, D_, AT_MOST, 1e-11, why_fall_x },
	{ R_FALL_3_VELOCITY, P_, AT_MOST, 1e-11, why_fall_v },
	{ R_FALL_3_VELOCITY, T_, AT_MOST, 1e-11, why_fall_v },
	{ R_FALL_3_VELOCITY, X_, AT_MOST, 1e-11, why_fall_v },
	{ R_FALL_3_VELOCITY, D_, AT_MOST, 1e-11, why_fall_v },
	{ R_FALL_3_FRAME, P_, AT_MOST, 1e-12, "rounding of one subtraction" },
	{ R_FALL_3_FRAME, T_, AT_MOST, 1e-12, "rounding of one subtraction" },
	{ R_FALL_3_FRAME, X_, AT_MOST, 1e-12, "rounding of one subtraction" },
	{ R_FALL_3_FRAME, D_, AT_MOST, 1e-12, "rounding of one subtraction" },
	{ R_FALL_3_TIME, P_, AT_MOST, 1e-12, why_clock },
	{ R_FALL_3_TIME, T_, AT_MOST, 1e-12, why_clock },
	{ R_FALL_3_TIME, X_, AT_MOST, 1e-12, why_clock },
	{ R_FALL_3_TIME, D_, AT_MOST, 1e-12, why_clock },
	{ R_FALL_3_STEPS, P_, EQUALS, 1000, why_steps },
	{ R_FALL_3_STEPS, T_, EQUALS, 1000, why_steps },
	{ R_FALL_3_STEPS, X_, EQUALS, 1000, why_steps },
	{ R_FALL_3_STEPS, D_, EQUALS, 1000, why_steps },

	// The Dzhanibekov spin: implicit Euler per solve (run_dzhanibekov's derivation), in every solver.
	{ R_SPIN_FLIPS, P_, AT_LEAST, 2, why_spin_flips },
	{ R_SPIN_FLIPS, T_, AT_LEAST, 2, why_spin_flips },
	{ R_SPIN_FLIPS, X_, AT_LEAST, 2, why_spin_flips },
	{ R_SPIN_FLIPS, D_, AT_LEAST, 2, why_spin_flips },
	{ R_SPIN_ENERGY_RISE, P_, AT_MOST, 1e-12, why_spin_rise },
	{ R_SPIN_ENERGY_RISE, T_, AT_MOST, 1e-12, why_spin_rise },
	{ R_SPIN_ENERGY_RISE, X_, AT_MOST, 1e-12, why_spin_rise },
	{ R_SPIN_ENERGY_RISE, D_, AT_MOST, 1e-12, why_spin_rise },
	{ R_SPIN_L_RISE, P_, AT_MOST, 1e-12, why_spin_rise },
	{ R_SPIN_L_RISE, T_, AT_MOST, 1e-12, why_spin_rise },
	{ R_SPIN_L_RISE, X_, AT_MOST, 1e-12, why_spin_rise },
	{ R_SPIN_L_RISE, D_, AT_MOST, 1e-12, why_spin_rise },
	{ R_SPIN_ENERGY_VS_PREDICTED, P_, AT_MOST, 1e-3, why_spin_predicted },
	{ R_SPIN_ENERGY_VS_PREDICTED, T_, AT_MOST, 1e-3, why_spin_predicted },
	{ R_SPIN_ENERGY_VS_PREDICTED, X_, AT_MOST, 1e-3, why_spin_predicted },
	{ R_SPIN_ENERGY_VS_PREDICTED, D_, AT_MOST, 1e-3, why_spin_predicted },
	{ R_SPIN_L_VS_PREDICTED, P_, AT_MOST, 1e-3, why_spin_predicted },
	{ R_SPIN_L_VS_PREDICTED, T_, AT_MOST, 1e-3, why_spin_predicted },
	{ R_SPIN_L_VS_PREDICTED, X_, AT_MOST, 1e-3, why_spin_predicted },
	{ R_SPIN_L_VS_PREDICTED, D_, AT_MOST, 1e-3, why_spin_predicted },
	{ R_SPIN_ENERGY_LOSS, P_, AT_MOST, 0.02, why_spin_energy },
	{ R_SPIN_ENERGY_LOSS, T_, AT_MOST, 0.02, why_spin_energy },
	{ R_SPIN_ENERGY_LOSS, X_, AT_MOST, 0.02, why_spin_energy },
	{ R_SPIN_ENERGY_LOSS, D_, AT_MOST, 0.02, why_spin_energy },
	{ R_SPIN_L_LOSS, P_, AT_MOST, 0.01, why_spin_l },
	{ R_SPIN_L_LOSS, T_, AT_MOST, 0.01, why_spin_l },
	{ R_SPIN_L_LOSS, X_, AT_MOST, 0.01, why_spin_l },
	{ R_SPIN_L_LOSS, D_, AT_MOST, 0.01, why_spin_l },

	// Contacts (issue 13's closed forms, measured by the scene library's runners, contact_runs.h), in all
	// four solvers. XPBD's cells follow TGS's where the error is the sub-advance's (it substeps the same 8
	// times), DIRECT's follow PGS's where it is the one solve per step's.
	{ R_C1_FORCE, P_, AT_MOST, 1e-9 * SCENE_GRAVITY, why_contact_weight },
	{ R_C1_FORCE, T_, AT_MOST, 1e-9 * SCENE_GRAVITY, why_contact_weight },
	{ R_C1_PENETRATION, P_, AT_MOST, 0.0005, why_contact_slop },
	{ R_C1_PENETRATION, T_, AT_MOST, 0.0005, why_contact_slop },
	{ R_C1_ENERGY, P_, AT_MOST, 1e-6, why_contact_rest },
	{ R_C1_ENERGY, T_, AT_MOST, 1e-6, why_contact_rest },
	{ R_C2A_DISPLACEMENT, P_, AT_MOST, 1e-7,
	  "friction rows start without warm start: 5e-8 m in the first 3 steps, then at rest (creep 1e-12 m/s)" },
	{ R_C2A_DISPLACEMENT, T_, AT_MOST, 1e-6,
	  "friction rows start without warm start: 5.5e-7 m in TGS's first windows, then at rest (1e-12 m/s)" },
	{ R_C2B_ACCEL, P_, AT_MOST, 1e-9, why_contact_quadratic },
	{ R_C2B_ACCEL, T_, AT_MOST, 1e-9, why_contact_quadratic },
	{ R_SLIDE_DISTANCE, P_, AT_MOST, 3e-3,
	  "one solve per step moves by the end speed: short by v0 h / 2 = 1 mm of 0.408 m (0.245%)" },
	{ R_SLIDE_DISTANCE, T_, AT_MOST, 4e-4,
	  "8 sub-advances move by their end speeds: short by v0 (h/8) / 2 = 0.125 mm of 0.408 m (0.031%)" },
	{ R_C3_APEX, P_, AT_MOST, 1e-2,
	  "impact once per step (approach speed at the solve's start) O(g h / v) 0.44%, rise by end speeds 0.44%" },
	{ R_C3_APEX, T_, AT_MOST, 6e-3,
	  "impact once per step (approach speed at the solve's start) O(g h / v) 0.44%, rise in h/8 0.06%" },
	{ R_C4_ACCEL, P_, AT_MOST, 1e-9, why_contact_roll },
	{ R_C4_ACCEL, T_, AT_MOST, 1e-9, why_contact_roll },
	{ R_C4_SLIP, P_, AT_MOST, 1e-9, why_contact_roll },
	{ R_C4_SLIP, T_, AT_MOST, 1e-9, why_contact_roll },
	{ R_C5_240_DRIFT, P_, AT_MOST, 5e-3,
	  "issue 13's 5 mm: 8 Gauss-Seidel sweeps at 1/240 s leave the order's asymmetry, the stack sways 2.4 mm" },
	{ R_C5_240_DRIFT, T_, AT_MOST, 1e-9, why_contact_stack },
	{ R_C5_1000_DRIFT, P_, AT_MOST, 1e-9, why_contact_stack },
	{ R_C5_1000_DRIFT, T_, AT_MOST, 1e-9, why_contact_stack },
	{ R_SOFT_BALL_SINK, P_, AT_MOST, 1e-6, why_contact_soft },
	{ R_SOFT_BALL_SINK, T_, AT_MOST, 1e-6, why_contact_soft },
	{ R_SOFT_BOX_SINK, P_, AT_MOST, 1e-6, why_contact_soft },
	{ R_SOFT_BOX_SINK, T_, AT_MOST, 1e-6, why_contact_soft },
	{ R_SOFT_BALL_240_SINK, P_, AT_MOST, 1e-6, why_contact_soft },
	{ R_SOFT_BALL_240_SINK, T_, AT_MOST, 1e-6, why_contact_soft },
	{ R_SOFT_BOX_240_SINK, P_, AT_MOST, 1e-6, why_contact_soft },
	{ R_SOFT_BOX_240_SINK, T_, AT_MOST, 1e-6, why_contact_soft },
	{ R_C1_FORCE, X_, AT_MOST, 1e-9 * SCENE_GRAVITY, why_contact_weight },
	{ R_C1_FORCE, D_, AT_MOST, 1e-9 * SCENE_GRAVITY, why_contact_weight },
	{ R_C1_PENETRATION, X_, AT_MOST, 0.0005, why_contact_slop },
	{ R_C1_PENETRATION, D_, AT_MOST, 0.0005, why_contact_slop },
	{ R_C1_ENERGY, X_, AT_MOST, 1e-6, why_contact_rest },
	{ R_C1_ENERGY, D_, AT_MOST, 1e-6, why_contact_rest },
	{ R_C2A_DISPLACEMENT, X_, AT_MOST, 1e-9,
	  "static friction is a position constraint on the contact point: it holds to rounding from the first substep" },
	{ R_C2A_DISPLACEMENT, D_, AT_MOST, 1e-9,
	  "friction rows in the active set: the first step's regularised solve leaves 8e-12 m, then exact" },
	{ R_C2B_ACCEL, X_, AT_MOST, 1e-8,
	  "sliding friction from the normal multiplier of the position pass (lambda_n / h), converged to 1e-9 relative" },
	{ R_C2B_ACCEL, D_, AT_MOST, 1e-9, why_contact_quadratic },
	{ R_SLIDE_DISTANCE, X_, AT_MOST, 4e-4,
	  "8 substeps move by their end speeds: short by v0 (h/8) / 2 = 0.125 mm of 0.408 m (0.031%)" },
	{ R_SLIDE_DISTANCE, D_, AT_MOST, 3e-3,
	  "one solve per step moves by the end speed: short by v0 h / 2 = 1 mm of 0.408 m (0.245%)" },
	{ R_C3_APEX, X_, AT_MOST, 3e-3,
	  "restitution in the velocity pass of the substep of impact: O(g (h/8) / v) 0.06%, rise in h/8 0.06%" },
	{ R_C3_APEX, D_, AT_MOST, 1e-2,
	  "impact once per step (approach speed at the solve's start) O(g h / v) 0.44%, rise by end speeds 0.44%" },
	{ R_C4_ACCEL, X_, AT_MOST, 1e-9, why_contact_roll },
	{ R_C4_ACCEL, D_, AT_MOST, 1e-9, why_contact_roll },
	{ R_C4_SLIP, X_, AT_MOST, 1e-9, why_contact_roll },
	{ R_C4_SLIP, D_, AT_MOST, 1e-9, why_contact_roll },
	{ R_C5_240_DRIFT, X_, AT_MOST, 1e-9, why_contact_stack },
	{ R_C5_240_DRIFT, D_, AT_MOST, 1e-9, why_contact_stack },
	{ R_C5_1000_DRIFT, X_, AT_MOST, 1e-9, why_contact_stack },
	{ R_C5_1000_DRIFT, D_, AT_MOST, 1e-9, why_contact_stack },
	{ R_SOFT_BALL_SINK, X_, AT_MOST, 1e-6, why_contact_soft },
	{ R_SOFT_BALL_SINK, D_, AT_MOST, 1e-6, why_contact_soft },
	{ R_SOFT_BOX_SINK, X_, AT_MOST, 1e-6, why_contact_soft },
	{ R_SOFT_BOX_SINK, D_, AT_MOST, 1e-6, why_contact_soft },
	{ R_SOFT_BALL_240_SINK, X_, AT_MOST, 1e-6, why_contact_soft },
	{ R_SOFT_BALL_240_SINK, D_, AT_MOST, 1e-6, why_contact_soft },
	{ R_SOFT_BOX_240_SINK, X_, AT_MOST, 1e-6, why_contact_soft },
	{ R_SOFT_BOX_240_SINK, D_, AT_MOST, 1e-6, why_contact_soft },
};

enum
{
	CELLS = sizeof(cells) / sizeof(cells[0])
};

static const double* results(int e, sn_solver solver)
{
	experiment* x = experiments + e;
	if (!x->done[solver])
	{
		x->run(solver, x->param, x->out[solver]);
		x->done[solver] = true;
	}
	return x->out[solver];
}

static double measured(int r, sn_solver solver)
{
	const row* rw = rows + r;
	double v = results(rw->experiment, solver)[rw->field];
	return rw->against_tgs ? fabs(v - results(rw->experiment, SN_SOLVER_TGS)[rw->field]) : v;
}

static bool holds(const cell* c, double v)
{
	switch (c->kind)
	{
		case AT_MOST:
			return v <= c->bound;
		case AT_LEAST:
			return v >= c->bound;
		case EQUALS:
			return v == c->bound;
	}
	return false;
}

static const char* kind_symbol(check_kind kind)
{
	return kind == AT_MOST ? "<=" : (kind == AT_LEAST ? ">=" : "==");
}

// Number of a reason in the legend (1-based), numbering each distinct text once.
static int reason_number(const char** seen, int* count, const char* reason)
{
	for (int i = 0; i < *count; ++i)
	{
		if (strcmp(seen[i], reason) == 0)
		{
			return i + 1;
		}
	}
	seen[*count] = reason;
	*count += 1;
	return *count;
}

// ---- tests ----------------------------------------------------------------------------------------------

// The closed form behind the pendulum rows: K(1/sqrt(2)) = 1.8540746773013719 (Abramowitz and Stegun
// 17.3) checks the AGM itself; the period by hand.
static void test_pendulum_closed_form(void** state)
{
	(void)state;
	assert_near(scene_complete_elliptic_k(sqrt(0.5)), 1.8540746773013719, 1e-14, "AGM converges quadratically");
	assert_near(scene_pendulum_exact_period(), 2.3678, 1e-4, "4 sqrt(1/9.81) K: hand value");
}

// Every row, every solver: run, print, check.
static void test_matrix(void** state)
{
	(void)state;
	const char* seen[CELLS];
	int seen_count = 0;
	int failures = 0, bounded = 0, unbounded = 0;
	char failed[2048] = "";
	print_message("%-62s %-27s %-27s %-27s %-27s\n", "scene: measured quantity", "pgs", "tgs", "xpbd", "direct");
	for (int r = 0; r < ROWS; ++r)
	{
		char line[256];
		int at = snprintf(line, sizeof(line), "%-62s", rows[r].name);
		for (int s = 0; s < SOLVERS; ++s)
		{
			double v = measured(r, (sn_solver)s);
			const cell* c = NULL;
			for (int k = 0; k < CELLS && c == NULL; ++k)
			{
				c = (cells[k].row == r && cells[k].solver == (sn_solver)s) ? cells + k : NULL;
			}
			char text[64];
			if (c == NULL)
			{
				snprintf(text, sizeof(text), "%10.3g   (no bound)", v);
				unbounded += 1;
			}
			else
			{
				bool ok = holds(c, v);
				int reason = reason_number(seen, &seen_count, c->reason);
				snprintf(text, sizeof(text), "%10.3g %s %-8.3g r%-2d%s", v, kind_symbol(c->kind), c->bound, reason,
						 ok ? "" : "!");
				bounded += 1;
				if (!ok)
				{
					failures += 1;
					size_t used = strlen(failed);
					snprintf(failed + used, sizeof(failed) - used, "\n  %s, %s: %.17g, bound %s %.17g (%s)",
							 rows[r].name, sn_solver_name((sn_solver)s), v, kind_symbol(c->kind), c->bound, c->reason);
				}
			}
			at += snprintf(line + at, sizeof(line) - (size_t)at, " %-27s", text);
		}
		print_message("%s\n", line);
	}
	print_message("reasons (rN in a cell; ! marks a cell out of its bound):\n");
	for (int i = 0; i < seen_count; ++i)
	{
		print_message("  r%-2d %s\n", i + 1, seen[i]);
	}
	print_message("MEASURE cells with a bound = %d, without = %d, out of bound = %d\n", bounded, unbounded, failures);
	if (failures > 0)
	{
		fail_msg("%d cells out of their bounds:%s", failures, failed);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pendulum_closed_form),
		cmocka_unit_test(test_matrix),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
